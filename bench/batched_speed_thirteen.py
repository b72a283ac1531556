"""The batched Thirteen engine on one core, side by side with OpenSpiel's leduc_poker.

    python bench/batched_speed_thirteen.py                  # 3 interleaved repeats of ~2 s
    python bench/batched_speed_thirteen.py --seconds 3 --repeats 5 --batch 256 1024 --profile

Every contender plays random legal moves on one core, and an agent-step is one decision
of one player (chance nodes are not counted):

- ``thirteen batched``: :class:`schnauz_env.batched.BatchedThirteen` under full rules
  (default config: 4 players, one game per episode), stepped through its public API —
  ``eng.step(eng.random_actions())`` on B games at once (each ``--batch``), which writes
  the masks (and, in the "+ obs" rows, the 245-float view of the player to act) of every
  game every step; ``play_random`` rows are the same rules with the move drawn inside the
  compiled loop (no Python between steps). A Thirteen agent-step is one card selected,
  a play made or a pass: a turn takes one to thirteen steps.
- OpenSpiel ``leduc_poker`` through ``pyspiel`` (``pip install open_spiel``):
  ``state.legal_actions()`` then ``apply_action``, chance outcomes sampled by their
  probabilities; the "+ obs" row also builds the acting player's ``observation_tensor``
  every step.

Runs are interleaved and repeated; the median is reported, with the ratio to leduc of
the same kind (with or without observations) measured in the same run. ``--profile``
adds where the time of a step goes, in CPU time: the step with and without the view,
drawing the random actions, a full view alone, and the same moves without Python between
steps. The first run compiles the kernels (cached on disk afterwards).
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable

import numpy as np

Runner = Callable[[float], float]


def batched_runner(batch: int, players: int, observe: bool, fused: bool) -> Runner:
    from schnauz_env.batched.thirteen import BatchedThirteen

    eng = BatchedThirteen(num_games=batch, num_players=players, seed=0, observe=observe)
    eng.reset()
    eng.step(eng.random_actions())  # compile / load the kernels before timing
    eng.play_random(1)

    def run(seconds: float) -> float:
        steps = 0
        start = time.perf_counter()
        deadline = start + seconds
        if fused:
            while time.perf_counter() < deadline:
                steps += eng.play_random(16)
        else:
            step, sample = eng.step, eng.random_actions
            while time.perf_counter() < deadline:
                for _ in range(16):
                    step(sample())
                steps += 16 * batch
        return steps / (time.perf_counter() - start)

    return run


def spiel_runner(name: str, observe: bool) -> Runner:
    import pyspiel

    game = pyspiel.load_game(name)

    def run(seconds: float) -> float:
        rnd = random.Random(0)
        steps = 0
        start = time.perf_counter()
        deadline = start + seconds
        while time.perf_counter() < deadline:
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    actions, probs = zip(*state.chance_outcomes(), strict=True)
                    state.apply_action(rnd.choices(actions, probs)[0])
                    continue
                player = state.current_player()
                if observe:
                    state.observation_tensor(player)
                legal = state.legal_actions()
                state.apply_action(legal[rnd.randrange(len(legal))])
                steps += 1
        return steps / (time.perf_counter() - start)

    return run


def profile(batch: int, players: int, seconds: float) -> None:
    """CPU time of each piece of a step, per agent-step (``time.process_time``, so other
    jobs on the machine slow the figures down but do not count in them)."""
    from schnauz_env.batched.thirteen import BatchedThirteen
    from schnauz_env.batched.thirteen import kernels as K

    eng = BatchedThirteen(num_games=batch, num_players=players, seed=0, observe=True)
    eng.reset()
    for _ in range(50):  # positions in the middle of games
        eng.step(eng.random_actions())
    games = np.arange(batch, dtype=np.int64)
    seats = eng.current.astype(np.int64)
    out = np.empty((batch, eng.obs_size), dtype=np.float32)
    quiet = BatchedThirteen(num_games=batch, num_players=players, seed=0, observe=False)
    quiet.reset()

    def cost(fn: Callable[[], None]) -> float:
        fn()
        best = float("inf")
        for _ in range(5):
            reps = 0
            start = time.process_time()
            while time.process_time() - start < seconds / 5:
                fn()
                reps += 1
            best = min(best, (time.process_time() - start) / (reps * batch))
        return best * 1e9

    def views() -> None:
        K.k_observe(eng.tables, eng.state, games, seats, out)

    parts = {
        "API step + random actions, with obs": lambda: eng.step(eng.random_actions()),
        "API step + random actions, no obs": lambda: quiet.step(quiet.random_actions()),
        "  random_actions alone": eng.random_actions,
        "  a full view of every game (k_observe)": views,
        "play_random, with obs (no Python)": lambda: eng.play_random(1),
        "play_random, no obs (no Python)": lambda: quiet.play_random(1),
    }
    print(f"\nwhere the time goes (B={batch}, {players} players; CPU ns per agent-step, best of 5)")
    for name, fn in parts.items():
        print(f"{name:<44} {cost(fn):8.0f}")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--seconds", type=float, default=2.0, help="seconds per run")
    p.add_argument("--repeats", type=int, default=3, help="interleaved repeats per contender")
    p.add_argument(
        "--batch", type=int, nargs="+", default=[256, 1024], help="games stepped together"
    )
    p.add_argument("--players", type=int, default=4, help="Thirteen table size")
    p.add_argument("--profile", action="store_true", help="also time the pieces of a step")
    args = p.parse_args()

    contenders: dict[str, tuple[str, Runner]] = {}
    n = args.players
    for observe in (True, False):
        kind = "obs" if observe else "no obs"
        suffix = " + obs" if observe else ""
        for b in args.batch:
            contenders[f"thirteen batched {n}p API, B={b}{suffix}"] = (
                kind,
                batched_runner(b, n, observe, fused=False),
            )
        contenders[f"thirteen batched {n}p play_random, B={args.batch[0]}{suffix}"] = (
            kind,
            batched_runner(args.batch[0], n, observe, fused=True),
        )
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
        print(f"\n{title}: agent-steps per second, one core (median of {args.repeats})")
        print(f"{'contender':<52} {'steps/s':>14} {'vs leduc':>10}")
        for name in sorted(names, key=lambda k: -med[k]):
            ratio = f"{med[name] / med[leduc]:.1f}x" if leduc else "-"
            print(f"{name:<52} {med[name]:>14,.0f} {ratio:>10}")
    if args.profile:
        profile(max(args.batch), n, args.seconds)


if __name__ == "__main__":
    main()
