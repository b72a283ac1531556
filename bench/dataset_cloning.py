"""Behaviour cloning from a Minari dataset of expert games against today's teacher data.

For each game, at a table of four, two training sets of ``--games`` expert self-play
games drawn from the same seed (``--data-seed``):

* T, today's path: ``training.pretrain.collect`` (the teacher data of
  ``python -m training.pretrain``), read back by ``training.pretrain.load_data``;
* M, the Minari path: the dataset built by the documented command
  ``python -m training.datasets --policies expert --game GAME --games N --seed S
  --minari-id schnauz_env/GAME/expert-v0`` (run here through its ``main``), checked as
  a user would (``minari.load_dataset``: episodes, steps, ``infos["action_mask"]``,
  ``recover_environment()`` resets and steps), and read by ``load_data`` through its id.

Both are cut to the same number of decisions (the smaller) and cloned as
``training.train`` clones (MaskablePPO, MLP 128x128 tanh, the game's ``auto`` features,
``pretrain`` for ``--epochs`` epochs) with the same cloning seeds (``--seeds``: the
network's initialisation and the batch order). Each clone is scored on its own data
(``pretrain``'s accuracy of the last epoch, the README's figure) and on a common
held-out set of ``--held-out`` games (``collect``, seed 3), with a Wilson 95% interval.
The summary gives, per game and data, the mean over the seeds with a 95% t-interval,
and the paired difference M - T (same seed) with its interval. That interval holds the
noise of cloning only (both sets are fixed); ``--reference-seed S`` adds T2, today's
path from another seed, whose difference T2 - T is the noise between two datasets of
the same kind: M is "within noise" when M - T is no larger than T2 - T.

    python bench/dataset_cloning.py --games 1000 --held-out 100 --seeds 0 1 2 \\
        --workers 2 --work runs/dataset_cloning --out runs/dataset_cloning/figures.json

``--work`` keeps the datasets (the Minari datasets under ``WORK/minari``, the teacher
data as ``.npz``), so a second run reuses them.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import time
from pathlib import Path

import numpy as np
import torch

from policies.evaluation.stats import wilson_interval
from policies.mlp import feature_transform
from policies.pool import OpponentPool
from schnauz_env.games import game_module
from schnauz_env.wrappers import SingleAgentEnv
from training.datasets import main as datasets_main
from training.pretrain import collect, load_data, pretrain

#: Two-sided 95% quantiles of Student's t by degrees of freedom (1..10).
T95 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228]


def features_for(game: str, config) -> object | None:
    if game == "schnauz":
        from schnauz_env.schnauz.features import FEATURES_NAME

        return feature_transform(FEATURES_NAME, game, config)
    return None


def fresh_model(game: str, config, features, seed: int):
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    from schnauz_env.wrappers.vec_env import FeatureVecEnv

    def make():
        pool = OpponentPool(["random"], game=game, seed=seed)
        return SingleAgentEnv(game=game, table_sizes=(config.num_players,), opponents=pool)

    venv = DummyVecEnv([make])
    if features is not None:
        venv = FeatureVecEnv(venv, features)
    torch.manual_seed(seed)
    kwargs = {"net_arch": [128, 128], "activation_fn": torch.nn.Tanh}
    return MaskablePPO("MlpPolicy", venv, policy_kwargs=kwargs, seed=seed, verbose=0)


def with_features(data: dict, features) -> dict:
    data = dict(data)
    if features is not None:
        data["obs"] = features(data["obs"])
    return data


def save_npz(path: Path, data: dict) -> None:
    """Cache a dataset (atomically: a run stopped half way leaves no half file)."""
    tmp = path.with_name(path.name + ".tmp.npz")
    np.savez_compressed(tmp, **data)
    os.replace(tmp, path)


def cut(data: dict, n: int) -> dict:
    return {k: v[:n] for k, v in data.items()}


def held_out_hits(model, data: dict) -> int:
    policy = model.policy
    hits = 0
    with torch.no_grad():
        for start in range(0, len(data["obs"]), 4096):
            obs = torch.as_tensor(data["obs"][start : start + 4096])
            masks = torch.as_tensor(data["masks"][start : start + 4096])
            features = policy.extract_features(obs)
            if isinstance(features, tuple):
                features = features[0]
            latent = policy.mlp_extractor.forward_actor(features)
            logits = policy.action_net(latent).masked_fill(~masks, -1e8)
            hits += int((logits.argmax(-1).numpy() == data["actions"][start : start + 4096]).sum())
    return hits


def mean_interval(xs: list[float]) -> dict:
    """Mean with a 95% t-interval over the seeds (no interval for one seed)."""
    m = statistics.fmean(xs)
    if len(xs) < 2:
        return {"mean": round(m, 4), "ci95": None}
    half = T95[min(len(xs) - 2, len(T95) - 1)] * statistics.stdev(xs) / math.sqrt(len(xs))
    return {"mean": round(m, 4), "ci95": [round(m - half, 4), round(m + half, 4)]}


def teacher_of(game: str, args) -> str:
    """The expert that plays: ``expert-jit`` for Schnauz (the expert compiled: the same
    moves, some 20 times faster), ``expert`` elsewhere, unless ``--teacher`` says."""
    if args.teacher != "auto":
        return args.teacher
    return "expert-jit" if game == "schnauz" else "expert"


def minari_dataset(game: str, args, root: Path) -> tuple[str, dict]:
    """Build (or reuse) the Minari dataset with the documented command, and check it as a
    user would; returns its id and what was seen."""
    import minari

    dataset_id = f"schnauz_env/{game}/expert-v0"
    os.environ["MINARI_DATASETS_PATH"] = str(root)
    command = [
        "--policies", teacher_of(game, args), "--game", game, "--games", str(args.games),
        "--seed", str(args.data_seed), "--workers", str(args.workers),
        "--minari-id", dataset_id, "--minari-root", str(root),
    ]  # fmt: skip
    t = time.time()
    if dataset_id not in minari.list_local_datasets():
        print("python -m training.datasets " + " ".join(command), flush=True)
        datasets_main(command)
    built = time.time() - t
    dataset = minari.load_dataset(dataset_id)
    first = next(iter(dataset.iterate_episodes()))
    mask = np.asarray(first.infos["action_mask"], dtype=bool)
    t_steps = len(first.actions)
    masks_ok = (
        mask.shape[0] == t_steps + 1
        and bool(mask[np.arange(t_steps), np.asarray(first.actions)].all())
        and not mask[-1].any()
    )
    env = dataset.recover_environment()
    env.reset(seed=0)
    env.step(int(np.flatnonzero(env.unwrapped.action_masks())[0]))
    env.close()
    seen = {
        "id": dataset_id,
        "command": "python -m training.datasets " + " ".join(command[:-2]),
        "build_seconds": round(built, 1),
        "episodes": dataset.total_episodes,
        "steps": dataset.total_steps,
        "masks_in_infos": masks_ok,
        "recovered_env": env.spec.id,
    }
    return dataset_id, seen


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--games", type=int, default=1000)
    p.add_argument("--held-out", type=int, default=100)
    p.add_argument("--data-seed", type=int, default=2, help="seed of both training sets")
    p.add_argument(
        "--workers", type=int, default=2,
        help="processes for self-play (the held-out games depend on it: keep it across runs)",
    )  # fmt: skip
    p.add_argument("--teacher", default="auto", help="the expert (auto: expert-jit for Schnauz)")
    p.add_argument("--epochs", type=int, default=5)
    p.add_argument(
        "--seeds", type=int, nargs="+", default=[0, 1, 2], help="cloning seeds (init and batches)"
    )
    p.add_argument("--game", nargs="+", default=["thirteen", "schnauz", "scat"])
    p.add_argument("--work", default="runs/dataset_cloning", help="datasets kept here")
    p.add_argument(
        "--reference-seed", type=int, default=None,
        help="also T2: today's teacher data from this seed (the noise between two datasets)",
    )  # fmt: skip
    p.add_argument("--sets", nargs="+", default=None, help="clone only these (T, M, T2)")
    p.add_argument("--out", default="", help="also write the figures as JSON here")
    args = p.parse_args()
    torch.set_num_threads(1)
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    rows, summary = [], []
    for game in args.game:
        config = game_module(game).Config(num_players=4)
        features = features_for(game, config)
        dataset_id, seen = minari_dataset(game, args, work / "minari")
        print(json.dumps({"game": game, "minari": seen}), flush=True)
        teacher = work / f"{game}_{teacher_of(game, args)}_{args.games}_s{args.data_seed}.npz"
        t = time.time()
        if not teacher.exists():
            data = collect(
                teacher_of(game, args), game, config, args.games, args.data_seed, args.workers
            )
            save_npz(teacher, data)
        print(f"{game}: teacher data {time.time() - t:.0f} s", flush=True)
        size = game_module(game).ObservationEncoder(config).size
        sets = {
            "T": load_data([str(teacher)], obs_size=size),
            "M": load_data([dataset_id], obs_size=size),
        }
        n = min(len(d["obs"]) for d in sets.values())
        if args.reference_seed is not None:
            # T2: today's path from another seed, the noise between two datasets of one kind
            # (cut to the same n when it has as many decisions).
            other = (
                work / f"{game}_{teacher_of(game, args)}_{args.games}_s{args.reference_seed}.npz"
            )
            if not other.exists():
                data = collect(
                    teacher_of(game, args), game, config, args.games, args.reference_seed,
                    args.workers,
                )  # fmt: skip
                save_npz(other, data)
            sets["T2"] = load_data([str(other)], obs_size=size)
        decisions = {k: len(d["obs"]) for k, d in sets.items()}
        wanted = args.sets or list(sets)
        sets = {k: with_features(cut(d, n), features) for k, d in sets.items() if k in wanted}
        held = with_features(
            collect(
                teacher_of(game, args), game, config, args.held_out, seed=3, workers=args.workers
            ),
            features,
        )
        acc: dict[str, dict[str, list[float]]] = {k: {"train": [], "held": []} for k in sets}
        for seed in args.seeds:
            for name, data in sets.items():
                model = fresh_model(game, config, features, seed=seed)
                t = time.time()
                train = pretrain(model, data, epochs=args.epochs, seed=seed)[-1]
                hits = held_out_hits(model, held)
                low, high = wilson_interval(hits, len(held["obs"]))
                row = {
                    "game": game,
                    "data": name,
                    "seed": seed,
                    "decisions": len(data["obs"]),
                    "train_accuracy": round(train, 4),
                    "held_out_accuracy": round(hits / len(held["obs"]), 4),
                    "held_out_wilson95": [round(low, 4), round(high, 4)],
                    "held_out_decisions": len(held["obs"]),
                    "seconds": round(time.time() - t, 1),
                }
                rows.append(row)
                acc[name]["train"].append(train)
                acc[name]["held"].append(hits / len(held["obs"]))
                print(json.dumps(row), flush=True)
        line = {
            "game": game,
            "games": args.games,
            "teacher": teacher_of(game, args),
            "decisions_each": n,
            "decisions_before_cut": decisions,
            "held_out_decisions": len(held["obs"]),
            "seeds": args.seeds,
            "minari": seen,
        }
        for name in sets:
            line[name] = {
                "train": mean_interval(acc[name]["train"]),
                "held_out": mean_interval(acc[name]["held"]),
            }
        for name in ("M", "T2"):
            if name not in sets or "T" not in sets:
                continue
            for kind in ("train", "held"):
                diff = [a - b for a, b in zip(acc[name][kind], acc["T"][kind], strict=True)]
                line[f"{name}-T {kind}"] = mean_interval(diff)
        summary.append(line)
        print(json.dumps(line), flush=True)
        del sets, held
    print(json.dumps(summary, indent=1))
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"runs": rows, "summary": summary}, f, indent=2)


if __name__ == "__main__":
    main()
