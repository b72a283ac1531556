"""Where everything lives in the arrays of the batched Scat engine, and its lookup tables.

Plain numpy (no numba): the kernels import these names, and numba compiles module
globals as constants. Every rule fact comes from the rules floor
(:mod:`schnauz_env.scat`); this module only says where the engine keeps it.

State of B games (one row per game, every array C-contiguous):

==========  ===============  =========================================================
array       shape / dtype    contents
==========  ===============  =========================================================
``cfg``     (NCFG,) int64    the rules (``C_*``) and the observation's block offsets
``cff``     (NCFF,) float64  the observation's buy-ins scale and the greedy threshold
``vals``    (C(52, H),)      uint8 per sorted hand of H cards (combinatorial index,
                             :func:`~schnauz_env.batched.scat.rules.hand_entry`): twice its value under the config's
                             trinca rule, plus :data:`BLITZ_FLAG` for a blitz; filled
                             from :func:`schnauz_env.scat.hands.hand_value`
``pw``      (52,) float32    the pile weights of the observation, by depth
``gs``      (B, NF) int32    the scalar fields ``F_*`` below, and per seat lives,
                             out, buy-ins used, showdown values, decided seats
``cards``   (B, CW) int8     hands (7 x :data:`HS` slots, sorted, -1 after the last
                             card), the deck (the stock is ``deck[pos:]``) and the
                             discard pile (bottom first); cards are the rules floor's
                             card ints ``rank * 4 + suit``
``known``   (B, 7) int64     per seat: bitmask of the cards it drew from the pile and
                             still holds
``seatf``   (B, 35) float32  per seat: its five features of the observation's ``seats``
                             block (in seat order; the encoder rotates them), refreshed
                             when lives, outs or buy-ins change
``fl``      (B, 14) float64  per seat: reward paid so far (the AEC ``_returns``) and
                             final place (0 = not decided)
``rng``     (B, 3) int64     three xorshift32 generators per game (``RNG_*``)
``perms``   (B, K, 52) int8  external decks: the round decks in order
                             (``[:, :C_ROUND_DECKS]``), then queued tie-break decks
==========  ===============  =========================================================
"""

from __future__ import annotations

from collections import namedtuple
from itertools import combinations
from math import comb

import numpy as np

from schnauz_env.scat.config import MAX_PLAYERS, ScatConfig
from schnauz_env.scat.engine import DISCARD_LEGAL, DRAW_LEGAL, NUM_ACTIONS, REASONS
from schnauz_env.scat.hands import hand_value
from schnauz_env.scat.observation import NC, ObservationEncoder, pile_weight

MAXP = MAX_PLAYERS
#: Hand slots per seat: the largest hand (four-card Scat) plus the card drawn.
HS = max(DISCARD_LEGAL) + 1
#: Round-end reasons, coded by their index in the reference's ``REASONS``.
R_BLITZ_DEAL = REASONS.index("blitz_deal")
R_BLITZ = REASONS.index("blitz")
R_KNOCK = REASONS.index("knock")
R_EMPTY_STOCK = REASONS.index("empty_stock")
R_TURN_LIMIT = REASONS.index("turn_limit")

# --- cfg fields (int64) ----------------------------------------------------------------
C_N, C_H, C_LIVES, C_KNOCK_FIRST, C_BUY_INS, C_MAX_TURNS, C_ROUND_EP = 0, 1, 2, 3, 4, 5, 6
C_FIRST_DEALER, C_EXTERNAL, C_ROUND_DECKS, C_AUTO = 7, 8, 9, 10
#: The observation's block offsets (``ObservationLayout``), and its size.
C_O_HAND, C_O_TOP, C_O_PILE, C_O_KNOWN, C_O_SEATS = 11, 12, 13, 14, 15
C_O_DEALER, C_O_KNOCKER, C_O_TO_ACT, C_O_PHASE, C_O_STOCK, C_OBS_SIZE = 16, 17, 18, 19, 20, 21
NCFG = 22
#: The layout blocks each ``C_O_*`` field holds the start of.
OBS_BLOCKS = {
    C_O_HAND: "hand",
    C_O_TOP: "discard_top",
    C_O_PILE: "discard_pile",
    C_O_KNOWN: "known",
    C_O_SEATS: "seats",
    C_O_DEALER: "dealer",
    C_O_KNOCKER: "knocker",
    C_O_TO_ACT: "to_act",
    C_O_PHASE: "phase",
    C_O_STOCK: "stock",
}

#: The observation's sparse blocks, then its dense tail (from ``seats`` to the end,
#: rewritten whole by the encoder).
SPARSE_BLOCKS = ("hand", "discard_top", "discard_pile", "known")
DENSE_TAIL = ("seats", "dealer", "knocker", "to_act", "phase", "stock")
#: Room for the sparse entries a view sets (``nz`` rows: the count, then the indices):
#: the hand, the pile's top and every pile card, cards known in each opponent's hand.
OBS_ENTRIES = 1 + HS + 1 + NC + (MAXP - 1) * HS

# --- cff fields (float64) --------------------------------------------------------------
X_BUY_IN_SCALE, X_GREEDY2 = 0, 1
NCFF = 2

# --- gs fields (int32) ---------------------------------------------------------------
# What every step reads comes first (one cache line of 16 fields, then the seats'),
# the round's result and the scratch of round ends after.
F_DEALER, F_CURRENT, F_PHASE, F_STEP, F_KNOCKER, F_TURNS, F_FINAL_LEFT = 0, 1, 2, 3, 4, 5, 6
F_NACTIVE, F_POS, F_PILE, F_SHUF, F_OVER, F_ENDED, F_ERROR = 7, 8, 9, 10, 11, 12, 13
F_KNOWN_ANY = 14  # the seats holding cards known to the table (bits): ``known[g, s] != 0``
F_MAX_LIVES = 15  # the most lives any seat started with (the observation's scale)
F_LIVES = 16  # 7 seats each
F_OUT = F_LIVES + MAXP
F_USED = F_OUT + MAXP  # buy-ins used
F_ROUND = F_USED + MAXP
F_PERM_PTR, F_TB_PTR, F_TB_END = F_ROUND + 1, F_ROUND + 2, F_ROUND + 3
#: The latest round's result (the reference's ``RoundResult``), and this step's count.
F_REASON, F_SEATS, F_LOSERS, F_DOUBLE, F_WENT_OUT = range(F_ROUND + 4, F_ROUND + 9)
F_BOUGHT_IN, F_RES_KNOCKER, F_RES_BLITZ, F_TIE_BREAKS, F_NDEC = range(F_ROUND + 9, F_ROUND + 14)
F_BLITZ = F_ROUND + 14  # scratch: the blitz holders of the round being ended
F_VALS = F_BLITZ + 1  # twice each seat's hand value at the latest showdown
F_DEC = F_VALS + MAXP  # the seats whose places this step decided, in the reference's order
NF = 80  # (F_DEC + MAXP = 66, rounded up to whole cache lines)
#: Error codes in ``gs[:, F_ERROR]``.
ERR_ILLEGAL, ERR_NO_DECK, ERR_NO_TIE_BREAK_DECK = 1, 2, 3

# --- generators (columns of rng) ------------------------------------------------------
#: The deal (first dealer, one seed per round: a seed fixes every round's deck whatever
#: the players do), the round's lazy shuffle, and play (tie-break deals, random moves).
RNG_DEAL, RNG_ROUND, RNG_PLAY = 0, 1, 2
NRNG = 3

# --- cards layout (int8) ------------------------------------------------------------------
O_HANDS = 0
O_DECK = O_HANDS + MAXP * HS
O_PILE = O_DECK + NC
CW = O_PILE + NC

# --- fl layout (float64) ------------------------------------------------------------------
L_RET, L_PLACE = 0, MAXP
NFL = 2 * MAXP

#: ``COMB[k, x]`` = C(x, k): the combinatorial index of sorted cards c0 < c1 < ... is
#: ``COMB[1, c0] + COMB[2, c1] + ...`` (every hand of H cards gets one of 0 .. C(52, H) - 1).
COMB = np.array([[comb(x, k) for x in range(NC)] for k in range(HS)], dtype=np.int32)
#: The bit of a ``vals`` entry that marks a blitz (the rest is twice the hand value).
BLITZ_FLAG = 0x80

# --- legal actions (the reference's tables, by situation) ------------------------------
#: Situations: the draw step ``4 * final + 2 * stock_empty + knock_allowed`` (0..7, the
#: keys of ``DRAW_LEGAL``), the discard step of each hand size, and the game over.
M_DISCARD = len(DRAW_LEGAL)
M_OVER = M_DISCARD + len(DISCARD_LEGAL)
_LEGAL_SETS = [
    *(DRAW_LEGAL[(bool(m & 4), bool(m & 2), bool(m & 1))] for m in range(M_DISCARD)),
    *(DISCARD_LEGAL[size] for size in sorted(DISCARD_LEGAL)),
    (),
]
#: ``MASK_ROWS[m]``: the action mask of situation ``m`` (int8 per action).
MASK_ROWS = np.zeros((len(_LEGAL_SETS), NUM_ACTIONS), dtype=np.int8)
#: ``LEGAL_ACTS[m, :LEGAL_COUNT[m]]``: its legal actions in increasing order.
LEGAL_ACTS = np.zeros((len(_LEGAL_SETS), NUM_ACTIONS), dtype=np.int8)
LEGAL_COUNT = np.zeros(len(_LEGAL_SETS), dtype=np.int32)
for _m, _legal in enumerate(_LEGAL_SETS):
    MASK_ROWS[_m, list(_legal)] = 1
    LEGAL_ACTS[_m, : len(_legal)] = sorted(_legal)
    LEGAL_COUNT[_m] = len(_legal)
#: The discard-step situation of the smallest hand size (add ``hand size - that``).
MIN_HAND = min(DISCARD_LEGAL)


def aligned_zeros(shape: tuple[int, ...], dtype: type) -> np.ndarray:
    """A C-contiguous array of zeros whose data starts on a cache line (64 bytes), so
    that a row of ``gs`` (5 lines) starts on one."""
    size = int(np.prod(shape)) * np.dtype(dtype).itemsize
    raw = np.zeros(size + 64, dtype=np.uint8)
    start = -raw.ctypes.data % 64
    return raw[start : start + size].view(dtype).reshape(shape)


#: The arrays every rules kernel takes (see the module docstring).
ScatArrays = namedtuple(
    "ScatArrays",
    ["cfg", "cff", "vals", "pw", "gs", "cards", "known", "seatf", "fl", "rng", "perms"],
)

_VALUE_TABLES: dict[tuple[int, bool, int], np.ndarray] = {}


def value_table(config: ScatConfig) -> np.ndarray:
    """``(C(52, H),)`` uint8: every sorted hand of H cards, by combinatorial index.

    An entry is ``2 * hand_value(cards, config.trinca)`` (values are whole or half
    points, so doubled they are exact small integers), plus :data:`BLITZ_FLAG` when
    ``hand_value(cards, False) == config.blitz_value``: the reference's two questions
    about a hand, answered once per hand by the reference's own function.
    """
    key = (config.hand_size, config.trinca, config.blitz_value)
    table = _VALUE_TABLES.get(key)
    if table is None:
        size, trinca, blitz = key
        hands = list(combinations(range(NC), size))
        values = [hand_value(h, trinca) for h in hands]
        plain = [hand_value(h, False) for h in hands] if trinca else values
        entries = [
            int(2 * v) | (BLITZ_FLAG if p == blitz else 0)
            for v, p in zip(values, plain, strict=True)
        ]
        cards = np.array(hands, dtype=np.int64)
        index = sum(COMB[i + 1, cards[:, i]] for i in range(size))
        if max(values) * 2 >= BLITZ_FLAG:
            raise RuntimeError("a doubled Scat hand value no longer fits below BLITZ_FLAG")
        table = np.empty(comb(NC, size), dtype=np.uint8)
        table[index] = entries
        _VALUE_TABLES[key] = table
    return table


#: The observation's weight of a discard-pile card ``d`` cards below the top.
PILE_WEIGHTS = np.ascontiguousarray(pile_weight(np.arange(NC, dtype=np.float32)))


def config_vectors(config: ScatConfig, greedy_threshold: float) -> tuple[np.ndarray, np.ndarray]:
    """``(cfg, cff)`` for ``config``: its rules, observation offsets and scales."""
    cfg = np.zeros(NCFG, dtype=np.int64)
    cfg[C_N] = config.num_players
    cfg[C_H] = config.hand_size
    cfg[C_LIVES] = config.lives
    cfg[C_KNOCK_FIRST] = int(config.knock_on_first_turn)
    cfg[C_BUY_INS] = config.buy_ins
    cfg[C_MAX_TURNS] = config.max_turns
    cfg[C_ROUND_EP] = int(config.episode == "round")
    cfg[C_FIRST_DEALER] = -1 if config.first_dealer is None else config.first_dealer
    encoder = ObservationEncoder(config)
    blocks = [name for name, _, _ in encoder.layout.describe()]
    if blocks != [*SPARSE_BLOCKS, *DENSE_TAIL]:  # the encoder's clearing relies on it
        raise RuntimeError(f"the Scat observation's blocks changed: {blocks}")
    for field, block in OBS_BLOCKS.items():
        cfg[field] = encoder.layout[block].start
    cfg[C_OBS_SIZE] = encoder.size
    cff = np.zeros(NCFF, dtype=np.float64)
    cff[X_BUY_IN_SCALE] = encoder.seat_scales[1]
    cff[X_GREEDY2] = 2.0 * greedy_threshold
    return cfg, cff
