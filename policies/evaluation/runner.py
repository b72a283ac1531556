"""Playing the games: one game on the rules engine, and many in worker processes.

The harness drives the rules engine directly (:func:`schnauz_env.games.game_module`:
``Config``, ``new_game``, ``ObservationEncoder``), not the AEC wrapper, and works for
any game of the package. Each worker process builds every policy once per seat and
reseeds it before each game, so a run gives the same records whatever the number of
workers.
"""

from __future__ import annotations

import copy
import os
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from policies.base import REGISTRY, Policy
from policies.evaluation.schedule import GameTask, derive_seed
from policies.mlp import SHIPPED, shipped_model
from policies.registry import make_policy
from schnauz_env.games import game_module
from schnauz_env.records import Recorder, Seat, dumps, file_sha256

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
    record: str | None = None
    """The game's record (:mod:`schnauz_env.records`) as one JSON line, if it was recorded."""


@dataclass
class RecordOptions:
    """Which games to record and what to keep (see :mod:`schnauz_env.records`)."""

    seats: dict[str, Seat]
    """Each policy label's seat entry (name, model file hash)."""
    games: frozenset[int] | None = None
    """The indices of the tasks to record; ``None``: every game."""
    views: bool = True
    """Keep a checksum of what each acting seat saw."""
    details: bool = False
    """Keep each move's legal actions and the policy's probabilities."""
    meta: dict[str, Any] = field(default_factory=dict)
    """Notes for every record (the game's table, deal and rotation are added)."""


def seat_identity(spec: PolicySpec, game: str, config: Any) -> Seat:
    """How a record names a policy: its registered name, or a model file by its name and
    the SHA-256 of its bytes (the shipped ``model`` too); never a path of this machine."""
    if isinstance(spec, Policy):
        return Seat(spec.name)
    name = str(spec)
    base = name.partition(":")[0]
    if (game, base) in REGISTRY:
        if base == SHIPPED:
            path = shipped_model(game, config)
            return Seat(name, file_sha256(path) if path is not None else None)
        return Seat(name)
    return Seat(os.path.basename(name), file_sha256(name))


def play_game(
    game: str,
    config: Any,
    policies: Sequence[Policy],
    seed: int,
    encoder: Any = None,
    recorder: Recorder | None = None,
) -> dict[str, Any]:
    """Play one game with ``policies[seat]`` at each seat; return its outcome.

    The engine's generator is seeded with ``seed`` (the deal). Returns ``places``,
    ``rounds``, ``lives_lost``, ``rounds_played`` (``None`` for games without lives),
    ``moves``, ``think`` (seconds per seat) and ``turn_limits``. A ``recorder``
    (:class:`schnauz_env.records.Recorder`) is given every move; it changes nothing else.
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
        if recorder is not None:
            recorder.see(obs, mask)
        t0 = clock()
        action = policies[seat].act(obs, mask)
        think[seat] += clock() - t0
        moves[seat] += 1
        if recorder is not None:
            recorder.add(seat, action, policies[seat])
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


def _worker_init(
    game: str, config: Any, specs: dict[str, PolicySpec], record: RecordOptions | None = None
) -> None:
    gm = game_module(game)
    _WORKER.update(
        game=game,
        config=config,
        specs=specs,
        encoder=gm.ObservationEncoder(config),
        cache={},
        record=record,
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


def _seeded(seat: Seat, seed: int) -> Seat:
    return Seat(seat.policy, seat.sha256, seed)


def _run_task(job: tuple[int, GameTask]) -> GameRecord:
    index, task = job
    table, seats, deal, rotation, run_seed, deal_seed = task
    policies = []
    seeds = []
    for s, label in enumerate(seats):
        p = _policy(label, s)
        seeds.append(derive_seed(run_seed, table, deal, rotation, s))
        p.reset(seed=seeds[-1])
        policies.append(p)
    options: RecordOptions | None = _WORKER["record"]
    recorder = None
    if options is not None and (options.games is None or index in options.games):
        recorder = Recorder(views=options.views, details=options.details)
    game, config = _WORKER["game"], _WORKER["config"]
    out = play_game(game, config, policies, deal_seed, _WORKER["encoder"], recorder)
    line = None
    if recorder is not None:
        record = recorder.record(
            game,
            config,
            deal_seed,
            [_seeded(options.seats[label], seeds[s]) for s, label in enumerate(seats)],
            places=out["places"],
            meta={**options.meta, "table": table, "deal": deal, "rotation": rotation},
        )
        line = dumps(record, lines=True)
    return GameRecord(
        table=table, deal=deal, rotation=rotation, seed=deal_seed, seats=seats, **out, record=line
    )


def play_tasks(
    tasks: Sequence[GameTask],
    game: str,
    config: Any,
    specs: dict[str, PolicySpec],
    workers: int = 1,
    progress: bool = False,
    record: RecordOptions | None = None,
) -> list[GameRecord]:
    """Play every task with the policies ``specs`` (by label); records in finishing order.

    ``workers <= 1`` plays in this process, otherwise in a pool of ``workers``
    processes. ``progress`` shows a tqdm bar on stderr. ``record`` says which games to
    record (each :class:`GameRecord` then carries its ``record`` line).
    """
    records: list[GameRecord] = []
    bar = _progress(len(tasks), progress)
    jobs = list(enumerate(tasks))
    if workers <= 1:
        _worker_init(game, config, specs, record)
        for job in jobs:
            records.append(_run_task(job))
            bar.update(1)
    else:
        import multiprocessing as mp

        # Small chunks: slow players' games would otherwise hold the progress bar back.
        chunk = max(1, min(4, len(tasks) // (workers * 64)))
        init = (game, config, specs, record)
        with mp.Pool(workers, initializer=_worker_init, initargs=init) as pool:
            for rec in pool.imap_unordered(_run_task, jobs, chunksize=chunk):
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


__all__ = [
    "GameRecord",
    "PolicySpec",
    "RecordOptions",
    "play_game",
    "play_tasks",
    "seat_identity",
]
