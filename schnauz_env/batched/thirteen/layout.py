"""Where the batched Thirteen engine keeps each game: the columns of its state arrays.

State of B games, one row per game (all C-contiguous):

==========  ===============  ============================================================
array       shape / dtype    contents
==========  ===============  ============================================================
``cfg``     (NCFG,) int64    the rules (``C_*``)
``cfgf``    (NCFGF,) float64 the encoder's scales (``CF_*``)
``gs``      (B, NF) int32    the scalar fields ``F_*`` below (seats, phase, table, scores)
``bits``    (B, NB) int64    card sets as bits of Thirteen strength (bit ``s`` = the card
                             of strength ``s``, the column of the observation and the
                             action selecting it): hands, table, selection, cards played;
                             and the legal actions of the player to act (bit ``a``)
``fl``      (B, NL) float64  per seat: reward paid so far (the AEC env's ``_returns``) and
                             final place (0 = not decided)
``rng``     (B, NRNG) int64  per game, xorshift32 states (``RNG_*``): the deals, and play
                             (random actions)
``deck``    (B, 52) int8     the deck of the game being dealt (card ints, top first)
``perms``   (B, K, 52) int8  external mode: the deck of each game of the match, what
                             ``rng.permutation(52)`` returned in the reference
==========  ===============  ============================================================
"""

from __future__ import annotations

from collections import namedtuple

from schnauz_env.cards import ALL_CARDS
from schnauz_env.thirteen.config import MAX_PLAYERS
from schnauz_env.thirteen.engine import REASONS

P = MAX_PLAYERS
DECK_SIZE = len(ALL_CARDS)

#: The state arrays of B games, in the order of the table above (the kernels take one).
State = namedtuple("State", ["cfg", "cfgf", "gs", "bits", "fl", "rng", "deck", "perms"])

# --- cfg fields ----------------------------------------------------------------------
C_N = 0  # players
C_MATCH = 1  # episode "match" (1) or "game" (0)
C_TARGET = 2  # target points of a match
C_INCLUDE = 3  # opening "include" (1) or "free" (0)
C_OUT_CLEARS = 4
C_INSTANT = 5  # instant wins on
C_MAX_GAMES = 6
C_EXTERNAL = 7  # decks from ``perms`` (1) or shuffled by the games' own generators (0)
C_DECKS = 8  # external mode: decks per game in ``perms``
NCFG = 9
# --- cfgf fields ---------------------------------------------------------------------
CF_SCORE_SCALE = 0  # ObservationEncoder.score_scale
NCFGF = 1

# --- gs fields -------------------------------------------------------------------------
F_CURRENT, F_PHASE, F_OVER, F_LEADER, F_GAME = 0, 1, 2, 3, 4
F_TABLE_BY, F_TABLE_KS, F_TABLE_TOP = 5, 6, 7  # -1: the table is clear
F_OPENING = 8  # strength of the card the first play must include (-1: none)
F_SEL_K, F_SEL_FIRST, F_SEL_MAX = 9, 10, 11  # the selection: size, lowest and highest card
F_PASSED = 12  # seats that passed on this table (bits)
F_NOUT = 13  # seats out of cards this game
F_ERROR = 14
F_PERM_PTR = 15  # external mode: the next deck of ``perms``
F_SETTLED = 16  # seats whose place is decided (bits; the AEC env's ``_settled``)
# the latest result (the reference's ``last_result``)
F_REASON, F_WENT_OUT, F_RES_GAME, F_MATCH_OVER, F_LIMIT, F_INSTANT_WIN = 17, 18, 19, 20, 21, 22
F_DECIDED = 23  # seats whose place the latest result decided (bits)
F_RES_NOUT = 24  # length of the latest result's finish order
F_OBS_SEAT = 25  # whose view of the current state the ``obs`` row holds (-1: none)
F_FINISH = 28  # P seats: finish order of this game
F_RES_FINISH = 32  # P seats: the latest result's finish order
F_SCORES = 36  # P seats: match points
F_POINTS = 40  # P seats: points of the latest game over
F_ORDER = 44  # P seats: the seats a result decides, in the result's order (scratch)
NF = 48
#: Error codes in ``gs[:, F_ERROR]``.
ERR_ILLEGAL, ERR_NO_DECK = 1, 2
#: Reasons of a result: codes into :data:`~schnauz_env.thirteen.engine.REASONS`.
R_OUT, R_GAME_OVER, R_INSTANT = (REASONS.index(r) for r in ("out", "game_over", "instant_win"))

# --- bits columns ---------------------------------------------------------------------
B_HAND = 0  # P seats
B_TABLE, B_SEL, B_PLAYED, B_LEGAL = 4, 5, 6, 7
NB = 8

# --- fl columns ---------------------------------------------------------------------
L_RET, L_PLACE = 0, P
NL = 2 * P

# --- generators -----------------------------------------------------------------------
RNG_DEAL, RNG_PLAY = 0, 1
NRNG = 2
