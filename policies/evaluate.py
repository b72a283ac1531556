"""Deprecated: the evaluation harness moved to :mod:`policies.evaluation`.

``from policies.evaluate import evaluate`` keeps working for one version with a
``DeprecationWarning``; import from :mod:`policies.evaluation` instead (the command is
:func:`policies.evaluation.cli.main`, ``schnauz-eval``).
"""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Callable
from typing import Any


def moved_names(old: str, new: dict[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` for the deprecated module ``old``: each name of ``new``
    is fetched from the module ``new[name]`` with a ``DeprecationWarning`` naming it."""

    def getattr_(name: str) -> Any:
        if name not in new:
            raise AttributeError(f"module {old!r} has no attribute {name!r}")
        warnings.warn(
            f"{old}.{name} moved: import it from {new[name]}", DeprecationWarning, stacklevel=2
        )
        # By name, not an import statement: the project's own code imports the new path only.
        return getattr(importlib.import_module(new[name]), name)

    return getattr_


_API = ("EvalResult", "GameRecord", "Matchup", "PairStats", "PolicySpec", "PolicyStats")
_API += ("evaluate", "make_schedule", "play_game", "rotations", "summarize")
_MOVED = {name: "policies.evaluation" for name in _API}
_MOVED.update(build_parser="policies.evaluation.cli", main="policies.evaluation.cli")

__all__ = sorted(_MOVED)
__getattr__ = moved_names("policies.evaluate", _MOVED)

if __name__ == "__main__":
    raise SystemExit(__getattr__("main")())
