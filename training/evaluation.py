"""A run's evaluations, shared by both trainers: the learner's win rates against the
baselines in the harness's duplicate games, the ``eval.csv`` history, and the
learning-curve picture (also drawn by :mod:`training.curve` for chained runs). Every
file is written atomically, and the histories grow by appending
(:mod:`schnauz_env.common.files`).
"""

from __future__ import annotations

import contextlib
import csv
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from schnauz_env.common.files import append_csv_rows, atomic_write, read_csv_rows
from training.args import TableArgs


def win_rate(
    model_path: str | Path,
    opponent: str,
    game: str,
    players: int,
    options: dict[str, Any],
    games: int,
    seed: int,
    workers: int | None = None,
) -> dict[str, float]:
    """The model's win rate (95% Wilson interval) in duplicate games against copies of
    ``opponent`` at a table of ``players`` under rule ``options``; ``workers`` as the
    harness takes them (``None``: its default)."""
    from policies.evaluation import evaluate

    more = {} if workers is None else {"workers": workers}
    result = evaluate(
        [str(model_path)] + [opponent] * (players - 1),
        game=game,
        players=players,
        games=games,
        seed=seed,
        options=options,
        schedule="table",
        **more,
    )
    s = result.stats(str(model_path))
    return {"win_rate": s.win_rate, "low": s.win_low, "high": s.win_high, "games": s.seat_games}


def baseline_columns(
    model_path: str | Path, args: TableArgs, rules: dict[str, Any], workers: int | None = None
) -> dict[str, float]:
    """``win_<opponent>``, ``win_<opponent>_lo`` and ``win_<opponent>_hi`` of the model
    against each of ``args.eval_opponents`` (the columns of ``eval.csv``): ``args.eval_games``
    games at a table of ``args.eval_table_size`` under ``rules``, deals from ``args.seed + 7``."""
    game, players, games, seed = args.game, args.eval_table_size, args.eval_games, args.seed + 7
    row: dict[str, float] = {}
    for opp in args.eval_opponents:
        res = win_rate(model_path, opp, game, players, rules, games, seed, workers)
        row[f"win_{opp}"] = res["win_rate"]
        row[f"win_{opp}_lo"] = res["low"]
        row[f"win_{opp}_hi"] = res["high"]
    return row


def write_csv(path: Path, rows: list[dict[str, Any]], overwrite: bool = True) -> None:
    """``rows`` as a CSV file, with every key of every row as a column, written
    atomically (an existing file replaced only with ``overwrite``). A run's histories
    (``eval.csv``, ``progress.csv``) grow with :func:`append_rows` instead."""
    fields = list(dict.fromkeys(k for r in rows for k in r))

    def write(fh: Any) -> None:
        writer = csv.DictWriter(fh, fieldnames=fields, lineterminator="\r\n")
        writer.writeheader()
        writer.writerows(rows)

    atomic_write(path, write, overwrite)


def append_rows(path: Path, rows: list[dict[str, Any]]) -> None:
    """Add ``rows`` to the CSV history ``path`` (created if missing) without rewriting the
    rows already there: a kill costs at most the row being written
    (:func:`schnauz_env.common.files.append_csv_rows`)."""
    append_csv_rows(path, rows)


def print_row(label: str | None, row: dict[str, Any]) -> None:
    """One line of a run's log (after ``label``, if any): floats rounded to 3 decimals."""
    shown = {k: round(v, 3) if isinstance(v, float) else v for k, v in row.items()}
    print(shown) if label is None else print(label, shown)


def plot_learning_curve(
    csv_path: Path, png_path: Path, opponents: Sequence[str], table_size: int | None = None
) -> None:
    """Win rate against each baseline vs training steps, with 95% intervals.

    The fair-share line is drawn at ``1 / table_size`` (default: the run's
    ``eval_table_size`` from ``args.json`` beside the CSV, if there is one)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = read_csv_rows(csv_path)
    steps = np.array([float(r["step"]) for r in rows])
    fig, ax = plt.subplots(figsize=(7, 4.2))
    for opp in opponents:
        y = np.array([float(r[f"win_{opp}"]) for r in rows])
        lo = np.array([float(r[f"win_{opp}_lo"]) for r in rows])
        hi = np.array([float(r[f"win_{opp}_hi"]) for r in rows])
        ax.plot(steps, y, marker="o", label=f"vs {opp}")
        ax.fill_between(steps, lo, hi, alpha=0.2)
    n = table_size
    with contextlib.suppress(OSError, KeyError, ValueError):
        n = n or json.loads((csv_path.parent / "args.json").read_text())["eval_table_size"]
    if n:
        ax.axhline(1 / n, color="grey", linestyle="--", linewidth=1, label=f"fair share 1/{n}")
    ax.set_xlabel("training steps (learner decisions)")
    ax.set_ylabel("win rate (95% interval)")
    ax.set_ylim(0, 1)
    ax.set_title("Learning curve: win rate against each baseline")
    ax.legend()
    fig.tight_layout()
    try:  # atomically: a kill leaves the previous picture
        atomic_write(png_path, lambda f: fig.savefig(f, format="png", dpi=120), True, binary=True)
    finally:
        plt.close(fig)
