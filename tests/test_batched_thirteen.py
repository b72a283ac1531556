"""The batched Thirteen engine's own contract: its tables, API, invariants, seeding,
errors, and the greedy player against ``policies``' one.

Its agreement with the reference, move for move, is
tests/test_batched_thirteen_differential.py.
"""

from __future__ import annotations

from itertools import combinations, product

import numpy as np
import pytest
from batched_helpers import random_play_invariants

from schnauz_env.thirteen import ThirteenConfig, new_game
from schnauz_env.thirteen.combos import (
    CARD_OF,
    classify_strengths,
    plays_strengths,
)
from schnauz_env.thirteen.engine import NUM_ACTIONS, PASS, PLAY, instant_win_of
from schnauz_env.thirteen.observation import ObservationEncoder

pytest.importorskip("numba", reason="these tests drive the compiled kernels")

from schnauz_env.batched.thirteen import BatchedThirteen, reference_decks
from schnauz_env.batched.thirteen import rules as R
from schnauz_env.batched.thirteen.tables import NEVER, instant_names, kind_sizes, tables


# ------------------------------------------------------------------------- tables
def plays_from_tables(hand: list[int], table, must: int | None) -> set[tuple[int, ...]]:
    """Every play the tables allow: each shape, every choice of suits, a top high enough."""
    tb = tables()
    ks_index = {k: i for i, k in enumerate(kind_sizes())}
    by_rank: list[list[int]] = [[] for _ in range(13)]
    for s in sorted(hand):
        by_rank[s >> 2].append(s)
    out = set()
    for ks in range(len(tb.kind)):
        mt = 0 if table is None else tb.min_top[ks_index[table.kind, table.size], table.top, ks]
        if mt >= NEVER:
            continue
        m = tb.per_rank[ks]
        for lo in range(13):
            hi = tb.hi[ks, lo]
            if hi < 0:
                continue
            choices = [list(combinations(by_rank[r], m)) for r in range(lo, hi + 1)]
            for pick in product(*choices):
                play = tuple(sorted(s for part in pick for s in part))
                if play[-1] >= mt and (must is None or must in play):
                    out.add(play)
    return out


def test_tables_describe_every_legal_play() -> None:
    """On random hands and tables, the plays the shape and beating tables allow are
    exactly the reference's ``plays_strengths``, and ``ks_of`` classifies each."""
    tb = tables()
    ks_index = {k: i for i, k in enumerate(kind_sizes())}
    rng = np.random.default_rng(5)
    checked = 0
    bombs = [4 * r + s for r in range(2, 7) for s in (0, 3)] + [44, 45, 46]  # 5 pairs, a quad
    for trial in range(500):
        size = int(rng.integers(1, 14))
        hand = sorted(rng.choice(52, size=size, replace=False).tolist())
        table = None
        if trial >= 400:  # bombs on 2s
            hand = sorted({*bombs, *rng.choice(52, size=size // 4, replace=False).tolist()})
            twos = sorted(rng.choice([48, 49, 50, 51], size=1 + trial % 3, replace=False))
            table = classify_strengths(twos)
        elif trial % 3:
            other = sorted(rng.choice(52, size=13, replace=False).tolist())
            leads = plays_strengths(other, None)
            table = classify_strengths(leads[int(rng.integers(len(leads)))])
        must = hand[0] if trial % 7 == 0 else None
        expected = plays_strengths(hand, table, must)
        assert len(set(expected)) == len(expected)
        assert plays_from_tables(hand, table, must) == set(expected), (hand, table, must)
        for p in expected:
            c = classify_strengths(p)
            assert tb.ks_of[len(p), (p[-1] >> 2) - (p[0] >> 2)] == ks_index[c.kind, c.size]
            checked += 1
    assert checked > 2000


def test_instant_table_matches_instant_win_of() -> None:
    tb = tables()
    rng = np.random.default_rng(3)
    hands = [rng.choice(52, size=13, replace=False).tolist() for _ in range(300)]
    for _ in range(100):  # dragons and four 2s
        dragon = [4 * r + int(rng.integers(4)) for r in range(12)]
        rest = [s for s in range(52) if s not in dragon]
        hands.append([*dragon, rest[int(rng.integers(len(rest)))]])
        twos = [48, 49, 50, 51, *rng.choice(48, size=9, replace=False).tolist()]
        hands.append(twos)
    for strengths in hands:
        bits = sum(1 << s for s in strengths)
        cards = [int(CARD_OF[s]) for s in strengths]
        assert instant_names()[R.instant_win(tb, np.int64(bits))] == instant_win_of(cards)


# -------------------------------------------------------------------- random play
OPTIONS = [
    dict(num_players=4),
    dict(num_players=2, opening="free", out_clears_table=True),
    dict(num_players=3, instant_wins=True),
    dict(num_players=4, episode="match", target_points=4, instant_wins=True),
    dict(num_players=2, episode="match", target_points=3, max_games=2),
]


@pytest.mark.parametrize("options", OPTIONS)
def test_random_play_invariants(options: dict) -> None:
    """No card created or lost, masks only allow legal moves, zero-sum rewards whose
    totals are the final places' values, and every episode ends."""
    cfg = ThirteenConfig(**options)
    eng = BatchedThirteen(64, cfg, seed=1)

    def no_card_created_or_lost(g: int) -> None:
        dealt = [c for h in eng.hands(g) for c in h] + eng.played(g)
        assert len(dealt) == len(set(dealt)) == 13 * cfg.num_players
        assert eng.mask[g].any()

    finished = random_play_invariants(eng, no_card_created_or_lost)
    assert eng.obs_size == ObservationEncoder(cfg).size and eng.mask.shape == (64, NUM_ACTIONS)
    assert finished > 20


def test_seeds_fix_the_games() -> None:
    runs = []
    for seed in (11, 11, 12):
        eng = BatchedThirteen(16, num_players=3, seed=seed)
        eng.reset()
        trace = []
        for _ in range(200):
            _, mask, rewards, _ = eng.step(eng.random_actions())
            trace.append((mask.copy(), rewards.copy()))
        runs.append(trace)
    for (m1, r1), (m2, r2) in zip(runs[0], runs[1], strict=True):
        np.testing.assert_array_equal(m1, m2)
        np.testing.assert_array_equal(r1, r2)
    assert any((m1 != m3).any() for (m1, _), (m3, _) in zip(runs[0], runs[2], strict=True))


def test_play_random_plays_legal_games() -> None:
    eng = BatchedThirteen(32, num_players=4, seed=2)
    eng.reset()
    assert eng.play_random(500) == 32 * 500
    for g in range(32):  # the games are still consistent: cards conserved
        dealt = [c for h in eng.hands(g) for c in h] + eng.played(g)
        assert len(set(dealt)) == 52


def test_external_decks_deal_like_the_reference() -> None:
    cfg = ThirteenConfig(num_players=3, episode="match", target_points=3)
    eng = BatchedThirteen(4, cfg, auto_reset=False)
    eng.reset(decks=np.stack([reference_decks(cfg, s, 10) for s in range(4)]))
    for g in range(4):
        st = new_game(cfg, np.random.default_rng(g))
        assert eng.hands(g) == st.hands
        assert eng.current[g] == st.current


# ------------------------------------------------------------------------ errors
def test_illegal_action_raises_and_names_the_legal_ones() -> None:
    eng = BatchedThirteen(4, num_players=4, seed=0)
    eng.reset()
    actions = eng.random_actions().copy()
    legal = eng.legal_actions(2)
    actions[2] = PASS  # leading: passing is never legal
    assert PASS not in legal
    with pytest.raises(ValueError, match=r"action 53 is not legal in game 2 .*legal actions: "):
        eng.step(actions)
    eng.step(eng.random_actions())  # the flag is cleared; the game still plays


def test_bad_arguments_raise() -> None:
    with pytest.raises(ValueError, match="num_games"):
        BatchedThirteen(0)
    with pytest.raises(ValueError, match="config or rule options"):
        BatchedThirteen(2, ThirteenConfig(), num_players=3)
    with pytest.raises(ValueError, match="num_players"):
        BatchedThirteen(2, num_players=5)
    eng = BatchedThirteen(2, num_players=2)
    with pytest.raises(RuntimeError, match="reset"):
        eng.step(np.zeros(2, dtype=np.int64))
    with pytest.raises(ValueError, match="decks must have shape"):
        eng.reset(decks=np.zeros((2, 1, 40), dtype=np.int8))
    with pytest.raises(ValueError, match="permutation"):
        eng.reset(decks=np.zeros((2, 1, 52), dtype=np.int8))
    with pytest.raises(ValueError, match="scores"):
        eng.reset(scores=np.zeros((2, 3), dtype=np.int64))
    eng.reset()
    with pytest.raises(ValueError, match="actions must be 2 integers"):
        eng.step(np.zeros(3, dtype=np.int64))
    with pytest.raises(ValueError, match="seats"):
        eng.observe(2)


def test_running_out_of_decks_raises() -> None:
    cfg = ThirteenConfig(num_players=2, episode="match", target_points=5)
    eng = BatchedThirteen(1, cfg, auto_reset=False)
    eng.reset(decks=reference_decks(cfg, 0, 1)[None])
    with pytest.raises(ValueError, match="ran out of the supplied decks"):
        for _ in range(10_000):
            eng.step(eng.random_actions())


# ------------------------------------------------------------------------ greedy
@pytest.mark.parametrize(
    "options",
    [
        dict(num_players=4),
        dict(num_players=3, opening="free", out_clears_table=True),
        dict(num_players=2, instant_wins=True, episode="match", target_points=3),
    ],
)
def test_greedy_matches_the_policy(options: dict) -> None:
    """The kernel's greedy move is ``GreedyPolicy``'s, in every state reached by a mix
    of greedy and random moves (so also on selections greedy did not start)."""
    from policies.thirteen import GreedyPolicy

    cfg = ThirteenConfig(**options)
    b = 48
    eng = BatchedThirteen(b, cfg, seed=4)
    obs, mask = eng.reset()
    policy = GreedyPolicy(cfg, seed=0)
    rng = np.random.default_rng(0)
    checked = plays = 0
    for _ in range(250):
        greedy = eng.greedy_actions().copy()
        for g in range(b):
            assert greedy[g] == policy.act(obs[g], mask[g]), (g, eng.legal_actions(g))
            checked += 1
            plays += greedy[g] == PLAY
        actions = np.where(rng.random(b) < 0.7, greedy, eng.random_actions())
        obs, mask, _, _ = eng.step(actions)
    assert checked == 250 * b and plays > 500


def test_observe_is_the_encoder() -> None:
    cfg = ThirteenConfig(num_players=3, episode="match", target_points=4)
    eng = BatchedThirteen(3, cfg, auto_reset=False)
    eng.reset(decks=np.stack([reference_decks(cfg, s, 20) for s in range(3)]))
    states = [new_game(cfg, np.random.default_rng(s)) for s in range(3)]
    enc = ObservationEncoder(cfg)
    for _ in range(60):
        actions = eng.random_actions().copy()
        for g, st in enumerate(states):
            st.apply(int(actions[g]))
        eng.step(actions)
        for s in range(3):
            views = eng.observe(s)
            for g, st in enumerate(states):
                np.testing.assert_array_equal(views[g], enc.encode(st, s))
