"""The Schnauz observation: one flat float32 vector, seen from the observer's seat.

Seats are *relative*: position 0 is the observer, position k the k-th player to
their left (seat ``(me + k) % n``). Every block is padded to 6 positions, so a
network's input size does not depend on the table size. ``N`` is the deck size
(A7: 32, A9: 24, A5: 40); a card's column is its index within the variant's deck,
``(rank - lowest rank) * 4 + suit`` with suits ♣ ♠ ♥ ♦ (``7C 7S 7H 7D 8C …`` for A7).

=====================  ==========  =======================================================
block                  size        meaning
=====================  ==========  =======================================================
``hand``               3·N         one-hot per hand slot 0, 1, 2 (slot order = action order)
``table``              3·N         one-hot per table slot 0, 1, 2 (empty before the dealer's choice)
``out_of_play``        N           cards taken out of play by all-pass refreshes
``known``              5·N         per opponent position 1..5: cards they took from the
                                   table and still hold (public knowledge)
``seats``              6·4         per position 0..5: at this table, still in the game,
                                   swimming (0 lives, still in), lives / the most lives
                                   any seat started with (``lives`` unless reset gave more)
``dealer``             6           one-hot position of the dealer
``knocker``            6           one-hot position of the knocker (zeros: nobody knocked)
``to_act``             6           one-hot position of the player to act (zeros: over)
``phase``              3           one-hot: dealer's choice, turns, final circle
``passes``             6           one-hot: passes in a row (0..5)
``stock``              1           cards left in the stock / N
=====================  ==========  =======================================================

Total ``12·N + 52``: 436 for A7, 340 for A9, 532 for A5.
Nothing else reaches the vector: other players' unknown cards and the stock order
never do (see ``tests/test_schnauz_hidden_info.py``).
"""

from __future__ import annotations

import numpy as np

from schnauz_env.common.layout import BlockLayout
from schnauz_env.common.lives_views import (
    GAME,
    SHARED_SEAT_FEATURES,
    LivesSeen,
    LivesTableEncoder,
    phase_table,
)
from schnauz_env.common.seat_views import TableLayout, move_one, write_set, write_slots
from schnauz_env.schnauz.config import MAX_PLAYERS, SchnauzConfig
from schnauz_env.schnauz.engine import DEALER_CHOICE, FINAL_CIRCLE, TURNS, SchnauzState

__all__ = [
    "OBS_VERSION",
    "SEAT_AT_TABLE",
    "SEAT_FEATURES",
    "SEAT_IN_GAME",
    "SEAT_LIVES",
    "SEAT_SWIMMING",
    "ObservationEncoder",
    "ObservationLayout",
    "P",
]

P = MAX_PLAYERS
SEAT_FEATURES = 4
#: The features of a position in the ``seats`` block, in order (those of every game of
#: lives: :mod:`schnauz_env.common.lives_views`).
SEAT_AT_TABLE, SEAT_IN_GAME, SEAT_SWIMMING, SEAT_LIVES = SHARED_SEAT_FEATURES
#: Bumped whenever the layout changes, so saved models refuse a layout they were not trained on.
OBS_VERSION = 1


class ObservationLayout(BlockLayout):
    """Named index ranges of the observation vector for one rules config."""

    def __init__(self, config: SchnauzConfig) -> None:
        n_cards = config.deck_size
        self.num_cards = n_cards
        blocks = [
            ("hand", 3 * n_cards),
            ("table", 3 * n_cards),
            ("out_of_play", n_cards),
            ("known", (P - 1) * n_cards),
            ("seats", P * SEAT_FEATURES),
            ("dealer", P),
            ("knocker", P),
            ("to_act", P),
            ("phase", 3),
            ("passes", P),
            ("stock", 1),
        ]
        super().__init__(blocks)


class ObservationEncoder(LivesTableEncoder):
    """Builds the observation vector of one seat from a :class:`SchnauzState`.

    The facts are written once per absolute seat into a table vector, and a seat's
    observation is gathered from it (:mod:`schnauz_env.common.seat_views`; the blocks
    Schnauz shares with Scat are kept by :class:`~schnauz_env.common.lives_views.LivesTableEncoder`).
    :meth:`encode` builds a new table vector each time; :meth:`cached` gives an encoder
    with the same ``encode`` that keeps its table vector and rewrites only what changed
    (for an env stepping one game).
    """

    def __init__(self, config: SchnauzConfig) -> None:
        super().__init__(config, ObservationLayout(config), config.deck_size, 4 * config.min_rank)

    def encode(self, state: SchnauzState, seat: int) -> np.ndarray:
        """The observation of ``seat`` as a new float32 vector."""
        table = self.table_vector(state.n)
        self.update(table, state)
        return table.view(seat)

    def _new_seen(self, n: int) -> _Seen:
        return _Seen(n)

    phase_slots = phase_table((DEALER_CHOICE, TURNS, FINAL_CIRCLE))

    def _add_blocks(self, table: TableLayout, slices: dict[str, slice]) -> None:
        table.shared(slices["table"].start, 3 * self._cols)
        table.shared(slices["out_of_play"].start, self._cols)
        table.shared(slices["passes"].start, P)

    def _update_blocks(
        self, mv: memoryview, seen: _Seen, state: SchnauzState, starts: tuple[int, ...]
    ) -> None:
        table_at = starts[GAME]
        lo = self._lo
        cards = state.table
        if cards != seen.table:
            write_slots(mv, table_at - lo, self._cols, seen.table, cards)
            seen.table = list(cards)
        cards = state.out_of_play
        if cards != seen.oop:
            write_set(mv, starts[GAME + 1] - lo, seen.oop, cards)
            seen.oop = list(cards)
        passes = state.passes
        i = starts[GAME + 2] + (passes if passes < P else P - 1)
        if i != seen.passes:
            seen.passes = move_one(mv, seen.passes, i)


class _Seen(LivesSeen):
    """The facts the table vector shows: :class:`LivesSeen`'s, the table, the cards out
    of play and the passes."""

    __slots__ = ("oop", "passes", "table")

    def __init__(self, n: int) -> None:
        super().__init__(n)
        self.table: list[int] = []
        self.oop: list[int] = []
        self.passes = -1
