"""Move features (schnauz_env.schnauz.features): what each move does to the hand.

The features are computed from the observation alone; these tests recompute them
from the engine state with the reference hand evaluation and compare.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schnauz_env.cards import card_points
from schnauz_env.schnauz import (
    DEALER_CHOICE,
    ObservationEncoder,
    SchnauzConfig,
    new_game,
)
from schnauz_env.schnauz.engine import OVER, SWAP_ALL
from schnauz_env.schnauz.features import FEATURES_SIZE, MOVE_FEATURES, MoveFeatures
from schnauz_env.schnauz.hands import evaluate_hand, hand_key


def hand_points(cards) -> float:
    return evaluate_hand(list(cards)).points


def moves_of(hand, table):
    """(hand afterwards, table afterwards) of the 11 feature columns, in order."""
    out = []
    for i in range(3):
        for j in range(3):
            h, t = list(hand), list(table)
            h[i], t[j] = t[j], h[i]
            out.append((h, t))
    out.append((list(table), list(hand)))
    out.append((list(hand), list(table)))
    return out


def random_states(config: SchnauzConfig, games: int, seed: int):
    """Every decision state of ``games`` random games, with the seat to act."""
    rng = np.random.default_rng(seed)
    for g in range(games):
        state = new_game(config, np.random.default_rng([seed, g]))
        while state.phase != OVER and not state.game_over:
            yield state, state.current
            legal = state.legal_actions()
            state.apply(int(legal[rng.integers(len(legal))]))


@pytest.mark.parametrize("deck", ["A7", "A9", "A5"])
@pytest.mark.parametrize("ties", ["break", "share"])
def test_features_match_the_reference_hand_evaluation(deck: str, ties: str):
    config = SchnauzConfig(num_players=4, deck=deck, ties=ties)
    enc = ObservationEncoder(config)
    feats = MoveFeatures(config)
    all_keys = sorted(
        hand_key(h, ties) for h in combinations([int(c) for c in config.deck_cards], 3)
    )
    checked = 0
    for state, seat in random_states(config, 12, seed=len(deck) + len(ties)):
        f = feats.features(enc.encode(state, seat))
        assert f.shape == (FEATURES_SIZE,)
        hand, table = list(state.hands[seat]), list(state.table)
        has_table = state.phase != DEALER_CHOICE and len(table) == 3
        for m, (h, t) in enumerate(moves_of(hand, table if has_table else [0, 0, 0])):
            col = f[m * MOVE_FEATURES : (m + 1) * MOVE_FEATURES]
            if m < 10 and not has_table:
                assert col[:3].tolist() == [0.0, 0.0, 0.0]
                continue
            assert col[0] == pytest.approx(hand_points(h) / 33.0)
            k = hand_key(h, ties)
            below = np.searchsorted(all_keys, k, "left")
            equal = np.searchsorted(all_keys, k, "right") - below
            assert col[1] == pytest.approx((below + 0.5 * equal) / len(all_keys), abs=1e-6)
            assert col[2] == (evaluate_hand(h).label.startswith(("Fire", "Schnauz")))
            if has_table:
                assert col[4] == pytest.approx(hand_points(t) / 33.0)
        checked += 1
    assert checked > 100


def test_known_cards_feature_is_the_best_suit_sum_of_public_cards():
    config = SchnauzConfig(num_players=3)
    enc = ObservationEncoder(config)
    feats = MoveFeatures(config)
    seen = 0
    for state, seat in random_states(config, 30, seed=3):
        f = feats.features(enc.encode(state, seat))
        for k in range(1, 6):
            other = (seat + k) % state.n
            known = state.known[other] if k < state.n else []
            want = max(
                (sum(card_points(c) for c in known if c & 3 == s) for s in range(4)), default=0
            )
            assert f[-5 + k - 1] == pytest.approx(want / 33.0)
            seen += bool(known)
    assert seen > 0, "some opponent took a card from the table"


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000), st.integers(2, 6))
def test_batched_features_equal_one_at_a_time(seed: int, players: int):
    config = SchnauzConfig(num_players=players)
    enc = ObservationEncoder(config)
    feats = MoveFeatures(config)
    obs = np.stack([enc.encode(s, seat) for s, seat in random_states(config, 1, seed)])
    batch = feats(obs)
    assert batch.shape == (len(obs), enc.size + FEATURES_SIZE)
    assert np.array_equal(batch[:, : enc.size], obs)
    for i in range(0, len(obs), 7):
        assert np.array_equal(feats(obs[i]), batch[i])
    assert batch.min() >= 0.0 and batch.max() <= 1.0  # inside the Box the envs declare


def test_wrong_observation_size_is_refused():
    feats = MoveFeatures(SchnauzConfig())
    with pytest.raises(ValueError, match="size 340, expected 436"):
        feats(np.zeros(340, dtype=np.float32))


def test_best_move_column_is_the_greedy_swap():
    # The "best rank" feature is the best of the 11 columns: the greedy player's move.
    config = SchnauzConfig(num_players=4)
    enc = ObservationEncoder(config)
    feats = MoveFeatures(config)
    for state, seat in random_states(config, 5, seed=9):
        if state.phase == DEALER_CHOICE:
            continue
        f = feats.features(enc.encode(state, seat))
        ranks = f[1 : 11 * MOVE_FEATURES : MOVE_FEATURES]
        best = max(hand_key(h) for h, _ in moves_of(state.hands[seat], state.table))
        assert f[11 * MOVE_FEATURES + 2] == ranks.max()
        j = int(ranks.argmax())
        assert hand_key(moves_of(state.hands[seat], state.table)[j][0]) == best
        assert SWAP_ALL == 11  # column 9 is swap-all (action 11), column 10 keeps the hand
