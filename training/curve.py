"""Learning curves of runs that continue one another (``--init-model``), as one picture.

    python -m training.curve runs/f1 runs/f2@100032 --out docs/img/learning_curve.png

Each argument is a run directory (with the ``eval.csv`` that ``train.py`` writes),
optionally ``@OFFSET``: the learner decisions trained before the run started (a run
started from another run's checkpoint counts its steps from 0 again). An earlier run's
rows after a later run's start (its offset) are dropped: they are not on the chain.
The combined table is written beside the picture (``.csv``) and plotted like
``train.py``'s own curve.
"""

from __future__ import annotations

import contextlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

from tyro.conf import Positional, arg

from schnauz_env.common.files import read_csv_rows
from training.args import fail, parse_args
from training.evaluation import plot_learning_curve, write_csv


def combine(parts: list[tuple[Path, int]]) -> list[dict[str, str]]:
    """The rows of every run's ``eval.csv``, steps shifted by each run's offset."""
    rows: list[dict[str, str]] = []
    for run, offset in parts:
        path = run / "eval.csv"
        if not path.is_file():
            raise ValueError(f"{str(path)!r} does not exist (is {str(run)!r} a train.py run?)")
        try:
            new = [{**r, "step": str(int(float(r["step"])) + offset)} for r in read_csv_rows(path)]
        except (KeyError, TypeError, ValueError) as err:
            raise ValueError(f"{str(path)!r} is not an eval.csv of train.py ({err!r})") from None
        if new:
            # The run continues the chain from step ``offset``: what an earlier run
            # evaluated after that is not on the chain.
            start = int(new[0]["step"])
            rows = [r for r in rows if int(r["step"]) <= offset and int(r["step"]) < start] + new
    if not rows:
        raise ValueError("the runs have no evaluations")
    return rows


@dataclass
class Args:
    """Join the learning curves of runs that continue one another."""

    runs: Annotated[Positional[tuple[str, ...]], arg(metavar="RUN[@OFFSET] ...")]
    """run directories, in order, each optionally @OFFSET (the steps trained before it)"""
    out: str
    """the PNG to write (and its .csv; existing files are refused unless --overwrite)"""
    overwrite: bool = False
    """replace an existing picture and table"""


def split_offset(item: str) -> tuple[Path, int]:
    """``"runs/b@100"`` -> ``(Path("runs/b"), 100)``; ``ValueError`` for a bad offset."""
    run, _, offset = item.partition("@")
    try:
        return Path(run), int(offset or 0)
    except ValueError:
        raise ValueError(f"{item!r}: the offset after @ must be a whole number of steps") from None


def main(argv: list[str] | None = None) -> None:
    prog = "python -m training.curve"
    args = parse_args(Args, argv, Args.__doc__, prog)
    if not args.runs:
        fail(prog, "name at least one run directory")
    out = Path(args.out)
    table = out.with_suffix(".csv")
    try:
        if out.suffix.lower() != ".png":
            raise ValueError(f"--out {out}: name a .png file")
        there = [str(p) for p in (out, table) if p.exists()]
        if there and not args.overwrite:
            raise ValueError(
                f"--out: {', '.join(there)} exists; choose another name (or --overwrite)"
            )
        parts = [split_offset(item) for item in args.runs]
        rows = combine(parts)
    except ValueError as err:
        fail(prog, str(err))
    write_csv(table, rows, overwrite=args.overwrite)
    opponents = tuple(
        k[4:] for k in rows[0] if k.startswith("win_") and not k.endswith(("_lo", "_hi"))
    )
    sizes = set()
    for run, _ in parts:
        with contextlib.suppress(OSError, KeyError, ValueError):
            sizes.add(json.loads((run / "args.json").read_text())["eval_table_size"])
    plot_learning_curve(table, out, opponents, sizes.pop() if len(sizes) == 1 else None)
    print(f"{len(rows)} evaluations -> {out}, {table}")


if __name__ == "__main__":
    main()
