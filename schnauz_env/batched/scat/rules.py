"""Scat's rules on one row of the batched state: dealing, moves, round ends, rewards.

The batched twin of :mod:`schnauz_env.scat.engine` (the reference), following it
function by function (``_start_round``, ``apply``, ``_end_turn``, ``_end_round``,
``_tie_break``) and the AEC env's ``_settle``. Every rule fact is imported: action
ids, phases, legal-action tables, the knock rule, round-end reasons and the rewards
(:func:`~schnauz_env.scat.engine.round_reward`, :mod:`schnauz_env.common.places`) come
from the rules floor, compiled as they are (:func:`~schnauz_env.batched.jit.jitable`);
hand values and blitzes from a table that the reference's ``hand_value`` filled
(:func:`~schnauz_env.batched.scat.layout.value_table`).

Functions take the state tuple ``st`` (:class:`~schnauz_env.batched.scat.layout.ScatArrays`
of unmanaged views) and a game index ``g``. ``tests/test_batched_scat_differential.py``
holds them to the reference move by move.
"""

from __future__ import annotations

import numpy as np

from schnauz_env.batched.common import (
    first_dealer,
    popcount,
    rand32,
    set_fields,
    shuffle_forward,
    start_lives,
)
from schnauz_env.batched.jit import jitable, njit
from schnauz_env.batched.scat.layout import (
    BLITZ_FLAG,
    C_BUY_INS,
    C_EXTERNAL,
    C_FIRST_DEALER,
    C_H,
    C_LIVES,
    C_MAX_TURNS,
    C_N,
    C_ROUND_DECKS,
    C_ROUND_EP,
    COMB,
    ERR_NO_DECK,
    ERR_NO_TIE_BREAK_DECK,
    F_BLITZ,
    F_BOUGHT_IN,
    F_CURRENT,
    F_DEALER,
    F_DEC,
    F_DOUBLE,
    F_ENDED,
    F_ERROR,
    F_FINAL_LEFT,
    F_KNOCKER,
    F_KNOWN_ANY,
    F_LIVES,
    F_LOSERS,
    F_MAX_LIVES,
    F_NACTIVE,
    F_NDEC,
    F_OUT,
    F_OVER,
    F_PERM_PTR,
    F_PHASE,
    F_PILE,
    F_POS,
    F_REASON,
    F_RES_BLITZ,
    F_RES_KNOCKER,
    F_ROUND,
    F_SEATS,
    F_SHUF,
    F_STEP,
    F_TB_END,
    F_TB_PTR,
    F_TIE_BREAKS,
    F_TURNS,
    F_USED,
    F_VALS,
    F_WENT_OUT,
    HS,
    L_PLACE,
    L_RET,
    MAXP,
    O_DECK,
    O_HANDS,
    O_PILE,
    R_BLITZ,
    R_BLITZ_DEAL,
    R_EMPTY_STOCK,
    R_KNOCK,
    R_TURN_LIMIT,
    RNG_DEAL,
    RNG_PLAY,
    RNG_ROUND,
)
from schnauz_env.batched.scat.observe import seat_features
from schnauz_env.common.places import settle_places, shared_place
from schnauz_env.scat.engine import (
    DISCARD,
    DISCARD_BASE,
    DRAW,
    DRAW_DISCARD,
    DRAW_STOCK,
    FINAL_TURNS,
    KNOCK,
    OVER,
    TURNS,
    round_reward,
)
from schnauz_env.scat.observation import NC

jitable(round_reward)
VALUE_MASK = BLITZ_FLAG - 1


# ------------------------------------------------------------------------ small helpers
@njit(inline=True)
def next_active(gs, g, n, seat):
    """The next seat to the left of ``seat`` still in the game."""
    s = seat
    while True:
        s = s + 1 if s + 1 < n else 0
        if not gs[g, F_OUT + s]:
            return s


@njit(inline=True)
def insert_card(cards, g, off, count, c):
    """Put card ``c`` into the sorted ``count`` cards at ``cards[g, off:]``."""
    i = count
    while i > 0 and cards[g, off + i - 1] > c:
        cards[g, off + i] = cards[g, off + i - 1]
        i -= 1
    cards[g, off + i] = c


@njit(inline=True)
def hand_entry(vals, cards, g, off, size):
    """The ``vals`` entry of the sorted ``size`` cards at ``cards[g, off:]``."""
    idx = 0
    for i in range(size):
        idx += COMB[i + 1, cards[g, off + i]]
    return vals[idx]


@njit(inline=True)
def lowest_seat(mask):
    """The lowest seat of a non-empty seat mask."""
    s = 0
    while not (mask >> s) & 1:
        s += 1
    return s


@njit(inline=True)
def mul32(x, c):
    """``x * c`` modulo 2**32 for 32-bit ``x`` and ``c``, without overflowing 64 bits."""
    return (x * (c & 0xFFFF) + (((x * (c >> 16)) & 0xFFFF) << 16)) & 0xFFFFFFFF


@njit(inline=True)
def mix32(x):
    """A bijection of 32-bit states (murmur3's finaliser; 0 only for 0): the round
    generator starts from the deal generator's next state mixed, so the shuffles of
    consecutive rounds are not one xorshift stream shifted by a step."""
    x ^= x >> 16
    x = mul32(x, 0x85EBCA6B)
    x ^= x >> 13
    x = mul32(x, 0xC2B2AE35)
    x ^= x >> 16
    return x


@njit(inline=True)
def stock_ready(st, g, upto):
    """Finish the lazy shuffle of the deck up to position ``upto`` (fast mode)."""
    done = st.gs[g, F_SHUF]
    if done < upto:
        shuffle_forward(st.cards, g, O_DECK, NC, done, upto, st.rng, g, RNG_ROUND)
        st.gs[g, F_SHUF] = upto


# ---------------------------------------------------------------------------- dealing
@njit
def next_round_deck(st, g):
    """Lay the next round's deck at ``cards[g, O_DECK:]``.

    External mode takes the next of ``perms[g, :C_ROUND_DECKS]`` (what the reference's
    ``rng.permutation(52)`` returned). The fast mode keeps the last deck and reshuffles
    it lazily (:func:`stock_ready`), from a round generator seeded by the deal
    generator: a seed fixes every round's deck whatever the players do.
    """
    cfg, gs = st.cfg, st.gs
    if cfg[C_EXTERNAL]:
        ptr = gs[g, F_PERM_PTR]
        if ptr >= cfg[C_ROUND_DECKS]:
            gs[g, F_ERROR] = ERR_NO_DECK
            ptr = 0
        for i in range(NC):
            st.cards[g, O_DECK + i] = st.perms[g, ptr, i]
        gs[g, F_PERM_PTR] = ptr + 1
        gs[g, F_SHUF] = NC
    else:
        st.rng[g, RNG_ROUND] = mix32(rand32(st.rng, g, RNG_DEAL))
        gs[g, F_SHUF] = 0


@njit
def start_round(st, g):
    """The reference's ``_start_round``: deal one card at a time from the left of the
    dealer, turn up the discard pile; ``R_BLITZ_DEAL`` if anyone holds a blitz, else -1."""
    cfg, gs, cards = st.cfg, st.gs, st.cards
    n = cfg[C_N]
    size = cfg[C_H]
    next_round_deck(st, g)
    m = gs[g, F_NACTIVE]
    dealt = size * m
    stock_ready(st, g, dealt + 1)
    for i in range(MAXP * HS):
        cards[g, O_HANDS + i] = -1
    s = gs[g, F_DEALER]
    for k in range(m):
        s = next_active(gs, g, n, s)
        h = O_HANDS + HS * s
        for i in range(size):
            insert_card(cards, g, h, i, cards[g, O_DECK + i * m + k])
    cards[g, O_PILE] = cards[g, O_DECK + dealt]
    gs[g, F_PILE] = 1
    gs[g, F_POS] = dealt + 1
    for s in range(MAXP):
        st.known[g, s] = 0
    gs[g, F_KNOWN_ANY] = 0
    gs[g, F_KNOCKER] = -1
    gs[g, F_TURNS] = 0
    gs[g, F_FINAL_LEFT] = 0
    gs[g, F_PHASE] = TURNS
    gs[g, F_STEP] = DRAW
    gs[g, F_CURRENT] = next_active(gs, g, n, gs[g, F_DEALER])
    holders = 0
    for s in range(n):
        if gs[g, F_OUT + s]:
            continue
        if hand_entry(st.vals, cards, g, O_HANDS + HS * s, size) & BLITZ_FLAG:
            holders |= 1 << s
    gs[g, F_BLITZ] = holders
    return R_BLITZ_DEAL if holders else -1


@njit
def new_game(st, g, dealer, lives, rew0):
    """The reference's ``new_game`` and the AEC env's reset: everyone in with ``lives``
    (a (7,) row; a negative first entry means the config's), the first dealer (``dealer``
    < 0: the config's, else drawn from the deal generator), the first deal, and the
    rewards of a first deal that ended at once into ``rew0[g]``."""
    cfg, gs, fl = st.cfg, st.gs, st.fl
    n = cfg[C_N]
    for s in range(MAXP):
        gs[g, F_LIVES + s] = 0
        gs[g, F_OUT + s] = 0
        gs[g, F_USED + s] = 0
        gs[g, F_VALS + s] = -1
        fl[g, L_RET + s] = 0.0
        fl[g, L_PLACE + s] = 0.0
        rew0[g, s] = 0.0
    start_lives(gs, g, n, lives, cfg[C_LIVES], F_LIVES, F_MAX_LIVES)
    gs[g, F_DEALER] = first_dealer(dealer, cfg[C_FIRST_DEALER], st.rng, g, RNG_DEAL, n)
    gs[g, F_NACTIVE] = n
    gs[g, F_TB_PTR] = cfg[C_ROUND_DECKS]
    gs[g, F_TB_END] = cfg[C_ROUND_DECKS]
    set_fields(gs, g, (F_ROUND, F_OVER, F_PERM_PTR, F_ERROR, F_ENDED, F_NDEC, F_SEATS), 0)
    set_fields(gs, g, (F_LOSERS, F_WENT_OUT, F_BOUGHT_IN, F_RES_BLITZ, F_TIE_BREAKS), 0)
    set_fields(gs, g, (F_REASON, F_RES_KNOCKER, F_DOUBLE), -1)
    reason = start_round(st, g)
    if reason >= 0:
        finish_rounds(st, g, reason)
        settle(st, g, rew0)
    else:
        seat_features(st, g)


# ------------------------------------------------------------------------------ moves
@njit(inline=True)
def end_turn(st, g, seat):
    """The reference's ``_end_turn``: the next player, or the reason the round ends."""
    gs = st.gs
    gs[g, F_TURNS] += 1
    if gs[g, F_PHASE] == FINAL_TURNS:
        gs[g, F_FINAL_LEFT] -= 1
        if gs[g, F_FINAL_LEFT] == 0:
            return R_KNOCK
    elif gs[g, F_TURNS] >= st.cfg[C_MAX_TURNS]:
        return R_TURN_LIMIT
    gs[g, F_CURRENT] = next_active(gs, g, st.cfg[C_N], seat)
    return -1


@njit(inline=True)
def apply(st, g, a):
    """The reference's ``apply`` for a legal ``a``, up to the end of a round: returns
    the reason the round ends (the caller runs :func:`finish_rounds`), or -1."""
    cfg, gs, cards, known = st.cfg, st.gs, st.cards, st.known
    size = cfg[C_H]
    seat = gs[g, F_CURRENT]
    h = O_HANDS + HS * seat
    if gs[g, F_STEP] == DISCARD:
        i = a - DISCARD_BASE
        card = cards[g, h + i]
        for j in range(i, size):
            cards[g, h + j] = cards[g, h + j + 1]
        cards[g, h + size] = -1
        p = gs[g, F_PILE]
        cards[g, O_PILE + p] = card
        gs[g, F_PILE] = p + 1
        if (gs[g, F_KNOWN_ANY] >> seat) & 1:
            known[g, seat] &= ~(np.int64(1) << card)
            if not known[g, seat]:
                gs[g, F_KNOWN_ANY] &= ~(1 << seat)
        gs[g, F_STEP] = DRAW
        if gs[g, F_PHASE] == TURNS and hand_entry(st.vals, cards, g, h, size) & BLITZ_FLAG:
            gs[g, F_BLITZ] = 1 << seat
            return R_BLITZ
        return end_turn(st, g, seat)
    if a == DRAW_STOCK:
        pos = gs[g, F_POS]
        stock_ready(st, g, pos + 1)
        insert_card(cards, g, h, size, cards[g, O_DECK + pos])
        gs[g, F_POS] = pos + 1
        gs[g, F_STEP] = DISCARD
        return -1
    if a == DRAW_DISCARD:
        p = gs[g, F_PILE] - 1
        card = cards[g, O_PILE + p]
        gs[g, F_PILE] = p
        insert_card(cards, g, h, size, card)
        known[g, seat] |= np.int64(1) << card
        gs[g, F_KNOWN_ANY] |= 1 << seat
        gs[g, F_STEP] = DISCARD
        return -1
    stock_empty = gs[g, F_POS] >= NC
    if a == KNOCK:
        gs[g, F_KNOCKER] = seat
        gs[g, F_TURNS] += 1
        if stock_empty:
            return R_EMPTY_STOCK
        gs[g, F_PHASE] = FINAL_TURNS
        gs[g, F_FINAL_LEFT] = gs[g, F_NACTIVE] - 1
        gs[g, F_CURRENT] = next_active(gs, g, cfg[C_N], seat)
        return -1
    # PASS: stay on a final turn, or end the round while the stock is empty
    if gs[g, F_PHASE] == TURNS:
        gs[g, F_TURNS] += 1
        return R_EMPTY_STOCK
    return end_turn(st, g, seat)


@njit(inline=True)
def play(st, g, a, rew):
    """Play legal action ``a`` in game ``g``, round ends and rewards (into ``rew[g]``,
    zeroed by the caller) included; returns the number of rounds it ended."""
    st.gs[g, F_ENDED] = 0
    reason = apply(st, g, a)
    if reason < 0:
        return 0
    finish_rounds(st, g, reason)
    settle(st, g, rew)
    return st.gs[g, F_ENDED]


# ------------------------------------------------------------------------ round ends
@njit
def finish_rounds(st, g, reason):
    """End the round for ``reason``, then deal the next one while each next deal ends
    at once (a blitz after the deal): the reference's ``_end_round`` chain."""
    gs = st.gs
    gs[g, F_ENDED] = 0
    gs[g, F_NDEC] = 0
    while True:
        end_round(st, g, reason)
        gs[g, F_ENDED] += 1
        if gs[g, F_OVER]:
            break
        gs[g, F_DEALER] = next_active(gs, g, st.cfg[C_N], gs[g, F_DEALER])
        reason = start_round(st, g)
        if reason < 0:
            break
    seat_features(st, g)


@njit
def end_round(st, g, reason):
    """The reference's ``_end_round``: who loses lives, buy-ins, tie-break deals, who
    goes out and which places that decides (appended to ``F_DEC`` in the reference's
    order), and the round's result fields."""
    cfg, gs, cards, fl = st.cfg, st.gs, st.cards, st.fl
    n = cfg[C_N]
    size = cfg[C_H]
    seats = 0
    m = 0
    low = 1 << 30
    for s in range(n):
        gs[g, F_VALS + s] = -1
        if not gs[g, F_OUT + s]:
            seats |= 1 << s
            m += 1
            v = hand_entry(st.vals, cards, g, O_HANDS + HS * s, size) & VALUE_MASK
            gs[g, F_VALS + s] = v
            low = min(low, v)
    double = -1
    knocker = gs[g, F_KNOCKER]
    blitz = 0
    if reason == R_BLITZ or reason == R_BLITZ_DEAL:  # noqa: SIM109
        blitz = gs[g, F_BLITZ]
        losers = seats & ~blitz
    else:
        lowest = 0
        for s in range(n):
            if (seats >> s) & 1 and gs[g, F_VALS + s] == low:
                lowest |= 1 << s
        if knocker >= 0 and (lowest >> knocker) & 1:
            if lowest == 1 << knocker:
                losers = lowest
                double = knocker  # a knocker strictly lowest pays double
            else:
                losers = lowest & ~(1 << knocker)  # a tied knocker is safe
        else:
            losers = lowest
    eliminated = 0
    for s in range(n):
        if (losers >> s) & 1:
            gs[g, F_LIVES + s] -= 2 if s == double else 1
            if gs[g, F_LIVES + s] < 0:
                eliminated |= 1 << s
    bought = 0
    for s in range(n):
        if (eliminated >> s) & 1 and gs[g, F_USED + s] < cfg[C_BUY_INS]:
            gs[g, F_USED + s] += 1
            gs[g, F_LIVES + s] = cfg[C_LIVES]
            bought |= 1 << s
    going = eliminated & ~bought
    gs[g, F_TIE_BREAKS] = 0
    for s in range(n):
        if (going >> s) & 1:
            gs[g, F_LIVES + s] = 0  # the survivors of a tie-break stay on the bus
    if going == seats and m >= 2:
        going = 1 << tie_break(st, g, going)
    shared = shared_place(m, popcount(going))
    nd = gs[g, F_NDEC]
    for s in range(n):
        if (going >> s) & 1:
            gs[g, F_OUT + s] = 1
            fl[g, L_PLACE + s] = shared
            gs[g, F_NACTIVE] -= 1
            gs[g, F_DEC + nd] = s
            nd += 1
    winner = -1
    if gs[g, F_NACTIVE] == 1:
        winner = lowest_seat(seats & ~going)
        fl[g, L_PLACE + winner] = 1.0
        gs[g, F_DEC + nd] = winner
        nd += 1
    gs[g, F_NDEC] = nd
    gs[g, F_REASON] = reason
    gs[g, F_SEATS] = seats
    gs[g, F_LOSERS] = losers
    gs[g, F_DOUBLE] = double
    gs[g, F_WENT_OUT] = going
    gs[g, F_BOUGHT_IN] = bought
    gs[g, F_RES_KNOCKER] = knocker
    gs[g, F_RES_BLITZ] = blitz
    gs[g, F_ROUND] += 1
    if winner >= 0 or cfg[C_ROUND_EP]:
        gs[g, F_PHASE] = OVER
        gs[g, F_OVER] = 1


@njit
def tie_break_deck(st, g, buf, cards_needed):
    """The next tie-break deck into ``buf[0]``: the next queued one in external mode
    (what the reference's round generator shuffled), else a shuffle by the play
    generator (only the cards dealt are drawn)."""
    gs = st.gs
    if st.cfg[C_EXTERNAL]:
        ptr = gs[g, F_TB_PTR]
        if ptr >= gs[g, F_TB_END]:
            gs[g, F_ERROR] = ERR_NO_TIE_BREAK_DECK
            ptr = 0
        for i in range(NC):
            buf[0, i] = st.perms[g, ptr, i]
        gs[g, F_TB_PTR] = ptr + 1
    else:
        for i in range(NC):
            buf[0, i] = i
        shuffle_forward(buf, 0, 0, NC, 0, cards_needed, st.rng, g, RNG_PLAY)


@njit(allocates=True)
def tie_break(st, g, seats):
    """The reference's ``_tie_break``: showdown-only deals among ``seats`` (dealt from
    the left of the dealer, one card at a time), again among those tied for lowest,
    until one hand is strictly lowest; returns that seat."""
    cfg, gs = st.cfg, st.gs
    n = cfg[C_N]
    size = cfg[C_H]
    buf = np.empty((1, NC), dtype=np.int8)
    hand = np.empty((1, HS), dtype=np.int8)
    while True:
        k = popcount(seats)
        tie_break_deck(st, g, buf, size * k)
        gs[g, F_TIE_BREAKS] += 1
        low = 1 << 30
        lowest = 0
        s = gs[g, F_DEALER]
        j = 0
        for _ in range(n):
            s = s + 1 if s + 1 < n else 0
            if (seats >> s) & 1:
                for i in range(size):
                    insert_card(hand, 0, 0, i, buf[0, i * k + j])
                v = hand_entry(st.vals, hand, 0, 0, size) & VALUE_MASK
                if v < low:
                    low = v
                    lowest = 1 << s
                elif v == low:
                    lowest |= 1 << s
                j += 1
        if popcount(lowest) == 1 or gs[g, F_ERROR]:  # (a missing deck ends the loop)
            return lowest_seat(lowest)
        seats = lowest


# --------------------------------------------------------------------------- rewards
@njit
def settle(st, g, rew):
    """The AEC env's ``_settle`` of the rounds that just ended, into ``rew[g]``.

    Whole games: :func:`~schnauz_env.common.places.settle_places` (the env's own), for
    the seats whose places this step decided, in the reference's order. Single rounds:
    :func:`~schnauz_env.scat.engine.round_reward` of the lives lost. The same functions
    as the env's, so the numbers are equal to the bit.
    """
    cfg, gs, fl = st.cfg, st.gs, st.fl
    n = cfg[C_N]
    for s in range(n):
        rew[g, s] = 0.0
    if cfg[C_ROUND_EP]:
        seats = gs[g, F_SEATS]
        losers = gs[g, F_LOSERS]
        double = gs[g, F_DOUBLE]
        total = popcount(losers) + (1 if double >= 0 else 0)
        m = popcount(seats)
        winners = m - popcount(losers)
        for s in range(n):
            if (seats >> s) & 1:
                lost = (2 if s == double else 1) if (losers >> s) & 1 else 0
                rew[g, s] = round_reward(lost, total, winners, m)
                fl[g, L_RET + s] += rew[g, s]
        return
    playing = 0
    if not gs[g, F_OVER]:
        for s in range(n):
            if not gs[g, F_OUT + s]:
                playing |= 1 << s
    settle_places(
        n,
        fl[g, L_PLACE : L_PLACE + MAXP],
        gs[g, F_DEC : F_DEC + MAXP],
        gs[g, F_NDEC],
        playing,
        fl[g, L_RET : L_RET + MAXP],
        rew[g],
    )
