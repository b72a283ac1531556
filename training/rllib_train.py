"""Train a Schnauz (or Scat / Thirteen) agent with Ray RLlib's PPO, on a laptop or a cluster.

    pip install -e ".[rllib]"
    python -m training.rllib_train --iterations 200 --opponents greedy expert \
        --self-play-every 20 --num-env-runners 1 --run-name schnauz4
    # on a Ray cluster (run on the head node, or anywhere `ray.init(address=...)` reaches):
    python -m training.rllib_train --address auto --num-env-runners 32 --num-learners 2 \
        --train-batch-size 32000 --iterations 500

PPO on RLlib's new API stack (RLModule, Learner, ConnectorV2). The environment is
:class:`training.rllib_env.TableEnv`: the learner's seats of a table are RLlib's agents
(all mapped to the module ``"learner"``), every other seat is played inside the env by
an opponent drawn from the pool: the baselines, plus frozen snapshots of the learner
added every ``--self-play-every`` iterations. The module is
:class:`training.rllib_module.MaskedMLPModule` (illegal actions masked out).

Reads top to bottom (CleanRL style): the settings are :class:`Args` (each field's
docstring is its ``--help``); every generator is seeded; ``runs/<run-name>`` receives
``args.json``, RLlib checkpoints (``checkpoints/iter_N``, resumable with ``--resume``),
``progress.csv`` (steps, throughput, the learner's win rate and illegal actions per
iteration), the evaluation history (``eval.csv``, through :mod:`policies.evaluation`),
a learning-curve PNG, and the final module exported to ``model.npz``, a numpy model
file that plays in ``schnauz play`` and the harness without torch or ray.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import tempfile
import time
import warnings
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

from schnauz_env.common.files import write_text
from training.args import (
    PPOArgs,
    Range,
    TableArgs,
    default_run_name,
    new_run_dir,
    parse_args,
    rule_options,
    run_command,
)
from training.evaluation import append_rows, baseline_columns, plot_learning_curve, print_row

MODULE_ID = "learner"
ENV_NAME = "schnauz_env_table"


#: RLlib's names of the PPO settings, and the names both trainers use (``PPOArgs``).
PPO_SETTINGS = {
    "minibatch_size": "batch_size",
    "num_epochs": "n_epochs",
    "lr": "learning_rate",
    "gamma": "gamma",
    "lambda_": "gae_lambda",
    "entropy_coeff": "ent_coef",
    "clip_param": "clip_range",
}
#: This command's old flags (RLlib's names) -> the names both trainers use; the old
#: spelling still works, with a warning.
RENAMED_FLAGS = {
    "--" + rllib.replace("_", "-").rstrip("-"): "--" + ours.replace("_", "-")
    for rllib, ours in PPO_SETTINGS.items()
    if rllib != ours
}


@dataclass
class Args(PPOArgs, TableArgs):
    learner_seats: Annotated[int, Range(1)] = 1
    """seats the learner plays at each table (more than 1: it also plays itself, live)"""
    self_play_every: Annotated[int, Range(0)] = 0
    """add a frozen snapshot of the learner to the pool every this many iterations (0: never)"""
    iterations: Annotated[int, Range(1)] = 100
    """training iterations (each samples --train-batch-size learner decisions per learner)"""
    address: str = ""
    """Ray cluster to join (ray.init(address=...), e.g. "auto" on a cluster node); empty: start Ray here"""
    num_cpus: Annotated[int, Range(0)] = 0
    """CPUs of a Ray started here (0: every core); ignored with --address"""
    torch_threads: Annotated[int, Range(0)] = 1
    """torch threads in this process, which also learns when --num-learners is 0 (0: torch's default)"""
    num_env_runners: Annotated[int, Range(0)] = 1
    """remote env runners sampling in parallel (0: sample in this process)"""
    num_envs_per_env_runner: Annotated[int, Range(1)] = 8
    """environments per env runner, stepped together (one batched forward pass for all)"""
    rollout_fragment_length: Annotated[int, Range(0)] = 0
    """env steps per environment per sample() call (0: RLlib's "auto", batch / envs)"""
    num_cpus_per_env_runner: Annotated[float, Range(0.0)] = 1.0
    """CPUs Ray reserves per env runner"""
    num_learners: Annotated[int, Range(0)] = 0
    """remote learner actors (0: learn in this process; more: data-parallel updates)"""
    num_gpus_per_learner: Annotated[float, Range(0.0)] = 0.0
    """GPUs per learner actor (0: CPU)"""
    train_batch_size: Annotated[int, Range(1)] = 4000
    """learner decisions per iteration, per learner"""
    activation: Literal["tanh", "relu"] = "tanh"
    """hidden activation (both export to the numpy model format)"""
    checkpoint_every: Annotated[int, Range(0)] = 10
    """save an RLlib checkpoint every this many iterations (0: only at the end)"""
    eval_every: Annotated[int, Range(0)] = 10
    """evaluate against the baselines every this many iterations (0: only at the end)"""
    eval_workers: Annotated[int, Range(1)] = 1
    """processes for the evaluation games (the harness's workers)"""
    resume: str = ""
    """an RLlib checkpoint directory to continue from (same settings); RLlib unpickles its
    files, so resume only from checkpoints you made or trust (share models as .npz)"""


def run_name(args: Args) -> str:
    return default_run_name(args, "rllib_")


def env_config(args: Args, rules: dict[str, Any]) -> dict[str, Any]:
    """The :class:`TableEnv` settings of a run."""
    return {
        "game": args.game,
        "rules": rules,
        "table_sizes": list(args.table_sizes),
        "opponents": list(args.opponents),
        "weights": list(args.opponent_weights) or None,
        "learner_seats": args.learner_seats,
        "seed": args.seed,
    }


def build_config(args: Args, rules: dict[str, Any]) -> Any:
    """The RLlib ``PPOConfig`` of a run (new API stack, one trainable module)."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from training.rllib_env import TableMetrics
    from training.rllib_module import MaskedMLPModule

    module = RLModuleSpec(
        module_class=MaskedMLPModule,
        model_config={"hidden": list(args.net_arch), "activation": args.activation},
    )
    return (
        PPOConfig()
        .api_stack(enable_rl_module_and_learner=True, enable_env_runner_and_connector_v2=True)
        .environment(ENV_NAME, env_config=env_config(args, rules))
        .env_runners(
            num_env_runners=args.num_env_runners,
            num_envs_per_env_runner=args.num_envs_per_env_runner,
            num_cpus_per_env_runner=args.num_cpus_per_env_runner,
            rollout_fragment_length=args.rollout_fragment_length or "auto",
            # RLlib 2.60's MultiAgentEnvRunner converts every finished episode to numpy
            # again at every env step, quadratic in the episodes of one sample() call
            # (4096 steps: 240 instead of 600 env steps/s); lists are batched just as well.
            episodes_to_numpy=False,
        )
        .learners(num_learners=args.num_learners, num_gpus_per_learner=args.num_gpus_per_learner)
        .training(
            train_batch_size_per_learner=args.train_batch_size,
            **{rllib: getattr(args, ours) for rllib, ours in PPO_SETTINGS.items()},
            # Returns lie in [-1, 1]: the default value clip (10) never bites; keep it off.
            vf_clip_param=float("inf"),
        )
        .multi_agent(
            policies={MODULE_ID},
            policy_mapping_fn=map_to_learner,
            policies_to_train=[MODULE_ID],
        )
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={MODULE_ID: module}))
        .callbacks(TableMetrics)
        .debugging(seed=args.seed, log_level="ERROR")  # RLlib's notices: see train()
    )


def map_to_learner(agent_id: str, episode: Any, **kwargs: Any) -> str:
    """Policy mapping: every exposed seat is the learner (opponents play inside the env)."""
    return MODULE_ID


def learner_module(algo: Any, args: Args) -> Any:
    """A fresh copy of the learner's module with the learner group's current weights."""
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from training.rllib_env import TableEnv
    from training.rllib_module import MaskedMLPModule

    probe = TableEnv({k: v for k, v in algo.config.env_config.items() if k != "seed"})
    agent = probe.possible_agents[0]
    module = RLModuleSpec(
        module_class=MaskedMLPModule,
        observation_space=probe.observation_spaces[agent],
        action_space=probe.action_spaces[agent],
        model_config={"hidden": list(args.net_arch), "activation": args.activation},
    ).build()
    module.set_state(algo.learner_group.get_weights([MODULE_ID])[MODULE_ID])
    module.eval()
    return module


def set_pool(algo: Any, pool: list[Any], weights: list[float] | None = None) -> list[list[str]]:
    """Give every environment of every env runner (local and remote) a new opponent pool.

    Returns the pool each environment now holds (names), read back from the runners.
    An env runner that Ray restarts after a failure starts again with the base pool."""

    def apply(runner: Any) -> list[list[str]]:
        envs = getattr(runner, "env", None)
        if envs is None:  # the local runner of a run with remote runners has no env
            return []
        for env in envs.envs:
            env.unwrapped.set_pool(pool, weights)
        return [env.unwrapped.pool for env in envs.envs]

    held = algo.env_runner_group.foreach_env_runner(apply, local_env_runner=True)
    return [names for runner in held for names in runner]


def save_checkpoint(algo: Any, path: Path) -> Path:
    """An RLlib checkpoint of ``algo`` as the folder ``path``, whole or not at all: saved
    into a temporary folder beside it, then renamed (a kill leaves ``.iter_N.*.tmp``)."""
    path = path.resolve()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent))
    try:
        algo.save_to_path(str(tmp))
        if path.exists():  # the last iteration saved twice (every N and at the end)
            shutil.rmtree(path)
        os.replace(tmp, path)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return path


def _number(value: Any) -> float | None:
    return None if value is None else round(float(value), 4)


def train(args: Args) -> Path:
    """Train as ``args`` says; returns the run directory."""
    import ray
    import torch
    from ray.tune.registry import register_env

    from policies.mlp import load_model_policy
    from schnauz_env.games import game_module
    from training.rllib_env import TableEnv
    from training.rllib_module import export_module

    rules = rule_options(args)
    # Validate everything before Ray starts.
    probe = TableEnv(env_config(args, rules))
    eval_config = game_module(args.game).Config(num_players=args.eval_table_size, **rules)
    export_config = probe.configs[args.table_sizes[0]]
    if args.self_play_every < 0 or args.iterations < 1:
        raise ValueError("iterations must be at least 1 and self_play_every at least 0")

    if args.resume and not Path(args.resume).is_dir():
        raise ValueError(f"--resume {args.resume}: not an RLlib checkpoint folder")
    out = new_run_dir(args.run_dir, run_name(args))  # never an earlier run's folder
    write_text(out / "args.json", json.dumps(asdict(args), indent=2), overwrite=False)
    torch.manual_seed(args.seed)
    if args.torch_threads:
        # Ray's workers run torch on one thread; so does the driver by default, since
        # OpenMP threads competing for busy cores made small updates many times slower.
        torch.set_num_threads(args.torch_threads)

    if not ray.is_initialized():
        # Ray's and RLlib's start-up notices (the new API stack, token authentication, GPU
        # monitoring, their own deprecations) are nothing a user of this script can act
        # on: the driver and the workers log errors only.
        quiet = {
            "logging_level": logging.ERROR,
            "logging_config": ray.LoggingConfig(log_level="ERROR"),
        }
        if args.address:
            ray.init(address=args.address, **quiet)
        else:
            ray.init(num_cpus=args.num_cpus or None, include_dashboard=False, **quiet)
    register_env(ENV_NAME, TableEnv)
    logging.getLogger("ray.rllib").setLevel(logging.ERROR)  # before the config's checks
    algo = build_config(args, rules).build_algo()
    # Ray's Trainable makes itself a log folder, ~/ray_results/<timestamp>/, that this
    # script never writes (its outputs are in the run directory): removed when empty.
    ray_logdir = Path(algo.logdir)
    if args.resume:
        algo.restore_from_path(str(Path(args.resume).resolve()))

    def export(path: Path) -> Path:
        return export_module(
            learner_module(algo, args),
            path,
            args.game,
            export_config,
            list(args.table_sizes),
            extra={"iteration": algo.iteration},
        )

    def evaluate(path: Path) -> None:
        row: dict[str, Any] = {"step": steps, "iteration": algo.iteration}
        row.update(baseline_columns(path, args, rules, args.eval_workers))
        append_rows(out / "eval.csv", [row])
        print_row("eval", row)

    snapshots: list[Any] = []
    pool = probe.pool  # as the env runners hold it, read back after each change
    steps = 0  # env steps sampled so far (a resumed run continues its count)
    if args.resume:
        key = ("env_runners", "num_env_steps_sampled_lifetime")
        steps = int(algo.metrics.peek(key, default=0) or 0)
    start = time.perf_counter()
    for _ in range(args.iterations):
        t0 = time.perf_counter()
        result = algo.train()
        runners = result.get("env_runners", {})
        new_steps = int(runners.get("num_env_steps_sampled_lifetime", 0)) - steps
        steps += new_steps
        elapsed = time.perf_counter() - t0
        it = algo.iteration
        row = {
            "iteration": it,
            "env_steps": steps,
            "env_steps_per_s": round(new_steps / elapsed, 1),
            "seconds": round(time.perf_counter() - start, 2),
            "episode_return_mean": _number(runners.get("episode_return_mean")),
            "learner_win_rate": _number(runners.get("learner_win_rate")),
            "learner_mean_place": _number(runners.get("learner_mean_place")),
            "illegal_actions": int(runners.get("illegal_actions", 0)),
            "pool": " ".join(pool),
        }
        append_rows(out / "progress.csv", [row])
        print_row(None, row)
        if args.self_play_every and it % args.self_play_every == 0:
            snap = export(out / "snapshots" / f"snapshot_iter_{it}.npz")
            snapshots = [*snapshots, load_model_policy(snap, args.game, export_config)]
            snapshots = snapshots[-args.self_play_keep :]
            weights = None
            if args.opponent_weights:  # a snapshot weighs as much as the mean baseline
                mean = sum(args.opponent_weights) / len(args.opponent_weights)
                weights = list(args.opponent_weights) + [mean] * len(snapshots)
            held = set_pool(algo, list(args.opponents) + snapshots, weights)
            if not held or any(names != held[0] for names in held):
                raise RuntimeError(f"the env runners did not all take the new pool: {held}")
            pool = held[0]
        if args.checkpoint_every and it % args.checkpoint_every == 0:
            save_checkpoint(algo, out / "checkpoints" / f"iter_{it}")
        if args.eval_every and it % args.eval_every == 0 and it < args.iterations:
            evaluate(export(out / "checkpoints" / f"iter_{it}.npz"))

    save_checkpoint(algo, out / "checkpoints" / f"iter_{algo.iteration}")
    final = export(out / "model.npz")
    load_model_policy(final, args.game, eval_config)  # the export must load back
    evaluate(final)
    plot_learning_curve(out / "eval.csv", out / "learning_curve.png", args.eval_opponents)
    algo.stop()
    if ray_logdir.is_dir() and not any(ray_logdir.iterdir()):
        ray_logdir.rmdir()
    print(f"run directory: {out}\nmodel: {final}")
    return out


def evaluate_model(
    path: Path, args: Args, rules: dict[str, Any], opponent: str
) -> dict[str, float]:
    """Deprecated: :func:`training.evaluation.win_rate` (or ``baseline_columns``)."""
    warnings.warn(
        "training.rllib_train.evaluate_model is deprecated; use training.evaluation.win_rate",
        DeprecationWarning,
        stacklevel=2,
    )
    players, games, seed = args.eval_table_size, args.eval_games, args.seed + 7
    from training.evaluation import win_rate

    return win_rate(path, opponent, args.game, players, rules, games, seed, args.eval_workers)


def main(argv: list[str] | None = None) -> None:
    prog = "python -m training.rllib_train"
    args = parse_args(Args, argv, __doc__.split("\n")[0], prog, RENAMED_FLAGS)
    run_command(prog, args, train)


if __name__ == "__main__":
    main()
