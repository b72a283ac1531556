"""Lookup tables of the batched Thirteen kernels, filled from the rules floor.

The kernels judge plays with these tables and never restate a rule: every entry is
what a function of :mod:`schnauz_env.thirteen.combos` or
:mod:`schnauz_env.thirteen.engine` answers.

A play's **shape** is its kind and size (an index ``ks`` into :func:`kind_sizes`) and
its lowest rank ``lo``: it then takes ``per_rank[ks]`` cards of every rank ``lo ..
hi[ks, lo]``, any suits. The shapes are read off the plays
:func:`~schnauz_env.thirteen.combos.plays_strengths` enumerates (and classified by
:func:`~schnauz_env.thirteen.combos.classify_strengths`); ``tests/test_batched_thirteen.py``
checks that those plays are exactly every choice of suits of every shape.

Every table is int64 (so that arithmetic on its entries never overflows, compiled or not).

=================  ===============  =======================================================
table              shape            entry
=================  ===============  =======================================================
``kind``           (NKS,)           the combination kind of shape index ``ks``
``size``           (NKS,)           its number of cards
``per_rank``       (NKS,)           cards of each rank it spans
``hi``             (NKS, 13)        its highest rank when its lowest is ``lo`` (-1: none)
``ks_of``          (14, 13)         ``ks`` of a play of ``size`` cards spanning ``span`` + 1
                                    ranks (-1: no play)
``min_top``        (NKS, 52, NKS)   ``[tks, top, ks]``: the lowest top strength with which a
                                    play of shape ``ks`` beats a table of shape ``tks`` and
                                    top ``top`` (:func:`combo_beats`; 52: never)
``instant``        (13, 5)          the instant win (0 none, else its index in
                                    :func:`instant_names`) of a hand holding cards of as
                                    many ranks 3..A as the row and as many 2s as the column
``strength``       (52,)            :data:`~schnauz_env.thirteen.combos.STRENGTH`
=================  ===============  =======================================================
"""

from __future__ import annotations

from functools import cache
from typing import NamedTuple

import numpy as np

from schnauz_env.thirteen import combos as C
from schnauz_env.thirteen.config import HAND_SIZE
from schnauz_env.thirteen.engine import instant_win_of

NUM_RANKS = C.TWO + 1
NEVER = 52  # ``min_top`` of a play that cannot beat the table


class Tables(NamedTuple):
    """The kernels' lookup tables (see the module docstring)."""

    kind: np.ndarray
    size: np.ndarray
    per_rank: np.ndarray
    hi: np.ndarray
    ks_of: np.ndarray
    min_top: np.ndarray
    instant: np.ndarray
    strength: np.ndarray


@cache
def _shape_plays() -> tuple[tuple[int, ...], ...]:
    """One play (a strength tuple) of every shape: among the leads of a hand of two
    cards of every rank (singles, pairs, sequences, double sequences at every height)
    and of the four cards of each rank (triples and fours of a kind), the first with
    each tuple of ranks."""
    two_each = [4 * r + s for r in range(NUM_RANKS) for s in range(2)]
    plays = C.plays_strengths(two_each, None)
    for r in range(NUM_RANKS):
        plays += C.plays_strengths([4 * r + s for s in range(4)], None)
    first: dict[tuple[int, ...], tuple[int, ...]] = {}
    for p in plays:
        first.setdefault(tuple(s >> 2 for s in p), p)
    return tuple(first.values())


@cache
def kind_sizes() -> tuple[tuple[int, int], ...]:
    """Every ``(kind, size)`` of a combination, in the order of the kinds, then sizes."""
    found = {(c.kind, c.size) for p in _shape_plays() if (c := C.classify_strengths(p))}
    return tuple(sorted(found))


def _shapes() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    ks_index = {k: i for i, k in enumerate(kind_sizes())}
    nks = len(ks_index)
    kind = np.array([k for k, _ in kind_sizes()], dtype=np.int64)
    size = np.array([s for _, s in kind_sizes()], dtype=np.int64)
    per_rank = np.zeros(nks, dtype=np.int64)
    hi = np.full((nks, NUM_RANKS), -1, dtype=np.int64)
    ks_of = np.full((HAND_SIZE + 1, NUM_RANKS), -1, dtype=np.int64)
    for p in _shape_plays():
        combo = C.classify_strengths(p)
        assert combo is not None, p
        ks = ks_index[combo.kind, combo.size]
        lo, top = p[0] >> 2, p[-1] >> 2
        span = top - lo
        m = len(p) // (span + 1)
        counts = [sum(1 for s in p if s >> 2 == r) for r in range(lo, top + 1)]
        if counts != [m] * (span + 1) or combo.top != p[-1]:
            raise AssertionError(f"play {p} is not {m} cards of each rank {lo}..{top}")
        for table, index, value in (
            (per_rank, ks, m),
            (hi, (ks, lo), top),
            (ks_of, (len(p), span), ks),
        ):
            if table[index] not in (value, 0 if table is per_rank else -1):
                raise AssertionError(f"two shapes disagree at {index}: {table[index]} and {value}")
            table[index] = value
    return kind, size, per_rank, hi, ks_of


def _min_top(kind: np.ndarray, size: np.ndarray) -> np.ndarray:
    """``min_top[tks, top, ks]`` from :func:`combo_beats`, which is monotone in the
    play's top (a higher top beats whatever a lower one beats): bisected."""
    nks = len(kind)
    out = np.full((nks, 52, nks), NEVER, dtype=np.int64)
    for tks in range(nks):
        for top in range(52):
            table = C.Combo(int(kind[tks]), int(size[tks]), top)
            for ks in range(nks):
                k, s = int(kind[ks]), int(size[ks])
                if not C.combo_beats(C.Combo(k, s, 51), table):
                    continue
                if C.combo_beats(C.Combo(k, s, 0), table):
                    out[tks, top, ks] = 0
                    continue
                lo, hi = 0, 51  # beats at hi, not at lo
                while hi - lo > 1:
                    mid = (lo + hi) // 2
                    if C.combo_beats(C.Combo(k, s, mid), table):
                        hi = mid
                    else:
                        lo = mid
                out[tks, top, ks] = hi
    return out


def _instant() -> tuple[np.ndarray, tuple[str | None, ...]]:
    """``instant[ranks, twos]`` from :func:`instant_win_of` on a hand of one card of
    each of the lowest ``ranks`` ranks and ``twos`` 2s (which ranks 3..A a hand holds
    does not matter, only how many: the differential test holds the kernels to it);
    and the names of the codes, ``None`` first."""
    names: list[str | None] = [None]
    out = np.zeros((C.ACE + 2, 5), dtype=np.int64)
    for ranks in range(C.ACE + 2):
        for twos in range(5):
            hand = [int(C.CARD_OF[4 * r]) for r in range(ranks)]
            hand += [int(C.CARD_OF[4 * C.TWO + i]) for i in range(twos)]
            name = instant_win_of(hand)
            if name not in names:
                names.append(name)
            out[ranks, twos] = names.index(name)
    return out, tuple(names)


def instant_names() -> tuple[str | None, ...]:
    """The instant wins by their code in ``Tables.instant`` (0: ``None``, no instant win),
    as :func:`instant_win_of` names them."""
    return _instant_table()[1]


@cache
def _instant_table() -> tuple[np.ndarray, tuple[str | None, ...]]:
    return _instant()


@cache
def tables() -> Tables:
    """The tables (built once per process, in a fraction of a second)."""
    kind, size, per_rank, hi, ks_of = _shapes()
    return Tables(
        kind=kind,
        size=size,
        per_rank=per_rank,
        hi=hi,
        ks_of=ks_of,
        min_top=_min_top(kind, size),
        instant=_instant_table()[0],
        strength=np.array(C.STRENGTH, dtype=np.int64),
    )
