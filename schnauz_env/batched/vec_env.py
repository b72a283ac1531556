"""Deprecated: :class:`SchnauzVecEnv` moved to :mod:`schnauz_env.vector` (floor 3, above the
batched engines). This path keeps working for one version, with a ``DeprecationWarning``.
"""

from __future__ import annotations

import warnings
from importlib import import_module
from typing import Any


def __getattr__(name: str) -> Any:
    if name in ("SchnauzVecEnv", "OpponentFn"):
        warnings.warn(
            f"schnauz_env.batched.vec_env is deprecated: import {name} from schnauz_env.vector",
            DeprecationWarning,
            stacklevel=2,
        )
        return getattr(import_module("schnauz_env.vector.schnauz"), name)
    raise AttributeError(f"module 'schnauz_env.batched.vec_env' has no attribute {name!r}")
