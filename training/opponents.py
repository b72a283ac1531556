"""Deprecated: the pieces of this module moved.

* ``OpponentMix`` -> :class:`policies.pool.OpponentPool` (``num_games=...``), the one
  seeded opponent pool;
* ``FeatureVecEnv`` -> :class:`schnauz_env.wrappers.vec_env.FeatureVecEnv`;
* ``LivesRewardVecEnv``, ``WinChanceRewardVecEnv``, ``WinRewardVecEnv``,
  ``fair_win_chance`` -> :mod:`training.rewards`.

The old names keep working for one version, with a ``DeprecationWarning``.
"""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Sequence
from typing import Any

from policies.pool import OpponentPool

_MOVED = {
    "FeatureVecEnv": "schnauz_env.wrappers.vec_env",
    "LivesRewardVecEnv": "training.rewards",
    "WinChanceRewardVecEnv": "training.rewards",
    "WinRewardVecEnv": "training.rewards",
    "fair_win_chance": "training.rewards",
}


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


def __getattr__(name: str) -> Any:
    if name in _MOVED:
        warnings.warn(
            f"training.opponents.{name} is deprecated; use {_MOVED[name]}.{name}",
            DeprecationWarning,
            stacklevel=2,
        )
        return getattr(importlib.import_module(_MOVED[name]), name)
    raise AttributeError(f"module 'training.opponents' has no attribute {name!r}")
