"""Every seat's observation as one gather from a vector of the whole table.

A game's observation is seen from the observer's seat: position ``k`` of a seat block
is the ``k``-th player to the observer's left. The same facts, written once per
*absolute* seat (each seat's hand, what each seat is known to hold, each seat's lives,
the dealer's seat …) into a :class:`TableVector`, give every seat's observation by one
numpy gather through that seat's index map. A move then rewrites only the few entries
it changed, once for all seats, and an observation costs a gather instead of an
encoding (the AEC envs' ``observe``; see each game's ``observation`` module).

A :class:`TableLayout` lays the table vector out block by block beside the observation
layout, and builds the index maps: index ``size - 1`` of the table vector stays 0, for
the observation's padding (positions beyond the table size).
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

import numpy as np


class TableLayout:
    """Where each observation block's entries come from in the table vector, for a
    table of ``n`` seats (observation blocks are added in any order; each block added
    returns the start of its entries in the table vector)."""

    def __init__(self, obs_size: int, n: int) -> None:
        self.obs_size = obs_size
        self.n = n
        self._size = 0
        self._blocks: list[tuple[int, int, int, int, int]] = []
        self._maps: list[np.ndarray] | None = None
        #: The table-vector start of every block, in the order they were added.
        self.starts: tuple[int, ...] = ()

    def _add(self, obs_start: int, width: int, first: int, count: int, per_seat: int) -> int:
        start = self._size
        self._size += per_seat * width
        self._blocks.append((obs_start, width, first, count, start))
        self.starts = (*self.starts, start)
        return start

    def shared(self, obs_start: int, width: int) -> int:
        """A block the same for every seat (the table, the discard pile …); its entries
        are ``start + i``."""
        return self._add(obs_start, width, -1, 1, 1)

    def seats(self, obs_start: int, width: int, count: int, first: int = 0) -> int:
        """A block of ``count`` positions of ``width`` entries each, position ``j`` being
        the player ``first + j`` places to the observer's left (0: the observer);
        positions beyond the table are padding. The table vector holds one such part
        per seat: seat ``s``'s entries are ``start + s * width + i``."""
        return self._add(obs_start, width, first, count, self.n)

    @property
    def size(self) -> int:
        """Entries of the table vector (the last one is always 0)."""
        return self._size + 1

    def index_map(self, seat: int) -> np.ndarray:
        """The table-vector index of each entry of ``seat``'s observation."""
        if self._maps is None:
            self._maps = [self._build(s) for s in range(self.n)]
        return self._maps[seat]

    def _build(self, seat: int) -> np.ndarray:
        zero = self._size
        index = np.full(self.obs_size, zero, dtype=np.intp)
        for obs_start, width, first, count, start in self._blocks:
            if first < 0:
                index[obs_start : obs_start + width] = np.arange(start, start + width)
                continue
            for j in range(count):
                k = first + j
                if k < self.n:
                    at = start + (seat + k) % self.n * width
                    index[obs_start + j * width : obs_start + (j + 1) * width] = np.arange(
                        at, at + width
                    )
        index.setflags(write=False)
        return index


class TableVector:
    """A table vector (``vec``, written through the memoryview ``mv``) and the state
    facts it shows (``seen``, a game's own record of them)."""

    __slots__ = ("layout", "maps", "mv", "seen", "vec")

    def __init__(self, layout: TableLayout, seen: object) -> None:
        self.layout = layout
        self.vec = np.zeros(layout.size, dtype=np.float32)
        self.mv = memoryview(self.vec)
        self.seen = seen
        #: Each seat's index map (:meth:`TableLayout.index_map`).
        self.maps = [layout.index_map(s) for s in range(layout.n)]

    def view(self, seat: int) -> np.ndarray:
        """``seat``'s observation: a new float32 vector."""
        return self.vec[self.maps[seat]]


class TableEncoder:
    """What an observation encoder that keeps a table vector shares: the table layouts
    per table size, new table vectors, and :meth:`cached`. A game's encoder subclasses it
    and defines ``size``, ``_tables`` (a dict, empty at first), ``_table_layout(n)``,
    ``_new_seen(n)`` (its record of what a new table vector shows) and
    ``update(table, state)``."""

    size: int
    _tables: dict[int, TableLayout]

    def _table_layout(self, n: int) -> TableLayout:
        raise NotImplementedError

    def _new_seen(self, n: int) -> object:
        raise NotImplementedError

    def update(self, table: TableVector, state: Any) -> None:
        raise NotImplementedError

    def table_vector(self, n: int) -> TableVector:
        """An empty table vector for ``n`` seats (see :meth:`update`)."""
        layout = self._tables.get(n)
        if layout is None:
            layout = self._tables[n] = self._table_layout(n)
        return TableVector(layout, self._new_seen(n))

    def cached(self) -> CachedEncoder:
        """A :class:`CachedEncoder`: the same vectors from one kept table vector."""
        return CachedEncoder(self)


class CachedEncoder:
    """The encoder's ``encode``, float for float, from one kept table vector.

    ``encode(state, seat)`` rewrites what differs between ``state`` and the table
    vector, then gathers ``seat``'s view. The comparison is by value, so any state can
    be passed (another game, a clone, a state changed by hand)."""

    def __init__(self, encoder: TableEncoder) -> None:
        self.encoder = encoder
        self.size = encoder.size
        self._table: TableVector | None = None
        self._update = encoder.update

    def encode(self, state: Any, seat: int) -> np.ndarray:
        """The observation of ``seat`` as a new float32 vector."""
        table = self._table
        if table is None or table.layout.n != state.n:
            table = self._table = self.encoder.table_vector(state.n)
        self._update(table, state)
        return table.vec[table.maps[seat]]


# Writers of a table vector's blocks (through its memoryview): each rewrites only what
# changed between what the block showed (``old``) and what it must show (``new``).
def write_slots(mv: memoryview, base: int, width: int, old: list[int], new: list[int]) -> None:
    """A block of one-hot slots (slot ``i`` of ``width`` entries holds card ``new[i]``;
    offset ``base``) that held ``old``: only the slots that changed."""
    size = len(new)
    if len(old) == size:
        if size == 3:  # a three-card hand or table: unrolled (a loop costs several times more)
            a, b, c = old
            x, y, z = new
            if a != x:
                mv[base + a] = 0.0
                mv[base + x] = 1.0
            base += width
            if b != y:
                mv[base + b] = 0.0
                mv[base + y] = 1.0
            if c != z:
                base += width
                mv[base + c] = 0.0
                mv[base + z] = 1.0
            return
        for a, b in zip(old, new, strict=False):  # same length, checked above
            if a != b:
                mv[base + a] = 0.0
                mv[base + b] = 1.0
            base += width
        return
    # A card came or went: the slots both have are rewritten where they differ, the
    # rest cleared or written.
    common = min(len(old), size)
    for i in range(common):
        a, b = old[i], new[i]
        if a != b:
            at = base + i * width
            mv[at + a] = 0.0
            mv[at + b] = 1.0
    for i in range(common, len(old)):
        mv[base + i * width + old[i]] = 0.0
    for i in range(common, size):
        mv[base + i * width + new[i]] = 1.0


def write_set(mv: memoryview, base: int, old: Collection[int], new: Collection[int]) -> None:
    """A multi-hot block (entry ``base + c`` is 1 for every ``c`` in ``new``) that showed
    ``old``: only the entries that came or went."""
    for c in old:
        if c not in new:
            mv[base + c] = 0.0
    for c in new:
        if c not in old:
            mv[base + c] = 1.0


def move_one(mv: memoryview, old: int, new: int) -> int:
    """Move a one-hot entry from index ``old`` to ``new`` (-1: none); returns ``new``."""
    if old >= 0:
        mv[old] = 0.0
    if new >= 0:
        mv[new] = 1.0
    return new
