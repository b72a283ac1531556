"""Fast checkpoint evaluation on the batched engine: a model against three batched opponents.

    python -m training.quick_eval runs/g5/checkpoints/step_*.npz --games 4000 --seed 123
    python -m training.quick_eval model.npz --rules knock_in_first_circle=false

Each model file plays one seat (drawn per game) of ``--games`` 4-player games against
``--opponent`` at every other seat (default ``expert-jit``), all games at once in
:class:`schnauz_env.vector.SchnauzVecEnv`. It prints the model's win rate with a 95%
Wilson interval, its mean place and the lives it lost per game. The deals are the same
for every model (same seed), but the games are *not* duplicate deals with rotated seats
as in ``schnauz-eval``: use this to compare many checkpoints in seconds, and
``schnauz-eval`` for the figures you report.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import numpy as np
from tyro.conf import Positional, arg

from policies import make_policy
from policies.evaluation.stats import wilson_interval
from policies.mlp import load_model_policy
from schnauz_env.common.options import parse_rules
from schnauz_env.schnauz import SchnauzConfig
from schnauz_env.vector import SchnauzVecEnv
from training.args import fail, parse_args
from training.rewards import LivesRewardVecEnv


def quick_eval(
    path: str,
    games: int = 4000,
    seed: int = 123,
    opponent: str = "expert-jit",
    envs: int = 500,
    rules: dict[str, Any] | None = None,
) -> dict[str, float]:
    """Win rate, its 95% interval, mean place and lives lost per game of model ``path``
    (4-player Schnauz under rule options ``rules``, default the standard rules)."""
    config = SchnauzConfig(num_players=4, **(rules or {}))
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


@dataclass
class Args:
    """Fast checkpoint evaluation on the batched engine: a model against three batched opponents."""

    models: Annotated[Positional[tuple[str, ...]], arg(metavar="MODEL.npz ...")]
    """model files"""
    games: int = 4000
    """games per model"""
    seed: int = 123
    """seed of the deals"""
    opponent: str = "expert-jit"
    """the other three seats"""
    rules: tuple[str, ...] = ()
    """rule options as key=value (e.g. knock_in_first_circle=false); 4 players"""


def main(argv: list[str] | None = None) -> None:
    prog = "python -m training.quick_eval"
    args = parse_args(Args, argv, Args.__doc__, prog)
    if not args.models:
        fail(prog, "name at least one model file")
    if args.games < 1:
        fail(prog, f"--games must be at least 1, got {args.games}")
    if args.seed < 0:
        fail(prog, f"--seed must be >= 0, got {args.seed}")
    for path in args.models:
        if not Path(path).is_file():
            fail(prog, f"{path!r} is not a file")
    try:
        rules = parse_rules(SchnauzConfig, args.rules)
        config = SchnauzConfig(num_players=4, **rules)
        make_policy(args.opponent, game="schnauz", config=config, seed=0)
        for path in args.models:  # every file read before the first is played
            load_model_policy(path, "schnauz", config)
    except (ValueError, TypeError) as err:
        fail(prog, str(err))
    for path in args.models:
        start = time.perf_counter()
        r = quick_eval(path, args.games, args.seed, args.opponent, rules=rules)
        print(
            f"{path}: win {r['win_rate']:.3f} [{r['low']:.3f}, {r['high']:.3f}]  "
            f"mean place {r['mean_place']:.3f}  lives lost/game {r['lives_per_game']:.3f}  "
            f"({time.perf_counter() - start:.0f} s)",
            flush=True,
        )


if __name__ == "__main__":
    main()
