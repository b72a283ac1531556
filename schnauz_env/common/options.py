"""Rules configs: what every game's frozen config offers, and building one from keyword
options, with errors that say what is allowed."""

from __future__ import annotations

from dataclasses import asdict, fields
from typing import Any, ClassVar, TypeVar

C = TypeVar("C")
R = TypeVar("R", bound="RulesConfig")


def is_int(value: Any) -> bool:
    """An ``int`` that is not a ``bool``."""
    return isinstance(value, int) and not isinstance(value, bool)


class RulesConfig:
    """Base of the games' frozen config dataclasses: conversion to and from a dict and
    the ``ValueError`` of an invalid option. A subclass names its game in ``game_name``."""

    game_name: ClassVar[str]

    def invalid(self, name: str, allowed: str) -> ValueError:
        """The error for option ``name`` (its current value shown); ``allowed`` says what is."""
        return ValueError(
            f"invalid {self.game_name} option {name}={getattr(self, name)!r}: {allowed}"
        )

    def check_flags(self, *names: str) -> None:
        """``ValueError`` unless each option in ``names`` is ``True`` or ``False``."""
        for name in names:
            if not isinstance(getattr(self, name), bool):
                raise self.invalid(name, "must be True or False")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)  # type: ignore[call-overload]

    @classmethod
    def from_dict(cls: type[R], data: dict[str, Any]) -> R:
        known = {f.name for f in fields(cls)}  # type: ignore[arg-type]
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(
                f"unknown {cls.game_name} option(s) {', '.join(unknown)}; "
                f"allowed: {', '.join(sorted(known))}"
            )
        return cls(**data)

    @classmethod
    def option_names(cls) -> list[str]:
        return [f.name for f in fields(cls)]  # type: ignore[arg-type]


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
