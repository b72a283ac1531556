"""What every game's VecEnv kernel (``k_vec``) shares: the codes, the buffers, the
learner's bookkeeping.

A VecEnv over a batched engine (:mod:`schnauz_env.vector`) runs one game per env, the
learner at one seat. Its kernel (:func:`schnauz_env.batched.schnauz.loop.k_vec`,
:func:`schnauz_env.batched.scat.vec.k_vec`, :func:`schnauz_env.batched.thirteen.vec.k_vec`)
advances each game to the learner's next decision: it plays the action given (the
learner's, or an opponent's from outside), then the opponents' moves, and stops when the
learner is to act (its view and mask written), or an opponent's move must come from
outside. When the learner's episode ends it writes its summed reward, last view and
place, and deals again at once. The loop itself, its state and its bookkeeping are
here, once: :func:`learner_loop` compiles the loop for a game, from the game's own
steps (its move, deal, views and players: inline functions of the game's ``vec``
module, see :func:`learner_loop`), with :class:`Buffers` and the helpers below.

The loop is compiled (and cached) as a function of this file, so an edit of a game's
steps alone does not recompile it: delete ``schnauz_env/batched/__pycache__/*.nb*``
after one (as :mod:`schnauz_env.batched.jit` says of every inlined helper).
"""

from __future__ import annotations

from types import FunctionType, ModuleType
from typing import Any, NamedTuple

import numpy as np

from schnauz_env.batched.common import rand_below
from schnauz_env.batched.jit import njit

#: Opponent kinds: a uniformly random legal move or the greedy player's, both drawn in
#: the kernel, or a move given from outside (the kernel stops in ``S_NEED_OPP``).
OPP_RANDOM, OPP_GREEDY, OPP_EXTERNAL = 0, 1, 2
#: Stages: deal a new game, the learner's action is given, an opponent's action is given.
S_RESET, S_READY, S_NEED_OPP = 0, 1, 2
#: Columns of ``vs``: the learner's seat, the stage, the learner acted this episode.
V_LEARNER, V_STAGE, V_ACTED = 0, 1, 2
#: Columns of ``vs`` (a fourth is spare).
V_COLUMNS = 4
#: Which view a game's ``write_view`` step writes: the learner's, its last of an episode, or
#: an opponent's (a game that records the entries it sets keeps one record for each).
VIEW_LEARNER, VIEW_TERM, VIEW_OPP = 0, 1, 2


class Buffers(NamedTuple):
    """The arrays a VecEnv and its kernel share, one row per game (B games, ``P`` seats
    at most, ``A`` actions, views of ``O`` floats)."""

    #: (B, P) float64: scratch, the rewards of one move.
    rew: np.ndarray
    #: (B, V_COLUMNS) int32: the learner's seat, the stage, whether it acted (``V_*``).
    vs: np.ndarray
    #: (B,) float64: the learner's reward earned since it was last paid.
    vacc: np.ndarray
    #: (B,) int64: the learner's actions, and the opponents' given from outside.
    actions: np.ndarray
    opp_actions: np.ndarray
    #: (B,) int8: each game's opponent kind (``OPP_*``).
    opp_kinds: np.ndarray
    #: (B, O) float32 and (B, A) int8: the learner's view and mask.
    obs: np.ndarray
    mask: np.ndarray
    #: (B, O) float32 and (B,) float64: the learner's last view and place in an episode.
    term_obs: np.ndarray
    term_place: np.ndarray
    #: (B,) float64 and int8: the reward paid, and the episode ended.
    reward_out: np.ndarray
    done: np.ndarray
    #: (B,) int8: the game waits for an opponent's move from outside; that opponent's
    #: view ((B, O) float32, or (1, 1) when nobody reads it) and mask.
    need: np.ndarray
    opp_obs: np.ndarray
    opp_mask: np.ndarray


@njit(inline=True)
def given_action(buf, g):
    """``(action, deal)`` of game ``g``: the action it was given (the learner's, or an
    opponent's from outside) and False, or -1 and True when it is to be dealt
    (``S_RESET``). Clears ``need[g]``."""
    buf.need[g] = 0
    stage = buf.vs[g, V_STAGE]
    if stage == S_READY:
        return buf.actions[g], False
    if stage == S_NEED_OPP:
        return buf.opp_actions[g], False
    return -1, True


@njit(inline=True)
def accept(buf, g):
    """The action given to game ``g`` was legal (or it is to be dealt): if the action was
    the learner's, the learner has acted. Returns the learner's seat."""
    if buf.vs[g, V_STAGE] == S_READY:
        buf.vs[g, V_ACTED] = 1
    return buf.vs[g, V_LEARNER]


@njit(inline=True)
def end_episode(buf, g, place):
    """The learner's episode in game ``g`` is over (before a new deal): if it acted,
    ``done``, its summed reward and ``place`` are written, and True is returned (the
    caller writes its last view into ``term_obs``); an episode in which it never acted
    goes unseen."""
    if not buf.vs[g, V_ACTED]:
        return False
    buf.done[g] = 1
    buf.reward_out[g] = buf.vacc[g]
    buf.term_place[g] = place
    return True


@njit(inline=True)
def seat_learner(buf, g, seat_mode, n, rng, generator):
    """After a new deal in game ``g``: the learner's seat (``seat_mode``, or drawn from
    ``generator`` of the game's ``rng`` when it is negative), nothing earned or acted
    yet. Returns the seat."""
    learner = seat_mode if seat_mode >= 0 else rand_below(rng, g, generator, n)
    buf.vs[g, V_LEARNER] = learner
    buf.vs[g, V_ACTED] = 0
    buf.vacc[g] = 0.0
    return learner


@njit(inline=True)
def wait(buf, g, learner, current):
    """Game ``g`` stops with ``current`` to act: the learner (what it earned is paid now,
    unless its episode just ended and was paid with it) or an opponent whose move comes
    from outside. Returns the rows the caller writes the view and mask into (``obs`` and
    ``mask``, or ``opp_obs`` and ``opp_mask``)."""
    if current == learner:
        if not buf.done[g]:
            buf.reward_out[g] = buf.vacc[g]
            buf.vacc[g] = 0.0
        buf.vs[g, V_STAGE] = S_READY
        return buf.obs, buf.mask
    buf.vs[g, V_STAGE] = S_NEED_OPP
    buf.need[g] = 1
    return buf.opp_obs, buf.opp_mask


#: The game whose loop :func:`learner_loop` compiles, and its array layout (globals of
#: each compiled copy).
G: Any = None
F: Any = None


def _run(x, y, z, buf, games, seat_mode, want_opp_obs):  # type: ignore[no-untyped-def]
    """The loop :func:`learner_loop` compiles for the game ``G`` (see there)."""
    errors = 0
    for idx in range(games.shape[0]):
        g = games[idx]
        a, fresh = given_action(buf, g)
        if not fresh and not G.legal(x, y, z, g, a):
            x.gs[g, F.F_ERROR] = F.ERR_ILLEGAL
            errors += 1
            continue
        learner = accept(buf, g)
        current = -1
        while True:
            if a >= 0:  # the one copy of a move: the action given, then the opponents'
                for s in range(x.cfg[F.C_N]):
                    buf.rew[g, s] = 0.0
                G.move(x, y, z, g, a, buf.rew)
                buf.vacc[g] += buf.rew[g, learner]
                a = -1
            if fresh or x.gs[g, F.F_OVER] != 0 or G.settled(x, y, z, g, learner):
                if not fresh and end_episode(buf, g, x.fl[g, F.L_PLACE + learner]):
                    G.write_view(x, y, z, g, learner, buf.term_obs, VIEW_TERM)
                learner = G.deal(x, y, z, buf, g, seat_mode)
                fresh = False
                continue
            current = x.gs[g, F.F_CURRENT]
            if current == learner:
                break
            kind = buf.opp_kinds[g]
            if kind == OPP_RANDOM:
                a = G.random_action(x, y, z, g)
            elif kind == OPP_GREEDY:
                a = G.greedy_action(x, y, z, g)
            else:
                break
        view, mask = wait(buf, g, learner, current)
        G.write_mask(x, y, z, g, mask)
        if current == learner or want_opp_obs:
            which = VIEW_LEARNER if current == learner else VIEW_OPP
            G.write_view(x, y, z, g, current, view, which)
    return errors


def learner_loop(game: ModuleType, fields: ModuleType) -> Any:
    """The VecEnv kernel's loop for ``game``, compiled: ``run(x, y, z, buf, games,
    seat_mode, want_opp_obs)`` advances each of ``games`` to the learner's next decision and returns
    the number of games given an illegal action (flagged in the game's error field).

    A game first plays the action it was given (the learner's, or an opponent's from
    outside), or is dealt (stage ``S_RESET``). Then the opponents move (``opp_kinds[g]``:
    random or greedy, drawn here; otherwise the game stops in ``S_NEED_OPP`` with the
    opponent's mask, and with ``want_opp_obs`` its view) until the learner is to act, its
    view and mask written, or its episode ends: then its summed reward, last view and
    place are written and a new game starts at once, the learner seated at ``seat_mode``
    (or a random seat when it is negative). An episode in which the learner never got to
    act is dealt again unseen.

    ``game`` is a module of inline functions that take the game's context ``x, y, z``
    first (its state, then tables and scratch, unmanaged, as its ``k_vec`` passes them:
    three separate values, as a tuple of them would be counted at every use):
    ``legal(.., g, a)``, ``move(.., g, a, rew)`` (rewards added into ``rew[g]``, which the
    loop zeroes first for the ``n`` seats), ``settled(.., g, learner)`` (the learner's
    place is decided before the game is over), ``deal(.., buf, g, seat_mode)`` (a new
    game, the learner seated with :func:`seat_learner` and credited what the deal paid
    it; returns its seat), ``random_action(.., g)``, ``greedy_action(.., g)``,
    ``write_mask(.., g, mask)`` and ``write_view(.., g, seat, out, which)`` (``VIEW_*``).
    Each is inlined where the loop needs it once (the move, the deal and the players
    once each, the views twice). ``fields`` is the game's array layout: the loop reads
    the seats (``cfg[C_N]``), the player to act (``gs[g, F_CURRENT]``), the end
    (``F_OVER``), the places (``fl[g, L_PLACE + seat]``) of the state ``x`` and flags an
    illegal action (``gs[g, F_ERROR] = ERR_ILLEGAL``) there itself.
    """

    # The loop's code, with this module's globals and the game and its layout as the
    # globals ``G`` and ``F``: its steps are then globals of the compiled function, which
    # numba inlines (it does not inline a closure's), the layout's fields constants, and
    # it is cached under this file, once per game's types.
    scope = {**globals(), "G": game, "F": fields}
    # Uncounted: the loop reads its arrays from named tuples (the state, the buffers),
    # and counting each read cost a third of the VecEnv's speed.
    return njit(FunctionType(_run.__code__, scope, "run"), counted=False)
