"""Stable-Baselines3 ``VecEnv``s over the batched engines (floor 3): one learner seat per game.

    from schnauz_env.vector import ScatVecEnv, SchnauzVecEnv, ThirteenVecEnv

One class per game, on one base (:class:`schnauz_env.vector.base.BatchedVecEnv`: seats,
opponents, stepping, the SB3 plumbing); each game's compiled loop sits beside its
engine (``schnauz_env.batched.<game>``). :func:`vec_env_class` finds a game's class by
name.

The opponents are computed in the engine's kernels (``"random"``, ``"greedy"``) or
passed in as a policy object or a callable; players by name (``"expert"``, a model
file) are resolved one floor up, by :func:`policies.make_policy` or
:class:`policies.pool.OpponentPool`. Needs stable-baselines3, imported on first use.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

__all__ = ["ScatVecEnv", "SchnauzVecEnv", "ThirteenVecEnv", "vec_env_class"]

#: Each class's module, by class name and by game.
_MODULES = {"SchnauzVecEnv": "schnauz", "ScatVecEnv": "scat", "ThirteenVecEnv": "thirteen"}
_CLASSES = {game: name for name, game in _MODULES.items()}


def vec_env_class(game: str) -> type:
    """The batched ``VecEnv`` class of ``game`` (``"schnauz"``, ``"scat"``, ``"thirteen"``)."""
    if game not in _CLASSES:
        raise ValueError(f"no batched VecEnv for game {game!r}; games: {', '.join(_CLASSES)}")
    return __getattr__(_CLASSES[game])


def __getattr__(name: str) -> Any:
    if name in _MODULES:
        module = import_module(f"schnauz_env.vector.{_MODULES[name]}")
        return getattr(module, name)
    raise AttributeError(f"module 'schnauz_env.vector' has no attribute {name!r}")
