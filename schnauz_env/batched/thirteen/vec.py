"""The VecEnv's loop over Thirteen games: the learner's move, then the opponents', in one
kernel.

:func:`k_vec` drives :class:`schnauz_env.vector.ThirteenVecEnv`: the loop of
:func:`schnauz_env.batched.learner_loop.learner_loop`, compiled with the Thirteen steps
below, on the context ``x, y, z``: the state, the tables, no scores given. They play the rules of
:mod:`.rules`, write the views of :mod:`.observe` and play the built-in players of
:mod:`.players` (random, greedy); any other opponent is asked for from outside. The
move, the deal and the views are inlined into the loop, each where it is needed once:
compiled as functions of their own, called with the state's arrays, they cost more
than the work they do (the same as :func:`schnauz_env.batched.thirteen.kernels.k_step`
found).
"""

from __future__ import annotations

import sys

import numpy as np

from schnauz_env.batched import learner_loop as LL
from schnauz_env.batched.common import unmanaged, unmanaged_fields
from schnauz_env.batched.jit import njit
from schnauz_env.batched.thirteen import kernels as K
from schnauz_env.batched.thirteen import layout, players
from schnauz_env.batched.thirteen import rules as R
from schnauz_env.batched.thirteen.layout import (
    C_N,
    F_SETTLED,
    RNG_PLAY,
    P,
)
from schnauz_env.batched.thirteen.observe import encode


# ------------------------------------------------------------------ the game's steps
@njit(inline=True)
def legal(x, y, z, g, a):
    return R.is_legal(x, g, a)


@njit(inline=True)
def move(x, y, z, g, a, rew):
    R.apply(y, x, rew, g, a)
    R.refresh_legal(y, x, g)


@njit(inline=True)
def settled(x, y, z, g, learner):
    return ((x.gs[g, F_SETTLED] >> learner) & 1) != 0


@njit(inline=True)
def deal(x, y, z, buf, g, seat_mode):
    R.new_game(y, x, g, z)
    R.refresh_legal(y, x, g)
    return LL.seat_learner(buf, g, seat_mode, x.cfg[C_N], x.rng, RNG_PLAY)


@njit(inline=True)
def random_action(x, y, z, g):
    return players.random_action(x, g)


@njit(inline=True)
def greedy_action(x, y, z, g):
    return players.greedy_action(y, x, g)


@njit(inline=True)
def write_mask(x, y, z, g, mask):
    K.write_mask(x.bits, mask, g)


@njit(inline=True)
def write_view(x, y, z, g, seat, out, which):
    encode(y, x, g, seat, out, g)


run = LL.learner_loop(sys.modules[__name__], layout)


@njit
def k_vec(tb, st, buf, games, seat_mode, want_opp_obs):
    """Advance each of ``games`` to the learner's next decision (see
    :func:`~schnauz_env.batched.learner_loop.learner_loop`). Returns the number of games
    given an illegal action (flagged in ``gs[:, F_ERROR]``)."""
    tb, st, buf = unmanaged_fields(tb), unmanaged_fields(st), unmanaged_fields(buf)
    no_scores = np.full(P, -1, dtype=np.int32)
    return run(st, tb, no_scores, buf, unmanaged(games), seat_mode, want_opp_obs)
