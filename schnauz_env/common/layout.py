"""Named index ranges of a flat observation vector (every game's ``ObservationLayout``)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


class BlockLayout:
    """The blocks of a flat vector, laid end to end in the order given.

    ``layout["hand"]`` is the slice of block ``"hand"``; :attr:`size` is the total
    length. A game's ``ObservationLayout`` subclasses this and names its blocks.
    """

    def __init__(self, blocks: Sequence[tuple[str, int]]) -> None:
        self.slices: dict[str, slice] = {}
        start = 0
        for name, size in blocks:
            self.slices[name] = slice(start, start + size)
            start += size
        self.size = start

    def __getitem__(self, name: str) -> slice:
        return self.slices[name]

    def describe(self) -> list[tuple[str, int, int]]:
        """``(name, start, stop)`` for every block, in order."""
        return [(k, s.start, s.stop) for k, s in self.slices.items()]


def first_hot(block: np.ndarray) -> int | None:
    """The index of the first nonzero entry of a one-hot ``block`` (``None``: all zeros)."""
    hits = np.flatnonzero(block)
    return int(hits[0]) if hits.size else None
