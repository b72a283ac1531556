"""What a seat sees in the batched Scat engine: its action mask and its observation.

:func:`encode` writes what :class:`schnauz_env.scat.observation.ObservationEncoder`
returns, float for float: the block offsets come from the reference's
``ObservationLayout`` (through ``cfg``), the seat features, pile weights, phase index
and scales from :mod:`schnauz_env.scat.observation`. The legal actions are the
reference's tables (``DRAW_LEGAL``, ``DISCARD_LEGAL``) by situation, and the knock
rule is the reference's :func:`~schnauz_env.scat.engine.may_knock`.
"""

from __future__ import annotations

from schnauz_env.batched.jit import jitable, njit
from schnauz_env.batched.scat.layout import (
    C_BUY_INS,
    C_H,
    C_KNOCK_FIRST,
    C_N,
    C_O_DEALER,
    C_O_HAND,
    C_O_KNOCKER,
    C_O_KNOWN,
    C_O_PHASE,
    C_O_PILE,
    C_O_SEATS,
    C_O_STOCK,
    C_O_TO_ACT,
    C_O_TOP,
    C_OBS_SIZE,
    F_CURRENT,
    F_DEALER,
    F_KNOCKER,
    F_KNOWN_ANY,
    F_LIVES,
    F_MAX_LIVES,
    F_NACTIVE,
    F_OUT,
    F_PHASE,
    F_PILE,
    F_POS,
    F_STEP,
    F_TURNS,
    F_USED,
    HS,
    M_DISCARD,
    M_OVER,
    MASK_ROWS,
    MIN_HAND,
    O_HANDS,
    O_PILE,
    X_BUY_IN_SCALE,
)
from schnauz_env.scat.engine import DISCARD, FINAL_TURNS, OVER, may_knock
from schnauz_env.scat.observation import (
    NC,
    SEAT_AT_TABLE,
    SEAT_BUY_INS,
    SEAT_FEATURES,
    SEAT_IN_GAME,
    SEAT_LIVES,
    SEAT_ON_BUS,
    lives_scale,
    phase_index,
)

for _rule in (may_knock, lives_scale, phase_index):
    jitable(_rule)  # compiled as they are, called by their own names


@njit(inline=True)
def situation(cfg, gs, g):
    """The row of ``MASK_ROWS`` / ``LEGAL_ACTS`` that holds game ``g``'s legal actions."""
    phase = gs[g, F_PHASE]
    if phase == OVER:
        return M_OVER
    if gs[g, F_STEP] == DISCARD:
        return M_DISCARD + cfg[C_H] - MIN_HAND
    return (
        4 * (phase == FINAL_TURNS)
        + 2 * (gs[g, F_POS] >= NC)
        + may_knock(cfg[C_KNOCK_FIRST] != 0, gs[g, F_TURNS], gs[g, F_NACTIVE])
    )


@njit(inline=True)
def write_mask(cfg, gs, mask, g):
    """The legal actions of game ``g``'s player to act into ``mask[g]``."""
    row = situation(cfg, gs, g)
    for a in range(MASK_ROWS.shape[1]):
        mask[g, a] = MASK_ROWS[row, a]


@njit(inline=True)
def rel(s, seat, n):
    """Position of seat ``s`` seen from ``seat``: ``(s - seat) % n``."""
    d = s - seat
    return d + n if d < 0 else d


@njit
def seat_features(st, g):
    """Refresh ``seatf[g]``: the ``seats`` features of every seat of game ``g`` (at the
    table, in the game, on the bus, lives, buy-ins left), by seat. The rules call it
    whenever lives, outs or buy-ins change (a new game, a round's end)."""
    cfg, gs, sf = st.cfg, st.gs, st.seatf
    scale = lives_scale(gs[g, F_MAX_LIVES])
    buy_in_scale = st.cff[X_BUY_IN_SCALE]
    f = 0
    for s in range(cfg[C_N]):
        sf[g, f + SEAT_AT_TABLE] = 1.0
        out = gs[g, F_OUT + s] != 0
        lives = gs[g, F_LIVES + s]
        sf[g, f + SEAT_IN_GAME] = not out
        sf[g, f + SEAT_ON_BUS] = not out and lives == 0
        sf[g, f + SEAT_LIVES] = 0.0 if out else lives * scale
        sf[g, f + SEAT_BUY_INS] = (cfg[C_BUY_INS] - gs[g, F_USED + s]) * buy_in_scale
        f += SEAT_FEATURES


@njit(inline=True)
def encode(st, g, seat, obs, nz, row, fresh):
    """``ObservationEncoder.encode(state, seat)`` of game ``g`` into ``obs[row]``.

    The view is a few sparse one-hot blocks (hand, discard pile, known cards: some 700
    entries of which a dozen are set) and a short dense tail (seats, dealer, knocker,
    to act, phase, stock). Rather than zeroing the row, the encoder clears the sparse
    entries it set last time, whose indices ``nz[row]`` keeps (``nz[row, 0]`` of them,
    from ``nz[row, 1]`` on), and rewrites the tail whole; the row must hold nothing
    else (the engine hands out read-only views of its buffer). ``fresh`` zeroes the
    whole row first instead (a new array). The ``seats`` block is ``seatf[g]`` rotated
    to start at ``seat``.
    """
    cfg, gs, cards = st.cfg, st.gs, st.cards
    n = cfg[C_N]
    o = obs[row]
    z = nz[row]
    tail = cfg[C_O_SEATS]
    if fresh:
        o[:tail] = 0.0
    else:
        for i in range(z[0]):
            o[z[i + 1]] = 0.0
    o[tail : cfg[C_OBS_SIZE]] = 0.0
    k = 0
    base = cfg[C_O_HAND]
    h = O_HANDS + HS * seat
    for i in range(HS):
        c = cards[g, h + i]
        if c < 0:
            break
        k += 1
        z[k] = x = base + i * NC + c
        o[x] = 1.0
    p = gs[g, F_PILE]
    if p:
        k += 1
        z[k] = x = cfg[C_O_TOP] + cards[g, O_PILE + p - 1]
        o[x] = 1.0
        base = cfg[C_O_PILE]
        for i in range(p):
            k += 1
            z[k] = x = base + cards[g, O_PILE + i]
            o[x] = st.pw[p - 1 - i]
    held = gs[g, F_KNOWN_ANY] & ~(1 << seat)
    if held:
        for j in range(1, n):
            s = seat + j if seat + j < n else seat + j - n
            if not (held >> s) & 1:
                continue
            # the cards a seat is known to hold are always in its hand
            bits = st.known[g, s]
            base = cfg[C_O_KNOWN] + (j - 1) * NC
            hs = O_HANDS + HS * s
            for i in range(HS):
                c = cards[g, hs + i]
                if c < 0:
                    break
                if (bits >> c) & 1:
                    k += 1
                    z[k] = x = base + c
                    o[x] = 1.0
    z[0] = k
    sf = st.seatf[g]
    f = tail
    s = seat
    for _ in range(n):
        x = SEAT_FEATURES * s
        for i in range(SEAT_FEATURES):  # a constant count: unrolled, unlike a slice copy
            o[f + i] = sf[x + i]
        f += SEAT_FEATURES
        s = s + 1 if s + 1 < n else 0
    o[cfg[C_O_DEALER] + rel(gs[g, F_DEALER], seat, n)] = 1.0
    if gs[g, F_KNOCKER] >= 0:
        o[cfg[C_O_KNOCKER] + rel(gs[g, F_KNOCKER], seat, n)] = 1.0
    phase = gs[g, F_PHASE]
    if phase != OVER:
        final = phase == FINAL_TURNS
        o[cfg[C_O_TO_ACT] + rel(gs[g, F_CURRENT], seat, n)] = 1.0
        o[cfg[C_O_PHASE] + phase_index(final, gs[g, F_STEP] == DISCARD)] = 1.0
    o[cfg[C_O_STOCK]] = (NC - gs[g, F_POS]) / NC
