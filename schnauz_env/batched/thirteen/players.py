"""Built-in Thirteen players on one game row: uniformly random, and ``greedy``.

:func:`greedy_action` is ``policies.thirteen.GreedyPolicy``'s move (tested move for
move against it): beat the table with the weakest legal play (the table's kind and size
before a bomb, then the lowest top card, then more cards), lead the weakest, build the
chosen play card by card, never pass when a play is possible.
"""

from __future__ import annotations

from schnauz_env.batched.common import rand_below
from schnauz_env.batched.jit import njit
from schnauz_env.batched.thirteen.layout import (
    B_HAND,
    B_LEGAL,
    F_CURRENT,
    F_OPENING,
    F_PHASE,
    F_SEL_K,
    F_TABLE_KS,
    RNG_PLAY,
)
from schnauz_env.batched.thirteen.rules import (
    all_ranks,
    bit_count,
    has_rank,
    lowest_bit,
    min_top,
    nibble,
    rank_sets,
    ranks_with,
    selection,
    shape_bound,
)
from schnauz_env.batched.thirteen.tables import NEVER, NUM_RANKS
from schnauz_env.thirteen.engine import OVER, PASS, PLAY

NO_PLAY = 1 << 20  # a key above every real one


@njit(inline=True)
def play_key(off, top, size):
    """Greedy's order of plays as one number, lowest first: the table's size before a
    bomb (``off``), then the lowest top card, then more cards."""
    return (int(off) * 64 + int(top)) * 64 + (63 - int(size))


@njit(inline=True)
def random_action(st, g):
    """A uniformly random legal action of game ``g`` (-1 when it is over)."""
    legal = st.bits[g, B_LEGAL]
    if legal == 0:
        return -1
    for _ in range(rand_below(st.rng, g, RNG_PLAY, bit_count(legal))):
        legal &= legal - 1
    return lowest_bit(legal)


@njit(inline=True)
def lowest_top(nib, r, below, mt):
    """The weakest card of ``nib`` (rank ``r``) with at least ``below`` cards of ``nib``
    under it and strength ``mt`` or more (-1: none)."""
    count = 0
    for i in range(4):
        if (nib >> i) & 1:
            if count >= below and 4 * r + i >= mt:
                return 4 * r + i
            count += 1
    return -1


@njit(inline=True)
def weakest_completion(hand, r, q, above, hi, m, mt, ranks_m):
    """The top of the weakest completion of a play of ``m`` cards of each rank up to
    ``hi`` whose next card is of rank ``r`` (``q`` of that rank chosen, every chosen card
    at most ``above``), with a top of at least ``mt``; and that next card. ``(-1, -1)``
    when there is none. Cards below the top are the weakest available: the first such
    play in the order the reference enumerates plays."""
    nib = nibble(hand, r)
    if above >> 2 == r:
        nib &= ~((2 << (above & 3)) - 1) & 15
    if nib == 0:
        return -1, -1
    low = 4 * r + lowest_bit(nib)
    if r < hi:
        if bit_count(nib) < m - q or not all_ranks(ranks_m, r + 1, hi - 1):
            return -1, -1
        top = lowest_top(nibble(hand, hi), hi, m - 1, mt)
        return top, low
    top = lowest_top(nib, r, m - q - 1, mt)
    return top, (low if m - q - 1 > 0 else top)


@njit(inline=True)
def weaker(best_key, best, key, action):
    """The weaker of the best play so far (``best_key``: its :func:`play_key`; ``best``:
    the action toward it) and ``action`` toward a play of ``key``: ties keep the first."""
    if key < best_key:
        return key, action
    return best_key, best


@njit(inline=True)
def weakest_start(tb, gs, g, hand, sets, tks, tsize):
    """The greedy action in game ``g`` with nothing selected: the card that starts the
    weakest play the player to act can make (``PASS`` when there is none)."""
    must = gs[g, F_OPENING]
    best_key = NO_PLAY
    best = PASS
    for ks in range(tb.kind.shape[0]):
        mt = min_top(tb, gs, g, ks)
        if mt >= NEVER:
            continue
        m = tb.per_rank[ks]
        size = tb.size[ks]
        off = 1 if tks >= 0 and size != tsize else 0
        ranks_m = ranks_with(sets, m)
        for lo in range(NUM_RANKS):
            hi = tb.hi[ks, lo]
            if hi < 0 or not has_rank(ranks_m, lo):
                continue
            if must >= 0 and lo != must >> 2:
                continue
            top, nxt = weakest_completion(hand, lo, 0, -1, hi, m, mt, ranks_m)
            if top >= 0:
                best_key, best = weaker(best_key, best, play_key(off, top, size), nxt)
    return best


@njit
def greedy_action(tb, st, g):
    """``GreedyPolicy``'s action in game ``g`` (-1 when it is over): the action toward the
    weakest play that starts with the selection (or, with nothing selected,
    :func:`weakest_start`)."""
    gs = st.gs
    if gs[g, F_PHASE] == OVER:
        return -1
    legal = st.bits[g, B_LEGAL]
    if legal & (legal - 1) == 0:
        return lowest_bit(legal)
    hand = st.bits[g, B_HAND + gs[g, F_CURRENT]]
    tks = gs[g, F_TABLE_KS]
    tsize = tb.size[tks] if tks >= 0 else -1
    sets = rank_sets(hand)
    k = gs[g, F_SEL_K]
    if k == 0:
        return weakest_start(tb, gs, g, hand, sets, tks, tsize)
    best_key = NO_PLAY
    best = PASS
    sel_top, r0, rl, qc = selection(st, g)
    for ks in range(tb.kind.shape[0]):
        mt, hi, m, r, q = shape_bound(tb, gs, g, ks, r0, rl, qc, k)
        if mt >= NEVER:
            continue
        size = tb.size[ks]
        off = 1 if tks >= 0 and size != tsize else 0
        if r > hi:  # the selection is a whole play of this shape
            if sel_top < mt:
                continue
            top, nxt = sel_top, PLAY
        else:
            ranks_m = ranks_with(sets, m)
            top, nxt = weakest_completion(hand, r, q, sel_top, hi, m, mt, ranks_m)
            if top < 0:
                continue
        best_key, best = weaker(best_key, best, play_key(off, top, size), nxt)
    return best
