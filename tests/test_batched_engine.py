"""The batched engine's own contract: API, invariants, seeding, errors, import cost.

Its agreement with the reference, move for move, is tests/test_batched_differential.py;
the contract every batched engine keeps alike (illegal actions, finished games), in
tests/test_batched_scat.py.
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from batched_helpers import random_play_invariants

from schnauz_env.cards import parse_card
from schnauz_env.schnauz import SchnauzConfig, hands, new_game
from schnauz_env.schnauz import engine as E
from schnauz_env.schnauz.hands import hand_key, hand_points, min_key
from schnauz_env.schnauz.infoset import decode_observation
from schnauz_env.schnauz.observation import ObservationEncoder

pytest.importorskip("numba", reason="these tests drive the compiled kernels")

from schnauz_env.batched import BatchedSchnauz, reference_decks
from schnauz_env.batched.schnauz import state as S


def card_multiset(eng: BatchedSchnauz, g: int) -> list[int]:
    """Every card of game ``g`` the engine holds: hands, table, stock, out of play."""
    row = eng.cards[g]
    gs = eng.gs[g]
    cards = [int(c) for c in row[S.O_HANDS : S.O_HANDS + 18] if c >= 0]
    cards += [int(c) for c in row[S.O_TABLE : S.O_TABLE + 3] if c >= 0]
    cards += [int(c) for c in row[S.O_STOCK + gs[S.F_POS] : S.O_STOCK + gs[S.F_STOCK_LEN]]]
    cards += [int(c) for c in row[S.O_OOP : S.O_OOP + gs[S.F_OOP_LEN]]]
    return sorted(cards)


@pytest.mark.parametrize(
    "options",
    [
        dict(num_players=4),
        dict(num_players=2, deck="A9", lives=0, short_stock="recycle"),
        dict(num_players=6, deck="A5", ties="share", fire_costs_all=True, lives=1),
        dict(num_players=3, episode="round", knock_in_first_circle=False, max_turns=12),
    ],
)
def test_random_play_invariants(options: dict) -> None:
    """No card created or lost, masks only allow legal moves, zero-sum rewards whose
    totals are the final places' values, and every game ends."""
    cfg = SchnauzConfig(**options)
    eng = BatchedSchnauz(64, cfg, seed=1)

    def no_card_created_or_lost(g: int) -> None:
        assert card_multiset(eng, g) == list(range(cfg.deck_size))

    finished = random_play_invariants(eng, no_card_created_or_lost, whole=cfg.episode == "game")
    assert eng.obs_size == ObservationEncoder(cfg).size and eng.mask.shape == (64, 14)
    assert finished > 20


def test_a_seed_fixes_the_decks_whatever_the_play() -> None:
    """A seed fixes every round's deck of a game, whatever the players do (RULES.md).

    The fast path shuffles a round's stock as it is dealt; every card dealt so far
    (the first ``F_SHUF`` stock positions) must agree between two styles of play.
    """

    def round_decks(policy: str) -> list[list[list[int]]]:
        eng = BatchedSchnauz(16, SchnauzConfig(num_players=4), seed=11)
        eng.reset()
        decks: list[list[list[int]]] = [[] for _ in range(16)]

        def record(g: int) -> None:
            dealt = eng.gs[g, S.F_SHUF]
            decks[g].append(eng.cards[g, S.O_STOCK : S.O_STOCK + dealt].tolist())

        for g in range(16):
            record(g)
        first_game = np.ones(16, dtype=bool)
        for _ in range(400):
            actions = eng.random_actions() if policy == "random" else eng.greedy_actions()
            _, _, _, ended = eng.step(actions)
            first_game &= ended == 0
            for g in np.flatnonzero(eng.round_over.astype(bool) & first_game):
                record(g)
        return decks

    a, b = round_decks("random"), round_decks("greedy")
    compared = 0
    for g in range(16):
        for x, y in zip(a[g], b[g], strict=False):
            k = min(len(x), len(y))
            assert k >= 6 and x[:k] == y[:k]
            compared += 1
    assert compared > 16 * 3
    c = BatchedSchnauz(16, SchnauzConfig(num_players=4), seed=12)
    c.reset()
    assert c.cards[:, S.O_STOCK : S.O_STOCK + 12].tolist() != [d[0][:12] for d in a]


def test_fast_deals_are_uniform() -> None:
    """Each card is dealt from each of the first stock positions about equally often."""
    cfg = SchnauzConfig(num_players=2, deck="A9", episode="round", first_dealer=0)
    eng = BatchedSchnauz(4000, cfg, seed=3)
    counts = np.zeros((6, cfg.deck_size))
    for _ in range(5):
        eng.reset()
        dealt = eng.cards[:, S.O_STOCK : S.O_STOCK + 6].astype(int)
        for pos in range(6):
            np.add.at(counts[pos], dealt[:, pos], 1)
    expected = 20000 / cfg.deck_size
    chi2 = ((counts - expected) ** 2 / expected).sum(axis=1)
    # 23 degrees of freedom: the 99.99% quantile is about 57
    assert (chi2 < 60).all(), chi2


def stacked(cfg: SchnauzConfig, codes: str) -> np.ndarray:
    """A one-game deck stream: ``codes`` on top, the rest of the deck in order."""
    top = [int(parse_card(c)) for c in codes.split()]
    rest = [int(c) for c in cfg.deck_cards if int(c) not in top]
    return np.array([[[c - 4 * cfg.min_rank for c in top + rest]]])


def test_greedy_keeps_swaps_and_knocks() -> None:
    cfg = SchnauzConfig(num_players=2, episode="round")
    # dealer 0; seat 1 is dealt first: 7C 8D 9H (9 points); the dealer AS KS 9S (30)
    deck = stacked(cfg, "7C 8D 9H AS KS 9S 7H 8H 10D")
    eng = BatchedSchnauz(1, cfg, auto_reset=False, keep_points=31)
    eng.reset(decks=deck, dealers=np.array([0]))
    assert eng.greedy_actions()[0] == E.EXCHANGE  # 30 points < keep_points
    eng = BatchedSchnauz(1, cfg, auto_reset=False)  # keep at 20, knock at 26
    eng.reset(decks=deck, dealers=np.array([0]))
    assert eng.greedy_actions()[0] == E.KEEP
    eng.step(np.array([E.KEEP]))  # table 7H 8H 10D
    # seat 1: 10D for 7C makes 8D 10D = 18 diamonds, better than 8H 9H = 17 hearts
    assert eng.greedy_actions()[0] == E.swap_action(0, 2)
    eng.step(np.array([E.swap_action(0, 2)]))  # table 7C 7H 8H
    assert eng.current[0] == 0 and eng.greedy_actions()[0] == E.KNOCK  # nothing beats 30
    eng.step(np.array([E.KNOCK]))
    # seat 1's last turn: no swap improves on 18 diamonds, so it passes
    assert eng.greedy_actions()[0] == E.PASS
    _, _, rewards, _ = eng.step(np.array([E.PASS]))
    assert eng.round_over[0] and eng.last_result(0)["losers"] == [1]


def test_greedy_swaps_all_for_schnauz() -> None:
    cfg = SchnauzConfig(num_players=2, episode="round")
    deck = stacked(cfg, "7C 8D 9H 10S 7H 8S KC AC QC")
    eng = BatchedSchnauz(1, cfg, auto_reset=False)
    eng.reset(decks=deck, dealers=np.array([0]))
    eng.step(np.array([E.KEEP]))  # table KC QC AC
    assert eng.greedy_actions()[0] == E.SWAP_ALL
    eng.step(np.array([E.SWAP_ALL]))
    assert eng.round_over[0] and eng.last_result(0)["reason"] == "instant"


def test_reference_decks_match_the_reference_shuffles() -> None:
    cfg = SchnauzConfig(num_players=3, deck="A9")
    dealer, perms = reference_decks(cfg, seed=5)
    state = new_game(cfg, np.random.default_rng(5))
    assert state.dealer == dealer
    assert state.deck == [int(cfg.deck_cards[i]) for i in perms[0]]
    assert perms.shape == (3 * (cfg.lives + 1), cfg.deck_size)


@pytest.mark.parametrize(
    "options",
    [
        dict(num_players=4),
        dict(num_players=3, deck="A5", ties="share", knock_in_first_circle=False),
    ],
)
def test_greedy_is_the_policies_greedy(options: dict) -> None:
    """The kernel's greedy moves are ``policies.schnauz.GreedyPolicy``'s, state for state."""
    policies = pytest.importorskip("policies")
    cfg = SchnauzConfig(**options)
    policy = policies.make_policy("greedy", game="schnauz", config=cfg)
    eng = BatchedSchnauz(64, cfg, seed=5)
    obs, mask = eng.reset()
    rng = np.random.default_rng(0)
    compared = 0
    for _ in range(150):
        ours = eng.greedy_actions().copy()
        np.testing.assert_array_equal(ours, policy.act_batch(obs, mask))
        compared += len(ours)
        # mix in random moves so the greedy players meet every kind of state
        actions = np.where(rng.random(64) < 0.5, ours, eng.random_actions())
        obs, mask, _, _ = eng.step(actions)
    assert compared == 64 * 150


@pytest.mark.parametrize("deck", ["A7", "A9", "A5"])
def test_min_key_is_the_points_threshold(deck: str) -> None:
    """A threshold in points is one comparison of keys: ``hand_points(key) >= t`` exactly
    when ``key >= min_key(t)``, for whole, half and out-of-range points."""
    cfg = SchnauzConfig(deck=deck)
    cards = [int(c) for c in cfg.deck_cards]
    hands = [(a, b, c) for i, a in enumerate(cards) for j, b in enumerate(cards[i + 1 :], i + 1)
             for c in cards[j + 1 :]]  # fmt: skip
    keys = np.array([hand_key(h) for h in hands])
    points = np.array([hand_points(k, h) for k, h in zip(keys, hands, strict=True)])
    for t in [-3, 0, 5.5, 16, 21.2, 26, 26.5, 30, 30.2, 30.5, 30.7, 31, 31.5, 33, 34]:
        np.testing.assert_array_equal(points >= t, keys >= min_key(t), err_msg=f"t={t}")


def greedy_by_points(config: SchnauzConfig, obs: np.ndarray, mask: np.ndarray,
                     keep_at: float, knock_at: float) -> int:  # fmt: skip
    """The greedy player as first written (points thresholds, every swap's hand key in
    action order): the oracle of the one shared ``greedy_move``."""
    view = decode_observation(obs, config)
    hand = list(view.hand)

    def hand_key(cards: list[int]) -> int:
        return hands.hand_key(cards, config.ties)

    if view.phase == E.DEALER_CHOICE:
        return E.KEEP if hand_points(hand_key(hand), hand) >= keep_at else E.EXCHANGE
    if mask[E.KNOCK] and hand_points(hand_key(hand), hand) >= knock_at:
        return E.KNOCK
    best, choice = hand_key(hand), E.PASS
    for i in range(3):
        for j in range(3):
            h = list(hand)
            h[i] = view.table[j]
            if hand_key(h) > best:
                best, choice = hand_key(h), E.swap_action(i, j)
    if hand_key(view.table) > best:
        choice = E.SWAP_ALL
    return choice


@pytest.mark.parametrize("knock_at", [26.0, 26.5, 30.2, 30.7, 31.5, 20.0])
def test_greedy_policy_thresholds_in_points(knock_at: float) -> None:
    """``GreedyPolicy`` (which calls the same ``greedy_move`` as the kernel) plays the
    points thresholds it always played, fractional ones included."""
    policies = pytest.importorskip("policies")
    cfg = SchnauzConfig(num_players=3, deck="A9", ties="share")
    policy = policies.make_policy("greedy", game="schnauz", config=cfg, knock_at=knock_at)
    eng = BatchedSchnauz(32, cfg, seed=8)
    obs, mask = eng.reset()
    for _ in range(60):
        for g in range(32):
            expect = greedy_by_points(cfg, obs[g], mask[g], policy.keep_at, knock_at)
            assert policy.act(obs[g], mask[g]) == expect
        obs, mask, _, _ = eng.step(eng.random_actions())


def test_the_greedy_move_costs_no_compiler() -> None:
    """``policies.schnauz.GreedyPolicy`` imports the shared move without numba."""
    code = (
        "import sys, schnauz_env.batched.schnauz.greedy, schnauz_env.batched.schnauz.state;"
        "assert 'numba' not in sys.modules, 'numba imported'"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
