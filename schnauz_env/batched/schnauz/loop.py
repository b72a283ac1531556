"""The compiled loops over games (``k_*``): reset, step, observe, the built-in players, and
the single-agent loop of :class:`schnauz_env.vector.SchnauzVecEnv`.

Each kernel takes the eight arrays of a :class:`~schnauz_env.batched.schnauz.state.State`
first, as separate arguments (``*engine.kernel_state``: numba's dispatcher checks
separate arrays several times faster than a tuple of them, and these are called from
Python every step), and re-views them unmanaged on entry.
"""

from __future__ import annotations

import numpy as np

from schnauz_env.batched import learner_loop as LL
from schnauz_env.batched.common import unmanaged, unmanaged_fields
from schnauz_env.batched.jit import njit
from schnauz_env.batched.learner_loop import OPP_EXTERNAL  # noqa: F401 (batched.kernels finds it)
from schnauz_env.batched.schnauz.bots import greedy_action, random_action
from schnauz_env.batched.schnauz.encode import encode, write_mask
from schnauz_env.batched.schnauz.rules import is_legal, new_game, play, unmanaged_state
from schnauz_env.batched.schnauz.state import (
    C_N,
    ERR_ILLEGAL,
    F_CURRENT,
    F_ERROR,
    F_OUT,
    F_OVER,
    L_PLACE,
    MAXP,
    RNG_PLAY,
)
from schnauz_env.schnauz.engine import NUM_ACTIONS


@njit
def k_reset(
    cfg, keys, gs, cards, known, fl, rng, perms, dealers, lives, mask, obs, want_obs, games
):
    """Start a new game in each of ``games``; write its mask (and the dealer's view)."""
    cfg, keys, gs, cards, known, fl, rng, perms = unmanaged_state(
        cfg, keys, gs, cards, known, fl, rng, perms
    )
    dealers = unmanaged(dealers)
    lives = unmanaged(lives)
    mask = unmanaged(mask)
    obs = unmanaged(obs)
    games = unmanaged(games)
    for idx in range(games.shape[0]):
        g = games[idx]
        new_game(cfg, gs, cards, known, fl, rng, perms, g, dealers[g], lives[g])
        write_mask(cfg, gs, mask, g)
        if want_obs:
            encode(cfg, gs, cards, known, g, gs[g, F_CURRENT], obs, g)
    errors = 0
    for idx in range(games.shape[0]):
        if gs[games[idx], F_ERROR]:
            errors += 1
    return errors


@njit
def k_step(
    cfg,
    keys,
    gs,
    cards,
    known,
    fl,
    rng,
    perms,
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
    cfg, keys, gs, cards, known, fl, rng, perms = unmanaged_state(
        cfg, keys, gs, cards, known, fl, rng, perms
    )
    actions = unmanaged(actions)
    rew = unmanaged(rew)
    mask = unmanaged(mask)
    obs = unmanaged(obs)
    ended = unmanaged(ended)
    round_over = unmanaged(round_over)
    final_places = unmanaged(final_places)
    no_lives = unmanaged(no_lives)
    n = cfg[C_N]
    errors = 0
    for g in range(gs.shape[0]):
        ended[g] = 0
        round_over[g] = 0
        for s in range(n):
            rew[g, s] = 0.0
        if gs[g, F_OVER]:
            continue
        a = actions[g]
        if a < 0 or a >= NUM_ACTIONS or not is_legal(cfg, gs, g, a):
            gs[g, F_ERROR] = ERR_ILLEGAL
            errors += 1
            continue
        round_over[g] = play(cfg, keys, gs, cards, known, fl, rng, perms, rew, g, a)
        if gs[g, F_OVER]:
            ended[g] = 1
            if auto_reset:
                for s in range(n):
                    final_places[g, s] = fl[g, L_PLACE + s]
                new_game(cfg, gs, cards, known, fl, rng, perms, g, -1, no_lives)
        write_mask(cfg, gs, mask, g)
        if want_obs:
            encode(cfg, gs, cards, known, g, gs[g, F_CURRENT], obs, g)
        if gs[g, F_ERROR]:
            errors += 1
    return errors


@njit
def k_observe(cfg, keys, gs, cards, known, fl, rng, perms, games, seats, obs):
    """The view of ``seats[i]`` in game ``games[i]``, into ``obs[i]``."""
    cfg, keys, gs, cards, known, fl, rng, perms = unmanaged_state(
        cfg, keys, gs, cards, known, fl, rng, perms
    )
    games = unmanaged(games)
    seats = unmanaged(seats)
    obs = unmanaged(obs)
    for i in range(games.shape[0]):
        encode(cfg, gs, cards, known, games[i], seats[i], obs, i)


@njit
def k_random_actions(cfg, gs, rng, out):
    """:func:`~schnauz_env.batched.schnauz.bots.random_action` of every game, into ``out``."""
    cfg = unmanaged(cfg)
    gs = unmanaged(gs)
    rng = unmanaged(rng)
    out = unmanaged(out)
    for g in range(gs.shape[0]):
        out[g] = random_action(cfg, gs, rng, g)


@njit
def k_greedy_actions(cfg, keys, gs, cards, out):
    """:func:`~schnauz_env.batched.schnauz.bots.greedy_action` of every game, into ``out``."""
    cfg = unmanaged(cfg)
    keys = unmanaged(keys)
    gs = unmanaged(gs)
    cards = unmanaged(cards)
    out = unmanaged(out)
    for g in range(gs.shape[0]):
        out[g] = greedy_action(cfg, keys, gs, cards, g)


@njit
def k_play_random(cfg, keys, gs, cards, known, fl, rng, perms, rew, obs, steps, want_obs):
    """``steps`` agent-steps of random legal play in every game, auto-resetting.

    Returns the number of agent-steps taken (a benchmark of the bare engine: the same
    ``play`` / ``encode`` as :func:`k_step`, with actions drawn inside the loop).
    """
    cfg, keys, gs, cards, known, fl, rng, perms = unmanaged_state(
        cfg, keys, gs, cards, known, fl, rng, perms
    )
    rew = unmanaged(rew)
    obs = unmanaged(obs)
    total = 0
    no_lives = np.full(MAXP, -1, dtype=np.int32)
    for g in range(gs.shape[0]):
        for _ in range(steps):
            a = random_action(cfg, gs, rng, g)
            play(cfg, keys, gs, cards, known, fl, rng, perms, rew, g, a)
            total += 1
            if gs[g, F_OVER]:
                new_game(cfg, gs, cards, known, fl, rng, perms, g, -1, no_lives)
            if want_obs:
                encode(cfg, gs, cards, known, g, gs[g, F_CURRENT], obs, g)
    return total


# ------------------------------------------------------------- single-agent view


@njit
def k_vec(cfg, keys, gs, cards, known, fl, rng, perms, buf, games, seat_mode, want_opp_obs):
    """Advance each of ``games`` to the learner's next decision (the VecEnv's loop, with
    the buffers and bookkeeping of :mod:`schnauz_env.batched.learner_loop`).

    A game first plays the action it was given (the learner's, or an opponent's from
    outside), or is dealt (stage ``S_RESET``). Then the opponents move (``opp_kinds[g]``:
    random or greedy, drawn here; otherwise the game stops in ``S_NEED_OPP`` with the
    opponent's mask, and with ``want_opp_obs`` its view) until the learner is to act, its
    view and mask written, or its episode ends (out of the game, or the game over): then
    its summed reward, last view and place are written and a new game starts at once,
    the learner seated at ``seat_mode`` (or a random seat when it is negative). An
    episode in which the learner never got to act is dealt again unseen. Returns the
    number of games given an illegal action (flagged in ``gs[:, F_ERROR]``).
    """
    cfg, keys, gs, cards, known, fl, rng, perms = unmanaged_state(
        cfg, keys, gs, cards, known, fl, rng, perms
    )
    buf = unmanaged_fields(buf)
    games = unmanaged(games)
    rew = buf.rew
    n = cfg[C_N]
    errors = 0
    no_lives = np.full(MAXP, -1, dtype=np.int32)
    for idx in range(games.shape[0]):
        g = games[idx]
        a, fresh = LL.given_action(buf, g)
        if not fresh and (a < 0 or a >= NUM_ACTIONS or not is_legal(cfg, gs, g, a)):
            gs[g, F_ERROR] = ERR_ILLEGAL
            errors += 1
            continue
        learner = LL.accept(buf, g)
        current = -1
        while True:
            if a >= 0:  # the one copy of a move: the action given, then the opponents'
                for s in range(n):
                    rew[g, s] = 0.0
                play(cfg, keys, gs, cards, known, fl, rng, perms, rew, g, a)
                buf.vacc[g] += rew[g, learner]
                a = -1
            if fresh or gs[g, F_OVER] or gs[g, F_OUT + learner]:
                if not fresh and LL.end_episode(buf, g, fl[g, L_PLACE + learner]):
                    encode(cfg, gs, cards, known, g, learner, buf.term_obs, g)
                new_game(cfg, gs, cards, known, fl, rng, perms, g, -1, no_lives)
                learner = LL.seat_learner(buf, g, seat_mode, n, rng, RNG_PLAY)
                fresh = False
                continue
            current = gs[g, F_CURRENT]
            if current == learner:
                break
            kind = buf.opp_kinds[g]
            if kind == LL.OPP_RANDOM:
                a = random_action(cfg, gs, rng, g)
            elif kind == LL.OPP_GREEDY:
                a = greedy_action(cfg, keys, gs, cards, g)
            else:
                break
        view, mask = LL.wait(buf, g, learner, current)
        write_mask(cfg, gs, mask, g)
        if current == learner or want_opp_obs:
            encode(cfg, gs, cards, known, g, current, view, g)
    return errors
