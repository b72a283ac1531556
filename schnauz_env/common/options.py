"""Building a frozen rules config from keyword options, with errors that say what is allowed."""

from __future__ import annotations

from dataclasses import fields
from typing import Any, TypeVar

C = TypeVar("C")


def make_config(
    config_cls: type[C], options: dict[str, Any], game: str, extra: tuple[str, ...] = ()
) -> C:
    """``config_cls(**options)``, raising ``ValueError`` that lists the allowed options
    (plus ``extra``, e.g. ``render_mode``) for an unknown one."""
    allowed = [f.name for f in fields(config_cls)]  # type: ignore[arg-type]
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        raise ValueError(
            f"unknown {game} option(s): {', '.join(unknown)}; allowed options: "
            f"{', '.join([*allowed, *extra])}"
        )
    return config_cls(**options)
