"""Playing the games: one game on the rules engine, and many in worker processes.

The harness drives the rules engine directly (:func:`schnauz_env.games.game_module`:
``Config``, ``new_game``, ``ObservationEncoder``), not the AEC wrapper, and works for
any game of the package. Each worker process builds every policy once per seat and
reseeds it before each game, so a run gives the same records whatever the number of
workers.
"""

from __future__ import annotations

import contextlib
import copy
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

import numpy as np

from policies.base import REGISTRY, Policy
from policies.evaluation.schedule import GameTask, derive_seed
from policies.mlp import SHIPPED, one_blas_thread, shipped_model
from policies.registry import make_policy
from schnauz_env.games import game_module
from schnauz_env.records import Recorder, Seat, dumps, file_sha256

#: A policy as :func:`policies.evaluation.evaluate` takes it: a name for
#: :func:`policies.make_policy` or a :class:`~policies.base.Policy` object.
PolicySpec = str | Policy
T = TypeVar("T")


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

    ``workers <= 1`` plays in this process, otherwise in ``workers`` processes
    (:func:`imap_workers`: a worker that dies raises :class:`WorkerDied` naming it, never
    a hang). ``progress`` shows a tqdm bar on stderr. ``record`` says which games to
    record (each :class:`GameRecord` then carries its ``record`` line). Ctrl-C raises
    :class:`Interrupted` carrying the games finished so far.
    """
    records: list[GameRecord] = []
    bar = _progress(len(tasks), progress)
    jobs = list(enumerate(tasks))
    stack = contextlib.ExitStack()
    try:
        if workers <= 1:
            stack.enter_context(one_blas_thread())
            _worker_init(game, config, specs, record)
            for job in jobs:
                records.append(_run_task(job))
                bar.update(1)
        else:
            # Small chunks: slow players' games would otherwise hold the progress bar back.
            chunk = max(1, min(4, len(tasks) // (workers * 64)))
            init = (game, config, specs, record)
            results = imap_workers(_run_task, jobs, workers, _worker_init, init, chunk)
            try:
                for rec in results:
                    records.append(rec)
                    bar.update(1)
            finally:
                results.close()  # stops the workers at once, whatever ended the loop
    except KeyboardInterrupt:
        raise Interrupted(records, len(tasks)) from None
    finally:
        bar.close()
        stack.close()
    return records


# ------------------------------------------------------------------ worker processes


class WorkerDied(RuntimeError):
    """A worker process ended without finishing its work (killed, out of memory, a crash
    in compiled code); the message names it and how it ended."""


class Interrupted(KeyboardInterrupt):
    """Ctrl-C during :func:`play_tasks`: ``records`` holds the games finished before it,
    of ``total``; :func:`~policies.evaluation.evaluate` adds their ``result`` (an
    :class:`~policies.evaluation.EvalResult` marked ``partial``; ``None`` if no game
    finished)."""

    def __init__(self, records: list[Any], total: int) -> None:
        super().__init__(f"interrupted after {len(records)} of {total} games")
        self.records = records
        self.total = total
        self.result: Any = None


def _quiet_worker(initializer: Callable[..., Any] | None, *initargs: Any) -> None:
    """A worker ignores Ctrl-C (the parent stops it), keeps numpy's BLAS to one thread
    (:func:`one_blas_thread`) and then runs ``initializer``."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    one_blas_thread().__enter__()
    if initializer is not None:
        initializer(*initargs)


def _run_chunk(fn: Callable[[Any], Any], jobs: list[Any]) -> list[Any]:
    return [fn(job) for job in jobs]


def imap_workers(
    fn: Callable[[Any], T],
    jobs: Sequence[Any],
    workers: int,
    initializer: Callable[..., Any] | None = None,
    initargs: tuple[Any, ...] = (),
    chunk: int = 1,
    unit: str = "games",
) -> Generator[T, None, None]:
    """``fn(job)`` for every job in ``workers`` processes, yielded as they finish.

    Each worker runs ``initializer(*initargs)`` first and ignores Ctrl-C: on Ctrl-C the
    workers are stopped and ``KeyboardInterrupt`` is raised here. A worker that dies
    mid-run (killed, a crash in compiled code) raises :class:`WorkerDied` naming its
    process id and exit status, at once: the other workers are stopped, nothing waits
    for ever. An exception raised by ``fn`` comes through as it is. ``unit`` names the
    jobs in that message. Closing the generator stops the workers.

    Ctrl-C is caught as a flag while this runs (in the main thread) and raised between
    two waits: a ``KeyboardInterrupt`` inside ``concurrent.futures`` can leave a
    future's lock taken, and the pool's thread then hangs the interpreter's exit.
    """
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
    from concurrent.futures.process import BrokenProcessPool

    jobs = list(jobs)
    chunks = iter([jobs[i : i + chunk] for i in range(0, len(jobs), max(1, chunk))])
    workers = max(1, min(workers, -(-len(jobs) // max(1, chunk))))
    pressed: list[int] = []
    previous = None
    if (
        threading.current_thread() is threading.main_thread()
        and signal.getsignal(signal.SIGINT) is signal.default_int_handler
    ):
        previous = signal.signal(signal.SIGINT, lambda signum, frame: pressed.append(signum))
    pool = ProcessPoolExecutor(
        workers, initializer=_quiet_worker, initargs=(initializer, *initargs)
    )
    done_jobs = 0
    workers_seen: dict[int, Any] = {}
    try:
        pending: set[Any] = set()
        while True:
            while len(pending) < 2 * workers:  # a few chunks queued per worker, no more
                part = next(chunks, None)
                if part is None:
                    break
                pending.add(pool.submit(_run_chunk, fn, part))
            # The pool may drop a dead worker from its own table before we ask: keep ours.
            workers_seen.update(getattr(pool, "_processes", {}))
            if not pending:
                break
            if pressed:
                raise KeyboardInterrupt
            finished, pending = wait(pending, timeout=0.25, return_when=FIRST_COMPLETED)
            for future in finished:
                try:
                    results = future.result()
                except BrokenProcessPool:
                    workers_seen.update(getattr(pool, "_processes", {}))
                    # The pool's own thread stops and reaps the workers now. Reading their
                    # exit codes while it does is a race (multiprocessing's poll() is not
                    # thread-safe: a child it reaped first reads as still running, so the
                    # message could name only a worker the pool stopped): let it finish.
                    manager = getattr(pool, "_executor_manager_thread", None)
                    if manager is not None:
                        manager.join(timeout=5.0)
                    dead = _dead_workers(list(workers_seen.values()), done_jobs, len(jobs), unit)
                    raise WorkerDied(dead) from None
                done_jobs += len(results)
                yield from results
                if pressed:
                    raise KeyboardInterrupt
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)
        _stop(pool)


def _dead_workers(procs: list[Any], done: int, total: int, unit: str) -> str:
    """Which of the worker processes ``procs`` died and how (one line)."""
    for p in procs:
        p.join(timeout=1.0)
    ended = [(p.pid, p.exitcode) for p in procs if p.exitcode not in (None, 0)]
    # The pool stops the survivors with SIGTERM once one has died: name the others first.
    first = [e for e in ended if e[1] != -signal.SIGTERM] or ended
    what = ", ".join(f"{pid} ({_how(code)})" for pid, code in first) or "unknown"
    return (
        f"a worker process died: {what}, after {done} of {total} {unit} "
        "(run again; with --workers 1 an error in the work itself shows its traceback)"
    )


def _how(code: int | None) -> str:
    if code is None:
        return "still running"
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit code {code}"


def _stop(pool: Any) -> None:
    """Shut ``pool`` down now: cancel what has not started and end its processes."""
    procs = list(getattr(pool, "_processes", {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for p in procs:
        if p.is_alive():
            p.terminate()
    for p in procs:
        p.join(timeout=5.0)


class _NoBar:
    def update(self, n: int) -> None:
        pass

    def close(self) -> None:
        pass


class _LineBar:
    """Progress as plain lines on stderr, for a log file or a pipe (nohup, CI), where a
    bar's carriage returns would pile up into one huge line: a line at every tenth of
    the games and at least every 30 s, and the count where it stopped."""

    def __init__(self, total: int, every_s: float = 30.0) -> None:
        self.total, self.every_s = total, every_s
        self.done = self.shown = 0
        self.start = self.last = time.monotonic()
        self.next_share = 0.1

    def update(self, n: int) -> None:
        self.done += n
        now = time.monotonic()
        if self.done >= self.next_share * self.total or now - self.last >= self.every_s:
            self._line(now)
            while self.next_share * self.total <= self.done:
                self.next_share += 0.1

    def _line(self, now: float) -> None:
        self.last, self.shown = now, self.done
        rate = self.done / max(now - self.start, 1e-9)
        print(
            f"played {self.done:,}/{self.total:,} games ({self.done / self.total:.0%}, "
            f"{rate:.1f} games/s)",
            file=sys.stderr,
            flush=True,
        )

    def close(self) -> None:
        if self.done != self.shown:
            self._line(time.monotonic())


def _progress(total: int, show: bool) -> Any:
    if not show or total <= 0:
        return _NoBar()
    if not sys.stderr.isatty():
        return _LineBar(total)
    from tqdm import tqdm

    return tqdm(total=total, unit="game", smoothing=0.05, dynamic_ncols=True, file=sys.stderr)


__all__ = [
    "GameRecord",
    "Interrupted",
    "PolicySpec",
    "RecordOptions",
    "WorkerDied",
    "imap_workers",
    "play_game",
    "play_tasks",
    "seat_identity",
]
