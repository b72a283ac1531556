"""The batched Schnauz engine on one core, side by side with OpenSpiel's C++ games.

    python bench/batched_speed.py                      # 3 interleaved repeats of ~2 s each
    python bench/batched_speed.py --seconds 3 --repeats 5 --batch 256 1024 --players 6

Every contender plays random legal moves on one core, and an agent-step is one
decision of one player (chance nodes are not counted):

- ``schnauz batched``: :class:`schnauz_env.batched.BatchedSchnauz` under full rules
  (default config: 4 players, A7, 3 lives), stepped through its public API —
  ``eng.step(eng.random_actions())`` on B games at once (each ``--batch``), which writes the
  masks (and, in the "+ obs" rows, the observation vector of the player to act)
  for every game every step; ``play_random`` rows are the same rules with the move
  drawn inside the compiled loop (no Python between steps);
- OpenSpiel ``leduc_poker``, ``crazy_eights`` and ``hearts`` through ``pyspiel``
  (``pip install open_spiel``): ``state.legal_actions()`` then ``apply_action``,
  chance outcomes sampled by their probabilities; the "+ obs" rows also build the
  acting player's ``observation_tensor`` (``information_state_tensor`` where a
  game has no observation tensor) every step.

Runs are interleaved and repeated; the median is reported, with the ratio to the
fastest OpenSpiel game of the same kind (with or without observations) measured in
the same run. The first run compiles the kernels (cached on disk afterwards).
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable

Runner = Callable[[float], float]


def batched_runner(batch: int, players: int, observe: bool, fused: bool) -> Runner:
    from schnauz_env.batched import BatchedSchnauz

    eng = BatchedSchnauz(num_games=batch, num_players=players, seed=0, observe=observe)
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
    kind = game.get_type()
    if kind.provides_observation_tensor:
        tensor = "observation_tensor"
    elif kind.provides_information_state_tensor:
        tensor = "information_state_tensor"
    else:
        raise ImportError(f"{name} provides no observation tensor")

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
                    getattr(state, tensor)(player)
                legal = state.legal_actions()
                state.apply_action(legal[rnd.randrange(len(legal))])
                steps += 1
        return steps / (time.perf_counter() - start)

    run.tensor = tensor  # type: ignore[attr-defined]
    return run


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--seconds", type=float, default=2.0, help="seconds per run")
    p.add_argument("--repeats", type=int, default=3, help="interleaved repeats per contender")
    p.add_argument(
        "--batch", type=int, nargs="+", default=[256, 1024], help="games stepped together"
    )
    p.add_argument("--players", type=int, default=4, help="Schnauz table size")
    args = p.parse_args()

    contenders: dict[str, tuple[str, Runner]] = {}
    n = args.players
    for observe in (True, False):
        kind = "obs" if observe else "no obs"
        suffix = " + obs" if observe else ""
        for b in args.batch:
            contenders[f"schnauz batched {n}p API, B={b}{suffix}"] = (
                kind,
                batched_runner(b, n, observe, fused=False),
            )
        contenders[f"schnauz batched {n}p play_random, B={args.batch[0]}{suffix}"] = (
            kind,
            batched_runner(args.batch[0], n, observe, fused=True),
        )
    try:
        for game in ("leduc_poker", "crazy_eights", "hearts"):
            for observe in (True, False):
                run = spiel_runner(game, observe)
                label = f" + {run.tensor}" if observe else ""  # type: ignore[attr-defined]
                contenders[f"open_spiel {game}{label}"] = ("obs" if observe else "no obs", run)
    except ImportError as err:
        print(f"(skipping OpenSpiel: {err}; pip install open_spiel)")

    rates: dict[str, list[float]] = {k: [] for k in contenders}
    for _ in range(args.repeats):
        for name, (_, run) in contenders.items():
            rates[name].append(run(args.seconds))
    med = {k: statistics.median(v) for k, v in rates.items()}

    for kind in ("obs", "no obs"):
        names = [k for k, (c, _) in contenders.items() if c == kind]
        peers = [k for k in names if k.startswith("open_spiel")]
        best = max(peers, key=med.get) if peers else None
        title = "with observations" if kind == "obs" else "without observations"
        print(f"\n{title}: agent-steps per second, one core (median of {args.repeats})")
        print(f"{'contender':<52} {'steps/s':>14} {'vs best OpenSpiel':>18}")
        for name in sorted(names, key=lambda k: -med[k]):
            ratio = f"{med[name] / med[best]:.1f}x" if best else "-"
            print(f"{name:<52} {med[name]:>14,.0f} {ratio:>18}")
        if best:
            print(f"(fastest OpenSpiel game here: {best})")
            api = [k for k in names if " API, " in k]
            ours = max(api, key=med.get)
            margin = min(med[ours] / med[k] for k in peers)
            print(f"best API row ({ours}) vs every OpenSpiel game: >= {margin:.1f}x")


if __name__ == "__main__":
    main()
