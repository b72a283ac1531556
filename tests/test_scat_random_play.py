"""Random-play invariants of Scat over 10,000+ games (most on the engine, some through
the AEC env): no card is created or lost, the mask is never empty and is exact
(masked actions are accepted, unmasked ones rejected), lives and places add up,
rewards are zero-sum, and every game ends."""

from __future__ import annotations

import random

import numpy as np
import pytest

from schnauz_env import scat_v0
from schnauz_env.common.aec import place_value
from schnauz_env.scat import NUM_ACTIONS, OVER, RoundResult, ScatConfig, ScatState, new_game

#: (config, games): 10,000 engine games over every table size and variant.
ENGINE_RUNS = [
    (ScatConfig(num_players=2), 2500),
    (ScatConfig(num_players=3, knock_on_first_turn=True), 1500),
    (ScatConfig(num_players=4), 1200),
    (ScatConfig(num_players=4, four_card=True, lives=1), 1000),
    (ScatConfig(num_players=5, no_trinca=True, lives=1), 1000),
    (ScatConfig(num_players=6, lives=0, buy_ins=2), 500),
    (ScatConfig(num_players=7, lives=0), 1000),
    (ScatConfig(num_players=3, lives=0, max_turns=6), 700),
    (ScatConfig(num_players=4, episode="round"), 600),
]
MAX_STEPS = 200_000


def check_cards(state: ScatState) -> None:
    cards = list(state.pile) + state.deck[state.pos :]
    for s in range(state.n):
        if state.out[s]:
            assert state.hands[s] == [], "a player who is out holds cards"
        else:
            cards += state.hands[s]
    assert len(cards) == 52 and len(set(cards)) == 52, "a card was created or lost"


def check_result(state: ScatState, result: RoundResult, lives_before: list[int]) -> None:
    cfg = state.config
    for r in result.chain():
        assert sum(r.losses.values()) >= 1 or r.reason == "blitz_deal"
        assert all(v in (1, 2) for v in r.losses.values())
        assert all(v == 2 and s == r.knocker for s, v in r.losses.items() if v == 2)
        for s in r.blitz_holders:
            assert s not in r.losses
    head = result
    for s in head.seats:
        lost = head.losses.get(s, 0)
        if s in head.went_out:
            assert head.out_after[s]
        elif s in head.bought_in:
            assert head.lives_after[s] == cfg.lives
        elif not head.tie_break:
            assert head.lives_after[s] == lives_before[s] - lost
    assert all(x >= 0 for x in state.lives)


def play_random_game(config: ScatConfig, seed: int, rng: random.Random) -> ScatState:
    """One game of uniformly random legal moves, checking the invariants as it goes.

    The cheap checks run every step; the exact-mask, rejection and full card checks
    every few steps and at every round's end (to keep 10,000 games fast).
    """
    state = new_game(config, np.random.default_rng(seed))
    if not state.game_over:  # (a blitz on the first deal may end a game at once)
        check_cards(state)
    steps = 0
    while not state.game_over:
        legal = state.legal_actions()
        assert legal, f"empty mask in {state!r}"
        if steps % 4 == 0:
            mask = state.legal_mask()
            assert tuple(np.flatnonzero(mask)) == legal
            illegal = [a for a in range(NUM_ACTIONS) if not mask[a]]
            bad = illegal[rng.randrange(len(illegal))]
            before = (state.current, state.step, state.pos, len(state.pile))
            with pytest.raises(ValueError):
                state.apply(bad)  # an unmasked action is rejected and changes nothing
            assert (state.current, state.step, state.pos, len(state.pile)) == before
            check_cards(state)
        lives_before = list(state.lives)
        result = state.apply(legal[rng.randrange(len(legal))])  # masked: accepted
        if result is not None:
            check_result(state, result, lives_before)
            if not state.game_over:
                check_cards(state)
        steps += 1
        assert steps < MAX_STEPS, "a game did not end"
    assert state.phase == OVER and state.legal_actions() == ()
    return state


def test_random_play_engine_invariants() -> None:
    rng = random.Random(2024)
    games = 0
    for config, count in ENGINE_RUNS:
        n = config.num_players
        for _ in range(count):
            state = play_random_game(config, seed=games, rng=rng)
            games += 1
            if config.episode == "round":
                continue
            places = state.places
            assert all(p is not None for p in places)
            assert sum(places) == pytest.approx(n * (n + 1) / 2)  # a permutation, ties averaged
            assert places.count(1.0) == 1 and state.num_active == 1
            assert sum(place_value(p, n) for p in places) == pytest.approx(0.0)
    assert games >= 10_000


@pytest.mark.parametrize(
    "options",
    [
        {"num_players": 2},
        {"num_players": 4, "lives": 1},
        {"num_players": 7, "lives": 0, "four_card": True},
        {"num_players": 3, "episode": "round"},
    ],
)
def test_random_play_through_the_env(options: dict) -> None:
    """Zero-sum rewards at every step; a whole game's return is the final place's value."""
    rng = np.random.default_rng(7)
    env = scat_v0.env(**options)
    n = options["num_players"]
    for game in range(60):
        env.reset(seed=game)
        returns = dict.fromkeys(env.possible_agents, 0.0)
        for agent in env.agent_iter(max_iter=MAX_STEPS):
            obs, _, term, trunc, _ = env.last()
            assert obs["observation"].min() >= 0.0 and obs["observation"].max() <= 1.0
            if term or trunc:
                action = None
            else:
                mask = obs["action_mask"]
                assert mask.any()
                for other in env.agents:
                    if other != agent:
                        assert not env.observe(other)["action_mask"].any()
                action = int(rng.choice(np.flatnonzero(mask)))
            env.step(action)
            assert sum(env.rewards.values()) == pytest.approx(0.0, abs=1e-9)
            for a, r in env.rewards.items():
                returns[a] += r
        assert env.agents == [], "the game did not end"
        game_state = env.unwrapped.game
        assert sum(returns.values()) == pytest.approx(0.0, abs=1e-9)
        if options.get("episode") != "round":
            for s, a in enumerate(env.possible_agents):
                assert returns[a] == pytest.approx(place_value(game_state.places[s], n))
