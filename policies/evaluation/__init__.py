"""Evaluate players against each other: duplicate deals, intervals, a leaderboard.

Floor 5 of the house (``docs/architecture.md``): it plays the players of
:mod:`policies` and never the other way round. Python API::

    from policies.evaluation import evaluate

    result = evaluate(["random", "greedy", "expert"], game="schnauz", players=4, games=400)
    result.print_table()
    result.save("docs/leaderboard")          # results.json, leaderboard.csv, pairwise.csv, .png

Command line (``schnauz-eval --help`` documents every option and each game's rules)::

    schnauz-eval --game schnauz --players 4 --policies random greedy expert --games 2000
    schnauz-eval --policies model expert expert expert --rules knock_in_first_circle=false

One job per module, each importing only the ones listed before it:

- :mod:`~policies.evaluation.stats`: Wilson and t intervals, Plackett–Luce ratings;
- :mod:`~policies.evaluation.schedule`: the tables (``"table"``, ``"pairs"``), the seat
  rotations of duplicate deals, and the seeded list of games;
- :mod:`~policies.evaluation.runner`: one game on the rules engine, many in worker
  processes (``workers``, default: every core), a :class:`GameRecord` each;
- :mod:`~policies.evaluation.report`: per-policy and per-pair statistics and
  :class:`EvalResult` (tables, Markdown, JSON, CSV, PNG);
- :mod:`~policies.evaluation.harness`: :func:`evaluate`, which runs the above;
- :mod:`~policies.evaluation.cli`: ``schnauz-eval``.

``games`` counts games per table, rounded up to whole sets of rotations; ``seed`` fixes
the deals and the policies' seeds, so a run is reproducible whatever the number of
workers.
"""

from policies.evaluation.harness import evaluate, make_game_config
from policies.evaluation.report import EvalResult, PairStats, PolicyStats, summarize
from policies.evaluation.runner import GameRecord, PolicySpec, play_game, play_tasks
from policies.evaluation.schedule import (
    GameTask,
    Matchup,
    derive_seed,
    make_schedule,
    make_tasks,
    rotations,
)
from policies.evaluation.stats import (
    Rating,
    mean_interval,
    plackett_luce_ratings,
    wilson_interval,
)

__all__ = [
    "EvalResult",
    "GameRecord",
    "GameTask",
    "Matchup",
    "PairStats",
    "PolicySpec",
    "PolicyStats",
    "Rating",
    "derive_seed",
    "evaluate",
    "make_game_config",
    "make_schedule",
    "make_tasks",
    "mean_interval",
    "plackett_luce_ratings",
    "play_game",
    "play_tasks",
    "rotations",
    "summarize",
    "wilson_interval",
]
