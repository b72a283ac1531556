"""Deprecated: the evaluation harness moved to :mod:`policies.evaluation`.

``from policies.evaluate import evaluate`` keeps working for one version with a
``DeprecationWarning``; import from :mod:`policies.evaluation` instead (the command is
:func:`policies.evaluation.cli.main`, ``schnauz-eval``).
"""

from __future__ import annotations

import importlib
import warnings
from typing import Any

#: Where each name of the old module lives now.
_MOVED = {
    "PolicySpec": "runner",
    "GameRecord": "runner",
    "play_game": "runner",
    "Matchup": "schedule",
    "rotations": "schedule",
    "make_schedule": "schedule",
    "PolicyStats": "report",
    "PairStats": "report",
    "EvalResult": "report",
    "summarize": "report",
    "evaluate": "harness",
    "build_parser": "cli",
    "main": "cli",
}

__all__ = sorted(_MOVED)


def _moved(name: str, stacklevel: int) -> Any:
    module = f"policies.evaluation.{_MOVED[name]}"
    where = "policies.evaluation" if _MOVED[name] != "cli" else module
    warnings.warn(
        f"policies.evaluate.{name} moved: import it from {where}",
        DeprecationWarning,
        stacklevel=stacklevel + 1,
    )
    # By name, not an import statement: the project's own code imports the new path only.
    return getattr(importlib.import_module(module), name)


def __getattr__(name: str) -> Any:
    if name in _MOVED:
        return _moved(name, stacklevel=2)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


if __name__ == "__main__":
    raise SystemExit(_moved("main", stacklevel=1)())
