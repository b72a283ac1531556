"""Scripted Scat rounds on stacked decks (RULES.md §2), on the rules engine.

Moves are written ``"stock"`` / ``"pile"`` (draw from the stock / the discard pile),
``"-7C"`` (discard 7C), ``"knock"``, ``"pass"`` (a final turn's *stay*, or a pass
while the stock is empty). Unless a test says otherwise there are three players and
seat 2 deals, so the deal goes seat 0, 1, 2, one card at a time, and seat 0 plays
first.
"""

from __future__ import annotations

import numpy as np
import pytest

from schnauz_env.cards import ALL_CARDS, parse_card
from schnauz_env.scat import (
    DISCARD,
    DRAW,
    DRAW_DISCARD,
    DRAW_STOCK,
    FINAL_TURNS,
    KNOCK,
    PASS,
    TURNS,
    RoundResult,
    ScatConfig,
    ScatState,
    discard_action,
    new_game,
    stack_deck,
)

KNOCK_NOW = {"knock_on_first_turn": True}


def code(c: str) -> int:
    return int(parse_card(c))


def cards(codes: str) -> list[int]:
    return sorted(code(c) for c in codes.split())


def table(
    hands: dict[int, str],
    discard: str,
    stock: str = "",
    dealer: int | None = None,
    decks: list[list[str]] | None = None,
    seat_lives: list[int] | None = None,
    seed: int = 0,
    **rules,
) -> ScatState:
    """A game whose first round deals ``hands`` (seat -> cards), then ``discard``, then
    ``stock``; ``decks`` stack the following deals, ``seat_lives`` each seat's lives."""
    rules.setdefault("num_players", len(hands))
    n = rules["num_players"]
    dealer = n - 1 if dealer is None else dealer
    deck = stack_deck(hands, discard=discard, stock=stock, dealer=dealer)
    return new_game(
        ScatConfig(**rules),
        np.random.default_rng(seed),
        deck=deck,
        dealer=dealer,
        decks=decks,
        lives=seat_lives,
    )


def move(state: ScatState, m: str) -> int:
    if m == "stock":
        return DRAW_STOCK
    if m == "pile":
        return DRAW_DISCARD
    if m == "knock":
        return KNOCK
    if m == "pass":
        return PASS
    assert m.startswith("-"), m
    hand = state.hands[state.current]
    c = code(m[1:])
    assert c in hand, f"{m[1:]} is not in the hand of seat {state.current}"
    return discard_action(hand.index(c))


def play(state: ScatState, *moves: str) -> list[RoundResult]:
    """Play ``moves``; return the round results they produced."""
    results = []
    for m in moves:
        r = state.apply(move(state, m))
        if r is not None:
            results.append(r)
    return results


def draw_and_throw(state: ScatState, source: str = "stock") -> RoundResult | None:
    """The player to act draws from ``source`` and throws the card drawn (hand unchanged)."""
    seat = state.current
    drawn = state.stock[0] if source == "stock" else state.pile[-1]
    assert state.apply(DRAW_STOCK if source == "stock" else DRAW_DISCARD) is None
    return state.apply(discard_action(state.hands[seat].index(drawn)))


def empty_the_stock(state: ScatState, leave: int = 0) -> None:
    """Everyone draws from the stock and throws the card drawn, until ``leave`` are left."""
    while state.stock_size > leave:
        assert draw_and_throw(state) is None


# ------------------------------------------------------------------ dealing and turns


def test_deal_one_card_at_a_time_from_the_left_of_the_dealer() -> None:
    top = ["AC", "AS", "AH", "AD", "KC", "KS", "KH", "KD", "QC", "QS", "2C"]
    deck = top + [c.code for c in ALL_CARDS if c.code not in top]
    state = new_game(ScatConfig(num_players=3), np.random.default_rng(0), deck=deck, dealer=1)
    # left of dealer 1 is seat 2, then 0, then 1 (the dealer), three times around
    assert state.hands[2] == cards("AC AD KH")
    assert state.hands[0] == cards("AS KC KD")
    assert state.hands[1] == cards("AH KS QC")
    assert state.pile == [code("QS")]  # the next card starts the discard pile
    assert state.stock[0] == code("2C")  # draws come from the top
    assert state.current == 2  # play starts left of the dealer
    assert state.stock_size == 52 - 10


def test_stack_deck_follows_the_dealing_order() -> None:
    state = table({0: "2C 3C 4C", 1: "2S 3S 4S", 2: "2H 3H 4H"}, "5D", stock="6D 7D")
    assert state.hands == [cards("2C 3C 4C"), cards("2S 3S 4S"), cards("2H 3H 4H")]
    assert state.pile == [code("5D")]
    assert state.stock[:2] == [code("6D"), code("7D")]


def test_a_turn_is_a_draw_then_a_discard() -> None:
    state = table({0: "2C 5S 9H", 1: "3C 6S 8H", 2: "4C 7S 10D"}, "KH", stock="QD")
    assert state.legal_actions() == (DRAW_STOCK, DRAW_DISCARD)  # no knock on a first turn
    play(state, "pile")
    assert state.step == DISCARD
    assert state.hands[0] == cards("2C 5S 9H KH")
    assert state.legal_actions() == tuple(discard_action(i) for i in range(4))
    assert state.known[0] == {code("KH")}  # everyone saw it taken
    play(state, "-2C")
    assert state.hands[0] == cards("5S 9H KH")
    assert state.pile == [code("2C")] and state.current == 1 and state.step == DRAW
    play(state, "stock", "-QD")  # the card just drawn may be thrown at once
    assert state.hands[1] == cards("3C 6S 8H") and state.pile[-1] == code("QD")


def test_no_knock_on_the_first_turn_by_default() -> None:
    state = table({0: "AC KC 9C", 1: "3C 6S 8H", 2: "4C 7S 10D"}, "2D")
    for seat in (0, 1, 2):  # the first circle: nobody may knock
        assert state.current == seat and KNOCK not in state.legal_actions()
        draw_and_throw(state)
    assert state.current == 0 and KNOCK in state.legal_actions()


def test_knock_on_the_first_turn_option() -> None:
    state = table({0: "AC KC 9C", 1: "3C 6S 8H", 2: "4C 7S 10D"}, "2D", **KNOCK_NOW)
    assert KNOCK in state.legal_actions()


# ------------------------------------------------------------------ the loss rules


@pytest.mark.parametrize(
    ("hands", "losses", "why"),
    [
        ({0: "AC KC 9C", 1: "KH 9H 2S", 2: "3C 6S 8D"}, {2: 1}, "the single lowest loses one"),
        ({0: "AC KC 9C", 1: "KH 9H 2S", 2: "KS 9S 3H"}, {1: 1, 2: 1}, "ties for lowest all lose"),
        (
            {0: "2C 3S 4H", 1: "KH 9H 2S", 2: "KS 9S 3H"},
            {0: 2},
            "a knocker strictly lowest loses two",
        ),
        (
            {0: "KC 9C 5H", 1: "KH 9H 2S", 2: "AS QS 3H"},
            {1: 1},
            "a knocker tied for lowest is safe",
        ),
        (
            {0: "KC 9C 5H", 1: "KH 9H 2S", 2: "KS 9S 3H"},
            {1: 1, 2: 1},
            "knocker safe, the others tied with them lose",
        ),
    ],
)
def test_showdown_losses(hands: dict[int, str], losses: dict[int, int], why: str) -> None:
    state = table(hands, "2D", stock="3D 4D", **KNOCK_NOW)
    assert play(state, "knock") == []
    assert state.phase == FINAL_TURNS and state.knocker == 0
    assert state.legal_actions() == (DRAW_STOCK, DRAW_DISCARD, PASS)  # no second knock
    (result,) = play(state, "pass", "pass")  # both stay
    assert result.reason == "knock" and result.knocker == 0
    assert result.losses == losses, why
    assert state.lives == [3 - losses.get(s, 0) for s in range(3)]
    assert state.round == 1 and state.dealer == 0  # next round dealt, deal moved left


def test_final_turns_go_round_to_the_knocker() -> None:
    state = table(
        {0: "2C 3S 4H", 1: "5C 6S 7H", 2: "8C 9S 10D", 3: "JC QS KD"},
        "2D",
        stock="AD 3D 4D 5D",
        **KNOCK_NOW,
    )
    play(state, "stock", "-AD")
    play(state, "knock")  # seat 1 knocks: seats 2, 3 and 0 each get one more turn
    order = []
    result = None
    while result is None:
        order.append(state.current)
        result = state.apply(PASS)
    assert order == [2, 3, 0]
    assert result.knocker == 1


# ------------------------------------------------------------------ blitz


def test_blitz_after_the_deal_one_holder() -> None:
    state = table({0: "2C 3S 4H", 1: "AS KS 10S", 2: "5C 6S 7H"}, "2D")
    result = state.opening_result
    assert result is not None and result.reason == "blitz_deal"
    assert result.blitz_holders == [1]
    assert result.losses == {0: 1, 2: 1}  # every other player, whatever their hand
    assert state.lives == [2, 3, 2]
    assert state.round == 1 and state.phase == TURNS  # the next round is dealt at once


def test_blitz_after_the_deal_several_holders_are_all_safe() -> None:
    state = table({0: "AH QH JH", 1: "AS KS 10S", 2: "5C 6S 7H"}, "2D")
    result = state.opening_result
    assert result.blitz_holders == [0, 1]
    assert result.losses == {2: 1}
    assert state.lives == [3, 3, 2]


def test_blitz_after_a_discard_ends_the_round_at_once() -> None:
    state = table({0: "AS KS 2D", 1: "3C 6H 8H", 2: "4C 7H 9D"}, "QS")
    (result,) = play(state, "pile", "-2D")
    assert result.reason == "blitz" and result.blitz_holders == [0]
    assert result.losses == {1: 1, 2: 1}
    assert result.values[0] == 31.0


def test_blitz_from_the_stock_too() -> None:
    state = table({0: "2C 3S 4H", 1: "AS KS 2D", 2: "4C 7H 9D"}, "5H", stock="6H JS")
    play(state, "stock", "-2C")
    (result,) = play(state, "stock", "-2D")
    assert result.reason == "blitz" and result.losses == {0: 1, 2: 1}


def test_31_after_a_knock_is_just_a_hand() -> None:
    state = table({0: "KC QC 2H", 1: "AS KS 2D", 2: "3C 4H 6D"}, "QS", **KNOCK_NOW)
    play(state, "knock")
    assert play(state, "pile", "-2D") == []  # 31 now, but someone knocked: no blitz
    assert state.hands[1] == cards("AS KS QS")
    (result,) = play(state, "pass")
    assert result.reason == "knock" and result.blitz_holders == []
    assert result.losses == {2: 1}  # only the lowest hand loses; the knocker does not


def test_a_three_of_a_kind_is_not_a_blitz() -> None:
    state = table({0: "7C 7S 2D", 1: "3C 6H 8H", 2: "4C 5H 9D"}, "7H")
    assert play(state, "pile", "-2D") == []
    assert state.hand_value(0) == 30.5


# ------------------------------------------------------------------ lives, bus, out


def test_losing_on_the_bus_eliminates() -> None:
    state = table(
        {0: "AC KC 9C", 1: "KH 9H 2S", 2: "3C 6S 8D"}, "2D", seat_lives=[3, 3, 0], **KNOCK_NOW
    )
    assert state.on_the_bus == [False, False, True]
    (result,) = play(state, "knock", "pass", "pass")
    assert result.went_out == [2] and result.round_places == {2: 3.0}
    assert state.out == [False, False, True] and state.num_active == 2
    assert not state.game_over and state.hands[2] == []


def test_lives_run_down_to_the_bus_then_out() -> None:
    state = table(
        {0: "AC KC 9C", 1: "KH 9H 2S", 2: "3C 6S 8D"}, "2D", seat_lives=[3, 3, 1], **KNOCK_NOW
    )
    play(state, "knock", "pass", "pass")
    assert state.lives[2] == 0 and state.on_the_bus[2] and not state.out[2]


def test_a_failed_knock_with_one_life_goes_out() -> None:
    """[choice] A loss of two counts two steps: 1 life -> on the bus -> out."""
    state = table(
        {0: "2C 3S 4H", 1: "KH 9H 2S", 2: "KS 9S 3H"}, "2D", seat_lives=[1, 3, 3], **KNOCK_NOW
    )
    (result,) = play(state, "knock", "pass", "pass")
    assert result.losses == {0: 2} and result.went_out == [0]


def test_players_going_out_together_share_their_places() -> None:
    state = table(
        {0: "AC KC 9C", 1: "KH 9H 2S", 2: "KS 9S 3H"}, "2D", seat_lives=[3, 0, 0], **KNOCK_NOW
    )
    (result,) = play(state, "knock", "pass", "pass")
    assert result.went_out == [1, 2]
    assert state.game_over and state.places == [1.0, 2.5, 2.5]
    assert result.places == {0: 1.0, 1: 2.5, 2: 2.5}


def test_blitz_costs_a_bus_rider_the_game() -> None:
    state = table({0: "AS KS 2D", 1: "3C 6H 8H", 2: "4C 7H 9D"}, "QS", seat_lives=[0, 0, 3])
    (result,) = play(state, "pile", "-2D")
    assert result.went_out == [1] and state.out == [False, True, False]
    assert state.lives == [0, 0, 2]


# ------------------------------------------------------------------ empty stock


def test_empty_stock_pass_ends_the_round_at_once() -> None:
    state = table({0: "AC KC 9C", 1: "KH 9H 2S", 2: "KS 9S 3H"}, "2D")
    empty_the_stock(state)
    assert state.stock_size == 0 and state.phase == TURNS
    legal = state.legal_actions()
    assert DRAW_STOCK not in legal and DRAW_DISCARD in legal and PASS in legal
    (result,) = play(state, "pass")
    assert result.reason == "empty_stock" and result.knocker is None
    assert result.losses == {1: 1, 2: 1}  # no knocker: everyone tied for lowest loses


def test_empty_stock_draw_from_the_discard_pile_goes_on() -> None:
    state = table({0: "AC KC 9C", 1: "KH 9H 2S", 2: "KS 9S 3H"}, "2D")
    empty_the_stock(state)
    seat = state.current
    top = state.pile[-1]
    assert play(state, "pile") == []
    assert top in state.hands[seat] and state.step == DISCARD
    assert state.legal_actions() == tuple(discard_action(i) for i in range(4))


def test_empty_stock_knock_ends_the_round_and_still_counts_as_a_knock() -> None:
    state = table({0: "2C 3S 4H", 1: "KH 9H 2S", 2: "KS 9S 3H"}, "5D")
    empty_the_stock(state)
    while state.current != 0:  # bring the turn round to seat 0, drawing from the pile
        draw_and_throw(state, "pile")
    assert KNOCK in state.legal_actions()
    (result,) = play(state, "knock")  # no final turns: the round ends at once
    assert result.reason == "empty_stock" and result.knocker == 0
    assert result.losses == {0: 2}  # a knocker strictly lowest still pays double


def test_empty_stock_knock_tied_for_lowest_is_safe() -> None:
    state = table({0: "KC 9C 5H", 1: "KH 9H 2S", 2: "AS QS 3H"}, "5D")
    empty_the_stock(state)
    while state.current != 0:
        draw_and_throw(state, "pile")
    (result,) = play(state, "knock")
    assert result.reason == "empty_stock" and result.losses == {1: 1}


def test_final_turns_with_an_empty_stock_draw_from_the_pile_or_stay() -> None:
    state = table({0: "AC KC 9C", 1: "KH 9H 2S", 2: "KS 9S 3H"}, "2D", **KNOCK_NOW)
    empty_the_stock(state, leave=1)
    knocker = state.current
    play(state, "knock")
    draw_and_throw(state)  # the first final turn takes the last stock card
    assert state.stock_size == 0 and state.phase == FINAL_TURNS
    assert state.legal_actions() == (DRAW_DISCARD, PASS)
    (result,) = play(state, "pass")  # a stay here is a final turn, not an empty-stock pass
    assert result.reason == "knock" and result.knocker == knocker
