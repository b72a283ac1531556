"""Random-play speed of the AEC environments, side by side with PettingZoo's classic games.

    python bench/aec_speed.py                  # ours + whichever peers are installed
    python bench/aec_speed.py --seconds 10 --repeats 3

Every environment runs the standard AEC loop (``agent_iter`` / ``last`` / ``step``)
with the same cheap random legal action (``mask.nonzero()`` then ``random``), so
the figures compare the environments, not the action sampler. An agent-step is one
``step`` with an action (dead-agent ``step(None)`` calls are not counted). Peers
(PettingZoo ``leduc_holdem_v4``, ``texas_holdem_v4`` need ``rlcard``;
``tictactoe_v3``) run only if importable: ``pip install -e ".[bench]"``.
Runs are interleaved and repeated; the median rate is reported with the ratio to
the fastest peer card game measured in the same run.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
import warnings
from collections.abc import Callable

warnings.filterwarnings("ignore")


def loop(make: Callable, seconds: float, seed: int = 0) -> float:
    """Agent-steps per second of random legal play for about ``seconds``."""
    rnd = random.Random(seed)
    env = make()
    steps = 0
    game = 0
    start = time.perf_counter()
    deadline = start + seconds
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
        if time.perf_counter() >= deadline:
            break
    return steps / (time.perf_counter() - start)


def candidates() -> dict[str, Callable]:
    from schnauz_env import schnauz_v0

    envs: dict[str, Callable] = {
        "schnauz_v0 env() 4p": lambda: schnauz_v0.env(num_players=4),
        "schnauz_v0 raw_env 4p": lambda: schnauz_v0.raw_env(num_players=4),
    }
    for name, module in [
        ("scat_v0", "schnauz_env.scat_v0"),
        ("thirteen_v0", "schnauz_env.thirteen_v0"),
    ]:
        try:
            mod = __import__(module, fromlist=["env"])
            envs[f"{name} env()"] = mod.env
            envs[f"{name} raw_env"] = mod.raw_env
        except ImportError:
            pass
    peers = [
        ("pettingzoo leduc_holdem_v4", "pettingzoo.classic.leduc_holdem_v4"),
        ("pettingzoo texas_holdem_v4", "pettingzoo.classic.texas_holdem_v4"),
        ("pettingzoo tictactoe_v3", "pettingzoo.classic.tictactoe_v3"),
    ]
    for name, module in peers:
        try:
            mod = __import__(module, fromlist=["env"])
            mod.env().reset(seed=0)
            envs[name] = mod.env
        except Exception as err:  # a missing optional peer is reported, not fatal
            print(f"(skipping {name}: {type(err).__name__}: {err})")
    return envs


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--seconds", type=float, default=4.0, help="seconds per run")
    p.add_argument("--repeats", type=int, default=3, help="interleaved repeats per env")
    args = p.parse_args()
    envs = candidates()
    rates: dict[str, list[float]] = {k: [] for k in envs}
    for r in range(args.repeats):
        for name, make in envs.items():
            rates[name].append(loop(make, args.seconds, seed=1000 * r))
    med = {k: statistics.median(v) for k, v in rates.items()}
    card_peers = [k for k in med if "holdem" in k]
    best_peer = max(card_peers, key=med.get) if card_peers else None
    print(f"\n{'environment':<32} {'agent-steps/s':>14} {'vs best peer card game':>24}")
    for name, rate in sorted(med.items(), key=lambda kv: -kv[1]):
        ratio = f"{rate / med[best_peer]:.2f}x" if best_peer else "-"
        print(f"{name:<32} {rate:>14,.0f} {ratio:>24}")
    if best_peer:
        print(f"(best peer card game in this run: {best_peer})")


if __name__ == "__main__":
    main()
