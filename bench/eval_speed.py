"""How fast the evaluation harness plays: games per second and time per move per policy.

    python bench/eval_speed.py                       # random, greedy, expert; 4 players
    python bench/eval_speed.py --policies random --games 2000 --workers 1
    python bench/eval_speed.py --policies ismcts --games 8 --players 4

For each policy it plays ``--games`` duplicate games of four copies of that policy (so
the number measures the harness and that one policy) and prints games per second,
moves per game and milliseconds per move. ``--workers`` defaults to every core.
"""

from __future__ import annotations

import argparse
import os
import time

from policies.evaluation import evaluate


def main() -> None:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--game", default="schnauz")
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--policies", nargs="+", default=["random", "greedy", "expert"])
    p.add_argument("--games", type=int, default=400)
    p.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()
    print(f"{args.game}, {args.players} players, {args.workers} worker(s), {os.cpu_count()} cores")
    print(f"{'policy':<14}{'games':>7}{'games/s':>10}{'moves/game':>12}{'ms/move':>10}")
    for name in args.policies:
        t0 = time.perf_counter()
        result = evaluate(
            [name], game=args.game, players=args.players, games=args.games,
            workers=args.workers, seed=args.seed,
        )  # fmt: skip
        wall = time.perf_counter() - t0
        (stats,) = result.policies
        moves = sum(sum(r.moves) for r in result.records) / result.games
        print(
            f"{name:<14}{result.games:>7}{result.games / wall:>10.1f}{moves:>12.1f}"
            f"{stats.ms_per_move:>10.3f}"
        )


if __name__ == "__main__":
    main()
