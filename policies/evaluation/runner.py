"""Playing the games: one game on the rules engine, and many in worker processes.

The harness drives the rules engine directly (:func:`schnauz_env.games.game_module`:
``Config``, ``new_game``, ``ObservationEncoder``), not the AEC wrapper, and works for
any game of the package. Each worker process builds every policy once per seat and
reseeds it before each game, so a run gives the same records whatever the number of
workers.
"""

from __future__ import annotations

import copy
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from policies.base import Policy
from policies.evaluation.schedule import GameTask, derive_seed
from policies.registry import make_policy
from schnauz_env.games import game_module

#: A policy as :func:`policies.evaluation.evaluate` takes it: a name for
#: :func:`policies.make_policy` or a :class:`~policies.base.Policy` object.
PolicySpec = str | Policy


@dataclass
class GameRecord:
    """The outcome of one game (one rotation of one deal)."""

    table: int
    deal: int
    rotation: int
    seed: int
    seats: tuple[str, ...]
    places: tuple[float, ...]
    rounds: int | None
    lives_lost: tuple[int, ...] | None
    rounds_played: tuple[int, ...] | None
    moves: tuple[int, ...]
    think: tuple[float, ...]
    """Seconds spent choosing moves, per seat."""
    turn_limits: int = 0
    """Rounds ended by the termination guard (reported, never expected)."""


def play_game(
    game: str,
    config: Any,
    policies: Sequence[Policy],
    seed: int,
    encoder: Any = None,
) -> dict[str, Any]:
    """Play one game with ``policies[seat]`` at each seat; return its outcome.

    The engine's generator is seeded with ``seed`` (the deal). Returns ``places``,
    ``rounds``, ``lives_lost``, ``rounds_played`` (``None`` for games without lives),
    ``moves``, ``think`` (seconds per seat) and ``turn_limits``.
    """
    gm = game_module(game)
    if encoder is None:
        encoder = gm.ObservationEncoder(config)
    state = gm.new_game(config, np.random.default_rng(seed))
    n = state.n
    moves = [0] * n
    think = [0.0] * n
    has_lives = all(hasattr(state, a) for a in ("lives", "out", "round"))
    lives_lost = [0] * n
    rounds_played = [0] * n
    turn_limits = 0
    encode = encoder.encode
    clock = time.perf_counter
    while not state.game_over:
        seat = state.current
        obs = encode(state, seat)
        mask = state.legal_mask()
        t0 = clock()
        action = policies[seat].act(obs, mask)
        think[seat] += clock() - t0
        moves[seat] += 1
        if not mask[action]:
            raise ValueError(
                f"policy {policies[seat].name!r} at seat {seat} chose illegal action {action} "
                f"({state.action_to_string(int(action))}); legal: {np.flatnonzero(mask).tolist()}"
            )
        if has_lives:
            lives0, out0, round0 = list(state.lives), list(state.out), state.round
        result = state.apply(int(action))
        if result is not None and getattr(result, "turn_limit_reached", False):
            turn_limits += 1
        if has_lives and state.round != round0:
            for s in range(n):
                if not out0[s]:
                    rounds_played[s] += 1
                    lives_lost[s] += max(0, lives0[s] - state.lives[s])
                    lives_lost[s] += int(state.out[s] and not out0[s])
    places = tuple(float(p) for p in state.places)
    return {
        "places": places,
        "rounds": getattr(state, "round", None),
        "lives_lost": tuple(lives_lost) if has_lives else None,
        "rounds_played": tuple(rounds_played) if has_lives else None,
        "moves": tuple(moves),
        "think": tuple(think),
        "turn_limits": turn_limits,
    }


# ------------------------------------------------------------------ workers

#: The worker process's game, config, encoder and policies (one per label and seat).
_WORKER: dict[str, Any] = {}


def _worker_init(game: str, config: Any, specs: dict[str, PolicySpec]) -> None:
    gm = game_module(game)
    _WORKER.update(
        game=game, config=config, specs=specs, encoder=gm.ObservationEncoder(config), cache={}
    )


def _policy(label: str, seat: int) -> Policy:
    cache = _WORKER["cache"]
    key = (label, seat)
    if key not in cache:
        spec = _WORKER["specs"][label]
        if isinstance(spec, Policy):
            cache[key] = copy.deepcopy(spec)
        else:
            cache[key] = make_policy(spec, game=_WORKER["game"], config=_WORKER["config"])
    return cache[key]


def _run_task(task: GameTask) -> GameRecord:
    table, seats, deal, rotation, run_seed, deal_seed = task
    policies = []
    for s, label in enumerate(seats):
        p = _policy(label, s)
        p.reset(seed=derive_seed(run_seed, table, deal, rotation, s))
        policies.append(p)
    out = play_game(_WORKER["game"], _WORKER["config"], policies, deal_seed, _WORKER["encoder"])
    return GameRecord(table=table, deal=deal, rotation=rotation, seed=deal_seed, seats=seats, **out)


def play_tasks(
    tasks: Sequence[GameTask],
    game: str,
    config: Any,
    specs: dict[str, PolicySpec],
    workers: int = 1,
    progress: bool = False,
) -> list[GameRecord]:
    """Play every task with the policies ``specs`` (by label); records in finishing order.

    ``workers <= 1`` plays in this process, otherwise in a pool of ``workers``
    processes. ``progress`` shows a tqdm bar on stderr.
    """
    records: list[GameRecord] = []
    bar = _progress(len(tasks), progress)
    if workers <= 1:
        _worker_init(game, config, specs)
        for task in tasks:
            records.append(_run_task(task))
            bar.update(1)
    else:
        import multiprocessing as mp

        # Small chunks: slow players' games would otherwise hold the progress bar back.
        chunk = max(1, min(4, len(tasks) // (workers * 64)))
        with mp.Pool(workers, initializer=_worker_init, initargs=(game, config, specs)) as pool:
            for rec in pool.imap_unordered(_run_task, tasks, chunksize=chunk):
                records.append(rec)
                bar.update(1)
    bar.close()
    return records


class _NoBar:
    def update(self, n: int) -> None:
        pass

    def close(self) -> None:
        pass


def _progress(total: int, show: bool) -> Any:
    if not show:
        return _NoBar()
    from tqdm import tqdm

    return tqdm(total=total, unit="game", smoothing=0.05, dynamic_ncols=True, file=sys.stderr)


__all__ = ["GameRecord", "PolicySpec", "play_game", "play_tasks"]
