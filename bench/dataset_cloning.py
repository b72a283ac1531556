"""Behaviour cloning from a Minari dataset of expert games against today's teacher data.

For each game, three sets of ``--games`` expert self-play games at a table of four:

* A and A2: today's teacher data (``training.pretrain.collect``, seeds 1 and 11);
* M: the same number of games played through records by ``training.datasets``
  (seed 2), exported as a Minari dataset and read back by ``training.pretrain.load_data``
  through its Minari id (``minari.load_dataset`` underneath).

Each is cloned as ``training.train`` clones (MaskablePPO, MLP 128x128 tanh, the game's
``auto`` features, ``pretrain`` 5 epochs, seeds ``--seeds``), and the clone is scored on its own
data (``pretrain``'s accuracy, the README's figure) and on a common held-out set of
``--held-out`` games (collect, seed 3). A and A2 show the noise between two datasets
of the same kind, and the seeds the noise of cloning itself; M should sit within it.

    python bench/dataset_cloning.py --games 1000 --workers 2
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time

import torch

from policies.mlp import feature_transform
from policies.pool import OpponentPool
from schnauz_env.games import game_module
from schnauz_env.wrappers import SingleAgentEnv
from training.datasets import build_dataset, selfplay_records, to_minari
from training.pretrain import collect, load_data, pretrain


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


def held_out_accuracy(model, data: dict) -> float:
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
    return hits / len(data["obs"])


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--games", type=int, default=1000)
    p.add_argument("--held-out", type=int, default=200)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--epochs", type=int, default=5)
    p.add_argument(
        "--seeds", type=int, nargs="+", default=[0], help="cloning seeds (init and batches)"
    )
    p.add_argument("--game", nargs="+", default=["thirteen", "schnauz", "scat"])
    p.add_argument("--out", default="", help="also write the figures as JSON here")
    args = p.parse_args()
    torch.set_num_threads(1)
    rows = []
    root = tempfile.mkdtemp(prefix="minari_")
    for game in args.game:
        config = game_module(game).Config(num_players=4)
        features = features_for(game, config)
        t0 = time.time()
        sets = {
            "A": collect("expert", game, config, args.games, seed=1, workers=args.workers),
            "A2": collect("expert", game, config, args.games, seed=11, workers=args.workers),
        }
        t1 = time.time()
        records = selfplay_records(["expert"], game, 4, args.games, seed=2, workers=args.workers)
        data = build_dataset(records)
        dataset_id = f"schnauz_env/{game}/expert-v0"
        to_minari(data, dataset_id, root=root)
        del records, data
        os.environ["MINARI_DATASETS_PATH"] = root
        sets["M"] = load_data([dataset_id], obs_size=sets["A"]["obs"].shape[1])
        t2 = time.time()
        held = with_features(
            collect("expert", game, config, args.held_out, seed=3, workers=args.workers), features
        )
        print(
            f"{game}: two collects {t1 - t0:.0f} s, records -> Minari -> load_data {t2 - t1:.0f} s",
            flush=True,
        )
        for name, raw in sets.items():
            data = with_features(raw, features)
            for seed in args.seeds:
                model = fresh_model(game, config, features, seed=seed)
                t = time.time()
                acc = pretrain(model, data, epochs=args.epochs, seed=seed)
                row = {
                    "game": game,
                    "data": name,
                    "seed": seed,
                    "decisions": len(raw["obs"]),
                    "train_accuracy": round(acc[-1], 4),
                    "held_out_accuracy": round(held_out_accuracy(model, held), 4),
                    "held_out_decisions": len(held["obs"]),
                    "seconds": round(time.time() - t, 1),
                }
                rows.append(row)
                print(json.dumps(row), flush=True)
        del sets, held
    if args.out:
        with open(args.out, "w") as f:
            json.dump(rows, f, indent=2)


if __name__ == "__main__":
    main()
