"""MaskablePPO env-steps per second: the AEC-based single-agent view vs the batched VecEnv.

    python bench/ppo_speed.py                        # train.py's PPO settings, both paths
    python bench/ppo_speed.py --rollouts 4 --opponent greedy --num-envs 8 --n-steps 256

Both paths train the same MaskablePPO (``MlpPolicy`` with training/train.py's default
network and hyperparameters, on CPU) on 4-player Schnauz against the same built-in
opponent, and differ only in the environment:

- ``AEC view``: ``DummyVecEnv`` of ``training.single_agent.SingleAgentEnv`` (the
  learner's seat in the PettingZoo ``raw_env``; opponents played in Python), as
  ``python -m training.train`` builds it;
- ``batched VecEnv``: :class:`schnauz_env.batched.SchnauzVecEnv` (every game stepped
  by the compiled engine, opponents batched inside it).

Both run with train.py's ``--num-envs`` and ``--n-steps``, and again with
``--wide-envs`` environments and the rollout length scaled so that a rollout holds
the same number of steps (what a batched env is built for: one policy forward pass
serves more games). PPO's own work per step (the forward pass, and the training
epochs on each rollout) is the same on both paths; only the environment differs.

It first times each environment alone (random legal learner moves through the
VecEnv API, no PPO), which shows what is left for PPO's own work to cost.
An env-step is one learner decision. Each path first runs one rollout untimed
(kernel loading, torch warm-up); then ``--rollouts`` rollouts, training included,
are timed. The paths alternate over ``--repeats`` and the median is reported.
"""

from __future__ import annotations

import argparse
import statistics
import time
import warnings
from collections.abc import Callable

warnings.filterwarnings("ignore")


def make_model(venv, n_steps: int, batch_size: int, seed: int):
    import torch
    from sb3_contrib import MaskablePPO

    return MaskablePPO(
        "MlpPolicy",
        venv,
        n_steps=n_steps,
        batch_size=batch_size,
        n_epochs=5,
        learning_rate=3e-4,
        gamma=0.997,
        gae_lambda=0.95,
        ent_coef=0.01,
        policy_kwargs={"net_arch": [128, 128], "activation_fn": torch.nn.Tanh},
        seed=seed,
        device="cpu",
        verbose=0,
    )


def aec_venv(num_envs: int, opponent: str, seed: int):
    from stable_baselines3.common.vec_env import DummyVecEnv

    from training.single_agent import SingleAgentEnv

    def make(i: int) -> Callable[[], SingleAgentEnv]:
        return lambda: SingleAgentEnv("schnauz", {}, (4,), [opponent], seed=seed * 1000 + i)

    return DummyVecEnv([make(i) for i in range(num_envs)])


def batched_venv(num_envs: int, opponent: str, seed: int):
    from schnauz_env.batched import SchnauzVecEnv

    return SchnauzVecEnv(num_envs=num_envs, num_players=4, opponent=opponent, seed=seed)


def timed(make_venv: Callable[[], object], n_steps: int, batch_size: int, rollouts: int) -> float:
    """Env-steps per second of ``rollouts`` PPO iterations (collection and training)."""
    venv = make_venv()
    model = make_model(venv, n_steps, batch_size, seed=0)
    per_rollout = n_steps * venv.num_envs  # type: ignore[attr-defined]
    model.learn(per_rollout)  # warm-up
    start = time.perf_counter()
    model.learn(per_rollout * rollouts, reset_num_timesteps=False)
    elapsed = time.perf_counter() - start
    venv.close()  # type: ignore[attr-defined]
    return per_rollout * rollouts / elapsed


def env_only(make_venv: Callable[[], object], seconds: float) -> float:
    """Env-steps per second of the VecEnv alone: random legal actions, no PPO."""
    import numpy as np
    from sb3_contrib.common.maskable.utils import get_action_masks

    venv = make_venv()
    rng = np.random.default_rng(0)
    venv.reset()  # type: ignore[attr-defined]
    steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        masks = get_action_masks(venv)
        venv.step((rng.random(masks.shape) * masks).argmax(axis=1))  # type: ignore[attr-defined]
        steps += venv.num_envs  # type: ignore[attr-defined]
    return steps / (time.perf_counter() - start)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--num-envs", type=int, default=8, help="environments (train.py: 8)")
    p.add_argument("--n-steps", type=int, default=256, help="rollout length (train.py: 256)")
    p.add_argument("--batch-size", type=int, default=512, help="minibatch (train.py: 512)")
    p.add_argument("--wide-envs", type=int, default=64, help="environments of the wide run")
    p.add_argument("--rollouts", type=int, default=3, help="timed PPO iterations per run")
    p.add_argument("--repeats", type=int, default=3, help="alternating repeats per path")
    p.add_argument("--opponent", default="random", choices=["random", "greedy"])
    p.add_argument("--threads", type=int, default=1, help="torch threads (0: torch default)")
    args = p.parse_args()

    import torch

    if args.threads:
        torch.set_num_threads(args.threads)
    e, s, opp = args.num_envs, args.n_steps, args.opponent
    wide_steps = max(1, e * s // args.wide_envs)
    paths: dict[str, Callable[[], float]] = {
        f"AEC view (DummyVecEnv x {e}, n_steps {s})": lambda: timed(
            lambda: aec_venv(e, opp, 0), s, args.batch_size, args.rollouts
        ),
        f"batched VecEnv ({e} games, n_steps {s})": lambda: timed(
            lambda: batched_venv(e, opp, 0), s, args.batch_size, args.rollouts
        ),
        f"AEC view (DummyVecEnv x {args.wide_envs}, n_steps {wide_steps})": lambda: timed(
            lambda: aec_venv(args.wide_envs, opp, 0), wide_steps, args.batch_size, args.rollouts
        ),
        f"batched VecEnv ({args.wide_envs} games, n_steps {wide_steps})": lambda: timed(
            lambda: batched_venv(args.wide_envs, opp, 0),
            wide_steps,
            args.batch_size,
            args.rollouts,
        ),
    }
    print("the environments alone (random legal learner moves, no PPO):")
    for name, make in [
        (f"AEC view (DummyVecEnv x {e})", lambda: aec_venv(e, opp, 0)),
        (f"batched VecEnv ({e} games)", lambda: batched_venv(e, opp, 0)),
        (f"batched VecEnv ({args.wide_envs} games)", lambda: batched_venv(args.wide_envs, opp, 0)),
    ]:
        print(f"  {name:<46} {env_only(make, 2.0):>12,.0f} env-steps/s")
    rates: dict[str, list[float]] = {k: [] for k in paths}
    for _ in range(args.repeats):
        for name, run in paths.items():
            rates[name].append(run())
    med = {k: statistics.median(v) for k, v in rates.items()}
    names = list(med)
    print(
        f"\nMaskablePPO env-steps per second, 4-player Schnauz vs {opp} "
        f"(torch threads: {torch.get_num_threads()}, median of {args.repeats})"
    )
    print(f"{'path':<48} {'env-steps/s':>12} {'vs AEC, same envs':>18} {'vs AEC x ' + str(e):>12}")
    for i, name in enumerate(names):
        same = med[names[0] if i < 2 else names[2]]
        print(
            f"{name:<48} {med[name]:>12,.0f} {med[name] / same:>17.1f}x "
            f"{med[name] / med[names[0]]:>11.1f}x"
        )


if __name__ == "__main__":
    main()
