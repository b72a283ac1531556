"""Train a Schnauz (or Scat / Thirteen) agent with sb3-contrib's MaskablePPO.

    pip install -e ".[train]"
    python -m training.train --total-steps 2000000 --table-sizes 4 \
        --opponents greedy expert --self-play-every 200000 --run-name schnauz4 \
        --pretrain-teacher expert

Reads top to bottom (CleanRL style): the settings are the :class:`Args` dataclass
(each field's docstring is its ``--help``); every generator is seeded; the run
directory ``runs/<run-name>`` receives TensorBoard logs, checkpoints (SB3 ``.zip``
and a numpy-only ``.npz`` export that plays without torch), the evaluation history
(``eval.csv``) and a learning-curve PNG. The final model is exported to
``runs/<run-name>/model.npz``.
"""

from __future__ import annotations

import ast
import contextlib
import csv
import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np

from training.args import TableArgs, default_run_name


@dataclass
class Args(TableArgs):
    total_steps: int = 1_000_000
    """learner decisions (environment steps) to train for"""
    self_play_every: int = 0
    """add a frozen snapshot of the learner to the pool every this many steps (0: never)"""
    seed: int = 0
    """seed of the environments, the opponents and torch"""
    num_envs: int = 8
    """parallel environments"""
    vec_env: Literal["dummy", "subproc", "batched"] = "dummy"
    """how the environments run: in this process, one process each, or (Schnauz, one table
    size) all games in the compiled batched engine (:class:`schnauz_env.batched.SchnauzVecEnv`)"""
    opponent_workers: int = 0
    """batched envs: worker processes for slow scripted opponents (expert, ismcts); 0: in this process"""
    reward: Literal["place", "win", "lives", "win-chance"] = "place"
    """the learner's reward: its final place value (+1 first ... -1 last); (batched envs)
    'win': +1 for a win and -1/(players-1) otherwise, to train for the win rate alone;
    'lives': -1 in every round the learner loses a life (dense: a signal every round);
    'win-chance': the change in the learner's chance to win read off everyone's lives, x8 (as
    dense as 'lives', adds up to the win; training.opponents.WinChanceRewardVecEnv)"""
    features: str = "auto"
    """feature set appended to the observation ('auto': the game's own, e.g. schnauz-moves-v1 for
    Schnauz; 'none': the raw observation)"""
    n_steps: int = 256
    """PPO rollout length per environment"""
    batch_size: int = 512
    """PPO minibatch size"""
    n_epochs: int = 5
    """PPO epochs per rollout"""
    learning_rate: float = 3e-4
    """Adam learning rate"""
    lr_schedule: Literal["constant", "linear"] = "constant"
    """'linear': decay the learning rate to 0 over --total-steps (settles a policy that
    oscillates at a constant rate)"""
    gamma: float = 0.997
    """discount factor"""
    gae_lambda: float = 0.95
    """GAE lambda"""
    ent_coef: float = 0.01
    """entropy bonus"""
    clip_range: float = 0.2
    """PPO clip range (smaller keeps a cloned start from being unlearnt)"""
    target_kl: float = 0.0
    """stop an update's epochs early past this KL divergence (0: never)"""
    init_model: str = ""
    """start from this SB3 .zip checkpoint of an earlier run (same settings) instead of fresh weights"""
    net_arch: tuple[int, ...] = (128, 128)
    """hidden layers of the policy and value networks"""
    pretrain_teacher: str = ""
    """clone this policy (e.g. expert) before PPO: behaviour cloning on its games (empty: off)"""
    pretrain_games: int = 2000
    """teacher games (all seats the teacher) to clone, split over the table sizes"""
    pretrain_epochs: int = 5
    """behaviour-cloning epochs"""
    pretrain_data: tuple[str, ...] = ()
    """clone from these saved teacher-data files (a run's pretrain_data.npz) instead of playing new games"""
    eval_every: int = 100_000
    """evaluate against the baselines every this many steps (0: only at the end)"""
    progress_bar: bool = True
    """show a progress bar"""
    device: str = "cpu"
    """torch device"""
    torch_threads: int = 1
    """torch CPU threads; 1 is fastest for these small networks (more threads spin and
    fight the environment processes for the cores)"""


def parse_rules(items: tuple[str, ...]) -> dict[str, Any]:
    """``("deck=A9", "lives=2")`` -> ``{"deck": "A9", "lives": 2}`` (values as Python literals)."""
    rules: dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ValueError(f"rule option {item!r} is not key=value")
        try:
            rules[key] = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            rules[key] = value
    return rules


def resolve_features(args: Args) -> str | None:
    """The feature set name ``args.features`` stands for (``None``: raw observations)."""
    if args.features == "none":
        return None
    if args.features == "auto":
        if args.game == "schnauz":
            from schnauz_env.schnauz.features import FEATURES_NAME

            return FEATURES_NAME
        return None
    return args.features


def run_name(args: Args) -> str:
    return default_run_name(args, "", args.seed)


def train(args: Args) -> Path:
    """Train as ``args`` says; returns the run directory."""
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    from policies.models import export_sb3, feature_transform, load_model_policy
    from policies.pool import OpponentPool
    from schnauz_env.games import game_module
    from schnauz_env.wrappers import SingleAgentEnv
    from schnauz_env.wrappers.vec_env import FeatureVecEnv
    from training.rewards import LivesRewardVecEnv, WinChanceRewardVecEnv, WinRewardVecEnv

    rules = parse_rules(args.rules)
    weights = list(args.opponent_weights) or None
    # Validate everything before any work is done.
    probe = SingleAgentEnv(
        args.game,
        rules,
        args.table_sizes,
        OpponentPool(args.opponents, weights, game=args.game),
        seed=args.seed,
    )
    eval_config = game_module(args.game).Config(num_players=args.eval_table_size, **rules)

    out = Path(args.run_dir) / run_name(args)
    out.mkdir(parents=True, exist_ok=True)
    (out / "args.json").write_text(json.dumps(asdict(args), indent=2))
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.torch_threads)

    def make(i: int):
        def thunk() -> SingleAgentEnv:
            return SingleAgentEnv(
                args.game,
                rules,
                args.table_sizes,
                OpponentPool(args.opponents, weights, game=args.game),
                seed=args.seed * 1000 + i,
                infos=False,  # train.py reads none; SB3 deep-copies infos every step
            )

        return thunk

    config0 = probe._raw[args.table_sizes[0]].config
    features = feature_transform(resolve_features(args), args.game, config0)
    mix = None
    if args.vec_env == "batched":
        from schnauz_env.batched import SchnauzVecEnv

        if args.game != "schnauz" or len(args.table_sizes) != 1:
            raise ValueError("--vec-env batched runs Schnauz at one table size (--table-sizes N)")
        mix = OpponentPool(
            args.opponents,
            weights,
            config=config0,
            seed=args.seed,
            num_games=args.num_envs,
            workers=args.opponent_workers,
        )
        venv = SchnauzVecEnv(num_envs=args.num_envs, config=config0, opponent=mix, seed=args.seed)
    else:
        vec_cls = SubprocVecEnv if args.vec_env == "subproc" else DummyVecEnv
        venv = vec_cls([make(i) for i in range(args.num_envs)])
    if args.reward == "win":
        if mix is None:
            raise ValueError("--reward win needs --vec-env batched")
        venv = WinRewardVecEnv(venv, config0.num_players)
    elif args.reward in ("lives", "win-chance"):
        if args.game != "schnauz":
            raise ValueError(f"--reward {args.reward} is for Schnauz")
        wrapper = LivesRewardVecEnv if args.reward == "lives" else WinChanceRewardVecEnv
        venv = wrapper(venv, config0)
    if features is not None:
        venv = FeatureVecEnv(venv, features)
    ppo_kwargs = dict(
        n_steps=args.n_steps,
        batch_size=args.batch_size,
        n_epochs=args.n_epochs,
        learning_rate=(
            args.learning_rate
            if args.lr_schedule == "constant"
            else (lambda remaining, lr=args.learning_rate: lr * remaining)
        ),
        gamma=args.gamma,
        gae_lambda=args.gae_lambda,
        ent_coef=args.ent_coef,
        clip_range=args.clip_range,
        target_kl=args.target_kl or None,
        tensorboard_log=str(out / "tb"),
        seed=args.seed,
        device=args.device,
        verbose=0,
    )
    if args.init_model:
        model = MaskablePPO.load(args.init_model, env=venv, **ppo_kwargs)
    else:
        model = MaskablePPO(
            "MlpPolicy",
            venv,
            policy_kwargs={"net_arch": list(args.net_arch), "activation_fn": torch.nn.Tanh},
            **ppo_kwargs,
        )
    table_sizes = list(args.table_sizes)
    history: list[dict[str, Any]] = []

    def export(path: Path) -> Path:
        return export_sb3(
            model, path, args.game, config0, table_sizes, features=getattr(features, "name", None)
        )

    def evaluate(step: int) -> None:
        path = export(out / "checkpoints" / f"step_{step}.npz")
        model.save(out / "checkpoints" / f"step_{step}.zip")
        row: dict[str, Any] = {"step": step}
        for opp in args.eval_opponents:
            res = evaluate_against(
                path, opp, args.game, eval_config, args.eval_games, args.seed + 7
            )
            row[f"win_{opp}"] = res["win_rate"]
            row[f"win_{opp}_lo"] = res["low"]
            row[f"win_{opp}_hi"] = res["high"]
            if getattr(model, "_logger", None) is not None:  # set up once learning starts
                model.logger.record(f"eval/win_rate_vs_{opp}", res["win_rate"])
        history.append(row)
        with open(out / "eval.csv", "w", newline="") as fh:
            writer = csv.DictWriter(fh, fieldnames=list(history[-1]))
            writer.writeheader()
            writer.writerows(history)
        print("eval", {k: round(v, 3) if isinstance(v, float) else v for k, v in row.items()})

    if args.pretrain_teacher or args.pretrain_data:
        from training.pretrain import collect, load_data, pretrain

        if args.pretrain_data:
            data = load_data(args.pretrain_data, venv.observation_space.shape[0], features)
        else:
            parts = [
                collect(
                    args.pretrain_teacher,
                    args.game,
                    probe._raw[n].config,
                    max(1, args.pretrain_games // len(table_sizes)),
                    seed=args.seed,
                )
                for n in table_sizes
            ]
            data = {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}
            np.savez_compressed(out / "pretrain_data.npz", **data)
            if features is not None:
                data["obs"] = features(data["obs"])
        acc = pretrain(model, data, epochs=args.pretrain_epochs, seed=args.seed)
        print(
            f"cloned {args.pretrain_teacher or ', '.join(args.pretrain_data)} on {len(data['obs'])} decisions: accuracy {acc[-1]:.3f}"
        )
        evaluate(0)  # the cloned starting point, before any PPO step

    class Schedule(BaseCallback):
        """Evaluation and self-play snapshots at fixed step intervals."""

        def __init__(self) -> None:
            super().__init__()
            self.next_eval = args.eval_every or None
            self.next_snap = args.self_play_every or None
            self.snapshots: list[str] = []

        def _on_step(self) -> bool:
            t = self.num_timesteps
            if self.next_eval is not None and t >= self.next_eval:
                self.next_eval += args.eval_every
                evaluate(t)
            if self.next_snap is not None and t >= self.next_snap:
                self.next_snap += args.self_play_every
                snap = export(out / "snapshots" / f"snap_{t}.npz")
                self.snapshots = [*self.snapshots, str(snap)][-args.self_play_keep :]
                pool = list(args.opponents) + self.snapshots
                if mix is not None:
                    w = list(weights or [1.0] * len(args.opponents))
                    share = sum(w) / len(args.opponents)  # a snapshot weighs as an average opponent
                    mix.set_pool(pool, w + [share] * len(self.snapshots))
                else:
                    venv.env_method("set_pool", pool, None)
            return True

    model.learn(args.total_steps, callback=Schedule(), progress_bar=args.progress_bar)
    final = export(out / "model.npz")
    model.save(out / "model.zip")
    evaluate(model.num_timesteps)
    plot_learning_curve(out / "eval.csv", out / "learning_curve.png", args.eval_opponents)
    load_model_policy(final, args.game, eval_config)  # the export must load back
    print(f"run directory: {out}\nmodel: {final}")
    venv.close()
    if mix is not None:
        mix.close()
    return out


def evaluate_against(
    model_path: Path, opponent: str, game: str, config: Any, games: int, seed: int
) -> dict[str, float]:
    """The model's win rate (95% Wilson interval) in duplicate games against copies of ``opponent``."""
    from policies.evaluation import evaluate
    from policies.models import rules_of

    n = config.num_players
    options = {k: v for k, v in rules_of(config).items()}
    result = evaluate(
        [str(model_path)] + [opponent] * (n - 1),
        game=game,
        players=n,
        games=games,
        seed=seed,
        options=options,
        schedule="table",
    )
    stats = result.stats(str(model_path))
    return {"win_rate": stats.win_rate, "low": stats.win_low, "high": stats.win_high}


def plot_learning_curve(
    csv_path: Path, png_path: Path, opponents: tuple[str, ...], table_size: int | None = None
) -> None:
    """Win rate against each baseline vs training steps, with 95% intervals.

    The fair-share line is drawn at ``1 / table_size`` (default: the run's
    ``eval_table_size`` from ``args.json`` beside the CSV, if there is one)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with open(csv_path) as fh:
        rows = list(csv.DictReader(fh))
    steps = np.array([float(r["step"]) for r in rows])
    fig, ax = plt.subplots(figsize=(7, 4.2))
    for opp in opponents:
        y = np.array([float(r[f"win_{opp}"]) for r in rows])
        lo = np.array([float(r[f"win_{opp}_lo"]) for r in rows])
        hi = np.array([float(r[f"win_{opp}_hi"]) for r in rows])
        ax.plot(steps, y, marker="o", label=f"vs {opp}")
        ax.fill_between(steps, lo, hi, alpha=0.2)
    n = table_size
    with contextlib.suppress(OSError, KeyError, ValueError):
        n = n or json.loads((csv_path.parent / "args.json").read_text())["eval_table_size"]
    if n:
        ax.axhline(1 / n, color="grey", linestyle="--", linewidth=1, label=f"fair share 1/{n}")
    ax.set_xlabel("training steps (learner decisions)")
    ax.set_ylabel("win rate (95% interval)")
    ax.set_ylim(0, 1)
    ax.set_title("Learning curve: win rate against each baseline")
    ax.legend()
    fig.tight_layout()
    fig.savefig(png_path, dpi=120)
    plt.close(fig)


def main(argv: list[str] | None = None) -> None:
    import tyro

    args = tyro.cli(Args, args=argv, description=__doc__.split("\n")[0])
    try:
        train(args)
    except ValueError as err:
        raise SystemExit(f"error: {err}") from None


if __name__ == "__main__":
    main()
