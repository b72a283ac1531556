"""Find a player by name: :func:`make_policy` and :func:`available_policies`.

Every player module registers its policies with :func:`policies.base.register_policy`
when it is imported; this module imports them all, so the registry is complete as soon
as :mod:`policies` is imported. A name is a registered name, optionally with an argument
after a colon (``"ismcts:200"``, ``"expert:knock_share=0.5"``), or the path of a model
file (:mod:`policies.mlp`).
"""

from __future__ import annotations

import os
from typing import Any

# Imported for their registrations.
from policies import (  # noqa: F401
    expert_jit,
    ismcts,
    mlp,
    pimc,
    scat,
    scat_expert_jit,
    schnauz,
    thirteen,
    thirteen_expert_jit,
)
from policies.base import REGISTRY, Policy
from policies.mlp import load_model_policy


def available_policies(game: str = "schnauz") -> list[str]:
    """Names that :func:`make_policy` accepts for ``game`` (besides model file paths)."""
    return sorted(name for g, name in REGISTRY if g == game)


def make_policy(
    name: str, game: str = "schnauz", config: Any = None, seed: int | None = None, **kwargs: Any
) -> Policy:
    """Build the policy called ``name`` for ``game`` under ``config`` (default rules if None).

    ``name`` is a registered name (see :func:`available_policies`), optionally with
    parameters after a colon understood by that policy (e.g. ``"ismcts:200"``), or
    the path of a saved model file. Raises ``ValueError`` listing the known names.
    """
    base, _, arg = name.partition(":")
    factory = REGISTRY.get((game, base))
    if factory is None:
        if os.path.exists(name) or name.endswith((".npz", ".zip")):
            return load_model_policy(name, game=game, config=config, seed=seed)
        raise ValueError(
            f"unknown {game} policy {name!r}; known: {', '.join(available_policies(game))} "
            "or a model file path"
        )
    if arg:
        kwargs["arg"] = arg
    return factory(config=config, seed=seed, **kwargs)
