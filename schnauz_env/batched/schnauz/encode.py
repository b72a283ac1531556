"""What the player to act may do and see, on the arrays: the action mask and the observation.

The batched twin of :meth:`SchnauzState.legal_mask
<schnauz_env.schnauz.engine.SchnauzState.legal_mask>` and
:class:`~schnauz_env.schnauz.observation.ObservationEncoder` (the same int8 masks and
float32 values, compared in ``tests/test_batched_differential.py``). The observation's
block offsets are :class:`~schnauz_env.schnauz.observation.ObservationLayout`'s, as
constants of :mod:`~schnauz_env.batched.schnauz.state` (``OB_*``).
"""

from __future__ import annotations

from schnauz_env.batched.jit import njit
from schnauz_env.batched.schnauz.rules import knock_ok
from schnauz_env.batched.schnauz.state import (
    C_N,
    C_NC,
    F_CURRENT,
    F_DEALER,
    F_KNOCKER,
    F_LIVES,
    F_MAX_LIVES,
    F_OOP_LEN,
    F_OUT,
    F_PASSES,
    F_PHASE,
    F_POS,
    F_STOCK_LEN,
    MAXP,
    O_HANDS,
    O_OOP,
    O_TABLE,
    OB_DEALER,
    OB_END,
    OB_HAND,
    OB_KNOCKER,
    OB_KNOWN,
    OB_OOP,
    OB_PASSES,
    OB_PHASE,
    OB_SEATS,
    OB_STOCK,
    OB_TABLE,
    OB_TO_ACT,
)
from schnauz_env.schnauz import engine as E
from schnauz_env.schnauz.observation import SEAT_FEATURES


@njit(inline=True)
def write_mask(cfg, gs, mask, g):
    """The legal actions of the player to act in game ``g``, into ``mask[g]``."""
    phase = gs[g, F_PHASE]
    for a in range(E.NUM_ACTIONS):
        mask[g, a] = 0
    if phase == E.DEALER_CHOICE:
        mask[g, E.KEEP] = 1
        mask[g, E.EXCHANGE] = 1
    elif phase == E.TURNS or phase == E.FINAL_CIRCLE:
        for a in range(E.SWAP_BASE, E.PASS + 1):
            mask[g, a] = 1
        if knock_ok(cfg, gs, g):
            mask[g, E.KNOCK] = 1


@njit(inline=True)
def rel(s, seat, n):
    """Position of seat ``s`` seen from ``seat``: ``(s - seat) % n``."""
    d = s - seat
    return d + n if d < 0 else d


@njit(inline=True)
def block_start(block, nc):
    """Where observation block ``block`` (an ``OB_*`` pair; ``OB_END``: the size) starts
    for a deck of ``nc`` cards. The pairs are module constants numba folds (not ``cfg``
    entries): a multiply-add, as cheap as offsets written out by hand. (The pair itself is
    passed: an index into a table of them was not folded, 2-3 % of the encoder.)"""
    return block[0] * nc + block[1]


@njit
def encode(cfg, gs, cards, known, g, seat, obs, row):
    """``ObservationEncoder.encode(state, seat)`` of game ``g`` into ``obs[row]``.

    (It takes the four arrays it reads rather than a whole ``State``: it runs every step,
    and fewer arguments are a cheaper call.)
    """
    n = cfg[C_N]
    nc = cfg[C_NC]
    o_hand = block_start(OB_HAND, nc)
    o_table = block_start(OB_TABLE, nc)
    o_oop = block_start(OB_OOP, nc)
    o_known = block_start(OB_KNOWN, nc)
    o_seats = block_start(OB_SEATS, nc)
    o_dealer = block_start(OB_DEALER, nc)
    o_knocker = block_start(OB_KNOCKER, nc)
    o_to_act = block_start(OB_TO_ACT, nc)
    o_phase = block_start(OB_PHASE, nc)
    o_passes = block_start(OB_PASSES, nc)
    o_stock = block_start(OB_STOCK, nc)
    for i in range(block_start(OB_END, nc)):
        obs[row, i] = 0.0
    h = O_HANDS + 3 * seat
    for i in range(3):
        c = int(cards[g, h + i])
        if c >= 0:
            obs[row, o_hand + i * nc + c] = 1.0
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
    if phase != E.OVER:
        obs[row, o_to_act + rel(gs[g, F_CURRENT], seat, n)] = 1.0
        obs[row, o_phase + phase] = 1.0
    obs[row, o_passes + min(gs[g, F_PASSES], MAXP - 1)] = 1.0
    obs[row, o_stock] = (gs[g, F_STOCK_LEN] - gs[g, F_POS]) / nc
