"""Deprecated: the Schnauz kernels live in the package :mod:`schnauz_env.batched.schnauz`.

``state`` (array layout), ``rules`` (deal, move, showdown), ``encode`` (masks and
views), ``bots`` (random and greedy), ``loop`` (the ``k_*`` kernels); action ids,
phases and the hand-key layout are the rules floor's (:mod:`schnauz_env.schnauz.engine`,
:mod:`schnauz_env.schnauz.hands`). Every name of the old module still resolves here,
for one version, with a ``DeprecationWarning`` naming its new module.
"""

from __future__ import annotations

import warnings
from importlib import import_module
from typing import Any

_HOMES = (
    "schnauz_env.batched.schnauz.state",
    "schnauz_env.batched.schnauz.rules",
    "schnauz_env.batched.schnauz.encode",
    "schnauz_env.batched.schnauz.bots",
    "schnauz_env.batched.schnauz.loop",
    "schnauz_env.batched.common",
    "schnauz_env.schnauz.engine",
    "schnauz_env.schnauz.hands",
    "schnauz_env.schnauz.observation",
    "schnauz_env.common.places",
)


def __getattr__(name: str) -> Any:
    if not name.startswith("__"):
        for home in _HOMES:
            module = import_module(home)
            if hasattr(module, name):
                warnings.warn(
                    f"schnauz_env.batched.kernels is deprecated: import {name} from {home}",
                    DeprecationWarning,
                    stacklevel=2,
                )
                return getattr(module, name)
    raise AttributeError(f"module 'schnauz_env.batched.kernels' has no attribute {name!r}")
