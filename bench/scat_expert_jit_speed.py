"""The compiled Scat expert against the Python one, side by side in one run.

    python bench/scat_expert_jit_speed.py                    # moves and feature rows
    python bench/scat_expert_jit_speed.py --train 20000      # and two short training runs

The states are the decisions met in seeded games between experts. Both players then decide every state: ``expert`` one ``act`` call
per state, ``expert-jit`` one ``act_batch`` call per batch; the ``scat-expert-v1``
features of the same states are computed row by row in Python (the reference,
``RowFeatures.rows``) and by the compiled kernel, a batch a call. The compiled side
runs once before it is timed (the first run compiles the kernels and caches them).

``--train N`` also runs ``python -m training.train --game scat --preset strong`` for
``N`` steps twice, without cloning and with a 4-game final evaluation: against
``expert`` opponents with the Python features (the old path), and against
``expert-jit`` opponents with the compiled features. Each rate is the env-steps per
second of the run's PPO loop after its first rollout (read off SB3's ``time/fps``,
so start-up and compilation do not count).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from policies.base import RowFeatures
from policies.scat import ExpertPolicy
from policies.scat_expert_jit import ScatExpertJitPolicy
from policies.scat_features import ScatExpertFeatures
from schnauz_env.scat import ScatConfig
from training.datasets import build_dataset, selfplay_records

#: Runs training.train with the Python feature rows (what scat-expert-v1 computed before
#: the compiled kernel), the command line's arguments passed on.
PYTHON_FEATURES = """
import runpy, sys
import policies.base, policies.scat_features
policies.scat_features.ScatExpertFeatures.rows = policies.base.RowFeatures.rows
sys.argv = ["training.train", *sys.argv[1:]]
runpy.run_module("training.train", run_name="__main__", alter_sys=True)
"""


def game_states(config: ScatConfig, games: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The observations and masks of every decision of ``games`` games of experts (its
    compiled copy plays the same moves, faster)."""
    records = selfplay_records(
        ["expert-jit"], game="scat", players=config.num_players, games=games, seed=seed, workers=1
    )
    data = build_dataset(records)
    return data["obs"], data["masks"].astype(np.int8)


def per_item(fn, items: int) -> float:
    """Microseconds per item of one call of ``fn``."""
    t = time.perf_counter()
    fn()
    return (time.perf_counter() - t) / items * 1e6


def steady_rate(run: Path) -> float:
    """Env-steps per second of a run's PPO loop after its first rollout (from SB3's
    cumulative ``time/fps``)."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    (events,) = run.glob("tb/**/events.*")
    acc = EventAccumulator(str(events))
    acc.Reload()
    points = [(e.step, e.step / e.value) for e in acc.Scalars("time/fps")]
    (s0, t0), (s1, t1) = points[0], points[-1]
    return (s1 - s0) / (t1 - t0)


def train_rate(steps: int, opponents: str, python_features: bool, run_dir: Path) -> float:
    """The steady env-steps/s of a short ``--preset strong`` Scat run."""
    name = f"{opponents}-{'py' if python_features else 'jit'}"
    args = [
        "--game", "scat", "--preset", "strong", "--opponents", opponents,
        "--features", "scat-expert-v1", "--total-steps", str(steps), "--pretrain-teacher", "",
        "--eval-every", "0", "--eval-games", "4", "--run-dir", str(run_dir), "--run-name", name,
    ]  # fmt: skip
    head = ["-c", PYTHON_FEATURES] if python_features else ["-m", "training.train"]
    subprocess.run([sys.executable, *head, *args], check=True, stdout=subprocess.DEVNULL)
    return steady_rate(run_dir / name)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=20, help="games of experts to decide again")
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--train", type=int, default=0, help="steps of each training run (0: none)")
    args = ap.parse_args()
    config = ScatConfig(num_players=args.players)
    obs, masks = game_states(config, args.games, args.seed)
    n, b = len(obs), args.batch

    expert = ExpertPolicy(config, seed=1)
    py = per_item(lambda: [expert.act(o, m) for o, m in zip(obs, masks, strict=True)], n)
    jit = ScatExpertJitPolicy(config, seed=1)
    jit.act_batch(obs[:b], masks[:b])  # warm-up (compiles once)
    jt = per_item(
        lambda: [jit.act_batch(obs[i : i + b], masks[i : i + b]) for i in range(0, n, b)], n
    )

    feats = ScatExpertFeatures(config)
    seeds, out = feats.seeds(obs), np.zeros((n, feats.size), dtype=np.float32)
    fpy = per_item(lambda: RowFeatures.rows(feats, obs, seeds, out), n)
    feats.features(obs[:b])  # warm-up
    fjt = per_item(lambda: [feats.features(obs[i : i + b]) for i in range(0, n, b)], n)

    print(
        f"{n} states, {args.players} players, batch {b}\n"
        f"moves     expert {1e6 / py:9.0f}/s ({py:7.1f} us)   expert-jit {1e6 / jt:9.0f}/s "
        f"({jt:6.1f} us)   {py / jt:5.1f}x\n"
        f"features  python {1e6 / fpy:9.0f}/s ({fpy:7.1f} us)   compiled   {1e6 / fjt:9.0f}/s "
        f"({fjt:6.1f} us)   {fpy / fjt:5.1f}x  (scat-expert-v1 rows)"
    )
    if args.train:
        with tempfile.TemporaryDirectory() as tmp:
            old = train_rate(args.train, "expert", True, Path(tmp))
            new = train_rate(args.train, "expert-jit", False, Path(tmp))
        print(
            f"training  expert + python features {old:7.0f} env-steps/s   "
            f"expert-jit + compiled features {new:7.0f} env-steps/s   {new / old:5.1f}x"
        )


if __name__ == "__main__":
    main()
