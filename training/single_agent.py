"""Deprecated: the single-agent view moved to :mod:`schnauz_env.wrappers.single_agent`.

This shim keeps the old call working for one version: opponents given as names or
model files are resolved by :class:`policies.pool.OpponentPool`.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

from policies.pool import OpponentPool
from schnauz_env.wrappers.pool import PlayerPool
from schnauz_env.wrappers.single_agent import SingleAgentEnv as _SingleAgentEnv

warnings.warn(
    "training.single_agent is deprecated; use schnauz_env.wrappers.SingleAgentEnv with "
    "policies.pool.OpponentPool for named opponents",
    DeprecationWarning,
    stacklevel=2,
)


class SingleAgentEnv(_SingleAgentEnv):
    """:class:`schnauz_env.wrappers.SingleAgentEnv`, with opponents by name (deprecated)."""

    def __init__(
        self,
        game: str = "schnauz",
        rules: dict[str, Any] | None = None,
        table_sizes: Sequence[int] = (4,),
        opponents: Sequence[Any] | PlayerPool = ("random",),
        weights: Sequence[float] | None = None,
        **kwargs: Any,
    ) -> None:
        if not isinstance(opponents, PlayerPool):
            opponents, weights = OpponentPool(opponents, weights, game=game), None
        super().__init__(game, rules, table_sizes, opponents, weights, **kwargs)


__all__ = ["SingleAgentEnv"]
