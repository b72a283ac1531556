"""What to play: the tables (matchups), their seat rotations, and the seeded list of games.

With as many policies as seats (``"table"``) the policies sit in the given order. With
any other number (``"pairs"``, a round robin) every pair ``A, B`` of policies plays at
its own table with the seats alternating ``A B A B ...`` (and also ``B A B A ...`` when
the seat count is odd, so both hold as many seats).

**Duplicate deals.** Every deal is replayed once per distinct rotation of the seat
assignment, so each policy plays every seat of the same deal. This works because the
engines use their generator only to draw the first dealer and to shuffle once per
round: the same game seed gives the same decks whatever the players do.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

SCHEDULES = ("auto", "table", "pairs")


@dataclass(frozen=True)
class Matchup:
    """One table: the policy label of every seat (rotation 0) and how many deals to play."""

    seats: tuple[str, ...]
    deals: int

    def rotations(self, duplicate: bool = True) -> list[tuple[str, ...]]:
        """The distinct rotations of the seat assignment (just the assignment if not duplicate)."""
        if not duplicate:
            return [self.seats]
        out: list[tuple[str, ...]] = []
        n = len(self.seats)
        for r in range(n):
            rot = tuple(self.seats[(i - r) % n] for i in range(n))
            if rot not in out:
                out.append(rot)
        return out


def rotations(seats: Sequence[str]) -> list[tuple[str, ...]]:
    """The distinct rotations of a seat assignment, the assignment itself first."""
    return Matchup(tuple(seats), 0).rotations()


def make_schedule(
    labels: Sequence[str],
    players: int,
    games: int,
    schedule: str = "auto",
    duplicate: bool = True,
    games_with: dict[str, int] | None = None,
) -> list[Matchup]:
    """The tables to play: see the module docstring for ``"table"`` and ``"pairs"``.

    ``"auto"`` is ``"table"`` when there are as many policies as seats or just one
    policy (it then fills every seat), else ``"pairs"``. ``games`` is per table (per
    pairing in a round robin), rounded up to whole sets of rotations; ``games_with``
    lowers it for tables holding a given policy (e.g. ``{"ismcts": 200}`` for a slow
    player).
    """
    labels = list(labels)
    if schedule not in SCHEDULES:
        raise ValueError(f"unknown schedule {schedule!r}; allowed: {', '.join(SCHEDULES)}")
    if games < 1:
        raise ValueError(f"games must be at least 1, got {games}")
    if schedule == "auto":
        schedule = "table" if len(labels) in (1, players) else "pairs"
    tables: list[tuple[tuple[str, ...], float]] = []
    if schedule == "table":
        if len(labels) == 1:
            labels = labels * players
        if len(labels) != players:
            raise ValueError(
                f"schedule 'table' needs one policy per seat: {players} seats but "
                f"{len(labels)} policies ({' '.join(labels)})"
            )
        tables.append((tuple(labels), 1.0))
    else:
        if len(set(labels)) < 2:
            raise ValueError("schedule 'pairs' needs at least two different policies")
        for a, b in itertools.combinations(dict.fromkeys(labels), 2):
            first = tuple(a if i % 2 == 0 else b for i in range(players))
            if players % 2:
                second = tuple(b if i % 2 == 0 else a for i in range(players))
                tables += [(first, 0.5), (second, 0.5)]
            else:
                tables.append((first, 1.0))
    out = []
    for seats, share in tables:
        budget = games
        for name, limit in (games_with or {}).items():
            if name in seats:
                budget = min(budget, limit)
        per_deal = len(Matchup(seats, 0).rotations(duplicate))
        out.append(Matchup(seats, max(1, math.ceil(budget * share / per_deal))))
    return out


def derive_seed(*parts: int) -> int:
    """A 32-bit seed drawn from ``parts`` (a run seed, a table, a deal, ...) by
    :class:`numpy.random.SeedSequence`: distinct parts give independent streams."""
    return int(np.random.SeedSequence([int(p) for p in parts]).generate_state(1)[0])


class GameTask(NamedTuple):
    """One game to play: a rotation of a deal at a table, and its seeds."""

    table: int
    seats: tuple[str, ...]
    deal: int
    rotation: int
    run_seed: int
    """The run's seed; each seat's policy is seeded from it and the game's position."""
    deal_seed: int
    """The engine's seed: it fixes the first dealer and every round's deck."""


def make_tasks(tables: Sequence[Matchup], duplicate: bool, seed: int) -> list[GameTask]:
    """Every game of ``tables``, in a fixed order, seeded from ``seed``.

    Duplicate: the same deals at every table, each replayed in every rotation. Not
    duplicate: a fresh deal per game, the rotations taking turns.
    """
    tasks = []
    for t, m in enumerate(tables):
        rots = m.rotations()
        for d in range(m.deals):
            if duplicate:
                deal_seed = derive_seed(seed, d)
                tasks += [GameTask(t, rot, d, r, seed, deal_seed) for r, rot in enumerate(rots)]
            else:
                r = d % len(rots)
                tasks.append(GameTask(t, rots[r], d, r, seed, derive_seed(seed, t, d)))
    return tasks


__all__ = ["GameTask", "Matchup", "derive_seed", "make_schedule", "make_tasks", "rotations"]
