"""Scat tie-break deals, variants (buy-in, four-card, no trinca), the termination guard,
and the errors the engine raises (RULES.md §2), on stacked decks."""

from __future__ import annotations

import numpy as np
import pytest
from test_scat_rules import KNOCK_NOW, cards, draw_and_throw, empty_the_stock, play, table

from schnauz_env.scat import (
    DRAW_DISCARD,
    DRAW_STOCK,
    KNOCK,
    PASS,
    ScatConfig,
    discard_action,
    new_game,
    stack_deck,
)

# ------------------------------------------------------------------ tie-break deals


def test_last_two_eliminated_together_play_a_tie_break_deal() -> None:
    tie_break = stack_deck({0: "2C 3S 4H", 1: "AC KC 9C"}, dealer=1)
    state = table(
        {0: "KC 9C 2H", 1: "KS 9S 3H"}, "5D", seat_lives=[0, 0], decks=[tie_break], num_players=2
    )
    empty_the_stock(state)
    (result,) = play(state, "pass")  # no knocker: both tied for lowest lose, both on the bus
    assert result.reason == "empty_stock" and result.losses == {0: 1, 1: 1}
    assert result.tie_break == [{0: ["2C", "3S", "4H"], 1: ["9C", "KC", "AC"]}]
    assert result.went_out == [0]  # only the lowest of the tie-break deal goes out
    assert state.game_over and state.places == [2.0, 1.0]


def test_a_tied_tie_break_is_dealt_again() -> None:
    tied = stack_deck({0: "KC 9C 2H", 1: "KS 9S 3H"}, dealer=1)
    decisive = stack_deck({0: "AC KC 9C", 1: "2C 3S 4H"}, dealer=1)
    state = table(
        {0: "KD 9D 2S", 1: "KH 9H 3C"},
        "5D",
        seat_lives=[0, 0],
        decks=[tied, decisive],
        num_players=2,
    )
    empty_the_stock(state)
    (result,) = play(state, "pass")
    assert len(result.tie_break) == 2
    assert result.went_out == [1] and state.places == [1.0, 2.0]


def test_a_seed_fixes_the_next_rounds_deck_even_after_a_tie_break_deal() -> None:
    # RULES.md conventions: a seed fixes every round's deck whatever the players do. In
    # game A all three players go out together and play a tie-break deal (not stacked),
    # in game B one player is strictly lowest. Round 2's deck is the game generator's
    # first shuffle either way: tie-break deals draw from the round's own generator.
    tied = {0: "KC 9C 2H", 1: "KS 9S 3H", 2: "KH 9H 4D"}
    untied = {0: "KC 9C 2H", 1: "KS QS 3H", 2: "KH QH 4D"}
    second = []
    for hands in (tied, untied):
        state = table(hands, "5D", seat_lives=[0, 0, 0], seed=11)
        empty_the_stock(state)
        (result,) = play(state, "pass")
        assert bool(result.tie_break) is (hands is tied)
        assert not state.game_over and state.round == 1
        second.append(list(state.deck))
    assert second[0] == second[1]


def test_tie_break_among_three_repeats_only_among_the_tied_lowest() -> None:
    first = stack_deck({0: "2C 3S 4H", 1: "2S 3H 4D", 2: "AC KC 9C"}, dealer=2)
    second = stack_deck({0: "AD KD 9D", 1: "5C 6S 7H"}, dealer=2)
    state = table(
        {0: "KC 9C 2H", 1: "KS 9S 3H", 2: "KH 9H 4D"},
        "5D",
        seat_lives=[0, 0, 0],
        decks=[first, second],
    )
    empty_the_stock(state)
    (result,) = play(state, "pass")
    assert result.losses == {0: 1, 1: 1, 2: 1}
    assert [sorted(deal) for deal in result.tie_break] == [[0, 1, 2], [0, 1]]
    assert result.went_out == [1] and result.round_places == {1: 3.0}
    assert not state.game_over
    assert state.lives == [0, 0, 0] and state.on_the_bus == [True, False, True]
    assert state.round == 1 and state.num_active == 2


def test_no_tie_break_when_someone_is_left() -> None:
    state = table(
        {0: "AC KC 9C", 1: "KH 9H 2S", 2: "KS 9S 3H"}, "2D", seat_lives=[0, 0, 0], **KNOCK_NOW
    )
    (result,) = play(state, "knock", "pass", "pass")
    assert result.tie_break == [] and result.went_out == [1, 2]
    assert state.places == [1.0, 2.5, 2.5]


# ------------------------------------------------------------------ variants


def test_buy_in_re_enters_with_full_lives() -> None:
    state = table(
        {0: "AC KC 9C", 1: "KH 9H 2S", 2: "3C 6S 8D"},
        "2D",
        seat_lives=[3, 3, 0],
        buy_ins=1,
        **KNOCK_NOW,
    )
    (result,) = play(state, "knock", "pass", "pass")
    assert result.losses == {2: 1} and result.bought_in == [2] and result.went_out == []
    assert state.lives == [3, 3, 3] and state.buy_ins_used == [0, 0, 1]
    assert not state.out[2] and not state.game_over


def test_buy_ins_run_out() -> None:
    # lives=0: everyone starts on the bus, and a buy-in re-enters on the bus
    round_two = stack_deck({1: "KH 9H 2S", 2: "3C 6S 8D", 0: "AC KC 9C"}, "2D", dealer=0)
    state = table(
        {0: "AC KC 9C", 1: "KH 9H 2S", 2: "3C 6S 8D"},
        "2D",
        decks=[round_two],
        lives=0,
        buy_ins=1,
        **KNOCK_NOW,
    )
    (first,) = play(state, "knock", "pass", "pass")
    assert first.bought_in == [2] and first.went_out == [] and state.lives == [0, 0, 0]
    assert state.current == 1  # round two: seat 0 deals, seat 1 starts
    (second,) = play(state, "knock", "pass", "pass")
    assert second.losses == {2: 1} and second.bought_in == [] and second.went_out == [2]


def test_four_card_deal_and_discard_slots() -> None:
    state = table(
        {0: "2C 3S 4H 5D", 1: "AS KS 10S 2D", 2: "6C 7S 8H 9D"}, "QS", stock="JC", four_card=True
    )
    assert state.opening_result is None  # 31 is not the blitz with four cards
    assert [len(h) for h in state.hands] == [4, 4, 4]
    assert state.stock_size == 52 - 13
    play(state, "stock")
    assert state.legal_actions() == tuple(discard_action(i) for i in range(5))
    play(state, "-JC")
    assert state.hands[0] == cards("2C 3S 4H 5D")


def test_four_card_blitz_after_a_discard() -> None:
    state = table({0: "2C 3S 4H 5D", 1: "AS KS 10S 2D", 2: "6C 7S 8H 9D"}, "QS", four_card=True)
    play(state, "pile", "-QS")  # seat 0 takes QS and throws it back
    (result,) = play(state, "pile", "-2D")
    assert result.reason == "blitz" and result.values[1] == 41.0
    assert result.losses == {0: 1, 2: 1}


def test_four_card_blitz_after_the_deal() -> None:
    state = table({0: "2C 3S 4H 5D", 1: "AS KS 10S JS", 2: "6C 7S 8H 9D"}, "QS", four_card=True)
    assert state.opening_result.reason == "blitz_deal"
    assert state.opening_result.blitz_holders == [1]


def test_four_card_has_no_trinca() -> None:
    state = table(
        {0: "7C 7S 7H 2C", 1: "KH 5H 2S 3D", 2: "QS 4S 3C 4D"},
        "2D",
        four_card=True,
        **KNOCK_NOW,
    )
    assert state.hand_value(0) == 9.0


@pytest.mark.parametrize(("no_trinca", "losses"), [(False, {2: 1}), (True, {0: 2})])
def test_no_trinca(no_trinca: bool, losses: dict[int, int]) -> None:
    state = table(
        {0: "7C 7S 7H", 1: "KH 5H 2S", 2: "QS 4S 3D"},
        "2D",
        no_trinca=no_trinca,
        **KNOCK_NOW,
    )
    (result,) = play(state, "knock", "pass", "pass")
    assert result.values[0] == (7.0 if no_trinca else 30.5)
    assert result.losses == losses


def test_turn_limit_ends_the_round_and_says_so() -> None:
    state = table({0: "AC KC 9C", 1: "KH 9H 2S", 2: "3C 6S 8D"}, "2D", max_turns=4)
    for _ in range(3):
        assert draw_and_throw(state) is None
    result = draw_and_throw(state)
    assert result.reason == "turn_limit" and result.turn_limit_reached
    assert result.knocker is None and result.losses == {2: 1}


def test_single_round_episode_ends_after_one_round() -> None:
    state = table({0: "AC KC 9C", 1: "KH 9H 2S", 2: "3C 6S 8D"}, "2D", episode="round", **KNOCK_NOW)
    (result,) = play(state, "knock", "pass", "pass")
    assert state.game_over and state.legal_actions() == ()
    assert result.then is None


# ------------------------------------------------------------------ names and errors


def test_action_names_say_what_moves() -> None:
    state = table({0: "2C 5S 9H", 1: "3C 6S 8H", 2: "4C 7S 10D"}, "KH", **KNOCK_NOW)
    assert state.action_to_string(DRAW_DISCARD, symbols=True) == "draw K♥ from the discard pile"
    assert state.action_to_string(DRAW_STOCK) == "draw stock"
    assert state.action_to_string(KNOCK) == "knock"
    state.apply(DRAW_STOCK)
    assert state.action_to_string(discard_action(0)) == "discard 2C"
    assert state.action_to_string(42) == "invalid action 42"


def test_illegal_actions_raise_naming_the_legal_ones() -> None:
    state = table({0: "2C 5S 9H", 1: "3C 6S 8H", 2: "4C 7S 10D"}, "KH")
    with pytest.raises(ValueError, match=r"not legal now.*legal actions: 0 \(draw stock\)"):
        state.apply(discard_action(0))
    with pytest.raises(ValueError, match="not legal now"):
        state.apply(KNOCK)  # first turn
    with pytest.raises(ValueError, match=r"is not an action \(0..8\)"):
        state.apply(99)
    with pytest.raises(TypeError, match="action must be an integer"):
        state.apply("draw")  # type: ignore[arg-type]
    state.apply(np.int64(DRAW_STOCK))  # numpy integers are accepted
    with pytest.raises(ValueError, match="discard step"):
        state.apply(PASS)


def test_actions_after_the_game_is_over_raise() -> None:
    state = table(
        {0: "AC KC 9C", 1: "KH 9H 2S"}, "2D", seat_lives=[0, 0], num_players=2, **KNOCK_NOW
    )
    play(state, "knock", "pass")
    assert state.game_over and not state.legal_mask().any()
    with pytest.raises(ValueError, match="game is over"):
        state.apply(DRAW_STOCK)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"num_players": 8}, "2 to 7 players"),
        ({"num_players": 1}, "2 to 7 players"),
        ({"num_players": 4.0}, "integer"),
        ({"lives": -1}, "lives"),
        ({"buy_ins": -1}, "buy_ins"),
        ({"four_card": "yes"}, "True or False"),
        ({"knock_on_first_turn": 1}, "True or False"),
        ({"max_turns": 0}, "positive"),
        ({"first_dealer": 4}, "seat 0..3"),
        ({"episode": "match"}, "'game', 'round'"),
    ],
)
def test_config_errors_say_what_is_allowed(options: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        ScatConfig(**options)


def test_config_round_trip() -> None:
    cfg = ScatConfig(num_players=5, four_card=True, buy_ins=2)
    assert ScatConfig.from_dict(cfg.to_dict()) == cfg
    with pytest.raises(ValueError, match="unknown Scat option"):
        ScatConfig.from_dict({"num_players": 3, "jokers": True})
    assert cfg.hand_size == 4 and cfg.blitz_value == 41 and not cfg.trinca


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"deck": ["AS"] * 52}, "duplicated"),
        ({"deck": [c for c in stack_deck({}) if c != "AS"]}, "missing: AS"),
        ({"deck": ["ZZ", *stack_deck({})[1:]]}, "bad card code 'ZZ'"),
        ({"deck": "AS KS"}, "list of card codes"),
        ({"dealer": 4}, "invalid dealer"),
        ({"lives": [1, 2]}, "lives must list 3"),
        ({"decks": "AS"}, "decks must be a list"),
    ],
)
def test_new_game_errors(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        new_game(ScatConfig(num_players=3), np.random.default_rng(0), **kwargs)


def test_clone_is_independent() -> None:
    state = table({0: "2C 5S 9H", 1: "3C 6S 8H", 2: "4C 7S 10D"}, "KH")
    copy = state.clone()
    copy.apply(DRAW_DISCARD)
    assert state.pile and len(state.hands[0]) == 3 and state.step == 0
    assert len(copy.hands[0]) == 4 and copy.known[0] and not state.known[0]
