"""Schnauz hand order (RULES.md §1 "Hands, highest first"), table-driven."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schnauz_env.cards import parse_cards
from schnauz_env.schnauz import SchnauzConfig, evaluate_hand, hand_key, hand_label

A5 = [int(c) for c in SchnauzConfig(num_players=2, deck="A5").deck_cards]

# (higher, lower, why): the first hand beats the second with ties="break".
HIGHER_LOWER = [
    # categories: Fire > Schnauz > 30½ > points
    ("AC AS AH", "AD KD QD", "Fire beats Schnauz"),
    ("AC AS AD", "KC KS KH", "Fire beats thirty-and-a-half"),
    ("AS AH AD", "KC QC 9C", "Fire beats points"),
    ("AS KS 10S", "KC KH KD", "Schnauz beats thirty-and-a-half"),
    ("AD JD 10D", "AC KC 9C", "Schnauz (31) beats 30 points"),
    ("7C 7S 7H", "KC QC JC", "the lowest 30½ beats 30 points"),
    ("7C 7S 7H", "AH KH 9H", "30½ beats A-K-9 (30)"),
    # Schnauz against Schnauz: by suit ♣ > ♠ > ♥ > ♦
    ("AC KC QC", "AS KS QS", "Schnauz ♣ beats Schnauz ♠"),
    ("AS JS 10S", "AH KH QH", "Schnauz ♠ beats Schnauz ♥"),
    ("AH 10H JH", "AD KD QD", "Schnauz ♥ beats Schnauz ♦"),
    # 30½ against 30½: by card value, then rank K > Q > J > 10
    ("10C 10S 10H", "7C 7S 7H", "three 10s beat three 7s"),
    ("9C 9S 9D", "8C 8S 8H", "three 9s beat three 8s"),
    ("JC JS JD", "9C 9S 9H", "three jacks beat three 9s"),
    ("KC KS KH", "JC JS JH", "equal value: K beats J"),
    ("KC KS KH", "QC QS QD", "equal value: K beats Q"),
    ("QC QS QH", "JC JS JD", "equal value: Q beats J"),
    ("JC JS JH", "10C 10S 10D", "equal value: J beats 10"),
    # points: the seed's examples
    ("7S 8H KH", "AS 7H 8H", "seed: 18 beats 15"),
    ("AS 7H 8H", "AC 7D 8S", "15 (♥ 7+8) beats 11 (lone ace)"),
    # points: only one suit counts, a lone card counts its own points
    ("KC 9S 8H", "7C 8S 9H", "lone K (10) beats lone 9"),
    ("AC AS KH", "KC 9S 8H", "a lone ace (11) beats a lone king (10)"),
    ("8D 7D 7C", "AC KH QS", "15 ♦ beats 11 ♣"),
    ("7C 8C 9C", "AH QH 9S", "24 beats 21"),
    ("AH KH 9H", "AC KC 8C", "30 beats 29"),
    # points ties: the scoring suit ♣ > ♠ > ♥ > ♦
    ("QC JC 7H", "QS JS 7D", "20 ♣ beats 20 ♠"),
    ("QS JS 7D", "KH 10H 8C", "20 ♠ beats 20 ♥"),
    ("KH 10H 8C", "KD 10D 9S", "20 ♥ beats 20 ♦"),
    ("7C 8S 9H", "7S 8H 9D", "9 ♥ beats 9 ♦"),
    # points ties in one suit: the higher card, then the next (rank order)
    ("AC 8C 7H", "KC 9C 7S", "19 ♣: ace beats king"),
    ("KD 9D 7S", "QD 9C 7D", "19 ♦ beats 17 ♦: points before rank"),
    ("10C 9C 7H", "AH 8H 7D", "19 ♣ beats 19 ♥ (suit first, rank second)"),
    ("AC KC 7H", "AC QC 8H", "21 ♣ with the same ace: K beats Q"),
    ("AC QC 8H", "AC JC 9H", "21 ♣ with the same ace: Q beats J"),
    ("AC JC 9H", "AC 10C 8H", "21 ♣ with the same ace: J beats 10"),
    ("5C 6C AC", "5S 6S KS", "A5 deck: 22 beats 21"),
    ("AS KS 5C", "5S 6S JS", "21 ♠: A-K beats J-6-5 on the higher card"),
    # the scoring suit on equal sums is the higher suit
    ("QS KH 7C", "JS 8C 9H", "Q♠ K♥: scores ♠ with Q, which beats ♠ with J"),
    ("KH KD 7C", "QH 8D 7S", "K♥ K♦: scores ♥ with K, beats ♥ with Q"),
]


@pytest.mark.parametrize(("high", "low", "why"), HIGHER_LOWER, ids=[c[2] for c in HIGHER_LOWER])
def test_hand_order(high, low, why):
    assert evaluate_hand(high) > evaluate_hand(low), why
    assert evaluate_hand(low) < evaluate_hand(high), why
    assert hand_key(parse_cards(high)) > hand_key(parse_cards(low)), why


# (a, b, why): equal with ties="share", strictly ordered a > b with ties="break".
SHARE_EQUAL = [
    ("KC KS KH", "JC JS JH", "30½ of equal value"),
    ("KC KS KD", "10C 10S 10H", "three kings, three tens"),
    ("AC KC QC", "AD KD QD", "two Schnauz hands"),
    ("AS JS 10S", "AH QH KH", "two Schnauz hands"),
    ("QC JC 7H", "QS JS 7D", "20 points in two suits"),
    ("7C 8S 9H", "7S 8H 9D", "lone nines"),
    ("AC 8C 7H", "KC 9C 7S", "19 ♣, different ranks"),
    ("AC KC 7H", "AC QC 8H", "21 ♣ sharing the ace"),
]


@pytest.mark.parametrize(("a", "b", "why"), SHARE_EQUAL, ids=[c[2] for c in SHARE_EQUAL])
def test_ties_share_makes_equal_values_equal(a, b, why):
    assert evaluate_hand(a, ties="break") > evaluate_hand(b, ties="break"), why
    assert evaluate_hand(a, ties="share") == evaluate_hand(b, ties="share"), why
    assert not evaluate_hand(a, ties="share") > evaluate_hand(b, ties="share")
    assert hand_key(parse_cards(a), "share") == hand_key(parse_cards(b), "share")


@pytest.mark.parametrize(
    ("high", "low"),
    [
        ("AC AS AH", "AD KD QD"),  # Fire > Schnauz
        ("AD KD QD", "KC KS KH"),  # Schnauz > 30½
        ("10C 10S 10H", "7C 7S 7H"),  # 30½ by value
        ("7C 7S 7H", "KC QC JC"),  # 30½ > 30
        ("AH KH 9H", "AC KC 8C"),  # 30 > 29
        ("8C 8S 9S", "KC 7S 7H"),  # 17 > 14
    ],
)
def test_ties_share_keeps_the_categories_and_values(high, low):
    assert evaluate_hand(high, ties="share") > evaluate_hand(low, ties="share")


@pytest.mark.parametrize(
    ("hand", "label", "category", "points"),
    [
        ("AC AS AH", "Fire", "Fire", 33.0),
        ("AH KH QH", "Schnauz ♥", "Schnauz", 31.0),
        ("10C AC JC", "Schnauz ♣", "Schnauz", 31.0),
        ("QD AD KD", "Schnauz ♦", "Schnauz", 31.0),
        ("7C 7S 7H", "30½", "30½", 30.5),
        ("KS KH KD", "30½", "30½", 30.5),
        ("AC KC 7H", "21 ♣", "points", 21.0),
        ("7S 8H KH", "18 ♥", "points", 18.0),
        ("AS 7H 8H", "15 ♥", "points", 15.0),
        ("AC KC 9C", "30 ♣", "points", 30.0),
        ("AC AS KH", "11 ♣", "points", 11.0),  # equal sums: the higher suit scores
        ("QS KH 7C", "10 ♠", "points", 10.0),
        ("KH KD 7C", "10 ♥", "points", 10.0),
        ("7C 8S 9H", "9 ♥", "points", 9.0),
        ("AD AS KH", "11 ♠", "points", 11.0),
    ],
)
def test_labels(hand, label, category, points):
    value = evaluate_hand(hand)
    assert value.label == label
    assert hand_label(parse_cards(hand)) == label
    assert value.category == category
    assert value.points == points


def test_three_aces_of_a_kind_are_fire_not_thirty_and_a_half():
    assert evaluate_hand("AC AS AD").category == "Fire"
    assert evaluate_hand("AC AS KC").category == "points"  # A♣ K♣ = 21 ♣


def test_schnauz_needs_ace_and_two_ten_point_cards_of_one_suit():
    assert evaluate_hand("AH 10H JH").category == "Schnauz"
    assert evaluate_hand("AH KH 9H").category == "points"  # 30, one suit
    assert evaluate_hand("AH KH QS").category == "points"  # 21, two suits


@pytest.mark.parametrize("hand", ["7S 8H KH", "AC KC QC", "QS KH 7C", "JC JS JH", "AC JC 9H"])
def test_evaluate_hand_is_order_independent(hand):
    codes = hand.split()
    values = [evaluate_hand(list(p)) for p in itertools.permutations(codes)]
    values.append(evaluate_hand(" ".join(reversed(codes)).lower()))
    assert len({v.key for v in values}) == 1
    assert len({v.label for v in values}) == 1


def test_evaluate_hand_accepts_cards_and_ints():
    cards = parse_cards("7S 8H KH")
    assert (
        evaluate_hand(cards) == evaluate_hand([int(c) for c in cards]) == evaluate_hand("7S 8H KH")
    )


@pytest.mark.parametrize(
    ("hand", "message"),
    [
        ("7S 8H", "exactly 3 cards, got 2"),
        ("7S 8H KH QH", "exactly 3 cards, got 4"),
        ("", "exactly 3 cards, got 0"),
        ("7S 7S KH", "same card twice"),
        ("7s 7S KH", "same card twice"),
        ("7S 8X KH", "'8X'"),
        ("7S 1H KH", "'1H'"),
    ],
)
def test_bad_hands_rejected(hand, message):
    with pytest.raises(ValueError, match=message):
        evaluate_hand(hand)


def test_bad_ties_option_rejected():
    with pytest.raises(ValueError, match="ties"):
        evaluate_hand("7S 8H KH", ties="random")


# ------------------------------------------------------------------ properties
def reference_rank(hand: list[int]) -> tuple:
    """RULES.md's hand order written out independently, as a comparable tuple."""
    ranks = [c >> 2 for c in hand]
    suits = [c & 3 for c in hand]
    pts = [11 if r == 12 else 10 if r >= 8 else r + 2 for r in ranks]
    strength = [3, 2, 1, 0]  # ♣ > ♠ > ♥ > ♦
    if ranks == [12, 12, 12]:
        return (3,)
    if len(set(suits)) == 1 and sum(pts) == 31:
        return (2, strength[suits[0]])
    if len(set(ranks)) == 1:
        return (1, pts[0], ranks[0])
    totals = {s: sum(p for p, t in zip(pts, suits, strict=True) if t == s) for s in range(4)}
    best = max(totals.values())
    suit = max((s for s in range(4) if totals[s] == best), key=lambda s: strength[s])
    in_suit = sorted((r for r, s in zip(ranks, suits, strict=True) if s == suit), reverse=True)
    return (0, best, strength[suit], in_suit)


def sign(x: int) -> int:
    return (x > 0) - (x < 0)


triples = st.lists(st.sampled_from(A5), min_size=3, max_size=3, unique=True)


@settings(max_examples=400, deadline=None)
@given(triples, st.randoms(use_true_random=False))
def test_key_is_independent_of_order(hand, rnd):
    shuffled = list(hand)
    rnd.shuffle(shuffled)
    for ties in ("break", "share"):
        assert hand_key(hand, ties) == hand_key(shuffled, ties)
    assert hand_label(hand) == hand_label(shuffled)


@settings(max_examples=600, deadline=None)
@given(triples, triples)
def test_key_orders_like_the_rules(a, b):
    expected = sign(
        (reference_rank(a) > reference_rank(b)) - (reference_rank(a) < reference_rank(b))
    )
    assert sign(hand_key(a) - hand_key(b)) == expected


@settings(max_examples=400, deadline=None)
@given(triples, triples)
def test_share_never_reverses_the_break_order(a, b):
    if hand_key(a, "break") < hand_key(b, "break"):
        assert hand_key(a, "share") <= hand_key(b, "share")


@settings(max_examples=400, deadline=None)
@given(st.permutations(A5), st.integers(min_value=2, max_value=13))
def test_disjoint_hands_have_one_strict_lowest(deck, k):
    hands = [deck[3 * i : 3 * i + 3] for i in range(k)]
    keys = [hand_key(h, "break") for h in hands]
    assert keys.count(min(keys)) == 1
    assert len(set(keys)) == k  # indeed a strict order among distinct cards
