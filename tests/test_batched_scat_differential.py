"""The batched Scat engine against the reference, game for game.

The same seeds and the same actions go through the reference engine (which the AEC
env runs on) and through :class:`BatchedScat`, fed the very decks the reference
shuffles: the round decks it draws from ``default_rng(seed)`` and the tie-break decks
it draws from each round's own generator. Over tens of thousands of games in mixed
configs that together use every value of every rule option, and several random
playing styles, every step must agree on the seat to act, the phase and step, the
legal actions, how many rounds ended, every seat's reward (the AEC env's own
``_settle``), lives, outs, buy-ins, places, the game's end and the round's result
(reason, values, losses, knocker, blitz holders, buy-ins, tie-break deals). The
observation of the player to act is compared on a random sample of steps, and every
seat's at each game's end. A smaller set of games runs through the real ``raw_env``
loop, comparing every agent's observation, mask, reward and termination every step.
"""

from __future__ import annotations

import batched_helpers as H
import numpy as np
import pytest
from conftest import run_in_workers

pytest.importorskip("numba", reason="the differential run needs compiled kernels")

from schnauz_env.batched.scat import BatchedScat, reference_decks, rounds_bound
from schnauz_env.common.engine import round_rng
from schnauz_env.scat import ScatConfig, new_game
from schnauz_env.scat.engine import NUM_ACTIONS, RoundResult
from schnauz_env.scat.env import raw_env
from schnauz_env.scat.observation import ObservationEncoder

BITS = 1 << np.arange(NUM_ACTIONS, dtype=np.int64)
#: Action weights of the scripted random players (draw stock, draw discard, discard
#: slots 0..4, knock, pass): uniform; knock-happy (short rounds, failed knocks);
#: knock-shy stock drawers (empty stocks, turn limits, blitzes); pile lovers (cards
#: known to be held, deep piles).
STYLES = np.array(
    [
        [1, 1, 1, 1, 1, 1, 1, 1, 1],
        [1, 1, 1, 1, 1, 1, 1, 8, 1],
        [4, 1, 1, 1, 1, 1, 1, 0.02, 1],
        [1, 5, 1, 1, 1, 1, 1, 0.3, 1],
    ],
    dtype=np.float64,
)


def mixed_configs(count: int, seed: int = 7) -> list[ScatConfig]:
    """``count`` configs that together use every value of every rule option.

    Half the configs play single rounds; whole games keep their length (players x
    lives x buy-ins) small, so the games stay within a CI budget while every path
    (buy-ins, tie-break deals, empty stocks, turn limits) is reached often.
    """
    rng = np.random.default_rng(seed)
    configs = []
    for k in range(count):
        n = 2 + (k // 2) % 6
        episode = "round" if k % 2 else "game"
        lives = int(rng.choice([0, 0, 1, 1, 2, 3] if episode == "game" else [0, 1, 3]))
        buy_ins = int(rng.choice([0, 0, 1, 2])) if episode == "game" else k % 3
        while episode == "game" and (n - 1) * (lives + 1) * (buy_ins + 1) > 12:
            lives, buy_ins = (lives - 1, buy_ins) if lives else (lives, buy_ins - 1)
        configs.append(
            ScatConfig(
                num_players=n,
                lives=lives,
                knock_on_first_turn=bool(k % 4 == 1 or k % 4 == 2),
                no_trinca=bool((k // 3) % 3 == 1),
                four_card=bool((k // 3) % 3 == 2),
                buy_ins=buy_ins,
                max_turns=int(rng.choice([500, 500, 40, 9, 3, 1])),
                first_dealer=None if k % 3 else int(rng.integers(n)),
                episode=episode,
            )
        )
    return configs


def games_for(config: ScatConfig) -> int:
    """Games to play in ``config``: 900 single rounds (600 at the larger tables, whose
    views cost more; 300 with a turn limit of 1 or 3, which ends them in a few steps),
    or whole games up to about 24,000 steps (a round takes some 40 steps of random
    play, fewer with a short turn limit)."""
    if config.episode == "round":
        if config.max_turns <= 3:
            return 300
        return 900 if config.num_players <= 4 else 600
    n, lives, buy_ins = config.num_players, config.lives, config.buy_ins
    steps = (n - 1) * (lives + 1) * (buy_ins + 1) * min(40, 2 * config.max_turns + 4)
    return int(np.clip(24_000 // steps, 60, 1000))


def seat_lives(config: ScatConfig, seed: int) -> list[int] | None:
    """Starting lives per seat for the ``lives`` reset option, in some configs."""
    if seed % 5:
        return None
    return [int(x) for x in np.random.default_rng(seed).integers(0, 4, config.num_players)]


def queue_tie_breaks(eng: BatchedScat, g: int, result: RoundResult | None, deck: list[int]):
    """Give game ``g`` the decks of the tie-break deals the reference just dealt: the
    permutations of the round's own generator (``round_rng(round, deck)``)."""
    if result is None or not result.tie_break:
        return
    assert all(not r.tie_break for r in result.chain()[1:])  # only a showdown ties
    rng = round_rng(result.round, deck)
    eng.queue_tie_break_decks(g, np.stack([rng.permutation(52) for _ in result.tie_break]))


def check_result(got: dict, result: RoundResult, ctx: object) -> None:
    """The batched engine's latest round against the reference's ``RoundResult``."""
    assert got["reason"] == result.reason, ctx
    assert got["seats"] == result.seats, ctx
    assert got["values"] == result.values, ctx
    assert got["losses"] == result.losses, ctx
    assert got["went_out"] == result.went_out, ctx
    assert got["bought_in"] == result.bought_in, ctx
    assert got["knocker"] == result.knocker, ctx
    assert got["blitz_holders"] == result.blitz_holders, ctx
    assert got["tie_breaks"] == len(result.tie_break), ctx
    assert got["turn_limit_reached"] == result.turn_limit_reached, ctx


def start(config: ScatConfig, seeds: list[int]) -> tuple[BatchedScat, list[H.Reference]]:
    """The batched engine and the reference games, dealt from the same decks."""
    b, n = len(seeds), config.num_players
    lives = [seat_lives(config, s) for s in seeds]
    most = max((max(x) for x in lives if x is not None), default=0)
    count = rounds_bound(config, most)
    dealers, perms = zip(*(reference_decks(config, s, count) for s in seeds), strict=True)
    eng = BatchedScat(b, config, observe=True, auto_reset=False)
    seat_rows = np.array([x if x is not None else [config.lives] * n for x in lives])
    eng.reset(decks=np.stack(perms), dealers=np.array(dealers), lives=seat_rows)
    settler = raw_env(**config.to_dict())
    return eng, [
        H.Reference(
            new_game(config, np.random.default_rng(s), lives=seat_lives(config, s)), settler
        )
        for s in seeds
    ]


def run_direct(config: ScatConfig, seeds: list[int], obs_rate: float, rng) -> dict[str, int]:
    """Lockstep: reference engine + ObservationEncoder against the batched engine."""
    b, n = len(seeds), config.num_players
    eng, refs = start(config, seeds)
    enc = ObservationEncoder(config)
    weights = STYLES[rng.integers(len(STYLES), size=b)]
    cache: dict = {}
    stats = dict(games=b, steps=0, obs=0, rounds=0, tie_breaks=0, buy_ins=0, chained=0)
    reasons: dict[str, int] = {}
    alive = []
    for g, ref in enumerate(refs):  # the deal, a deal that ended at once, the first view
        st = ref.state
        ctx = (config, seeds[g])
        assert st.current == eng.current[g] and st.phase == eng.phase[g], ctx
        expected = ref.settle(st.opening_result) if st.opening_result else [0.0] * n
        assert eng.opening_rewards[g].tolist() == expected, ctx
        assert bool(eng.game_over[g]) == st.game_over, ctx
        H.assert_same(eng.obs[g], enc.encode(st, st.current), ctx)
        if not st.game_over:
            alive.append(g)
    actions = np.zeros(b, dtype=np.int64)
    while alive:
        rows = np.array(alive)
        actions[rows] = H.choose_weighted(eng.mask[rows], weights[rows], rng)
        actions_l = actions.tolist()
        mask_bits = (eng.mask[rows].astype(np.int64) @ BITS).tolist()
        results = {}
        for i, g in enumerate(alive):  # the reference first, so its tie-breaks can be queued
            st = refs[g].state
            assert mask_bits[i] == H.legal_bits(st.legal_actions(), cache), (config, seeds[g])
            deck = st.deck
            results[g] = result = st.apply(actions_l[g])
            queue_tie_breaks(eng, g, result, deck)
        obs, mask, rewards, ended = eng.step(actions)
        round_over = eng.round_over.tolist()
        ended_l = ended.tolist()
        where = list(
            zip(eng.current.tolist(), eng.phase.tolist(), eng.turn_step.tolist(), strict=True)
        )
        assert not rewards[eng.round_over == 0].any()  # rewards come with round ends only
        if any(results.values()):  # what a round's end changed, for every game at once
            lives, out, over = eng.lives.tolist(), eng.out.tolist(), eng.game_over.tolist()
            used = (config.buy_ins - eng.buy_ins_left).tolist()
            places, returns, rounds = eng.places.tolist(), eng.returns.tolist(), eng.rounds
        sample = {g for g in alive if rng.random() < obs_rate}
        still = []
        for g in alive:
            ref = refs[g]
            st = ref.state
            result = results[g]
            ctx = (config, seeds[g])
            stats["steps"] += 1
            assert (st.current, st.phase, st.step) == where[g], ctx
            assert round_over[g] == (len(result.chain()) if result else 0), ctx
            if result is not None:
                chain = result.chain()
                stats["rounds"] += len(chain)
                stats["chained"] += len(chain) - 1
                for r in chain:
                    reasons[r.reason] = reasons.get(r.reason, 0) + 1
                    stats["tie_breaks"] += len(r.tie_break)
                    stats["buy_ins"] += len(r.bought_in)
                assert rewards[g].tolist() == ref.settle(result), (ctx, result.to_dict())
                check_result(eng.last_result(g), chain[-1], ctx)
                assert rounds[g] == st.round and lives[g] == st.lives, ctx
                assert out[g] == st.out and used[g] == st.buy_ins_used, ctx
                assert places[g] == [0.0 if p is None else p for p in st.places], ctx
                assert returns[g] == ref.returns, ctx
                terminated = [o or over[g] for o in out[g]]
                assert terminated == ref.terminated, ctx
            assert bool(ended_l[g]) == st.game_over, ctx
            if g in sample:
                stats["obs"] += 1
                H.assert_same(obs[g], enc.encode(st, st.current), ctx)
            if not st.game_over:
                still.append(g)
            else:  # the end: everything the env reports afterwards
                assert mask[g].sum() == 0
                assert eng.hands(g) == st.hands and eng.pile(g) == st.pile, ctx
                views = eng.observe(np.arange(n), games=np.full(n, g))
                for s in range(n):
                    H.assert_same(views[s], enc.encode(st, s), ctx)
                stats["obs"] += n
        alive = still
    stats.update({f"reason_{k}": v for k, v in reasons.items()})
    return stats


def run_aec(config: ScatConfig, seeds: list[int], rng, views_rate: float = 0.1) -> int:
    """Lockstep with the real ``raw_env`` loop: the rewards of a first deal that ended at
    once, then every step the agent to act, its view and mask, every agent's reward and
    termination, and on a sample of steps (and at the end) every agent's view and mask."""
    eng, _ = start(config, seeds)

    def lives(seed: int) -> dict | None:
        seat = seat_lives(config, seed)
        return None if seat is None else {"lives": seat}

    envs = H.reset_envs(raw_env, config, seeds, options=lives)
    names = envs[0].possible_agents
    for g, env in enumerate(envs):
        assert eng.opening_rewards[g].tolist() == [env.rewards[a] for a in names]
        assert bool(eng.game_over[g]) == env.game.game_over
    weights = STYLES[rng.integers(len(STYLES), size=len(seeds))]
    before: dict[int, tuple[list[int], int]] = {}

    def remember_deck(g: int, env: raw_env) -> None:
        before[g] = (env.game.deck, env.game.round)

    def queue_after_round(g: int, env: raw_env) -> None:
        deck, rounds = before[g]
        if env.game.round > rounds:
            queue_tie_breaks(eng, g, env.game.last_result, deck)

    return H.lockstep_with_raw_env(
        eng,
        envs,
        config,
        seeds,
        lambda: H.choose_weighted(eng.mask, weights, rng),
        before_move=remember_deck,
        after_move=queue_after_round,
        everyone=lambda: rng.random() < views_rate,
        games=[g for g in range(len(seeds)) if not envs[g].game.game_over],
        final_views=True,
    )


CONFIGS = mixed_configs(48)
GAMES = [games_for(c) for c in CONFIGS]  # 20,881 in all


def test_configs_cover_every_option() -> None:
    seen = {name: {getattr(c, name) for c in CONFIGS} for name in ScatConfig.option_names()}
    assert seen["num_players"] == {2, 3, 4, 5, 6, 7}
    assert seen["lives"] == {0, 1, 2, 3}
    assert seen["knock_on_first_turn"] == {True, False}
    assert seen["no_trinca"] == {True, False}
    assert seen["four_card"] == {True, False}
    assert seen["buy_ins"] == {0, 1, 2}
    assert {500, 40, 9, 3, 1} <= seen["max_turns"]
    assert None in seen["first_dealer"] and len(seen["first_dealer"]) > 3
    assert seen["episode"] == {"game", "round"}


def _run_config(k: int) -> dict[str, int]:
    seeds = list(range(k * 1_000_000, k * 1_000_000 + GAMES[k]))
    return run_direct(CONFIGS[k], seeds, obs_rate=0.03, rng=np.random.default_rng(2024 + k))


@pytest.mark.slow
def test_differential_20k_games() -> None:
    BatchedScat(1, num_players=2).reset()  # compile (or load) the kernels before forking
    totals = run_in_workers(_run_config, len(CONFIGS))
    assert totals["games"] == sum(GAMES) > 20_000
    # the run reached every kind of round end, tie-break deals, buy-ins and chained deals
    for reason in ("blitz_deal", "blitz", "knock", "empty_stock", "turn_limit"):
        assert totals.get(f"reason_{reason}", 0) > 50, reason
    assert totals["tie_breaks"] > 50
    assert totals["buy_ins"] > 100
    assert totals["chained"] > 5
    assert totals["obs"] > 100_000


def test_differential_through_raw_env() -> None:
    rng = np.random.default_rng(99)
    steps = games = 0
    for k, config in enumerate(CONFIGS):
        count = 8 if config.episode == "round" else 3
        seeds = list(range(7_000_000 + 1000 * k, 7_000_000 + 1000 * k + count))
        steps += run_aec(config, seeds, rng)
        games += count
    assert games == 264 and steps > 10_000
