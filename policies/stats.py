"""Deprecated: the evaluation statistics moved to :mod:`policies.evaluation.stats`.

``from policies.stats import wilson_interval`` keeps working for one version with a
``DeprecationWarning``; import from :mod:`policies.evaluation.stats` instead.
"""

from __future__ import annotations

import importlib
import warnings
from typing import Any

_MOVED = ("Rating", "mean_interval", "plackett_luce_ratings", "wilson_interval")

__all__ = list(_MOVED)


def __getattr__(name: str) -> Any:
    if name in _MOVED:
        warnings.warn(
            f"policies.stats.{name} moved: import it from policies.evaluation.stats",
            DeprecationWarning,
            stacklevel=2,
        )
        return getattr(importlib.import_module("policies.evaluation.stats"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
