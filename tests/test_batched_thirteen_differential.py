"""The batched Thirteen engine against the reference, game for game.

The same seeds and the same actions go through the reference engine (which the AEC
env runs on) and through :class:`BatchedThirteen`, fed the very decks the reference
shuffles from ``default_rng(seed)`` (and, for some games, a stacked first deck dealing
an instant win). Over tens of thousands of games in mixed configs, covering every rule
option, every step must agree on the seat to act, the phase, the legal actions, whether
a player went out or a game or the episode ended, every seat's reward (the AEC env's
own ``_settle``), scores, points, places, terminations and the result itself; the
observation of the player to act is compared on a random sample of steps, and every
seat's at every episode's end. A few hundred games run through the real ``raw_env``
loop instead, comparing every agent's observation, mask, reward and termination at
every step.
"""

from __future__ import annotations

import os

import batched_helpers as H
import numpy as np
import pytest
from conftest import run_in_workers

pytest.importorskip("numba", reason="the differential run needs compiled kernels")

from schnauz_env.batched.thirteen import BatchedThirteen, reference_decks
from schnauz_env.batched.thirteen.layout import B_LEGAL
from schnauz_env.cards import format_card
from schnauz_env.thirteen import ThirteenConfig, new_game
from schnauz_env.thirteen.combos import CARD_OF, STRENGTH
from schnauz_env.thirteen.engine import NUM_ACTIONS, PASS, PLAY
from schnauz_env.thirteen.env import raw_env
from schnauz_env.thirteen.observation import ObservationEncoder

#: Action weights of the scripted random players (52 cards, play, pass): uniform;
#: eager to play (short plays, many singles, quick games); eager to build (long
#: sequences, double sequences, bombs); eager to pass (tables cleared, leads passed on).
STYLES = np.ones((4, NUM_ACTIONS))
STYLES[1, PLAY] = 20.0
STYLES[2, PLAY] = 0.05
STYLES[3, PASS] = 8.0


def mixed_configs(count: int) -> list[ThirteenConfig]:
    """``count`` configs that together use every value of every rule option.

    One in four is a match, to few points or stopped by a low ``max_games`` (so that
    matches of several games stay within a CI budget while every path is exercised).
    """
    configs = []
    matches = 0
    for k in range(count):
        options = dict(
            num_players=2 + k % 3,
            opening=["include", "free"][(k + k // 4) % 2],
            out_clears_table=bool((k // 3) % 2),
            instant_wins=bool((k // 4) % 2),
        )
        if k % 4 == 3:
            options["episode"] = "match"
            options["target_points"] = [2, 5, 10][matches % 3]
            options["max_games"] = [100, 3, 2, 100][matches % 4]
            matches += 1
        configs.append(ThirteenConfig(**options))
    return configs


def instant_deck(config: ThirteenConfig, rng: np.random.Generator) -> list[str]:
    """A deck (card codes, top first) that deals one seat four 2s or a dragon."""
    n = config.num_players
    seat = int(rng.integers(n))
    if rng.random() < 0.5:  # four 2s
        chosen = [int(CARD_OF[s]) for s in range(48, 52)]
    else:  # a dragon: one card of each rank 3..A
        chosen = [int(CARD_OF[4 * r + int(rng.integers(4))]) for r in range(12)]
    rest = [c for c in rng.permutation(52).tolist() if c not in chosen]
    hand = chosen + rest[: 13 - len(chosen)]
    others = rest[13 - len(chosen) :]
    deck = []
    for i in range(52):
        if i < 13 * n and i % n == seat:
            deck.append(hand[i // n])
        else:
            deck.append(others.pop(0))
    return [format_card(c) for c in deck]


def choose_actions(legal: np.ndarray, weights: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A weighted random legal action per row of bits ``legal`` (Efraimidis-Spirakis keys)."""
    return H.choose_weighted((legal[:, None] >> np.arange(NUM_ACTIONS)) & 1, weights, rng)


def games_needed(config: ThirteenConfig) -> int:
    """Decks to give each episode: the most games it can have, within reason."""
    return min(config.max_games, 60) if config.episode == "match" else 1


def make_decks(config: ThirteenConfig, seeds: list[int], stacked: dict) -> np.ndarray:
    count = games_needed(config)
    decks = []
    for g, seed in enumerate(seeds):
        perms = reference_decks(config, seed, count)
        if g in stacked:
            first = np.array([int(c) for c in _parse(stacked[g])], dtype=np.int8)
            perms = np.concatenate([first[None], perms[:-1]])
        decks.append(perms)
    return np.stack(decks)


def _parse(codes: list[str]) -> list[int]:
    from schnauz_env.cards import parse_cards

    return [int(c) for c in parse_cards(codes)]


def run_direct(config: ThirteenConfig, seeds: list[int], obs_rate: float, rng) -> dict[str, int]:
    """Lockstep: reference engine + ObservationEncoder against the batched engine."""
    b, n = len(seeds), config.num_players
    stacked = {}
    if config.instant_wins:
        stacked = {g: instant_deck(config, rng) for g in range(b) if rng.random() < 0.1}
    # a match may start from points already scored (the reset option "scores")
    scores = np.zeros((b, n), dtype=np.int64)
    if config.episode == "match":
        ahead = rng.random(b) < 0.2
        scores[ahead] = rng.integers(0, config.target_points + 2, size=(int(ahead.sum()), n))
    eng = BatchedThirteen(b, config, observe=True, auto_reset=False)
    eng.reset(decks=make_decks(config, seeds, stacked), scores=scores)
    settler = raw_env(**config.to_dict())
    refs = [
        H.Reference(
            new_game(
                config,
                np.random.default_rng(s),
                deck=stacked.get(g),
                scores=scores[g].tolist() if scores[g].any() else None,
            ),
            settler,
        )
        for g, s in enumerate(seeds)
    ]
    enc = ObservationEncoder(config)
    weights = STYLES[rng.integers(len(STYLES), size=b)]
    cache: dict = {}
    stats = dict(games=b, steps=0, obs=0, results=0)
    for g, ref in enumerate(refs):  # the deal and the first view
        assert ref.state.current == eng.current[g]
        H.assert_same(eng.obs[g], enc.encode(ref.state, ref.state.current), (config, seeds[g]))
    alive = list(range(b))
    while alive:
        legal = eng.state.bits[:, B_LEGAL].copy()
        actions = choose_actions(legal, weights, rng)
        actions_l = actions.tolist()
        legal_l = legal.tolist()
        cur_before = eng.current.tolist()
        results = {}
        for g in alive:
            st = refs[g].state
            assert st.current == cur_before[g], (config, seeds[g])
            assert legal_l[g] == H.legal_bits(st.legal_actions(), cache), (config, seeds[g])
            results[g] = st.apply(actions_l[g])
        obs, mask, rewards, ended = eng.step(actions)
        result_l = eng.result.tolist()
        ended_l = ended.tolist()
        current = eng.current.tolist()
        phase = eng.phase.tolist()
        assert not rewards[eng.result == 0].any()  # every reward comes with a result
        sample = set(np.flatnonzero(rng.random(b) < obs_rate).tolist())
        terminated = eng.terminated.tolist() if result_l.count(0) < b else None
        still = []
        for g in alive:
            ref = refs[g]
            st = ref.state
            result = results[g]
            assert (result is not None) == bool(result_l[g]), (config, seeds[g])
            assert st.current == current[g] and st.phase == phase[g], (config, seeds[g])
            if result is not None:
                stats["results"] += 1
                key = f"reason_{result.reason}"
                stats[key] = stats.get(key, 0) + 1
                if result.match_limit_reached:
                    stats["limit"] = stats.get("limit", 0) + 1
                expected = ref.settle(result)
                where = (config, seeds[g])
                assert rewards[g].tolist() == expected, (*where, result.to_dict())
                assert eng.last_result(g) == result.to_dict(), where
                assert eng.scores[g].tolist() == st.scores
                assert eng.games[g] == st.game
                places = [0.0 if p is None else p for p in st.places]
                assert eng.places[g].tolist() == places, where
                assert terminated[g] == ref.terminated, where
            assert bool(ended_l[g]) == st.game_over, (config, seeds[g])
            if g in sample:
                stats["obs"] += 1
                H.assert_same(obs[g], enc.encode(st, st.current), (config, seeds[g]))
            if not st.game_over:
                still.append(g)
            else:  # the end: everything the env reports afterwards
                assert mask[g].sum() == 0
                assert eng.hands(g) == st.hands and eng.table(g) == st.table
                assert eng.played(g) == sorted(st.played, key=STRENGTH.__getitem__)
                views = eng.observe(np.arange(n), games=np.full(n, g))
                for s in range(n):
                    H.assert_same(views[s], enc.encode(st, s), (config, seeds[g], s))
                stats["obs"] += n
        stats["steps"] += len(alive)
        alive = still
    return stats


def run_aec(config: ThirteenConfig, seeds: list[int], rng) -> int:
    """Lockstep with the real ``raw_env`` loop: every agent's view, mask, reward and
    termination at every step."""
    eng = BatchedThirteen(len(seeds), config, observe=True, auto_reset=False)
    eng.reset(decks=make_decks(config, seeds, {}))
    envs = H.reset_envs(raw_env, config, seeds)
    weights = STYLES[rng.integers(len(STYLES), size=len(seeds))]

    def choose() -> np.ndarray:
        return choose_actions(eng.state.bits[:, B_LEGAL].copy(), weights, rng)

    return H.lockstep_with_raw_env(eng, envs, config, seeds, choose)


CONFIGS = mixed_configs(24)
#: 24 x 600 = 14,400 episodes, about 21,000 games (matches play several); the
#: environment variable changes it (e.g. a longer run before a release).
GAMES_PER_CONFIG = int(os.environ.get("THIRTEEN_DIFFERENTIAL_GAMES", "600"))


def test_configs_cover_every_option() -> None:
    seen = {name: {getattr(c, name) for c in CONFIGS} for name in ThirteenConfig.option_names()}
    assert seen["num_players"] == {2, 3, 4}
    assert seen["episode"] == {"game", "match"}
    assert seen["opening"] == {"include", "free"}
    assert seen["out_clears_table"] == {True, False}
    assert seen["instant_wins"] == {True, False}
    matches = [c for c in CONFIGS if c.episode == "match"]
    assert {c.num_players for c in matches} == {2, 3, 4}
    assert len({c.target_points for c in matches}) >= 3
    assert len({c.max_games for c in matches}) >= 3
    for name in ("opening", "out_clears_table", "instant_wins"):
        assert {getattr(c, name) for c in matches} == seen[name], name


def _run_config(k: int) -> dict[str, int]:
    seeds = list(range(k * 1_000_000, k * 1_000_000 + GAMES_PER_CONFIG))
    return run_direct(CONFIGS[k], seeds, obs_rate=0.03, rng=np.random.default_rng(2024 + k))


@pytest.mark.slow
def test_differential_games() -> None:
    # load (or compile) the kernels once, before the workers fork
    run_direct(CONFIGS[0], [0, 1], obs_rate=1.0, rng=np.random.default_rng(0))
    totals = run_in_workers(_run_config, len(CONFIGS))
    assert totals["games"] >= len(CONFIGS) * GAMES_PER_CONFIG
    assert totals["reason_game_over"] + totals["reason_instant_win"] > 1.3 * totals["games"]
    # the run reached every kind of result, and matches stopped by the games limit
    often = GAMES_PER_CONFIG // 5
    for reason in ("out", "game_over", "instant_win"):
        assert totals.get(f"reason_{reason}", 0) > often, reason
    assert totals.get("limit", 0) > often
    assert totals["obs"] > totals["steps"] // 50


def test_differential_through_raw_env() -> None:
    rng = np.random.default_rng(99)
    steps = 0
    for k, config in enumerate(CONFIGS):  # 24 x 8 = 192 episodes
        seeds = list(range(7_000_000 + 1000 * k, 7_000_000 + 1000 * k + 8))
        steps += run_aec(config, seeds, rng)
    assert steps > 15_000
