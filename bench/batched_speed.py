"""The batched engines on one core, side by side with OpenSpiel, in one run.

    python bench/batched_speed.py                          # Schnauz, Scat, Thirteen vs leduc
    python bench/batched_speed.py --game thirteen --seconds 3 --repeats 5 --profile
    python bench/batched_speed.py --game schnauz --spiel leduc_poker crazy_eights hearts
    python bench/batched_speed.py --compile                # + cold compile time per game

Every contender plays random legal moves on one core, and an agent-step is one
decision of one player (chance nodes are not counted):

- ``<game> batched``: the game's batched engine (:class:`schnauz_env.batched.BatchedSchnauz`,
  ``BatchedScat``, ``BatchedThirteen``) under its default rules with ``--players``
  players, stepped through its public API: ``eng.step(eng.random_actions())`` on B
  games at once (each ``--batch``), which writes every game's masks, rewards and ends
  (and, in the "+ obs" rows, the observation vector of the player to act) every step;
  ``play_random`` rows are the same rules with the move drawn inside the compiled loop
  (no Python between steps). A Scat turn is two agent-steps (draw, then discard); a
  Thirteen agent-step is a card selected, a play made or a pass.
- OpenSpiel games (``--spiel``, default ``leduc_poker``) through ``pyspiel``
  (``pip install open_spiel``): ``state.legal_actions()`` then ``apply_action``, chance
  outcomes sampled by their probabilities; the "+ obs" rows also build the acting
  player's ``observation_tensor`` (``information_state_tensor`` where a game has none)
  every step.

Runs are interleaved and repeated; the median is reported with the ratio to
``leduc_poker`` of the same kind (with or without observations) measured in the same
run, the figure that load on a shared machine moves least. Rates are per second of
this process's CPU time, which other work on the machine inflates less than wall time.
``--profile`` adds where the time of a step goes, timed piece by piece on the same
positions; ``--compile`` the CPU time each engine takes to compile its kernels from
cold (a fresh process with an empty numba cache). The first run compiles the kernels
(cached on disk afterwards).

``bench/batched_speed_games.py`` and ``bench/batched_speed_thirteen.py`` are this
script with ``--game scat`` and ``--game thirteen`` as their defaults.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

Runner = Callable[[float], float]
GAMES = ("schnauz", "scat", "thirteen")
LEDUC = "leduc_poker"


def engine(game: str, batch: int, players: int, observe: bool) -> Any:
    """A started batched engine of ``game`` (``ImportError`` if it does not exist)."""
    import schnauz_env.batched as batched

    name = f"Batched{game.capitalize()}"
    try:
        cls = getattr(batched, name)
    except AttributeError:
        raise ImportError(f"schnauz_env.batched has no {name}") from None
    eng = cls(num_games=batch, num_players=players, seed=0, observe=observe)
    eng.reset()
    eng.step(eng.random_actions())  # compile / load the kernels before timing
    eng.play_random(1)
    return eng


def timed(fn: Callable[[], int], seconds: float) -> float:
    """Steps per CPU second of ``fn`` (which returns the steps it took), over ``seconds``."""
    steps = 0
    start, cpu = time.perf_counter(), time.process_time()
    while time.perf_counter() - start < seconds:
        steps += fn()
    return steps / (time.process_time() - cpu)


def batched_runner(game: str, batch: int, players: int, observe: bool, fused: bool) -> Runner:
    eng = engine(game, batch, players, observe)

    def api() -> int:
        step, sample = eng.step, eng.random_actions
        for _ in range(16):
            step(sample())
        return 16 * batch

    def run(seconds: float) -> float:
        return timed((lambda: eng.play_random(16)) if fused else api, seconds)

    return run


def spiel_runner(name: str, observe: bool) -> tuple[Runner, str]:
    """A runner of OpenSpiel's ``name`` and the tensor its "+ obs" row builds."""
    import pyspiel

    game = pyspiel.load_game(name)
    kind = game.get_type()
    if kind.provides_observation_tensor:
        tensor = "observation_tensor"
    elif kind.provides_information_state_tensor:
        tensor = "information_state_tensor"
    else:
        raise ImportError(f"{name} provides no observation tensor")
    rnd = random.Random(0)

    def episode() -> int:
        steps = 0
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                actions, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(rnd.choices(actions, probs)[0])
                continue
            if observe:
                getattr(state, tensor)(state.current_player())
            legal = state.legal_actions()
            state.apply_action(legal[rnd.randrange(len(legal))])
            steps += 1
        return steps

    return (lambda seconds: timed(episode, seconds)), tensor


def profile(game: str, batch: int, players: int, seconds: float) -> None:
    """Time each piece of a step on positions in the middle of games, per agent-step."""
    eng = engine(game, batch, players, observe=True)
    quiet = engine(game, batch, players, observe=False)
    for _ in range(50):
        eng.step(eng.random_actions())
        quiet.step(quiet.random_actions())

    def per_step(fn: Callable[[], Any], steps: int) -> float:
        best = float("inf")
        for _ in range(5):
            reps = 0
            start, cpu = time.perf_counter(), time.process_time()
            while time.perf_counter() - start < seconds / 5:
                fn()
                reps += 1
            best = min(best, (time.process_time() - cpu) / (reps * steps))
        return best * 1e9

    parts = {
        "step(random_actions()), with obs (API)": (lambda: eng.step(eng.random_actions()), 1),
        "step(random_actions()), no obs (API)": (lambda: quiet.step(quiet.random_actions()), 1),
        "  random_actions() alone": (eng.random_actions, 1),
        "play_random, with obs (no Python)": (lambda: eng.play_random(8), 8),
        "play_random, no obs (no Python)": (lambda: quiet.play_random(8), 8),
    }
    if hasattr(eng, "observe"):  # every game's view, into a new array
        seats = np.asarray(eng.current, dtype=np.int64).copy()
        parts["  observe(seats) alone (new array, zeroed)"] = (lambda: eng.observe(seats), 1)
    print(f"\nwhere the time goes: {game}, B={batch}, {players} players (CPU ns per agent-step)")
    for name, (fn, steps) in parts.items():
        print(f"{name:<46} {per_step(fn, batch * steps):8.0f}")


def compile_child(game: str, players: int) -> None:
    """In a process with an empty numba cache: the CPU seconds every kernel a training
    run meets takes to compile (the first call of each), as JSON."""
    import schnauz_env.batched as batched

    cpu = time.process_time()
    cls = getattr(batched, f"Batched{game.capitalize()}")
    eng = cls(num_games=8, num_players=players, seed=0, observe=True)
    eng.reset()
    for _ in range(3):
        eng.step(eng.random_actions())
    eng.greedy_actions()
    if hasattr(eng, "observe"):
        eng.observe(np.arange(8, dtype=np.int64) % players)
    eng.play_random(1)
    print(json.dumps({"cpu": time.process_time() - cpu}))


def compile_time(game: str, players: int) -> float:
    """CPU seconds of :func:`compile_child` in a fresh process and numba cache."""
    scratch = tempfile.mkdtemp(prefix="schnauz_numba_")
    try:
        env = dict(os.environ, NUMBA_CACHE_DIR=scratch)
        cmd = [sys.executable, __file__, "--compile-child", game, "--players", str(players)]
        out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
        if out.returncode:
            raise RuntimeError(f"compiling {game} failed:\n{out.stderr.strip()}")
        return json.loads(out.stdout.strip().splitlines()[-1])["cpu"]
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def main(argv: Sequence[str] | None = None, games: Sequence[str] = GAMES) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument(
        "--game",
        "--games",
        dest="games",
        nargs="+",
        choices=GAMES,
        default=list(games),
        help="batched engines to run",
    )
    p.add_argument("--seconds", type=float, default=2.0, help="seconds per run")
    p.add_argument("--repeats", type=int, default=3, help="interleaved repeats per contender")
    p.add_argument(
        "--batch", type=int, nargs="+", default=[256, 1024], help="games stepped together"
    )
    p.add_argument("--players", type=int, default=4, help="table size")
    p.add_argument(
        "--spiel", nargs="*", default=[LEDUC], help="OpenSpiel games beside them (none: '')"
    )
    p.add_argument("--no-plain", action="store_true", help="only the rows with observations")
    p.add_argument("--profile", action="store_true", help="also time the pieces of a step")
    p.add_argument("--compile", action="store_true", help="also time each cold compile")
    p.add_argument("--compile-child", default=None, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.compile_child:
        compile_child(args.compile_child, args.players)
        return

    contenders: dict[str, tuple[str, Runner]] = {}
    n = args.players
    kinds = (True,) if args.no_plain else (True, False)
    for game in args.games:
        for observe in kinds:
            kind = "obs" if observe else "no obs"
            suffix = " + obs" if observe else ""
            try:
                for b in args.batch:
                    contenders[f"{game} batched {n}p API, B={b}{suffix}"] = (
                        kind,
                        batched_runner(game, b, n, observe, fused=False),
                    )
                contenders[f"{game} batched {n}p play_random, B={args.batch[0]}{suffix}"] = (
                    kind,
                    batched_runner(game, args.batch[0], n, observe, fused=True),
                )
            except ImportError as err:
                print(f"(skipping {game}: {err})")
                break
    for name in filter(None, args.spiel):
        try:
            for observe in kinds:
                run, tensor = spiel_runner(name, observe)
                label = f" + {tensor}" if observe else ""
                contenders[f"open_spiel {name}{label}"] = ("obs" if observe else "no obs", run)
        except ImportError as err:
            print(f"(skipping OpenSpiel {name}: {err}; pip install open_spiel)")

    rates: dict[str, list[float]] = {k: [] for k in contenders}
    for _ in range(args.repeats):
        for name, (_, run) in contenders.items():
            rates[name].append(run(args.seconds))
    med = {k: statistics.median(v) for k, v in rates.items()}

    for kind in ("obs", "no obs") if not args.no_plain else ("obs",):
        names = [k for k, (c, _) in contenders.items() if c == kind]
        leduc = next((k for k in names if k.startswith(f"open_spiel {LEDUC}")), None)
        title = "with observations" if kind == "obs" else "without observations"
        print(f"\n{title}: agent-steps per CPU second, one core (median of {args.repeats})")
        print(f"{'contender':<52} {'steps/s':>14} {'vs leduc':>10}")
        for name in sorted(names, key=lambda k: -med[k]):
            ratio = f"{med[name] / med[leduc]:.1f}x" if leduc else "-"
            print(f"{name:<52} {med[name]:>14,.0f} {ratio:>10}")
        if leduc:
            for game in args.games:
                api = [k for k in names if k.startswith(f"{game} batched") and " API, " in k]
                if api:
                    best = max(api, key=med.get)
                    each = ", ".join(
                        f"{a / b:.1f}" for a, b in zip(rates[best], rates[leduc], strict=True)
                    )
                    print(
                        f"  {game}: best API row {med[best]:,.0f} steps/s = "
                        f"{med[best] / med[leduc]:.1f}x leduc [per repeat: {each}]"
                    )
    if args.profile:
        for game in args.games:
            with contextlib.suppress(ImportError):  # (said above)
                profile(game, max(args.batch), n, args.seconds)
    if args.compile:
        print("\ncold compile (fresh process, empty numba cache), CPU seconds:")
        for game in args.games:
            print(f"  {game:<10} {compile_time(game, n):6.1f}")
    load = os.getloadavg() if hasattr(os, "getloadavg") else None
    if load:
        print(f"\nload average at the end: {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f}")


if __name__ == "__main__":
    main()
