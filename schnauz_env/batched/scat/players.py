"""Built-in players of the batched Scat engine: uniform random, and greedy.

:func:`greedy_action` plays ``policies.scat.GreedyPolicy`` (``greedy:T``) move for
move (``tests/test_batched_scat.py`` checks it against the policy), reading only what
that seat's observation shows: its hand and the top of the discard pile.
"""

from __future__ import annotations

from schnauz_env.batched.common import rand_below
from schnauz_env.batched.jit import njit
from schnauz_env.batched.scat.layout import (
    C_H,
    COMB,
    F_CURRENT,
    F_PILE,
    HS,
    LEGAL_ACTS,
    LEGAL_COUNT,
    M_OVER,
    MASK_ROWS,
    O_HANDS,
    O_PILE,
    RNG_PLAY,
    X_GREEDY2,
)
from schnauz_env.batched.scat.observe import situation
from schnauz_env.batched.scat.rules import VALUE_MASK
from schnauz_env.scat.engine import (
    DISCARD_BASE,
    DRAW_DISCARD,
    DRAW_STOCK,
    KNOCK,
    PASS,
)


@njit(inline=True)
def random_action(st, g):
    """A uniformly random legal action of game ``g`` (-1 when it is over), drawn from the
    game's play generator."""
    row = situation(st.cfg, st.gs, g)
    if row == M_OVER:
        return -1
    return LEGAL_ACTS[row, rand_below(st.rng, g, RNG_PLAY, LEGAL_COUNT[row])]


@njit(inline=True)
def doubled_value_without(vals, hand, count, skip):
    """Twice the value of the sorted ``hand[0, :count]`` without slot ``skip``."""
    idx = 0
    k = 1
    for i in range(count):
        if i != skip:
            idx += COMB[k, hand[0, i]]
            k += 1
    return vals[idx] & VALUE_MASK


@njit(inline=True)
def best_keep(vals, hand, count):
    """``policies.scat.best_keep``: ``(twice the best value, slot)`` of the hands left by
    throwing one of the sorted ``hand[0, :count]`` (the first slot on equal values)."""
    best = -1
    best_i = 0
    for i in range(count):
        v = doubled_value_without(vals, hand, count, i)
        if v > best:
            best = v
            best_i = i
    return best, best_i


@njit(inline=True)
def greedy_action(st, g, hand):
    """``GreedyPolicy``'s move in game ``g`` (-1 when it is over); ``hand`` is a (1, 5)
    int8 scratch row.

    Discard the card whose loss leaves the best hand. Draw step: knock (when legal)
    with a hand worth at least the threshold; else take the discard if keeping it
    makes the hand better now; else draw from the stock; else pass.
    """
    cfg, gs, cards = st.cfg, st.gs, st.cards
    row = situation(cfg, gs, g)
    if row == M_OVER:
        return -1
    size = cfg[C_H]
    h = O_HANDS + HS * gs[g, F_CURRENT]
    if MASK_ROWS[row, DISCARD_BASE]:
        for i in range(size + 1):
            hand[0, i] = cards[g, h + i]
        return DISCARD_BASE + best_keep(st.vals, hand, size + 1)[1]
    for i in range(size):
        hand[0, i] = cards[g, h + i]
    hand[0, size] = 127  # past every card: dropping slot `size` leaves the hand itself
    now = doubled_value_without(st.vals, hand, size + 1, size)
    if MASK_ROWS[row, KNOCK] and now >= st.cff[X_GREEDY2]:
        return KNOCK
    if MASK_ROWS[row, DRAW_DISCARD]:
        top = cards[g, O_PILE + gs[g, F_PILE] - 1]
        i = size
        while i > 0 and hand[0, i - 1] > top:
            hand[0, i] = hand[0, i - 1]
            i -= 1
        hand[0, i] = top
        if best_keep(st.vals, hand, size + 1)[0] > now:
            return DRAW_DISCARD
    if MASK_ROWS[row, DRAW_STOCK]:
        return DRAW_STOCK
    if MASK_ROWS[row, PASS]:
        return PASS
    return LEGAL_ACTS[row, 0]
