"""The table vector of the games of lives (Schnauz, Scat), rewritten where a move changed it.

Both games' observations hold the same facts about the seats, one block per fact:
each seat's hand (one-hot per slot), the cards each opponent is known to hold, each
position's seat features (at the table, in the game, no lives left, lives), and
one-hot positions of the dealer, the knocker and the player to act, the phase and the
stock's size. :class:`LivesTableEncoder` keeps those blocks of a table vector
(:mod:`schnauz_env.common.seat_views`) up to date once for both games; each game adds
the blocks of its face-up cards (Schnauz's table and cards out of play, Scat's discard
pile) and what else is its own (Schnauz's passes, Scat's buy-ins).
"""

from __future__ import annotations

from typing import Any, ClassVar

from schnauz_env.common.layout import BlockLayout
from schnauz_env.common.seat_views import (
    TableEncoder,
    TableLayout,
    TableVector,
    move_one,
    write_set,
    write_slots,
)

#: The first seat features of every game of lives, in order: at this table, still in the
#: game, no lives left but still in (Schnauz: swimming, Scat: on the bus), lives / the
#: most lives any seat started with. A game may add features after them.
SHARED_SEAT_FEATURES = SEAT_AT_TABLE, SEAT_IN_GAME, SEAT_NO_LIVES, SEAT_LIVES = range(4)
#: The order of the shared blocks in the table vector (:attr:`TableLayout.starts`); a
#: game's own blocks follow them, from ``GAME`` on.
HAND, KNOWN, SEATS, DEALER, KNOCKER, TO_ACT, PHASE, STOCK, GAME = range(9)


def phase_table(phases: tuple[int, ...]) -> tuple[int, ...]:
    """:attr:`LivesTableEncoder.phase_slots` of a game whose ``phase`` block has one entry
    per phase, in the order of ``phases`` (the phase values)."""
    slots = [-1] * (max(phases) + 1)
    for i, phase in enumerate(phases):
        slots[phase] = i
    return tuple(slots)


class LivesTableEncoder(TableEncoder):
    """The table-vector encoder of a game of lives: it lays out and updates the shared
    blocks (see the module docstring) from a state with ``n``, ``hands``, ``known``,
    ``lives``, ``out``, ``max_lives``, ``dealer``, ``knocker``, ``current``, ``phase``,
    ``over_phase``, ``deck`` and ``pos``.

    A game's encoder passes its config, its ``ObservationLayout`` (whose blocks include
    ``hand``, ``known``, ``seats``, ``dealer``, ``knocker``, ``to_act``, ``phase`` and
    ``stock``) and its card columns to ``__init__``, and defines :attr:`phase_slots` or
    :meth:`_phase_index`, :meth:`_add_blocks` (its own blocks' layout),
    :meth:`_update_blocks` and ``_new_seen(n)`` (a :class:`LivesSeen` with the game's own
    facts too); a game with more seat features sets :attr:`seat_extra` and defines
    :meth:`_write_seat_extra`.
    """

    #: The state's per-seat counts that the seat features after the shared four show
    #: (Scat: ``"buy_ins_used"``); ``None``: the game has no more seat features.
    seat_extra: ClassVar[str | None] = None
    #: The ``phase`` block's index of each phase value, for a game whose phase alone
    #: decides it; ``None``: :meth:`_phase_index` reads the state.
    phase_slots: ClassVar[tuple[int, ...] | None] = None

    def __init__(self, config: Any, layout: BlockLayout, cols: int, lo: int) -> None:
        """``cols`` card columns (the deck's size), the first for card ``lo``."""
        self.config = config
        self.layout = layout
        self.size = layout.size
        self._cols = cols
        self._lo = lo
        self._tables: dict[int, TableLayout] = {}
        s = layout.slices
        self._players = s["dealer"].stop - s["dealer"].start
        self._hand_width = s["hand"].stop - s["hand"].start
        self._seat_step = (s["seats"].stop - s["seats"].start) // self._players

    def _phase_index(self, state: Any) -> int:
        """The one-hot index within the ``phase`` block of a game not over (see
        :attr:`phase_slots`)."""
        raise NotImplementedError

    def _add_blocks(self, table: TableLayout, slices: dict[str, slice]) -> None:
        """Add the game's own blocks to ``table`` after the shared ones."""
        raise NotImplementedError

    def _update_blocks(
        self, mv: memoryview, seen: Any, state: Any, starts: tuple[int, ...]
    ) -> None:
        """Bring the game's own blocks up to ``state`` (as :meth:`update` does the rest)."""
        raise NotImplementedError

    def _write_seat_extra(self, mv: memoryview, start: int, counts: list[int]) -> None:
        """Write the seat features after the shared four from ``counts`` (the state's
        :attr:`seat_extra`), for every seat of the table vector's seats block at ``start``."""
        raise NotImplementedError

    def _table_layout(self, n: int) -> TableLayout:
        s = self.layout.slices
        players = self._players
        table = TableLayout(self.size, n)
        table.seats(s["hand"].start, self._hand_width, 1)
        table.seats(s["known"].start, self._cols, players - 1, first=1)
        table.seats(s["seats"].start, self._seat_step, players)
        table.seats(s["dealer"].start, 1, players)
        table.seats(s["knocker"].start, 1, players)
        table.seats(s["to_act"].start, 1, players)
        table.shared(s["phase"].start, s["phase"].stop - s["phase"].start)
        table.shared(s["stock"].start, 1)
        self._add_blocks(table, s)
        return table

    def update(self, table: TableVector, state: Any) -> None:
        """Bring ``table`` (from :meth:`table_vector`) up to ``state``: every fact that
        differs from what it shows is cleared and written again, once for all seats."""
        mv, seen = table.mv, table.seen
        starts = table.layout.starts
        cols, lo = self._cols, self._lo
        # A move changes the mover's hand and what it is known to hold: that seat is
        # compared first, the others only if the lists still differ after it.
        mover = seen.mover
        hands, seen_hands = state.hands, seen.hands
        width = self._hand_width
        base = starts[HAND] - lo
        if mover >= 0 and hands[mover] != seen_hands[mover]:
            write_slots(mv, base + width * mover, cols, seen_hands[mover], hands[mover])
            seen_hands[mover] = list(hands[mover])
        if hands != seen_hands:
            for s, hand in enumerate(hands):
                old = seen_hands[s]
                if hand != old:
                    write_slots(mv, base + width * s, cols, old, hand)
                    seen_hands[s] = list(hand)
        known, seen_known = state.known, seen.known
        base = starts[KNOWN] - lo
        if mover >= 0 and known[mover] != seen_known[mover]:
            write_set(mv, base + cols * mover, seen_known[mover], known[mover])
            seen_known[mover] = set(known[mover])
        if known != seen_known:
            for s, cards in enumerate(known):
                old = seen_known[s]
                if cards != old:
                    write_set(mv, base + cols * s, old, cards)
                    seen_known[s] = set(cards)
        seen.mover = state.current
        lives, out, max_lives = state.lives, state.out, state.max_lives
        extra = None if self.seat_extra is None else getattr(state, self.seat_extra)
        if (
            lives != seen.lives
            or out != seen.out
            or max_lives != seen.max_lives
            or extra != seen.extra
        ):
            self._write_seats(mv, starts[SEATS], lives, out, max_lives)
            if extra is not None:
                self._write_seat_extra(mv, starts[SEATS], extra)
                seen.extra = list(extra)
            seen.lives, seen.out, seen.max_lives = list(lives), list(out), max_lives
        i = starts[DEALER] + state.dealer
        if i != seen.dealer:
            seen.dealer = move_one(mv, seen.dealer, i)
        knocker = state.knocker
        i = -1 if knocker is None else starts[KNOCKER] + knocker
        if i != seen.knocker:
            seen.knocker = move_one(mv, seen.knocker, i)
        if state.phase != state.over_phase:
            i = starts[TO_ACT] + state.current
            slots = self.phase_slots
            j = starts[PHASE] + (
                slots[state.phase] if slots is not None else self._phase_index(state)
            )
        else:
            i = j = -1
        old = seen.to_act
        if i != old:  # every move: move_one, inline
            if old >= 0:
                mv[old] = 0.0
            if i >= 0:
                mv[i] = 1.0
            seen.to_act = i
        if j != seen.phase:
            seen.phase = move_one(mv, seen.phase, j)
        stock = len(state.deck) - state.pos
        if stock != seen.stock:
            mv[starts[STOCK]] = stock / cols
            seen.stock = stock
        self._update_blocks(mv, seen, state, starts)

    def _write_seats(
        self, mv: memoryview, f: int, lives: list[int], out: list[bool], max_lives: int
    ) -> None:
        """The shared seat features of every seat (at ``f``, the seats block's start)."""
        scale = 1.0 / max(max_lives, 1)
        step = self._seat_step
        for s, gone in enumerate(out):
            playing = not gone
            mv[f + SEAT_AT_TABLE] = 1.0
            mv[f + SEAT_IN_GAME] = 1.0 if playing else 0.0
            mv[f + SEAT_NO_LIVES] = 1.0 if playing and lives[s] == 0 else 0.0
            mv[f + SEAT_LIVES] = lives[s] * scale if playing else 0.0
            f += step


class LivesSeen:
    """The state facts a table vector's shared blocks show (copies: the engine changes
    its own in place); a game's record subclasses it with its own facts."""

    __slots__ = (
        "dealer",
        "extra",
        "hands",
        "knocker",
        "known",
        "lives",
        "max_lives",
        "mover",
        "out",
        "phase",
        "stock",
        "to_act",
    )

    def __init__(self, n: int) -> None:
        self.hands: list[list[int]] = [[] for _ in range(n)]
        self.known: list[set[int]] = [set() for _ in range(n)]
        self.lives: list[int] | None = None
        self.out: list[bool] | None = None
        self.max_lives: int | None = None
        self.extra: list[int] | None = None
        self.dealer = self.knocker = self.to_act = self.phase = -1
        #: The seat to act when the table vector was last updated (-1: none yet).
        self.mover = -1
        self.stock = 0
