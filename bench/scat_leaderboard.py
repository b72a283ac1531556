"""Leaderboard of the Scat baselines: seat-rotated games on the engine, win rates with
95% Wilson intervals.

Each *deal set* is one seed; the same seed is played once per rotation of the
policies around the table (duplicate games: every policy gets every seat on the
same deals). A policy's win rate is the share of games in which it is the last
player in.

    python bench/scat_leaderboard.py --players 4 --games 2000
    python bench/scat_leaderboard.py --lineup expert greedy greedy greedy
"""

from __future__ import annotations

import argparse
import math
import time
from collections import defaultdict

import numpy as np

from policies import make_policy
from schnauz_env.scat import ObservationEncoder, ScatConfig, new_game


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion ``wins / n``."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    d = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / d
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return centre - half, centre + half


def play(config: ScatConfig, lineup: list[str], seed: int, policies: dict) -> list[float]:
    """One game; returns the final place of each seat."""
    state = new_game(config, np.random.default_rng(seed))
    enc = ObservationEncoder(config)
    players = [policies[name] for name in lineup]
    for p in players:
        p.reset()
    guard = 0
    while not state.game_over:
        s = state.current
        a = players[s].act(enc.encode(state, s), state.legal_mask())
        state.apply(a)
        guard += 1
        assert guard < 1_000_000, "a game did not end"
    return [float(p) for p in state.places]


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--games", type=int, default=2000, help="games in total (all rotations)")
    ap.add_argument(
        "--lineup",
        nargs="+",
        default=None,
        help="policy per seat (default: expert greedy random, then greedy to fill)",
    )
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    n = args.players
    lineup = args.lineup or (["expert", "greedy", "random"] + ["greedy"] * n)[:n]
    if len(lineup) != n:
        ap.error(f"--lineup needs {n} names")
    config = ScatConfig(num_players=n)
    policies = {
        name: make_policy(name, game="scat", config=config, seed=args.seed + i)
        for i, name in enumerate(sorted(set(lineup)))
    }
    wins: dict[str, float] = defaultdict(float)
    seats: dict[str, int] = defaultdict(int)
    place_sum: dict[str, float] = defaultdict(float)
    start = time.time()
    games = 0
    deal = 0
    while games < args.games:
        for r in range(n):
            if games >= args.games:
                break
            rotated = lineup[r:] + lineup[:r]
            places = play(config, rotated, args.seed * 1_000_003 + deal, policies)
            for s, name in enumerate(rotated):
                seats[name] += 1
                place_sum[name] += places[s]
                wins[name] += places[s] == 1.0
            games += 1
        deal += 1
    elapsed = time.time() - start
    print(f"Scat, {n} players, lineup {' '.join(lineup)}; {games} games in {elapsed:.0f} s")
    print(f"{'policy':<10}{'seat-games':>11}{'win rate':>10}{'95% Wilson':>18}{'mean place':>12}")
    for name in sorted(seats, key=lambda k: -wins[k] / seats[k]):
        k = seats[name]
        lo, hi = wilson(wins[name], k)
        print(
            f"{name:<10}{k:>11}{wins[name] / k:>10.3f}   [{lo:.3f}, {hi:.3f}]"
            f"{place_sum[name] / k:>12.2f}"
        )


if __name__ == "__main__":
    main()
