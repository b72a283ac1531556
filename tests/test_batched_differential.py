"""The batched engine against the reference, game for game.

The same seeds and the same actions go through the reference engine (which the AEC
env runs on) and through :class:`BatchedSchnauz`, fed the very shuffles the
reference draws from ``default_rng(seed)``. Over 100,000 games in mixed configs,
covering every rule option, every step must agree on the seat to act, the phase,
the legal actions, whether a round or the game ended, every seat's reward (the
AEC env's own ``_settle``), lives, outs, places and the showdown's result; the
observation of the player to act is compared on a random sample of steps. A smaller
set of games runs through the real ``raw_env`` loop instead, comparing every
agent's observation, reward and termination at every step.
"""

from __future__ import annotations

import batched_helpers as H
import numpy as np
import pytest
from conftest import run_in_workers

pytest.importorskip("numba", reason="the differential run needs compiled kernels")

from schnauz_env.batched.schnauz import BatchedSchnauz, reference_decks
from schnauz_env.schnauz import SchnauzConfig, SchnauzState, new_game
from schnauz_env.schnauz.engine import NUM_ACTIONS
from schnauz_env.schnauz.env import raw_env
from schnauz_env.schnauz.observation import ObservationEncoder

BITS = 1 << np.arange(NUM_ACTIONS, dtype=np.int64)
#: Action weights of the scripted random players (keep, exchange, 9 swaps, swap all,
#: pass, knock): uniform, knock-happy (short rounds), pass-happy (table refreshes,
#: short stock, recycling) and swap-happy (instant wins, turn limits).
STYLES = np.array(
    [
        [1, 1, *[1] * 9, 1, 1, 1],
        [1, 1, *[1] * 9, 1, 1, 8],
        [1, 1, *[0.3] * 9, 0.3, 12, 0.4],
        [1, 3, *[2] * 9, 4, 0.5, 0.2],
    ],
    dtype=np.float64,
)


def mixed_configs(count: int, seed: int = 7) -> list[SchnauzConfig]:
    """``count`` configs that together use every value of every rule option.

    Lives and turn limits lean low and half the configs play single rounds, so the
    100,000 games stay within a CI budget while every path is exercised often.
    """
    rng = np.random.default_rng(seed)
    configs = []
    k = 0
    while len(configs) < count:
        deck = ["A7", "A9", "A5"][k % 3]
        n = 2 + (k // 3) % 5
        episode = "round" if k % 2 else "game"
        lives = int(rng.choice([0, 0, 0, 1, 1, 2, 3] if episode == "game" else [0, 1, 3]))
        options = dict(
            num_players=n,
            deck=deck,
            lives=lives,
            knock_in_first_circle=bool(k % 4 != 1),
            short_stock=["showdown", "recycle"][(k // 2) % 2],
            ties=["break", "share"][(k // 5) % 2],
            fire_costs_all=bool(k % 3 == 2),
            max_turns=int(rng.choice([500, 500, 40, 9, 3])),
            first_dealer=None if k % 4 else int(rng.integers(n)),
            episode=episode,
        )
        k += 1
        configs.append(SchnauzConfig(**options))
    return configs


class ReplayDecks:
    """Records the generator of every replay deal the reference makes.

    The reference deals replays (``ties="share"``, everyone out at once) from
    ``SchnauzState.replay_rng()``; while recording, each call also keeps an
    identical generator, so the same permutations can be queued for the batched
    engine.
    """

    def __init__(self) -> None:
        self.clones: list[np.random.Generator] = []
        self._orig = SchnauzState.replay_rng

    def __enter__(self) -> ReplayDecks:
        orig, clones = self._orig, self.clones

        def replay_rng(state: SchnauzState) -> np.random.Generator:
            clones.append(orig(state))
            return orig(state)

        SchnauzState.replay_rng = replay_rng
        return self

    def __exit__(self, *exc: object) -> None:
        SchnauzState.replay_rng = self._orig

    def queue(self, eng: BatchedSchnauz, g: int, state: SchnauzState) -> None:
        """Give game ``g`` the decks of the replays the reference just dealt, if any."""
        if self.clones:
            rng = self.clones.pop()
            count = len(state.last_result.replays)
            nc = eng.config.deck_size
            eng.queue_replay_decks(g, np.stack([rng.permutation(nc) for _ in range(count)]))
        assert not self.clones


def run_direct(config: SchnauzConfig, seeds: list[int], obs_rate: float, rng) -> dict[str, int]:
    """Lockstep: reference engine + ObservationEncoder against the batched engine."""
    with ReplayDecks() as replays:
        return _run_direct(config, seeds, obs_rate, rng, replays)


def _run_direct(config, seeds, obs_rate, rng, replays: ReplayDecks) -> dict[str, int]:
    b, n = len(seeds), config.num_players
    dealers, perms = zip(*(reference_decks(config, s) for s in seeds), strict=True)
    eng = BatchedSchnauz(b, config, observe=True, auto_reset=False)
    eng.reset(decks=np.stack(perms), dealers=np.array(dealers))
    settler = raw_env(**config.to_dict())
    refs = [H.Reference(new_game(config, np.random.default_rng(s)), settler) for s in seeds]
    enc = ObservationEncoder(config)
    weights = STYLES[rng.integers(len(STYLES), size=b)]
    cache: dict = {}
    stats = dict(games=b, steps=0, obs=0, rounds=0, replays=0)
    reasons: dict[str, int] = {}
    for g, ref in enumerate(refs):  # the deal and the dealer's view
        assert ref.state.current == eng.current[g]
        np.testing.assert_array_equal(eng.obs[g], enc.encode(ref.state, ref.state.current))
    alive = list(range(b))
    while alive:
        actions = H.choose_weighted(eng.mask, weights, rng)
        actions_l = actions.tolist()
        mask_bits = (eng.mask.astype(np.int64) @ BITS).tolist()
        cur_before = eng.current.tolist()
        results = {}
        for g in alive:  # the reference moves first, so its replay decks can be queued
            st = refs[g].state
            assert st.current == cur_before[g], (config, seeds[g])
            assert mask_bits[g] == H.legal_bits(st.legal_actions(), cache), (config, seeds[g])
            results[g] = result = st.apply(actions_l[g])
            replays.queue(eng, g, st)
        obs, mask, rewards, ended = eng.step(actions)
        round_over = eng.round_over.tolist()
        ended_l = ended.tolist()
        current = eng.current.tolist()
        phase = eng.phase.tolist()
        # every reward outside a showdown is zero
        assert not rewards[eng.round_over == 0].any()
        sample = set(np.flatnonzero(rng.random(b) < obs_rate).tolist())
        still = []
        for g in alive:
            ref = refs[g]
            st = ref.state
            result = results[g]
            stats["steps"] += 1
            assert (result is not None) == bool(round_over[g]), (config, seeds[g])
            assert st.current == current[g] and st.phase == phase[g], (config, seeds[g])
            if result is not None:
                stats["rounds"] += 1
                reasons[result.reason] = reasons.get(result.reason, 0) + 1
                stats["replays"] += len(result.replays)
                expected = ref.settle(result)
                assert rewards[g].tolist() == expected, (config, seeds[g], result.to_dict())
                got = eng.last_result(g)
                assert got["reason"] == result.reason
                assert got["losers"] == sorted(result.losers)
                assert got["went_out"] == sorted(result.went_out)
                assert got["knocker"] == result.knocker
                assert got["fire_holder"] == result.fire_holder
                assert got["lives_after"] == result.lives_after
                assert got["out_after"] == result.out_after
                assert eng.rounds[g] == st.round
                places = [0.0 if p is None else p for p in st.places]
                assert eng.places[g].tolist() == places
                terminated = (eng.out[g] | eng.game_over[g]).tolist()
                assert terminated == ref.terminated, (config, seeds[g])
            assert bool(ended_l[g]) == st.game_over, (config, seeds[g])
            if g in sample:
                stats["obs"] += 1
                np.testing.assert_array_equal(
                    obs[g], enc.encode(st, st.current), err_msg=f"{config} seed {seeds[g]}"
                )
            if not st.game_over:
                still.append(g)
            else:  # the end: everything the env reports afterwards
                assert mask[g].sum() == 0
                assert eng.hands(g) == st.hands and eng.table(g) == st.table
                views = eng.observe(np.arange(n), games=np.full(n, g))
                for s in range(n):
                    np.testing.assert_array_equal(views[s], enc.encode(st, s))
                stats["obs"] += n
        alive = still
    stats.update({f"reason_{k}": v for k, v in reasons.items()})
    return stats


def run_aec(config: SchnauzConfig, seeds: list[int], rng) -> int:
    """Lockstep with the real ``raw_env`` loop: every agent's view, reward, termination."""
    with ReplayDecks() as replays:
        return _run_aec(config, seeds, rng, replays)


def _run_aec(config, seeds, rng, replays: ReplayDecks) -> int:
    dealers, perms = zip(*(reference_decks(config, s) for s in seeds), strict=True)
    eng = BatchedSchnauz(len(seeds), config, observe=True, auto_reset=False)
    eng.reset(decks=np.stack(perms), dealers=np.array(dealers))
    envs = H.reset_envs(raw_env, config, seeds)
    weights = STYLES[rng.integers(len(STYLES), size=len(seeds))]

    def choose() -> np.ndarray:
        return H.choose_weighted(eng.mask, weights, rng)

    def queue_replays(g: int, env: raw_env) -> None:
        replays.queue(eng, g, env.game)

    return H.lockstep_with_raw_env(eng, envs, config, seeds, choose, after_move=queue_replays)


CONFIGS = mixed_configs(50)
GAMES_PER_CONFIG = 2016  # 50 x 2016 = 100,800 games


def test_configs_cover_every_option() -> None:
    seen = {name: {getattr(c, name) for c in CONFIGS} for name in SchnauzConfig.option_names()}
    assert seen["num_players"] == {2, 3, 4, 5, 6}
    assert seen["deck"] == {"A7", "A9", "A5"}
    assert {0, 1, 2, 3} <= seen["lives"]
    assert seen["knock_in_first_circle"] == {True, False}
    assert seen["short_stock"] == {"showdown", "recycle"}
    assert seen["ties"] == {"break", "share"}
    assert seen["fire_costs_all"] == {True, False}
    assert {500, 3} <= seen["max_turns"]
    assert None in seen["first_dealer"] and len(seen["first_dealer"]) > 1
    assert seen["episode"] == {"game", "round"}


def _run_config(k: int) -> dict[str, int]:
    seeds = list(range(k * 1_000_000, k * 1_000_000 + GAMES_PER_CONFIG))
    return run_direct(CONFIGS[k], seeds, obs_rate=0.03, rng=np.random.default_rng(2024 + k))


@pytest.mark.slow
def test_differential_100k_games() -> None:
    totals = run_in_workers(_run_config, len(CONFIGS))
    assert totals["games"] >= 100_000
    # the run reached every kind of round end, and replay deals
    for reason in ("knock", "instant", "short_stock", "turn_limit"):
        assert totals.get(f"reason_{reason}", 0) > 100, reason
    assert totals["replays"] > 10
    assert totals["obs"] > 100_000


def test_differential_through_raw_env() -> None:
    rng = np.random.default_rng(99)
    steps = 0
    for k, config in enumerate(CONFIGS[:24]):
        seeds = list(range(7_000_000 + 1000 * k, 7_000_000 + 1000 * k + 25))
        steps += run_aec(config, seeds, rng)
    assert steps > 5_000
