"""Thirteen card order, combination recognition and beating (RULES.md §3), table-driven."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest

from schnauz_env.cards import format_cards
from schnauz_env.thirteen import (
    DOUBLE_SEQUENCE,
    PAIR,
    QUAD,
    SEQUENCE,
    SINGLE,
    TRIPLE,
    beats,
    card_of,
    classify,
    legal_plays,
    strength,
)
from schnauz_env.thirteen.combos import (
    can_beat,
    classify_strengths,
    combo_beats,
    plays_strengths,
)

# ------------------------------------------------------------------ card order


def test_strength_runs_3_spades_to_2_hearts():
    order = [card_of(s).code for s in range(52)]
    assert order[:8] == ["3S", "3C", "3D", "3H", "4S", "4C", "4D", "4H"]
    assert order[-4:] == ["2S", "2C", "2D", "2H"]
    assert sorted(range(52), key=lambda s: strength(card_of(s))) == list(range(52))


@pytest.mark.parametrize(
    ("low", "high"),
    [
        ("4H", "5S"),  # rank before suit: the lowest 5 beats the highest 4
        ("5S", "5C"),  # spades < clubs
        ("5C", "5D"),  # clubs < diamonds
        ("5D", "5H"),  # diamonds < hearts
        ("AH", "2S"),  # 2 is the highest rank
        ("KH", "AS"),
        ("10H", "JS"),
    ],
)
def test_strength_order(low, high):
    assert strength(low) < strength(high)


# --------------------------------------------------------------- recognition

RECOGNISED = [
    ("3S", SINGLE, 1, "3S"),
    ("2H", SINGLE, 1, "2H"),
    ("5S 5H", PAIR, 2, "5H"),
    ("2S 2D", PAIR, 2, "2D"),
    ("9C 9S 9D", TRIPLE, 3, "9D"),
    ("2S 2C 2H", TRIPLE, 3, "2H"),
    ("7S 7C 7D 7H", QUAD, 4, "7H"),
    ("2S 2C 2D 2H", QUAD, 4, "2H"),
    ("3S 4H 5C", SEQUENCE, 3, "5C"),
    ("5C 4H 3S", SEQUENCE, 3, "5C"),  # any order
    ("QH KS AS", SEQUENCE, 3, "AS"),  # an ace ends a sequence
    ("9S 10S JS QS KS AS", SEQUENCE, 6, "AS"),
    ("3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AH", SEQUENCE, 12, "AH"),
    ("3S 3H 4C 4D 5S 5H", DOUBLE_SEQUENCE, 6, "5H"),
    ("QS QH KC KD AS AC", DOUBLE_SEQUENCE, 6, "AC"),
    ("3S 3H 4C 4D 5S 5H 6S 6C", DOUBLE_SEQUENCE, 8, "6C"),
    ("8S 8H 9C 9D 10S 10H JS JC QS QD KH KD", DOUBLE_SEQUENCE, 12, "KH"),
]


@pytest.mark.parametrize(("cards", "kind", "size", "top"), RECOGNISED)
def test_recognised(cards, kind, size, top):
    combo = classify(cards)
    assert combo is not None
    assert (combo.kind, combo.size, card_of(combo.top).code) == (kind, size, top)


NOT_COMBINATIONS = [
    "3S 4H",  # two cards of different ranks
    "3S 5H 6C",  # a gap
    "KS AS 2S",  # a 2 never sits in a sequence
    "AS 2S 3S",  # no wrapping round
    "QS KS AS 2H",
    "2S 3S 4S",
    "3S 3H 4C 4D",  # two pairs: a double sequence needs three
    "3S 3H 4C 4D 5S",
    "3S 3H 3C 4D 4S 4H",  # two triples
    "3S 3H 4C 5D 5S 5H",
    "3S 3H 4C 4D 6S 6H",  # pairs with a gap
    "KS KH AC AD 2S 2H",  # a 2 never sits in a double sequence
    "JS JH QC QD KS KH AS AH 2S 2H",
    "3S 3H 4C 4D 5S 5H 6S",  # odd card out
]


@pytest.mark.parametrize("cards", NOT_COMBINATIONS)
def test_not_a_combination(cards):
    assert classify(cards) is None


def test_classify_rejects_a_repeated_card():
    with pytest.raises(ValueError, match="twice"):
        classify("5S 5S")


# ------------------------------------------------------------------- beating

BEATING = [
    # same kind, same size, higher top card
    ("5S", "4H", True),
    ("4H", "5S", False),
    ("5H", "5S", True),
    ("5S", "5H", False),
    ("5S", "5S 5C", False),  # a single never beats a pair
    ("2S", "AH", True),
    ("6S 6C", "5H 5D", True),
    ("5C 5H", "5S 5D", True),  # seed: C5 H5 on D5 S5, the top 5♥ beats 5♦
    ("5S 5D", "5C 5H", False),
    ("9S 9C 9D", "8S 8C 8H", True),
    ("5C 6H 7D", "5D 6D 7C", True),  # seed: C5 H6 D7 on D5 D6 C7
    ("6S 7S 8S", "5D 6D 7C", True),
    ("5D 6D 7C", "5C 6H 7D", False),
    ("4S 5S 6S 7S", "3S 4S 5S", False),  # a longer sequence is another kind
    ("3S 4S 5S", "4H 5H 6H 7H", False),
    ("4S 4C 5D 5H 6S 6C", "3S 3C 4D 4H 5S 5C", True),
    ("4S 4C 5D 5H 6S 6C", "3D 3H 4S 4C 5D 5H", True),
    ("3D 3H 4S 4C 5D 5H", "3S 3C 4D 4H 5S 5C", True),  # same ranks, higher top suit
    ("8S 8C 8D 8H", "7S 7C 7D 7H", True),
    ("7S 7C 7D 7H", "8S 8C 8D 8H", False),
    ("2S 2C 2D 2H", "AS AC AD AH", True),
    # bombs on 2s
    ("3S 3C 3D 3H", "2H", True),  # four of a kind on a single 2
    ("3S 3C 4D 4H 5S 5C", "2H", True),  # 3-pair double sequence on a single 2
    ("3S 3C 4D 4H 5S 5C 6S 6C", "2H", True),  # 4 pairs on a single 2
    ("3S 3C 4D 4H 5S 5C 6S 6C 7S 7C", "2S", True),
    ("3S 3C 3D 3H", "2S 2C", False),  # four of a kind does not beat a pair of 2s
    ("3S 3C 4D 4H 5S 5C", "2S 2C", False),  # 3-pair double sequence: not on a pair of 2s
    ("3S 3C 4D 4H 5S 5C 6S 6C", "2S 2C", True),  # 4 pairs beat a pair of 2s
    ("3S 3C 4D 4H 5S 5C 6S 6C", "2S 2C 2D", False),
    ("3S 3C 3D 3H", "2S 2C 2D", False),
    ("3S 3C 4D 4H 5S 5C 6S 6C 7S 7C", "2S 2C 2D", True),  # 5 pairs beat three 2s
    ("3S 3C 4D 4H 5S 5C 6S 6C 7S 7C", "2S 2C", True),
    # bombs are only bombs on 2s
    ("3S 3C 3D 3H", "AH", False),
    ("3S 3C 4D 4H 5S 5C", "AH", False),
    ("3S 3C 4D 4H 5S 5C 6S 6C", "AS AH", False),
    # bomb on bomb: only the same kind and size, with a higher top
    ("3S 3C 3D 3H", "4S 4C 5D 5H 6S 6C", False),  # four of a kind on a double sequence
    ("4S 4C 5D 5H 6S 6C", "3S 3C 3D 3H", False),  # double sequence on four of a kind
    ("3S 3C 4D 4H 5S 5C 6S 6C", "7S 7C 8D 8H 9S 9C", False),  # 4 pairs on 3 pairs
    ("8S 8C 9D 9H 10S 10C", "3S 3C 4D 4H 5S 5C", True),
    ("9S 9C 9D 9H", "3S 3C 3D 3H", True),
]


@pytest.mark.parametrize(("play", "table", "expected"), BEATING)
def test_beats(play, table, expected):
    assert beats(play, table) is expected


def test_beats_needs_combinations():
    with pytest.raises(ValueError, match="not a combination"):
        beats("3S 5S", "4H")


def test_a_bomb_on_a_single_two_is_beaten_only_by_a_bigger_bomb_of_its_kind():
    table = classify("2H")
    quad = classify("5S 5C 5D 5H")
    dseq = classify("3S 3C 4D 4H 5S 5C")
    assert combo_beats(quad, table) and combo_beats(dseq, table)
    assert combo_beats(classify("6S 6C 6D 6H"), quad)
    assert not combo_beats(classify("4S 4C 4D 4H"), quad)
    assert not combo_beats(dseq, quad) and not combo_beats(quad, dseq)
    assert combo_beats(classify("4S 4C 5D 5H 6S 6C"), dseq)
    assert not combo_beats(classify("4S 4C 5D 5H 6S 6C 7S 7C"), dseq)


# ---------------------------------------------------------------- enumeration


def test_legal_plays_when_leading():
    plays = {format_cards(p) for p in legal_plays("3S 3C 4D 5H 2S")}
    assert plays == {
        "3S", "3C", "4D", "5H", "2S",
        "3S 3C",
        "3S 4D 5H", "3C 4D 5H",
    }  # fmt: skip


def test_legal_plays_on_a_single_two_include_the_bombs():
    plays = {format_cards(p) for p in legal_plays("2H 7S 7C 7D 7H 9S", table="2C")}
    assert plays == {"2H", "7S 7C 7D 7H"}


def test_legal_plays_must_include():
    plays = legal_plays("3S 3C 4D 5H", must_include="3S")
    assert {format_cards(p) for p in plays} == {"3S", "3S 3C", "3S 4D 5H"}


def _oracle(hand: list[int], table, must: int | None) -> set[tuple[int, ...]]:
    """Every subset of the hand that is a combination beating ``table``."""
    out = set()
    for k in range(1, len(hand) + 1):
        for sub in combinations(hand, k):
            combo = classify_strengths(sub)
            if combo is None or (must is not None and must not in sub):
                continue
            if table is None or combo_beats(combo, table):
                out.add(sub)
    return out


def _random_table(rng: np.random.Generator, cards: list[int]):
    """A random combination from ``cards`` (strengths), or None."""
    plays = plays_strengths(cards)
    return classify_strengths(plays[rng.integers(len(plays))]) if plays else None


def test_enumeration_matches_every_subset_of_random_hands():
    rng = np.random.default_rng(7)
    for trial in range(150):
        deck = rng.permutation(52)
        hand = sorted(int(s) for s in deck[:11])
        # tables drawn from the other cards, half of them 2s and bombs territory
        others = sorted(int(s) for s in deck[11:30])
        table = None if trial % 5 == 0 else _random_table(rng, others)
        if trial % 3 == 0:
            table = classify_strengths(
                sorted(int(s) for s in rng.choice(range(48, 52), 1 + trial % 3, replace=False))
            )
        must = hand[0] if trial % 7 == 0 else None
        got = plays_strengths(hand, table, must)
        assert len(got) == len(set(got)), "a play is listed twice"
        assert set(got) == _oracle(hand, table, must), (hand, table)


def test_can_beat_agrees_with_enumeration():
    rng = np.random.default_rng(11)
    for trial in range(400):
        deck = rng.permutation(52)
        size = 5 + trial % 30
        cards = sorted(int(s) for s in deck[:size])
        table = _random_table(rng, sorted(int(s) for s in deck[size : size + 14]))
        if trial % 4 == 0:
            table = classify_strengths(
                sorted(int(s) for s in rng.choice(range(48, 52), 1 + trial % 3, replace=False))
            )
        if table is None:
            continue
        assert can_beat(cards, table) == bool(plays_strengths(cards, table)), (cards, table)
