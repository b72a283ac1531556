"""Scripted Thirteen games on stacked decks (RULES.md §3): opening, lock-out, the lead
after a player goes out, scoring, matches, instant wins; and the action encoding."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest

from schnauz_env.cards import format_cards, parse_cards
from schnauz_env.thirteen import (
    NUM_ACTIONS,
    PASS,
    PLAY,
    ThirteenConfig,
    ThirteenState,
    new_game,
    play_actions,
    select_action,
    stacked_deck,
    strength,
)
from schnauz_env.thirteen.combos import classify_strengths, combo_beats

SUITED = [
    "3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS 2S",
    "3C 4C 5C 6C 7C 8C 9C 10C JC QC KC AC 2C",
    "3D 4D 5D 6D 7D 8D 9D 10D JD QD KD AD 2D",
    "3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH 2H",
]


def start(hands, decks=(), **rules) -> ThirteenState:
    config = ThirteenConfig(num_players=len(hands), **rules)
    deck = stacked_deck(hands)
    return new_game(config, np.random.default_rng(0), decks=[deck, *decks])


def play(state: ThirteenState, seat: int, cards: str):
    """``seat`` (asserted to be the one to act) plays exactly ``cards``."""
    assert state.current == seat, f"seat {state.current} is to act, not {seat}"
    result = None
    for action in play_actions(cards):
        result = state.apply(action)
    return result


def pass_(state: ThirteenState, seat: int) -> None:
    assert state.current == seat, f"seat {state.current} is to act, not {seat}"
    assert state.apply(PASS) is None


def hand(state: ThirteenState, seat: int) -> str:
    return format_cards(state.hands[seat])


# ----------------------------------------------------------------- a full game


def test_four_suited_hands_a_whole_game():
    state = start(SUITED)
    # 3♠ leads and must be in the first play: nothing else can start it, no pass.
    assert state.current == 0
    assert state.legal_actions() == (select_action("3S"),)
    assert play(state, 0, "3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS") is None
    assert state.table_combo.size == 12 and state.table_by == 0
    # Each 12-card sequence beats the last by its top card's suit: A♣ > A♠, A♦ > A♣, A♥ > A♦.
    play(state, 1, "3C 4C 5C 6C 7C 8C 9C 10C JC QC KC AC")
    play(state, 2, "3D 4D 5D 6D 7D 8D 9D 10D JD QD KD AD")
    play(state, 3, "3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH")
    for seat in (0, 1, 2):  # a lone 2 cannot beat a sequence: pass is the only action
        assert state.legal_actions() == (PASS,)
        pass_(state, seat)
    assert state.table == [] and state.current == 3 and state.passed == [False] * 4
    result = play(state, 3, "2H")  # seat 3 goes out first
    assert result.reason == "out" and result.went_out == 3 and result.places == {3: 1.0}
    assert state.places == [None, None, None, 1.0]
    for seat in (0, 1, 2):  # nobody beats 2♥
        pass_(state, seat)
    # The last play was seat 3's, who has no cards: the next holder to the left leads.
    assert state.table == [] and state.current == 0
    assert play(state, 0, "2S").places == {0: 2.0}
    result = play(state, 1, "2C")  # beats 2♠ and goes out: only seat 2 holds cards
    assert result.reason == "game_over"
    assert result.finish_order == [3, 0, 1, 2]
    assert result.points == {3: 3, 0: 2, 1: 1, 2: 0}
    assert result.places == {1: 3.0, 2: 4.0}
    assert state.game_over and state.places == [2.0, 3.0, 4.0, 1.0]
    assert state.legal_actions() == ()
    with pytest.raises(ValueError, match="game is over"):
        state.apply(PASS)


# ------------------------------------------------------------------- opening

THREE_PLAYERS = [
    "3S 4S 6S 8S 10S QS AS 3C 5C 7C 9C JC KC",
    "4C 6C 8C 10C QC AC 3D 5D 7D 9D JD KD 2D",
    "4D 6D 8D 10D QD AD 3H 5H 7H 9H JH KH 2H",
]


def test_opening_with_fewer_players_and_3_spades_not_dealt():
    # Two players: 3♠ stays undealt; 3♣ is the lowest card dealt, so its holder leads with it.
    hands = [
        "3D 4D 5D 6D 7D 8D 9D 10D JD QD KD AD 2D",
        "3C 4C 5C 6C 7C 8C 9C 10C JC QC KC AC 2C",
    ]
    state = start(hands)
    assert state.current == 1 and format_cards([state.opening_card]) == "3C"
    assert state.legal_actions() == (select_action("3C"),)
    state.apply(select_action("3C"))
    assert PLAY in state.legal_actions()  # the single 3♣ is a legal opening
    state.apply(select_action("4C"))
    assert PLAY not in state.legal_actions()  # 3♣ 4♣ is no combination yet ...
    assert select_action("5C") in state.legal_actions()  # ... but starts a sequence


def test_opening_free_lets_the_holder_lead_anything():
    state = start(SUITED, opening="free")
    assert state.current == 0 and state.opening_card is None
    legal = state.legal_actions()
    assert select_action("3S") in legal and select_action("2S") in legal and PASS not in legal


def test_the_leader_cannot_pass_and_the_first_play_needs_3_spades():
    state = start(THREE_PLAYERS)
    assert PASS not in state.legal_actions()
    with pytest.raises(ValueError, match="not legal now"):
        state.apply(select_action("4S"))
    with pytest.raises(ValueError, match="not an action"):
        state.apply(NUM_ACTIONS)
    with pytest.raises(TypeError, match="got str '3S'"):
        state.apply("3S")  # card codes are not actions
    state.apply(np.int64(select_action("3S")))  # numpy integers are


# ------------------------------------------------------------------ lock-out


def test_a_player_who_passed_is_locked_out_until_the_table_clears():
    state = start(THREE_PLAYERS)
    play(state, 0, "3S")
    assert select_action("4C") in state.legal_actions()
    pass_(state, 1)  # could play 4♣, passes anyway
    play(state, 2, "4D")
    with pytest.raises(ValueError, match="not legal now"):
        state.apply(select_action("4S"))  # 4♠ is below 4♦
    play(state, 0, "5C")
    # Seat 1 passed on this table: skipped, although it holds higher singles.
    assert state.passed == [False, True, False]
    assert state.current == 2
    pass_(state, 2)
    # Everyone else passed: the table clears and seat 0, the last to play, leads.
    assert state.table == [] and state.table_combo is None and state.current == 0
    assert state.passed == [False, False, False]
    assert PASS not in state.legal_actions()
    play(state, 0, "6S")
    assert state.current == 1  # seat 1 may play again on the new table
    play(state, 1, "8C")


def test_the_next_player_left_of_a_finished_player_leads_after_all_pass():
    # Seat 1 goes out with a bomb on a 2 while seat 2 is locked out; the others pass;
    # seat 2, the next player to the left of seat 1, leads the clear table.
    hands = [
        "3S 4S 4C 4D 5D 6D 7D 8D 9D 10D JD QD KD",
        "4H 5S 5C 6S 6C 7S 7C 8S 8C 9S 9C 10S 10C",
        "3C 3D 5H 6H 7H 8H 9H 10H JH QH KH AH 2H",
        "3H JS QS KS AS 2S JC QC KC AC 2C AD 2D",
    ]
    state = start(hands)
    play(state, 0, "3S")
    play(state, 1, "4H")
    pass_(state, 2)
    play(state, 3, "2D")
    pass_(state, 0)
    result = play(state, 1, "5S 5C 6S 6C 7S 7C 8S 8C 9S 9C 10S 10C")  # 6 pairs on a 2
    assert result.reason == "out" and result.places == {1: 1.0}
    assert state.current == 3  # seats 2 and 0 are locked out; seat 3 may still answer
    assert state.legal_actions() == (PASS,)  # four pairs of its own are not enough
    pass_(state, 3)
    assert state.table == [] and state.passed == [False] * 4
    assert state.current == 2  # left of seat 1; its lock-out ended with the table


def test_out_clears_table_option():
    state = start(SUITED, out_clears_table=True)
    play(state, 0, "3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS")
    play(state, 1, "3C 4C 5C 6C 7C 8C 9C 10C JC QC KC AC")
    play(state, 2, "3D 4D 5D 6D 7D 8D 9D 10D JD QD KD AD")
    play(state, 3, "3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH")
    for seat in (0, 1, 2):
        pass_(state, seat)
    play(state, 3, "2H")
    # The table clears at once: seat 0 leads without a chance to beat 2♥.
    assert state.table == [] and state.current == 0 and PASS not in state.legal_actions()


# ------------------------------------------------------------ scoring, matches

TWO_PLAYER_DECKS = [
    # seat 0 leads 3♠..A♠ (seat 1 holds no sequence), then 2♠ and is out
    ["3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS 2S", "3C 3D 3H 4C 4D 4H 5C 5D 5H 6C 6D 6H 7C"],
    # seat 0 leads 4♠..A♠, then the pair 2♠ 2♣; seat 1 holds 3♠ this time
    ["4S 5S 6S 7S 8S 9S 10S JS QS KS AS 2S 2C", "3S 3C 3D 3H 4C 4D 4H 5C 5D 5H 6C 6D 6H"],
]


def _seat0_wins_game_one(state: ThirteenState):
    play(state, 0, "3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS")
    pass_(state, 1)
    return play(state, 0, "2S")


def test_two_player_game_scores_1_and_0():
    state = start(TWO_PLAYER_DECKS[0])
    result = _seat0_wins_game_one(state)
    assert result.reason == "game_over" and result.points == {0: 1, 1: 0}
    assert state.places == [1.0, 2.0] and state.game_over


def test_match_goes_on_while_the_top_score_is_shared():
    second = stacked_deck(TWO_PLAYER_DECKS[1])
    state = start(TWO_PLAYER_DECKS[0], decks=[second], episode="match")
    state.scores = [9, 10]
    result = _seat0_wins_game_one(state)
    # 10 against 10: the target is reached but shared, so the match goes on.
    assert result.reason == "game_over" and not result.match_over and result.places == {}
    assert state.scores == [10, 10] and not state.game_over and state.game == 1
    # The winner of the last game leads with any combination (3♠ is with seat 1 now).
    assert state.current == 0 and state.opening_card is None
    assert select_action("4S") in state.legal_actions()
    assert hand(state, 0) == "4S 5S 6S 7S 8S 9S 10S JS QS KS AS 2S 2C"
    play(state, 0, "4S 5S 6S 7S 8S 9S 10S JS QS KS AS")
    pass_(state, 1)
    result = play(state, 0, "2S 2C")
    assert result.match_over and state.game_over
    assert state.scores == [11, 10] and result.places == {0: 1.0, 1: 2.0}


def test_match_ends_when_one_player_reaches_the_target_alone():
    config = ThirteenConfig(num_players=2, episode="match", target_points=10)
    state = new_game(
        config, np.random.default_rng(0), deck=stacked_deck(TWO_PLAYER_DECKS[0]), scores=[9, 3]
    )
    result = _seat0_wins_game_one(state)
    assert result.match_over and state.places == [1.0, 2.0] and state.scores == [10, 3]


def test_match_scores_n_minus_1_down_to_0_and_later_games_are_shuffled():
    config = ThirteenConfig(num_players=4, episode="match", target_points=4)
    state = new_game(config, np.random.default_rng(0), deck=stacked_deck(SUITED))
    play(state, 0, "3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS")
    play(state, 1, "3C 4C 5C 6C 7C 8C 9C 10C JC QC KC AC")
    play(state, 2, "3D 4D 5D 6D 7D 8D 9D 10D JD QD KD AD")
    play(state, 3, "3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH")
    for seat in (0, 1, 2):
        pass_(state, seat)
    assert play(state, 3, "2H").places == {}  # no place is final before the match ends
    for seat in (0, 1, 2):
        pass_(state, seat)
    play(state, 0, "2S")
    result = play(state, 1, "2C")
    assert result.points == {3: 3, 0: 2, 1: 1, 2: 0} and state.scores == [2, 1, 0, 3]
    assert not result.match_over and state.game == 1
    assert state.current == 3  # the winner leads the next game
    assert sorted(len(h) for h in state.hands) == [13] * 4
    assert sum(len(h) for h in state.hands) == 52 and state.played == []


def test_match_limit_ends_with_shared_places():
    config = ThirteenConfig(num_players=2, episode="match", max_games=1)
    state = new_game(config, np.random.default_rng(0), deck=stacked_deck(TWO_PLAYER_DECKS[0]))
    result = _seat0_wins_game_one(state)
    assert result.match_over and result.match_limit_reached and state.places == [1.0, 2.0]


def test_instant_win_is_declared_with_the_only_legal_action():
    hands = [
        "3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS 3D",  # a dragon: every rank 3..A
        "3C 4C 5C 6C 7C 8C 9C 10C JC QC KC 3H 5D",
        "2S 2C 2H 2D 6D 7D 8D 9D 10D JD QD KD AD",  # four 2s
        "AC 4D 4H 5H 6H 7H 8H 9H 10H JH QH KH AH",
    ]
    plain = start(hands)
    assert plain.current == 0 and plain.legal_actions() == (select_action("3S"),)
    state = start(hands, instant_wins=True)
    # Two instant wins: the first in turn order from the leader (seat 0, holding 3♠) wins.
    assert state.current == 0 and state.legal_actions() == (PLAY,)
    assert state.action_to_string(PLAY) == "declare instant win (dragon)"
    result = state.apply(PLAY)
    assert result.reason == "instant_win" and result.instant_win == "dragon"
    assert state.game_over and state.places == [1.0, 3.0, 3.0, 3.0] and result.points[0] == 3
    # Without the ace seat 0 has no dragon; seat 2's four 2s win.
    hands[0], hands[3] = hands[0].replace("AS", "4D"), hands[3].replace("4D", "AS")
    state = start(hands, instant_wins=True, episode="match")
    assert state.current == 2 and state.legal_actions() == (PLAY,)
    result = state.apply(PLAY)
    assert result.instant_win == "four 2s" and state.scores == [0, 0, 3, 0]
    assert not state.game_over and state.game == 1


# ------------------------------------------------------------- action encoding


def test_action_names():
    state = start(THREE_PLAYERS)
    assert state.action_to_string(select_action("3S")) == "select 3S"
    assert state.action_to_string(select_action("3S"), symbols=True) == "select 3♠"
    assert state.action_to_string(PASS) == "pass"
    state.apply(select_action("3S"))
    assert state.action_to_string(PLAY) == "play single 3S"
    state.apply(select_action("3C"))
    assert state.action_to_string(PLAY, symbols=True) == "play pair 3♠ 3♣"
    assert state.action_to_string(99) == "invalid action 99"


def test_play_actions_sorts_the_cards_weakest_first():
    assert play_actions("5C 3S 4H") == [strength("3S"), strength("4H"), strength("5C"), PLAY]
    assert [select_action(c) for c in parse_cards("3S 2H")] == [0, 51]


def test_stacked_deck_validation():
    with pytest.raises(ValueError, match="13 cards"):
        stacked_deck(["3S 4S"])
    with pytest.raises(ValueError, match="twice"):
        stacked_deck([SUITED[0], SUITED[0]])
    config = ThirteenConfig()
    with pytest.raises(ValueError, match="missing"):
        new_game(config, np.random.default_rng(0), deck=stacked_deck(SUITED)[:51])
    with pytest.raises(ValueError, match="scores must list 4"):
        new_game(config, np.random.default_rng(0), scores=[1, 2])


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"num_players": 5}, "2 to 4 players"),
        ({"num_players": 1}, "2 to 4 players"),
        ({"episode": "round"}, "'game', 'match'"),
        ({"target_points": 0}, "positive"),
        ({"opening": "3S"}, "'include', 'free'"),
        ({"instant_wins": 1}, "True or False"),
        ({"max_games": 0}, "positive"),
    ],
)
def test_config_validation(options, message):
    with pytest.raises(ValueError, match=message):
        ThirteenConfig(**options)


def test_config_round_trip():
    config = ThirteenConfig(num_players=3, episode="match", opening="free")
    assert ThirteenConfig.from_dict(config.to_dict()) == config
    with pytest.raises(ValueError, match="unknown Thirteen option"):
        ThirteenConfig.from_dict({"jokers": 2})


def _reachable(state: ThirteenState) -> set[tuple[int, ...]]:
    """Every play the mask lets the player to act build (strengths), checking that
    every selection the mask allows can be completed (no dead ends)."""
    out: set[tuple[int, ...]] = set()

    def walk(s: ThirteenState, sel: tuple[int, ...]) -> None:
        legal = s.legal_actions()
        assert legal, f"dead end after selecting {sel}"
        assert (PASS in legal) == (not sel and s.table_combo is not None)
        for a in legal:
            if a == PLAY:
                out.add(sel)
            elif a != PASS:
                assert not sel or a > sel[-1], "cards are selected weakest first"
                child = s.clone()
                child.apply(a)
                walk(child, (*sel, a))

    walk(state, ())
    return out


def _oracle(state: ThirteenState) -> set[tuple[int, ...]]:
    """Every subset of the hand that is a legal play, by brute force."""
    hand = sorted(strength(c) for c in state.hands[state.current])
    must = None if state.opening_card is None else strength(state.opening_card)
    out = set()
    for k in range(1, len(hand) + 1):
        for sub in combinations(hand, k):
            combo = classify_strengths(sub)
            if combo is None or (must is not None and must not in sub):
                continue
            if state.table_combo is None or combo_beats(combo, state.table_combo):
                out.add(sub)
    return out


def test_the_mask_reaches_exactly_the_legal_plays():
    """Over turn starts of random games: the plays the mask can build are exactly the
    subsets of the hand that are legal plays, every choice of suits included."""
    rng = np.random.default_rng(3)
    checked = 0
    for g in range(30):
        config = ThirteenConfig(num_players=2 + g % 3)
        state = new_game(config, np.random.default_rng(100 + g))
        while not state.game_over:
            if not state.selection and (state.table_combo is None or rng.random() < 0.2):
                assert _reachable(state) == _oracle(state)
                checked += 1
            legal = state.legal_actions()
            state.apply(legal[rng.integers(len(legal))])
    assert checked > 300
