"""Training throughput: RLlib's PPO vs the SB3 path (MaskablePPO), same game, opponents, net.

    pip install -e ".[train,rllib]"
    python bench/rllib_vs_sb3.py --steps 16384 --repeats 2 --out bench/results/rllib_vs_sb3.json

Both learn on the same task: Schnauz at a table of ``--players``, the learner in one
seat, every other seat played inside the env by ``--opponents``; one env step is one
learner decision in both. Both use a (128, 128) tanh actor and critic, rollouts of
``--batch`` decisions per update, minibatches of 512 and ``--epochs`` epochs. Each
measurement is whole training iterations (sampling and updates), after one warm-up
iteration that is not counted; the setups run in turn, ``--repeats`` times, so a
load on the machine from other jobs hits them alike. Reported: env steps per second,
the median over the repeats, and each RLlib setup's ratio to SB3.

Setups: ``sb3`` (MaskablePPO, ``--sb3-envs`` envs in a DummyVecEnv, one process),
``rllib-local`` (RLlib sampling in the driver, like SB3: one process) and
``rllib-1-runner`` (one remote env runner samples while the driver learns: two
processes). RLlib's fixed start-up (Ray, actors) is reported apart.

torch runs one thread in every process (``--torch-threads``), as in Ray's workers:
with two OpenMP threads on a loaded 2-core machine, the small matrix products of
either library ran some 20 times slower (SB3: 47 against 1,000+ env steps/s).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import time
from pathlib import Path
from typing import Any


def bench_sb3(args: argparse.Namespace) -> dict[str, Any]:
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    from policies.pool import OpponentPool
    from schnauz_env.wrappers import SingleAgentEnv

    n_envs = args.sb3_envs
    venv = DummyVecEnv(
        [
            (
                lambda i=i: SingleAgentEnv(
                    "schnauz", {}, (args.players,), OpponentPool(args.opponents), seed=i
                )
            )
            for i in range(n_envs)
        ]
    )
    model = MaskablePPO(
        "MlpPolicy",
        venv,
        n_steps=args.batch // n_envs,
        batch_size=512,
        n_epochs=args.epochs,
        gamma=0.997,
        policy_kwargs={"net_arch": [128, 128], "activation_fn": torch.nn.Tanh},
        seed=0,
        device="cpu",
        verbose=0,
    )
    model.learn(args.batch)  # warm-up iteration
    t0 = time.perf_counter()
    model.learn(args.steps, reset_num_timesteps=False)
    elapsed = time.perf_counter() - t0
    steps = model.num_timesteps - args.batch
    venv.close()
    return {"env_steps": steps, "seconds": elapsed, "env_steps_per_s": steps / elapsed}


def bench_rllib(args: argparse.Namespace, runners: int) -> dict[str, Any]:
    import ray
    from ray.tune.registry import register_env

    from training.rllib_env import TableEnv
    from training.rllib_train import ENV_NAME, Args, build_config

    start = time.perf_counter()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    register_env(ENV_NAME, TableEnv)
    train_args = Args(
        table_sizes=(args.players,),
        opponents=tuple(args.opponents),
        num_env_runners=runners,
        train_batch_size=args.batch,
        batch_size=512,
        n_epochs=args.epochs,
    )
    algo = build_config(train_args, {}).build_algo()

    def sampled(result: dict[str, Any]) -> int:
        return int(result["env_runners"]["num_env_steps_sampled_lifetime"])

    before = sampled(algo.train())  # warm-up iteration
    setup = time.perf_counter() - start
    t0 = time.perf_counter()
    steps = 0
    while steps < args.steps:
        steps = sampled(algo.train()) - before
    elapsed = time.perf_counter() - t0
    algo.stop()
    ray.shutdown()
    return {
        "env_steps": steps,
        "seconds": elapsed,
        "env_steps_per_s": steps / elapsed,
        "startup_seconds": setup,
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--steps", type=int, default=16384, help="env steps measured per setup")
    p.add_argument("--batch", type=int, default=4096, help="decisions per PPO update")
    p.add_argument("--epochs", type=int, default=5, help="PPO epochs per update")
    p.add_argument("--players", type=int, default=4, help="table size")
    p.add_argument("--opponents", nargs="+", default=["greedy"], help="opponent pool")
    p.add_argument("--sb3-envs", type=int, default=8, help="SB3 DummyVecEnv size")
    p.add_argument("--repeats", type=int, default=2, help="rounds over the setups")
    p.add_argument("--torch-threads", type=int, default=1, help="torch threads in this process")
    p.add_argument("--out", help="write the results as JSON here")
    args = p.parse_args()
    import torch

    torch.set_num_threads(args.torch_threads)
    setups = {
        "sb3": bench_sb3,
        "rllib-local": lambda a: bench_rllib(a, 0),
        "rllib-1-runner": lambda a: bench_rllib(a, 1),
    }
    runs: dict[str, list[dict[str, Any]]] = {k: [] for k in setups}
    for r in range(args.repeats):
        for name, fn in setups.items():
            res = fn(args)
            runs[name].append(res)
            print(f"round {r + 1} {name:15s} {res['env_steps_per_s']:8.1f} env steps/s", flush=True)
    median = {k: statistics.median(x["env_steps_per_s"] for x in v) for k, v in runs.items()}
    print("\nmedian env steps/s (sampling + PPO updates):")
    for name, rate in median.items():
        ratio = "" if name == "sb3" else f"   {rate / median['sb3']:.2f}x SB3"
        print(f"  {name:15s} {rate:8.1f}{ratio}")
    for name in ("rllib-local", "rllib-1-runner"):
        s = statistics.median(x["startup_seconds"] for x in runs[name])
        print(f"  {name} start-up (Ray, actors, warm-up iteration): {s:.1f} s")
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        out = {
            "settings": vars(args),
            "machine": {"cpus": os.cpu_count(), "python": platform.python_version()},
            "load_average_at_end": os.getloadavg(),
            "median_env_steps_per_s": median,
            "runs": runs,
        }
        Path(args.out).write_text(json.dumps(out, indent=2) + "\n")
        print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
