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
from schnauz_env.batched.thirteen.rules import (
    apply,
    is_legal,
    new_game,
    refresh_legal,
    unmanaged_state,
    unmanaged_tables,
)


@njit
def k_vec(
    tb,
    st,
    rew,
    vs,
    vacc,
    games,
    actions,
    opp_actions,
    opp_kinds,
    seat_mode,
    obs,
    mask,
    term_obs,
    term_place,
    reward_out,
    done,
    need,
    opp_obs,
    opp_mask,
    want_opp_obs,
):
    """Advance each of ``games`` to the learner's next decision.

    A game in stage ``S_READY`` first plays the learner's ``actions[g]``; one in
    ``S_NEED_OPP`` plays ``opp_actions[g]``; one in ``S_RESET`` starts a new episode.
    Then the opponents move (``opp_kinds[g]``: random or greedy, drawn here; otherwise the
    game stops in ``S_NEED_OPP`` with the opponent's view in ``opp_obs`` and mask in
    ``opp_mask``) until the learner is to act, its view and mask written, or its
    episode ends (its place is decided: it went out, or the game or match is over):
    then ``done[g]``, its summed reward, its last view (``term_obs``) and place
    (``term_place``) are written and a new episode starts at once, the learner seated
    at ``seat_mode`` (or a random seat when it is negative). An episode in which the
    learner never got to act (an instant win at the deal) is dealt again unseen.
    Returns the number of games given an illegal action (flagged in ``gs[:, F_ERROR]``).
    """
    tb = unmanaged_tables(tb)
    st = unmanaged_state(st)
    rew = unmanaged(rew)
    vs = unmanaged(vs)
    vacc = unmanaged(vacc)
    games = unmanaged(games)
    actions = unmanaged(actions)
    opp_actions = unmanaged(opp_actions)
    opp_kinds = unmanaged(opp_kinds)
    obs = unmanaged(obs)
    mask = unmanaged(mask)
    term_obs = unmanaged(term_obs)
    term_place = unmanaged(term_place)
    reward_out = unmanaged(reward_out)
    done = unmanaged(done)
    need = unmanaged(need)
    opp_obs = unmanaged(opp_obs)
    opp_mask = unmanaged(opp_mask)
    gs, fl = st.gs, st.fl
    n = st.cfg[C_N]
    errors = 0
    no_scores = np.full(P, -1, dtype=np.int32)
    for idx in range(games.shape[0]):
        g = games[idx]
        stage = vs[g, V_STAGE]
        learner = vs[g, V_LEARNER]
        a = -1  # the move to play next (the learner's, or an opponent's)
        if stage == S_READY or stage == S_NEED_OPP:  # noqa: SIM109
            a = actions[g] if stage == S_READY else opp_actions[g]
            if not is_legal(st, g, a):
                gs[g, F_ERROR] = ERR_ILLEGAL
                errors += 1
                continue
            if stage == S_READY:
                vs[g, V_ACTED] = 1
        need[g] = 0
        fresh = stage == S_RESET
        current = -1
        # Each piece (the move, the deal, the view) has one inlined copy in this loop: a
        # call of its own, taking the state as arguments, costs more than the piece.
        while True:
            if a >= 0:
                for s in range(P):
                    rew[g, s] = 0.0
                apply(tb, st, rew, g, a)
                refresh_legal(tb, st, g)
                vacc[g] += rew[g, learner]
                a = -1
            if fresh or gs[g, F_OVER] or (gs[g, F_SETTLED] >> learner) & 1:
                if not fresh and vs[g, V_ACTED]:
                    done[g] = 1
                    reward_out[g] = vacc[g]
                    term_place[g] = fl[g, L_PLACE + learner]
                    encode(tb, st, g, learner, term_obs, g)
                vacc[g] = 0.0
                new_game(tb, st, g, no_scores)
                refresh_legal(tb, st, g)
                learner = seat_mode if seat_mode >= 0 else rand_below(st.rng, g, RNG_PLAY, n)
                vs[g, V_LEARNER] = learner
                vs[g, V_ACTED] = 0
                fresh = False
                continue
            current = gs[g, F_CURRENT]
            if current == learner:
                break
            kind = opp_kinds[g]
            if kind == OPP_RANDOM:
                a = random_action(st, g)
            elif kind == OPP_GREEDY:
                a = greedy_action(tb, st, g)
            else:
                break
        # the game waits for the learner, or for an opponent's move from outside
        if current == learner:
            write_mask(st.bits, mask, g)
            if not done[g]:
                reward_out[g] = vacc[g]
                vacc[g] = 0.0
            vs[g, V_STAGE] = S_READY
        else:
            write_mask(st.bits, opp_mask, g)
            vs[g, V_STAGE] = S_NEED_OPP
            need[g] = 1
        if current == learner or want_opp_obs:
            encode(tb, st, g, current, obs if current == learner else opp_obs, g)
    return errors
