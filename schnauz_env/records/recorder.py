"""Writing records while a game is played.

* :class:`Recorder` collects the moves of a loop that drives the rules engine itself
  (the evaluation harness): ``see(obs, mask)`` before the policy acts, ``add(seat,
  action, policy)`` after, then :meth:`Recorder.record` builds the :class:`Record`.
* :class:`RecordingEnv` wraps a game's AEC env (the terminal game, the browser app):
  every ``reset`` and live ``step`` is recorded, and :meth:`RecordingEnv.record` gives
  the record at any time, finished or not (for a crash report).
"""

from __future__ import annotations

import functools
import hashlib
import os
import sys
from array import array
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from schnauz_env.common.places import place_value
from schnauz_env.records.files import write_record
from schnauz_env.records.format import Outcome, Record, Seat, deal_options
from schnauz_env.records.replay import obs_version, view_crc

#: Probabilities are kept to this many decimals (a record is not a model file).
PROB_DECIMALS = 6


def file_sha256(path: str | os.PathLike) -> str:
    """The SHA-256 of a file's bytes, as hex: how a record names a model file."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def fresh_seed() -> int:
    """A new seed from the operating system's entropy (for a game started without
    one, so that its record still reproduces it)."""
    return int(np.random.SeedSequence().generate_state(1)[0])


def policy_probabilities(policy: Any, obs: np.ndarray, mask: np.ndarray) -> list[float] | None:
    """The probability ``policy`` gives each legal move (in action order), if it says:
    its ``action_probabilities(obs, mask)`` (one number per action), else the softmax
    of its ``logits`` over the legal moves (a model), else ``None``."""
    legal = np.flatnonzero(mask)
    if hasattr(policy, "action_probabilities"):
        p = np.asarray(policy.action_probabilities(obs, mask), dtype=np.float64)[legal]
    elif hasattr(policy, "logits"):
        z = np.asarray(policy.logits(np.asarray(obs)[None])[0], dtype=np.float64)[legal]
        p = np.exp(z - z.max())
        p /= p.sum()
    else:
        return None
    return [round(float(x), PROB_DECIMALS) for x in p]


def hex32(values: Sequence[int]) -> str:
    """32-bit values as one string of 8 hex digits each (``f"{v:08x}"`` joined, fast)."""
    words = array("I", values) if array("I").itemsize == 4 else array("L", values)
    if sys.byteorder == "little":
        words.byteswap()
    return words.tobytes().hex()


@functools.lru_cache(maxsize=32)
def _rules(config: Any) -> dict[str, Any]:
    """``config.to_dict()``, once per (frozen, hashable) config: it is the same for
    every game of an evaluation, and ``dataclasses.asdict`` is slow."""
    return config.to_dict()


class Recorder:
    """The moves of one game, collected as it is played (see the module docstring).

    ``views``: keep a checksum of what each acting seat saw (cheap; replay then finds
    the first move whose table differs). ``details``: also keep each move's legal
    actions and the policy's probabilities."""

    def __init__(self, views: bool = True, details: bool = False) -> None:
        self.actions: list[tuple[int, int]] = []
        self.views: list[int] | None = [] if views else None  # CRC-32s, as ints
        self.legal: list[list[int]] | None = [] if details else None
        self.probs: list[list[float] | None] | None = [] if details else None
        self._obs: Any = None
        self._mask: Any = None

    def see(self, obs: np.ndarray, mask: np.ndarray) -> None:
        """What the seat to act sees, before its policy acts."""
        if self.views is not None:
            self.views.append(view_crc(obs, mask))
        self._obs, self._mask = obs, mask

    def add(self, seat: int, action: int, policy: Any = None) -> None:
        """The move ``seat`` made (after :meth:`see`)."""
        self.actions.append((int(seat), int(action)))
        if self.legal is not None:
            self.legal.append(np.flatnonzero(self._mask).tolist())
            self.probs.append(  # type: ignore[union-attr]
                None if policy is None else policy_probabilities(policy, self._obs, self._mask)
            )

    def drop_last(self) -> None:
        """Forget the last move (the env refused it)."""
        self.actions.pop()
        for part in (self.views, self.legal, self.probs):
            if part:
                part.pop()

    def record(
        self,
        game: str,
        config: Any,
        seed: int,
        seats: Sequence[Seat],
        places: Sequence[float | None] | None = None,
        returns: Sequence[float] | None = None,
        deal: dict[str, Any] | None = None,
        meta: dict[str, Any] | None = None,
    ) -> Record:
        """The record of the game so far. ``places`` (the final places, ``None`` for a
        seat without one, as in a single-round episode) make it a finished game; its
        ``returns`` default to the places' values (what the env pays in a whole game)
        and must be given for a single-round episode (``episode="round"``)."""
        record = Record(
            game=game,
            rules=dict(_rules(config)),
            seats=list(seats),
            actions=list(self.actions),
            seed=int(seed),
            deal=deal,
            legal=self.legal,
            probs=self.probs,
            views=None if self.views is None else hex32(self.views),
            obs_version=obs_version(game) if self.views is not None else None,
            meta=dict(meta or {}),
        )
        if places is not None:
            if returns is None:
                if getattr(config, "episode", "game") == "round":
                    raise ValueError("a single-round episode's record needs the env's returns")
                n = config.num_players
                returns = [place_value(float(p), n) for p in places]  # type: ignore[arg-type]
            record.outcome = Outcome(
                [None if p is None else float(p) for p in places],
                [float(r) for r in returns],
            )
        return record


class RecordingEnv:
    """A game's AEC env that records itself (see the module docstring).

    Everything but ``reset`` and ``step`` goes to the wrapped env. A ``reset`` without
    a seed gets a fresh one, so the record reproduces the game. ``seats`` says who
    plays each seat (a :class:`Seat` or a policy name)."""

    def __init__(
        self,
        env: Any,
        game: str,
        seats: Sequence[Seat | str],
        meta: dict[str, Any] | None = None,
        views: bool = True,
    ) -> None:
        self.env = env
        self.game_name = game
        self.seats = [s if isinstance(s, Seat) else Seat(str(s)) for s in seats]
        self.meta = dict(meta or {})
        self._views = views
        self.recorder = Recorder(views=views)
        self.seed: int | None = None
        self.deal: dict[str, Any] | None = None
        self.returns = [0.0] * len(self.seats)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.env, name)

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        seed = fresh_seed() if seed is None else int(seed)
        self.env.reset(seed=seed, options=options)
        self.seed = seed
        self.deal = deal_options(self.game_name, **options) if options else None
        self.recorder = Recorder(views=self._views)
        self.returns = [0.0] * len(self.seats)
        self._take_rewards()

    def step(self, action: int | None) -> None:
        env = self.env
        agent = env.agent_selection
        live = (
            action is not None
            and agent in env.terminations
            and not (env.terminations[agent] or env.truncations[agent])
        )
        if live:
            obs = env.observe(agent)
            self.recorder.see(obs["observation"], obs["action_mask"])
            self.recorder.add(env.agent_name_mapping[agent], action)
        try:
            env.step(action)
        except BaseException:
            if live:
                self.recorder.drop_last()
            raise
        if live:
            self._take_rewards()

    def _take_rewards(self) -> None:
        env = self.env
        for agent, r in env.rewards.items():
            self.returns[env.agent_name_mapping[agent]] += float(r)

    def record(self, meta: dict[str, Any] | None = None) -> Record:
        """The record of the game so far (finished if the game is over)."""
        if self.seed is None:
            raise RuntimeError("nothing to record: the env was never reset")
        game = self.env.game
        over = bool(game.game_over)
        return self.recorder.record(
            self.game_name,
            self.env.config,
            self.seed,
            self.seats,
            places=list(game.places) if over else None,
            returns=list(self.returns) if over else None,
            deal=self.deal,
            meta={**self.meta, **(meta or {})},
        )

    def save(
        self, path: str | os.PathLike, meta: dict[str, Any] | None = None, overwrite: bool = False
    ) -> Path:
        """Write :meth:`record` to ``path`` (atomically; never over an existing file
        unless ``overwrite``)."""
        return write_record(path, self.record(meta), overwrite=overwrite)
