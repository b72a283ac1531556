"""The Thirteen observation: one flat float32 vector, seen from the observer's seat.

Seats are *relative*: position 0 is the observer, position k the k-th player to
their left (seat ``(me + k) % n``); seat blocks are padded to 4 positions, so the
size does not depend on the number of players. A card's column in every 52-wide
block is its Thirteen strength — the same number as the action that selects it
(0 = 3♠, 1 = 3♣, 2 = 3♦, 3 = 3♥, 4 = 4♠, …, 51 = 2♥).

=================  =======  ==================================================================
block              size     meaning
=================  =======  ==================================================================
``hand``           52       the observer's cards
``selected``       52       cards the observer has selected for the play being built
                            (zeros unless the observer is to act)
``table``          52       the combination to beat (zeros: the table is clear)
``table_kind``     6        one-hot kind of that combination: single, pair, triple, four of
                            a kind, sequence, double sequence
``table_by``       4        one-hot position of the player who played it
``passed``         4        per position: has passed on this table (locked out until it clears)
``played``         52       every card played so far in this game, the table's included
``seats``          4·3      per position: at this table, still holding cards, cards left / 13
``scores``         4        per position: match points / (2 · target points), capped at 1
``to_act``         4        one-hot position of the player to act (zeros: over)
``flags``          3        leading (the table is clear), the first play must include the
                            opening card (3♠ or the lowest card dealt), instant win to declare
=================  =======  ==================================================================

Total 245. Nothing else reaches the vector: other hands, other players' selections and
the undealt cards never do (see ``tests/test_thirteen_env.py``).
"""

from __future__ import annotations

import numpy as np

from schnauz_env.common.layout import BlockLayout
from schnauz_env.thirteen.combos import NUM_KINDS, STRENGTH
from schnauz_env.thirteen.config import HAND_SIZE, MAX_PLAYERS, ThirteenConfig
from schnauz_env.thirteen.engine import DECLARE, OVER, ThirteenState

P = MAX_PLAYERS
SEAT_FEATURES = 3
#: Bumped whenever the layout changes, so saved models refuse a layout they were not trained on.
OBS_VERSION = 1


class ObservationLayout(BlockLayout):
    """Named index ranges of the observation vector."""

    def __init__(self, config: ThirteenConfig | None = None) -> None:
        blocks = [
            ("hand", 52),
            ("selected", 52),
            ("table", 52),
            ("table_kind", NUM_KINDS),
            ("table_by", P),
            ("passed", P),
            ("played", 52),
            ("seats", P * SEAT_FEATURES),
            ("scores", P),
            ("to_act", P),
            ("flags", 3),
        ]
        super().__init__(blocks)


class ObservationEncoder:
    """Builds the observation vector of one seat from a :class:`ThirteenState`."""

    def __init__(self, config: ThirteenConfig) -> None:
        self.config = config
        self.layout = layout = ObservationLayout(config)
        self.size = layout.size
        s = layout.slices
        self._hand = s["hand"].start
        self._selected = s["selected"].start
        self._table = s["table"].start
        self._kind = s["table_kind"].start
        self._table_by = s["table_by"].start
        self._passed = s["passed"].start
        self._played = s["played"].start
        self._seats = s["seats"].start
        self._scores = s["scores"].start
        self._to_act = s["to_act"].start
        self._flags = s["flags"].start
        #: What a match point is worth in the ``scores`` block (capped at 1 there).
        self.score_scale = 1.0 / (2 * config.target_points)

    def encode(self, state: ThirteenState, seat: int) -> np.ndarray:
        """The observation of ``seat`` as a new float32 vector."""
        obs = np.zeros(self.size, dtype=np.float32)
        n = state.n
        st = STRENGTH
        ones: list[int] = []
        base = self._hand
        ones.extend(base + st[c] for c in state.hands[seat])
        acting = state.phase != OVER and state.current == seat
        if acting:
            base = self._selected
            ones.extend(base + st[c] for c in state.selection)
        base = self._table
        ones.extend(base + st[c] for c in state.table)
        if state.table_combo is not None:
            ones.append(self._kind + state.table_combo.kind)
        if state.table_by is not None:
            ones.append(self._table_by + (state.table_by - seat) % n)
        base = self._played
        ones.extend(base + st[c] for c in state.played)
        hands, passed, scores = state.hands, state.passed, state.scores
        for k in range(n):
            s = (seat + k) % n
            if passed[s]:
                ones.append(self._passed + k)
            f = self._seats + k * SEAT_FEATURES
            ones.append(f)
            if hands[s]:
                ones.append(f + 1)
                obs[f + 2] = len(hands[s]) / HAND_SIZE
            obs[self._scores + k] = min(scores[s] * self.score_scale, 1.0)
        if state.phase != OVER:
            ones.append(self._to_act + (state.current - seat) % n)
            if state.table_combo is None:
                ones.append(self._flags)
            if state.opening_card is not None:
                ones.append(self._flags + 1)
            if state.phase == DECLARE:
                ones.append(self._flags + 2)
        obs[ones] = 1.0
        return obs
