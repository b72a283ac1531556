"""Move features: what every turn move would do to the hand, computed from the observation.

A plain MLP on the one-hot observation has to learn hand arithmetic (which three
cards make how many points, in which suit) before it can learn strategy; cloning the
``expert`` from the raw vector reaches only about two thirds of its moves. These
features hand it that arithmetic. They are a pure function of one seat's observation
(nothing hidden is used), computed in numpy for a whole batch at once, so the same
code serves the Gymnasium view, the batched VecEnv and the numpy model files (a model
file names its feature set in its header and applies it itself).

For each of the 11 hand-changing choices — swap hand slot ``i`` with table slot ``j``
(actions ``2 + 3i + j``), swap all, and keep the hand (pass or knock) — in that order:

==============  =================================================================
``points``      the hand's value afterwards / 33 (33 Fire, 31 Schnauz, 30.5 three
                of a kind, else the best suit sum)
``rank``        the hand's percentile among all three-card hands of the deck
                (showdown order; ties count half)
``instant``     1 if the hand afterwards is Fire or Schnauz (ends the round)
``gift``        the percentile of the table left behind, as a hand (what a swap-all
                would give the next player)
``gift_points`` the table left behind as a hand, in points / 33
==============  =================================================================

then ``hand`` and ``table`` present flags, the best ``rank`` and ``points`` over the
11 choices, and for each opponent position 1..5 the best suit sum of the cards it is
publicly known to hold / 33. Before the dealer's choice there is no table: every swap
column is zero and only "keep" is filled in.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np

from schnauz_env.cards import card_points
from schnauz_env.schnauz.config import MAX_PLAYERS, SchnauzConfig
from schnauz_env.schnauz.hands import SCHNAUZ, category_of, hand_key, hand_points
from schnauz_env.schnauz.observation import ObservationLayout

#: Name recorded in model files; bump it whenever the feature vector changes.
FEATURES_NAME = "schnauz-moves-v1"
MOVE_FEATURES = 5
NUM_MOVES = 11
FEATURES_SIZE = NUM_MOVES * MOVE_FEATURES + 4 + (MAX_PLAYERS - 1)

# (hand slot, table slot) exchanged by each of the 11 moves; -1 = none, 3 = all.
_MOVES = [(i, j) for i in range(3) for j in range(3)] + [(3, 3), (-1, -1)]


class MoveFeatures:
    """Callable ``features(obs) -> obs ++ features`` for one rules config (batched)."""

    name = FEATURES_NAME

    def __init__(self, config: SchnauzConfig) -> None:
        self.config = config
        self.layout = layout = ObservationLayout(config)
        n = layout.num_cards
        self.num_cards = n
        self.obs_size = layout.size
        self.size = FEATURES_SIZE
        cards = [int(c) for c in config.deck_cards]
        hands = list(combinations(range(n), 3))
        keys = np.array([hand_key([cards[i] for i in h], config.ties) for h in hands])
        order = np.sort(keys)
        below = np.searchsorted(order, keys, side="left")
        equal = np.searchsorted(order, keys, side="right") - below
        pct = (below + 0.5 * equal) / len(keys)
        points = np.array(
            [hand_points(k, [cards[i] for i in h]) for k, h in zip(keys, hands, strict=True)]
        )
        instant = np.array([category_of(int(k)) >= SCHNAUZ for k in keys], dtype=np.float32)
        # Index n is "no card": every hand with it is zero.
        self._pct = np.zeros((n + 1,) * 3, dtype=np.float32)
        self._pts = np.zeros((n + 1,) * 3, dtype=np.float32)
        self._inst = np.zeros((n + 1,) * 3, dtype=np.float32)
        for h, p, q, s in zip(hands, pct, points, instant, strict=True):
            for a, b, c in ((0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0)):
                idx = (h[a], h[b], h[c])
                self._pct[idx] = p
                self._pts[idx] = q / 33.0
                self._inst[idx] = s
        # Points each card adds to its suit, for the opponents' known cards.
        self._suit_points = np.zeros((n, 4), dtype=np.float32)
        for i, c in enumerate(cards):
            self._suit_points[i, c & 3] = card_points(c)

    def features(self, obs: np.ndarray) -> np.ndarray:
        """The feature block of a batch ``(B, obs_size)`` (or one vector) of observations."""
        obs = np.asarray(obs, dtype=np.float32)
        single = obs.ndim == 1
        if single:
            obs = obs[None]
        if obs.shape[-1] != self.obs_size:
            raise ValueError(f"observations of size {obs.shape[-1]}, expected {self.obs_size}")
        n = self.num_cards
        b = len(obs)
        s = self.layout.slices
        hand_oh = obs[:, s["hand"]].reshape(b, 3, n)
        table_oh = obs[:, s["table"]].reshape(b, 3, n)
        hand = np.where(hand_oh.max(-1) > 0, hand_oh.argmax(-1), n)
        table = np.where(table_oh.max(-1) > 0, table_oh.argmax(-1), n)
        has_hand = (hand < n).all(1)
        has_table = (table < n).all(1)
        out = np.zeros((b, self.size), dtype=np.float32)
        col = 0
        for i, j in _MOVES:
            h = hand.copy()
            t = table.copy()
            if i == 3:
                h, t = table.copy(), hand.copy()
            elif i >= 0:
                h[:, i], t[:, j] = table[:, j], hand[:, i]
            idx_h = (h[:, 0], h[:, 1], h[:, 2])
            idx_t = (t[:, 0], t[:, 1], t[:, 2])
            valid = has_table if i >= 0 else has_hand
            out[:, col] = self._pts[idx_h] * valid
            out[:, col + 1] = self._pct[idx_h] * valid
            out[:, col + 2] = self._inst[idx_h] * valid
            out[:, col + 3] = self._pct[idx_t]
            out[:, col + 4] = self._pts[idx_t]
            col += MOVE_FEATURES
        moves = out[:, : NUM_MOVES * MOVE_FEATURES].reshape(b, NUM_MOVES, MOVE_FEATURES)
        out[:, col] = has_hand
        out[:, col + 1] = has_table
        out[:, col + 2] = moves[:, :, 1].max(1)
        out[:, col + 3] = moves[:, :, 0].max(1)
        col += 4
        known = obs[:, s["known"]].reshape(b, MAX_PLAYERS - 1, n)
        out[:, col : col + MAX_PLAYERS - 1] = (known @ self._suit_points).max(-1) / 33.0
        return out[0] if single else out

    def __call__(self, obs: np.ndarray) -> np.ndarray:
        """``obs`` with its feature block appended (last axis)."""
        obs = np.asarray(obs, dtype=np.float32)
        return np.concatenate([obs, self.features(obs)], axis=-1)
