"""The step kernel's loop over games of a game played for lives (Schnauz, Scat), written
once and compiled per game: :func:`step_loop`.

``k_step`` of :mod:`schnauz_env.batched.schnauz.loop` and
:mod:`schnauz_env.batched.scat.kernels` re-views its arguments unmanaged and runs this loop
on them, with the game's steps: the inline functions of the game's VecEnv steps module
(its ``legal``, ``move``, ``write_mask`` and ``write_view``, the same that
:func:`schnauz_env.batched.learner_loop.learner_loop` compiles into the VecEnv's loop) and
``restart`` (the game dealt again after its episode ended). Like the VecEnv's loop, it is
compiled (and cached) as a function of this file: delete
``schnauz_env/batched/__pycache__/*.nb*`` after an edit of a game's steps alone.
"""

from __future__ import annotations

from types import FunctionType, ModuleType
from typing import Any

from schnauz_env.batched.jit import njit
from schnauz_env.batched.learner_loop import VIEW_LEARNER

#: The game whose loop :func:`step_loop` compiles, and its array layout (globals of each
#: compiled copy).
G: Any = None
F: Any = None


def _step(x, y, z, actions, rew, mask, obs, want_obs, auto_reset, ended, decided, final_places):  # type: ignore[no-untyped-def]
    """The loop :func:`step_loop` compiles for the game ``G`` (see there)."""
    gs = x.gs
    n = x.cfg[F.C_N]
    errors = 0
    for g in range(gs.shape[0]):
        ended[g] = 0
        decided[g] = 0
        for s in range(n):
            rew[g, s] = 0.0
        if gs[g, F.F_OVER]:
            continue
        a = actions[g]
        if not G.legal(x, y, z, g, a):
            gs[g, F.F_ERROR] = F.ERR_ILLEGAL
            errors += 1
            continue
        decided[g] = G.move(x, y, z, g, a, rew)
        if gs[g, F.F_OVER]:
            ended[g] = 1
            if auto_reset:
                for s in range(n):
                    final_places[g, s] = x.fl[g, F.L_PLACE + s]
                G.restart(x, y, z, g)
        G.write_mask(x, y, z, g, mask)
        if want_obs:
            G.write_view(x, y, z, g, gs[g, F.F_CURRENT], obs, VIEW_LEARNER)
        if gs[g, F.F_ERROR]:
            errors += 1
    return errors


def step_loop(game: ModuleType, fields: ModuleType) -> Any:
    """The step kernel's loop for ``game``, compiled: ``step(x, y, z, actions, rew, mask,
    obs, want_obs, auto_reset, ended, decided, final_places)`` plays ``actions[g]`` in every
    unfinished game and returns the number of games with an error.

    Per game: ``ended``, ``decided`` and the ``n`` rewards of ``rew[g]`` zeroed; a finished
    game skipped; an illegal action flagged (``gs[g, F_ERROR] = ERR_ILLEGAL``); else the
    move, what it returns (rounds it ended) into ``decided[g]``, its rewards into
    ``rew[g]``; a game it ended flagged in ``ended`` and, with ``auto_reset``, its places
    kept in ``final_places[g]`` and the game dealt again; then its mask and, with
    ``want_obs``, the view of the player to act into ``obs[g]``.

    ``game`` is the game's module of inline steps on its context ``x, y, z`` (the state
    first, unmanaged): ``legal(.., g, a)``, ``move(.., g, a, rew)``, ``restart(.., g)``,
    ``write_mask(.., g, mask)`` and ``write_view(.., g, seat, out, which)`` (the view of
    the player to act: ``VIEW_LEARNER``); ``fields`` its array layout (``C_N``,
    ``F_OVER``, ``F_ERROR``, ``ERR_ILLEGAL``, ``F_CURRENT``, ``L_PLACE``).
    """

    # As learner_loop: the loop's code with the game's steps and layout as globals, which
    # numba inlines and freezes; uncounted, as the loop reads the state's named tuple.
    scope = {**globals(), "G": game, "F": fields}
    return njit(FunctionType(_step.__code__, scope, "step"), counted=False)
