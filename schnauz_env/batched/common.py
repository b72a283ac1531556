"""Game-independent helpers of the batched engines: random numbers, shuffles, bit counts.

Every batched engine keeps one row per game and, per game, a few 32-bit xorshift
generators in an ``(B, R)`` int64 array ``rng`` (column ``c`` is generator ``c`` of
every game; a state is never 0). The helpers below draw from them inside compiled
kernels, so a game's randomness is its own, whatever the other games do::

    from schnauz_env.batched.common import draw_permutation, rand_below, seed_states

    rng = seed_states(seed, num_games, 2)  # (B, 2): two generators per game
    # inside a kernel:
    k = rand_below(rng, g, 0, 6)           # uniform 0..5 from game g's generator 0
    draw_permutation(buf, g, 0, 32, rng, g, 1)

The helpers are small and compiled with ``inline=True`` (numba inlines them
into their callers). Importing this module also lets kernels call the rules
floor's reward functions (:mod:`schnauz_env.common.places`: ``place_value``,
``shared_place``, ``single_round_reward``, ``settle_places``) by their own names. :func:`~schnauz_env.batched.jit.unmanaged` (re-exported here)
re-views a caller-owned C-contiguous array without reference counting: call it on a
kernel's array arguments on entry, so the helpers it calls count nothing
(:func:`~schnauz_env.batched.jit.unmanaged_fields`: every array of a named tuple;
:func:`unmanaged_each`: every array of a plain tuple, ``a, b = unmanaged_each((a, b))``).
"""

from __future__ import annotations

import numpy as np

from schnauz_env.batched.jit import HAVE_NUMBA, jitable, njit, unmanaged, unmanaged_fields
from schnauz_env.common import places

# What a place pays is written once, on the rules floor, in Python numba compiles:
# every kernel may call these by their own names (import them from places).
for _fn in (
    places.place_value,
    places.shared_place,
    places.single_round_reward,
    places.settle_places,
):
    jitable(_fn)

__all__ = [
    "draw_permutation",
    "first_dealer",
    "next_seat",
    "popcount",
    "rand32",
    "rand_below",
    "seed_states",
    "set_fields",
    "shuffle_forward",
    "start_lives",
    "unmanaged",
    "unmanaged_each",
    "unmanaged_fields",
]

#: What a generator seeded 0 starts from instead (xorshift never leaves 0).
ZERO_SEED_STATE = 0x9E3779B9


def seed_states(seed: int | None, num_games: int, generators: int) -> np.ndarray:
    """``(num_games, generators)`` int64 xorshift32 states from ``SeedSequence(seed)``.

    The same seed gives the same states (and so the same games) on every machine;
    ``None`` draws fresh entropy.
    """
    state = np.random.SeedSequence(seed).generate_state(generators * num_games, dtype=np.uint32)
    state = state.astype(np.int64).reshape(num_games, generators)
    state[state == 0] = ZERO_SEED_STATE
    return state


def unmanaged_each(arrays: tuple[np.ndarray, ...]) -> tuple[np.ndarray, ...]:
    """Every array of the tuple ``arrays`` (C-contiguous, owned by the caller) re-viewed
    by :func:`unmanaged`, as a tuple: what a kernel does on entry with its array arguments,
    ``dealers, mask, games = unmanaged_each((dealers, mask, games))``. Compiled, one
    re-view an array, generated for each tuple type."""
    return tuple(unmanaged(x) for x in arrays)


if HAVE_NUMBA:
    from numba.core import types as _types
    from numba.extending import overload as _overload

    @_overload(unmanaged_each)
    def _unmanaged_each(arrays):  # type: ignore[no-untyped-def]
        if not isinstance(arrays, _types.BaseTuple):
            return None
        items = "".join(f"unmanaged(arrays[{i}]), " for i in range(len(arrays)))
        scope = {"unmanaged": unmanaged}
        exec(f"def impl(arrays):\n    return ({items})\n", scope)
        return scope["impl"]


@njit(inline=True)
def rand32(rng, g, c):
    """Next xorshift32 value (1 .. 2**32 - 1) of generator ``c`` of game ``g``."""
    x = rng[g, c]
    x ^= (x << 13) & 0xFFFFFFFF
    x ^= x >> 17
    x ^= (x << 5) & 0xFFFFFFFF
    rng[g, c] = x
    return x


@njit(inline=True)
def rand_below(rng, g, c, k):
    """A uniform integer in ``0 .. k - 1`` from generator ``c`` of game ``g`` (multiply-shift;
    ``k`` is small, far below 2**32)."""
    return (rand32(rng, g, c) * k) >> 32


@njit(inline=True)
def start_lives(gs, g, n, lives, default, f_lives, f_max):
    """A lives game's start: seat ``s`` of game ``g`` gets ``lives[s]`` (or ``default``
    for all when ``lives[0] < 0``) in ``gs[g, f_lives + s]``; the most anyone has, at
    least ``default``, goes to ``gs[g, f_max]``."""
    most = default
    for s in range(n):
        gs[g, f_lives + s] = lives[s] if lives[0] >= 0 else default
        most = max(most, gs[g, f_lives + s])
    gs[g, f_max] = most


@njit(inline=True)
def set_fields(gs, g, fields, value):
    """``gs[g, f] = value`` for every field ``f`` of the tuple ``fields``: the fields a
    deal or a new game starts at 0, or at -1 (none)."""
    for f in fields:
        gs[g, f] = value


@njit(inline=True)
def next_seat(seat, n):
    """The seat to the left of ``seat`` at a table of ``n`` (after ``n - 1``, seat 0)."""
    s = seat + 1
    return 0 if s >= n else s


@njit(inline=True)
def first_dealer(dealer, configured, rng, g, c, n):
    """The first dealer of game ``g``: ``dealer``, or when it is negative the
    ``configured`` one, or when that is negative too a seat drawn from its generator
    ``c`` (:func:`rand_below`)."""
    if dealer < 0:
        dealer = configured
        if dealer < 0:
            dealer = rand_below(rng, g, c, n)
    return dealer


@njit(inline=True)
def draw_permutation(buf, row, off, n, rng, g, c):
    """A uniform permutation of ``0 .. n - 1`` into ``buf[row, off:off + n]``.

    Backward Fisher-Yates from the identity: ``n - 1`` draws from generator ``c`` of
    game ``g``, the first of them for the last position.
    """
    for i in range(n):
        buf[row, off + i] = i
    for i in range(n - 1, 0, -1):
        j = off + rand_below(rng, g, c, i + 1)
        t = buf[row, off + i]
        buf[row, off + i] = buf[row, j]
        buf[row, j] = t


@njit(inline=True)
def shuffle_forward(buf, row, off, n, start, stop, rng, g, c):
    """Shuffle positions ``start .. stop - 1`` of ``buf[row, off:off + n]`` into place.

    Forward Fisher-Yates: position ``i`` takes a uniform entry among positions
    ``i .. n - 1``. Positions before ``start`` must be done already; those from
    ``stop`` on are left for later calls. Dealing from a deck shuffled this way, a few
    positions at a time, is dealing from a shuffled deck, and only the cards dealt
    cost random numbers.
    """
    for i in range(start, stop):
        j = off + i + rand_below(rng, g, c, n - i)
        t = buf[row, off + i]
        buf[row, off + i] = buf[row, j]
        buf[row, j] = t


@njit(inline=True)
def popcount(x):
    """The number of 1 bits of ``x`` (``x >= 0``), e.g. the seats in a seat mask."""
    k = 0
    while x:
        x &= x - 1
        k += 1
    return k
