"""The VecEnv's loop over Scat games: the learner's move, then the opponents', in one kernel.

:func:`k_vec` is :func:`schnauz_env.batched.schnauz.loop.k_vec` for Scat: it drives
:class:`schnauz_env.vector.ScatVecEnv`, with the codes of
:mod:`schnauz_env.batched.learner_loop`. It plays the rules of :mod:`.rules`, writes the
views of :mod:`.observe` and the built-in players of :mod:`.players` (random, greedy);
any other opponent is asked for from outside.
"""

from __future__ import annotations

import numpy as np

from schnauz_env.batched import learner_loop as LL
from schnauz_env.batched.common import unmanaged, unmanaged_fields
from schnauz_env.batched.jit import njit
from schnauz_env.batched.scat.layout import (
    C_N,
    ERR_ILLEGAL,
    F_CURRENT,
    F_ERROR,
    F_OUT,
    F_OVER,
    HS,
    L_PLACE,
    MASK_ROWS,
    MAXP,
    RNG_PLAY,
)
from schnauz_env.batched.scat.observe import encode, situation, write_mask
from schnauz_env.batched.scat.players import greedy_action, random_action
from schnauz_env.batched.scat.rules import new_game, play, state_of
from schnauz_env.scat.engine import NUM_ACTIONS


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
    """Advance each of ``games`` to the learner's next decision (the VecEnv's loop, with
    the buffers and bookkeeping of :mod:`schnauz_env.batched.learner_loop`).

    A game first plays the action it was given (the learner's, or an opponent's from
    outside), or is dealt (stage ``S_RESET``). Then the opponents move (``opp_kinds[g]``:
    random or greedy, drawn here; otherwise the game stops in ``S_NEED_OPP`` with the
    opponent's mask, and with ``want_opp_obs`` its view) until the learner is to act, its
    view and mask written, or its episode ends (it went out, or the game is over): then its summed reward, last view
    and place are written and a new game starts at once, the learner seated at
    ``seat_mode`` (or a random seat when it is negative). An episode in which the learner
    never got to act is dealt again unseen. Rewards earned before the
    learner's first move of an episode (a blitz after the deal, ``rew0``) are paid with
    that move. ``obs_nz``, ``term_nz`` and ``opp_nz`` are the encoder's records of the
    entries set in ``obs``, ``term_obs`` and ``opp_obs`` (see ``observe.encode``). Returns the number of games given an
    illegal action (flagged in ``gs[:, F_ERROR]``).
    """
    st = state_of(cfg, cff, vals, pw, gs, cards, known, seatf, fl, rng, perms)
    buf = unmanaged_fields(buf)
    rew0 = unmanaged(rew0)
    obs_nz = unmanaged(obs_nz)
    term_nz = unmanaged(term_nz)
    opp_nz = unmanaged(opp_nz)
    games = unmanaged(games)
    cfg, gs, fl = st.cfg, st.gs, st.fl
    rew = buf.rew
    n = cfg[C_N]
    errors = 0
    no_lives = np.full(MAXP, -1, dtype=np.int32)
    hand = np.empty((1, HS), dtype=np.int8)
    for idx in range(games.shape[0]):
        g = games[idx]
        a, fresh = LL.given_action(buf, g)
        if not fresh and (a < 0 or a >= NUM_ACTIONS or not MASK_ROWS[situation(cfg, gs, g), a]):
            gs[g, F_ERROR] = ERR_ILLEGAL
            errors += 1
            continue
        learner = LL.accept(buf, g)
        current = -1
        while True:
            if a >= 0:  # the one copy of a move: the action given, then the opponents'
                for s in range(n):
                    rew[g, s] = 0.0
                play(st, g, a, rew)
                buf.vacc[g] += rew[g, learner]
                a = -1
            if fresh or gs[g, F_OVER] or gs[g, F_OUT + learner]:
                if not fresh and LL.end_episode(buf, g, fl[g, L_PLACE + learner]):
                    encode(st, g, learner, buf.term_obs, term_nz, g, False)
                new_game(st, g, -1, no_lives, rew0)
                learner = LL.seat_learner(buf, g, seat_mode, n, st.rng, RNG_PLAY)
                buf.vacc[g] += rew0[g, learner]
                fresh = False
                continue
            current = gs[g, F_CURRENT]
            if current == learner:
                break
            kind = buf.opp_kinds[g]
            if kind == LL.OPP_RANDOM:
                a = random_action(st, g)
            elif kind == LL.OPP_GREEDY:
                a = greedy_action(st, g, hand)
            else:
                break
        view, mask = LL.wait(buf, g, learner, current)
        write_mask(cfg, gs, mask, g)
        if current == learner or want_opp_obs:
            encode(st, g, current, view, obs_nz if current == learner else opp_nz, g, False)
    return errors
