"""The VecEnv's loop over Scat games: the learner's move, then the opponents', in one kernel.

:func:`k_vec` drives :class:`schnauz_env.vector.ScatVecEnv`: the loop of
:func:`schnauz_env.batched.learner_loop.learner_loop`, compiled with the Scat steps
below. They play the rules of :mod:`.rules`, write the views of :mod:`.observe` and
play the built-in players of :mod:`.players` (random, greedy); any other opponent is
asked for from outside. Rewards earned before the learner's first move of an episode
(a blitz after the deal, ``rew0``) are paid with that move.

The steps take the context that :func:`k_vec` passes: the state ``x`` (a
:class:`~schnauz_env.batched.scat.layout.ScatArrays` of unmanaged arrays), ``y`` the
rewards of first deals (``rew0``) and the encoder's records of the entries set in the
learner's, the last and the opponents' views (see ``observe.encode``), and ``z``
scratch (no lives given, a hand). The same steps, with ``restart`` (a game dealt again
after its episode ended), make the step kernel's loop, :data:`step`
(:func:`schnauz_env.batched.step_loop.step_loop`), which
:func:`schnauz_env.batched.scat.kernels.k_step` runs with one record for every view.
"""

from __future__ import annotations

import sys

import numpy as np

from schnauz_env.batched import learner_loop as LL
from schnauz_env.batched.common import unmanaged, unmanaged_each, unmanaged_fields
from schnauz_env.batched.jit import njit
from schnauz_env.batched.scat import layout, players
from schnauz_env.batched.scat import observe as O
from schnauz_env.batched.scat.layout import (
    C_AUTO,
    C_N,
    F_ERROR,
    F_OUT,
    F_OVER,
    HS,
    MASK_ROWS,
    MAXP,
    RNG_PLAY,
    ScatArrays,
)
from schnauz_env.batched.scat.rules import new_game, play
from schnauz_env.batched.step_loop import step_loop
from schnauz_env.scat.engine import NUM_ACTIONS


# ------------------------------------------------------------------ the game's steps
@njit(inline=True)
def legal(x, y, z, g, a):
    cfg, gs = x.cfg, x.gs
    return 0 <= a < NUM_ACTIONS and MASK_ROWS[O.situation(cfg, gs, g), a] != 0


@njit(inline=True)
def move(x, y, z, g, a, rew):
    return play(x, g, a, rew)


@njit(inline=True)
def settled(x, y, z, g, learner):
    return x.gs[g, F_OUT + learner] != 0


@njit(inline=True)
def fresh_game(st, g, dealer, lives, rew0):
    """:func:`new_game`; with auto-reset, a game that ends on its deal (a blitz after the
    deal in a single-round episode, or the last opponents going out) is dealt again
    unseen, so every game returned has a move to make."""
    while True:
        new_game(st, g, dealer, lives, rew0)
        if not (st.cfg[C_AUTO] and st.gs[g, F_OVER]) or st.gs[g, F_ERROR]:
            return


@njit(inline=True)
def restart(x, y, z, g):
    fresh_game(x, g, -1, z[0], y[0])


@njit(inline=True)
def deal(x, y, z, buf, g, seat_mode):
    rew0 = y[0]
    new_game(x, g, -1, z[0], rew0)
    learner = LL.seat_learner(buf, g, seat_mode, x.cfg[C_N], x.rng, RNG_PLAY)
    buf.vacc[g] += rew0[g, learner]
    return learner


@njit(inline=True)
def random_action(x, y, z, g):
    return players.random_action(x, g)


@njit(inline=True)
def greedy_action(x, y, z, g):
    return players.greedy_action(x, g, z[1])


@njit(inline=True)
def write_mask(x, y, z, g, mask):
    O.write_mask(x.cfg, x.gs, mask, g)


@njit(inline=True)
def write_view(x, y, z, g, seat, out, which):
    nz = y[1] if which == LL.VIEW_LEARNER else y[2] if which == LL.VIEW_TERM else y[3]
    O.encode(x, g, seat, out, nz, g, False)


run = LL.learner_loop(sys.modules[__name__], layout)
step = step_loop(sys.modules[__name__], layout)


@njit
def k_vec(
    cfg,
    cff,
    vals,
    pw,
    gs,
    cards,
    known,
    seatf,
    fl,
    rng,
    perms,
    rew0,
    obs_nz,
    term_nz,
    opp_nz,
    buf,
    games,
    seat_mode,
    want_opp_obs,
):
    """Advance each of ``games`` to the learner's next decision (see
    :func:`~schnauz_env.batched.learner_loop.learner_loop`); the state's arrays first
    (``*eng.arrays``), then ``rew0`` and the encoder's records of the entries set in
    ``obs``, ``term_obs`` and ``opp_obs``. Returns the number of games given an illegal
    action (flagged in ``gs[:, F_ERROR]``)."""
    st = unmanaged_fields(ScatArrays(cfg, cff, vals, pw, gs, cards, known, seatf, fl, rng, perms))
    records = unmanaged_each((rew0, obs_nz, term_nz, opp_nz))
    scratch = (np.full(MAXP, -1, dtype=np.int32), np.empty((1, HS), dtype=np.int8))
    buf = unmanaged_fields(buf)
    return run(st, records, scratch, buf, unmanaged(games), seat_mode, want_opp_obs)
