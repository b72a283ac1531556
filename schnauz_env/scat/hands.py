"""Scat hand values (RULES.md §2 "Hand value" and "Blitz").

Pure functions with no environment imports, so users' own heuristics can call them::

    >>> from schnauz_env.scat import evaluate_hand
    >>> evaluate_hand("AH KH 9H").value
    30.0
    >>> evaluate_hand("7C 7S 7H").value          # trinca: three of a kind
    30.5
    >>> evaluate_hand("7C 7S 7H", no_trinca=True).value
    7.0
    >>> evaluate_hand("AS KS 10S").blitz
    True

A hand's value is its highest single-suit total (cards of other suits count
nothing; a lone card counts its own points). Three cards of one rank count 30.5
(between 30 and 31) unless the *no trinca* option is on; four-card Scat has no
trinca bonus. There are no suit tie-breaks: equal values are equal.

A **blitz** is a hand at the round's maximum: 31 in one suit with three cards
(an ace and two 10-point cards), 41 with four (an ace and three 10-point cards).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from schnauz_env.cards import SUIT_SYMBOLS, Card, card_points, format_cards, parse_card, parse_cards

#: Points of every card index 0..51 (looked up in the engine's inner loop).
POINTS: tuple[int, ...] = tuple(card_points(c) for c in range(52))
TRINCA = 30.5
#: The blitz value for a hand of 3 and of 4 cards.
BLITZ_VALUE: dict[int, int] = {3: 31, 4: 41}


def suit_totals(cards: Iterable[int]) -> list[int]:
    """Points per suit (♣ ♠ ♥ ♦) of ``cards``."""
    totals = [0, 0, 0, 0]
    for c in cards:
        totals[c & 3] += POINTS[c]
    return totals


def best_suit(cards: Iterable[int]) -> tuple[int, int]:
    """``(points, suit)`` of the hand's best suit; on equal totals the lower suit index."""
    totals = suit_totals(cards)
    best = max(totals)
    return best, totals.index(best)


def is_trinca(cards: Iterable[int]) -> bool:
    """Three cards of the same rank (any suits)."""
    cards = list(cards)
    return len(cards) == 3 and cards[0] >> 2 == cards[1] >> 2 == cards[2] >> 2


def hand_value(cards: Iterable[int], trinca: bool = True) -> float:
    """The value of a hand of card ints: the best suit total, or 30.5 for a trinca.

    ``trinca=False`` drops the three-of-a-kind bonus (the *no trinca* variant and
    four-card Scat). Works for any number of cards (policies value 4-card holdings).
    """
    totals = [0, 0, 0, 0]
    for c in cards:
        totals[c & 3] += POINTS[c]
    best = max(totals)
    if trinca and len(cards) == 3 and best < TRINCA:  # type: ignore[arg-type]
        a, b, c = cards  # type: ignore[misc]
        if a >> 2 == b >> 2 == c >> 2:
            return TRINCA
    return float(best)


def is_blitz(cards: Iterable[int]) -> bool:
    """True for a 3-card hand of 31 in one suit, or a 4-card hand of 41 in one suit."""
    cards = list(cards)
    target = BLITZ_VALUE.get(len(cards))
    return target is not None and max(suit_totals(cards)) == target


def hand_label(cards: Iterable[int], trinca: bool = True) -> str:
    """A readable name: ``"31 ♥ (blitz)"``, ``"30½ (trinca)"``, ``"27 ♣"``."""
    cards = [int(c) for c in cards]
    value = hand_value(cards, trinca)
    if value == TRINCA and is_trinca(cards):
        return "30½ (trinca)"
    pts, suit = best_suit(cards)
    label = f"{pts} {SUIT_SYMBOLS[suit]}"
    return label + " (blitz)" if is_blitz(cards) else label


@dataclass(frozen=True, order=False)
class ScatHand:
    """The value of a Scat hand; compares by ``value`` only (equal values are equal)."""

    value: float
    label: str = field(compare=False)
    cards: tuple[Card, ...] = field(compare=False)
    blitz: bool = field(compare=False)

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, ScatHand):
            return NotImplemented
        return self.value < other.value

    def __le__(self, other: object) -> bool:
        if not isinstance(other, ScatHand):
            return NotImplemented
        return self.value <= other.value

    def __gt__(self, other: object) -> bool:
        if not isinstance(other, ScatHand):
            return NotImplemented
        return self.value > other.value

    def __ge__(self, other: object) -> bool:
        if not isinstance(other, ScatHand):
            return NotImplemented
        return self.value >= other.value

    def __str__(self) -> str:
        return f"{self.label} ({format_cards(self.cards)})"


def evaluate_hand(cards: Iterable[str | int] | str, no_trinca: bool = False) -> ScatHand:
    """Evaluate a Scat hand of 3 cards (or 4 for four-card Scat, which has no trinca).

    ``cards`` are card codes (``"7C"``, ``"10H"``), :class:`Card` objects, or one
    string of codes separated by spaces. Raises :class:`ValueError` for a bad code,
    a repeated card or a hand that is not 3 or 4 cards.
    """
    parsed = parse_cards(cards) if isinstance(cards, str) else [parse_card(c) for c in cards]
    if len(parsed) not in (3, 4):
        raise ValueError(
            f"a Scat hand has 3 cards (4 in four-card Scat), got {len(parsed)}: "
            f"{format_cards(parsed)}"
        )
    if len(set(parsed)) != len(parsed):
        raise ValueError(f"a hand cannot hold the same card twice: {format_cards(parsed)}")
    ints = sorted(int(c) for c in parsed)
    trinca = not no_trinca and len(ints) == 3
    return ScatHand(
        value=hand_value(ints, trinca),
        label=hand_label(ints, trinca),
        cards=tuple(parsed),
        blitz=is_blitz(ints),
    )
