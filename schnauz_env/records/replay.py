"""Replay a record through the game's AEC environment, checking every move.

:func:`replay` plays the whole record and returns what the environment made of it;
:class:`Replay` yields the moves one at a time (the ``schnauz replay`` viewer and the
dataset builder walk a game with it). Each move is checked before it is played: the
recorded seat is the one to act, the move is legal, and, when the record holds them,
the legal moves and the checksum of what the seat saw agree. At the end the places
and returns must agree with the record's outcome. The first move that differs raises
:class:`~schnauz_env.records.format.RecordError` with its index in ``step``.
"""

from __future__ import annotations

import functools
import math
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, fields
from typing import Any, NamedTuple

import numpy as np

from schnauz_env.common.aec import step_out_dead
from schnauz_env.games import env_module, game_module
from schnauz_env.records.format import Record, RecordError

#: Returns are float sums; a recorded return agrees if it is this close.
RETURNS_TOLERANCE = 1e-9


_FLOAT32 = np.dtype(np.float32)


def view_crc(observation: np.ndarray, mask: np.ndarray) -> int:
    """CRC-32 of what a seat saw: its observation vector's float32 bytes, then its
    action mask as one byte (0 or 1) per action (see :func:`view_digest`)."""
    if observation.dtype != _FLOAT32 or not observation.flags.c_contiguous:
        observation = np.ascontiguousarray(observation, dtype=np.float32)
    crc = zlib.crc32(observation)  # the buffer itself: no copy
    if mask.dtype.itemsize != 1 or not mask.flags.c_contiguous:
        mask = np.ascontiguousarray(mask != 0, dtype=np.uint8)
    return zlib.crc32(mask, crc)


def view_digest(observation: np.ndarray, mask: np.ndarray) -> str:
    """The checksum a record keeps of what a seat saw, as 8 hex digits: CRC-32 of its
    observation vector's float32 bytes followed by its action mask (one byte, 0 or 1,
    per action). The legal moves are part of the view, so a changed rule that changes
    them is caught at the first move where they differ."""
    return f"{view_crc(observation, mask):08x}"


@functools.cache
def obs_version(game: str) -> int:
    """The version of ``game``'s observation encoding (1 if the game does not say)."""
    module = game_module(game)
    return int(getattr(module, "OBS_VERSION", getattr(module.observation, "OBS_VERSION", 1)))


class Step(NamedTuple):
    """One move about to be replayed: ``env`` shows the table before it."""

    index: int
    """Its index in the record's ``actions``."""
    seat: int
    action: int
    env: Any
    """The AEC env (``raw_env``) before the move; ``env.game`` is the engine state."""
    paid: list[float]
    """What the env paid each seat since the previous move (or the deal)."""


@dataclass
class ReplayResult:
    """What the environment made of a record."""

    record: Record
    env: Any
    """The env after the last move."""
    finished: bool
    """Whether the game is over (a crash or quit record stops before)."""
    places: list[float | None]
    returns: list[float]
    """What the env paid each seat over the game."""
    views_checked: bool
    """Whether the record's view checksums were compared (only with the same
    observation version)."""


def make_env(record: Record, config: Any = None) -> Any:
    """The record's game dealt as recorded: the env built from its rules and reset with
    its seed and deal.

    ``config``: the rules the caller expects; a record played under others is refused.
    :class:`RecordError` (``step=None``) for rules this package cannot build or a deal
    it refuses."""
    rules = record.config()
    if config is not None and rules != config:
        raise RecordError(f"the record was played under other rules: {rules_diff(rules, config)}")
    if record.seed is None:
        raise RecordError("the record has no seed: a record needs the env's reset seed")
    env = env_module(record.game).raw_env(**rules.to_dict())
    try:
        env.reset(seed=record.seed, options=record.deal)
    except (TypeError, ValueError) as err:
        raise RecordError(f"the record's deal is refused: {err}") from None
    return env


def rules_diff(got: Any, expected: Any) -> str:
    """The options on which two rules configs differ, as ``name=record (expected x)``."""
    a, b = got.to_dict(), expected.to_dict()
    if type(got) is not type(expected):
        return f"{type(got).__name__} vs {type(expected).__name__}"
    return ", ".join(
        f"{f.name}={a[f.name]!r} (expected {b[f.name]!r})"
        for f in fields(type(got))
        if a[f.name] != b[f.name]
    )


class Replay:
    """Walk a record's moves through the env (iterate it), checking each; then
    :meth:`result` checks the outcome. See the module docstring.

    ``check_views=False`` skips the view checksums (they are skipped anyway when the
    game's observation version differs from the record's)."""

    def __init__(self, record: Record, config: Any = None, check_views: bool = True) -> None:
        self.record = record
        self.env = make_env(record, config)
        self.n = record.num_players
        self.returns = [0.0] * self.n
        self.views_checked = (
            check_views
            and record.views is not None
            and record.obs_version == obs_version(record.game)
        )
        self.played = 0
        #: What the env paid each seat since the last move yielded (after the walk: since
        #: the last move, i.e. the payments of the game's end).
        self.paid = self._take_rewards()

    def _take_rewards(self) -> list[float]:
        """The rewards of the env's last (live) step, added to the returns."""
        env = self.env
        paid = [0.0] * self.n
        for agent, r in env.rewards.items():
            if r:
                s = env.agent_name_mapping[agent]
                paid[s] = float(r)
                self.returns[s] += float(r)
        return paid

    def __iter__(self) -> Iterator[Step]:
        record, env = self.record, self.env
        total = len(record.actions)
        for i, (seat, action) in enumerate(record.actions):
            step_out_dead(self.env)
            if env.game.game_over or not env.agents:
                raise RecordError(
                    f"move {i}: the game is over, but the record has {total - i} more move(s)", i
                )
            agent = env.agent_selection
            current = env.agent_name_mapping[agent]
            if current != seat:
                raise RecordError(
                    f"move {i}: the record has seat {seat} move, but seat {current} is to act", i
                )
            obs = env.observe(agent)
            mask = obs["action_mask"]
            legal = np.flatnonzero(mask).tolist()
            if not 0 <= action < len(mask) or not mask[action]:
                raise RecordError(
                    f"move {i}: seat {seat}'s action {action} ({self._name(action)}) is illegal "
                    f"here; legal: {', '.join(f'{a} ({self._name(a)})' for a in legal)}",
                    i,
                )
            if record.legal is not None and list(record.legal[i]) != legal:
                raise RecordError(
                    f"move {i}: the record lists legal moves {record.legal[i]}, the rules "
                    f"allow {legal}",
                    i,
                )
            if self.views_checked:
                got, want = view_digest(obs["observation"], mask), record.view(i)
                if got != want:
                    raise RecordError(
                        f"move {i}: seat {seat} sees another table than recorded (view "
                        f"checksum {got}, recorded {want}): the deal, the rules or an "
                        "earlier move differ",
                        i,
                    )
            yield Step(i, seat, action, env, self.paid)
            env.step(action)
            self.played = i + 1
            self.paid = self._take_rewards()
        step_out_dead(self.env)

    def _name(self, action: int) -> str:
        try:
            return self.env.game.action_to_string(int(action), symbols=True)
        except Exception:  # an action id outside the game's table
            return "no such action"

    def result(self) -> ReplayResult:
        """Check the outcome once every move is played; :class:`RecordError` if it
        differs (``step`` = the number of moves: after the last one)."""
        record, env = self.record, self.env
        end = len(record.actions)
        if self.played < end:
            raise RecordError(f"the replay stopped at move {self.played} of {end}", self.played)
        game = env.game
        places = [None if p is None else float(p) for p in game.places]
        if record.outcome is not None:
            if not game.game_over:
                raise RecordError(
                    f"move {end}: the record ends with an outcome, but the game goes on "
                    f"(seat {game.current} is to act)",
                    end,
                )
            if places != record.outcome.places:
                raise RecordError(
                    f"the outcome differs after the last move (move {end}): places "
                    f"{record.outcome.places} recorded, the replay gives {places}",
                    end,
                )
            if any(
                not math.isclose(a, b, rel_tol=0.0, abs_tol=RETURNS_TOLERANCE)
                for a, b in zip(self.returns, record.outcome.returns, strict=True)
            ):
                raise RecordError(
                    f"the outcome differs after the last move (move {end}): returns "
                    f"{record.outcome.returns} recorded, the env pays {self.returns}",
                    end,
                )
        return ReplayResult(
            record=record,
            env=env,
            finished=bool(game.game_over),
            places=places,
            returns=list(self.returns),
            views_checked=self.views_checked,
        )


def replay(record: Record, config: Any = None, check_views: bool = True) -> ReplayResult:
    """Re-run ``record`` through the env and check every move and the outcome.

    Returns what the env made of it; raises
    :class:`~schnauz_env.records.format.RecordError` naming the first move that differs
    (``err.step``), or the record as a whole (``err.step is None``: another format
    version, rules this package cannot build, other rules than ``config``)."""
    walk = Replay(record, config, check_views)
    for _ in walk:
        pass
    return walk.result()
