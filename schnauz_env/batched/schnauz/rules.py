"""Schnauz rules on the arrays of :mod:`~schnauz_env.batched.schnauz.state`: deal, move, showdown.

The batched twin of :mod:`schnauz_env.schnauz.engine` (the reference), one game ``g``
at a time, written in the Python numba compiles. It follows the reference line by
line, and ``tests/test_batched_differential.py`` replays the same seeds and actions
through both on over 100,000 games. Every rule fact is imported from the rules
floor: the knock rule (:func:`~schnauz_env.schnauz.engine.may_knock`), action ids and
phases, the hand-key layout (hand strengths come from the key table, filled with
:func:`~schnauz_env.schnauz.hands.hand_key`) and what places pay
(:mod:`schnauz_env.common.places`).

The helpers take the arrays of :class:`~schnauz_env.batched.schnauz.state.State` they
use, by position, as unmanaged views (the kernels re-view the ``State`` they take with
:func:`~schnauz_env.batched.jit.unmanaged_fields`; no reference counting,
which would cost more than a move); small ones are inlined into their callers. (Handing
them one ``State`` tuple instead read better but measured slower, 5-15 % of the agent
steps per CPU second on this machine, so the arrays stay separate.)
"""

from __future__ import annotations

import numpy as np

from schnauz_env.batched.common import (
    draw_permutation,
    first_dealer,
    next_seat,
    popcount,
    rand32,
    set_fields,
    shuffle_forward,
    start_lives,
)
from schnauz_env.batched.jit import njit
from schnauz_env.batched.schnauz.state import (
    C_EXTERNAL,
    C_FIRE_ALL,
    C_FIRST_DEALER,
    C_KNOCK_FIRST,
    C_LIVES,
    C_MAX_TURNS,
    C_N,
    C_NC,
    C_RECYCLE,
    C_ROUND_DECKS,
    C_ROUND_EP,
    ERR_NO_DECK,
    ERR_NO_REPLAY_DECK,
    F_CURRENT,
    F_DEALER,
    F_ERROR,
    F_FINAL_LEFT,
    F_FIRE,
    F_KEYS,
    F_KNOCKER,
    F_LIVES,
    F_LOSERS,
    F_MAX_LIVES,
    F_NACTIVE,
    F_OOP_LEN,
    F_OUT,
    F_OVER,
    F_PASSES,
    F_PERM_PTR,
    F_PHASE,
    F_POS,
    F_REASON,
    F_REND,
    F_REPLAYS,
    F_RES_KNOCKER,
    F_ROUND,
    F_RPTR,
    F_SHUF,
    F_STOCK_LEN,
    F_TURNS,
    F_WENT_OUT,
    L_PLACE,
    L_RET,
    MAXP,
    O_HANDS,
    O_OOP,
    O_STOCK,
    O_TABLE,
    R_INSTANT,
    R_KNOCK,
    R_SHORT_STOCK,
    R_TURN_LIMIT,
    RNG_DEAL,
    RNG_PLAY,
    RNG_ROUND,
)
from schnauz_env.common.places import settle_places, shared_place, single_round_reward
from schnauz_env.schnauz.engine import (
    DEALER_CHOICE,
    EXCHANGE,
    FINAL_CIRCLE,
    KEEP,
    KNOCK,
    OVER,
    PASS,
    SWAP_ALL,
    SWAP_BASE,
    TURNS,
    may_knock,
    swap_slots,
)
from schnauz_env.schnauz.hands import FIRE_KEY, INSTANT_KEY

# The rules floor's plain functions, compiled: the knock rule, the swap slots and the
# settlement of places are inlined into the kernels (njit of the same function objects;
# settling through a call, on slices bounded at both ends, cost some 5 % of the agent
# steps of random play); the other reward functions of common.places are called by name
# (made callable by batched.common).
knock_rule = njit(may_knock, inline=True)
slots_of = njit(swap_slots, inline=True)
settle = njit(settle_places, inline=True)


# ------------------------------------------------------------------ small helpers
@njit(inline=True)
def knock_ok(cfg, gs, g):
    """The reference's knock rule (:func:`~schnauz_env.schnauz.engine.may_knock`) in game ``g``."""
    return knock_rule(gs[g, F_PHASE], cfg[C_KNOCK_FIRST] != 0, gs[g, F_TURNS], gs[g, F_NACTIVE])


@njit(inline=True)
def next_active(gs, g, n, seat):
    """The next seat to the left of ``seat`` still in the game."""
    s = next_seat(seat, n)
    while gs[g, F_OUT + s]:
        s = next_seat(s, n)
    return s


@njit(inline=True)
def sort3(cards, g, off):
    """Sort the three cards at ``cards[g, off:off + 3]`` (hands and the table stay sorted)."""
    a = cards[g, off]
    b = cards[g, off + 1]
    c = cards[g, off + 2]
    if a > b:
        a, b = b, a
    if b > c:
        b, c = c, b
    if a > b:
        a, b = b, a
    cards[g, off] = a
    cards[g, off + 1] = b
    cards[g, off + 2] = c


@njit(inline=True)
def key3(keys, cards, g, off):
    """Hand key of the (sorted) three cards at ``cards[g, off:off + 3]``."""
    return keys[int(cards[g, off]), int(cards[g, off + 1]), int(cards[g, off + 2])]


# ------------------------------------------------------------------------ dealing
@njit
def draw_perm(cfg, gs, rng, perms, g, buf, row, off, replay):
    """Write the next deck of game ``g`` into ``buf[row, off:off + nc]``.

    External mode takes the next stored permutation: a round deck (what
    ``rng.permutation(nc)`` returned in the reference) or, for a ``replay`` deal,
    the next queued replay deck. Otherwise a replay deck is shuffled from the play
    generator, and a round deck is laid out in order, to be shuffled as it is dealt
    (:func:`stock_ready`) by a generator seeded from the deal generator.
    """
    nc = cfg[C_NC]
    if cfg[C_EXTERNAL]:
        if replay:
            ptr, end, field, err = gs[g, F_RPTR], gs[g, F_REND], F_RPTR, ERR_NO_REPLAY_DECK
        else:
            ptr, end, field, err = gs[g, F_PERM_PTR], cfg[C_ROUND_DECKS], F_PERM_PTR, ERR_NO_DECK
            gs[g, F_SHUF] = nc  # already shuffled
        if ptr >= end:
            gs[g, F_ERROR] = err
            ptr = 0
        for i in range(nc):
            buf[row, off + i] = perms[g, ptr, i]
        gs[g, field] = ptr + 1
    elif replay:
        draw_permutation(buf, row, off, nc, rng, g, RNG_PLAY)
    else:
        for i in range(nc):
            buf[row, off + i] = i
        rng[g, RNG_ROUND] = rand32(rng, g, RNG_DEAL)
        gs[g, F_SHUF] = 0


@njit(inline=True)
def stock_ready(cfg, gs, cards, rng, g, upto):
    """Finish the shuffle of the stock up to position ``upto`` (forward Fisher-Yates).

    Position i takes a uniform card among positions i..N-1, so dealing from a
    lazily shuffled stock is dealing from a shuffled deck; only the cards a round
    uses cost random numbers.
    """
    start = gs[g, F_SHUF]
    if upto > start:
        shuffle_forward(cards, g, O_STOCK, cfg[C_NC], start, upto, rng, g, RNG_ROUND)
        gs[g, F_SHUF] = upto


@njit
def start_round(cfg, gs, cards, known, rng, perms, g):
    """The reference's ``_start_round``: shuffle, deal three to each, dealer to choose."""
    n = cfg[C_N]
    draw_perm(cfg, gs, rng, perms, g, cards, g, O_STOCK, False)
    gs[g, F_STOCK_LEN] = cfg[C_NC]
    stock_ready(cfg, gs, cards, rng, g, 3 * gs[g, F_NACTIVE])
    dealer = gs[g, F_DEALER]
    seat = dealer
    pos = 0
    for _ in range(gs[g, F_NACTIVE]):
        seat = next_active(gs, g, n, seat)
        h = O_HANDS + 3 * seat
        for i in range(3):
            cards[g, h + i] = cards[g, O_STOCK + pos + i]
        sort3(cards, g, h)
        pos += 3
    for s in range(n):
        if gs[g, F_OUT + s]:
            for i in range(3):
                cards[g, O_HANDS + 3 * s + i] = -1
        known[g, s] = 0
    for i in range(3):
        cards[g, O_TABLE + i] = -1
    gs[g, F_POS] = pos
    gs[g, F_OOP_LEN] = 0
    gs[g, F_KNOCKER] = -1
    gs[g, F_PASSES] = 0
    gs[g, F_TURNS] = 0
    gs[g, F_FINAL_LEFT] = 0
    gs[g, F_PHASE] = DEALER_CHOICE
    gs[g, F_CURRENT] = dealer


@njit
def new_game(cfg, gs, cards, known, fl, rng, perms, g, dealer, lives):
    """The reference's ``new_game``: everyone in with ``lives`` (or the config's), deal.

    ``dealer`` < 0 means the config's first dealer, or a draw from the game's
    generator; ``lives`` is a (6,) row, or has a negative first entry for the config's.
    """
    n = cfg[C_N]
    for s in range(MAXP):
        gs[g, F_LIVES + s] = 0
        gs[g, F_OUT + s] = 0
        fl[g, L_RET + s] = 0.0
        fl[g, L_PLACE + s] = 0.0
        known[g, s] = 0
        for i in range(3):
            cards[g, O_HANDS + 3 * s + i] = -1
    start_lives(gs, g, n, lives, cfg[C_LIVES], F_LIVES, F_MAX_LIVES)
    gs[g, F_DEALER] = first_dealer(dealer, cfg[C_FIRST_DEALER], rng, g, RNG_DEAL, n)
    gs[g, F_NACTIVE] = n
    zeros = (F_ROUND, F_OVER, F_PERM_PTR, F_RPTR, F_REND, F_ERROR, F_LOSERS, F_WENT_OUT, F_REPLAYS)
    set_fields(gs, g, zeros, 0)
    set_fields(gs, g, (F_REASON, F_RES_KNOCKER, F_FIRE), -1)
    start_round(cfg, gs, cards, known, rng, perms, g)


# ---------------------------------------------------------------------- showdown
@njit(allocates=True)
def replay(cfg, keys, gs, rng, perms, g, seats_mask):
    """Showdown-only deals among ``seats_mask`` until one hand is strictly lowest."""
    nc = cfg[C_NC]
    n = cfg[C_N]
    buf = np.empty((1, nc), dtype=np.int8)
    while True:
        draw_perm(cfg, gs, rng, perms, g, buf, 0, 0, True)
        gs[g, F_REPLAYS] += 1
        low = 1 << 30
        count = 0
        lowest = -1
        k = 0
        for s in range(n):
            if (seats_mask >> s) & 1:
                sort3(buf, 0, 3 * k)
                key = key3(keys, buf, 0, 3 * k)
                k += 1
                if key < low:
                    low = key
                    count = 1
                    lowest = s
                elif key == low:
                    count += 1
        if count == 1 or gs[g, F_ERROR]:  # (a missing external deck ends the loop)
            return lowest


@njit
def showdown(cfg, keys, gs, cards, known, fl, rng, perms, rew, g, reason):
    """The reference's ``_showdown`` plus the AEC env's ``_settle`` (rewards in ``rew[g]``)."""
    n = cfg[C_N]
    active = 0
    m = 0
    low = 1 << 30
    fire = -1
    for s in range(n):
        if not gs[g, F_OUT + s]:
            active |= 1 << s
            m += 1
            key = key3(keys, cards, g, O_HANDS + 3 * s)
            gs[g, F_KEYS + s] = key
            if key < low:
                low = key
            if fire < 0 and key >= FIRE_KEY:
                fire = s
    losers = 0
    if cfg[C_FIRE_ALL] and fire >= 0:
        losers = active & ~(1 << fire)
    else:
        for s in range(n):
            if (active >> s) & 1 and gs[g, F_KEYS + s] == low:
                losers |= 1 << s
    going = 0
    for s in range(n):
        if (losers >> s) & 1 and gs[g, F_LIVES + s] == 0:
            going |= 1 << s
    if going == active:
        going = 1 << replay(cfg, keys, gs, rng, perms, g, going)
        losers = going
    for s in range(n):
        if (losers >> s) & 1 and gs[g, F_LIVES + s] > 0:
            gs[g, F_LIVES + s] -= 1
    k = popcount(going)
    shared = shared_place(m, k)
    for s in range(n):
        if (going >> s) & 1:
            gs[g, F_OUT + s] = 1
            fl[g, L_PLACE + s] = shared
            gs[g, F_NACTIVE] -= 1
    winner = -1
    if gs[g, F_NACTIVE] == 1:
        for s in range(n):
            if not gs[g, F_OUT + s]:
                winner = s
                fl[g, L_PLACE + s] = 1.0
    gs[g, F_REASON] = reason
    gs[g, F_LOSERS] = losers
    gs[g, F_WENT_OUT] = going
    gs[g, F_RES_KNOCKER] = gs[g, F_KNOCKER]
    gs[g, F_FIRE] = fire
    gs[g, F_ROUND] += 1
    # --- rewards: CardGameEnv._settle / round_rewards, with the same functions
    for s in range(n):
        rew[g, s] = 0.0
    if cfg[C_ROUND_EP]:
        nl = popcount(losers)
        for s in range(n):
            if (active >> s) & 1:
                rew[g, s] = single_round_reward((losers >> s) & 1 != 0, nl, m)
    else:
        # the seats decided, in the reference's order (those going out, then the winner)
        count = 0
        for s in range(n):
            if (going >> s) & 1:
                gs[g, F_KEYS + count] = s
                count += 1
        if winner >= 0:
            gs[g, F_KEYS + count] = winner
            count += 1
        settle(
            n,
            fl[g, L_PLACE:],
            gs[g, F_KEYS:],
            count,
            0 if winner >= 0 else active & ~going,
            fl[g, L_RET:],
            rew[g],
        )
    if winner >= 0 or cfg[C_ROUND_EP]:
        gs[g, F_PHASE] = OVER
        gs[g, F_OVER] = 1
        return
    gs[g, F_DEALER] = next_active(gs, g, n, gs[g, F_DEALER])
    start_round(cfg, gs, cards, known, rng, perms, g)


# -------------------------------------------------------------------- transitions
@njit(inline=True)
def is_legal(cfg, gs, g, a):
    """Action ``a`` (0..13) is legal for the player to act in game ``g``."""
    phase = gs[g, F_PHASE]
    if phase == TURNS:
        if a == KNOCK:
            return knock_ok(cfg, gs, g)
        return SWAP_BASE <= a <= PASS
    if phase == FINAL_CIRCLE:
        return SWAP_BASE <= a <= PASS
    if phase == DEALER_CHOICE:
        return a <= EXCHANGE  # a is 0..13 here
    return False


@njit(inline=True)
def apply(cfg, keys, gs, cards, known, rng, g, a):
    """The reference's ``apply`` for a legal ``a``, up to a showdown.

    Returns the reason code of the showdown the move calls for (the caller runs
    :func:`showdown`), or -1.
    """
    n = cfg[C_N]
    seat = gs[g, F_CURRENT]
    h = O_HANDS + 3 * seat
    if gs[g, F_PHASE] == DEALER_CHOICE:
        pos = gs[g, F_POS]
        stock_ready(cfg, gs, cards, rng, g, pos + 3)
        if a == KEEP:
            for i in range(3):
                cards[g, O_TABLE + i] = cards[g, O_STOCK + pos + i]
            sort3(cards, g, O_TABLE)
        else:
            for i in range(3):
                cards[g, O_TABLE + i] = cards[g, h + i]
                cards[g, h + i] = cards[g, O_STOCK + pos + i]
            sort3(cards, g, h)
        gs[g, F_POS] = pos + 3
        for s in range(n):
            if not gs[g, F_OUT + s] and key3(keys, cards, g, O_HANDS + 3 * s) >= INSTANT_KEY:
                return R_INSTANT
        gs[g, F_PHASE] = TURNS
        gs[g, F_CURRENT] = next_active(gs, g, n, seat)
        return -1
    if a < SWAP_ALL:
        i, j = slots_of(a)
        given = cards[g, h + i]
        taken = cards[g, O_TABLE + j]
        cards[g, h + i] = taken
        cards[g, O_TABLE + j] = given
        sort3(cards, g, h)
        sort3(cards, g, O_TABLE)
        known[g, seat] = (known[g, seat] & ~(np.int64(1) << int(given))) | (
            np.int64(1) << int(taken)
        )
        gs[g, F_PASSES] = 0
        if key3(keys, cards, g, h) >= INSTANT_KEY:
            return R_INSTANT
    elif a == SWAP_ALL:
        bits = np.int64(0)
        for i in range(3):
            t = cards[g, O_TABLE + i]
            cards[g, O_TABLE + i] = cards[g, h + i]
            cards[g, h + i] = t
            bits |= np.int64(1) << int(t)
        known[g, seat] = bits
        gs[g, F_PASSES] = 0
        if key3(keys, cards, g, h) >= INSTANT_KEY:
            return R_INSTANT
    elif a == KNOCK:  # counts as a turn: the knocker's own, then one each for the others
        gs[g, F_KNOCKER] = seat
        gs[g, F_PHASE] = FINAL_CIRCLE
        gs[g, F_FINAL_LEFT] = gs[g, F_NACTIVE]
        gs[g, F_PASSES] = 0
    elif gs[g, F_PHASE] == TURNS:  # a pass before any knock
        gs[g, F_PASSES] += 1
        if gs[g, F_PASSES] == gs[g, F_NACTIVE] and all_passed(cfg, gs, cards, rng, g):
            return R_SHORT_STOCK
    gs[g, F_TURNS] += 1
    if gs[g, F_PHASE] == FINAL_CIRCLE:
        gs[g, F_FINAL_LEFT] -= 1
        if gs[g, F_FINAL_LEFT] == 0:
            return R_KNOCK
    if gs[g, F_TURNS] >= cfg[C_MAX_TURNS]:
        return R_TURN_LIMIT
    gs[g, F_CURRENT] = next_active(gs, g, n, seat)
    return -1


@njit(inline=True)
def all_passed(cfg, gs, cards, rng, g):
    """A full circle of passes: refresh the table; True if the stock is too short."""
    gs[g, F_PASSES] = 0
    pos = gs[g, F_POS]
    size = gs[g, F_STOCK_LEN] - pos
    oop = gs[g, F_OOP_LEN]
    if size < 3 and cfg[C_RECYCLE] and oop > 0:
        # the out-of-play cards go under the stock, in the order they left
        stock_ready(cfg, gs, cards, rng, g, gs[g, F_STOCK_LEN])
        for i in range(size):
            cards[g, O_STOCK + i] = cards[g, O_STOCK + pos + i]
        for i in range(oop):
            cards[g, O_STOCK + size + i] = cards[g, O_OOP + i]
        pos = 0
        size += oop
        gs[g, F_POS] = 0
        gs[g, F_STOCK_LEN] = size
        gs[g, F_OOP_LEN] = 0
        gs[g, F_SHUF] = size
        oop = 0
    if size < 3:
        return True
    stock_ready(cfg, gs, cards, rng, g, pos + 3)
    for i in range(3):
        cards[g, O_OOP + oop + i] = cards[g, O_TABLE + i]
        cards[g, O_TABLE + i] = cards[g, O_STOCK + pos + i]
    sort3(cards, g, O_TABLE)
    gs[g, F_OOP_LEN] = oop + 3
    gs[g, F_POS] = pos + 3
    return False


@njit(inline=True)
def play(cfg, keys, gs, cards, known, fl, rng, perms, rew, g, a):
    """Play legal action ``a`` in game ``g``, showdown included; 1 if a round ended."""
    reason = apply(cfg, keys, gs, cards, known, rng, g, a)
    if reason < 0:
        return 0
    showdown(cfg, keys, gs, cards, known, fl, rng, perms, rew, g, reason)
    return 1
