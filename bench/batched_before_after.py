"""Before/after of the batched Schnauz engine: this checkout against another source tree.

    python bench/batched_before_after.py /path/to/old/tree            # 3 repeats
    python bench/batched_before_after.py /path/to/old/tree --repeats 5

Each tree is imported in a fresh process (``PYTHONPATH``), one after the other, repeat by
repeat (interleaved), so a shared machine's load falls on both alike. A process measures
three figures on CPU time (``time.process_time``), 2 CPU-seconds each, 1,024 four-player
games: ``play_random`` with and without observations (the compiled loop alone), and
``step(greedy_actions())`` (the Python API). The table gives the medians and the ratio
this tree / the other, per repeat and of the medians. A re-layering or refactor should
leave the ratios at 1 within the spread of the repeats.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

WORK = r"""
import time, json
from schnauz_env.batched import BatchedSchnauz
out = {}
for obs in (True, False):
    eng = BatchedSchnauz(1024, num_players=4, observe=obs, seed=0)
    eng.reset(seed=0)
    eng.play_random(20)
    t = time.process_time(); n = 0
    while time.process_time() - t < 2.0:
        n += eng.play_random(50)
    out["play_random, observations" if obs else "play_random, bare"] = n / (time.process_time() - t)
eng = BatchedSchnauz(1024, num_players=4, observe=True, seed=1)
eng.reset(seed=1)
for _ in range(5):
    eng.step(eng.greedy_actions())
t = time.process_time(); n = 0
while time.process_time() - t < 2.0:
    eng.step(eng.greedy_actions()); n += 1024
out["step(greedy_actions())"] = n / (time.process_time() - t)
import schnauz_env
out["file"] = schnauz_env.__file__
print(json.dumps(out))
"""


def run(tree: str) -> dict[str, float]:
    """The figures of the source tree ``tree``, measured in a fresh process."""
    env = dict(os.environ, PYTHONPATH=tree)
    out = subprocess.run(
        [sys.executable, "-c", WORK], env=env, capture_output=True, text=True, cwd="/"
    )
    if out.returncode:
        raise SystemExit(f"{tree}: {out.stderr.strip()}")
    figures = json.loads(out.stdout.strip().splitlines()[-1])
    if not os.path.realpath(figures.pop("file")).startswith(os.path.realpath(tree) + os.sep):
        raise SystemExit(f"{tree}: the process did not import schnauz_env from this tree")
    return figures


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("baseline", help="the other source tree (e.g. a git worktree)")
    p.add_argument("--repeats", type=int, default=3, help="interleaved repeats (default 3)")
    args = p.parse_args(argv)
    if not os.path.isdir(os.path.join(args.baseline, "schnauz_env")):
        p.error(f"baseline {args.baseline!r} has no schnauz_env package")
    if args.repeats < 1:
        p.error("--repeats must be at least 1")
    here = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
    runs: dict[str, list[dict[str, float]]] = {"baseline": [], "this": []}
    for r in range(args.repeats):
        for name, tree in (("baseline", args.baseline), ("this", here)):
            runs[name].append(run(tree))
            print(f"repeat {r + 1} {name}: {runs[name][-1]}", flush=True)
    print(f"\n{'figure':<28}{'baseline':>14}{'this tree':>14}  this/baseline (per repeat)")
    for key in runs["baseline"][0]:
        b = statistics.median(x[key] for x in runs["baseline"])
        t = statistics.median(x[key] for x in runs["this"])
        per = ", ".join(
            f"{y[key] / x[key]:.2f}" for x, y in zip(runs["baseline"], runs["this"], strict=True)
        )
        print(f"{key:<28}{b:>14,.0f}{t:>14,.0f}  {t / b:.3f} ({per})")


if __name__ == "__main__":
    main()
