"""The evaluation: build the rules, schedule the tables, play the games, measure them."""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np

from policies.base import Policy
from policies.evaluation.report import EvalResult, summarize
from policies.evaluation.runner import (
    GameRecord,
    Interrupted,
    PolicySpec,
    RecordOptions,
    play_tasks,
    seat_identity,
)
from policies.evaluation.schedule import Matchup, derive_seed, make_schedule, make_tasks
from policies.registry import make_policy
from schnauz_env.common.options import make_config
from schnauz_env.games import game_module
from schnauz_env.records import write_records

#: The file ``evaluate(record=DIR)`` writes in ``DIR``.
RECORDS_FILE = "records.jsonl"


def evaluate(
    policies: Sequence[PolicySpec],
    game: str = "schnauz",
    players: int = 4,
    games: int = 200,
    schedule: str = "auto",
    duplicate: bool = True,
    workers: int | None = None,
    seed: int = 0,
    options: dict[str, Any] | None = None,
    games_with: dict[str, int] | None = None,
    progress: bool = False,
    record: str | os.PathLike | None = None,
    record_sample: int | None = None,
    record_details: bool = False,
) -> EvalResult:
    """Play ``policies`` against each other and measure them (see :mod:`policies.evaluation`).

    ``policies`` are names for :func:`policies.make_policy` (``"expert"``,
    ``"ismcts:400"``, a model path) or :class:`~policies.base.Policy` objects (labelled
    by their ``name``). ``options`` are rule options of the game's config besides
    ``num_players``, as typed values (``{"knock_in_first_circle": False}``; a command
    line parses ``key=value`` text with :func:`schnauz_env.common.options.parse_rules`).
    ``workers=None`` uses every core; ``1`` plays in this process. ``seed`` fixes the
    deals (the same in every table) and the policies' seeds, so a run is reproducible
    whatever the number of workers.

    ``record`` (a folder) writes every game's record (:mod:`schnauz_env.records`) to
    ``DIR/records.jsonl``, in schedule order, or only ``record_sample`` games chosen by
    ``seed``; ``record_details`` also keeps each move's legal actions and the policy's
    probabilities. Recording changes no move and no result. The file is written
    atomically and never over an existing one (``FileExistsError``, before any game).

    A worker process that dies raises :class:`~policies.evaluation.runner.WorkerDied`
    naming it. Ctrl-C raises :class:`~policies.evaluation.runner.Interrupted` whose
    ``result`` measures the games finished so far (``settings["partial"]`` is true; their
    records are written as well).
    """
    config = make_game_config(game, players, options or {})
    record_path = None
    if record is not None:
        record_path = Path(record) / RECORDS_FILE
        if record_path.exists():
            raise FileExistsError(f"{record_path} exists; record to another folder")
        if record_sample is not None and record_sample < 0:
            raise ValueError(f"record_sample must be >= 0, got {record_sample}")
    specs: dict[str, PolicySpec] = {}
    labels = []
    for p in policies:
        label = p.name if isinstance(p, Policy) else str(p)
        if isinstance(p, str):
            make_policy(p, game=game, config=config, seed=0)  # fail early on a bad name
        specs[label] = p
        labels.append(label)
    if games_with:
        unknown = sorted(set(games_with) - set(labels))
        if unknown:
            raise ValueError(f"games_with names {', '.join(unknown)} that are not playing")
    tables = make_schedule(labels, players, games, schedule, duplicate, games_with)
    tasks = make_tasks(tables, duplicate, seed)
    if workers is None:
        workers = os.cpu_count() or 1
    recording = None
    if record_path is not None:
        recording = RecordOptions(
            seats={label: seat_identity(spec, game, config) for label, spec in specs.items()},
            games=_sample(len(tasks), record_sample, seed),
            details=record_details,
            meta={"source": "schnauz-eval", "run_seed": seed},
        )
    settings = {
        "game": game,
        "players": players,
        "policies": list(dict.fromkeys(labels)),
        "games_requested": games,
        "games_with": dict(games_with or {}),
        "schedule": schedule,
        "duplicate": duplicate,
        "seed": seed,
        "workers": workers,
        "rules": {k: v for k, v in _config_dict(config).items() if k != "num_players"},
        "fair_share": 1.0 / players,
    }
    start = time.perf_counter()
    try:
        records = play_tasks(tasks, game, config, specs, workers, progress, recording)
    except Interrupted as stop:
        # Ctrl-C: the games finished so far, measured and marked as partial.
        if stop.records:
            stop.result = _result(
                stop.records, tables, labels, players, time.perf_counter() - start,
                record_path, settings={**settings, "partial": True, "games_planned": len(tasks)},
            )  # fmt: skip
        raise
    return _result(
        records, tables, labels, players, time.perf_counter() - start, record_path, settings
    )


def _result(
    records: list[GameRecord],
    tables: list[Matchup],
    labels: list[str],
    players: int,
    elapsed: float,
    record_path: Path | None,
    settings: dict[str, Any],
) -> EvalResult:
    """The evaluation's result from its records (and its record file written)."""
    if record_path is not None:
        ordered = sorted(records, key=lambda r: (r.table, r.deal, r.rotation))
        write_records(record_path, (r.record for r in ordered if r.record is not None))
    stats, pairs = summarize(records, list(dict.fromkeys(labels)), players)
    settings = dict(settings)
    if record_path is not None:
        settings["recorded_games"] = sum(r.record is not None for r in records)
    table_info = []
    for t, m in enumerate(tables):
        recs = [r for r in records if r.table == t]
        table_info.append({"seats": list(m.seats), "deals": m.deals, "games": len(recs)})
    return EvalResult(
        settings=settings,
        records=records,
        policies=stats,
        pairs=pairs,
        elapsed=elapsed,
        turn_limits=sum(r.turn_limits for r in records),
        tables=table_info,
    )


def _sample(tasks: int, sample: int | None, seed: int) -> frozenset[int] | None:
    """The indices of the ``sample`` games to record, drawn from ``seed`` (``None``: all)."""
    if sample is None or sample >= tasks:
        return None
    rng = np.random.default_rng(derive_seed(seed, 0x5EC0D))
    return frozenset(int(i) for i in rng.choice(tasks, size=sample, replace=False))


def make_game_config(game: str, players: int, options: dict[str, Any]) -> Any:
    """The rules config of ``game`` for ``players`` seats and typed rule ``options``;
    ``ValueError`` for an unknown option (listing the allowed ones) or a bad value."""
    return make_config(game_module(game).Config, {"num_players": players, **options}, game)


def _config_dict(config: Any) -> dict[str, Any]:
    if hasattr(config, "to_dict"):
        return config.to_dict()
    try:
        return asdict(config)
    except TypeError:
        return {}


__all__ = ["RECORDS_FILE", "evaluate", "make_game_config"]
