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
from schnauz_env.common.seat_views import (
    TableEncoder,
    TableLayout,
    TableVector,
    move_one,
    write_set,
    write_slots,
)
from schnauz_env.schnauz.config import MAX_PLAYERS, SchnauzConfig
from schnauz_env.schnauz.engine import DEALER_CHOICE, OVER, TURNS, SchnauzState

P = MAX_PLAYERS
SEAT_FEATURES = 4
#: The features of a position in the ``seats`` block, in order.
SEAT_AT_TABLE, SEAT_IN_GAME, SEAT_SWIMMING, SEAT_LIVES = range(SEAT_FEATURES)
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


class ObservationEncoder(TableEncoder):
    """Builds the observation vector of one seat from a :class:`SchnauzState`.

    The facts are written once per absolute seat into a table vector, and a seat's
    observation is gathered from it (:mod:`schnauz_env.common.seat_views`).
    :meth:`encode` builds a new table vector each time; :meth:`cached` gives an encoder
    with the same ``encode`` that keeps its table vector and rewrites only what changed
    (for an env stepping one game).
    """

    def __init__(self, config: SchnauzConfig) -> None:
        self.config = config
        self.layout = layout = ObservationLayout(config)
        self.size = layout.size
        self._min_card = 4 * config.min_rank
        self._n_cards = config.deck_size
        self._tables: dict[int, TableLayout] = {}

    def encode(self, state: SchnauzState, seat: int) -> np.ndarray:
        """The observation of ``seat`` as a new float32 vector."""
        table = self.table_vector(state.n)
        self.update(table, state)
        return table.view(seat)

    def _new_seen(self, n: int) -> _Seen:
        return _Seen(n)

    def _table_layout(self, n: int) -> TableLayout:
        s = self.layout.slices
        nc = self._n_cards
        table = TableLayout(self.size, n)
        table.seats(s["hand"].start, 3 * nc, 1)
        table.shared(s["table"].start, 3 * nc)
        table.shared(s["out_of_play"].start, nc)
        table.seats(s["known"].start, nc, P - 1, first=1)
        table.seats(s["seats"].start, SEAT_FEATURES, P)
        table.seats(s["dealer"].start, 1, P)
        table.seats(s["knocker"].start, 1, P)
        table.seats(s["to_act"].start, 1, P)
        table.shared(s["phase"].start, 3)
        table.shared(s["passes"].start, P)
        table.shared(s["stock"].start, 1)
        return table

    def update(self, table: TableVector, state: SchnauzState) -> None:
        """Bring ``table`` (from :meth:`table_vector`) up to ``state``: every fact that
        differs from what it shows is cleared and written again, once for all seats."""
        mv, seen = table.mv, table.seen
        n = state.n
        nc = self._n_cards
        lo = self._min_card
        (
            hand_at,
            table_at,
            oop_at,
            known_at,
            seats_at,
            dealer_at,
            knocker_at,
            to_act_at,
            phase_at,
            passes_at,
            stock_at,
        ) = table.layout.starts
        hands, seen_hands = state.hands, seen.hands
        if hands != seen_hands:
            for s in range(n):
                hand = hands[s]
                old = seen_hands[s]
                if hand != old:
                    write_slots(mv, hand_at + 3 * nc * s - lo, nc, old, hand)
                    seen_hands[s] = list(hand)
        cards = state.table
        if cards != seen.table:
            write_slots(mv, table_at - lo, nc, seen.table, cards)
            seen.table = list(cards)
        cards = state.out_of_play
        if cards != seen.oop:
            write_set(mv, oop_at - lo, seen.oop, cards)
            seen.oop = list(cards)
        known, seen_known = state.known, seen.known
        if known != seen_known:
            for s in range(n):
                cards = known[s]
                old = seen_known[s]
                if cards != old:
                    write_set(mv, known_at + nc * s - lo, old, cards)
                    seen_known[s] = set(cards)
        lives, out = state.lives, state.out
        if lives != seen.lives or out != seen.out or state.max_lives != seen.max_lives:
            lives_scale = 1.0 / max(state.max_lives, 1)
            f = seats_at
            for s in range(n):
                playing = not out[s]
                mv[f + SEAT_AT_TABLE] = 1.0
                mv[f + SEAT_IN_GAME] = 1.0 if playing else 0.0
                mv[f + SEAT_SWIMMING] = 1.0 if playing and lives[s] == 0 else 0.0
                mv[f + SEAT_LIVES] = lives[s] * lives_scale if playing else 0.0
                f += SEAT_FEATURES
            seen.lives, seen.out, seen.max_lives = list(lives), list(out), state.max_lives
        i = dealer_at + state.dealer
        if i != seen.dealer:
            seen.dealer = move_one(mv, seen.dealer, i)
        i = -1 if state.knocker is None else knocker_at + state.knocker
        if i != seen.knocker:
            seen.knocker = move_one(mv, seen.knocker, i)
        phase = state.phase
        if phase != OVER:
            i = to_act_at + state.current
            j = phase_at + (0 if phase == DEALER_CHOICE else 1 if phase == TURNS else 2)
        else:
            i = j = -1
        if i != seen.to_act:
            seen.to_act = move_one(mv, seen.to_act, i)
        if j != seen.phase:
            seen.phase = move_one(mv, seen.phase, j)
        i = passes_at + min(state.passes, P - 1)
        if i != seen.passes:
            seen.passes = move_one(mv, seen.passes, i)
        stock = len(state.deck) - state.pos
        if stock != seen.stock:
            mv[stock_at] = stock / nc
            seen.stock = stock


class _Seen:
    """The state facts a table vector shows (copies: the engine changes its in place)."""

    __slots__ = (
        "dealer",
        "hands",
        "knocker",
        "known",
        "lives",
        "max_lives",
        "oop",
        "out",
        "passes",
        "phase",
        "stock",
        "table",
        "to_act",
    )

    def __init__(self, n: int) -> None:
        self.hands: list[list[int]] = [[] for _ in range(n)]
        self.table: list[int] = []
        self.oop: list[int] = []
        self.known: list[set[int]] = [set() for _ in range(n)]
        self.lives: list[int] | None = None
        self.out: list[bool] | None = None
        self.max_lives: int | None = None
        self.dealer = self.knocker = self.to_act = self.phase = self.passes = -1
        self.stock = 0
