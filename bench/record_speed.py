"""What recording costs an evaluation: the same games with and without ``--record``.

Two measurements, both alternating the order of the two runs so that the drift of a
shared machine falls on both alike:

* ``--mode process`` (default): in this process, ``--games`` games split into chunks;
  each chunk is evaluated without and with ``record=`` (same seed), one process, and
  the CPU and wall time of each run are summed per mode. The recorder's own time
  (``Recorder.see``, ``add``, ``record``, the JSON line and the file) is also timed
  directly: its share of the recorded runs does not depend on the machine's drift;
* ``--mode command``: the ``schnauz-eval`` command itself on ``--games`` games, back to
  back without and with ``--record DIR`` (``--repeats`` pairs), timed from outside
  (wall, and the child's CPU from ``getrusage``).

    python bench/record_speed.py --policies random greedy --games 1000
    python bench/record_speed.py --mode command --policies random greedy --games 1000 --repeats 3
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def timed(fn) -> tuple[float, float]:
    w0, c0 = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - w0, time.process_time() - c0


def instrument() -> dict[str, float]:
    """Time everything recording adds to an evaluation (in this process): the
    recorder's calls, the JSON line of each record, and writing the file."""
    from policies.evaluation import harness, runner
    from schnauz_env.records.recorder import Recorder

    spent = {"seconds": 0.0}

    def timing(fn):
        def wrapper(*args, **kwargs):
            t = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                spent["seconds"] += time.perf_counter() - t

        return wrapper

    for name in ("see", "add", "record"):
        setattr(Recorder, name, timing(getattr(Recorder, name)))
    runner.dumps = timing(runner.dumps)
    harness.write_records = timing(harness.write_records)
    return spent


def child_timed(cmd: list[str]) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    w0 = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - w0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--mode", choices=("process", "command"), default="process")
    p.add_argument("--policies", nargs="+", default=["random", "greedy"])
    p.add_argument("--game", default="schnauz")
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--games", type=int, default=1000)
    p.add_argument("--chunk", type=int, default=100, help="games per run (process mode)")
    p.add_argument("--repeats", type=int, default=3, help="pairs of runs (command mode)")
    p.add_argument("--workers", type=int, default=1)
    args = p.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="record_speed_"))
    totals = {"plain": [0.0, 0.0], "record": [0.0, 0.0]}
    runs = []
    if args.mode == "process":
        from policies.evaluation import evaluate

        common = dict(game=args.game, players=args.players, workers=args.workers)
        evaluate(args.policies, games=2, **common)  # warm up (imports, compiled kernels)
        spent = instrument()
        for k in range(max(1, args.games // args.chunk)):
            order = ("plain", "record") if k % 2 == 0 else ("record", "plain")
            for mode in order:
                out = tmp / f"r{k}"
                extra = {"record": out} if mode == "record" else {}
                wall, cpu = timed(
                    lambda extra=extra, k=k: evaluate(
                        args.policies, games=args.chunk, seed=k, **common, **extra
                    )
                )
                totals[mode][0] += wall
                totals[mode][1] += cpu
                runs.append(
                    {"chunk": k, "mode": mode, "wall": round(wall, 2), "cpu": round(cpu, 2)}
                )
                print(json.dumps(runs[-1]), flush=True)
    else:
        base = [
            sys.executable, "-m", "policies.evaluation.cli", "--policies", *args.policies,
            "--game", args.game, "--players", str(args.players), "--games", str(args.games),
            "--workers", str(args.workers), "--quiet", "--seed", "0",
        ]  # fmt: skip
        for k in range(args.repeats):
            order = ("plain", "record") if k % 2 == 0 else ("record", "plain")
            for mode in order:
                out = tmp / f"r{k}"
                cmd = [*base, "--record", str(out)] if mode == "record" else base
                wall, cpu = child_timed(cmd)
                totals[mode][0] += wall
                totals[mode][1] += cpu
                runs.append({"pair": k, "mode": mode, "wall": round(wall, 2), "cpu": round(cpu, 2)})
                print(json.dumps(runs[-1]), flush=True)
    own = {}
    if args.mode == "process":
        own = {
            "recorder_seconds": round(spent["seconds"], 2),
            "recorder_share_of_recorded_wall": f"{100 * spent['seconds'] / totals['record'][0]:.1f}%",
        }
    recorded = sum(f.read_text().count("\n") for f in tmp.rglob("records.jsonl"))
    size = sum(f.stat().st_size for f in tmp.rglob("records.jsonl"))
    shutil.rmtree(tmp)
    (pw, pc), (rw, rc) = totals["plain"], totals["record"]
    # Each repeat's ratio (record / plain, the two runs side by side): their spread is
    # the noise of the shared machine.
    key = "chunk" if args.mode == "process" else "pair"
    pairs: dict[int, dict[str, dict]] = {}
    for run in runs:
        pairs.setdefault(run[key], {})[run["mode"]] = run
    ratios = [p["record"]["wall"] / p["plain"]["wall"] for p in pairs.values()]
    cpu_ratios = [p["record"]["cpu"] / p["plain"]["cpu"] for p in pairs.values()]
    print(
        json.dumps(
            {
                "mode": args.mode,
                "policies": args.policies,
                "game": args.game,
                "games_per_mode": args.games
                if args.mode == "process"
                else args.games * args.repeats,
                "recorded_games": recorded,
                "record_bytes_per_game": round(size / max(1, recorded)),
                "plain": {"wall": round(pw, 1), "cpu": round(pc, 1)},
                "record": {"wall": round(rw, 1), "cpu": round(rc, 1)},
                "wall_ratio": round(rw / pw, 3),
                "cpu_ratio": round(rc / pc, 3),
                "extra_wall": f"{100 * (rw / pw - 1):+.1f}%",
                "extra_cpu": f"{100 * (rc / pc - 1):+.1f}%",
                "wall_ratio_per_repeat": [round(r, 3) for r in ratios],
                "wall_ratio_median": round(statistics.median(ratios), 3),
                "cpu_ratio_per_repeat": [round(r, 3) for r in cpu_ratios],
                **own,
            },
            indent=1,
        )
    )


if __name__ == "__main__":
    main()
