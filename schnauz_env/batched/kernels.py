"""Schnauz rules as array kernels: one game per row, numba-compiled when available.

This is the batched twin of :mod:`schnauz_env.schnauz.engine` (the reference) and
:mod:`schnauz_env.schnauz.observation`. It follows the reference line by line, and
``tests/test_batched_differential.py`` replays the same seeds and actions through
both on over 100,000 games, demanding identical masks, rewards, results, ends and
observations. Hand strengths are not re-implemented: the key table is filled from
:func:`schnauz_env.schnauz.hands.hand_key`.

State of B games (all rows C-contiguous, one row per game):

==========  ===============  =========================================================
array       shape / dtype    contents
==========  ===============  =========================================================
``gs``      (B, NF) int32    the scalar fields ``F_*`` below, lives and out per seat
``cards``   (B, CW) int8     hands (6 x 3), table (3), stock, out-of-play; local card
                             ids ``card - 4 * lowest rank`` (the observation column),
                             -1 for an empty slot
``known``   (B, 6) int64     per seat: bitmask of the cards it took and still holds
``fl``      (B, 12) float64  per seat: reward paid so far (the AEC ``_returns``) and
                             final place (0 = not decided)
``rng``     (B, 3) int64     per game, three xorshift32 states (``RNG_*``): deal,
                             round shuffle, play (the fast path's own randomness)
``perms``   (B, K, N) int8   external mode: the decks a seeded ``numpy.random.Generator``
                             draws in the reference, consumed in order by the rounds
                             (``[:, :C_ROUND_DECKS]``), then queued replay decks
==========  ===============  =========================================================

``cfg`` is an int64 vector of the rules (``C_*``). Kernels named ``k_*`` loop over
games; the rest act on one game ``g``. Kernels re-view their array arguments with
:func:`~schnauz_env.batched.jit.unmanaged` on entry, so the helpers they call do
no reference counting (which would cost more than a move); small helpers are
inlined into the kernels.
"""

from __future__ import annotations

import numpy as np

from schnauz_env.batched.common import (
    draw_permutation,
    popcount,
    rand32,
    rand_below,
    shuffle_forward,
    unmanaged,
)
from schnauz_env.batched.jit import njit

# --- actions and phases (the reference's values) -------------------------------
KEEP, EXCHANGE, SWAP_BASE, SWAP_ALL, PASS, KNOCK = 0, 1, 2, 11, 12, 13
NUM_ACTIONS = 14
DEALER_CHOICE, TURNS, FINAL_CIRCLE, OVER = 0, 1, 2, 3
#: Round-end reasons, in the order of :data:`REASONS`.
R_KNOCK, R_INSTANT, R_SHORT_STOCK, R_TURN_LIMIT = 0, 1, 2, 3
REASONS = ("knock", "instant", "short_stock", "turn_limit")
INSTANT_KEY = 2 << 20  # hand keys at or above this are Schnauz or Fire

# --- cfg fields --------------------------------------------------------------------
C_N, C_NC, C_LIVES, C_KNOCK_FIRST, C_RECYCLE, C_FIRE_ALL, C_MAX_TURNS = 0, 1, 2, 3, 4, 5, 6
C_ROUND_EP, C_FIRST_DEALER, C_EXTERNAL, C_KEEP_KEY, C_KNOCK_KEY = 7, 8, 9, 10, 11
C_ROUND_DECKS = 12  # external mode: perms[:, :C_ROUND_DECKS] are round decks, the rest replays
NCFG = 13

# --- gs fields ---------------------------------------------------------------------
F_DEALER, F_CURRENT, F_PHASE, F_KNOCKER, F_PASSES, F_TURNS, F_FINAL_LEFT = 0, 1, 2, 3, 4, 5, 6
F_ROUND, F_OVER, F_NACTIVE, F_POS, F_STOCK_LEN, F_OOP_LEN, F_PERM_PTR = 7, 8, 9, 10, 11, 12, 13
F_ERROR, F_REASON, F_LOSERS, F_WENT_OUT = 14, 15, 16, 17
F_RES_KNOCKER, F_FIRE, F_REPLAYS, F_MAX_LIVES, F_RPTR, F_REND = 18, 19, 20, 21, 22, 23
F_LIVES = 24  # 6 seats
F_OUT = 30  # 6 seats
F_SHUF = 36  # stock positions shuffled so far (the shuffle is finished lazily)
F_KEYS = 40  # 6 seats: hand keys, scratch of the showdown
NF = 48
#: Error codes in ``gs[:, F_ERROR]``.
ERR_ILLEGAL, ERR_NO_DECK, ERR_NO_REPLAY_DECK = 1, 2, 3
#: The generators of a game (columns of ``rng``): the deal (the first dealer and
#: one seed per round, so a seed fixes every round's deck whatever the players do),
#: the round's shuffle (seeded from the deal, drawn as cards are dealt), and play
#: (replay deals, random actions, the learner's seat).
RNG_DEAL, RNG_ROUND, RNG_PLAY = 0, 1, 2
NRNG = 3

# --- cards layout ------------------------------------------------------------------
O_HANDS, O_TABLE, O_STOCK, O_OOP = 0, 18, 21, 61
CW = 104
MAXP = 6

# --- fl layout ---------------------------------------------------------------------
L_RET, L_PLACE = 0, 6

# --- observation layout (ObservationLayout's blocks for deck size nc) ----------------
SEAT_FEATURES = 4


# ------------------------------------------------------------------ small helpers
@njit(inline=True)
def next_active(gs, g, n, seat):
    s = seat + 1
    if s >= n:
        s = 0
    while gs[g, F_OUT + s]:
        s += 1
        if s >= n:
            s = 0
    return s


@njit(inline=True)
def sort3(cards, g, off):
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
    most = cfg[C_LIVES]
    for s in range(n):
        gs[g, F_LIVES + s] = lives[s] if lives[0] >= 0 else cfg[C_LIVES]
        most = max(most, gs[g, F_LIVES + s])
    gs[g, F_MAX_LIVES] = most
    if dealer < 0:
        dealer = cfg[C_FIRST_DEALER]
        if dealer < 0:
            dealer = rand_below(rng, g, RNG_DEAL, n)
    gs[g, F_DEALER] = dealer
    gs[g, F_ROUND] = 0
    gs[g, F_OVER] = 0
    gs[g, F_NACTIVE] = n
    gs[g, F_PERM_PTR] = 0
    gs[g, F_RPTR] = 0
    gs[g, F_REND] = 0
    gs[g, F_ERROR] = 0
    gs[g, F_REASON] = -1
    gs[g, F_LOSERS] = 0
    gs[g, F_WENT_OUT] = 0
    gs[g, F_RES_KNOCKER] = -1
    gs[g, F_FIRE] = -1
    gs[g, F_REPLAYS] = 0
    start_round(cfg, gs, cards, known, rng, perms, g)


# ---------------------------------------------------------------------- showdown
@njit
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


@njit(inline=True)
def place_value(place, n):
    return 1.0 - 2.0 * (place - 1.0) / (n - 1)


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
            if fire < 0 and key >= (3 << 20):
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
    shared = m - (k - 1) / 2.0
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
    # --- rewards: CardGameEnv._settle / round_rewards, same order of float operations
    for s in range(n):
        rew[g, s] = 0.0
    if cfg[C_ROUND_EP]:
        nl = popcount(losers)
        if 0 < nl < m:
            gain = nl / (m - nl)
            for s in range(n):
                if (active >> s) & 1:
                    rew[g, s] = -1.0 if (losers >> s) & 1 else gain
    else:
        total = 0.0
        decided = 0
        for s in range(n):
            if (going >> s) & 1:
                d = place_value(shared, n) - fl[g, L_RET + s]
                rew[g, s] = d
                total += d
                decided += 1
        if winner >= 0:
            d = place_value(1.0, n) - fl[g, L_RET + winner]
            rew[g, winner] = d
            total += d
            decided += 1
        playing = gs[g, F_NACTIVE] if winner < 0 else 0
        if decided > 0 and playing > 0:
            share = -total / playing
            for s in range(n):
                if not gs[g, F_OUT + s]:
                    rew[g, s] = share
        for s in range(n):
            fl[g, L_RET + s] += rew[g, s]
    if winner >= 0 or cfg[C_ROUND_EP]:
        gs[g, F_PHASE] = OVER
        gs[g, F_OVER] = 1
        return
    gs[g, F_DEALER] = next_active(gs, g, n, gs[g, F_DEALER])
    start_round(cfg, gs, cards, known, rng, perms, g)


# -------------------------------------------------------------------- transitions
def swap_action(hand_slot: int, table_slot: int) -> int:
    """The action swapping hand slot ``hand_slot`` with table slot ``table_slot``."""
    return SWAP_BASE + 3 * hand_slot + table_slot


@njit(inline=True)
def is_legal(cfg, gs, g, a):
    phase = gs[g, F_PHASE]
    if phase == TURNS:
        if a == KNOCK:
            return cfg[C_KNOCK_FIRST] != 0 or gs[g, F_TURNS] >= gs[g, F_NACTIVE]
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
        i = (a - SWAP_BASE) // 3
        j = (a - SWAP_BASE) - 3 * i
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


# ------------------------------------------------------------ masks and observations
@njit(inline=True)
def write_mask(cfg, gs, mask, g):
    phase = gs[g, F_PHASE]
    for a in range(NUM_ACTIONS):
        mask[g, a] = 0
    if phase == DEALER_CHOICE:
        mask[g, KEEP] = 1
        mask[g, EXCHANGE] = 1
    elif phase == TURNS or phase == FINAL_CIRCLE:  # noqa: SIM109
        for a in range(SWAP_BASE, PASS + 1):
            mask[g, a] = 1
        if phase == TURNS and (cfg[C_KNOCK_FIRST] != 0 or gs[g, F_TURNS] >= gs[g, F_NACTIVE]):
            mask[g, KNOCK] = 1


@njit
def encode(cfg, gs, cards, known, g, seat, obs, row):
    """``ObservationEncoder.encode(state, seat)`` into ``obs[row]`` (same float32 values)."""
    n = cfg[C_N]
    nc = cfg[C_NC]
    o_table = 3 * nc
    o_oop = 6 * nc
    o_known = 7 * nc
    o_seats = 12 * nc
    o_dealer = o_seats + MAXP * SEAT_FEATURES
    o_knocker = o_dealer + MAXP
    o_to_act = o_knocker + MAXP
    o_phase = o_to_act + MAXP
    o_passes = o_phase + 3
    o_stock = o_passes + MAXP
    for i in range(o_stock + 1):
        obs[row, i] = 0.0
    h = O_HANDS + 3 * seat
    for i in range(3):
        c = int(cards[g, h + i])
        if c >= 0:
            obs[row, i * nc + c] = 1.0
        c = int(cards[g, O_TABLE + i])
        if c >= 0:
            obs[row, o_table + i * nc + c] = 1.0
    for i in range(gs[g, F_OOP_LEN]):
        obs[row, o_oop + int(cards[g, O_OOP + i])] = 1.0
    scale = 1.0 / max(gs[g, F_MAX_LIVES], 1)
    for p in range(n):
        s = seat + p
        if s >= n:
            s -= n
        f = o_seats + p * SEAT_FEATURES
        obs[row, f] = 1.0
        if not gs[g, F_OUT + s]:
            lives = gs[g, F_LIVES + s]
            obs[row, f + 1] = 1.0
            if lives == 0:
                obs[row, f + 2] = 1.0
            obs[row, f + 3] = lives * scale
        if p:
            # what a seat is known to hold is always part of its hand
            bits = known[g, s]
            if bits:
                base = o_known + (p - 1) * nc
                for i in range(3):
                    c = int(cards[g, O_HANDS + 3 * s + i])
                    if c >= 0 and (bits >> c) & 1:
                        obs[row, base + c] = 1.0
    obs[row, o_dealer + rel(gs[g, F_DEALER], seat, n)] = 1.0
    if gs[g, F_KNOCKER] >= 0:
        obs[row, o_knocker + rel(gs[g, F_KNOCKER], seat, n)] = 1.0
    phase = gs[g, F_PHASE]
    if phase != OVER:
        obs[row, o_to_act + rel(gs[g, F_CURRENT], seat, n)] = 1.0
        obs[row, o_phase + phase] = 1.0
    obs[row, o_passes + min(gs[g, F_PASSES], MAXP - 1)] = 1.0
    obs[row, o_stock] = (gs[g, F_STOCK_LEN] - gs[g, F_POS]) / nc


@njit(inline=True)
def rel(s, seat, n):
    """Position of seat ``s`` seen from ``seat``: ``(s - seat) % n``."""
    d = s - seat
    return d + n if d < 0 else d


# ------------------------------------------------------------------ built-in players
@njit(inline=True)
def random_action(cfg, gs, rng, g):
    """A uniformly random legal action (drawn from the game's generator)."""
    phase = gs[g, F_PHASE]
    if phase == DEALER_CHOICE:
        return rand_below(rng, g, RNG_PLAY, 2)
    if phase == TURNS and (cfg[C_KNOCK_FIRST] != 0 or gs[g, F_TURNS] >= gs[g, F_NACTIVE]):
        return SWAP_BASE + rand_below(rng, g, RNG_PLAY, 12)
    if phase == OVER:
        return -1
    return SWAP_BASE + rand_below(rng, g, RNG_PLAY, 11)


@njit(inline=True)
def greedy_action(cfg, keys, gs, cards, g):
    """``policies.schnauz.GreedyPolicy``'s move, for the player to act in game ``g``.

    Dealer's choice: keep a hand worth at least ``keep_points``, else exchange. A
    turn: knock (when allowed) with a hand worth at least ``knock_points``; else the
    first swap, in action order, of those giving the strongest hand, if it beats the
    hand held; else pass. Sees only the seat's own hand and the table.
    """
    phase = gs[g, F_PHASE]
    if phase == OVER:
        return -1
    seat = gs[g, F_CURRENT]
    h = O_HANDS + 3 * seat
    cur = key3(keys, cards, g, h)
    if phase == DEALER_CHOICE:
        return KEEP if cur >= cfg[C_KEEP_KEY] else EXCHANGE
    if (
        phase == TURNS
        and cur >= cfg[C_KNOCK_KEY]
        and (cfg[C_KNOCK_FIRST] != 0 or gs[g, F_TURNS] >= gs[g, F_NACTIVE])
    ):
        return KNOCK
    hand0 = int(cards[g, h])
    hand1 = int(cards[g, h + 1])
    hand2 = int(cards[g, h + 2])
    best = cur
    best_a = PASS
    for i in range(3):
        # slot i leaves; the two kept cards stay in order and t goes where it sorts
        if i == 0:
            a, b = hand1, hand2
        elif i == 1:
            a, b = hand0, hand2
        else:
            a, b = hand0, hand1
        for j in range(3):
            t = int(cards[g, O_TABLE + j])
            if t < a:
                key = keys[t, a, b]
            elif t < b:
                key = keys[a, t, b]
            else:
                key = keys[a, b, t]
            if key > best:
                best = key
                best_a = SWAP_BASE + 3 * i + j
    if key3(keys, cards, g, O_TABLE) > best:
        best_a = SWAP_ALL
    return best_a


# ------------------------------------------------------------------------ kernels
@njit(inline=True)
def unmanaged_state(cfg, keys, gs, cards, known, fl, rng, perms):
    """The eight state arrays every rules kernel takes first, as unmanaged views."""
    return (
        unmanaged(cfg),
        unmanaged(keys),
        unmanaged(gs),
        unmanaged(cards),
        unmanaged(known),
        unmanaged(fl),
        unmanaged(rng),
        unmanaged(perms),
    )


@njit
def k_reset(
    cfg, keys, gs, cards, known, fl, rng, perms, dealers, lives, mask, obs, want_obs, games
):
    """Start a new game in each of ``games``; write its mask (and the dealer's view)."""
    cfg, keys, gs, cards, known, fl, rng, perms = unmanaged_state(
        cfg, keys, gs, cards, known, fl, rng, perms
    )
    dealers = unmanaged(dealers)
    lives = unmanaged(lives)
    mask = unmanaged(mask)
    obs = unmanaged(obs)
    games = unmanaged(games)
    for idx in range(games.shape[0]):
        g = games[idx]
        new_game(cfg, gs, cards, known, fl, rng, perms, g, dealers[g], lives[g])
        write_mask(cfg, gs, mask, g)
        if want_obs:
            encode(cfg, gs, cards, known, g, gs[g, F_CURRENT], obs, g)
    errors = 0
    for idx in range(games.shape[0]):
        if gs[games[idx], F_ERROR]:
            errors += 1
    return errors


@njit
def k_step(
    cfg,
    keys,
    gs,
    cards,
    known,
    fl,
    rng,
    perms,
    actions,
    rew,
    mask,
    obs,
    want_obs,
    auto_reset,
    ended,
    round_over,
    final_places,
    no_lives,
):
    """Play ``actions[g]`` in every unfinished game; write rewards, ends, masks, views.

    Finished games are skipped (or, with ``auto_reset``, restarted at once; their
    final places go to ``final_places``). Returns the number of games with an error
    (illegal action, or external decks exhausted), flagged in ``gs[:, F_ERROR]``.
    """
    cfg, keys, gs, cards, known, fl, rng, perms = unmanaged_state(
        cfg, keys, gs, cards, known, fl, rng, perms
    )
    actions = unmanaged(actions)
    rew = unmanaged(rew)
    mask = unmanaged(mask)
    obs = unmanaged(obs)
    ended = unmanaged(ended)
    round_over = unmanaged(round_over)
    final_places = unmanaged(final_places)
    no_lives = unmanaged(no_lives)
    n = cfg[C_N]
    errors = 0
    for g in range(gs.shape[0]):
        ended[g] = 0
        round_over[g] = 0
        for s in range(n):
            rew[g, s] = 0.0
        if gs[g, F_OVER]:
            continue
        a = actions[g]
        if a < 0 or a >= NUM_ACTIONS or not is_legal(cfg, gs, g, a):
            gs[g, F_ERROR] = ERR_ILLEGAL
            errors += 1
            continue
        round_over[g] = play(cfg, keys, gs, cards, known, fl, rng, perms, rew, g, a)
        if gs[g, F_OVER]:
            ended[g] = 1
            if auto_reset:
                for s in range(n):
                    final_places[g, s] = fl[g, L_PLACE + s]
                new_game(cfg, gs, cards, known, fl, rng, perms, g, -1, no_lives)
        write_mask(cfg, gs, mask, g)
        if want_obs:
            encode(cfg, gs, cards, known, g, gs[g, F_CURRENT], obs, g)
        if gs[g, F_ERROR]:
            errors += 1
    return errors


@njit
def k_observe(cfg, gs, cards, known, games, seats, obs):
    """The view of ``seats[i]`` in game ``games[i]``, into ``obs[i]``."""
    cfg = unmanaged(cfg)
    gs = unmanaged(gs)
    cards = unmanaged(cards)
    known = unmanaged(known)
    games = unmanaged(games)
    seats = unmanaged(seats)
    obs = unmanaged(obs)
    for i in range(games.shape[0]):
        encode(cfg, gs, cards, known, games[i], seats[i], obs, i)


@njit
def k_random_actions(cfg, gs, rng, out):
    cfg = unmanaged(cfg)
    gs = unmanaged(gs)
    rng = unmanaged(rng)
    out = unmanaged(out)
    for g in range(gs.shape[0]):
        out[g] = random_action(cfg, gs, rng, g)


@njit
def k_greedy_actions(cfg, keys, gs, cards, out):
    cfg = unmanaged(cfg)
    gs = unmanaged(gs)
    cards = unmanaged(cards)
    out = unmanaged(out)
    for g in range(gs.shape[0]):
        out[g] = greedy_action(cfg, keys, gs, cards, g)


@njit
def k_play_random(cfg, keys, gs, cards, known, fl, rng, perms, rew, obs, steps, want_obs):
    """``steps`` agent-steps of random legal play in every game, auto-resetting.

    Returns the number of agent-steps taken (a benchmark of the bare engine: the same
    ``apply`` / ``encode`` as :func:`k_step`, with actions drawn inside the loop).
    """
    cfg, keys, gs, cards, known, fl, rng, perms = unmanaged_state(
        cfg, keys, gs, cards, known, fl, rng, perms
    )
    rew = unmanaged(rew)
    obs = unmanaged(obs)
    total = 0
    no_lives = np.full(MAXP, -1, dtype=np.int32)
    for g in range(gs.shape[0]):
        for _ in range(steps):
            a = random_action(cfg, gs, rng, g)
            play(cfg, keys, gs, cards, known, fl, rng, perms, rew, g, a)
            total += 1
            if gs[g, F_OVER]:
                new_game(cfg, gs, cards, known, fl, rng, perms, g, -1, no_lives)
            if want_obs:
                encode(cfg, gs, cards, known, g, gs[g, F_CURRENT], obs, g)
    return total


# ------------------------------------------------------------- single-agent view
#: Opponent kinds and per-game stages of :func:`k_vec`.
OPP_RANDOM, OPP_GREEDY, OPP_EXTERNAL = 0, 1, 2
S_RESET, S_READY, S_NEED_OPP = 0, 1, 2
V_LEARNER, V_STAGE, V_ACTED = 0, 1, 2


@njit
def k_vec(
    cfg,
    keys,
    gs,
    cards,
    known,
    fl,
    rng,
    perms,
    rew,
    vs,
    vacc,
    games,
    actions,
    opp_actions,
    opp_kind,
    seat_mode,
    obs,
    mask,
    term_obs,
    term_place,
    reward_out,
    done,
    need,
    opp_obs,
    opp_mask,
    want_opp_obs,
):
    """Advance each of ``games`` to the learner's next decision.

    A game in stage ``S_READY`` first plays the learner's ``actions[g]``; one in
    ``S_NEED_OPP`` plays ``opp_actions[g]``; one in ``S_RESET`` starts a new game.
    Then opponents move (built-in random or greedy, or, for external opponents, the
    game stops in ``S_NEED_OPP`` with the opponent's view in ``opp_obs`` /
    ``opp_mask``) until the learner is to act, writing its view and mask, or its
    episode ends (out of the game, or the game over): then ``done``, its summed
    reward, its last view and place are written and a new game starts at once.
    An episode in which the learner never got to act is dealt again unseen.
    The learner's rewards are summed over the opponents' moves; rewards earned
    before its first move of a new episode are paid with that move.
    Returns the number of games given an illegal action.
    """
    cfg, keys, gs, cards, known, fl, rng, perms = unmanaged_state(
        cfg, keys, gs, cards, known, fl, rng, perms
    )
    rew = unmanaged(rew)
    vs = unmanaged(vs)
    vacc = unmanaged(vacc)
    games = unmanaged(games)
    actions = unmanaged(actions)
    opp_actions = unmanaged(opp_actions)
    obs = unmanaged(obs)
    mask = unmanaged(mask)
    term_obs = unmanaged(term_obs)
    term_place = unmanaged(term_place)
    reward_out = unmanaged(reward_out)
    done = unmanaged(done)
    need = unmanaged(need)
    opp_obs = unmanaged(opp_obs)
    opp_mask = unmanaged(opp_mask)
    n = cfg[C_N]
    errors = 0
    no_lives = np.full(MAXP, -1, dtype=np.int32)
    for idx in range(games.shape[0]):
        g = games[idx]
        stage = vs[g, V_STAGE]
        learner = vs[g, V_LEARNER]
        if stage == S_READY or stage == S_NEED_OPP:  # noqa: SIM109
            a = actions[g] if stage == S_READY else opp_actions[g]
            if a < 0 or a >= NUM_ACTIONS or not is_legal(cfg, gs, g, a):
                gs[g, F_ERROR] = ERR_ILLEGAL
                errors += 1
                continue
            for s in range(n):
                rew[g, s] = 0.0
            play(cfg, keys, gs, cards, known, fl, rng, perms, rew, g, a)
            vacc[g] += rew[g, learner]
            if stage == S_READY:
                vs[g, V_ACTED] = 1
        need[g] = 0
        fresh = stage == S_RESET
        while True:
            if fresh or gs[g, F_OVER] or gs[g, F_OUT + learner]:
                if not fresh and vs[g, V_ACTED]:
                    done[g] = 1
                    reward_out[g] = vacc[g]
                    term_place[g] = fl[g, L_PLACE + learner]
                    encode(cfg, gs, cards, known, g, learner, term_obs, g)
                vacc[g] = 0.0
                new_game(cfg, gs, cards, known, fl, rng, perms, g, -1, no_lives)
                learner = seat_mode if seat_mode >= 0 else rand_below(rng, g, RNG_PLAY, n)
                vs[g, V_LEARNER] = learner
                vs[g, V_ACTED] = 0
                fresh = False
                continue
            if gs[g, F_CURRENT] == learner:
                write_mask(cfg, gs, mask, g)
                encode(cfg, gs, cards, known, g, learner, obs, g)
                if not done[g]:
                    reward_out[g] = vacc[g]
                    vacc[g] = 0.0
                vs[g, V_STAGE] = S_READY
                break
            if opp_kind == OPP_RANDOM:
                a = random_action(cfg, gs, rng, g)
            elif opp_kind == OPP_GREEDY:
                a = greedy_action(cfg, keys, gs, cards, g)
            else:
                write_mask(cfg, gs, opp_mask, g)
                if want_opp_obs:
                    encode(cfg, gs, cards, known, g, gs[g, F_CURRENT], opp_obs, g)
                vs[g, V_STAGE] = S_NEED_OPP
                need[g] = 1
                break
            for s in range(n):
                rew[g, s] = 0.0
            play(cfg, keys, gs, cards, known, fl, rng, perms, rew, g, a)
            vacc[g] += rew[g, learner]
    return errors
