"""The batched Thirteen kernels: loops over games of the rules, encoder and players.

Each ``k_*`` kernel takes the tables (:class:`~schnauz_env.batched.thirteen.tables.Tables`)
and the state (:class:`~schnauz_env.batched.thirteen.layout.State`), re-views their arrays
unmanaged on entry (:func:`~schnauz_env.batched.jit.unmanaged`), and acts on every game
(or the games listed).
"""

from __future__ import annotations

import numpy as np

from schnauz_env.batched.common import unmanaged, unmanaged_each, unmanaged_fields
from schnauz_env.batched.jit import njit
from schnauz_env.batched.thirteen.layout import (
    B_LEGAL,
    ERR_ILLEGAL,
    F_CURRENT,
    F_ERROR,
    F_OBS_SEAT,
    F_OVER,
    L_PLACE,
    P,
)
from schnauz_env.batched.thirteen.observe import O_SELECTED, encode
from schnauz_env.batched.thirteen.players import greedy_action, random_action
from schnauz_env.batched.thirteen.rules import (
    apply,
    is_legal,
    new_game,
    refresh_legal,
)
from schnauz_env.thirteen.engine import NUM_ACTIONS, NUM_CARD_ACTIONS


@njit(inline=True)
def write_mask(bits, mask, g):
    legal = bits[g, B_LEGAL]
    for a in range(NUM_ACTIONS):
        mask[g, a] = (legal >> a) & 1


@njit(inline=True)
def observe_after(tb, st, g, a, seat, obs):
    """Write the view of the player to act into ``obs[g]`` after ``seat`` took action ``a``.

    When the row holds ``seat``'s view from before the move and the move selected a card,
    that card's bit in the ``selected`` block is all that changed (the player stays, the
    table and hands do not change): only it is written.
    """
    gs = st.gs
    current = gs[g, F_CURRENT]
    if a < NUM_CARD_ACTIONS and gs[g, F_OBS_SEAT] == seat and current == seat:
        obs[g, O_SELECTED + a] = 1.0
    else:
        encode(tb, st, g, current, obs, g)
    gs[g, F_OBS_SEAT] = current


@njit
def refresh_legal_call(tb, st, g):
    """:func:`refresh_legal` as a call, for the kernels that are not hot (the hot loops
    inline it: faster, but each copy costs compile time)."""
    refresh_legal(tb, st, g)


@njit
def encode_call(tb, st, g, seat, obs, row):
    """:func:`encode` as a call, for the kernels that are not hot."""
    encode(tb, st, g, seat, obs, row)


@njit
def k_reset(tb, st, scores, mask, obs, want_obs, games):
    """Start a new match in each of ``games`` (points from ``scores[g]``); write its mask
    and, with ``want_obs``, the view of the player to act. Returns the games in error."""
    tb, st = unmanaged_fields(tb), unmanaged_fields(st)
    scores, mask, obs, games = unmanaged_each((scores, mask, obs, games))
    errors = 0
    for idx in range(games.shape[0]):
        g = games[idx]
        new_game(tb, st, g, scores[g])
        refresh_legal_call(tb, st, g)
        write_mask(st.bits, mask, g)
        st.gs[g, F_OBS_SEAT] = -1
        if want_obs:
            encode_call(tb, st, g, st.gs[g, F_CURRENT], obs, g)
            st.gs[g, F_OBS_SEAT] = st.gs[g, F_CURRENT]
        if st.gs[g, F_ERROR]:
            errors += 1
    return errors


@njit(inline=True)
def play_step(tb, st, rew, obs, want_obs, auto_reset, ended, final_places, no_scores, g, a):
    """Play legal action ``a`` in game ``g``: the move, its rewards into ``rew[g]`` (zeroed
    first), ``ended[g]`` (the episode ended), with ``auto_reset`` a new game when it ends
    (its final places kept in ``final_places[g]``), the new legal actions and, with
    ``want_obs``, the view of the player to act. Returns 1 + the reason of the result
    the move gave (0: none)."""
    gs = st.gs
    for s in range(P):
        rew[g, s] = 0.0
    seat = gs[g, F_CURRENT]
    result = apply(tb, st, rew, g, a) + 1
    ended[g] = gs[g, F_OVER]
    if ended[g] and auto_reset:
        for s in range(P):
            final_places[g, s] = st.fl[g, L_PLACE + s]
        new_game(tb, st, g, no_scores)
        gs[g, F_OBS_SEAT] = -1
    refresh_legal(tb, st, g)
    if want_obs:
        observe_after(tb, st, g, a, seat, obs)
    return result


@njit
def k_step(
    tb, st, actions, rew, mask, obs, want_obs, auto_reset, ended, result, final_places, no_scores
):
    """Play ``actions[g]`` in every unfinished game; write rewards, results, ends, masks
    and views.

    ``result[g]`` is 1 + the reason of the result the move gave (0: none). Finished games
    are skipped (with ``auto_reset``, a game that ends is dealt again at once, its final
    places kept in ``final_places``). Returns the number of games in error (an illegal
    action, or the external decks exhausted), flagged in ``gs[:, F_ERROR]``.

    The one compiled copy of the step (:func:`play_step`: the move, the legal actions,
    the view), which :func:`k_play_random` calls too: each inlined copy costs some 40 s of
    compile time. It is inlined into this loop over games, on arrays re-viewed here: the
    same step compiled as a function of its own, taking the state as arguments, ran
    three times slower (measured: ~650 against ~200 ns an agent-step).
    """
    tb, st = unmanaged_fields(tb), unmanaged_fields(st)
    actions, rew, mask, obs = unmanaged_each((actions, rew, mask, obs))
    ended, result, final_places, no_scores = unmanaged_each(
        (ended, result, final_places, no_scores)
    )
    gs = st.gs
    errors = 0
    for g in range(gs.shape[0]):
        ended[g] = 0
        result[g] = 0
        if gs[g, F_OVER]:
            for s in range(P):
                rew[g, s] = 0.0
            continue
        a = actions[g]
        if not is_legal(st, g, a):
            for s in range(P):
                rew[g, s] = 0.0
            gs[g, F_ERROR] = ERR_ILLEGAL
            errors += 1
            continue
        result[g] = play_step(
            tb, st, rew, obs, want_obs, auto_reset, ended, final_places, no_scores, g, a
        )
        write_mask(st.bits, mask, g)
        if gs[g, F_ERROR]:
            errors += 1
    return errors


@njit
def k_observe(tb, st, games, seats, obs):
    """The view of ``seats[i]`` in game ``games[i]``, into ``obs[i]``."""
    tb, st = unmanaged_fields(tb), unmanaged_fields(st)
    games, seats, obs = unmanaged_each((games, seats, obs))
    for i in range(games.shape[0]):
        encode_call(tb, st, games[i], seats[i], obs, i)


@njit
def k_random_actions(st, out):
    st = unmanaged_fields(st)
    out = unmanaged(out)
    for g in range(out.shape[0]):
        out[g] = random_action(st, g)


@njit
def k_greedy_actions(tb, st, out):
    tb, st, out = unmanaged_fields(tb), unmanaged_fields(st), unmanaged(out)
    for g in range(out.shape[0]):
        out[g] = greedy_action(tb, st, g)


@njit
def k_play_random(tb, st, rew, obs, steps, want_obs):
    """``steps`` agent-steps of random legal play in every game, auto-resetting; returns
    the number taken (the bare engine: :func:`k_step` itself, called once per round of
    moves, with the actions drawn in compiled code). Each game
    draws from its own generator, so stepping every game once per round gives each game
    the moves it would get played alone."""
    tb, st = unmanaged_fields(tb), unmanaged_fields(st)
    rew, obs = unmanaged_each((rew, obs))
    b = st.gs.shape[0]
    # scratch of this call: managed arrays (an unmanaged view would outlive them)
    no_scores = np.full(P, -1, dtype=np.int32)
    actions = np.empty(b, dtype=np.int64)
    mask = np.empty((b, NUM_ACTIONS), dtype=np.int8)
    ended = np.zeros(b, dtype=np.int8)
    result = np.zeros(b, dtype=np.int8)
    places = np.zeros((b, P), dtype=np.float64)
    total = 0
    for _ in range(steps):
        for g in range(b):
            a = random_action(st, g)
            actions[g] = a
            if a >= 0:
                total += 1
        k_step(tb, st, actions, rew, mask, obs, want_obs, True, ended, result, places, no_scores)
    return total
