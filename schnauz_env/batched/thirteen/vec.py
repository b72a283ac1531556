"""The VecEnv's loop over Thirteen games: the learner's move, then the opponents', in one
kernel.

:func:`k_vec` is :func:`schnauz_env.batched.schnauz.loop.k_vec` for Thirteen: it drives
:class:`schnauz_env.vector.ThirteenVecEnv`, with the codes of
:mod:`schnauz_env.batched.learner_loop`. It plays the rules of :mod:`.rules`, writes the
views of :mod:`.observe` and plays the built-in players of :mod:`.players` (random,
greedy); any other opponent is asked for from outside. The move, the deal and the
views are inlined into the loop, each where it is needed once: compiled as functions
of their own, called with the state's arrays, they cost more than the work they do
(the same as :func:`schnauz_env.batched.thirteen.kernels.k_step` found).
"""

from __future__ import annotations

import numpy as np

from schnauz_env.batched import learner_loop as LL
from schnauz_env.batched.common import unmanaged, unmanaged_fields
from schnauz_env.batched.jit import njit
from schnauz_env.batched.thirteen import rules as R
from schnauz_env.batched.thirteen.kernels import write_mask
from schnauz_env.batched.thirteen.layout import (
    C_N,
    ERR_ILLEGAL,
    F_CURRENT,
    F_ERROR,
    F_OVER,
    F_SETTLED,
    L_PLACE,
    RNG_PLAY,
    P,
)
from schnauz_env.batched.thirteen.observe import encode
from schnauz_env.batched.thirteen.players import greedy_action, random_action


@njit
def k_vec(tb, st, buf, games, seat_mode, want_opp_obs):
    """Advance each of ``games`` to the learner's next decision (the VecEnv's loop, with
    the buffers and bookkeeping of :mod:`schnauz_env.batched.learner_loop`).

    A game first plays the action it was given (the learner's, or an opponent's from
    outside), or is dealt (stage ``S_RESET``). Then the opponents move (``opp_kinds[g]``:
    random or greedy, drawn here; otherwise the game stops in ``S_NEED_OPP`` with the
    opponent's mask, and with ``want_opp_obs`` its view) until the learner is to act, its
    view and mask written, or its episode ends (its place is decided: it went out, or the game or match is over): then its summed reward, last view
    and place are written and a new game starts at once, the learner seated at
    ``seat_mode`` (or a random seat when it is negative). An episode in which the learner
    never got to act is dealt again unseen. Returns the number of games given an
    illegal action (flagged in ``gs[:, F_ERROR]``).
    """
    tb = unmanaged_fields(tb)
    st = unmanaged_fields(st)
    buf = unmanaged_fields(buf)
    games = unmanaged(games)
    gs, fl = st.gs, st.fl
    rew = buf.rew
    n = st.cfg[C_N]
    errors = 0
    no_scores = np.full(P, -1, dtype=np.int32)
    for idx in range(games.shape[0]):
        g = games[idx]
        a, fresh = LL.given_action(buf, g)
        if not fresh and not R.is_legal(st, g, a):
            gs[g, F_ERROR] = ERR_ILLEGAL
            errors += 1
            continue
        learner = LL.accept(buf, g)
        current = -1
        while True:
            if a >= 0:  # the one copy of a move: the action given, then the opponents'
                for s in range(P):
                    rew[g, s] = 0.0
                R.apply(tb, st, rew, g, a)
                R.refresh_legal(tb, st, g)
                buf.vacc[g] += rew[g, learner]
                a = -1
            if fresh or gs[g, F_OVER] or (gs[g, F_SETTLED] >> learner) & 1:
                if not fresh and LL.end_episode(buf, g, fl[g, L_PLACE + learner]):
                    encode(tb, st, g, learner, buf.term_obs, g)
                R.new_game(tb, st, g, no_scores)
                R.refresh_legal(tb, st, g)
                learner = LL.seat_learner(buf, g, seat_mode, n, st.rng, RNG_PLAY)
                fresh = False
                continue
            current = gs[g, F_CURRENT]
            if current == learner:
                break
            kind = buf.opp_kinds[g]
            if kind == LL.OPP_RANDOM:
                a = random_action(st, g)
            elif kind == LL.OPP_GREEDY:
                a = greedy_action(tb, st, g)
            else:
                break
        view, mask = LL.wait(buf, g, learner, current)
        write_mask(st.bits, mask, g)
        if current == learner or want_opp_obs:
            encode(tb, st, g, current, view, g)
    return errors
