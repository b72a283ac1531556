"""MaskablePPO env-steps per second: the AEC-based single-agent view vs the batched VecEnv.

    python bench/ppo_speed.py                               # the whole matrix, both opponents
    python bench/ppo_speed.py --opponents greedy --settings 8x256/512 256x32/4096
    python bench/ppo_speed.py --games scat thirteen --opponents greedy --paths AEC batched
    python bench/ppo_speed.py --profile 256x32/4096         # pyinstrument, batched path

Both paths train the same MaskablePPO (``MlpPolicy`` with training/train.py's default
network and hyperparameters, on CPU, one torch thread) on 4-player games of each of
``--games`` (Schnauz, Scat, Thirteen) against the same opponent, and differ only in
the environment:

- ``AEC``: ``DummyVecEnv`` of ``schnauz_env.wrappers.SingleAgentEnv`` (the learner's
  seat in the PettingZoo ``raw_env``; opponents are ``policies``' players, called in
  Python), as ``python -m training.train`` builds it (``infos=False``);
- ``batched``: the game's batched VecEnv (:class:`schnauz_env.vector.SchnauzVecEnv`,
  ``ScatVecEnv``, ``ThirteenVecEnv``: every game stepped by the compiled engine, the
  opponent's moves computed inside it, move for move those of ``policies``' player);
- ``AEC+infos``: the same with ``SingleAgentEnv``'s default ``infos=True`` (every
  seat's lives, outs and the last showdown in ``info``). ``DummyVecEnv`` deep-copies
  every env's info dict every step: about half of the AEC view's time against random
  opponents went to that copy, which is why train.py now turns the infos off.

A setting ``ENVSxNSTEPS/BATCH`` (optionally ``/EPOCHS``) is the number of
environments, the rollout length and the minibatch size (and ``n_epochs``, default
``--n-epochs``); both paths of a cell run with the very same setting, so the ratio
compares like with like. The default matrix: train.py's defaults (8x256/512), more
environments at the same minibatch (64x32/512), and what a batched run uses: more
environments and larger minibatches (64x128/2048, 256x32/2048, 256x32/4096).

Each run first collects and trains on one rollout untimed (kernel loading, torch
warm-up), then times at least ``--steps`` env-steps (whole rollouts, training
included); a callback splits the time into collecting the rollout (policy forward
passes + the environment) and training on it (``MaskablePPO.train``). Within each
cell the two paths alternate over ``--repeats``; the medians are reported. An
env-step is one learner decision. The environments alone (random legal learner
moves through the VecEnv API, no PPO) are timed first. With ``random`` among
``--opponents``, a last table gives the rate against every other opponent as a share
of the rate against random ones, cell by cell (the agents issue's training-speed
figure: ``--opponents random expert-jit --settings 256x32/4096 --paths batched``).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass

warnings.filterwarnings("ignore")

KERNEL_OPPONENTS = ("random", "greedy")  # played inside the batched engines
OPPONENTS = (*KERNEL_OPPONENTS, "expert-jit")  # expert-jit: the strong presets' opponent
NET_ARCH = [128, 128]  # train.py's default; --net-arch
DEFAULT_SETTINGS = ["8x256/512", "64x32/512", "64x128/2048", "256x32/2048", "256x32/4096"]


@dataclass(frozen=True)
class Setting:
    num_envs: int
    n_steps: int
    batch_size: int
    n_epochs: int

    @classmethod
    def parse(cls, text: str, n_epochs: int) -> Setting:
        envs_steps, *rest = text.split("/")
        envs, steps = envs_steps.split("x")
        batch = int(rest[0]) if rest else 512
        epochs = int(rest[1]) if len(rest) > 1 else n_epochs
        return cls(int(envs), int(steps), batch, epochs)

    def __str__(self) -> str:
        return f"{self.num_envs}x{self.n_steps}/{self.batch_size}/{self.n_epochs}"


def make_model(venv, s: Setting, seed: int = 0):
    import torch
    from sb3_contrib import MaskablePPO

    return MaskablePPO(
        "MlpPolicy",
        venv,
        n_steps=s.n_steps,
        batch_size=s.batch_size,
        n_epochs=s.n_epochs,
        learning_rate=3e-4,
        gamma=0.997,
        gae_lambda=0.95,
        ent_coef=0.01,
        policy_kwargs={"net_arch": list(NET_ARCH), "activation_fn": torch.nn.Tanh},
        seed=seed,
        device="cpu",
        verbose=0,
    )


def aec_venv(game: str, num_envs: int, opponent: str, seed: int, infos: bool = False):
    from stable_baselines3.common.vec_env import DummyVecEnv

    from policies.pool import OpponentPool
    from schnauz_env.wrappers import SingleAgentEnv

    def make(i: int) -> Callable[[], SingleAgentEnv]:
        return lambda: SingleAgentEnv(
            game,
            {},
            (4,),
            OpponentPool([opponent], game=game),
            seed=seed * 1000 + i,
            infos=infos,
        )

    return DummyVecEnv([make(i) for i in range(num_envs)])


def aec_infos_venv(game: str, num_envs: int, opponent: str, seed: int):
    return aec_venv(game, num_envs, opponent, seed, infos=True)


def batched_venv(game: str, num_envs: int, opponent: str, seed: int):
    """The game's batched VecEnv; a player the kernel does not play (``expert-jit``) sits
    in an :class:`~policies.pool.OpponentPool`, as ``training/train.py`` seats it."""
    from schnauz_env.games import game_module
    from schnauz_env.vector import vec_env_class

    config = game_module(game).Config(num_players=4)
    if opponent not in KERNEL_OPPONENTS:
        from policies.pool import OpponentPool

        opponent = OpponentPool([opponent], game=game, config=config, seed=seed, num_games=num_envs)
    return vec_env_class(game)(num_envs=num_envs, config=config, opponent=opponent, seed=seed)


PATHS = {"AEC": aec_venv, "AEC+infos": aec_infos_venv, "batched": batched_venv}


@dataclass
class Run:
    rate: float  # env-steps per second of CPU time, collection and training
    wall_rate: float  # env-steps per second of wall time
    collect_us: float  # CPU microseconds per env-step collecting rollouts (forward + env)
    train_us: float  # CPU microseconds per env-step in MaskablePPO.train


def timed(game: str, path: str, opponent: str, s: Setting, steps: int) -> Run:
    """Train on whole rollouts holding at least ``steps`` env-steps; time and split them."""
    from stable_baselines3.common.callbacks import BaseCallback

    class Split(BaseCallback):
        collect = 0.0

        def _on_rollout_start(self) -> None:
            self._t = time.process_time()

        def _on_rollout_end(self) -> None:
            self.collect += time.process_time() - self._t

        def _on_step(self) -> bool:
            return True

    venv = PATHS[path](game, s.num_envs, opponent, 0)
    model = make_model(venv, s)
    per_rollout = s.n_steps * s.num_envs
    model.learn(per_rollout)  # warm-up
    total = per_rollout * max(1, -(-steps // per_rollout))
    split = Split()
    wall, cpu = time.perf_counter(), time.process_time()
    model.learn(total, reset_num_timesteps=False, callback=split)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    venv.close()
    return Run(
        total / cpu, total / wall, split.collect / total * 1e6, (cpu - split.collect) / total * 1e6
    )


def env_only(game: str, path: str, opponent: str, num_envs: int, seconds: float) -> float:
    """Env-steps per second of the VecEnv alone: random legal actions, no PPO."""
    import numpy as np
    from sb3_contrib.common.maskable.utils import get_action_masks

    venv = PATHS[path](game, num_envs, opponent, 0)
    rng = np.random.default_rng(0)
    venv.reset()
    steps = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        masks = get_action_masks(venv)
        venv.step((rng.random(masks.shape) * masks).argmax(axis=1))
        steps += venv.num_envs
    return steps / (time.process_time() - start)


def profile(game: str, path: str, opponent: str, s: Setting, steps: int) -> None:
    """pyinstrument profile of ``steps`` env-steps of training, after a warm-up rollout."""
    from pyinstrument import Profiler

    venv = PATHS[path](game, s.num_envs, opponent, 0)
    model = make_model(venv, s)
    per_rollout = s.n_steps * s.num_envs
    model.learn(per_rollout)
    profiler = Profiler(interval=0.0005)
    profiler.start()
    model.learn(per_rollout * max(1, -(-steps // per_rollout)), reset_num_timesteps=False)
    profiler.stop()
    print(profiler.output_text(unicode=False, color=False, show_all=True))


def main() -> None:
    global NET_ARCH
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument(
        "--settings", nargs="+", default=DEFAULT_SETTINGS, help="ENVSxNSTEPS/BATCH[/EPOCHS]"
    )
    p.add_argument(
        "--n-epochs", type=int, default=5, help="n_epochs of settings without one (train.py: 5)"
    )
    p.add_argument(
        "--net-arch",
        type=int,
        nargs="+",
        default=NET_ARCH,
        help="hidden layers (train.py: 128 128)",
    )
    p.add_argument(
        "--games", nargs="+", default=["schnauz"], choices=["schnauz", "scat", "thirteen"]
    )
    p.add_argument("--opponents", nargs="+", default=["random", "greedy"], choices=list(OPPONENTS))
    p.add_argument("--paths", nargs="+", default=list(PATHS), choices=list(PATHS))
    p.add_argument(
        "--steps", type=int, default=16384, help="timed env-steps per run (whole rollouts)"
    )
    p.add_argument("--repeats", type=int, default=3, help="alternating repeats per path and cell")
    p.add_argument(
        "--env-seconds", type=float, default=1.0, help="seconds per env-only rate (0: skip)"
    )
    p.add_argument("--threads", type=int, default=1, help="torch threads (0: torch default)")
    p.add_argument("--profile", metavar="SETTING", help="profile one setting of one path instead")
    p.add_argument("--profile-path", default="batched", choices=list(PATHS))
    args = p.parse_args()
    NET_ARCH = args.net_arch

    import torch

    if args.threads:
        torch.set_num_threads(args.threads)
    if args.profile:
        s = Setting.parse(args.profile, args.n_epochs)
        profile(args.games[0], args.profile_path, args.opponents[0], s, args.steps)
        return
    settings = [Setting.parse(t, args.n_epochs) for t in args.settings]
    paths = [p for p in PATHS if p in args.paths]
    base = [p for p in paths if p != "batched"]
    load = lambda: ", ".join(f"{x:.2f}" for x in os.getloadavg())  # noqa: E731
    print(f"load average at start: {load()}; net_arch {NET_ARCH}")
    summary: list[tuple[str, str, Setting, dict[str, Run]]] = []
    for game in args.games:
        for opp in args.opponents:
            if args.env_seconds:
                print(
                    f"\n{game}: the environments alone vs {opp} (random legal learner moves, "
                    "no PPO), env-steps/s:"
                )
                for n in sorted({s.num_envs for s in settings}):
                    rates = {path: env_only(game, path, opp, n, args.env_seconds) for path in paths}
                    print(
                        f"  {n:>4} envs: " + "   ".join(f"{k} {v:,.0f}" for k, v in rates.items())
                    )
            print(
                f"\n{game}: MaskablePPO vs {opp} (torch threads {torch.get_num_threads()}, median "
                f"of {args.repeats}); setting = envs x n_steps / batch / epochs;\n"
                "env-steps per CPU second, batched vs each AEC path (and by wall time), and CPU "
                "us per\nenv-step collecting | training"
            )
            print(
                f"{'setting':<18}"
                + "".join(f"{p:>10}" for p in paths)
                + "".join(f"{'vs ' + p:>13}" for p in base if "batched" in paths)
                + "".join(f"{'(wall)':>8}" for p in base if "batched" in paths)
                + "".join(f"{p + ' us':>17}" for p in paths)
            )
            for s in settings:
                runs: dict[str, list[Run]] = {path: [] for path in paths}
                for _ in range(args.repeats):
                    for path in paths:
                        runs[path].append(timed(game, path, opp, s, args.steps))
                med = {
                    path: Run(
                        *(statistics.median(getattr(r, f) for r in rs) for f in Run.__annotations__)
                    )
                    for path, rs in runs.items()
                }
                summary.append((game, opp, s, med))
                line = f"{s!s:<18}" + "".join(f"{med[p].rate:>10,.0f}" for p in paths)
                if "batched" in paths:
                    line += "".join(f"{med['batched'].rate / med[p].rate:>12.1f}x" for p in base)
                    line += "".join(
                        f"{med['batched'].wall_rate / med[p].wall_rate:>7.1f}x" for p in base
                    )
                line += "".join(
                    f"{med[p].collect_us:>11.0f} |{med[p].train_us:>4.0f}" for p in paths
                )
                print(line, flush=True)
            print(f"load average: {load()}")
    if "batched" in paths and base:
        print("\nsummary: MaskablePPO env-steps per CPU second, batched vs " + base[0])
        print(
            f"{'game':<10}{'opponent':<10}{'setting':<18}{base[0]:>10}{'batched':>10}{'ratio':>8}"
        )
        for game, opp, s, med in summary:
            a, b = med[base[0]].rate, med["batched"].rate
            print(f"{game:<10}{opp:<10}{s!s:<18}{a:>10,.0f}{b:>10,.0f}{b / a:>7.1f}x")
    against_random = {(game, s): med for game, opp, s, med in summary if opp == "random"}
    shares = [(g, o, s, m) for g, o, s, m in summary if o != "random" and (g, s) in against_random]
    if shares:
        print(
            "\nrate against each opponent as a share of the rate against random opponents "
            "(same game, setting and path; the agents issue asks >= 75% against expert-jit)"
        )
        print(f"{'game':<10}{'opponent':<12}{'setting':<18}" + "".join(f"{p:>12}" for p in paths))
        for game, opp, s, med in shares:
            ref = against_random[(game, s)]
            print(
                f"{game:<10}{opp:<12}{s!s:<18}"
                + "".join(f"{med[p].rate / ref[p].rate:>12.1%}" for p in paths)
            )


if __name__ == "__main__":
    main()
