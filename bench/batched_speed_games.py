"""The batched engines on one core, side by side with OpenSpiel's leduc_poker.

    python bench/batched_speed_games.py                       # Scat, 3 repeats of ~2 s
    python bench/batched_speed_games.py --games scat thirteen --batch 256 1024 --profile

Every contender plays random legal moves on one core, and an agent-step is one
decision of one player (chance nodes are not counted):

- ``<game> batched``: the game's batched engine (``schnauz_env.batched.BatchedScat``,
  ``BatchedThirteen``, ``BatchedSchnauz``) under its default rules with ``--players``
  players, stepped through its public API: ``eng.step(eng.random_actions())`` on B
  games at once (each ``--batch``), which writes the masks and rewards (and, in the
  "+ obs" rows, the observation vector of the player to act) of every game every step;
  ``play_random`` rows are the same rules with the move drawn inside the compiled loop
  (no Python between steps). A Scat turn is two agent-steps (draw, then discard).
- OpenSpiel ``leduc_poker`` through ``pyspiel`` (``pip install open_spiel``):
  ``state.legal_actions()`` then ``apply_action``, chance outcomes sampled by their
  probabilities; the "+ obs" row also builds the acting player's ``observation_tensor``
  every step.

Runs are interleaved and repeated; the median is reported, with the ratio to leduc of
the same kind (with or without observations) measured in the same run. ``--profile``
adds where the time of a step goes, timed piece by piece on the same positions. Rates
are per second of this process's CPU time, so other work on the machine slows them
less than it would wall-clock rates. The first run compiles the kernels (cached on disk
afterwards).
"""

from __future__ import annotations

import argparse
import contextlib
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np

Runner = Callable[[float], float]


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


def spiel_runner(name: str, observe: bool) -> Runner:
    import pyspiel

    game = pyspiel.load_game(name)
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
                state.observation_tensor(state.current_player())
            legal = state.legal_actions()
            state.apply_action(legal[rnd.randrange(len(legal))])
            steps += 1
        return steps

    return lambda seconds: timed(episode, seconds)


def profile(game: str, batch: int, players: int, seconds: float) -> None:
    """Time each piece of a step on positions in the middle of games, per agent-step."""
    eng = engine(game, batch, players, observe=True)
    quiet = engine(game, batch, players, observe=False)
    for _ in range(50):
        eng.step(eng.random_actions())
        quiet.step(quiet.random_actions())
    seats = np.asarray(eng.current, dtype=np.int64).copy()

    def per_step(fn: Callable[[], None], steps: int) -> float:
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
        "  observe(seats) alone (new array, zeroed)": (lambda: eng.observe(seats), 1),
        "play_random, with obs (no Python)": (lambda: eng.play_random(8), 8),
        "play_random, no obs (no Python)": (lambda: quiet.play_random(8), 8),
    }
    print(f"\nwhere the time goes: {game}, B={batch}, {players} players (ns per agent-step)")
    for name, (fn, steps) in parts.items():
        print(f"{name:<46} {per_step(fn, batch * steps):8.0f}")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--games", nargs="+", default=["scat"], help="scat, thirteen, schnauz")
    p.add_argument("--seconds", type=float, default=2.0, help="seconds per run")
    p.add_argument("--repeats", type=int, default=3, help="interleaved repeats per contender")
    p.add_argument(
        "--batch", type=int, nargs="+", default=[256, 1024], help="games stepped together"
    )
    p.add_argument("--players", type=int, default=4, help="table size")
    p.add_argument("--profile", action="store_true", help="also time the pieces of a step")
    args = p.parse_args()

    contenders: dict[str, tuple[str, Runner]] = {}
    n = args.players
    for game in args.games:
        for observe in (True, False):
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
    try:
        for observe in (True, False):
            label = " + observation_tensor" if observe else ""
            contenders[f"open_spiel leduc_poker{label}"] = (
                "obs" if observe else "no obs",
                spiel_runner("leduc_poker", observe),
            )
    except ImportError as err:
        print(f"(skipping OpenSpiel: {err}; pip install open_spiel)")

    rates: dict[str, list[float]] = {k: [] for k in contenders}
    for _ in range(args.repeats):
        for name, (_, run) in contenders.items():
            rates[name].append(run(args.seconds))
    med = {k: statistics.median(v) for k, v in rates.items()}

    for kind in ("obs", "no obs"):
        names = [k for k, (c, _) in contenders.items() if c == kind]
        leduc = next((k for k in names if k.startswith("open_spiel")), None)
        title = "with observations" if kind == "obs" else "without observations"
        print(f"\n{title}: agent-steps per CPU second, one core (median of {args.repeats})")
        print(f"{'contender':<52} {'steps/s':>14} {'vs leduc':>10}")
        for name in sorted(names, key=lambda k: -med[k]):
            ratio = f"{med[name] / med[leduc]:.1f}x" if leduc else "-"
            print(f"{name:<52} {med[name]:>14,.0f} {ratio:>10}")
    if args.profile:
        for game in args.games:
            with contextlib.suppress(ImportError):  # (said above)
                profile(game, max(args.batch), n, args.seconds)


if __name__ == "__main__":
    main()
