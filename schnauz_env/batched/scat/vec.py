"""The VecEnv's loop over Scat games: the learner's move, then the opponents', in one kernel.

:func:`k_vec` is :func:`schnauz_env.batched.schnauz.loop.k_vec` for Scat: it drives
:class:`schnauz_env.vector.ScatVecEnv`, with the codes of
:mod:`schnauz_env.batched.learner_loop`. It plays the rules of :mod:`.rules`, writes the
views of :mod:`.observe` and the built-in players of :mod:`.players` (random, greedy);
any other opponent is asked for from outside.
"""

from __future__ import annotations

import numpy as np

from schnauz_env.batched.common import rand_below, unmanaged
from schnauz_env.batched.jit import njit
from schnauz_env.batched.learner_loop import (
    OPP_GREEDY,
    OPP_RANDOM,
    S_NEED_OPP,
    S_READY,
    S_RESET,
    V_ACTED,
    V_LEARNER,
    V_STAGE,
)
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
    rew,
    rew0,
    vs,
    vacc,
    games,
    actions,
    opp_actions,
    opp_kinds,
    seat_mode,
    obs,
    obs_nz,
    mask,
    term_obs,
    term_nz,
    term_place,
    reward_out,
    done,
    need,
    opp_obs,
    opp_nz,
    opp_mask,
    want_opp_obs,
):
    """Advance each of ``games`` to the learner's next decision.

    A game in stage ``S_READY`` first plays the learner's ``actions[g]``; one in
    ``S_NEED_OPP`` plays ``opp_actions[g]``; one in ``S_RESET`` starts a new game.
    Then the opponents move (``opp_kinds[g]``: random or greedy, drawn here; otherwise the
    game stops in ``S_NEED_OPP`` with the opponent's view in ``opp_obs`` and mask in
    ``opp_mask``) until the learner is to act, its view and mask written, or its
    episode ends (it went out, or the game is over): then ``done[g]``, its summed
    reward, its last view (``term_obs``) and place (``term_place``) are written and a
    new game starts at once, the learner seated at ``seat_mode`` (or a random seat when
    it is negative). A game whose learner never got to act (its deal ended the game,
    or the learner's place) is dealt again unseen. Rewards earned before the learner's
    first move of an episode (a blitz after the deal) are paid with that move.
    ``obs_nz``, ``term_nz`` and ``opp_nz`` are the encoder's records of the entries set
    in ``obs``, ``term_obs`` and ``opp_obs`` (see ``observe.encode``). Returns the
    number of games given an illegal action (flagged in ``gs[:, F_ERROR]``).
    """
    st = state_of(cfg, cff, vals, pw, gs, cards, known, seatf, fl, rng, perms)
    rew = unmanaged(rew)
    rew0 = unmanaged(rew0)
    vs = unmanaged(vs)
    vacc = unmanaged(vacc)
    games = unmanaged(games)
    actions = unmanaged(actions)
    opp_actions = unmanaged(opp_actions)
    opp_kinds = unmanaged(opp_kinds)
    obs = unmanaged(obs)
    obs_nz = unmanaged(obs_nz)
    mask = unmanaged(mask)
    term_obs = unmanaged(term_obs)
    term_nz = unmanaged(term_nz)
    term_place = unmanaged(term_place)
    reward_out = unmanaged(reward_out)
    done = unmanaged(done)
    need = unmanaged(need)
    opp_obs = unmanaged(opp_obs)
    opp_nz = unmanaged(opp_nz)
    opp_mask = unmanaged(opp_mask)
    cfg, gs, fl = st.cfg, st.gs, st.fl
    n = cfg[C_N]
    errors = 0
    no_lives = np.full(MAXP, -1, dtype=np.int32)
    hand = np.empty((1, HS), dtype=np.int8)
    for idx in range(games.shape[0]):
        g = games[idx]
        stage = vs[g, V_STAGE]
        learner = vs[g, V_LEARNER]
        if stage == S_READY or stage == S_NEED_OPP:  # noqa: SIM109
            a = actions[g] if stage == S_READY else opp_actions[g]
            if a < 0 or a >= NUM_ACTIONS or not MASK_ROWS[situation(cfg, gs, g), a]:
                gs[g, F_ERROR] = ERR_ILLEGAL
                errors += 1
                continue
            for s in range(n):
                rew[g, s] = 0.0
            play(st, g, a, rew)
            vacc[g] += rew[g, learner]
            if stage == S_READY:
                vs[g, V_ACTED] = 1
        need[g] = 0
        fresh = stage == S_RESET
        while True:
            if fresh or gs[g, F_OVER] or gs[g, F_OUT + learner]:
                if not fresh and vs[g, V_ACTED]:
                    done[g] = 1
                    reward_out[g] = vacc[g]
                    term_place[g] = fl[g, L_PLACE + learner]
                    encode(st, g, learner, term_obs, term_nz, g, False)
                vacc[g] = 0.0
                new_game(st, g, -1, no_lives, rew0)
                learner = seat_mode if seat_mode >= 0 else rand_below(st.rng, g, RNG_PLAY, n)
                vs[g, V_LEARNER] = learner
                vs[g, V_ACTED] = 0
                vacc[g] += rew0[g, learner]
                fresh = False
                continue
            current = gs[g, F_CURRENT]
            if current == learner:
                write_mask(cfg, gs, mask, g)
                encode(st, g, learner, obs, obs_nz, g, False)
                if not done[g]:
                    reward_out[g] = vacc[g]
                    vacc[g] = 0.0
                vs[g, V_STAGE] = S_READY
                break
            kind = opp_kinds[g]
            if kind == OPP_RANDOM:
                a = random_action(st, g)
            elif kind == OPP_GREEDY:
                a = greedy_action(st, g, hand)
            else:
                write_mask(cfg, gs, opp_mask, g)
                if want_opp_obs:
                    encode(st, g, current, opp_obs, opp_nz, g, False)
                vs[g, V_STAGE] = S_NEED_OPP
                need[g] = 1
                break
            for s in range(n):
                rew[g, s] = 0.0
            play(st, g, a, rew)
            vacc[g] += rew[g, learner]
    return errors
