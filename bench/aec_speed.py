"""Random-play speed of the AEC environments, side by side with PettingZoo's classic games.

    python bench/aec_speed.py                       # ours + whichever peers are installed
    python bench/aec_speed.py --seconds 10 --repeats 5
    python bench/aec_speed.py --baseline /path/to/old/tree   # before/after, same run
    python bench/aec_speed.py --only 'schnauz|leduc'

Every environment runs the standard AEC loop (``agent_iter`` / ``last`` / ``step``)
with the same cheap random legal action (``mask.nonzero()`` then ``random``), so
the figures compare the environments, not the action sampler. An agent-step is one
``step`` with an action (dead-agent ``step(None)`` calls are not counted); every game
starts with ``reset(seed=...)``. Peers (PettingZoo ``leduc_holdem_v4``,
``texas_holdem_v4`` need ``rlcard``; ``tictactoe_v3``) run only if importable:
``pip install -e ".[bench]"``.

Each measurement runs in a fresh process, one after another: every environment once
per repeat, in turn (interleaved), so a shared machine's load falls on all of them
alike. Rates are agent-steps per CPU second of that process (``time.process_time``,
which load from other processes inflates less than wall time; ``--wall`` for wall
time); the table gives the median over the repeats, its spread (min–max), and the
ratio to the fastest peer card game measured in the same run. ``--baseline PATH``
also runs this package's environments from the source tree at ``PATH`` (imported
through ``PYTHONPATH``) and gives each one's ratio new / baseline, per repeat and of
the medians.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import statistics
import subprocess
import sys
import time
import warnings
from collections.abc import Callable

OURS = {
    "schnauz_v0 env() 4p": ("schnauz_env.schnauz_v0", "env", {"num_players": 4}),
    "schnauz_v0 raw_env 4p": ("schnauz_env.schnauz_v0", "raw_env", {"num_players": 4}),
    "scat_v0 env()": ("schnauz_env.scat_v0", "env", {}),
    "scat_v0 raw_env": ("schnauz_env.scat_v0", "raw_env", {}),
    "thirteen_v0 env()": ("schnauz_env.thirteen_v0", "env", {}),
    "thirteen_v0 raw_env": ("schnauz_env.thirteen_v0", "raw_env", {}),
}
PEERS = {
    "pettingzoo leduc_holdem_v4": ("pettingzoo.classic.leduc_holdem_v4", "env", {}),
    "pettingzoo texas_holdem_v4": ("pettingzoo.classic.texas_holdem_v4", "env", {}),
    "pettingzoo tictactoe_v3": ("pettingzoo.classic.tictactoe_v3", "env", {}),
}
BASELINE = " [baseline]"


def loop(make: Callable, seconds: float, seed: int = 0) -> dict[str, float]:
    """Random legal play for about ``seconds`` of CPU time: agent-steps, CPU and wall
    seconds."""
    rnd = random.Random(seed)
    env = make()
    steps = 0
    game = 0
    cpu, wall = time.process_time(), time.perf_counter()
    deadline = cpu + seconds
    while True:
        env.reset(seed=seed + game)
        game += 1
        for _agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            legal = obs["action_mask"].nonzero()[0]
            env.step(int(legal[rnd.randrange(len(legal))]))
            steps += 1
        if time.process_time() >= deadline:
            break
    return {
        "steps": steps,
        "cpu": time.process_time() - cpu,
        "wall": time.perf_counter() - wall,
    }


def worker(name: str, seconds: float, seed: int) -> None:
    """Measure one environment in this process; print the figures as JSON."""
    warnings.filterwarnings("ignore")
    module, factory, kwargs = {**OURS, **PEERS}[name]
    mod = __import__(module, fromlist=[factory])
    figures = loop(lambda: getattr(mod, factory)(**kwargs), seconds, seed)
    figures["file"] = mod.__file__
    print(json.dumps(figures))


def measure(name: str, seconds: float, seed: int, tree: str) -> dict[str, float]:
    """Run :func:`worker` for ``name`` in a fresh process that imports this package
    from the source tree ``tree``."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([tree, *filter(None, [env.get("PYTHONPATH")])])
    bare = name.removesuffix(BASELINE)
    cmd = [sys.executable, __file__, "--worker", bare, "--seconds", str(seconds)]
    cmd += ["--seed", str(seed)]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    if out.returncode:
        raise RuntimeError(f"{name}: worker failed:\n{out.stderr.strip()}")
    figures = json.loads(out.stdout.strip().splitlines()[-1])
    if bare in OURS and not os.path.realpath(figures["file"]).startswith(tree + os.sep):
        raise RuntimeError(f"{name}: imported {figures['file']}, not from {tree}")
    return figures


def available_peers() -> list[str]:
    found = []
    for name, (module, factory, _) in PEERS.items():
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                getattr(__import__(module, fromlist=[factory]), factory)().reset(seed=0)
            found.append(name)
        except Exception as err:  # a missing optional peer is reported, not fatal
            print(f"(skipping {name}: {type(err).__name__}: {err})")
    return found


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--seconds", type=float, default=4.0, help="CPU seconds per run")
    p.add_argument("--repeats", type=int, default=3, help="interleaved repeats per env")
    p.add_argument("--only", default=None, help="regular expression: run the envs it finds")
    p.add_argument("--baseline", default=None, help="source tree to compare this one with")
    p.add_argument("--wall", action="store_true", help="rates per wall second, not CPU")
    p.add_argument("--worker", default=None, help=argparse.SUPPRESS)
    p.add_argument("--seed", type=int, default=0, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.worker is not None:
        worker(args.worker, args.seconds, args.seed)
        return
    names = [*OURS, *available_peers()]
    if args.only:
        names = [k for k in names if re.search(args.only, k)]
    here = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
    runs = [(k, here) for k in names]
    if args.baseline:
        tree = os.path.realpath(args.baseline)
        runs += [(k + BASELINE, tree) for k in names if k in OURS]
        runs.sort(key=lambda run: run[0])  # each env beside its baseline
    clock = "wall" if args.wall else "cpu"
    rates: dict[str, list[float]] = {k: [] for k, _ in runs}
    for r in range(args.repeats):
        for name, tree in runs:
            figures = measure(name, args.seconds, 1000 * r, tree)
            rates[name].append(figures["steps"] / figures[clock])
            print(f"  repeat {r + 1}: {name:<36} {rates[name][-1]:>10,.0f}", flush=True)
    med = {k: statistics.median(v) for k, v in rates.items()}
    card_peers = [k for k in med if "holdem" in k]
    best_peer = max(card_peers, key=med.get) if card_peers else None
    unit = "agent-steps/CPU-s" if clock == "cpu" else "agent-steps/s"
    print(f"\n{'environment':<36} {unit + ' (median)':>28} {'min-max':>17} {'vs peer':>8}")
    for name, rate in sorted(med.items(), key=lambda kv: -kv[1]):
        ratio = f"{rate / med[best_peer]:.2f}x" if best_peer else "-"
        spread = f"{min(rates[name]):,.0f}-{max(rates[name]):,.0f}"
        print(f"{name:<36} {rate:>28,.0f} {spread:>17} {ratio:>8}")
    if best_peer:
        print(f"(peer: the fastest peer card game in this run, {best_peer})")
    if args.baseline:
        print(f"\nnew / baseline ({args.baseline}): ratio of medians [per repeat]")
        for name in names:
            if name in OURS:
                old = rates[name + BASELINE]
                each = ", ".join(f"{a / b:.2f}" for a, b in zip(rates[name], old, strict=True))
                print(f"{name:<36} {med[name] / med[name + BASELINE]:>6.2f}x  [{each}]")
    print(f"\n{sys.version.split()[0]}, {args.repeats} repeats of {args.seconds:g} s, {clock} time")


if __name__ == "__main__":
    main()
