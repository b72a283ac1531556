"""The evaluation: build the rules, schedule the tables, play the games, measure them."""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

from policies.base import Policy
from policies.evaluation.report import EvalResult, summarize
from policies.evaluation.runner import PolicySpec, play_tasks
from policies.evaluation.schedule import make_schedule, make_tasks
from policies.registry import make_policy
from schnauz_env.common.options import make_config
from schnauz_env.games import game_module


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
    """
    config = make_game_config(game, players, options or {})
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
    start = time.perf_counter()
    records = play_tasks(tasks, game, config, specs, workers, progress)
    elapsed = time.perf_counter() - start
    stats, pairs = summarize(records, list(dict.fromkeys(labels)), players)
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


__all__ = ["evaluate", "make_game_config"]
