"""Stable-Baselines3 ``VecEnv``s over the batched engines (floor 3): one learner seat per game.

    from schnauz_env.vector import SchnauzVecEnv

The opponents are computed in the engine's kernels (``"random"``, ``"greedy"``) or
passed in as a policy object or a callable; players by name (``"expert"``, a model
file) are resolved one floor up, by :func:`policies.make_policy` or
:class:`policies.pool.OpponentPool`. Needs stable-baselines3, imported on first use.
"""

from __future__ import annotations

from typing import Any

__all__ = ["SchnauzVecEnv"]


def __getattr__(name: str) -> Any:
    if name == "SchnauzVecEnv":
        from schnauz_env.vector.schnauz import SchnauzVecEnv

        return SchnauzVecEnv
    raise AttributeError(f"module 'schnauz_env.vector' has no attribute {name!r}")
