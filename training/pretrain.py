"""Kick-starting: imitate a teacher policy before reinforcement learning.

PPO from scratch spends most of its first million steps learning what any
reasonable player knows. Cloning a scripted teacher first (behaviour cloning:
cross-entropy on the teacher's action over the legal ones, plus the value head
regressed on each seat's final return) starts PPO from the teacher's level.

    from training.pretrain import collect, pretrain
    data = collect("expert", "schnauz", config, games=2000, seed=0)
    pretrain(model, data, epochs=5)

Teacher games are played by the rules engine directly (all seats the teacher),
in worker processes. The data can be collected once and reused by several runs
(``train.py --pretrain-data``)::

    python -m training.pretrain --teacher expert --games 3000 --seed 11 --workers 2 \
        --out runs/teacher/expert_3000.npz

The same teacher, game count, seed and worker count give the same data.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

import numpy as np

from policies import make_policy
from policies.evaluation.runner import imap_workers
from schnauz_env.common.files import atomic_write
from schnauz_env.common.options import parse_rules
from schnauz_env.common.places import place_value
from schnauz_env.games import game_module
from training.args import Range, check_ranges, fail, parse_args


def _play(job: tuple[str, str, Any, int, int]) -> dict[str, np.ndarray]:
    teacher, game, config, games, seed = job
    gm = game_module(game)
    encoder = gm.ObservationEncoder(config)
    n = config.num_players
    obs, masks, actions, returns = [], [], [], []
    for g in range(games):
        rng = np.random.default_rng([seed, g])
        players = [
            make_policy(teacher, game=game, config=config, seed=seed * 7919 + g * n + s)
            for s in range(n)
        ]
        state = gm.new_game(config, rng)
        seats: list[int] = []
        while not state.game_over:
            s = state.current
            o = encoder.encode(state, s)
            m = state.legal_mask()
            a = players[s].act(o, m)
            obs.append(o)
            masks.append(m)
            actions.append(a)
            seats.append(s)
            state.apply(a)
        values = [place_value(state.places[s], n) for s in range(n)]
        returns.extend(values[s] for s in seats)
    return {
        "obs": np.asarray(obs, dtype=np.float32),
        "masks": np.asarray(masks, dtype=bool),
        "actions": np.asarray(actions, dtype=np.int64),
        "returns": np.asarray(returns, dtype=np.float32),
    }


def _play_indexed(job: tuple[int, tuple[str, str, Any, int, int]]) -> tuple[int, Any]:
    return job[0], _play(job[1])


def collect(
    teacher: str, game: str, config: Any, games: int, seed: int = 0, workers: int | None = None
) -> dict[str, np.ndarray]:
    """Every decision of ``games`` games the teacher plays at all seats: obs, mask, action, return."""
    workers = workers or mp.cpu_count() or 1
    chunks = [games // workers + (1 if i < games % workers else 0) for i in range(workers)]
    jobs = [(teacher, game, config, c, seed * 1000 + i) for i, c in enumerate(chunks) if c]
    if len(jobs) == 1:
        parts = [_play(jobs[0])]
    else:  # a worker that dies raises WorkerDied naming it (never a hang)
        done = dict(imap_workers(_play_indexed, list(enumerate(jobs)), len(jobs), unit="jobs"))
        parts = [done[i] for i in range(len(jobs))]
    return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}


def load_data(paths: Any, obs_size: int, features: Any = None) -> dict[str, np.ndarray]:
    """Teacher data saved by earlier runs (``pretrain_data.npz``), concatenated.

    A path may also be a dataset of :mod:`training.datasets`: its multi-agent ``.npz``
    (read as it is), or the id of its Minari dataset (``schnauz_env/schnauz/expert-v0``,
    looked up under ``MINARI_DATASETS_PATH``). ``features`` (a feature set) is applied
    to the stored raw observations; the result must have ``obs_size`` columns (the
    training env's observation size).
    """
    parts = []
    for path in paths:
        if not str(path).endswith(".npz") and not os.path.isfile(path):
            parts.append(_minari_data(str(path)))
            continue
        try:
            with np.load(path, allow_pickle=False) as d:
                parts.append({k: d[k] for k in ("obs", "masks", "actions", "returns")})
        except (OSError, KeyError, ValueError) as err:
            raise ValueError(
                f"{path!r} is not teacher data (obs, masks, actions, returns): {err}"
            ) from err
    data = {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}
    if features is not None:
        data["obs"] = features(data["obs"])
    if data["obs"].shape[1] != obs_size:
        raise ValueError(
            f"teacher data has observations of size {data['obs'].shape[1]}, the env {obs_size} "
            "(other rules or table size?)"
        )
    return data


def _minari_data(dataset_id: str) -> dict[str, np.ndarray]:
    """The decisions of a Minari dataset (:func:`training.datasets.load_minari`)."""
    from training.datasets import load_minari

    try:
        return load_minari(dataset_id)
    except (FileNotFoundError, ValueError, ModuleNotFoundError) as err:
        raise ValueError(
            f"{dataset_id!r} is neither teacher data (.npz) nor a Minari dataset: {err}"
        ) from err


def pretrain(
    model: Any,
    data: dict[str, np.ndarray],
    epochs: int = 5,
    batch_size: int = 1024,
    learning_rate: float = 1e-3,
    value_coef: float = 0.5,
    seed: int = 0,
) -> list[float]:
    """Fit an SB3 actor-critic ``model.policy`` to the teacher's data; returns per-epoch accuracy."""
    import torch
    import torch.nn.functional as F

    policy = model.policy
    policy.set_training_mode(True)
    opt = torch.optim.Adam(policy.parameters(), lr=learning_rate)
    obs = torch.as_tensor(data["obs"])
    masks = torch.as_tensor(data["masks"])
    actions = torch.as_tensor(data["actions"])
    returns = torch.as_tensor(data["returns"])
    gen = torch.Generator().manual_seed(seed)
    accuracy = []
    for _ in range(epochs):
        order = torch.randperm(len(obs), generator=gen)
        hits = 0
        for start in range(0, len(obs), batch_size):
            idx = order[start : start + batch_size]
            features = policy.extract_features(obs[idx])
            if isinstance(features, tuple):
                pi_features, vf_features = features
                latent_pi = policy.mlp_extractor.forward_actor(pi_features)
                latent_vf = policy.mlp_extractor.forward_critic(vf_features)
            else:
                latent_pi, latent_vf = policy.mlp_extractor(features)
            logits = policy.action_net(latent_pi).masked_fill(~masks[idx], -1e8)
            values = policy.value_net(latent_vf).squeeze(-1)
            loss = F.cross_entropy(logits, actions[idx]) + value_coef * F.mse_loss(
                values, returns[idx]
            )
            opt.zero_grad()
            loss.backward()
            opt.step()
            hits += int((logits.argmax(-1) == actions[idx]).sum())
        accuracy.append(hits / len(obs))
    policy.set_training_mode(False)
    return accuracy


@dataclass
class Args:
    """Collect a teacher's decisions (all seats) for behaviour cloning."""

    out: str
    """output .npz file (an existing file is refused, before any game, unless --overwrite)"""
    overwrite: bool = False
    """replace an existing --out file"""
    teacher: str = "expert"
    """policy name or model file"""
    game: Literal["schnauz", "scat", "thirteen"] = "schnauz"
    """the game"""
    players: Annotated[int, Range(2)] = 4
    """table size"""
    rules: tuple[str, ...] = ()
    """rule options as key=value (e.g. deck=A9 knock_in_first_circle=false)"""
    games: Annotated[int, Range(1)] = 2000
    """games to play"""
    seed: Annotated[int, Range(0)] = 0
    """seed of the deals and the teacher's moves"""
    workers: Annotated[int | None, Range(1)] = None
    """processes (default: every core)"""


def main(argv: list[str] | None = None) -> None:
    """Command line: collect teacher data to an ``.npz`` file (see the module docstring)."""
    prog = "python -m training.pretrain"
    args = parse_args(Args, argv, Args.__doc__, prog)
    out = Path(args.out)
    try:
        check_ranges(args)
        if out.is_dir():
            raise ValueError(f"--out {out} is a folder; name the .npz file to write")
        if out.exists() and not args.overwrite:
            raise ValueError(f"--out {out} exists; choose another name (or --overwrite)")
        config_cls = game_module(args.game).Config
        config = config_cls(num_players=args.players, **parse_rules(config_cls, args.rules))
        make_policy(args.teacher, game=args.game, config=config, seed=0)  # a bad name, now
    except (ValueError, TypeError) as err:
        fail(prog, str(err))
    start = time.time()
    data = collect(args.teacher, args.game, config, args.games, args.seed, args.workers)
    atomic_write(
        out, lambda f: np.savez_compressed(f, **data), overwrite=args.overwrite, binary=True
    )
    print(
        f"{len(data['obs'])} decisions of {args.games} games in {time.time() - start:.0f} s -> {out}"
    )


if __name__ == "__main__":
    main()
