"""Thirteen rules on one game row: deal, legal actions, moves, results and rewards.

The batched twin of :class:`schnauz_env.thirteen.engine.ThirteenState` (``apply``,
``legal_actions``, ``_start_game``, ``_end_game``) and of the AEC env's reward
settlement (:meth:`schnauz_env.common.aec.CardGameEnv._settle`), written on the arrays
of :mod:`schnauz_env.batched.thirteen.layout`. Plays are judged with the tables of
:mod:`schnauz_env.batched.thirteen.tables`, filled from the rules floor; what the
functions here compute themselves (which card may extend a selection, whose turn it is,
who scores what) ``tests/test_batched_thirteen_differential.py`` holds to the
reference move by move.

Every function acts on game ``g`` of the state ``st`` (a
:class:`~schnauz_env.batched.thirteen.layout.State` of unmanaged arrays, see
:func:`~schnauz_env.batched.jit.unmanaged_fields`) with the tables ``tb``.
"""

from __future__ import annotations

import numpy as np

from schnauz_env.batched.common import (  # (registers settle_places)
    next_seat,
    set_fields,
    shuffle_forward,
)
from schnauz_env.batched.jit import njit
from schnauz_env.batched.thirteen.layout import (
    B_HAND,
    B_LEGAL,
    B_PLAYED,
    B_SEL,
    B_TABLE,
    C_DECKS,
    C_EXTERNAL,
    C_INCLUDE,
    C_INSTANT,
    C_MATCH,
    C_MAX_GAMES,
    C_N,
    C_OUT_CLEARS,
    C_TARGET,
    DECK_SIZE,
    ERR_NO_DECK,
    F_CURRENT,
    F_DECIDED,
    F_ERROR,
    F_FINISH,
    F_GAME,
    F_INSTANT_WIN,
    F_LEADER,
    F_LIMIT,
    F_MATCH_OVER,
    F_NOUT,
    F_OPENING,
    F_ORDER,
    F_OVER,
    F_PASSED,
    F_PERM_PTR,
    F_PHASE,
    F_POINTS,
    F_REASON,
    F_RES_FINISH,
    F_RES_GAME,
    F_RES_NOUT,
    F_SCORES,
    F_SEL_FIRST,
    F_SEL_K,
    F_SEL_MAX,
    F_SETTLED,
    F_TABLE_BY,
    F_TABLE_KS,
    F_TABLE_TOP,
    F_WENT_OUT,
    L_PLACE,
    L_RET,
    R_GAME_OVER,
    R_INSTANT,
    R_OUT,
    RNG_DEAL,
    P,
)
from schnauz_env.batched.thirteen.tables import NEVER, NUM_RANKS
from schnauz_env.common.places import settle_places
from schnauz_env.thirteen.combos import ACE, TWO
from schnauz_env.thirteen.config import HAND_SIZE
from schnauz_env.thirteen.engine import (
    DECLARE,
    NUM_ACTIONS,
    NUM_CARD_ACTIONS,
    OVER,
    PASS,
    PLAY,
    PLAYING,
)

ONE = np.int64(1)


# ---------------------------------------------------------------- bits of a hand
@njit(inline=True)
def nibble(x, r):
    """The four suit bits of rank ``r`` in the card set ``x``."""
    return (x >> (4 * r)) & 15


@njit(inline=True)
def high4(nib):
    """Index of the highest bit of a nibble (-1 for 0)."""
    if nib & 8:
        return 3
    if nib & 4:
        return 2
    if nib & 2:
        return 1
    if nib & 1:
        return 0
    return -1


@njit(inline=True)
def drop_high(nib, t):
    """``nib`` without its ``t`` highest bits."""
    for _ in range(t):
        h = high4(nib)
        if h < 0:
            return 0
        nib &= ~(1 << h)
    return nib


@njit(inline=True)
def top_of_rank(hand, r):
    """Strength of the strongest card of rank ``r`` in ``hand`` (-1: none)."""
    h = high4(nibble(hand, r))
    return -1 if h < 0 else 4 * r + h


#: Bit ``4 r`` of every rank ``r``: rank sets are kept "spread", a bit per nibble.
RANK_BITS = np.int64(sum(1 << (4 * r) for r in range(NUM_RANKS)))


@njit(inline=True)
def bit_count(x):
    """The number of 1 bits of ``0 <= x < 2**62`` (SWAR, no multiplication)."""
    x = x - ((x >> 1) & 0x5555555555555555)
    x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
    x = x + (x >> 8)
    x = x + (x >> 16)
    x = x + (x >> 32)
    return x & 0x7F


@njit(inline=True)
def lowest_bit(x):
    """Index of the lowest set bit of ``0 < x < 2**62``."""
    return bit_count((x & -x) - 1)


@njit(inline=True)
def rank_sets(hand):
    """The ranks of which ``hand`` holds at least 1, 2, 3 and 4 cards, as spread sets
    (bit ``4 r`` for rank ``r``)."""
    c = hand - ((hand >> 1) & 0x5555555555555)
    c = (c & 0x3333333333333) + ((c >> 2) & 0x3333333333333)  # cards of each rank, 0..4
    ge1 = (c | (c >> 1) | (c >> 2)) & RANK_BITS
    ge2 = ((c >> 1) | (c >> 2)) & RANK_BITS
    ge3 = ((c >> 2) | ((c >> 1) & c)) & RANK_BITS
    ge4 = (c >> 2) & RANK_BITS
    return ge1, ge2, ge3, ge4


@njit(inline=True)
def ranks_with(sets, m):
    """The spread set of ranks with at least ``m`` cards, from :func:`rank_sets`."""
    if m == 1:
        return sets[0]
    if m == 2:
        return sets[1]
    if m == 3:
        return sets[2]
    return sets[3]


@njit(inline=True)
def all_ranks(ranks, a, b):
    """Whether every rank ``a .. b`` is in the spread rank set ``ranks`` (true when a > b)."""
    if a > b:
        return True
    want = (RANK_BITS >> (4 * (NUM_RANKS - 1 - (b - a)))) << (4 * a)
    return ranks & want == want


@njit(inline=True)
def has_rank(ranks, r):
    return (ranks >> (4 * r)) & 1


# ----------------------------------------------------------------- legal actions
@njit(inline=True)
def min_top(tb, gs, g, ks):
    """The lowest top with which shape ``ks`` may be played now (``NEVER``: not at all)."""
    tks = gs[g, F_TABLE_KS]
    if tks < 0:
        return 0  # leading: any combination
    return tb.min_top[tks, gs[g, F_TABLE_TOP], ks]


@njit(inline=True)
def selection(st, g):
    """The selection being built in game ``g``: ``(top, r0, rl, qc)``, its highest card,
    the ranks of its first and highest cards, and how many cards of rank ``rl`` it holds."""
    gs = st.gs
    top = gs[g, F_SEL_MAX]
    rl = top >> 2
    return top, gs[g, F_SEL_FIRST] >> 2, rl, bit_count(nibble(st.bits[g, B_SEL], rl))


@njit(inline=True)
def shape_bound(tb, gs, g, ks, r0, rl, qc, k):
    """``(mt, hi, m, r, q)`` of shape ``ks`` for the selection (``k`` cards, ranks ``r0``
    to ``rl``, ``qc`` of rank ``rl``, see :func:`selection`): :func:`min_top` (``NEVER``
    when the selection cannot start a play of it), the highest rank such a play reaches,
    its cards per rank, and where its next card goes: rank ``r``, of which ``q`` cards
    are chosen (``r > hi``: the selection is a whole play of the shape; both 0 with
    ``NEVER``)."""
    hi = tb.hi[ks, r0]
    m = tb.per_rank[ks]
    if hi < rl or qc > m or (rl > r0 and m * (rl - r0) + qc != k):
        return NEVER, hi, m, 0, 0  # the selection is no start of this shape
    if qc == m:
        return min_top(tb, gs, g, ks), hi, m, rl + 1, 0
    return min_top(tb, gs, g, ks), hi, m, rl, qc


@njit(inline=True)
def next_cards(hand, r, q, above, hi, m, mt, ranks_m):
    """The cards (a nibble of rank ``r``) that may come next in a play of ``m`` cards of
    each rank up to ``hi``, with ``q`` cards of rank ``r`` chosen, every card chosen
    below strength ``above`` + 1, and a top of at least ``mt``; ``ranks_m`` holds the
    ranks of which ``hand`` has ``m`` cards.

    Suits are free, so the play is completed with the best cards: the next card needs
    ``m - q - 1`` cards of its rank above it, every rank after it ``m`` cards, and the
    strongest card of rank ``hi`` must reach ``mt`` (or the card itself, when it ends
    the play).
    """
    nib = nibble(hand, r)
    if above >> 2 == r:
        nib &= ~((2 << (above & 3)) - 1) & 15
    need = m - q - 1
    if r < hi:
        if not all_ranks(ranks_m, r + 1, hi) or top_of_rank(hand, hi) < mt:
            return 0
        return drop_high(nib, need)
    if need > 0:
        if top_of_rank(hand, hi) < mt:
            return 0
        return drop_high(nib, need)
    if mt >> 2 > r:
        return 0
    if mt >> 2 == r:
        nib &= ~((1 << (mt & 3)) - 1) & 15
    return nib


@njit(inline=True)
def legal_bits(tb, st, g):
    """The legal actions of the player to act in game ``g``, as bits (``legal_actions``).

    A card is legal when the selection plus it is the start of a legal play, *play* when
    the selection is one, *pass* when nothing is selected and there is a play to beat.
    The opening card is the holder's lowest, so a play includes it exactly when it
    starts with it.
    """
    gs = st.gs
    phase = gs[g, F_PHASE]
    if phase == OVER:
        return np.int64(0)
    if phase == DECLARE:
        return ONE << PLAY
    hand = st.bits[g, B_HAND + gs[g, F_CURRENT]]
    k = gs[g, F_SEL_K]
    leading = gs[g, F_TABLE_KS] < 0
    sets = rank_sets(hand)
    out = np.int64(0)
    nks = tb.kind.shape[0]
    if k == 0:
        must = gs[g, F_OPENING]
        target = hand if must < 0 else ONE << must
        for ks in range(nks):
            mt = min_top(tb, gs, g, ks)
            if mt >= NEVER:
                continue
            m = tb.per_rank[ks]
            ranks_m = ranks_with(sets, m)
            for lo in range(NUM_RANKS):
                hi = tb.hi[ks, lo]
                if hi < 0 or 4 * hi + 3 < mt or not has_rank(ranks_m, lo):
                    continue
                nib = next_cards(hand, lo, 0, -1, hi, m, mt, ranks_m)
                out |= np.int64(nib) << (4 * lo)
            out &= target
            if out == target:
                break
        if not leading:
            out |= ONE << PASS
        return out
    top, r0, rl, qc = selection(st, g)
    for ks in range(nks):
        mt, hi, m, r, q = shape_bound(tb, gs, g, ks, r0, rl, qc, k)
        if mt >= NEVER:
            continue
        if r > hi:  # the selection is a whole play of this shape
            if top >= mt:
                out |= ONE << PLAY
            continue
        ranks_m = ranks_with(sets, m)
        nib = next_cards(hand, r, q, top, hi, m, mt, ranks_m)
        out |= np.int64(nib) << (4 * r)
    return out


# ---------------------------------------------------------------------- dealing
@njit(inline=True)
def instant_win(tb, hand):
    """The instant win of ``hand``: 0 none, else its code in ``tables.instant_names()``."""
    low_ranks = rank_sets(hand)[0] & ((ONE << (4 * (ACE + 1))) - 1)
    return tb.instant[bit_count(low_ranks), bit_count(nibble(hand, TWO))]


@njit
def start_game(tb, st, g, leader):
    """The reference's ``_start_game``: deal, the first game's leader and opening card,
    instant wins. ``leader < 0``: the first game of the match."""
    cfg, gs, bits, deck = st.cfg, st.gs, st.bits, st.deck
    n = cfg[C_N]
    dealt = HAND_SIZE * n
    if cfg[C_EXTERNAL]:
        ptr = gs[g, F_PERM_PTR]
        if ptr >= cfg[C_DECKS]:
            gs[g, F_ERROR] = ERR_NO_DECK
            ptr = 0
        gs[g, F_PERM_PTR] = ptr + 1
        for i in range(dealt):
            deck[g, i] = st.perms[g, ptr, i]
    else:
        for i in range(DECK_SIZE):
            deck[g, i] = i
        shuffle_forward(deck, g, 0, DECK_SIZE, 0, dealt, st.rng, g, RNG_DEAL)
    for s in range(P):
        bits[g, B_HAND + s] = 0
    low = DECK_SIZE
    low_seat = 0
    s = 0
    for i in range(dealt):
        c = tb.strength[deck[g, i]]
        bits[g, B_HAND + s] |= ONE << c
        if c < low:
            low = c
            low_seat = s
        s += 1
        if s == n:
            s = 0
    gs[g, F_OPENING] = -1
    if leader < 0:
        leader = low_seat
        if cfg[C_INCLUDE]:
            gs[g, F_OPENING] = low
    gs[g, F_LEADER] = leader
    clear_table(st, g, leader)
    bits[g, B_SEL] = 0
    bits[g, B_PLAYED] = 0
    set_fields(gs, g, (F_SEL_K, F_NOUT), 0)
    set_fields(gs, g, (F_SEL_FIRST, F_SEL_MAX), -1)
    gs[g, F_PHASE] = PLAYING
    if cfg[C_INSTANT]:
        for k in range(n):
            s = leader + k
            if s >= n:
                s -= n
            if instant_win(tb, bits[g, B_HAND + s]):
                gs[g, F_PHASE] = DECLARE
                gs[g, F_CURRENT] = s
                break


@njit
def new_game(tb, st, g, scores):
    """The reference's ``new_game``: match points from ``scores`` (a row of P; a negative
    first entry: zeros), nothing paid or decided, the first game dealt."""
    gs, fl = st.gs, st.fl
    for s in range(P):
        gs[g, F_SCORES + s] = 0 if scores[0] < 0 else scores[s]
        gs[g, F_POINTS + s] = 0
        gs[g, F_FINISH + s] = -1
        gs[g, F_RES_FINISH + s] = -1
        fl[g, L_RET + s] = 0.0
        fl[g, L_PLACE + s] = 0.0
    set_fields(gs, g, (F_GAME, F_OVER, F_ERROR, F_PERM_PTR, F_SETTLED, F_MATCH_OVER), 0)
    set_fields(gs, g, (F_LIMIT, F_INSTANT_WIN, F_DECIDED, F_RES_NOUT), 0)
    set_fields(gs, g, (F_REASON, F_WENT_OUT, F_RES_GAME), -1)
    start_game(tb, st, g, -1)


# ------------------------------------------------------------------------ moves
@njit(inline=True)
def next_holder(st, g, n, seat):
    """The next seat to the left of ``seat`` that still holds cards."""
    s = next_seat(seat, n)
    while st.bits[g, B_HAND + s] == 0:
        s = next_seat(s, n)
    return s


@njit(inline=True)
def record_result(gs, g, reason, seat, nout):
    """The latest result of game ``g`` (see ``BatchedThirteen.last_result``): its
    ``reason``, the ``seat`` that went out, the game, and the finish order of its first
    ``nout`` seats."""
    gs[g, F_REASON] = reason
    gs[g, F_WENT_OUT] = seat
    gs[g, F_RES_GAME] = gs[g, F_GAME]
    gs[g, F_RES_NOUT] = nout
    for i in range(P):
        gs[g, F_RES_FINISH + i] = gs[g, F_FINISH + i] if i < nout else -1


@njit(inline=True)
def clear_table(st, g, leader):
    gs = st.gs
    st.bits[g, B_TABLE] = 0
    gs[g, F_TABLE_KS] = -1
    gs[g, F_TABLE_TOP] = -1
    gs[g, F_TABLE_BY] = -1
    gs[g, F_PASSED] = 0
    gs[g, F_CURRENT] = leader


@njit(inline=True)
def advance(st, g, seat):
    """The reference's ``_advance``: clear the table if everyone else has passed, else
    the next player to the left who may still play."""
    gs, bits = st.gs, st.bits
    n = st.cfg[C_N]
    tb_seat = gs[g, F_TABLE_BY]
    passed = gs[g, F_PASSED]
    everyone = True
    for s in range(n):
        if s != tb_seat and bits[g, B_HAND + s] != 0 and not (passed >> s) & 1:
            everyone = False
            break
    if everyone:
        if bits[g, B_HAND + tb_seat] != 0:
            clear_table(st, g, tb_seat)
        else:
            clear_table(st, g, next_holder(st, g, n, tb_seat))
        return
    s = next_seat(seat, n)
    while bits[g, B_HAND + s] == 0 or (passed >> s) & 1:
        s = next_seat(s, n)
    gs[g, F_CURRENT] = s


@njit(inline=True)
def shared_places(fl, gs, g, n, field):
    """Decide every seat's place by ``gs[g, field + s]`` (higher is better), equal
    values sharing the mean place (the reference's ``_shared_places``), and list the
    seats in ``gs[g, F_ORDER:]`` best first, ties in seat order, as the reference's
    dict of places is ordered. Returns how many (``n``)."""
    count = 0
    done = 0
    while count < n:
        best = -1
        for s in range(n):
            if not (done >> s) & 1 and (best < 0 or gs[g, field + s] > gs[g, field + best]):
                best = s
        v = gs[g, field + best]
        above = 0
        equal = 0
        for t in range(n):
            w = gs[g, field + t]
            if w > v:
                above += 1
            elif w == v:
                equal += 1
        fl[g, L_PLACE + best] = (above + above + equal - 1) / 2.0 + 1.0
        gs[g, F_ORDER + count] = best
        done |= 1 << best
        count += 1
    return count


@njit(inline=True)
def settle(st, rew, g, count):
    """The AEC env's ``_settle`` for a result that decided the places of the ``count``
    seats in ``gs[g, F_ORDER:]`` (none of them settled before): pay them and the seats
    still playing (:func:`~schnauz_env.common.places.settle_places`)."""
    gs, fl = st.gs, st.fl
    n = st.cfg[C_N]
    decided = 0
    for i in range(count):
        decided |= 1 << gs[g, F_ORDER + i]
    settled = gs[g, F_SETTLED] | decided
    gs[g, F_SETTLED] = settled
    gs[g, F_DECIDED] = decided
    settle_places(
        n,
        fl[g, L_PLACE : L_PLACE + P],
        gs[g, F_ORDER : F_ORDER + P],
        count,
        ((1 << n) - 1) & ~settled,
        fl[g, L_RET : L_RET + P],
        rew[g],
    )


@njit
def end_game(tb, st, rew, g, reason, seat, instant):
    """The reference's ``_end_game`` and the rewards of its result: score the game, decide
    places, end the episode or deal the next game."""
    cfg, gs, fl = st.cfg, st.gs, st.fl
    n = cfg[C_N]
    nout = gs[g, F_NOUT]
    for s in range(P):
        gs[g, F_POINTS + s] = 0
    for i in range(nout):
        gs[g, F_POINTS + gs[g, F_FINISH + i]] = n - 1 - i
    if instant:
        gs[g, F_POINTS + seat] = n - 1
    for s in range(n):
        gs[g, F_SCORES + s] += gs[g, F_POINTS + s]
    record_result(gs, g, reason, seat, nout)
    gs[g, F_INSTANT_WIN] = instant
    gs[g, F_LIMIT] = 0
    gs[g, F_GAME] += 1
    count = 0
    over = False
    if not cfg[C_MATCH]:
        if instant:
            count = shared_places(fl, gs, g, n, F_POINTS)
        else:
            for i in range(nout):
                s = gs[g, F_FINISH + i]
                if not (gs[g, F_SETTLED] >> s) & 1:
                    fl[g, L_PLACE + s] = i + 1.0
                    gs[g, F_ORDER + count] = s
                    count += 1
        over = True
    else:
        top = gs[g, F_SCORES]
        for s in range(1, n):
            top = max(top, gs[g, F_SCORES + s])
        leaders = 0
        for s in range(n):
            if gs[g, F_SCORES + s] == top:
                leaders += 1
        won = top >= cfg[C_TARGET] and leaders == 1
        limit = gs[g, F_GAME] >= cfg[C_MAX_GAMES]
        if won or limit:
            count = shared_places(fl, gs, g, n, F_SCORES)
            over = True
            gs[g, F_LIMIT] = limit and not won
    gs[g, F_MATCH_OVER] = over
    settle(st, rew, g, count)
    if over:
        gs[g, F_PHASE] = OVER
        gs[g, F_OVER] = 1
        st.bits[g, B_SEL] = 0
        gs[g, F_SEL_K] = 0
        return reason
    start_game(tb, st, g, gs[g, F_FINISH])
    return reason


#: What :func:`move` leaves to do: nothing, a player's last card played, an instant win.
MOVED, WENT_OUT, DECLARING = -1, -2, -3


@njit(inline=True)
def move(tb, st, g, a):
    """The everyday part of ``apply``: select a card, pass, or play a combination that
    leaves cards in hand. Returns ``MOVED``, or what is left to do (``WENT_OUT``,
    ``DECLARING``): kept out of this small function so that its callers stay fast."""
    gs, bits = st.gs, st.bits
    seat = gs[g, F_CURRENT]
    if gs[g, F_PHASE] == DECLARE:
        return DECLARING
    if a < NUM_CARD_ACTIONS:
        bits[g, B_SEL] |= ONE << a
        if gs[g, F_SEL_K] == 0:
            gs[g, F_SEL_FIRST] = a
        gs[g, F_SEL_MAX] = a
        gs[g, F_SEL_K] += 1
        return MOVED
    if a == PASS:
        gs[g, F_PASSED] |= 1 << seat
        advance(st, g, seat)
        return MOVED
    sel = bits[g, B_SEL]
    k = gs[g, F_SEL_K]
    top = gs[g, F_SEL_MAX]
    hand = bits[g, B_HAND + seat] & ~sel
    bits[g, B_HAND + seat] = hand
    bits[g, B_TABLE] = sel
    bits[g, B_PLAYED] |= sel
    gs[g, F_TABLE_KS] = tb.ks_of[k, (top >> 2) - (gs[g, F_SEL_FIRST] >> 2)]
    gs[g, F_TABLE_TOP] = top
    gs[g, F_TABLE_BY] = seat
    gs[g, F_OPENING] = -1
    bits[g, B_SEL] = 0
    gs[g, F_SEL_K] = 0
    gs[g, F_SEL_FIRST] = -1
    gs[g, F_SEL_MAX] = -1
    if hand != 0:
        advance(st, g, seat)
        return MOVED
    return WENT_OUT


@njit
def declare(tb, st, rew, g):
    """The player to act declares their instant win: the game ends."""
    gs, bits = st.gs, st.bits
    seat = gs[g, F_CURRENT]
    kind = instant_win(tb, bits[g, B_HAND + seat])
    bits[g, B_PLAYED] |= bits[g, B_HAND + seat]
    bits[g, B_HAND + seat] = 0
    gs[g, F_FINISH] = seat
    gs[g, F_NOUT] = 1
    return end_game(tb, st, rew, g, R_INSTANT, seat, kind)


@njit
def went_out(tb, st, rew, g):
    """The player to act has just played their last card: a result (they are out, or the
    game is over)."""
    cfg, gs, bits = st.cfg, st.gs, st.bits
    seat = gs[g, F_CURRENT]
    n = cfg[C_N]
    nout = gs[g, F_NOUT]
    gs[g, F_FINISH + nout] = seat
    nout += 1
    gs[g, F_NOUT] = nout
    holders = 0
    last = -1
    for s in range(n):
        if bits[g, B_HAND + s] != 0:
            holders += 1
            last = s
    if holders == 1:
        gs[g, F_FINISH + nout] = last
        gs[g, F_NOUT] = nout + 1
        return end_game(tb, st, rew, g, R_GAME_OVER, seat, 0)
    record_result(gs, g, R_OUT, seat, nout)
    gs[g, F_MATCH_OVER] = 0
    gs[g, F_LIMIT] = 0
    gs[g, F_INSTANT_WIN] = 0
    gs[g, F_DECIDED] = 0
    if not cfg[C_MATCH]:
        st.fl[g, L_PLACE + seat] = float(nout)
        gs[g, F_ORDER] = seat
        settle(st, rew, g, 1)
    if cfg[C_OUT_CLEARS]:
        clear_table(st, g, next_holder(st, g, n, seat))
    else:
        advance(st, g, seat)
    return R_OUT


@njit(inline=True)
def apply(tb, st, rew, g, a):
    """Take legal action ``a`` for the player to act in game ``g``; the rewards go to
    ``rew[g]`` (left as they are when nothing is decided). Returns the reason of the
    result the move gave (``R_*``), or -1 (the reference's ``apply``)."""
    done = move(tb, st, g, a)
    if done == WENT_OUT:
        return went_out(tb, st, rew, g)
    if done == DECLARING:
        return declare(tb, st, rew, g)
    return -1


@njit(inline=True)
def refresh_legal(tb, st, g):
    """Recompute and store the legal actions of game ``g`` (after a move or a deal)."""
    st.bits[g, B_LEGAL] = legal_bits(tb, st, g)


@njit(inline=True)
def is_legal(st, g, a):
    """Whether ``a`` is a legal action now in game ``g``."""
    if a < 0 or a >= NUM_ACTIONS:
        return False
    return ((st.bits[g, B_LEGAL] >> a) & 1) != 0
