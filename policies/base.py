"""The one policy interface, and the registry that finds policies by name.

A policy plays one seat of one game. It sees exactly what the environment shows
that seat: the observation vector and the action mask (``observe(agent)`` of the
AEC env), and returns a legal action. Policies are built for a rules config (so
scripted ones can decode the observation) and a seed (their only randomness).

    from policies import make_policy
    from schnauz_env.schnauz import SchnauzConfig

    policy = make_policy("greedy", game="schnauz", config=SchnauzConfig(), seed=0)
    action = policy.act(obs["observation"], obs["action_mask"])
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np


class Policy:
    """Base class: override :meth:`act`; :meth:`act_batch` loops unless overridden."""

    #: Registry name, e.g. ``"greedy"``.
    name: str = "policy"
    #: The game this policy plays: ``"schnauz"``, ``"scat"`` or ``"thirteen"``.
    game: str = "schnauz"

    def __init__(self, config: Any, seed: int | None = None) -> None:
        self.config = config
        self.rng = np.random.default_rng(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """A legal action for the seat whose observation and mask are given."""
        raise NotImplementedError

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """Actions for a batch of ``(B, obs)`` observations and ``(B, A)`` masks."""
        return np.array(
            [self.act(o, m) for o, m in zip(observations, action_masks, strict=True)],
            dtype=np.int64,
        )

    def reset(self, seed: int | None = None) -> None:
        """Called at the start of a game; reseeds the policy when ``seed`` is given."""
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r}, game={self.game!r})"


PolicyFactory = Callable[..., Policy]
_REGISTRY: dict[tuple[str, str], PolicyFactory] = {}


def register_policy(game: str, name: str) -> Callable[[PolicyFactory], PolicyFactory]:
    """Class decorator: make a policy findable as ``make_policy(name, game=game)``."""

    def deco(factory: PolicyFactory) -> PolicyFactory:
        _REGISTRY[(game, name)] = factory
        return factory

    return deco


def _load_builtin() -> None:
    # Importing the modules registers their policies.
    import importlib

    for module in ("policies.schnauz", "policies.scat", "policies.thirteen", "policies.models"):
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as err:
            if err.name != module:
                raise


def available_policies(game: str = "schnauz") -> list[str]:
    """Names that :func:`make_policy` accepts for ``game`` (besides model file paths)."""
    _load_builtin()
    return sorted(name for g, name in _REGISTRY if g == game)


def make_policy(
    name: str, game: str = "schnauz", config: Any = None, seed: int | None = None, **kwargs: Any
) -> Policy:
    """Build the policy called ``name`` for ``game`` under ``config`` (default rules if None).

    ``name`` is a registered name (see :func:`available_policies`), optionally with
    parameters after a colon understood by that policy (e.g. ``"ismcts:200"``), or
    the path of a saved model file. Raises ``ValueError`` listing the known names.
    """
    _load_builtin()
    base, _, arg = name.partition(":")
    factory = _REGISTRY.get((game, base))
    if factory is None:
        import os

        if os.path.exists(name) or name.endswith((".npz", ".zip")):
            from policies.models import load_model_policy  # provided by the training issue

            return load_model_policy(name, game=game, config=config, seed=seed)
        raise ValueError(
            f"unknown {game} policy {name!r}; known: {', '.join(available_policies(game))} "
            "or a model file path"
        )
    if arg:
        kwargs["arg"] = arg
    return factory(config=config, seed=seed, **kwargs)
