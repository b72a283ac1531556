"""The loops of the batched Scat engine: each kernel runs over many games at once.

Kernels take the state first, whole (``eng.arrays``, a
:class:`~schnauz_env.batched.scat.layout.ScatArrays`; the engine calls the hot ones
through :class:`~schnauz_env.batched.jit.SameTypes`, which types it once), and re-view
every array without reference counting on entry
(:func:`~schnauz_env.batched.jit.unmanaged_fields`), so the rules they inline count
nothing. Each returns the number of games left with an error flag (illegal action,
external decks exhausted) in ``gs[:, F_ERROR]``, where it returns anything.
"""

from __future__ import annotations

import numpy as np

from schnauz_env.batched.common import unmanaged, unmanaged_each, unmanaged_fields
from schnauz_env.batched.jit import njit
from schnauz_env.batched.scat.layout import (
    C_AUTO,
    F_CURRENT,
    F_ERROR,
    F_OVER,
    HS,
    MAXP,
    OBS_ENTRIES,
)
from schnauz_env.batched.scat.observe import encode, write_mask
from schnauz_env.batched.scat.players import greedy_action, random_action
from schnauz_env.batched.scat.rules import play
from schnauz_env.batched.scat.vec import fresh_game, step


@njit
def k_reset(arrays, dealers, lives, rew0, mask, obs, nz, want_obs, games):
    """Start a new game in each of ``games``: its first deal, the rewards of a deal that
    ended at once (``rew0``), its mask and (``want_obs``) its player to act's view."""
    st = unmanaged_fields(arrays)
    dealers, lives, games = unmanaged_each((dealers, lives, games))
    rew0, mask, obs, nz = unmanaged_each((rew0, mask, obs, nz))
    errors = 0
    for idx in range(games.shape[0]):
        g = games[idx]
        fresh_game(st, g, dealers[g], lives[g], rew0)
        write_mask(st.cfg, st.gs, mask, g)
        if want_obs:
            encode(st, g, st.gs[g, F_CURRENT], obs, nz, g, False)
        if st.gs[g, F_ERROR]:
            errors += 1
    return errors


@njit
def k_step(arrays, actions, rew, rew0, mask, obs, nz, want_obs, ended, round_over, final_places):
    """Play ``actions[g]`` in every unfinished game; write rewards, ends, masks, views.

    Finished games are skipped, or with auto-reset (``cfg[C_AUTO]``) dealt again at once:
    their final places go to ``final_places[g]`` and the new game's opening rewards to
    ``rew0[g]``. Returns the number of games with an error.
    """
    st = unmanaged_fields(arrays)
    actions, rew, rew0, mask, obs, nz = unmanaged_each((actions, rew, rew0, mask, obs, nz))
    ended, round_over, final_places = unmanaged_each((ended, round_over, final_places))
    records = (rew0, nz, nz, nz)  # the context of the steps: one record for every view
    scratch = (np.full(MAXP, -1, dtype=np.int32),)
    auto_reset = st.cfg[C_AUTO]
    outputs = (ended, round_over, final_places)
    return step(st, records, scratch, actions, rew, mask, obs, want_obs, auto_reset, *outputs)


@njit
def k_observe(arrays, games, seats, obs):
    """The view of ``seats[i]`` in game ``games[i]``, into ``obs[i]``."""
    st = unmanaged_fields(arrays)
    games, seats, obs = unmanaged_each((games, seats, obs))
    nz = np.empty((games.shape[0], OBS_ENTRIES), dtype=np.int16)
    for i in range(games.shape[0]):
        encode(st, games[i], seats[i], obs, nz, i, True)


@njit
def k_random_actions(arrays, out):
    """A uniformly random legal action per game (-1 for a finished game)."""
    st = unmanaged_fields(arrays)
    out = unmanaged(out)
    for g in range(st.gs.shape[0]):
        out[g] = random_action(st, g)


@njit
def k_greedy_actions(arrays, out):
    """The greedy player's action per game (-1 for a finished game)."""
    st = unmanaged_fields(arrays)
    out = unmanaged(out)
    hand = np.empty((1, HS), dtype=np.int8)
    for g in range(st.gs.shape[0]):
        out[g] = greedy_action(st, g, hand)


@njit
def k_play_random(arrays, rew, rew0, obs, nz, steps, want_obs):
    """``steps`` agent-steps of random legal play in every game, auto-resetting.

    Returns the number of agent-steps taken (a benchmark of the bare engine: the same
    ``play`` / ``encode`` as :func:`k_step`, with actions drawn inside the loop).
    """
    st = unmanaged_fields(arrays)
    rew, rew0, obs, nz = unmanaged_each((rew, rew0, obs, nz))
    no_lives = np.full(MAXP, -1, dtype=np.int32)
    total = 0
    for g in range(st.gs.shape[0]):
        for _ in range(steps):
            a = random_action(st, g)
            play(st, g, a, rew)
            total += 1
            if st.gs[g, F_OVER]:
                fresh_game(st, g, -1, no_lives, rew0)
            if want_obs:
                encode(st, g, st.gs[g, F_CURRENT], obs, nz, g, False)
    return total
