"""Schnauz hand evaluation (RULES.md §1 "Hands, highest first").

Pure functions with no environment imports, so users' own heuristics can call them::

    >>> from schnauz_env.schnauz import evaluate_hand
    >>> evaluate_hand(["AC", "AS", "AH"]).label
    'Fire'
    >>> evaluate_hand("7S 8H KH") > evaluate_hand("AS 7H 8H")   # 18 beats 15
    True

A hand's strength is one integer (:func:`hand_key`); larger is better. Its layout:

==========================  ============================================================
category (bits 20+)         3 Fire, 2 Schnauz, 1 thirty-and-a-half, 0 points
Schnauz                     + suit strength (♣ 3 > ♠ 2 > ♥ 1 > ♦ 0)
thirty-and-a-half           + card value << 4 + rank (K > Q > J > 10 on equal value)
points                      points << 14 + scoring-suit strength << 12 + the scoring
                            suit's ranks, highest first, 4 bits each
==========================  ============================================================

With ``ties="share"`` (a rule option) the suit and rank tie-breaks are dropped: equal
points are equal, three jacks equal three kings, two Schnauz hands are equal.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache
from itertools import combinations

import numpy as np

from schnauz_env.cards import (
    SUIT_SYMBOLS,
    Card,
    card_points,
    format_cards,
    parse_card,
    parse_cards,
)
from schnauz_env.schnauz.config import SchnauzConfig

FIRE, SCHNAUZ, THIRTY_HALF, POINTS = 3, 2, 1, 0
CATEGORY_NAMES = {FIRE: "Fire", SCHNAUZ: "Schnauz", THIRTY_HALF: "30½", POINTS: "points"}
ACE = 12

# The key's bit layout (the table above), for code that reads keys without calling
# the functions below (the batched engine and the compiled players import these).
#: A key's category is ``key >> CATEGORY_SHIFT``.
CATEGORY_SHIFT = 20
_CAT_SHIFT = CATEGORY_SHIFT
#: A points hand's key is its points ``<< POINTS_SHIFT``, plus tie-breaks below that bit.
POINTS_SHIFT = 14
#: Keys at or above this are Schnauz or Fire: the hands that end a round at once.
INSTANT_KEY = SCHNAUZ << CATEGORY_SHIFT
#: Keys at or above this are Fire.
FIRE_KEY = FIRE << CATEGORY_SHIFT


def suit_strength(suit: int) -> int:
    """Schnauz suit order for tie-breaks: ♣ 3 > ♠ 2 > ♥ 1 > ♦ 0."""
    return 3 - suit


@cache
def key_of(a: int, b: int, c: int, share: bool = False) -> int:
    """:func:`hand_key` of the hand ``a, b, c`` (card ints, in any order; ``share``: the
    ``ties="share"`` rule), cached: one lookup, for the rules engine's every move."""
    a, b, c = int(a), int(b), int(c)  # keys are ints, whatever ints the cards are
    ra, rb, rc = a >> 2, b >> 2, c >> 2
    sa, sb, sc = a & 3, b & 3, c & 3
    if ra == rb == rc:
        if ra == ACE:
            return FIRE << _CAT_SHIFT
        value = card_points(a)
        return (THIRTY_HALF << _CAT_SHIFT) | (value << 4) | (0 if share else ra)
    totals = [0, 0, 0, 0]
    for card in (a, b, c):
        totals[card & 3] += card_points(card)
    if sa == sb == sc and totals[sa] == 31:
        return (SCHNAUZ << _CAT_SHIFT) | (0 if share else suit_strength(sa))
    best = max(totals)
    if share:
        return best << POINTS_SHIFT
    suit = min(s for s in range(4) if totals[s] == best)  # lowest index = strongest suit
    ranks = sorted((card >> 2 for card in (a, b, c) if card & 3 == suit), reverse=True)
    key = (best << POINTS_SHIFT) | (suit_strength(suit) << 12)
    shift = 8
    for r in ranks:
        key |= (r + 1) << shift
        shift -= 4
    return key


def hand_key(cards: Iterable[int], ties: str = "break") -> int:
    """The strength of a three-card hand as one integer; larger is better.

    Independent of the order of the cards. ``ties`` is the rule option: ``"break"``
    (suit and rank tie-breaks, RULES.md default) or ``"share"`` (equal values tie).
    """
    a, b, c = sorted(map(int, cards))
    return key_of(a, b, c, ties == "share")


def category_of(key: int) -> int:
    """The category (:data:`FIRE`, :data:`SCHNAUZ`, :data:`THIRTY_HALF`, :data:`POINTS`)."""
    return key >> _CAT_SHIFT


def is_instant_win(cards: Iterable[int]) -> bool:
    """True for Fire or Schnauz, the hands that end a round at once."""
    return category_of(hand_key(cards)) >= SCHNAUZ


def best_suit_points(cards: Iterable[int]) -> tuple[int, int]:
    """``(points, suit)`` of the hand's scoring suit (the higher suit on equal sums)."""
    totals = [0, 0, 0, 0]
    for c in cards:
        totals[int(c) & 3] += card_points(int(c))
    best = max(totals)
    return best, totals.index(best)


def min_key(points: float) -> int:
    """The lowest hand key whose hand is worth at least ``points`` (:func:`hand_points`).

    Hand points never fall as keys rise (a points hand is worth at most 30, below
    three of a kind's 30.5, Schnauz's 31 and Fire's 33), so ``hand_points(key, cards)
    >= points`` exactly when ``key >= min_key(points)``: thresholds in points become
    one comparison of keys. Above 33 points no hand qualifies (a key above Fire's).
    """
    if points <= 30:
        return max(math.ceil(points), 0) << POINTS_SHIFT
    for category, worth in ((THIRTY_HALF, 30.5), (SCHNAUZ, 31.0), (FIRE, 33.0)):
        if points <= worth:
            return category << CATEGORY_SHIFT
    return (FIRE + 1) << CATEGORY_SHIFT


def key_table(config: SchnauzConfig, ties: str | None = None) -> np.ndarray:
    """``(N, N, N)`` int32: the :func:`hand_key` of every hand of ``config``'s deck.

    Indexed by the cards' local ids (``card - 4 * config.min_rank``, the observation's
    card columns) in increasing order, ``table[a, b, c]`` with ``a < b < c``; the other
    entries are 0. ``ties`` defaults to the config's. Cached per deck and tie rule:
    treat the array as read-only.
    """
    ties = ties or config.ties
    cache_key = (config.deck, ties)
    table = _KEY_TABLES.get(cache_key)
    if table is None:
        nc, lo = config.deck_size, 4 * config.min_rank
        table = np.zeros((nc, nc, nc), dtype=np.int32)
        for a, b, c in combinations(range(nc), 3):
            table[a, b, c] = key_of(a + lo, b + lo, c + lo, ties == "share")
        _KEY_TABLES[cache_key] = table
    return table


_KEY_TABLES: dict[tuple[str, str], np.ndarray] = {}


def hand_points(key: int, cards: Iterable[int]) -> float:
    """A hand's value in points from its :func:`hand_key`: 33 Fire, 31 Schnauz, 30.5
    three of a kind, else the best suit sum."""
    cat = category_of(key)
    if cat == FIRE:
        return 33.0
    if cat == SCHNAUZ:
        return 31.0
    if cat == THIRTY_HALF:
        return 30.5
    return float(best_suit_points(cards)[0])


def hand_label(cards: Iterable[int]) -> str:
    """A readable name: ``"Fire"``, ``"Schnauz ♥"``, ``"30½"``, ``"21 ♣"``."""
    a, b, c = map(int, cards)
    return _label_of(key_of(a, b, c, False))


@cache
def _label_of(key: int) -> str:
    """The label of the hand of ``key`` (ties broken): the key holds the category, and
    a Schnauz's suit or a points hand's points and scoring suit (see the layout above)."""
    cat = category_of(key)
    if cat == FIRE:
        return "Fire"
    if cat == SCHNAUZ:
        return f"Schnauz {SUIT_SYMBOLS[3 - (key & 3)]}"
    if cat == THIRTY_HALF:
        return "30½"
    return f"{key >> POINTS_SHIFT} {SUIT_SYMBOLS[3 - ((key >> 12) & 3)]}"


@dataclass(frozen=True, order=False)
class HandValue:
    """The value of a Schnauz hand, ordered exactly as RULES.md orders hands.

    Compare values with ``<``, ``==``, ``max`` …; ``label`` is a readable name and
    ``category`` one of ``"Fire"``, ``"Schnauz"``, ``"30½"``, ``"points"``.
    """

    key: int
    label: str = field(compare=False)
    cards: tuple[Card, ...] = field(compare=False)
    ties: str = field(default="break", compare=False)

    @property
    def category(self) -> str:
        return CATEGORY_NAMES[category_of(self.key)]

    @property
    def points(self) -> float:
        """The hand's value in points: 31 for Schnauz, 30.5, 33 for Fire, else the suit sum."""
        return hand_points(self.key, self.cards)

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, HandValue):
            return NotImplemented
        return self.key < other.key

    def __le__(self, other: object) -> bool:
        if not isinstance(other, HandValue):
            return NotImplemented
        return self.key <= other.key

    def __gt__(self, other: object) -> bool:
        if not isinstance(other, HandValue):
            return NotImplemented
        return self.key > other.key

    def __ge__(self, other: object) -> bool:
        if not isinstance(other, HandValue):
            return NotImplemented
        return self.key >= other.key

    def __str__(self) -> str:
        return f"{self.label} ({format_cards(self.cards)})"


def evaluate_hand(cards: Iterable[str | int] | str, ties: str = "break") -> HandValue:
    """Evaluate a three-card Schnauz hand.

    ``cards`` are card codes (``"7C"``, ``"10H"``, ``"QS"``, ``"AD"``), :class:`Card`
    objects, or one string of codes separated by spaces. Returns a :class:`HandValue`
    that compares exactly as RULES.md ranks hands, whatever the order of the cards.
    Raises :class:`ValueError` for a bad code, a repeated card or a hand that is not
    three cards.
    """
    parsed = parse_cards(cards) if isinstance(cards, str) else [parse_card(c) for c in cards]
    if len(parsed) != 3:
        raise ValueError(f"a Schnauz hand has exactly 3 cards, got {len(parsed)}")
    if len(set(parsed)) != 3:
        raise ValueError(f"a hand cannot hold the same card twice: {format_cards(parsed)}")
    if ties not in ("break", "share"):
        raise ValueError(f"ties must be 'break' or 'share', got {ties!r}")
    key = hand_key(parsed, ties)
    return HandValue(key=key, label=hand_label(parsed), cards=tuple(parsed), ties=ties)
