"""Card codes (RULES.md "Environment conventions": card codes) and stacked-deck validation."""

from __future__ import annotations

import pytest

from schnauz_env.cards import (
    ALL_CARDS,
    Card,
    deck_of,
    format_card,
    format_cards,
    make_card,
    parse_card,
    parse_cards,
    validate_deck,
)
from schnauz_env.schnauz import SchnauzConfig

A7 = SchnauzConfig(num_players=2, deck="A7").deck_cards


@pytest.mark.parametrize(
    ("code", "rank", "suit", "canonical"),
    [
        ("7C", "7", "C", "7C"),
        ("10H", "10", "H", "10H"),
        ("QS", "Q", "S", "QS"),
        ("AD", "A", "D", "AD"),
        ("2C", "2", "C", "2C"),
        ("KD", "K", "D", "KD"),
        ("10h", "10", "H", "10H"),
        ("qs", "Q", "S", "QS"),
        ("aD", "A", "D", "AD"),
        ("jc", "J", "C", "JC"),
    ],
)
def test_parse_card_upper_and_lower_case(code, rank, suit, canonical):
    card = parse_card(code)
    assert card.rank_name == rank
    assert card.suit_name == suit
    assert str(card) == card.code == format_card(card) == canonical


def test_card_index_is_rank_major():
    # rank index 0 = "2" .. 12 = "A"; suit index 0 C, 1 S, 2 H, 3 D
    assert int(parse_card("2C")) == 0
    assert int(parse_card("2D")) == 3
    assert int(parse_card("10H")) == 8 * 4 + 2
    assert int(parse_card("AD")) == 51
    assert make_card(12, 1) == parse_card("AS")


def test_symbols():
    assert format_card(parse_card("10H"), symbols=True) == "10♥"
    assert parse_card("7c").symbol == "7♣"
    assert format_cards(parse_cards("AS KD QC"), symbols=True) == "A♠ K♦ Q♣"


def test_every_card_round_trips():
    for card in ALL_CARDS:
        assert parse_card(card.code) == card
        assert parse_card(card.code.lower()) == card


def test_parse_cards_accepts_spaces_commas_and_lists():
    expected = [parse_card("7C"), parse_card("10H"), parse_card("QS")]
    assert parse_cards("7C 10H QS") == expected
    assert parse_cards("7c,10h, qs") == expected
    assert parse_cards(["7C", "10H", "QS"]) == expected
    assert format_cards(expected) == "7C 10H QS"


@pytest.mark.parametrize(
    "bad",
    ["1H", "11H", "TH", "7X", "7", "H", "", "10", "ZZ", "7CC", "0C", "1OH", "A♠", "K D"],
)
def test_bad_code_rejected_naming_it(bad):
    with pytest.raises(ValueError) as err:
        parse_card(bad)
    assert repr(bad) in str(err.value)


def test_bad_code_in_a_list_is_named():
    with pytest.raises(ValueError, match="'9X'"):
        parse_cards("7C 9X QS")


@pytest.mark.parametrize("bad", [52, -1, 3.0, None, True])
def test_non_codes_rejected(bad):
    with pytest.raises(ValueError):
        parse_card(bad)


def test_card_index_out_of_range():
    with pytest.raises(ValueError, match="52"):
        Card(52)


def test_deck_of_variants():
    assert len(A7) == 32
    assert format_cards(A7[:5]) == "7C 7S 7H 7D 8C"
    assert format_card(A7[-1]) == "AD"
    assert len(deck_of(7)) == 24
    assert len(deck_of(3)) == 40


# ----------------------------------------------------------------- validate_deck
def a7_codes() -> list[str]:
    return [c.code for c in A7]


def test_validate_deck_accepts_any_order_and_lower_case():
    codes = list(reversed(a7_codes()))
    codes[0] = codes[0].lower()
    assert [int(c) for c in validate_deck(codes, A7)] == [int(parse_card(c)) for c in codes]


def test_validate_deck_duplicate():
    codes = a7_codes()
    codes[1] = "7C"  # 7S replaced by a second 7C
    with pytest.raises(ValueError) as err:
        validate_deck(codes, A7)
    msg = str(err.value)
    assert "duplicated: 7C" in msg
    assert "missing: 7S" in msg


def test_validate_deck_missing_card():
    codes = a7_codes()
    codes.remove("QH")
    with pytest.raises(ValueError) as err:
        validate_deck(codes, A7)
    assert "missing: QH" in str(err.value)
    assert "got 31 cards" in str(err.value)


def test_validate_deck_foreign_card():
    codes = a7_codes()
    codes[codes.index("8D")] = "2D"
    with pytest.raises(ValueError) as err:
        validate_deck(codes, A7, "stacked deck")
    msg = str(err.value)
    assert "not in this deck: 2D" in msg
    assert "missing: 8D" in msg
    assert "stacked deck" in msg


def test_validate_deck_wrong_length():
    with pytest.raises(ValueError, match="got 33 cards"):
        validate_deck([*a7_codes(), "7C"], A7)
    with pytest.raises(ValueError, match="got 0 cards"):
        validate_deck([], A7)


def test_validate_deck_bad_code_named():
    codes = a7_codes()
    codes[5] = "8Q"
    with pytest.raises(ValueError, match="'8Q'"):
        validate_deck(codes, A7)


def test_validate_deck_rejects_a_string():
    with pytest.raises(ValueError, match="list of card codes"):
        validate_deck(" ".join(a7_codes()), A7)
