"""The helpers the batched engines share (issue 15's folds): compiled, they do what the
code they replaced did."""

from __future__ import annotations

import numpy as np

from schnauz_env.batched.common import next_seat, set_fields, unmanaged_each
from schnauz_env.batched.jit import njit


@njit
def _reviewed(a, b, c):
    x, y, z = unmanaged_each((a, b, c))
    x[0] = 7
    y[1, 1] = 2.5
    return x.sum() + y.sum() + z.shape[0]


@njit
def _fields(gs, g):
    set_fields(gs, g, (1, 3, 4), 0)
    set_fields(gs, g, (0, 2), -1)


@njit
def _seats(n):
    out = np.empty(n, dtype=np.int64)
    for s in range(n):
        out[s] = next_seat(s, n)
    return out


def test_unmanaged_each_views_the_callers_arrays() -> None:
    a = np.zeros(3, dtype=np.int64)
    b = np.zeros((2, 2), dtype=np.float64)
    c = np.zeros(5, dtype=np.int8)
    assert _reviewed(a, b, c) == 7 + 2.5 + 5
    assert a[0] == 7 and b[1, 1] == 2.5  # written through the views


def test_set_fields_sets_each_field_of_the_row() -> None:
    gs = np.full((2, 6), 9, dtype=np.int32)
    _fields(gs, 1)
    assert gs[0].tolist() == [9] * 6
    assert gs[1].tolist() == [-1, 0, -1, 0, 0, 9]


def test_next_seat_goes_round_the_table() -> None:
    for n in range(2, 7):
        assert _seats(n).tolist() == [(s + 1) % n for s in range(n)]
