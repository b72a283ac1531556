"""The batched engine's own contract: API, invariants, seeding, errors, import cost.

Its agreement with the reference, move for move, is tests/test_batched_differential.py.
"""

from __future__ import annotations

import numpy as np
import pytest

from schnauz_env.cards import parse_card
from schnauz_env.schnauz import SchnauzConfig, new_game
from schnauz_env.schnauz.observation import ObservationEncoder

pytest.importorskip("numba", reason="these tests drive the compiled kernels")

from schnauz_env.batched import BatchedSchnauz, reference_decks
from schnauz_env.batched import kernels as K


def place_value(place: float, n: int) -> float:
    return 1.0 - 2.0 * (place - 1.0) / (n - 1.0)


def card_multiset(eng: BatchedSchnauz, g: int) -> list[int]:
    """Every card of game ``g`` the engine holds: hands, table, stock, out of play."""
    row = eng.cards[g]
    gs = eng.gs[g]
    cards = [int(c) for c in row[K.O_HANDS : K.O_HANDS + 18] if c >= 0]
    cards += [int(c) for c in row[K.O_TABLE : K.O_TABLE + 3] if c >= 0]
    cards += [int(c) for c in row[K.O_STOCK + gs[K.F_POS] : K.O_STOCK + gs[K.F_STOCK_LEN]]]
    cards += [int(c) for c in row[K.O_OOP : K.O_OOP + gs[K.F_OOP_LEN]]]
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
    n = cfg.num_players
    eng = BatchedSchnauz(64, cfg, seed=1)
    obs, mask = eng.reset()
    assert obs.shape == (64, ObservationEncoder(cfg).size) and mask.shape == (64, 14)
    returns = np.zeros((64, n))
    finished = 0
    for _ in range(3000):
        actions = eng.random_actions()
        assert mask[np.arange(64), actions].all()
        obs, mask, rewards, ended = eng.step(actions)
        assert np.allclose(rewards.sum(axis=1), 0.0)
        returns += rewards
        for g in np.flatnonzero(ended):
            finished += 1
            if cfg.episode == "game":
                expect = [place_value(p, n) for p in eng.final_places[g, :n]]
                assert sorted(eng.final_places[g, :n]) == sorted(
                    eng.final_places[g, :n]
                ) and np.allclose(returns[g], expect)
                assert (eng.final_places[g, :n] >= 1).all()
            returns[g] = 0.0
        for g in range(0, 64, 7):
            assert card_multiset(eng, g) == list(range(cfg.deck_size))
        assert ((obs >= 0) & (obs <= 1)).all()
    assert finished > 20


def test_illegal_action_raises_and_changes_nothing() -> None:
    eng = BatchedSchnauz(3, SchnauzConfig(num_players=3), seed=0)
    eng.reset()
    before = eng.gs.copy(), eng.cards.copy()
    actions = eng.random_actions().copy()
    actions[1] = 13  # knock during the dealer's choice
    with pytest.raises(
        ValueError,
        match=r"action 13 is not legal in game 1.*legal actions: 0 \(keep\), 1 \(exchange\)",
    ):
        eng.step(actions)
    assert (eng.gs[1] == before[0][1]).all() and (eng.cards[1] == before[1][1]).all()
    assert not (eng.gs[0] == before[0][0]).all()  # the other games moved
    with pytest.raises(ValueError, match="one per game"):
        eng.step(np.zeros(2, dtype=np.int64))


def test_finished_games_wait_without_auto_reset() -> None:
    eng = BatchedSchnauz(8, SchnauzConfig(num_players=2, episode="round"), seed=3, auto_reset=False)
    eng.reset()
    for _ in range(2000):
        eng.step(eng.random_actions())
        if eng.game_over.all():
            break
    assert eng.game_over.all() and eng.mask.sum() == 0
    state = eng.gs.copy()
    _, _, rewards, ended = eng.step(np.full(8, -1))
    assert (eng.gs == state).all() and not ended.any() and not rewards.any()


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
            dealt = eng.gs[g, K.F_SHUF]
            decks[g].append(eng.cards[g, K.O_STOCK : K.O_STOCK + dealt].tolist())

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
    assert c.cards[:, K.O_STOCK : K.O_STOCK + 12].tolist() != [d[0][:12] for d in a]


def test_fast_deals_are_uniform() -> None:
    """Each card is dealt from each of the first stock positions about equally often."""
    cfg = SchnauzConfig(num_players=2, deck="A9", episode="round", first_dealer=0)
    eng = BatchedSchnauz(4000, cfg, seed=3)
    counts = np.zeros((6, cfg.deck_size))
    for _ in range(5):
        eng.reset()
        dealt = eng.cards[:, K.O_STOCK : K.O_STOCK + 6].astype(int)
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
    assert eng.greedy_actions()[0] == K.EXCHANGE  # 30 points < keep_points
    eng = BatchedSchnauz(1, cfg, auto_reset=False)  # keep at 20, knock at 26
    eng.reset(decks=deck, dealers=np.array([0]))
    assert eng.greedy_actions()[0] == K.KEEP
    eng.step(np.array([K.KEEP]))  # table 7H 8H 10D
    # seat 1: 10D for 7C makes 8D 10D = 18 diamonds, better than 8H 9H = 17 hearts
    assert eng.greedy_actions()[0] == K.swap_action(0, 2)
    eng.step(np.array([K.swap_action(0, 2)]))  # table 7C 7H 8H
    assert eng.current[0] == 0 and eng.greedy_actions()[0] == K.KNOCK  # nothing beats 30
    eng.step(np.array([K.KNOCK]))
    # seat 1's last turn: no swap improves on 18 diamonds, so it passes
    assert eng.greedy_actions()[0] == K.PASS
    _, _, rewards, _ = eng.step(np.array([K.PASS]))
    assert eng.round_over[0] and eng.last_result(0)["losers"] == [1]


def test_greedy_swaps_all_for_schnauz() -> None:
    cfg = SchnauzConfig(num_players=2, episode="round")
    deck = stacked(cfg, "7C 8D 9H 10S 7H 8S KC AC QC")
    eng = BatchedSchnauz(1, cfg, auto_reset=False)
    eng.reset(decks=deck, dealers=np.array([0]))
    eng.step(np.array([K.KEEP]))  # table KC QC AC
    assert eng.greedy_actions()[0] == K.SWAP_ALL
    eng.step(np.array([K.SWAP_ALL]))
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
