"""The Thirteen observation on one game row: ``ObservationEncoder.encode``, bit for bit.

Every offset comes from :class:`schnauz_env.thirteen.observation.ObservationLayout`;
the values (cards left / 13, match points / (2 · target points), capped at 1) are
the encoder's float64 values stored as float32, as the encoder stores them.
"""

from __future__ import annotations

import numpy as np

from schnauz_env.batched.jit import njit
from schnauz_env.batched.thirteen.layout import (
    B_HAND,
    B_PLAYED,
    B_SEL,
    B_TABLE,
    C_N,
    CF_SCORE_SCALE,
    F_CURRENT,
    F_OPENING,
    F_PASSED,
    F_PHASE,
    F_SCORES,
    F_TABLE_BY,
    F_TABLE_KS,
)
from schnauz_env.batched.thirteen.rules import bit_count
from schnauz_env.batched.thirteen.tables import NUM_RANKS
from schnauz_env.thirteen.config import HAND_SIZE
from schnauz_env.thirteen.engine import DECLARE, OVER
from schnauz_env.thirteen.observation import SEAT_FEATURES, ObservationLayout

_LAYOUT = ObservationLayout()
OBS_SIZE = _LAYOUT.size
O_HAND = _LAYOUT["hand"].start
O_SELECTED = _LAYOUT["selected"].start
O_TABLE = _LAYOUT["table"].start
O_KIND = _LAYOUT["table_kind"].start
O_TABLE_BY = _LAYOUT["table_by"].start
O_PASSED = _LAYOUT["passed"].start
O_PLAYED = _LAYOUT["played"].start
O_SEATS = _LAYOUT["seats"].start
O_SCORES = _LAYOUT["scores"].start
O_TO_ACT = _LAYOUT["to_act"].start
O_FLAGS = _LAYOUT["flags"].start
#: The ones of the card blocks and the small blocks after them, each written in full.
O_SMALL, O_SMALL_END = O_KIND, O_PLAYED
O_TAIL = O_SEATS


#: The four floats of each nibble's bits (a card block is written a rank at a time).
NIBBLE_FLOATS = np.array([[(v >> i) & 1 for i in range(4)] for v in range(16)], dtype=np.float32)


@njit(inline=True)
def write_cards(obs, row, base, x):
    """The card set ``x`` (bits of strength) as 52 floats at ``obs[row, base:]``."""
    for r in range(NUM_RANKS):
        nib = (x >> (4 * r)) & 15
        for j in range(4):
            obs[row, base + 4 * r + j] = NIBBLE_FLOATS[nib, j]


@njit(inline=True)
def rel(s, seat, n):
    """Position of seat ``s`` seen from ``seat``: ``(s - seat) % n``."""
    d = s - seat
    return d + n if d < 0 else d


@njit(inline=True)
def encode(tb, st, g, seat, obs, row):
    """The view of ``seat`` in game ``g`` into ``obs[row]`` (``ObservationEncoder.encode``)."""
    cfg, gs, bits = st.cfg, st.gs, st.bits
    n = cfg[C_N]
    phase = gs[g, F_PHASE]
    acting = phase != OVER and gs[g, F_CURRENT] == seat
    hand = bits[g, B_HAND + seat]
    sel = bits[g, B_SEL] if acting else 0
    table = bits[g, B_TABLE]
    played = bits[g, B_PLAYED]
    write_cards(obs, row, O_HAND, hand)
    write_cards(obs, row, O_SELECTED, sel)
    write_cards(obs, row, O_TABLE, table)
    write_cards(obs, row, O_PLAYED, played)
    for i in range(O_SMALL, O_SMALL_END):
        obs[row, i] = 0.0
    for i in range(O_TAIL, OBS_SIZE):
        obs[row, i] = 0.0
    ks = gs[g, F_TABLE_KS]
    if ks >= 0:
        obs[row, O_KIND + tb.kind[ks]] = 1.0
    if gs[g, F_TABLE_BY] >= 0:
        obs[row, O_TABLE_BY + rel(gs[g, F_TABLE_BY], seat, n)] = 1.0
    passed = gs[g, F_PASSED]
    scale = st.cfgf[CF_SCORE_SCALE]
    for k in range(n):
        s = seat + k
        if s >= n:
            s -= n
        if (passed >> s) & 1:
            obs[row, O_PASSED + k] = 1.0
        f = O_SEATS + k * SEAT_FEATURES
        obs[row, f] = 1.0
        h = bits[g, B_HAND + s]
        if h:
            obs[row, f + 1] = 1.0
            obs[row, f + 2] = bit_count(h) / HAND_SIZE
        obs[row, O_SCORES + k] = min(gs[g, F_SCORES + s] * scale, 1.0)
    if phase != OVER:
        obs[row, O_TO_ACT + rel(gs[g, F_CURRENT], seat, n)] = 1.0
        if ks < 0:
            obs[row, O_FLAGS] = 1.0
        if gs[g, F_OPENING] >= 0:
            obs[row, O_FLAGS + 1] = 1.0
        if phase == DECLARE:
            obs[row, O_FLAGS + 2] = 1.0
