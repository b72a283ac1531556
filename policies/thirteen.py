"""Scripted Thirteen players of known strength: ``random``, ``greedy``, ``expert``.

All three read only their seat's observation (decoded with
:func:`schnauz_env.thirteen.infoset.decode_observation`) and the action mask. A play is
built card by card (see :mod:`schnauz_env.thirteen.engine`): the scripted players choose
a whole play when nothing is selected yet, then emit its cards weakest first and *play*;
while building, the same observation gives the same choice, and a selection they did not
make themselves is completed with the best play that extends it.

======== ===================================================================================
name     idea
======== ===================================================================================
random   Uniform over the legal actions (card by card). The floor.
greedy   Beats the table with the weakest legal play (same kind preferred over a bomb,
         then the lowest top card, then more cards); leads its weakest play (the lowest
         top card: in practice its lowest single). Never passes when it can play.
expert   Plans with a partition of its hand into combinations (the partition with the least
         cost: every group costs ~1, less for high groups, bombs and long sequences), so it
         keeps pairs and sequences together:

         * **goes out** when its whole hand is one legal play, and leads an unbeatable
           group ("boss": no combination of the cards it has not seen beats it) when at
           most one group would be left that is not a boss;
         * **leads** the play that leaves the cheapest hand (its weakest group);
         * **beats** the table with the play that leaves the cheapest hand, unless that
           hand would cost more than passing by a margin (breaking a pair or a sequence
           for it); taking the table is worth a little (margin −0.25, tuned against copies
           of itself with ``schnauz-eval``); using a 2 or a bomb costs 1 extra, so it is
           saved, unless an opponent holds three cards or fewer or it is close to going
           out itself;
         * **watches card counts**: it avoids leading a play of as many cards as an
           opponent holds (a single against one card, a pair against two) unless the play
           is a boss, beats high and never passes when an opponent holding at most two
           cards could otherwise go out.
======== ===================================================================================
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

from policies.base import Policy, register_policy
from schnauz_env.thirteen.combos import (
    ACE,
    DOUBLE_SEQUENCE,
    QUAD,
    SEQUENCE,
    STRENGTH,
    TWO,
    can_beat,
    classify_strengths,
    plays_strengths,
)
from schnauz_env.thirteen.config import ThirteenConfig
from schnauz_env.thirteen.engine import PASS, PLAY
from schnauz_env.thirteen.infoset import SeatView, decode_observation

Play = tuple[int, ...]  # strengths, ascending


def _config(config: Any) -> ThirteenConfig:
    return config if config is not None else ThirteenConfig()


def next_action(selected: Play, plan: Play) -> int:
    """The action that continues building ``plan`` from ``selected`` (a prefix of it)."""
    k = len(selected)
    return PLAY if k == len(plan) else plan[k]


@register_policy("thirteen", "random")
class RandomPolicy(Policy):
    """Uniform over the legal actions."""

    name = "random"
    game = "thirteen"

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = np.flatnonzero(action_mask)
        return int(legal[self.rng.integers(len(legal))])


class _Planner(Policy):
    """Chooses a whole play (or a pass) when nothing is selected, then builds it."""

    game = "thirteen"

    def __init__(self, config: Any = None, seed: int | None = None, **kwargs: Any) -> None:
        if kwargs.get("arg"):
            raise ValueError(f"thirteen policy {self.name!r} takes no parameter")
        super().__init__(_config(config), seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = np.flatnonzero(action_mask)
        if len(legal) == 1:
            return int(legal[0])
        action = self.plan_action(decode_observation(observation, self.config))
        if not action_mask[action]:  # cannot happen when the rules agree; say so loudly
            raise RuntimeError(f"{self.name} chose illegal action {action}; legal: {legal}")
        return action

    def plan_action(self, view: SeatView) -> int:
        """The action to take in the position ``view`` shows, on the observer's turn with
        more than one legal action (a whole play is chosen when nothing is selected yet,
        then built card by card)."""
        hand = tuple(STRENGTH[c] for c in view.hand)
        selected = tuple(STRENGTH[c] for c in view.selected)
        must = None if view.opening_card is None else STRENGTH[view.opening_card]
        plays = plays_strengths(hand, view.table_combo, must)
        if selected:
            k = len(selected)
            plays = [p for p in plays if p[:k] == selected]
        plan = self.choose(view, hand, plays, allow_pass=not selected)
        return PASS if plan is None else next_action(selected, plan)

    def choose(
        self, view: SeatView, hand: Play, plays: list[Play], allow_pass: bool
    ) -> Play | None:
        """The play to make (``None``: pass)."""
        raise NotImplementedError


@register_policy("thirteen", "greedy")
class GreedyPolicy(_Planner):
    """Beat the table with the weakest legal play; lead the weakest."""

    name = "greedy"

    def choose(
        self, view: SeatView, hand: Play, plays: list[Play], allow_pass: bool
    ) -> Play | None:
        if not plays:
            return None
        table = view.table_combo
        if table is None:
            return min(plays, key=lambda p: (p[-1], -len(p)))
        return min(plays, key=lambda p: (len(p) != table.size, p[-1], -len(p)))


# --------------------------------------------------------------------- expert
Group = tuple[int, int, int]  # (kind, lowest rank, number of cards)


def _group_cost(kind: int, rank: int, size: int) -> float:
    """What a group left in hand costs: ~1 for a low group (it needs a lead and may be
    beaten), down to 0.5 for 2s and strong groups, 0.3 for bombs."""
    if kind in (QUAD, DOUBLE_SEQUENCE):
        return 0.3
    if kind == SEQUENCE:
        top = rank + size - 1
        return 1.0 - 0.5 * min(1.0, 0.7 * top / ACE + 0.6 * (size - 3) / 9)
    bonus = (0, 0, 2, 5)[size]  # pairs and triples are beaten less often than singles
    return 1.0 - 0.5 * min(1.0, (rank + bonus) / TWO)


@lru_cache(maxsize=1 << 18)
def decompose(counts: tuple[int, ...]) -> tuple[float, tuple[Group, ...]]:
    """The cheapest partition of a hand (cards per rank, 3 .. 2) into combinations."""
    r = next((i for i, c in enumerate(counts) if c), None)
    if r is None:
        return 0.0, ()
    best: tuple[float, tuple[Group, ...]] = (float("inf"), ())
    options: list[Group] = [(k - 1, r, k) for k in range(1, counts[r] + 1)]
    if r <= ACE - 2:
        run1 = run2 = 0
        while r + run1 <= ACE and counts[r + run1] >= 1:
            run1 += 1
        while r + run2 <= ACE and counts[r + run2] >= 2:
            run2 += 1
        options += [(SEQUENCE, r, length) for length in range(3, run1 + 1)]
        options += [(DOUBLE_SEQUENCE, r, 2 * pairs) for pairs in range(3, run2 + 1)]
    for group in options:
        kind, lo, size = group
        rest = list(counts)
        if kind == SEQUENCE:
            for i in range(lo, lo + size):
                rest[i] -= 1
        elif kind == DOUBLE_SEQUENCE:
            for i in range(lo, lo + size // 2):
                rest[i] -= 2
        else:
            rest[lo] -= size
        cost, groups = decompose(tuple(rest))
        cost += _group_cost(kind, lo, size)
        if cost < best[0]:
            best = (cost, (group, *groups))
    return best


def rank_counts(cards: Play) -> tuple[int, ...]:
    counts = [0] * 13
    for s in cards:
        counts[s >> 2] += 1
    return tuple(counts)


def without(hand: Play, play: Play) -> Play:
    """``hand`` less the cards of ``play``."""
    taken = set(play)
    return tuple(s for s in hand if s not in taken)


def cost_after(hand: Play, play: Play) -> float:
    """What the hand left after ``play`` costs to play out, by :func:`decompose`."""
    return decompose(rank_counts(without(hand, play)))[0]


def _group_ranks(group: Group) -> list[int]:
    kind, lo, size = group
    if kind == SEQUENCE:
        return list(range(lo, lo + size))
    if kind == DOUBLE_SEQUENCE:
        return [r for r in range(lo, lo + size // 2) for _ in (0, 1)]
    return [lo] * size


def _rank_key(play: Play) -> tuple[int, ...]:
    return tuple(s >> 2 for s in play)


def cheapest_suits(plays: list[Play]) -> list[Play]:
    """One play per pattern of ranks: the one that gives away the weakest suits (the
    least sum of strengths, the first on a tie)."""
    best: dict[tuple[int, ...], Play] = {}
    for p in plays:
        key = _rank_key(p)
        old = best.get(key)
        if old is None or sum(p) < sum(old):
            best[key] = p
    return list(best.values())


@register_policy("thirteen", "expert")
class ExpertPolicy(_Planner):
    """Keeps combinations together, saves 2s and bombs, plays to go out, watches counts."""

    name = "expert"
    #: Extra cost of spending a 2 or a bomb while nobody is close to going out.
    spend_penalty = 1.0
    #: A play is preferred to a pass unless it makes the hand this much dearer (negative:
    #: taking the table is worth a little; tuned with schnauz-eval against copies of itself).
    margin = -0.25

    def choose(
        self, view: SeatView, hand: Play, plays: list[Play], allow_pass: bool
    ) -> Play | None:
        if not plays:
            return None
        for p in plays:
            if len(p) == len(hand):
                return p  # out of cards with one play
        unseen = tuple(sorted(STRENGTH[c] for c in view.unseen))
        counts = [view.cards_left[k] for k in view.opponents()]
        min_opp = min(counts) if counts else 13
        every = plays
        plays = cheapest_suits(plays)
        if view.leading:
            return self._lead(hand, plays, every, unseen, counts)
        return self._respond(view, hand, plays, unseen, min_opp, allow_pass)

    @staticmethod
    def _is_boss(play: Play, unseen: Play) -> bool:
        combo = classify_strengths(play)
        return combo is not None and not can_beat(unseen, combo)

    @staticmethod
    def _concrete(group: Group, plays: list[Play]) -> Play | None:
        """The strongest legal play with the group's ranks."""
        ranks = tuple(sorted(_group_ranks(group)))
        matching = [p for p in plays if _rank_key(p) == ranks]
        return max(matching, key=lambda p: p[-1]) if matching else None

    def _lead(
        self, hand: Play, plays: list[Play], every: list[Play], unseen: Play, counts: list[int]
    ) -> Play:
        # Going out: lead a boss while at most one group that is not a boss remains.
        _, groups = decompose(rank_counts(hand))
        concrete = [self._concrete(g, every) for g in groups]
        if all(c is not None for c in concrete):
            bosses = [c for c in concrete if c is not None and self._is_boss(c, unseen)]
            if bosses and len(groups) - len(bosses) <= 1:
                return min(bosses, key=lambda p: p[-1])

        def score(p: Play) -> float:
            cost = cost_after(hand, p)
            if len(p) in counts and not self._is_boss(p, unseen):
                cost += 1.0 + 0.3 * (1 - p[-1] / 51)  # an opponent could go out on it
            return cost + 0.001 * p[-1]

        return min(plays, key=score)

    def _respond(
        self,
        view: SeatView,
        hand: Play,
        plays: list[Play],
        unseen: Play,
        min_opp: int,
        allow_pass: bool,
    ) -> Play | None:
        base, now = decompose(rank_counts(hand))
        danger = min_opp <= 2

        def score(p: Play) -> float:
            rest = without(hand, p)
            cost, groups = decompose(rank_counts(rest))
            combo = classify_strengths(p)
            precious = p[-1] >> 2 == TWO or (combo is not None and combo.is_bomb_on_twos)
            if precious and not danger and min_opp > 3 and len(groups) > 2:
                cost += self.spend_penalty
            if danger:
                cost -= 0.3 * p[-1] / 51  # beat high: keep them from going out
            return cost

        best = min(plays, key=score)
        if not allow_pass:
            return best
        # Passing lets an opponent with one or two cards try to go out: count it as a group.
        pass_cost = base + (1.0 if danger else 0.0)
        if len(now) <= 2 and self._is_boss(best, unseen):
            return best  # taking the lead with a boss this close to going out
        return best if score(best) < pass_cost - self.margin else None


__all__ = [
    "ExpertPolicy",
    "GreedyPolicy",
    "RandomPolicy",
    "cheapest_suits",
    "cost_after",
    "decompose",
    "next_action",
    "without",
]
