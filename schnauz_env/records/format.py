"""The record format: one game, everything needed to reproduce it exactly, as plain data.

A :class:`Record` converts to and from a JSON-ready dict (:meth:`Record.to_dict`,
:meth:`Record.from_dict`). :meth:`Record.from_dict` checks the structure and refuses
another format or version with a :class:`RecordError` that says what it found and what
this package reads; the rules are checked when the game is built
(:meth:`Record.config`). ``docs/records.md`` documents every field.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from schnauz_env.cards import format_card
from schnauz_env.games import GAMES, game_module

_HEX = re.compile("[0-9a-f]*")
#: The ``format`` field of every record.
FORMAT = "schnauz_env-record"
#: The version of the format this package writes and reads.
VERSION = 1
#: The reset options a record's ``deal`` may hold, per game (the engines' ``new_game``).
DEAL_OPTIONS: dict[str, tuple[str, ...]] = {
    "schnauz": ("deck", "decks", "dealer", "lives"),
    "scat": ("deck", "decks", "dealer", "lives"),
    "thirteen": ("deck", "decks", "dealer", "scores"),
}


class RecordError(ValueError):
    """A record that cannot be read or replayed; the message says why.

    ``step`` is the index (in ``actions``) of the first move that differs from what the
    rules give, or ``None`` when the record is refused as a whole (another format or
    version, rules this package cannot build, a deal it refuses)."""

    def __init__(self, message: str, step: int | None = None) -> None:
        super().__init__(message)
        self.step = step


@dataclass
class Seat:
    """Who played a seat: a policy name, ``"human"``, or a model file's name with its
    SHA-256 (the file's bytes), and the policy's seed for this game if it had one."""

    policy: str
    sha256: str | None = None
    seed: int | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"policy": self.policy}
        if self.sha256 is not None:
            out["sha256"] = self.sha256
        if self.seed is not None:
            out["seed"] = self.seed
        return out


@dataclass
class Outcome:
    """How the game ended: each seat's final place (1 = best, shared places averaged;
    ``None`` for a seat without one, as in a single-round episode) and its return (what
    the environment paid it over the game)."""

    places: list[float | None]
    returns: list[float]

    def to_dict(self) -> dict[str, Any]:
        return {"places": list(self.places), "returns": list(self.returns)}


@dataclass
class Record:
    """One game (see the module docstring and ``docs/records.md``)."""

    game: str
    """``"schnauz"``, ``"scat"`` or ``"thirteen"``."""
    rules: dict[str, Any]
    """The full rules config (``config.to_dict()``, ``num_players`` included)."""
    seats: list[Seat]
    """Who played each seat, in seat order."""
    actions: list[tuple[int, int]]
    """Every move: ``(seat, action id)``, in the order played."""
    seed: int | None = None
    """The env's ``reset(seed=...)``: it fixes the first dealer and every deck."""
    deal: dict[str, Any] | None = None
    """The env's reset options (stacked ``deck``/``decks`` as card codes, ``dealer``,
    starting ``lives`` or ``scores``), for a game not fixed by a seed alone."""
    legal: list[list[int]] | None = None
    """Optional: the legal action ids at each move."""
    probs: list[list[float] | None] | None = None
    """Optional: the policy's probability of each legal move (in ``legal``'s order), or
    ``None`` at moves whose policy gives none."""
    views: str | None = None
    """Optional: a checksum of what the acting seat saw before each move (CRC-32 of its
    observation vector and action mask), 8 hex digits per move, in one string: replay
    finds the first move whose table or legal moves differ (:meth:`view`)."""
    obs_version: int | None = None
    """The game's observation version the ``views`` were taken with."""
    outcome: Outcome | None = None
    """The end of the game; ``None`` for a game that did not finish (a crash, a quit)."""
    meta: dict[str, Any] = field(default_factory=dict)
    """Free notes, never checked (where the record comes from: the command, the table
    and deal of an evaluation, an error message)."""
    version: int = VERSION

    def view(self, index: int) -> str | None:
        """The view checksum of move ``index`` (8 hex digits), if the record has them."""
        if self.views is None:
            return None
        return self.views[8 * index : 8 * index + 8]

    @property
    def num_players(self) -> int:
        return len(self.seats)

    @property
    def finished(self) -> bool:
        return self.outcome is not None

    def config(self) -> Any:
        """The rules config of the game; :class:`RecordError` if this package cannot
        build it (an unknown or missing option, a value it refuses)."""
        config_cls = game_module(self.game).Config
        known = [f.name for f in fields(config_cls)]
        missing = [k for k in known if k not in self.rules]
        if missing:
            raise RecordError(
                f"the record's {self.game} rules lack option(s) {', '.join(missing)}: a record "
                "holds the full rules config (written by another package version?)"
            )
        try:
            config = config_cls.from_dict(self.rules)
        except (TypeError, ValueError) as err:
            raise RecordError(f"this package cannot build the record's rules: {err}") from None
        if config.num_players != len(self.seats):
            raise RecordError(
                f"the rules say num_players={config.num_players} but the record has "
                f"{len(self.seats)} seats"
            )
        return config

    def to_dict(self) -> dict[str, Any]:
        """The record as JSON-ready data, keys in the documented order, optional parts
        left out when absent."""
        out: dict[str, Any] = {"format": FORMAT, "version": self.version, "game": self.game}
        out["rules"] = dict(self.rules)
        if self.seed is not None:
            out["seed"] = self.seed
        if self.deal is not None:
            out["deal"] = self.deal
        out["seats"] = [s.to_dict() for s in self.seats]
        out["actions"] = [[s, a] for s, a in self.actions]
        for name in ("legal", "probs", "views", "obs_version"):
            value = getattr(self, name)
            if value is not None:
                out[name] = value
        if self.outcome is not None:
            out["outcome"] = self.outcome.to_dict()
        if self.meta:
            out["meta"] = self.meta
        return out

    @classmethod
    def from_dict(cls, data: Any) -> Record:
        """The record held by ``data`` (parsed JSON); :class:`RecordError` saying what
        is wrong otherwise: another format or version, a missing or malformed field."""
        if not isinstance(data, Mapping):
            raise RecordError(f"a record is a JSON object, got {type(data).__name__}")
        if data.get("format") != FORMAT:
            raise RecordError(
                f"not a schnauz_env game record: format is {data.get('format')!r}, "
                f"expected {FORMAT!r}"
            )
        version = data.get("version")
        if version != VERSION:
            raise RecordError(
                f"record format version {version!r}: this package reads version {VERSION} "
                + ("(the record is newer: upgrade schnauz_env)" if _newer(version) else "")
            )
        game = data.get("game")
        if game not in GAMES:
            raise RecordError(f"unknown game {game!r}; known games: {', '.join(GAMES)}")
        rules = _field(data, "rules", Mapping, "a dict of rule options")
        seats_data = _field(data, "seats", list, "a list of seats")
        seats = []
        for i, s in enumerate(seats_data):
            if not isinstance(s, Mapping) or not isinstance(s.get("policy"), str):
                raise RecordError(f"seat {i} must be an object with a 'policy' name, got {s!r}")
            unknown = set(s) - {"policy", "sha256", "seed"}
            if unknown:
                raise RecordError(f"seat {i} has unknown field(s) {', '.join(sorted(unknown))}")
            seats.append(
                Seat(s["policy"], s.get("sha256"), _opt_int(s.get("seed"), f"seat {i} seed"))
            )
        n = len(seats)
        actions = []
        for i, pair in enumerate(_field(data, "actions", list, "a list of [seat, action] pairs")):
            if (
                not isinstance(pair, (list, tuple))
                or len(pair) != 2
                or not all(_is_int(x) for x in pair)
                or not 0 <= pair[0] < n
            ):
                raise RecordError(
                    f"move {i} must be [seat, action] with a seat 0..{n - 1}, got {pair!r}", i
                )
            actions.append((int(pair[0]), int(pair[1])))
        deal = data.get("deal")
        if deal is not None:
            if not isinstance(deal, Mapping):
                raise RecordError(f"'deal' must be a dict of reset options, got {deal!r}")
            unknown = sorted(set(deal) - set(DEAL_OPTIONS[game]))
            if unknown:
                raise RecordError(
                    f"unknown {game} deal option(s) {', '.join(unknown)}; "
                    f"allowed: {', '.join(DEAL_OPTIONS[game])}"
                )
            deal = dict(deal)
        per_move = {}
        for name in ("legal", "probs"):
            value = data.get(name)
            if value is not None:
                if not isinstance(value, list) or len(value) != len(actions):
                    raise RecordError(
                        f"'{name}' must list one entry per move ({len(actions)}), "
                        f"got {len(value) if isinstance(value, list) else type(value).__name__}"
                    )
                per_move[name] = list(value)
        views = data.get("views")
        if views is not None and (
            not isinstance(views, str)
            or len(views) != 8 * len(actions)
            or not _HEX.fullmatch(views)
        ):
            raise RecordError(
                f"'views' must be 8 hex digits per move ({8 * len(actions)} in all), got "
                + (f"{len(views)} characters" if isinstance(views, str) else type(views).__name__)
            )
        outcome = None
        if data.get("outcome") is not None:
            o = _field(data, "outcome", Mapping, "an object with places and returns")
            places, returns = o.get("places"), o.get("returns")
            for name, values, none in (("places", places, True), ("returns", returns, False)):
                if (
                    not isinstance(values, list)
                    or len(values) != n
                    or not all(_is_number(v) or (none and v is None) for v in values)
                ):
                    raise RecordError(f"outcome {name} must list {n} numbers, got {values!r}")
            outcome = Outcome(
                [None if p is None else float(p) for p in places], [float(r) for r in returns]
            )
        meta = data.get("meta") or {}
        if not isinstance(meta, Mapping):
            raise RecordError(f"'meta' must be an object, got {type(meta).__name__}")
        known = {
            "format", "version", "game", "rules", "seed", "deal", "seats", "actions", "legal",
            "probs", "views", "obs_version", "outcome", "meta",
        }  # fmt: skip
        unknown = sorted(set(data) - known)
        if unknown:
            raise RecordError(f"unknown record field(s) {', '.join(map(str, unknown))}")
        return cls(
            game=game,
            rules=dict(rules),
            seats=seats,
            actions=actions,
            seed=_opt_int(data.get("seed"), "seed"),
            deal=deal,
            legal=per_move.get("legal"),
            probs=per_move.get("probs"),
            views=views,
            obs_version=_opt_int(data.get("obs_version"), "obs_version"),
            outcome=outcome,
            meta=dict(meta),
        )


def deal_options(game: str, **options: Any) -> dict[str, Any]:
    """Reset options as a record's ``deal``: stacked decks as card codes (``"7C"``),
    seats and counts as plain ints; options left ``None`` are dropped."""
    out: dict[str, Any] = {}
    for name, value in options.items():
        if name not in DEAL_OPTIONS[game]:
            raise ValueError(f"unknown {game} deal option {name!r}")
        if value is None:
            continue
        if name == "deck":
            value = [_code(c) for c in value]
        elif name == "decks":
            value = [[_code(c) for c in d] for d in value]
        elif name == "dealer":
            value = int(value)
        else:
            value = [int(v) for v in value]
        out[name] = value
    return out


def _code(card: Any) -> str:
    return card if isinstance(card, str) else format_card(int(card))


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _is_number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and x == x


def _opt_int(value: Any, what: str) -> int | None:
    if value is None or _is_int(value):
        return value
    raise RecordError(f"{what} must be an integer or absent, got {value!r}")


def _field(data: Mapping[str, Any], name: str, kind: type, what: str) -> Any:
    value = data.get(name)
    if not isinstance(value, kind):
        raise RecordError(f"a record needs '{name}': {what}, got {value!r}")
    return value


def _newer(version: Any) -> bool:
    return _is_int(version) and version > VERSION
