"""The one policy interface, and the registry every player module registers into.

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
from dataclasses import fields
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


def parse_params(arg: str, params: Any, what: str) -> dict[str, Any]:
    """The overrides of the dataclass ``params`` a name's argument gives,
    ``"knock_share=0.5,skill=9/5/1"``.

    Values take the type of the field's value in ``params``: booleans are ``1``/``true``,
    tuples ``/``-separated ints. ``ValueError`` names the known parameters when one is
    unknown; ``what`` names the player in it (``"expert"``).
    """
    known = [f.name for f in fields(params)]
    overrides: dict[str, Any] = {}
    for item in arg.split(","):
        k, _, v = item.partition("=")
        if k not in known:
            raise ValueError(f"unknown {what} parameter {k!r}; known: " + ", ".join(known))
        kind = type(getattr(params, k))
        if kind is bool:
            overrides[k] = v.lower() in ("1", "true")
        elif kind is tuple:
            overrides[k] = tuple(int(x) for x in v.split("/"))
        else:
            overrides[k] = kind(v)
    return overrides


PolicyFactory = Callable[..., Policy]
#: Every registered policy factory by ``(game, name)``, filled by :func:`register_policy`
#: when a player module is imported (:mod:`policies.registry` imports them all).
REGISTRY: dict[tuple[str, str], PolicyFactory] = {}


def register_policy(game: str, name: str) -> Callable[[PolicyFactory], PolicyFactory]:
    """Class decorator: make a policy findable as ``make_policy(name, game=game)``."""

    def deco(factory: PolicyFactory) -> PolicyFactory:
        REGISTRY[(game, name)] = factory
        return factory

    return deco


# Deprecated: make_policy and available_policies moved to policies.registry (they import
# every player module, which sit above this one). Old imports keep working for one version.
_MOVED = {"make_policy", "available_policies"}


def __getattr__(name: str) -> Any:
    if name in _MOVED:
        import importlib
        import warnings

        warnings.warn(
            f"policies.base.{name} moved: import it from policies (or policies.registry)",
            DeprecationWarning,
            stacklevel=2,
        )
        # By name, not an import statement: this shim is the one upward reference, and it
        # goes with the deprecated path.
        return getattr(importlib.import_module("policies.registry"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class RowFeatures:
    """Base of a feature set computed one observation at a time in Python: subclasses set
    ``name``, ``size`` and ``obs_size`` and write a row's block in :meth:`row`.

    A feature set is a callable ``obs_batch -> obs_batch ++ block`` (what
    :class:`~schnauz_env.wrappers.vec_env.FeatureVecEnv` and model files apply). Each
    row's ``seed`` is a hash of that observation (a fixed random projection), so a block
    with sampled numbers is still a deterministic function of what the seat sees.
    """

    name: str = "features"
    size: int = 0
    #: Whether :meth:`row` samples (and so needs its row's seed); ``False`` skips hashing.
    sampled: bool = True

    def __init__(self, config: Any, obs_size: int, seed: int = 0) -> None:
        self.config = config
        self.obs_size = obs_size
        self._mix = np.random.default_rng(seed).random(obs_size) * 2.0**20

    def seeds(self, obs: np.ndarray) -> np.ndarray:
        """The per-row seeds of a batch: a hash of each observation."""
        h = np.asarray(obs, dtype=np.float64) @ self._mix
        return (np.floor(h * 4096.0) % 2**32).astype(np.int64)

    def row(self, obs: np.ndarray, seed: int, out: np.ndarray) -> None:
        """Write the block of one observation into ``out`` (zeros on entry)."""
        raise NotImplementedError

    def features(self, obs: np.ndarray) -> np.ndarray:
        """The block of one observation or of a batch ``(B, obs_size)``."""
        obs = np.asarray(obs, dtype=np.float32)
        single = obs.ndim == 1
        batch = obs[None] if single else obs
        if batch.ndim != 2 or batch.shape[1] != self.obs_size:
            raise ValueError(f"observations of shape {obs.shape}, expected (B, {self.obs_size})")
        out = np.zeros((batch.shape[0], self.size), dtype=np.float32)
        if len(batch):
            seeds = self.seeds(batch) if self.sampled else np.zeros(len(batch), np.int64)
            self.rows(batch, seeds, out)
        return out[0] if single else out

    def rows(self, batch: np.ndarray, seeds: np.ndarray, out: np.ndarray) -> None:
        """Write the blocks of a batch into ``out`` (zeros on entry): :meth:`row` by row,
        unless a subclass computes the whole batch at once."""
        for i, (row, seed) in enumerate(zip(batch, seeds, strict=True)):
            self.row(row, int(seed), out[i])

    def __call__(self, obs: np.ndarray) -> np.ndarray:
        """``obs`` with its feature block appended (last axis)."""
        obs = np.asarray(obs, dtype=np.float32)
        return np.concatenate([obs, self.features(obs)], axis=-1)


def with_params(policy: Policy, params: dict[str, Any]) -> Policy:
    """``policy`` with ``params`` set on the instance (a feature set's frozen version of a
    scripted player's tunables: retuning the class's defaults leaves it alone)."""
    for key, value in params.items():
        setattr(policy, key, value)
    return policy
