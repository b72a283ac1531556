"""The arrays of B Schnauz games: what each row, field and slot holds.

State of B games (all rows C-contiguous, one row per game), the fields of
:class:`State`:

==========  ===============  =========================================================
array       shape / dtype    contents
==========  ===============  =========================================================
``cfg``     (NCFG,) int64    the rules (``C_*`` below)
``keys``    (N, N, N) int32  :func:`~schnauz_env.schnauz.hands.key_table`: the hand key
                             of every sorted triple of local card ids
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

Every rule fact (action ids, phases, round-end reasons, the hand-key layout, the
observation's blocks, the number of seats) is imported from the rules floor; what is
defined here is only where the batched engine keeps things.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from schnauz_env.cards import RANKS
from schnauz_env.schnauz.config import DECK_VARIANTS, MAX_PLAYERS, SchnauzConfig
from schnauz_env.schnauz.engine import REASONS
from schnauz_env.schnauz.observation import ObservationLayout


class State(NamedTuple):
    """The arrays of B games, in the order the kernels take them first (see the module
    docstring); :attr:`BatchedSchnauz.kernel_state
    <schnauz_env.batched.schnauz.engine.BatchedSchnauz.kernel_state>` is one."""

    cfg: np.ndarray
    keys: np.ndarray
    gs: np.ndarray
    cards: np.ndarray
    known: np.ndarray
    fl: np.ndarray
    rng: np.ndarray
    perms: np.ndarray


#: Round-end reasons, codes into :data:`~schnauz_env.schnauz.engine.REASONS`.
R_KNOCK, R_INSTANT, R_SHORT_STOCK, R_TURN_LIMIT = (
    REASONS.index(r) for r in ("knock", "instant", "short_stock", "turn_limit")
)

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
F_KEYS = 40  # 6 seats, scratch of the showdown: the hand keys, then the seats it decided
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
MAXP = MAX_PLAYERS
#: The largest deck of any variant.
MAX_DECK = 4 * (len(RANKS) - min(DECK_VARIANTS.values()))
O_HANDS = 0  # 3 per seat
O_TABLE = O_HANDS + 3 * MAXP
O_STOCK = O_TABLE + 3
O_OOP = O_STOCK + MAX_DECK
CW = (O_OOP + MAX_DECK + 7) // 8 * 8

# --- fl layout ---------------------------------------------------------------------
L_RET, L_PLACE = 0, MAXP
NFL = 2 * MAXP


# --- observation layout --------------------------------------------------------------
def _affine_starts() -> dict[str, tuple[int, int]]:
    """Where each of :class:`ObservationLayout`'s blocks starts (and, as ``"end"``, its
    size), as ``(per_card, fixed)``: ``per_card * deck_size + fixed``. Read off the
    layouts of two deck variants and checked on every variant, so the layout stays the
    one source, and a layout that is not affine in the deck size fails here, at import."""
    layouts = [ObservationLayout(SchnauzConfig(deck=deck)) for deck in DECK_VARIANTS]
    names = [*(name for name, _, _ in layouts[0].describe()), "end"]
    starts = [[*(start for _, start, _ in lay.describe()), lay.size] for lay in layouts]
    n0, n1 = layouts[0].num_cards, layouts[1].num_cards
    per_card = [(b - a) // (n1 - n0) for a, b in zip(starts[0], starts[1], strict=True)]
    fixed = [a - k * n0 for a, k in zip(starts[0], per_card, strict=True)]
    for lay, row in zip(layouts, starts, strict=True):
        if row != [k * lay.num_cards + f for k, f in zip(per_card, fixed, strict=True)]:
            raise RuntimeError("the Schnauz observation layout is not affine in the deck size")
    return {name: (k, f) for name, k, f in zip(names, per_card, fixed, strict=True)}


#: Each block's start, and the size (``OB_END``), as ``(per_card, fixed)`` pairs:
#: module constants numba folds, so the encoder's offsets cost a multiply-add each
#: (:func:`~schnauz_env.batched.schnauz.encode.block_start`).
OBS_STARTS = _affine_starts()
OB_HAND, OB_TABLE, OB_OOP, OB_KNOWN, OB_SEATS, OB_DEALER = (
    OBS_STARTS[b] for b in ("hand", "table", "out_of_play", "known", "seats", "dealer")
)
OB_KNOCKER, OB_TO_ACT, OB_PHASE, OB_PASSES, OB_STOCK, OB_END = (
    OBS_STARTS[b] for b in ("knocker", "to_act", "phase", "passes", "stock", "end")
)
