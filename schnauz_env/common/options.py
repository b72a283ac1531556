"""Rules configs: what every game's frozen config offers, and building one from keyword
options, with errors that say what is allowed."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, fields
from typing import Any, ClassVar, TypeVar

import numpy as np

C = TypeVar("C")
R = TypeVar("R", bound="RulesConfig")


def is_int(value: Any) -> bool:
    """An ``int`` that is not a ``bool``."""
    return isinstance(value, int) and not isinstance(value, bool)


class RulesConfig:
    """Base of the games' frozen config dataclasses: conversion to and from a dict and
    the ``ValueError`` of an invalid option. A subclass names its game in ``game_name``."""

    game_name: ClassVar[str]

    def numpy_ints_as_ints(self) -> None:
        """Turn the options given as numpy integers into ``int`` (a frozen config keeps
        plain values: it is compared, hashed and written to model files)."""
        for f in fields(self):  # type: ignore[arg-type]
            value = getattr(self, f.name)
            if isinstance(value, np.integer):
                object.__setattr__(self, f.name, int(value))

    def invalid(self, name: str, allowed: str) -> ValueError:
        """The error for option ``name`` (its current value shown); ``allowed`` says what is."""
        return ValueError(
            f"invalid {self.game_name} option {name}={getattr(self, name)!r}: {allowed}"
        )

    def check_choice(self, name: str, allowed: str, choices: Sequence[str]) -> None:
        """``ValueError`` (saying ``allowed``) unless option ``name`` is one of the
        strings ``choices`` (a list, a number or an array is none of them)."""
        value = getattr(self, name)
        if not isinstance(value, str) or value not in choices:
            raise self.invalid(name, allowed)

    def check_int(self, name: str, allowed: str, low: int, high: int | None = None) -> None:
        """``ValueError`` (saying ``allowed``) unless option ``name`` is an ``int`` (not a
        ``bool``) from ``low`` to ``high`` (no upper bound when ``None``)."""
        value = getattr(self, name)
        if not is_int(value) or value < low or (high is not None and value > high):
            raise self.invalid(name, allowed)

    def check_flags(self, *names: str) -> None:
        """``ValueError`` unless each option in ``names`` is ``True`` or ``False``."""
        for name in names:
            if not isinstance(getattr(self, name), bool):
                raise self.invalid(name, "must be True or False")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)  # type: ignore[call-overload]

    @classmethod
    def from_dict(cls: type[R], data: Mapping[str, Any]) -> R:
        """The config of ``data`` (option name -> value, e.g. from :meth:`to_dict` or a
        model file); ``ValueError`` for anything else or an unknown option."""
        if not isinstance(data, Mapping):
            raise ValueError(
                f"{cls.game_name} rules must be a dict of options, got {type(data).__name__}"
            )
        known = {f.name for f in fields(cls)}  # type: ignore[arg-type]
        unknown = sorted((k for k in data if k not in known), key=str)
        if unknown:
            raise ValueError(
                f"unknown {cls.game_name} option(s) {', '.join(map(str, unknown))}; "
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


# --------------------------------------------------------------------------- command lines
#: Spellings of ``True`` and ``False`` on a command line (case-insensitive).
TRUE_WORDS = ("true", "yes", "on", "1")
FALSE_WORDS = ("false", "no", "off", "0")
NONE_WORDS = ("none", "null")


def _field_types(config_cls: type) -> dict[str, Any]:
    import typing

    return typing.get_type_hints(config_cls)


def parse_rule_value(config_cls: type, name: str, text: str) -> Any:
    """The value of rule ``name`` of ``config_cls`` written as ``text`` on a command line.

    The field's declared type decides: ``bool`` takes ``true``/``false`` (also
    ``yes``/``no``, ``on``/``off``, ``1``/``0``), ``int`` an integer, ``... | None``
    also ``none``, ``str`` the text itself. Anything else raises ``ValueError`` naming
    the rule and what it accepts; the config then validates the value itself.
    """
    import types
    import typing

    kind = _field_types(config_cls)[name]
    args = typing.get_args(kind)
    optional = (typing.get_origin(kind) in (typing.Union, types.UnionType)) and type(None) in args
    if optional:
        kind = next(a for a in args if a is not type(None))
    word = text.strip()
    low = word.lower()
    if optional and low in NONE_WORDS:
        return None
    if kind is bool:
        if low in TRUE_WORDS:
            return True
        if low in FALSE_WORDS:
            return False
        raise ValueError(f"rule {name}={text!r}: write true or false")
    if kind is int:
        try:
            return int(word)
        except ValueError:
            raise ValueError(
                f"rule {name}={text!r}: write an integer{' or none' if optional else ''}"
            ) from None
    return word


def parse_rules(
    config_cls: type, items: Sequence[str], exclude: tuple[str, ...] = ("num_players",)
) -> dict[str, Any]:
    """Rule options from ``key=value`` strings, typed by ``config_cls``'s fields.

    The one parser behind every command line (``schnauz play``, ``schnauz-eval``,
    ``training.train``, ``training.rllib_train``): ``knock_in_first_circle=false`` is
    ``False`` everywhere. Unknown keys, malformed items and options in ``exclude``
    (the table size has its own flag) raise ``ValueError`` saying what is allowed.
    The values are not validated here; building the config does that.
    """
    allowed = [f.name for f in fields(config_cls) if f.name not in exclude]  # type: ignore[arg-type]
    game = getattr(config_cls, "game_name", config_cls.__name__)
    rules: dict[str, Any] = {}
    for item in items:
        key, sep, value = str(item).partition("=")
        key = key.strip()
        if not sep or not key:
            raise ValueError(f"bad rule {item!r}: write rules as key=value, e.g. lives=2")
        if key in exclude:
            raise ValueError(f"{key} is not a rule option here: it has its own flag")
        if key not in allowed:
            raise ValueError(f"unknown {game} rule {key!r}; allowed: {', '.join(allowed)}")
        if key in rules:
            raise ValueError(f"rule {key} is given twice")
        rules[key] = parse_rule_value(config_cls, key, value)
    return rules


def rules_help(config_cls: type, exclude: tuple[str, ...] = ("num_players",)) -> list[str]:
    """One line per rule option of ``config_cls``: ``name=default  first line of its doc``."""
    docs = field_docs(config_cls)
    lines = []
    for f in fields(config_cls):  # type: ignore[arg-type]
        if f.name in exclude:
            continue
        default = (
            "none"
            if f.default is None
            else str(f.default).lower()
            if isinstance(f.default, bool)
            else f.default
        )
        lines.append(f"{f.name}={default}  {docs.get(f.name, '')}".rstrip())
    return lines


def field_docs(config_cls: type) -> dict[str, str]:
    """The first sentence of each field's docstring in ``config_cls``'s source."""
    import ast
    import inspect
    import itertools
    import re
    import textwrap

    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(config_cls)))
    except (OSError, TypeError):
        return {}
    docs: dict[str, str] = {}
    body = tree.body[0].body if tree.body and isinstance(tree.body[0], ast.ClassDef) else []
    for stmt, nxt in itertools.pairwise(body):
        if (
            isinstance(stmt, ast.AnnAssign)
            and isinstance(stmt.target, ast.Name)
            and isinstance(nxt, ast.Expr)
            and isinstance(nxt.value, ast.Constant)
            and isinstance(nxt.value.value, str)
        ):
            text = " ".join(nxt.value.value.split()).replace("``", "")
            text = re.sub(r"^\[choice[^\]]*\] ", "", text)
            text = text.split(". ")[0].rstrip(".")
            docs[stmt.target.id] = text if len(text) <= 90 else text[:89].rstrip() + "…"
    return docs
