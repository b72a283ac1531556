"""The compiled loops over games (``k_*``): reset, step, observe, the built-in players, and
the single-agent loop of :class:`schnauz_env.vector.SchnauzVecEnv`.

Each kernel takes the state first, whole (``engine.kernel_state``, a
:class:`~schnauz_env.batched.schnauz.state.State`; the engine calls the hot ones through
:class:`~schnauz_env.batched.jit.SameTypes`, which types it once), and re-views its
arrays unmanaged on entry (:func:`~schnauz_env.batched.jit.unmanaged_fields`).
:func:`k_vec` takes the eight arrays as separate arguments (``*engine.kernel_state``,
as the VecEnv passes them).
"""

from __future__ import annotations

import sys

import numpy as np

from schnauz_env.batched import learner_loop as LL
from schnauz_env.batched.common import unmanaged, unmanaged_each, unmanaged_fields
from schnauz_env.batched.jit import njit
from schnauz_env.batched.learner_loop import OPP_EXTERNAL  # noqa: F401 (batched.kernels finds it)
from schnauz_env.batched.schnauz import bots
from schnauz_env.batched.schnauz import encode as E
from schnauz_env.batched.schnauz import state as S
from schnauz_env.batched.schnauz.rules import is_legal, new_game, play
from schnauz_env.batched.schnauz.state import (
    C_N,
    F_CURRENT,
    F_ERROR,
    F_OUT,
    F_OVER,
    MAXP,
    RNG_PLAY,
    State,
)
from schnauz_env.batched.step_loop import step_loop
from schnauz_env.schnauz.engine import NUM_ACTIONS


@njit
def k_reset(st, dealers, lives, mask, obs, want_obs, games):
    """Start a new game in each of ``games``; write its mask (and the dealer's view)."""
    cfg, keys, gs, cards, known, fl, rng, perms = unmanaged_fields(st)
    dealers, lives, mask, obs, games = unmanaged_each((dealers, lives, mask, obs, games))
    for idx in range(games.shape[0]):
        g = games[idx]
        new_game(cfg, gs, cards, known, fl, rng, perms, g, dealers[g], lives[g])
        E.write_mask(cfg, gs, mask, g)
        if want_obs:
            E.encode(cfg, gs, cards, known, g, gs[g, F_CURRENT], obs, g)
    errors = 0
    for idx in range(games.shape[0]):
        if gs[games[idx], F_ERROR]:
            errors += 1
    return errors


@njit
def k_step(
    st,
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
    st = unmanaged_fields(st)
    rew, mask, obs = unmanaged_each((rew, mask, obs))
    outputs = unmanaged_each((ended, round_over, final_places))
    actions, no_lives = unmanaged_each((actions, no_lives))
    return step(st, no_lives, None, actions, rew, mask, obs, want_obs, auto_reset, *outputs)


@njit
def k_observe(st, games, seats, obs):
    """The view of ``seats[i]`` in game ``games[i]``, into ``obs[i]``."""
    cfg, keys, gs, cards, known, fl, rng, perms = unmanaged_fields(st)
    games, seats, obs = unmanaged_each((games, seats, obs))
    for i in range(games.shape[0]):
        E.encode(cfg, gs, cards, known, games[i], seats[i], obs, i)


@njit
def k_random_actions(st, out):
    """:func:`~schnauz_env.batched.schnauz.bots.random_action` of every game, into ``out``."""
    st = unmanaged_fields(st)
    out = unmanaged(out)
    for g in range(out.shape[0]):
        out[g] = bots.random_action(st.cfg, st.gs, st.rng, g)


@njit
def k_greedy_actions(st, out):
    """:func:`~schnauz_env.batched.schnauz.bots.greedy_action` of every game, into ``out``."""
    st = unmanaged_fields(st)
    out = unmanaged(out)
    for g in range(out.shape[0]):
        out[g] = bots.greedy_action(st.cfg, st.keys, st.gs, st.cards, g)


@njit
def k_play_random(st, rew, obs, steps, want_obs):
    """``steps`` agent-steps of random legal play in every game, auto-resetting.

    Returns the number of agent-steps taken (a benchmark of the bare engine: the same
    ``play`` / ``encode`` as :func:`k_step`, with actions drawn inside the loop).
    """
    cfg, keys, gs, cards, known, fl, rng, perms = unmanaged_fields(st)
    rew, obs = unmanaged_each((rew, obs))
    total = 0
    no_lives = np.full(MAXP, -1, dtype=np.int32)
    for g in range(gs.shape[0]):
        for _ in range(steps):
            a = bots.random_action(cfg, gs, rng, g)
            play(cfg, keys, gs, cards, known, fl, rng, perms, rew, g, a)
            total += 1
            if gs[g, F_OVER]:
                new_game(cfg, gs, cards, known, fl, rng, perms, g, -1, no_lives)
            if want_obs:
                E.encode(cfg, gs, cards, known, g, gs[g, F_CURRENT], obs, g)
    return total


# ------------------------------------------------------------- single-agent view
# The Schnauz steps of the VecEnv's loop (:func:`~schnauz_env.batched.learner_loop.learner_loop`)
# and of k_step's (:func:`~schnauz_env.batched.step_loop.step_loop`), on the context
# :func:`k_vec` and :func:`k_step` pass: the state ``x``, ``y`` no lives given (``z`` unused).
@njit(inline=True)
def legal(x, y, z, g, a):
    return 0 <= a < NUM_ACTIONS and is_legal(x.cfg, x.gs, g, a)


@njit(inline=True)
def move(x, y, z, g, a, rew):
    return play(x.cfg, x.keys, x.gs, x.cards, x.known, x.fl, x.rng, x.perms, rew, g, a)


@njit(inline=True)
def settled(x, y, z, g, learner):
    return x.gs[g, F_OUT + learner] != 0


@njit(inline=True)
def restart(x, y, z, g):
    new_game(x.cfg, x.gs, x.cards, x.known, x.fl, x.rng, x.perms, g, -1, y)


@njit(inline=True)
def deal(x, y, z, buf, g, seat_mode):
    restart(x, y, z, g)
    return LL.seat_learner(buf, g, seat_mode, x.cfg[C_N], x.rng, RNG_PLAY)


@njit(inline=True)
def random_action(x, y, z, g):
    return bots.random_action(x.cfg, x.gs, x.rng, g)


@njit(inline=True)
def greedy_action(x, y, z, g):
    return bots.greedy_action(x.cfg, x.keys, x.gs, x.cards, g)


@njit(inline=True)
def write_mask(x, y, z, g, mask):
    E.write_mask(x.cfg, x.gs, mask, g)


@njit(inline=True)
def write_view(x, y, z, g, seat, out, which):
    E.encode(x.cfg, x.gs, x.cards, x.known, g, seat, out, g)


run = LL.learner_loop(sys.modules[__name__], S)
step = step_loop(sys.modules[__name__], S)


@njit
def k_vec(cfg, keys, gs, cards, known, fl, rng, perms, buf, games, seat_mode, want_opp_obs):
    """Advance each of ``games`` to the learner's next decision (see
    :func:`~schnauz_env.batched.learner_loop.learner_loop`). Returns the number of games
    given an illegal action (flagged in ``gs[:, F_ERROR]``)."""
    st = unmanaged_fields(State(cfg, keys, gs, cards, known, fl, rng, perms))
    no_lives = np.full(MAXP, -1, dtype=np.int32)
    buf = unmanaged_fields(buf)
    return run(st, no_lives, None, buf, unmanaged(games), seat_mode, want_opp_obs)
