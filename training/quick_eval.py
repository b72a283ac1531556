"""Fast checkpoint evaluation on the batched engine: a model against three batched opponents.

    python -m training.quick_eval runs/g5/checkpoints/step_*.npz --games 4000 --seed 123

Each model file plays one seat (drawn per game) of ``--games`` 4-player games against
``--opponent`` at every other seat (default ``expert-jit``), all games at once in
:class:`schnauz_env.batched.SchnauzVecEnv`. It prints the model's win rate with a 95%
Wilson interval, its mean place and the lives it lost per game. The deals are the same
for every model (same seed), but the games are *not* duplicate deals with rotated seats
as in ``schnauz-eval``: use this to compare many checkpoints in seconds, and
``schnauz-eval`` for the figures you report.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np


def quick_eval(
    path: str, games: int = 4000, seed: int = 123, opponent: str = "expert-jit", envs: int = 500
) -> dict[str, float]:
    """Win rate, its 95% interval, mean place and lives lost per game of model ``path``."""
    from policies import make_policy
    from policies.models import load_model_policy
    from policies.evaluation.stats import wilson_interval
    from schnauz_env.batched import SchnauzVecEnv
    from schnauz_env.schnauz import SchnauzConfig
    from training.rewards import LivesRewardVecEnv

    config = SchnauzConfig(num_players=4)
    policy = load_model_policy(path, "schnauz", config)
    opp = make_policy(opponent, game="schnauz", config=config, seed=seed + 1)
    envs = max(1, min(envs, games))
    venv = LivesRewardVecEnv(
        SchnauzVecEnv(num_envs=envs, config=config, opponent=opp.act_batch, seed=seed), config
    )
    obs = venv.reset()
    places: list[float] = []
    lives = 0.0
    while len(places) < games:
        actions = policy.act_batch(obs, venv.action_masks().astype(np.int8))
        obs, rewards, dones, infos = venv.step(actions)
        lives -= float(rewards.sum())
        places += [infos[i]["place"] for i in np.flatnonzero(dones)]
    p = np.asarray(places[:games])
    low, high = wilson_interval(int((p == 1).sum()), games)
    return {
        "win_rate": float((p == 1).mean()),
        "low": low,
        "high": high,
        "mean_place": float(p.mean()),
        "lives_per_game": lives / len(places),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m training.quick_eval", description=__doc__.split("\n")[0]
    )
    parser.add_argument("models", nargs="+", help="model files (.npz)")
    parser.add_argument("--games", type=int, default=4000, help="games per model")
    parser.add_argument("--seed", type=int, default=123, help="seed of the deals")
    parser.add_argument("--opponent", default="expert-jit", help="the other three seats")
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error("--games must be at least 1")
    for path in args.models:
        if not Path(path).is_file():
            parser.error(f"{path!r} is not a file")
    for path in args.models:
        start = time.perf_counter()
        try:
            r = quick_eval(path, args.games, args.seed, args.opponent)
        except ValueError as err:
            raise SystemExit(f"error: {path}: {err}") from None
        print(
            f"{path}: win {r['win_rate']:.3f} [{r['low']:.3f}, {r['high']:.3f}]  "
            f"mean place {r['mean_place']:.3f}  lives lost/game {r['lives_per_game']:.3f}  "
            f"({time.perf_counter() - start:.0f} s)",
            flush=True,
        )


if __name__ == "__main__":
    main()
