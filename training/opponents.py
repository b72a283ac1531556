"""Deprecated: the pieces of this module moved (importing it warns).

* ``OpponentMix`` -> :class:`policies.pool.OpponentPool` (``num_games=...``), the one
  seeded opponent pool;
* ``FeatureVecEnv`` -> :class:`schnauz_env.wrappers.vec_env.FeatureVecEnv`;
* ``LivesRewardVecEnv``, ``WinChanceRewardVecEnv``, ``WinRewardVecEnv``,
  ``fair_win_chance`` -> :mod:`training.rewards`.

The old names keep working for one version.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

from policies.pool import OpponentPool
from schnauz_env.wrappers.vec_env import FeatureVecEnv
from training.rewards import (
    LivesRewardVecEnv,
    WinChanceRewardVecEnv,
    WinRewardVecEnv,
    fair_win_chance,
)

warnings.warn(
    "training.opponents is deprecated: OpponentMix is policies.pool.OpponentPool, "
    "FeatureVecEnv is in schnauz_env.wrappers.vec_env, the reward wrappers and "
    "fair_win_chance in training.rewards",
    DeprecationWarning,
    stacklevel=2,
)

__all__ = [
    "FeatureVecEnv",
    "LivesRewardVecEnv",
    "OpponentMix",
    "WinChanceRewardVecEnv",
    "WinRewardVecEnv",
    "fair_win_chance",
]


class OpponentMix(OpponentPool):
    """Deprecated alias of :class:`policies.pool.OpponentPool` for batched games, with the
    old argument order ``(pool, config, num_games, weights, seed, workers, parallel)``."""

    def __init__(
        self,
        pool: Sequence[str],
        config: Any,
        num_games: int,
        weights: Sequence[float] | None = None,
        seed: int = 0,
        workers: int = 0,
        parallel: Sequence[str] = ("expert", "ismcts"),
    ) -> None:
        warnings.warn(
            "training.opponents.OpponentMix is deprecated; use policies.pool.OpponentPool("
            "opponents, weights, config=..., num_games=..., seed=..., workers=...)",
            DeprecationWarning,
            stacklevel=2,
        )
        super().__init__(
            pool,
            weights,
            config=config,
            seed=seed,
            num_games=num_games,
            workers=workers,
            parallel=parallel,
        )
