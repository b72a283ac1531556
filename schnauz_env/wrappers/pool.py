"""A weighted pool of players for the seats a wrapper does not give to the learner.

A *player* is an object with ``act(observation, action_mask) -> int`` (a policy;
its ``reset(seed=...)``, if it has one, is called at the start of every episode)
or a callable ``(observation, action_mask) -> int``. This floor knows no policy
names: :class:`policies.pool.OpponentPool` (a subclass) also takes names and model
files, resolved by ``policies.make_policy``, and seats a pool in batched games.

Every random choice comes from a generator the caller passes in (the wrapper's
episode generator), so a seed fixes which players sit where and how they are
seeded.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

#: A policy object (``act(obs, mask)``) or a callable ``(obs, mask) -> action``.
Player = Any


def check_weights(weights: Sequence[float] | None, size: int) -> list[float] | None:
    """``weights`` as floats, or ``ValueError`` unless there is one ``>= 0`` per player
    with a positive sum (``None``: uniform)."""
    if weights is None:
        return None
    w = [float(x) for x in weights]
    if len(w) != size or min(w, default=0.0) < 0 or sum(w) <= 0:
        raise ValueError(
            f"weights must be one number >= 0 per opponent ({size}), with a positive sum; "
            f"got {list(weights)}"
        )
    return w


def act_function(player: Player) -> Callable[[np.ndarray, np.ndarray], Any]:
    """The ``(observation, action_mask) -> action`` function of ``player``."""
    return player.act if hasattr(player, "act") else player


def policy_of(player: Player) -> Any | None:
    """The policy behind ``player`` (itself, or the owner of a bound ``act``) that
    ``reset(seed=...)`` reseeds at the start of an episode; ``None`` for a plain callable."""
    owner = player if hasattr(player, "act") else getattr(player, "__self__", None)
    if owner is None or not hasattr(owner, "act") or not callable(getattr(owner, "reset", None)):
        return None
    return owner


class PlayerPool:
    """Players (see the module docstring) with sampling weights (default uniform).

    A wrapper draws a player index per seat with :meth:`pick` and gets the player with
    :meth:`player`, built once per index and rules config (a subclass builds players
    from names there) and reused; it reseeds the player every episode.
    """

    def __init__(self, players: Sequence[Player], weights: Sequence[float] | None = None) -> None:
        self.entries: list[Player] = []
        self.weights: list[float] | None = None
        self._built: dict[tuple[int, Any], Player] = {}
        self.set_pool(players, weights)

    def __len__(self) -> int:
        return len(self.entries)

    def check_entry(self, entry: Player) -> None:
        """``ValueError`` unless ``entry`` can play (a subclass also takes names)."""
        if isinstance(entry, str):
            raise ValueError(
                f"opponent {entry!r} is a name: names and model files are resolved by "
                "policies.pool.OpponentPool([...], game=...); pass that pool instead"
            )
        if not (hasattr(entry, "act") or callable(entry)):
            raise ValueError(
                f"an opponent must be a policy or a callable (obs, mask) -> action, got {entry!r}"
            )

    def set_pool(self, players: Sequence[Player], weights: Sequence[float] | None = None) -> None:
        """Replace the players (and their weights); players built so far are dropped."""
        players = list(players)
        if not players:
            raise ValueError("the opponent pool is empty")
        for entry in players:
            self.check_entry(entry)
        self.weights = check_weights(weights, len(players))
        self.entries = players
        self._built = {}

    def add(self, player: Player, weight: float | None = None) -> None:
        """Add a player (e.g. a frozen snapshot of the learner); ``weight`` defaults to 1."""
        self.check_entry(player)
        weights = self.weights
        if weights is not None or weight is not None:
            weights = [*(weights or [1.0] * len(self.entries)), 1.0 if weight is None else weight]
        self.weights = check_weights(weights, len(self.entries) + 1)
        self.entries.append(player)

    def validate(self, config: Any) -> None:
        """Check that every player can be built under ``config`` (here: nothing to build)."""

    @property
    def probabilities(self) -> np.ndarray | None:
        """The normalised weights, or ``None`` for uniform sampling."""
        if self.weights is None:
            return None
        w = np.asarray(self.weights, dtype=float)
        return w / w.sum()

    def pick(self, rng: np.random.Generator, size: int | None = None) -> Any:
        """Player indices drawn by weight: one ``int``, or an array of ``size``."""
        if size is None:
            return int(rng.choice(len(self.entries), p=self.probabilities))
        return rng.choice(len(self.entries), size=size, p=self.probabilities)

    def name(self, index: int) -> str:
        """The name of player ``index``: its ``name`` attribute, else its type's name."""
        entry = self.entries[index]
        return entry if isinstance(entry, str) else getattr(entry, "name", type(entry).__name__)

    @property
    def names(self) -> list[str]:
        return [self.name(i) for i in range(len(self.entries))]

    def player(self, index: int, config: Any, rng: np.random.Generator | None = None) -> Player:
        """Player ``index`` for games under ``config`` (a frozen rules config), built on
        first use (a subclass draws the seed of a player it builds from ``rng``)."""
        key = (index, config)
        if key not in self._built:
            self._built[key] = self.build(self.entries[index], config, rng)
        return self._built[key]

    def build(self, entry: Player, config: Any, rng: np.random.Generator | None) -> Player:
        """The player that ``entry`` stands for under ``config`` (here: itself)."""
        return entry
