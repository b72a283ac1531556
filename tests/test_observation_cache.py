"""The incremental observations (one table vector kept and rewritten where the state
changed, ``ObservationEncoder.cached``) of Schnauz and Scat against a fresh encoding.

Random play over configs that use every table size and deck, lives, knocks, the
dealer's choice, all-pass refreshes (cards out of play) and whole-game eliminations:
after every move, every seat's view from the cache must equal, float for float, the
view a new encoder builds and the view the direct encoder below builds (the encoder as
it was before the cache: every entry written from the state, no table vector), and the
vectors handed out earlier must not change afterwards.
"""

from __future__ import annotations

import numpy as np
import pytest

from schnauz_env.scat.config import ScatConfig
from schnauz_env.scat.engine import new_game as new_scat_game
from schnauz_env.scat.observation import ObservationEncoder as ScatEncoder
from schnauz_env.schnauz.config import SchnauzConfig
from schnauz_env.schnauz.engine import DEALER_CHOICE, OVER, TURNS, new_game
from schnauz_env.schnauz.observation import SEAT_FEATURES, ObservationEncoder, P


def direct_encode(enc: ObservationEncoder, state, seat: int) -> np.ndarray:
    """The observation written entry by entry from the state (the specification)."""
    s = enc.layout.slices
    obs = np.zeros(enc.size, dtype=np.float32)
    n = state.n
    nc = enc.config.deck_size
    lo = 4 * enc.config.min_rank
    ones: list[int] = []
    for i, c in enumerate(state.hands[seat]):
        ones.append(s["hand"].start - lo + i * nc + c)
    for j, c in enumerate(state.table):
        ones.append(s["table"].start - lo + j * nc + c)
    ones.extend(s["out_of_play"].start - lo + c for c in state.out_of_play)
    scale = 1.0 / max(state.max_lives, 1)
    for k in range(n):
        t = (seat + k) % n
        f = s["seats"].start + k * SEAT_FEATURES
        ones.append(f)
        if not state.out[t]:
            ones.append(f + 1)
            if state.lives[t] == 0:
                ones.append(f + 2)
            obs[f + 3] = state.lives[t] * scale
        if k:
            base = s["known"].start + (k - 1) * nc - lo
            ones.extend(base + c for c in state.known[t])
    ones.append(s["dealer"].start + (state.dealer - seat) % n)
    if state.knocker is not None:
        ones.append(s["knocker"].start + (state.knocker - seat) % n)
    if state.phase != OVER:
        ones.append(s["to_act"].start + (state.current - seat) % n)
        phase = 0 if state.phase == DEALER_CHOICE else 1 if state.phase == TURNS else 2
        ones.append(s["phase"].start + phase)
    ones.append(s["passes"].start + min(state.passes, P - 1))
    obs[ones] = 1.0
    obs[s["stock"].start] = (len(state.deck) - state.pos) / nc
    return obs


CONFIGS = [
    {"num_players": 2},
    {"num_players": 4},
    {"num_players": 6, "deck": "A5", "lives": 1},
    {"num_players": 3, "deck": "A9", "lives": 0},
    {"num_players": 5, "knock_in_first_circle": False, "short_stock": "recycle"},
]


def check_cached_views(enc, new_game, rnd, games: int, spec=None) -> None:
    """Random play of ``games`` games (seeds 0, 1, …): after every move, every seat's
    view from ``enc.cached()`` equals ``enc.encode`` (and ``spec(enc, state, seat)``, if
    given), and the views handed out earlier never change afterwards."""
    cached = enc.cached()
    handed_out: list[tuple[np.ndarray, np.ndarray]] = []
    moves = 0
    for game in range(games):
        state = new_game(enc.config, np.random.default_rng(game))
        while True:
            for seat in range(state.n):
                view = cached.encode(state, seat)
                assert view.dtype == np.float32 and view.shape == (enc.size,)
                np.testing.assert_array_equal(view, enc.encode(state, seat))
                if spec is not None:
                    np.testing.assert_array_equal(view, spec(enc, state, seat))
                if rnd.random() < 0.02:
                    handed_out.append((view, view.copy()))
            if state.game_over:
                break
            legal = state.legal_actions()
            state.apply(int(legal[rnd.integers(len(legal))]))
            moves += 1
    assert moves > 150
    for view, copy in handed_out:  # each view is a new vector, never rewritten later
        np.testing.assert_array_equal(view, copy)


@pytest.mark.parametrize("options", CONFIGS, ids=lambda o: ",".join(map(str, o.values())))
def test_cached_views_are_fresh_views(options: dict) -> None:
    config = SchnauzConfig(**options)
    rnd = np.random.default_rng(len(options) * 7 + config.num_players)
    check_cached_views(ObservationEncoder(config), new_game, rnd, 10, direct_encode)


def test_one_cache_across_table_sizes_and_unrelated_states() -> None:
    """The cache compares by value: states of other games and table sizes, in any order."""
    encs = {n: ObservationEncoder(SchnauzConfig(num_players=n)) for n in (2, 4, 6)}
    cached = encs[4].cached()
    rnd = np.random.default_rng(5)
    states = [new_game(SchnauzConfig(num_players=n), np.random.default_rng(n)) for n in encs]
    for _ in range(300):
        state = states[rnd.integers(len(states))]
        if not state.game_over:
            legal = state.legal_actions()
            state.apply(int(legal[rnd.integers(len(legal))]))
        seat = int(rnd.integers(state.n))
        np.testing.assert_array_equal(
            cached.encode(state, seat), direct_encode(encs[state.n], state, seat)
        )


SCAT_CONFIGS = [
    {},
    {"num_players": 2},
    {"num_players": 7, "lives": 1},
    {"four_card": True, "no_trinca": True},
    {"buy_ins": 2, "knock_on_first_turn": True},
]


@pytest.mark.parametrize("options", SCAT_CONFIGS, ids=lambda o: ",".join(map(str, o.items())))
def test_scat_cached_views_are_fresh_views(options: dict) -> None:
    """Scat: after every move of random play, every seat's view from the cache equals
    the encoder's direct ``encode`` (which writes every entry from the state), and the
    vectors handed out earlier do not change afterwards."""
    config = ScatConfig(**options)
    rnd = np.random.default_rng(len(options) * 3 + config.num_players)
    check_cached_views(ScatEncoder(config), new_scat_game, rnd, 6)


def test_scat_env_observes_through_the_cache() -> None:
    """The AEC env encodes with the cache, and its views are the direct encoder's."""
    from schnauz_env import scat_v0

    env = scat_v0.raw_env(num_players=3)
    assert type(env._views).__name__ == "CachedEncoder"
    rnd = np.random.default_rng(0)
    env.reset(seed=4)
    for _ in env.agent_iter(400):
        for agent in env.agents:
            seat = env.agent_name_mapping[agent]
            np.testing.assert_array_equal(
                env.observe(agent)["observation"], env.encoder.encode(env.game, seat)
            )
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(rnd.choice(legal)))
