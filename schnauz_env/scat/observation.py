"""The Scat observation: one flat float32 vector, seen from the observer's seat.

Seats are *relative*: position 0 is the observer, position k the k-th player to
their left (seat ``(me + k) % n``). Every seat block is padded to 7 positions, so
a network's input size does not depend on the table size. A card's column is its
index ``rank * 4 + suit`` (``2C 2S 2H 2D 3C … AD``, 52 columns). ``H`` is the hand
size (3, or 4 in four-card Scat); the hand holds ``H + 1`` cards between a draw
and the discard.

=====================  ==========  =======================================================
block                  size        meaning
=====================  ==========  =======================================================
``hand``               (H+1)·52    one-hot per hand slot 0..H (slot order = discard action order)
``discard_top``        52          one-hot: the top card of the discard pile (the one you may draw)
``discard_pile``       52          every card in the discard pile: 1 − depth/52 (top = 1,
                                   the card under it 51/52, …; 0 = not in the pile), so
                                   the whole pile is seen in order
``known``              6·52        per opponent position 1..6: cards they drew from the
                                   discard pile and still hold (public knowledge)
``seats``              7·5         per position 0..6: at this table, still in the game,
                                   on the bus (0 lives, still in), lives / the most lives
                                   any seat started with (``lives`` unless reset gave
                                   more), buy-ins left / buy-ins (0 without the variant)
``dealer``             7           one-hot position of the dealer
``knocker``            7           one-hot position of the knocker (zeros: nobody knocked)
``to_act``             7           one-hot position of the player to act (zeros: over)
``phase``              4           one-hot: draw step, discard step, final-turn draw step,
                                   final-turn discard step
``stock``              1           cards left in the stock / 52
=====================  ==========  =======================================================

Total ``(H + 9)·52 + 61``: 685 for Scat, 737 for four-card Scat.
Nothing else reaches the vector: other players' unknown cards and the stock order
never do (see ``tests/test_scat_hidden_info.py``).
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
from schnauz_env.scat.config import MAX_PLAYERS, ScatConfig
from schnauz_env.scat.engine import DISCARD, FINAL_TURNS, OVER, ScatState

P = MAX_PLAYERS
SEAT_FEATURES = 5
NC = 52
#: The features of a position in the ``seats`` block, in order.
SEAT_AT_TABLE, SEAT_IN_GAME, SEAT_ON_BUS, SEAT_LIVES, SEAT_BUY_INS = range(SEAT_FEATURES)


def pile_weight(depth: np.ndarray) -> np.ndarray:
    """The ``discard_pile`` value of cards ``depth`` below the top (float32 in, float32
    out): 1 for the top card, 1 − depth/52 below it."""
    return 1.0 - depth / NC


def lives_scale(max_lives: int) -> float:
    """The scale of the lives feature: 1 / the most lives any seat started with
    (``ScatState.max_lives``; 1 when that is 0), so the feature stays within [0, 1]."""
    return 1.0 / max(max_lives, 1)


def phase_index(final: bool, discard: bool) -> int:
    """The one-hot index in the ``phase`` block: draw step, discard step, final-turn draw
    step, final-turn discard step."""
    return 2 * final + discard


class ObservationLayout(BlockLayout):
    """Named index ranges of the observation vector for one rules config."""

    def __init__(self, config: ScatConfig) -> None:
        self.hand_slots = config.hand_size + 1
        blocks = [
            ("hand", self.hand_slots * NC),
            ("discard_top", NC),
            ("discard_pile", NC),
            ("known", (P - 1) * NC),
            ("seats", P * SEAT_FEATURES),
            ("dealer", P),
            ("knocker", P),
            ("to_act", P),
            ("phase", 4),
            ("stock", 1),
        ]
        super().__init__(blocks)


class ObservationEncoder(TableEncoder):
    """Builds the observation vector of one seat from a :class:`ScatState`.

    :meth:`encode` writes every entry from the state; :meth:`cached` gives an encoder
    with the same ``encode`` that keeps one vector of the whole table and rewrites only
    what changed, then gathers the seat's view from it
    (:mod:`schnauz_env.common.seat_views`; for an env stepping one game).
    """

    def __init__(self, config: ScatConfig) -> None:
        self.config = config
        self.layout = layout = ObservationLayout(config)
        self.size = layout.size
        s = layout.slices
        self._hand = s["hand"].start
        self._top = s["discard_top"].start
        self._pile = s["discard_pile"].start
        self._known = s["known"].start
        self._seats = s["seats"].start
        self._dealer = s["dealer"].start
        self._knocker = s["knocker"].start
        self._to_act = s["to_act"].start
        self._phase = s["phase"].start
        self._stock = s["stock"].start
        #: The scales of the lives and buy-ins features: ``1 / lives`` (1 when lives is
        #: 0) and ``1 / buy_ins`` (0 without the variant). A game whose reset gave some
        #: seat more than ``lives`` scales lives by :func:`lives_scale` of its largest.
        self.seat_scales = (
            lives_scale(config.lives),
            1.0 / config.buy_ins if config.buy_ins else 0.0,
        )
        self._lives_scale, self._buy_in_scale = self.seat_scales
        self._tables: dict[int, TableLayout] = {}

    def encode(self, state: ScatState, seat: int) -> np.ndarray:
        """The observation of ``seat`` as a new float32 vector."""
        obs = np.zeros(self.size, dtype=np.float32)
        n = state.n
        ones: list[int] = []
        base = self._hand
        for i, c in enumerate(state.hands[seat]):
            ones.append(base + i * NC + c)
        pile = state.pile
        if pile:
            ones.append(self._top + pile[-1])
            depth = len(pile) - 1
            idx = [self._pile + c for c in pile]
            obs[idx] = pile_weight(depth - np.arange(len(pile), dtype=np.float32))
        lives, out, used = state.lives, state.out, state.buy_ins_used
        seats = self._seats
        buy_ins = self.config.buy_ins
        scale = (
            self._lives_scale
            if state.max_lives == self.config.lives
            else lives_scale(state.max_lives)
        )
        for k in range(n):
            s = (seat + k) % n
            f = seats + k * SEAT_FEATURES
            ones.append(f + SEAT_AT_TABLE)
            if not out[s]:
                ones.append(f + SEAT_IN_GAME)
                if lives[s] == 0:
                    ones.append(f + SEAT_ON_BUS)
                obs[f + SEAT_LIVES] = lives[s] * scale
            obs[f + SEAT_BUY_INS] = (buy_ins - used[s]) * self._buy_in_scale
            if k:
                base = self._known + (k - 1) * NC
                ones.extend(base + c for c in state.known[s])
        ones.append(self._dealer + (state.dealer - seat) % n)
        if state.knocker is not None:
            ones.append(self._knocker + (state.knocker - seat) % n)
        phase = state.phase
        if phase != OVER:
            ones.append(self._to_act + (state.current - seat) % n)
            ones.append(self._phase + phase_index(phase == FINAL_TURNS, state.step == DISCARD))
        obs[ones] = 1.0
        obs[self._stock] = (len(state.deck) - state.pos) / NC
        return obs

    def _new_seen(self, n: int) -> _Seen:
        return _Seen(n)

    def _table_layout(self, n: int) -> TableLayout:
        s = self.layout.slices
        table = TableLayout(self.size, n)
        table.seats(s["hand"].start, self.layout.hand_slots * NC, 1)
        table.shared(s["discard_top"].start, NC)
        table.shared(s["discard_pile"].start, NC)
        table.seats(s["known"].start, NC, P - 1, first=1)
        table.seats(s["seats"].start, SEAT_FEATURES, P)
        table.seats(s["dealer"].start, 1, P)
        table.seats(s["knocker"].start, 1, P)
        table.seats(s["to_act"].start, 1, P)
        table.shared(s["phase"].start, 4)
        table.shared(s["stock"].start, 1)
        return table

    def update(self, table: TableVector, state: ScatState) -> None:
        """Bring ``table`` (from :meth:`table_vector`) up to ``state``: every fact that
        differs from what it shows is cleared and written again, once for all seats."""
        mv, seen = table.mv, table.seen
        n = state.n
        (
            hand_at,
            top_at,
            pile_at,
            known_at,
            seats_at,
            dealer_at,
            knocker_at,
            to_act_at,
            phase_at,
            stock_at,
        ) = table.layout.starts
        hands, seen_hands = state.hands, seen.hands
        if hands != seen_hands:
            width = self.layout.hand_slots * NC
            for s in range(n):
                hand = hands[s]
                old = seen_hands[s]
                if hand != old:
                    write_slots(mv, hand_at + width * s, NC, old, hand)
                    seen_hands[s] = list(hand)
        pile = state.pile
        if pile != seen.pile:
            for c in seen.pile:
                mv[pile_at + c] = 0.0
            depth = len(pile) - 1
            for i, c in enumerate(pile):
                mv[pile_at + c] = _PILE_WEIGHTS[depth - i]
            i = top_at + pile[-1] if pile else -1
            if i != seen.top:
                seen.top = move_one(mv, seen.top, i)
            seen.pile = list(pile)
        known, seen_known = state.known, seen.known
        if known != seen_known:
            for s in range(n):
                cards = known[s]
                old = seen_known[s]
                if cards != old:
                    write_set(mv, known_at + NC * s, old, cards)
                    seen_known[s] = set(cards)
        lives, out, used = state.lives, state.out, state.buy_ins_used
        if (
            lives != seen.lives
            or out != seen.out
            or used != seen.used
            or state.max_lives != seen.max_lives
        ):
            scale = (
                self._lives_scale
                if state.max_lives == self.config.lives
                else lives_scale(state.max_lives)
            )
            buy_ins = self.config.buy_ins
            f = seats_at
            for s in range(n):
                playing = not out[s]
                mv[f + SEAT_AT_TABLE] = 1.0
                mv[f + SEAT_IN_GAME] = 1.0 if playing else 0.0
                mv[f + SEAT_ON_BUS] = 1.0 if playing and lives[s] == 0 else 0.0
                mv[f + SEAT_LIVES] = lives[s] * scale if playing else 0.0
                mv[f + SEAT_BUY_INS] = (buy_ins - used[s]) * self._buy_in_scale
                f += SEAT_FEATURES
            seen.lives, seen.out, seen.used = list(lives), list(out), list(used)
            seen.max_lives = state.max_lives
        i = dealer_at + state.dealer
        if i != seen.dealer:
            seen.dealer = move_one(mv, seen.dealer, i)
        i = -1 if state.knocker is None else knocker_at + state.knocker
        if i != seen.knocker:
            seen.knocker = move_one(mv, seen.knocker, i)
        phase = state.phase
        if phase != OVER:
            i = to_act_at + state.current
            j = phase_at + phase_index(phase == FINAL_TURNS, state.step == DISCARD)
        else:
            i = j = -1
        if i != seen.to_act:
            seen.to_act = move_one(mv, seen.to_act, i)
        if j != seen.phase:
            seen.phase = move_one(mv, seen.phase, j)
        stock = len(state.deck) - state.pos
        if stock != seen.stock:
            mv[stock_at] = stock / NC
            seen.stock = stock


#: ``pile_weight`` of every depth, as the encoder computes it (float32).
_PILE_WEIGHTS = [np.float32(w) for w in pile_weight(np.arange(NC, dtype=np.float32))]


class _Seen:
    """The state facts a table vector shows (copies: the engine changes its in place)."""

    __slots__ = (
        "dealer",
        "hands",
        "knocker",
        "known",
        "lives",
        "max_lives",
        "out",
        "phase",
        "pile",
        "stock",
        "to_act",
        "top",
        "used",
    )

    def __init__(self, n: int) -> None:
        self.hands: list[list[int]] = [[] for _ in range(n)]
        self.pile: list[int] = []
        self.known: list[set[int]] = [set() for _ in range(n)]
        self.lives: list[int] | None = None
        self.out: list[bool] | None = None
        self.used: list[int] | None = None
        self.max_lives: int | None = None
        self.dealer = self.knocker = self.to_act = self.phase = self.top = -1
        self.stock = 0
