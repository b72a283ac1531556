"""Train a Schnauz (or Scat / Thirteen) agent with sb3-contrib's MaskablePPO.

    pip install -e ".[train]"
    python -m training.train --total-steps 2000000 --table-sizes 4 \
        --opponents greedy expert --self-play-every 200000 --run-name schnauz4 \
        --pretrain-teacher expert --rules knock_in_first_circle=false

Reads top to bottom (CleanRL style): the settings (:class:`Args`, each field's
docstring is its ``--help``), then :func:`train`: setup (rules, seeding, the run
directory), the envs, the model, optional cloning of a teacher, the training loop
(evaluations and self-play snapshots on a schedule), the saved model and the final
evaluation. The run directory ``runs/<run-name>`` receives ``args.json``, TensorBoard
logs, checkpoints (SB3 ``.zip`` and a numpy-only ``.npz`` export that plays without
torch), the evaluation history (``eval.csv``) and a learning-curve PNG; the final model
is exported to ``runs/<run-name>/model.npz``.
"""

from __future__ import annotations

import functools
import json
import sys
import time
import warnings
import zipfile
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Annotated, Any, Literal

import numpy as np
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.utils import configure_logger
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecEnv, VecMonitor

from policies.mlp import (
    actor_layers,
    check_compatible,
    export_sb3,
    feature_transform,
    load_actor,
    load_model_policy,
    read_model,
)
from policies.pool import OpponentPool
from schnauz_env.common.files import atomic_write, read_csv_rows, write_text
from schnauz_env.common.options import parse_rules as parse_game_rules
from schnauz_env.games import game_module
from schnauz_env.wrappers import SingleAgentEnv
from schnauz_env.wrappers.vec_env import FeatureVecEnv
from training.args import (
    PPOArgs,
    Range,
    TableArgs,
    default_run_name,
    fail,
    flag_value,
    new_run_dir,
    parse_args,
    rule_options,
    run_command,
)
from training.evaluation import (
    append_rows,
    baseline_columns,
    plot_learning_curve,
    print_row,
    win_rate,
    write_csv,
)
from training.presets import preset
from training.pretrain import collect, load_data, pretrain
from training.rewards import (
    LIVES_GAMES,
    LivesRewardVecEnv,
    WinChanceRewardVecEnv,
    WinRewardVecEnv,
)


@dataclass
class Args(PPOArgs, TableArgs):
    total_steps: Annotated[int, Range(1)] = 1_000_000
    """learner decisions (environment steps) to train for"""
    self_play_every: Annotated[int, Range(0)] = 0
    """add a frozen snapshot of the learner to the pool every this many steps (0: never)"""
    num_envs: Annotated[int, Range(1)] = 8
    """parallel environments"""
    vec_env: Literal["dummy", "subproc", "batched"] = "dummy"
    """how the environments run: in this process, one process each, or (one table size) all
    games in the game's compiled batched engine (:mod:`schnauz_env.vector`: SchnauzVecEnv,
    ScatVecEnv, ThirteenVecEnv)"""
    opponent_workers: Annotated[int, Range(0)] = 0
    """batched envs: worker processes for slow scripted opponents (expert, ismcts); 0: in this process"""
    reward: Literal["place", "win", "lives", "win-chance"] = "place"
    """the learner's reward: its final place value (+1 first ... -1 last); (batched envs)
    'win': +1 for a win and -1/(players-1) otherwise, to train for the win rate alone;
    'lives': -1 in every round the learner loses a life (dense: a signal every round);
    'win-chance': the change in the learner's chance to win read off everyone's lives, x8 (as
    dense as 'lives', adds up to the win; training.rewards.WinChanceRewardVecEnv)"""
    features: str = "auto"
    """feature set appended to the observation ('auto': the game's own, e.g. schnauz-moves-v1 for
    Schnauz; 'none': the raw observation)"""
    n_steps: Annotated[int, Range(1)] = 256
    """PPO rollout length per environment"""
    lr_schedule: Literal["constant", "linear"] = "constant"
    """'linear': decay the learning rate to --lr-end over --total-steps (settles a policy
    that oscillates at a constant rate)"""
    lr_end: Annotated[float, Range(0.0)] = 0.0
    """with --lr-schedule linear: the learning rate at the end of the run"""
    target_kl: Annotated[float, Range(0.0)] = 0.0
    """stop an update's epochs early past this KL divergence (0: never)"""
    init_model: str = ""
    """start from an earlier model instead of fresh weights: an SB3 .zip checkpoint of an
    earlier run (same settings, --net-arch included; read weights-only: tensors and JSON
    settings, no pickled object is loaded), or a model file (.npz, e.g. a shipped one in
    policies/models/): the policy starts from its actor, the value network fresh (see
    --critic-warmup)"""
    critic_warmup: Annotated[int, Range(0)] = 0
    """the first this many steps train only the value network, the policy frozen (for a
    start from a .npz model file, which holds no value network)"""
    pretrain_teacher: str = ""
    """clone this policy (e.g. expert) before PPO: behaviour cloning on its games (empty: off)"""
    pretrain_games: Annotated[int, Range(1)] = 2000
    """teacher games (all seats the teacher) to clone, split over the table sizes"""
    pretrain_epochs: Annotated[int, Range(1)] = 5
    """behaviour-cloning epochs"""
    pretrain_data: tuple[str, ...] = ()
    """clone from these saved teacher-data files (a run's pretrain_data.npz) instead of playing new games"""
    eval_every: Annotated[int, Range(0)] = 100_000
    """evaluate against the baselines every this many steps (0: only at the end)"""
    checkpoint_every: Annotated[int, Range(0)] = 0
    """save a checkpoint (SB3 .zip and numpy .npz) every this many steps, besides those
    of the evaluations (0: only at evaluations)"""
    progress_bar: bool = True
    """show progress: a bar on a terminal, a plain line every tenth of the run (and at
    least every minute) in a log file or a pipe"""
    device: str = "cpu"
    """torch device"""
    torch_threads: Annotated[int, Range(1)] = 1
    """torch CPU threads; 1 is fastest when the environments run in processes of their own
    (more threads spin and fight them for the cores); with the batched engine (one process,
    PPO's update alternating with the games) 2 threads on 2 cores made the Schnauz preset
    1.3x faster per wall-second, so that preset takes 2"""
    select_games: Annotated[int, Range(0)] = 0
    """at the end, keep as model.npz the best of the final weights and the checkpoints of
    the run's second half, by win rate against the first of
    --eval-opponents over this many duplicate games on deals of their own (seed + 10,000:
    not the evaluations' nor a report's); 0: the final weights"""
    resume: str = ""
    """continue the interrupted run in this directory from its latest checkpoint (its
    args.json gives every setting: give no other flag); cloning and evaluations already
    done are not repeated"""
    last_stage: Annotated[int, Range(0)] = 0
    """with a preset of several stages: stop after this one (0: run them all)"""
    preset: str = "none"
    """a named recipe (training.presets; 'strong' for every game: the recipe of the shipped
    model): its settings replace these defaults, and flags given still win"""


# --------------------------------------------------------------------------- helpers
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
    return default_run_name(args)


def opponent_pool(args: Args, **batched: Any) -> OpponentPool:
    """The opponent pool of ``args`` (``batched``: the pool's batched-games settings)."""
    weights = list(args.opponent_weights) or None
    return OpponentPool(args.opponents, weights, game=args.game, seed=args.seed, **batched)


def make_single_agent_env(args: Args, rules: dict[str, Any], i: int) -> SingleAgentEnv:
    """Env ``i`` of a ``DummyVecEnv`` / ``SubprocVecEnv``: one learner seat against the pool."""
    return SingleAgentEnv(
        args.game,
        rules,
        args.table_sizes,
        opponent_pool(args),
        seed=args.seed * 1000 + i,
        infos=False,  # train.py reads none; SB3 deep-copies infos every step
    )


def make_vec_env(
    args: Args, rules: dict[str, Any], config: Any
) -> tuple[VecEnv, OpponentPool | None]:
    """The training envs, with the reward wrapper ``args.reward`` asks for; returns the
    batched engine's opponent pool too (``None`` for the AEC views, which hold one each)."""
    pool = None
    if args.vec_env == "batched":
        from schnauz_env.vector import vec_env_class

        if len(args.table_sizes) != 1:
            raise ValueError("--vec-env batched runs one table size (--table-sizes N)")
        pool = opponent_pool(
            args, config=config, num_games=args.num_envs, workers=args.opponent_workers
        )
        venv_cls = vec_env_class(args.game)
        venv = venv_cls(num_envs=args.num_envs, config=config, opponent=pool, seed=args.seed)
    else:
        vec_cls = SubprocVecEnv if args.vec_env == "subproc" else DummyVecEnv
        venv = vec_cls(
            [functools.partial(make_single_agent_env, args, rules, i) for i in range(args.num_envs)]
        )
    if args.reward == "win":
        if pool is None:
            raise ValueError("--reward win needs --vec-env batched")
        venv = WinRewardVecEnv(venv, config.num_players)
    elif args.reward in ("lives", "win-chance"):
        if args.game not in LIVES_GAMES:
            raise ValueError(
                f"--reward {args.reward} is for the games played for lives ({', '.join(LIVES_GAMES)})"
            )
        wrapper = LivesRewardVecEnv if args.reward == "lives" else WinChanceRewardVecEnv
        venv = wrapper(venv, config, game=args.game)
    return venv, pool


def ppo_settings(args: Args, out: Path) -> dict[str, Any]:
    """MaskablePPO's keyword arguments for ``args`` (logging to ``out/tb``)."""
    return dict(
        n_steps=args.n_steps,
        batch_size=args.batch_size,
        n_epochs=args.n_epochs,
        learning_rate=(
            args.learning_rate
            if args.lr_schedule == "constant"
            # remaining goes 1 -> 0 over the run: the rate from --learning-rate to --lr-end
            else (lambda remaining, a=args.learning_rate, b=args.lr_end: b + (a - b) * remaining)
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


def teacher_data(
    args: Args, configs: dict[int, Any], obs_size: int, features: Any, out: Path
) -> dict[str, np.ndarray]:
    """The decisions to clone: loaded from ``--pretrain-data``, or played by the teacher
    at every table size (saved to ``out/pretrain_data.npz``, and read back from there
    when a run is resumed); features appended."""
    if args.pretrain_data:
        return load_data(args.pretrain_data, obs_size, features)
    saved = out / "pretrain_data.npz"
    if args.resume and saved.exists():  # played before the run was interrupted
        return load_data([saved], obs_size, features)
    table_sizes = list(args.table_sizes)
    parts = [
        collect(
            args.pretrain_teacher,
            args.game,
            configs[n],
            max(1, args.pretrain_games // len(table_sizes)),
            seed=args.seed,
        )
        for n in table_sizes
    ]
    data = {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}
    save_npz(out / "pretrain_data.npz", data)
    if features is not None:
        data["obs"] = features(data["obs"])
    return data


def save_sb3(model: Any, path: Path) -> Path:
    """``model`` as an SB3 ``.zip`` at ``path``, atomically (a kill leaves no half file)."""
    return atomic_write(path, model.save, overwrite=True, binary=True)


def save_npz(path: Path, data: dict[str, np.ndarray]) -> Path:
    """``data`` as a compressed ``.npz`` at ``path``, atomically."""
    return atomic_write(path, lambda f: np.savez_compressed(f, **data), overwrite=True, binary=True)


def check_checkpoint(path: str) -> dict[str, Any]:
    """The settings stored in the SB3 ``.zip`` checkpoint ``path`` (its ``data`` entry,
    read as JSON only); ``ValueError`` naming the file, before the run starts, if it is
    missing, truncated or damaged, or not an SB3 checkpoint."""
    p = Path(path)
    if not p.is_file():
        raise ValueError(f"--init-model {path}: no such file")
    try:
        with zipfile.ZipFile(p) as zf:
            bad = zf.testzip()
            names = set(zf.namelist())
            if bad is None and "data" in names and "policy.pth" in names:
                data = json.loads(zf.read("data"))
    except (zipfile.BadZipFile, OSError, ValueError) as err:
        raise ValueError(f"--init-model {path}: not a whole SB3 .zip checkpoint ({err})") from None
    if bad is not None:
        raise ValueError(f"--init-model {path}: damaged ({bad} does not check)")
    if "data" not in names or "policy.pth" not in names or not isinstance(data, dict):
        raise ValueError(f"--init-model {path}: not an SB3 checkpoint (no data / policy.pth)")
    return data


def check_init_model(args: Args, config: Any) -> list[tuple[np.ndarray, np.ndarray]] | None:
    """Check ``--init-model`` before the run starts: an SB3 checkpoint
    (:func:`check_checkpoint`; returns ``None``), or a model file whose actor fits this
    run's game, rules, features and ``--net-arch`` (returns its weights). ``ValueError``
    naming the file and what does not fit."""
    path = args.init_model
    if Path(path).suffix.lower() != ".npz":
        check_checkpoint(path)
        return None
    name = f"--init-model {path}"
    try:
        weights, meta = read_model(path)
    except ValueError as err:
        raise ValueError(f"--init-model: {err}") from None
    check_compatible(meta, args.game, config, name)
    features = resolve_features(args)
    if meta.get("features") != features:
        raise ValueError(
            f"{name} reads the features {meta.get('features')!r}, this run "
            f"{features!r}: give --features {meta.get('features') or 'none'}"
        )
    if meta["activation"] != "tanh":
        raise ValueError(f"{name} uses {meta['activation']}; training builds tanh networks")
    widths = [w.shape[1] for w, _ in weights[:-1]]
    if widths != list(args.net_arch):
        raise ValueError(
            f"{name} has hidden layers {widths}, this run --net-arch "
            f"{list(args.net_arch)}: give --net-arch {' '.join(map(str, widths))}"
        )
    return weights


#: What the pickled entries of a checkpoint's ``data`` are replaced with, so that loading
#: runs no code from the file (SB3's ``custom_objects``): this run's own objects, or
#: ``None`` where MaskablePPO builds them again (schedules, buffers).
def _own_objects(args: Args, venv: VecEnv, ppo: dict[str, Any]) -> dict[str, Any]:
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    return {
        "policy_class": MaskableActorCriticPolicy,
        "policy_kwargs": {"net_arch": list(args.net_arch), "activation_fn": torch.nn.Tanh},
        "observation_space": venv.observation_space,
        "action_space": venv.action_space,
        "learning_rate": ppo["learning_rate"],
        "lr_schedule": None,
        "clip_range": ppo["clip_range"],
        "rollout_buffer_class": None,
        "_last_obs": None,
        "_last_episode_starts": None,
        "_last_original_obs": None,
        "ep_info_buffer": None,
        "ep_success_buffer": None,
    }


def load_checkpoint(args: Args, venv: VecEnv, ppo: dict[str, Any], path: str = "") -> Any:
    """The MaskablePPO model of ``path`` (default ``args.init_model``) on ``venv``, with
    its optimizer state, weights only: the
    networks' tensors (``torch.load(weights_only=True)``) and the plain JSON settings;
    every pickled entry is replaced by this run's own object (:func:`_own_objects`), and
    a checkpoint with a pickled entry this trainer does not know is refused. The network
    shape comes from ``--net-arch``. ``ValueError`` naming the file if it cannot be
    read or does not fit the envs."""
    path = path or args.init_model
    data = check_checkpoint(path)
    own = _own_objects(args, venv, ppo)
    pickled = [k for k, v in data.items() if isinstance(v, dict) and ":serialized:" in v]
    unknown = sorted(set(pickled) - set(own))
    if unknown:
        raise ValueError(
            f"--init-model {path}: holds pickled {', '.join(unknown)}, which this trainer "
            "does not know; refusing to unpickle it (it could run code)"
        )
    try:
        return MaskablePPO.load(path, env=venv, custom_objects=own, **ppo)
    except RuntimeError as err:
        raise ValueError(
            f"--init-model {path}: its networks do not fit (same --net-arch, --features and "
            f"observation as the run that saved it?): {str(err).splitlines()[0]}"
        ) from None
    except (AssertionError, KeyError, EOFError, TypeError, zipfile.BadZipFile) as err:
        raise ValueError(
            f"--init-model {path}: cannot load it ({type(err).__name__}: {err})"
        ) from None


def saved_steps(out: Path, suffix: str) -> list[tuple[int, Path]]:
    """``(step, path)`` of run ``out``'s checkpoints ``step_N<suffix>``, by step."""
    found = []
    for path in (out / "checkpoints").glob(f"step_*{suffix}"):
        step = path.stem.removeprefix("step_")
        if step.isdigit():
            found.append((int(step), path))
    return sorted(found)


def args_from(values: dict[str, Any]) -> Args:
    """:class:`Args` from settings read back from JSON (its lists are the tuples)."""
    return Args(**{k: tuple(v) if isinstance(v, list) else v for k, v in values.items()})


def latest_checkpoint(out: Path) -> tuple[int, Path] | None:
    """``(step, path)`` of the latest whole SB3 checkpoint in run ``out`` (``None``: none
    yet); ``ValueError`` if the run has finished (its ``model.zip`` is written)."""
    if (out / "model.zip").exists():
        raise ValueError(f"--resume {out}: the run has finished (model.zip is written)")
    for step, path in reversed(saved_steps(out, ".zip")):
        try:
            check_checkpoint(str(path))
        except ValueError:
            continue  # written while the run was killed: an earlier one
        return step, path
    return None


def resume_args(run: str) -> Args:
    """The settings of the run in folder ``run`` (its ``args.json``), to resume it."""
    path = Path(run) / "args.json"
    try:
        saved = json.loads(path.read_text())
    except FileNotFoundError:
        raise ValueError(f"--resume {run}: not a run folder (no args.json)") from None
    except (OSError, ValueError) as err:
        raise ValueError(f"--resume {run}: cannot read its args.json ({err})") from None
    if not isinstance(saved, dict):
        raise ValueError(f"--resume {run}: its args.json is not a run's settings")
    unknown = sorted(set(saved) - {f.name for f in fields(Args)})
    if unknown:
        raise ValueError(f"--resume {run}: args.json has settings this trainer lacks: {unknown}")
    return args_from({**saved, "resume": str(run)})


def best_selection(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The candidate :func:`select_model` keeps: the first of the highest win rates
    (rows as it writes them to ``selection.csv``, or as read back from it)."""
    return max(rows, key=lambda r: float(r["win_rate"]))


def select_model(args: Args, rules: dict[str, Any], out: Path, last: int) -> None:
    """Keep as ``out/model.npz`` the best of the final model and the checkpoints of the
    run's second half, by win rate against ``--eval-opponents[0]`` over
    ``--select-games`` duplicate games on deals of seed ``seed + 10,000``; each
    candidate's figure goes to ``out/selection.csv``."""
    opponent, n = args.eval_opponents[0], args.eval_table_size
    final = out / "model.npz"
    candidates = [
        (step, path)
        for step, path in saved_steps(out, ".npz")
        if args.total_steps // 2 <= step < last
    ]
    rows = []
    for step, path in [*candidates, (last, final)]:
        if not path.exists():
            continue
        r = win_rate(path, opponent, args.game, n, rules, args.select_games, args.seed + 10_000)
        rows.append({"step": step, "file": path.name, **r})
        print(f"selection: step {step:,}: {r['win_rate']:.3f} [{r['low']:.3f}, {r['high']:.3f}]")
    best = best_selection(rows)
    write_csv(out / "selection.csv", rows)
    if best["file"] != final.name:
        save_bytes = (out / "checkpoints" / best["file"]).read_bytes()
        atomic_write(final, lambda f: f.write(save_bytes), overwrite=True, binary=True)
    print(f"selected step {best['step']:,} as {final}")


class Run:
    """The output side of a run: exports, checkpoints and evaluations into ``out``."""

    def __init__(
        self, args: Args, rules: dict[str, Any], out: Path, model: Any, config: Any, features: Any
    ) -> None:
        self.args, self.rules, self.out, self.model = args, rules, out, model
        self.config, self.features = config, features
        self.history: list[dict[str, Any]] = []

    def export(self, path: Path) -> Path:
        """The model as a numpy model file at ``path``."""
        return export_sb3(
            self.model,
            path,
            self.args.game,
            self.config,
            list(self.args.table_sizes),
            features=getattr(self.features, "name", None),
        )

    def checkpoint(self, step: int) -> Path:
        """Save the model at ``step`` (``checkpoints/step_N.zip`` and ``.npz``); return the
        ``.npz``."""
        path = self.export(self.out / "checkpoints" / f"step_{step}.npz")
        save_sb3(self.model, self.out / "checkpoints" / f"step_{step}.zip")
        return path

    def evaluate(self, step: int) -> None:
        """Checkpoint at ``step``, play it against the baselines, log the row in eval.csv
        and in TensorBoard at that step."""
        args, out, model = self.args, self.out, self.model
        path = self.checkpoint(step)
        row: dict[str, Any] = {"step": step, **baseline_columns(path, args, self.rules)}
        if getattr(model, "_logger", None) is not None:  # set up once learning starts
            for opp in args.eval_opponents:
                model.logger.record(f"eval/win_rate_vs_{opp}", row[f"win_{opp}"])
            # written now, at its own step (not with the next rollout's, nor lost at the end)
            model.logger.dump(step)
        self.history.append(row)
        append_rows(out / "eval.csv", [row])
        print_row("eval", row)


class Schedule(BaseCallback):
    """Evaluations and self-play snapshots at fixed step intervals (and the end of
    ``--critic-warmup``)."""

    def __init__(self, run: Run, venv: VecEnv, pool: OpponentPool | None) -> None:
        super().__init__()
        self.run, self.venv, self.pool = run, venv, pool
        args = run.args
        start = run.model.num_timesteps  # 0, or where a resumed run got to

        def first(every: int) -> int | None:  # the first multiple of ``every`` past start
            return (start // every + 1) * every if every else None

        self.next_eval = first(args.eval_every)
        self.next_snap = first(args.self_play_every)
        self.next_ckpt = first(args.checkpoint_every)
        self.snapshots: list[str] = []
        # Progress as plain lines where a bar would pile up carriage returns (nohup, CI).
        self.lines = args.progress_bar and not sys.stdout.isatty()
        self.line_every = max(0.1 * args.total_steps, 1.0)
        self.next_line, self.last_line = self.line_every, time.monotonic()

    def _on_rollout_end(self) -> None:
        # --critic-warmup: while it lasts, the update trains the value network alone.
        frozen = self.num_timesteps <= self.run.args.critic_warmup
        for layer in actor_layers(self.run.model.policy):
            layer.requires_grad_(not frozen)

    def _on_step(self) -> bool:
        args, t = self.run.args, self.num_timesteps
        if self.lines and (t >= self.next_line or time.monotonic() - self.last_line >= 60):
            total = args.total_steps
            print(f"step {t:,} of {total:,} ({t / max(total, 1):.0%})", flush=True)
            self.last_line = time.monotonic()
            while self.next_line <= t:
                self.next_line += self.line_every
        if self.next_eval is not None and t >= self.next_eval:
            self.next_eval += args.eval_every
            if t < args.total_steps:  # the run's end is evaluated once, after the last update
                self.run.evaluate(t)
        if self.next_ckpt is not None and t >= self.next_ckpt:
            while self.next_ckpt <= t:
                self.next_ckpt += args.checkpoint_every
            if not (self.run.out / "checkpoints" / f"step_{t}.zip").exists():
                self.run.checkpoint(t)
        if self.next_snap is not None and t >= self.next_snap:
            self.next_snap += args.self_play_every
            snap = self.run.export(self.run.out / "snapshots" / f"snap_{t}.npz")
            self.snapshots = [*self.snapshots, str(snap)][-args.self_play_keep :]
            opponents = list(args.opponents) + self.snapshots
            if self.pool is not None:
                w = list(args.opponent_weights or [1.0] * len(args.opponents))
                share = sum(w) / len(args.opponents)  # a snapshot weighs as an average opponent
                self.pool.set_pool(opponents, w + [share] * len(self.snapshots))
            else:
                self.venv.env_method("set_pool", opponents, None)
        return True


# --------------------------------------------------------------------------- the run
def train(args: Args) -> Path:
    """Train as ``args`` says; returns the run directory."""
    # Setup: validate everything before any work is done, then the run directory and seeds.
    rules = rule_options(args)
    probe = make_single_agent_env(args, rules, 0)  # checks the rules, tables and opponents
    configs = probe.configs
    config = configs[args.table_sizes[0]]
    eval_config = game_module(args.game).Config(num_players=args.eval_table_size, **rules)
    actor = check_init_model(args, config) if args.init_model else None
    if args.resume:  # the interrupted run's folder, and where it got to
        out = Path(args.resume)
        start = latest_checkpoint(out)
    else:
        out = new_run_dir(args.run_dir, run_name(args))  # never an earlier run's folder
        write_text(out / "args.json", json.dumps(asdict(args), indent=2), overwrite=False)
        start = None
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.torch_threads)

    # Envs: the AEC views or the batched engine, the reward, the feature block.
    features = feature_transform(resolve_features(args), args.game, config)
    venv, pool = make_vec_env(args, rules, config)
    if features is not None:
        venv = FeatureVecEnv(venv, features)
    venv = VecMonitor(venv)  # episode returns and lengths: SB3's rollout/ep_rew_mean

    # Model: fresh, an earlier run's checkpoint, or (resuming) this run's latest one.
    ppo = ppo_settings(args, out)
    if start is not None:
        model = load_checkpoint(args, venv, ppo, str(start[1]))
        model.num_timesteps = start[0]
        print(f"resuming {out} at step {start[0]:,} of {args.total_steps:,}")
    elif args.init_model and actor is None:
        model = load_checkpoint(args, venv, ppo)
        model.num_timesteps = 0  # a new run: its steps count from 0
    else:
        policy_kwargs = {"net_arch": list(args.net_arch), "activation_fn": torch.nn.Tanh}
        model = MaskablePPO("MlpPolicy", venv, policy_kwargs=policy_kwargs, **ppo)
        if actor is not None:  # a model file: its actor, a fresh value network
            load_actor(model, actor)
            print(f"policy from {args.init_model}; the value network starts fresh")
    # SB3's own logger (what learn() would set up: stdout as verbose says, TensorBoard
    # under tb/PPO_1), set up now so that the evaluation of a cloned start is logged too.
    model.set_logger(configure_logger(model.verbose, model.tensorboard_log, "PPO"))
    run = Run(args, rules, out, model, config, features)

    # Cloning a teacher first (optional): the evaluation at step 0 is the cloned start.
    if start is None and (args.pretrain_teacher or args.pretrain_data):
        data = teacher_data(args, configs, venv.observation_space.shape[0], features, out)
        acc = pretrain(model, data, epochs=args.pretrain_epochs, seed=args.seed)
        teacher = args.pretrain_teacher or ", ".join(args.pretrain_data)
        print(f"cloned {teacher} on {len(data['obs'])} decisions: accuracy {acc[-1]:.3f}")
        run.evaluate(0)

    # The loop: PPO, with evaluations and self-play snapshots on a schedule.
    # (resuming: the steps left; the learning-rate schedule goes on from where it was)
    model.learn(
        args.total_steps - model.num_timesteps,
        callback=Schedule(run, venv, pool),
        progress_bar=args.progress_bar and sys.stdout.isatty(),
        reset_num_timesteps=start is None,
    )

    # Save, the final evaluation, and (optionally) the selection of the model file.
    final = run.export(out / "model.npz")
    save_sb3(model, out / "model.zip")
    run.evaluate(model.num_timesteps)
    plot_learning_curve(out / "eval.csv", out / "learning_curve.png", args.eval_opponents)
    if args.select_games:
        select_model(args, rules, out, model.num_timesteps)
    load_model_policy(final, args.game, eval_config)  # the export must load back
    print(f"run directory: {out}\nmodel: {final}")
    venv.close()
    if pool is not None:
        pool.close()
    return out


# --------------------------------------------------------------------------- recipes of stages
#: A staged recipe's file in its folder: the settings, the stages and the flags given.
RECIPE_FILE = "recipe.json"


def selected_checkpoint(run: Path) -> Path:
    """The SB3 ``.zip`` of the weights a finished run kept as ``model.npz``: the row
    :func:`select_model` chose in ``selection.csv`` (the first of the best), else the
    final ``model.zip``."""
    rows = read_csv_rows(run / "selection.csv") if (run / "selection.csv").exists() else []
    if rows:
        best = best_selection(rows)
        if best["file"] != "model.npz":
            return run / "checkpoints" / Path(best["file"]).with_suffix(".zip").name
    return run / "model.zip"


def stage_args(
    args: Args, stages: list[dict[str, Any]], given: set[str], out: Path, i: int
) -> Args:
    """The settings of stage ``i`` (1, 2, ...) of a staged recipe in folder ``out``: the
    recipe's, then the stage's own (a flag given on the command line still wins), in
    ``out/stage_<i>``, seeded ``seed + i - 1``; a stage after the first starts from the
    weights the stage before it kept, without cloning."""
    own = {k: v for k, v in ([{}, *stages][i - 1]).items() if k not in given}
    values = {**asdict(args), **own, "run_dir": str(out), "run_name": f"stage_{i}", "resume": ""}
    values["seed"] = args.seed + i - 1
    if i > 1:
        previous = selected_checkpoint(out / f"stage_{i - 1}")
        values.update(init_model=str(previous), pretrain_teacher="", pretrain_data=())
    return args_from(values)


def train_stages(
    args: Args, stages: list[dict[str, Any]], given: set[str], out: Path | None = None
) -> Path:
    """Run a preset's stages one after the other (``out/stage_1``, ``out/stage_2``, ...),
    each from the model the one before it kept, and copy the last stage's ``model.npz``
    to ``out/model.npz``. ``out`` given: continue that recipe (finished stages are kept,
    an interrupted one is resumed from its latest checkpoint)."""
    if out is None:
        out = new_run_dir(args.run_dir, run_name(args))
        recipe = {"args": asdict(args), "stages": stages, "given": sorted(given)}
        write_text(out / RECIPE_FILE, json.dumps(recipe, indent=2), overwrite=False)
    count = min(len(stages) + 1, args.last_stage or len(stages) + 1)
    for i in range(1, count + 1):
        folder = out / f"stage_{i}"
        stage = stage_args(args, stages, given, out, i)
        if (folder / "model.zip").exists():
            if stage.select_games and not (folder / "selection.csv").exists():
                print(f"stage {i} of {count}: choosing its model (killed while choosing)")
                last = saved_steps(folder, ".npz")[-1][0]  # the final weights' step
                select_model(stage, rule_options(stage), folder, last)
            print(f"stage {i} of {count}: done ({folder})")
            continue
        print(f"stage {i} of {count}: {folder}", flush=True)
        train(resume_args(str(folder)) if (folder / "args.json").exists() else stage)
    final = (out / f"stage_{count}" / "model.npz").read_bytes()
    atomic_write(out / "model.npz", lambda f: f.write(final), overwrite=True, binary=True)
    print(f"recipe directory: {out}\nmodel: {out / 'model.npz'}")
    return out


def resume_stages(run: str) -> tuple[Args, list[dict[str, Any]], set[str]]:
    """The settings, stages and given flags of the staged recipe in folder ``run``."""
    try:
        recipe = json.loads((Path(run) / RECIPE_FILE).read_text())
        args = args_from({**recipe["args"], "resume": run})
        return args, list(recipe["stages"]), set(recipe["given"])
    except (OSError, ValueError, KeyError, TypeError) as err:
        raise ValueError(f"--resume {run}: cannot read its {RECIPE_FILE} ({err})") from None


def given_settings(argv: list[str]) -> set[str]:
    """The settings named by the flags in ``argv`` (``--total-steps`` -> ``total_steps``,
    ``--no-progress-bar`` -> ``progress_bar``)."""
    names = {f.name for f in fields(Args)}
    out = set()
    for arg in argv:
        if arg.startswith("--"):
            name = arg[2:].split("=")[0].replace("-", "_")
            out.add(name if name in names else name.removeprefix("no_"))
    return out & names


# --------------------------------------------------------------------------- deprecated
def parse_rules(items: tuple[str, ...], game: str = "schnauz") -> dict[str, Any]:
    """Deprecated: :func:`schnauz_env.common.options.parse_rules` (typed by the config)."""
    warnings.warn(
        "training.train.parse_rules is deprecated; use "
        "schnauz_env.common.options.parse_rules(Config, items)",
        DeprecationWarning,
        stacklevel=2,
    )
    return parse_game_rules(game_module(game).Config, items)


def evaluate_against(
    model_path: Path, opponent: str, game: str, config: Any, games: int, seed: int
) -> dict[str, float]:
    """Deprecated: :func:`training.evaluation.win_rate`."""
    warnings.warn(
        "training.train.evaluate_against is deprecated; use training.evaluation.win_rate",
        DeprecationWarning,
        stacklevel=2,
    )
    options = {k: v for k, v in asdict(config).items() if k != "num_players"}
    return win_rate(model_path, opponent, game, config.num_players, options, games, seed)


def main(argv: list[str] | None = None) -> None:
    prog = "python -m training.train"
    argv = list(sys.argv[1:] if argv is None else argv)
    game = flag_value(argv, "--game") or Args.game
    name = flag_value(argv, "--preset") or "none"
    resume = flag_value(argv, "--resume")
    stages: list[dict[str, Any]] = []
    try:
        if resume is not None:  # every setting is the interrupted run's
            others = [a for a in argv if a.startswith("--") and a.split("=")[0] != "--resume"]
            if others:
                raise ValueError(
                    f"--resume takes the settings of the run it continues; drop {' '.join(others)}"
                )
            if (Path(resume) / RECIPE_FILE).exists():  # a staged recipe: its next stage
                args, stages, given = resume_stages(resume)
                run_command(prog, args, lambda a: train_stages(a, stages, given, Path(resume)))
                return
            default = resume_args(resume)
        else:
            settings = preset(game, name)
            stages = list(settings.pop("stages", ()))
            default = Args(**{**settings, "game": game, "preset": name})
    except ValueError as err:
        fail(prog, str(err))
    args = parse_args(Args, argv, __doc__.split("\n")[0], prog, default=default)
    if stages:
        given = given_settings(argv)
        run_command(prog, args, lambda a: train_stages(a, stages, given))
    else:
        run_command(prog, args, train)


if __name__ == "__main__":
    main()
