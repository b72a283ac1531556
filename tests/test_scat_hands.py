"""Scat hand values (RULES.md §2 "Hand value" and "Blitz"), table-driven."""

from __future__ import annotations

import itertools

import pytest

from schnauz_env.cards import parse_cards
from schnauz_env.scat import ScatConfig, evaluate_hand, hand_label, hand_value, is_blitz

# (hand, value, value with no_trinca, why)
VALUES = [
    ("AH KH 9H", 30.0, 30.0, "ace, king, nine of one suit"),
    ("AS KS 10S", 31.0, 31.0, "ace and two 10-point cards: 31"),
    ("AD JD QD", 31.0, 31.0, "J and Q count 10 each"),
    ("10C JC QC", 30.0, 30.0, "three 10-point cards: 30"),
    ("7C 7S 7H", 30.5, 7.0, "trinca counts 30.5; without it a lone 7"),
    ("2C 2S 2D", 30.5, 2.0, "the lowest trinca is still 30.5"),
    ("AC AS AH", 30.5, 11.0, "three aces are a trinca, not 33"),
    ("KC KS KH", 30.5, 10.0, "three kings"),
    ("7S 8H KH", 18.0, 18.0, "only the best suit counts: 8 + K of hearts"),
    ("AS 7H 8H", 15.0, 15.0, "7 + 8 of hearts beat the lone ace"),
    ("AC 7H 8D", 11.0, 11.0, "three suits: the ace alone"),
    ("2C 3S 4H", 4.0, 4.0, "the worst kind of hand"),
    ("AC KC 2D", 21.0, 21.0, "two of a suit"),
    ("KC QC 5C", 25.0, 25.0, "three of a suit"),
    ("9D 9C 5C", 14.0, 14.0, "a pair is nothing special"),
    ("10H 10S 10D", 30.5, 10.0, "three tens: trinca"),
]

# four-card Scat: (hand, value, blitz)
FOUR_CARD = [
    ("AC KC QC JC", 41.0, True),
    ("AC KC QC 10C", 41.0, True),
    ("AC KC QC 9C", 40.0, False),
    ("AC KC QC 2D", 31.0, False),  # 31 is not the blitz with four cards
    ("7C 7S 7H 7D", 7.0, False),  # no trinca in four-card Scat
    ("7C 7S 7H 2C", 9.0, False),
    ("2C 3S 4H 5D", 5.0, False),
]


@pytest.mark.parametrize(("hand", "value", "plain", "why"), VALUES)
def test_hand_values(hand: str, value: float, plain: float, why: str) -> None:
    assert evaluate_hand(hand).value == value, why
    assert evaluate_hand(hand, no_trinca=True).value == plain, why
    ints = sorted(int(c) for c in parse_cards(hand))
    assert hand_value(ints) == value
    assert hand_value(ints, trinca=False) == plain


@pytest.mark.parametrize("hand", [h for h, *_ in VALUES])
def test_value_does_not_depend_on_card_order(hand: str) -> None:
    cards = hand.split()
    values = {evaluate_hand(list(p)).value for p in itertools.permutations(cards)}
    assert len(values) == 1


@pytest.mark.parametrize(("hand", "value", "blitz"), FOUR_CARD)
def test_four_card_hands(hand: str, value: float, blitz: bool) -> None:
    result = evaluate_hand(hand)
    assert result.value == value
    assert result.blitz is blitz
    assert ScatConfig(four_card=True).trinca is False


@pytest.mark.parametrize(
    ("hand", "blitz"),
    [
        ("AS KS 10S", True),
        ("AH QH JH", True),
        ("AC KC 9C", False),  # 30
        ("7C 7S 7H", False),  # 30.5 is not 31
        ("KC QC JC", False),  # 30
        ("AS KS 10H", False),  # 21
    ],
)
def test_blitz_is_31_in_one_suit(hand: str, blitz: bool) -> None:
    assert evaluate_hand(hand).blitz is blitz
    assert is_blitz(int(c) for c in parse_cards(hand)) is blitz


def test_order_trinca_between_30_and_31() -> None:
    thirty = evaluate_hand("AH KH 9H")
    trinca = evaluate_hand("2C 2S 2H")
    blitz = evaluate_hand("AS KS 10S")
    assert thirty < trinca < blitz
    assert max([thirty, blitz, trinca]) is blitz


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("AH KH 9H", "AC KC 9C"),  # no suit tie-breaks
        ("KC KS KH", "2C 2S 2H"),  # every trinca is 30.5
        ("AC 2S 3H", "AD 4S 5H"),  # 11 and 11 (a lone ace against another)
        ("10C JC QC", "AS KS 9S"),  # 30 = 30
    ],
)
def test_equal_values_are_equal(a: str, b: str) -> None:
    assert evaluate_hand(a) == evaluate_hand(b)
    assert not evaluate_hand(a) < evaluate_hand(b)
    assert not evaluate_hand(a) > evaluate_hand(b)


@pytest.mark.parametrize(
    ("hand", "label"),
    [
        ("AS KS 10S", "31 ♠ (blitz)"),
        ("7C 7S 7H", "30½ (trinca)"),
        ("7S 8H KH", "18 ♥"),
        ("AC KC QC JC", "41 ♣ (blitz)"),
    ],
)
def test_labels(hand: str, label: str) -> None:
    assert hand_label(int(c) for c in parse_cards(hand)) == label
    assert evaluate_hand(hand).label == label


@pytest.mark.parametrize(
    ("hand", "message"),
    [
        ("AS KS", "3 cards"),
        ("AS KS QS JS 10S", "3 cards"),
        ("AS AS KS", "same card twice"),
        ("AS KS 1S", "bad card code"),
        ("AS KS ZZ", "bad card code"),
    ],
)
def test_bad_hands_raise_clear_errors(hand: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        evaluate_hand(hand)


def test_every_three_card_hand_matches_the_rule_text() -> None:
    """All 22,100 hands: the best suit total, 30.5 for three of a rank, 31 only in one suit."""
    names = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
    points = {name: int(name) for name in names[:9]} | {"J": 10, "Q": 10, "K": 10, "A": 11}
    for hand in itertools.combinations(range(52), 3):
        ranks = [names[c >> 2] for c in hand]
        suits = [c & 3 for c in hand]
        by_suit = [0, 0, 0, 0]
        for r, s in zip(ranks, suits, strict=True):
            by_suit[s] += points[r]
        best = max(by_suit)
        trinca = len(set(ranks)) == 1
        assert hand_value(list(hand)) == (30.5 if trinca else best)
        assert hand_value(list(hand), trinca=False) == best
        assert is_blitz(hand) == (best == 31)
        assert best != 31 or len(set(suits)) == 1
