"""Where the batched engine's time goes: Python around the kernels, and inside them.

    python bench/profile_batched.py                 # pyinstrument: the Python side
    python bench/profile_batched.py --perf          # + perf: time per compiled function
    py-spy record --native -o profile.svg -- python bench/profile_batched.py --loop 20

    python bench/profile_batched.py --game thirteen --perf

The workload is the benchmark's API loop, ``eng.step(eng.random_actions())`` on
``--batch`` games of 4-player ``--game`` (schnauz, scat or thirteen; default schnauz),
with (``--obs``, default) or without views.

- pyinstrument splits the wall time between the Python wrapper (argument checks,
  numba's dispatch) and the kernels, which it sees as single opaque calls.
- ``--perf`` looks inside them: it compiles the kernels afresh in a scratch cache
  (numba only keeps the symbol addresses of code it compiled in this process),
  samples the process with Linux ``perf record`` and attributes every sample to
  the compiled function it fell in (helpers inlined into a kernel count as the
  kernel). Needs ``perf`` (``apt-get install linux-perf``).
"""

from __future__ import annotations

import argparse
import bisect
import collections
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

#: The modules of each batched engine that hold compiled functions.
MODULES = {
    "schnauz": ("rules", "encode", "bots", "loop"),
    "scat": ("rules", "observe", "players", "kernels"),
    "thirteen": ("rules", "observe", "players", "kernels"),
}


def make_engine(game: str, batch: int, observe: bool):
    import schnauz_env.batched as batched

    cls = getattr(batched, f"Batched{game.capitalize()}")
    eng = cls(num_games=batch, num_players=4, seed=0, observe=observe)
    eng.reset()
    eng.step(eng.random_actions())
    return eng


def loop(eng, seconds: float) -> float:
    steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        for _ in range(16):
            eng.step(eng.random_actions())
        steps += 16 * eng.num_games
    return steps / (time.perf_counter() - start)


def python_side(game: str, batch: int, observe: bool, seconds: float) -> None:
    from pyinstrument import Profiler

    eng = make_engine(game, batch, observe)
    profiler = Profiler(interval=0.0005)
    profiler.start()
    rate = loop(eng, seconds)
    profiler.stop()
    print(profiler.output_text(unicode=False, color=False, show_all=False))
    print(f"agent-steps/s while profiled: {rate:,.0f}")


def symbols(game: str) -> dict[int, str]:
    """Start address -> name of every function compiled in this process."""
    import importlib

    found: dict[int, str] = {}
    for module in MODULES[game]:
        mod = importlib.import_module(f"schnauz_env.batched.{game}.{module}")
        for name in dir(mod):
            disp = getattr(mod, name)
            for cres in getattr(disp, "overloads", {}).values():
                lib = cres.library
                for fn in lib.get_defined_functions():
                    addr = lib.get_pointer_to_function(fn.name)
                    if addr:
                        found[addr] = fn.name
    return found


def short(name: str) -> str:
    modules = "|".join(sorted({m for ms in MODULES.values() for m in ms}))
    m = re.search(rf"(?:{modules})\d+(\w+?)B\d", name) or re.search(r"(NRT_\w+|nrt_\w+)", name)
    return m.group(1) if m else name[:40]


def inside(game: str, batch: int, observe: bool, seconds: float) -> None:
    """Child of ``--perf``: compile afresh, list symbols, then run the loop under perf."""
    eng = make_engine(game, batch, observe)
    table = symbols(game)
    print("READY", flush=True)
    print(repr(table), flush=True)
    sys.stdin.readline()  # the parent attaches perf, then says go
    rate = loop(eng, seconds)
    print(f"RATE {rate}", flush=True)


def kernel_side(game: str, batch: int, observe: bool, seconds: float) -> None:
    if shutil.which("perf") is None:
        print("perf not found: apt-get install linux-perf")
        return
    scratch = tempfile.mkdtemp(prefix="schnauz_numba_")
    data = os.path.join(scratch, "perf.data")
    env = dict(os.environ, NUMBA_CACHE_DIR=scratch)
    args = [sys.executable, __file__, "--child", "--game", game, "--batch", str(batch)]
    args += ["--loop", str(seconds)]
    args += ["--obs"] if observe else ["--no-obs"]
    child = subprocess.Popen(
        args, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert child.stdout is not None and child.stdin is not None
    while child.stdout.readline().strip() != "READY":
        pass
    import ast

    table = ast.literal_eval(child.stdout.readline())
    perf = subprocess.Popen(
        [
            "perf",
            "record",
            "-F",
            "2000",
            "-p",
            str(child.pid),
            "-o",
            data,
            "--",
            "sleep",
            str(seconds),
        ],
        stderr=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
    )
    time.sleep(0.5)
    child.stdin.write("go\n")
    child.stdin.flush()
    out = child.stdout.read()
    child.wait()
    perf.wait()
    ips = subprocess.run(
        ["perf", "script", "-i", data, "-F", "ip,dso"], capture_output=True, text=True
    ).stdout.split("\n")
    starts = sorted(table)
    counts: collections.Counter[str] = collections.Counter()
    for line in ips:
        parts = line.split()
        if not parts:
            continue
        ip = int(parts[0], 16)
        i = bisect.bisect_right(starts, ip) - 1
        jit = "/perf-" in parts[-1] or "/" not in parts[-1]  # JIT code has no file
        if i >= 0 and ip - starts[i] < 65536 and jit:
            counts[short(table[starts[i]])] += 1
        else:
            dso = parts[-1].strip("()").rsplit("/", 1)[-1] if len(parts) > 1 else "?"
            counts[f"(outside the kernels: {dso})"] += 1
    total = sum(counts.values()) or 1
    print(f"\nperf samples by compiled function ({total} samples):")
    for name, count in counts.most_common(20):
        print(f"{100 * count / total:6.1f}%  {name}")
    rate = re.search(r"RATE ([\d.]+)", out)
    if rate:
        print(f"agent-steps/s under perf: {float(rate.group(1)):,.0f}")
    shutil.rmtree(scratch, ignore_errors=True)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--game", choices=sorted(MODULES), default="schnauz")
    p.add_argument("--batch", type=int, default=1024)
    p.add_argument("--obs", dest="obs", action="store_true", default=True)
    p.add_argument("--no-obs", dest="obs", action="store_false")
    p.add_argument("--loop", type=float, default=5.0, help="seconds of stepping")
    p.add_argument("--perf", action="store_true", help="also profile inside the kernels")
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child:
        inside(args.game, args.batch, args.obs, args.loop)
        return
    python_side(args.game, args.batch, args.obs, args.loop)
    if args.perf:
        kernel_side(args.game, args.batch, args.obs, args.loop)


if __name__ == "__main__":
    main()
