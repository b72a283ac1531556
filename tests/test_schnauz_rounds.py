"""Scripted Schnauz rounds on stacked decks (RULES.md §1), through the engine and the env.

Every scenario runs twice: on the rules engine (``new_game`` / ``state.apply``) and
on the AEC environment (``schnauz_v0.raw_env`` / ``reset(options=...)``). Moves are
written as ``"keep"``, ``"exchange"``, ``"pass"``, ``"knock"``, ``"all"`` (swap all)
or ``"7D/QC"`` (give 7D from the hand, take QC from the table).

Unless a test says otherwise: deck A7, three players, dealer seat 0, so the deal
goes seat 1, seat 2, seat 0 (the dealer), then the dealer's three choice cards.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from conftest import cards, drain_dead, place_value, stack, swap

from schnauz_env import schnauz_v0
from schnauz_env.schnauz import (
    EXCHANGE,
    KEEP,
    KNOCK,
    PASS,
    SWAP_ALL,
    SchnauzConfig,
    SchnauzState,
    engine,
    evaluate_hand,
    new_game,
)

MOVES = {"keep": KEEP, "exchange": EXCHANGE, "pass": PASS, "knock": KNOCK, "all": SWAP_ALL}


def action_of(game: SchnauzState, move: str | int) -> int:
    if isinstance(move, int):
        return move
    if "/" in move:
        give, take = move.split("/")
        return swap(game, give, take)
    return MOVES[move]


class EngineTable:
    """Drives the rules engine directly."""

    kind = "engine"

    def __init__(self, seed: int = 0, stacked=None, dealer=0, decks=None, lives=None, **rules):
        rules.setdefault("num_players", 3)
        self.config = SchnauzConfig(**rules)
        self.game = new_game(
            self.config,
            np.random.default_rng(seed),
            deck=stacked,
            dealer=dealer,
            decks=decks,
            lives=lives,
        )
        self.results: list[dict[str, Any]] = []

    def play(self, *moves: str | int) -> dict[str, Any] | None:
        """Play ``moves``; return the last showdown they caused (as ``to_dict()``), if any."""
        last = None
        for move in moves:
            assert not self.game.game_over, f"move {move!r} after the game ended"
            result = self.game.apply(action_of(self.game, move))
            if result is not None:
                last = result.to_dict()
                self.results.append(last)
        return last


class EnvTable:
    """Drives ``schnauz_v0.raw_env``; also checks rewards and infos at every step."""

    kind = "env"

    def __init__(self, seed: int = 0, stacked=None, dealer=0, decks=None, lives=None, **rules):
        rules.setdefault("num_players", 3)
        self.env = schnauz_v0.raw_env(**rules)
        options = {"dealer": dealer}
        for key, value in (("deck", stacked), ("decks", decks), ("lives", lives)):
            if value is not None:
                options[key] = value
        self.env.reset(seed=seed, options=options)
        self.config = self.env.config
        self.results: list[dict[str, Any]] = []
        self.returns = dict.fromkeys(self.env.possible_agents, 0.0)
        self.step_rewards: list[dict[str, float]] = []

    @property
    def game(self) -> SchnauzState:
        return self.env.unwrapped.game

    def play(self, *moves: str | int) -> dict[str, Any] | None:
        last = None
        env = self.env
        for move in moves:
            for rewards in drain_dead(env):
                self._add(rewards)
            assert env.agents, f"move {move!r} after the episode ended"
            seat = env.agent_name_mapping[env.agent_selection]
            assert seat == self.game.current, "the env selects the engine's player to act"
            assert env.observe(env.agent_selection)["action_mask"][action_of(self.game, move)] == 1
            before = self.game.round
            env.step(action_of(self.game, move))
            self._add(env.rewards)
            if self.game.round > before:
                last = self.game.last_result.to_dict()
                self.results.append(last)
                for info in env.infos.values():
                    # the same result, seats named by agent
                    assert info["last_showdown"] == env.name_seats(last)
                    assert info["lives"] == dict(
                        zip(env.possible_agents, last["lives_after"], strict=True)
                    )
                    assert info["round"] == self.game.round
        return last

    def _add(self, rewards: dict[str, float]) -> None:
        assert sum(rewards.values()) == pytest.approx(0.0, abs=1e-9), rewards
        self.step_rewards.append(dict(rewards))
        for agent, r in rewards.items():
            self.returns[agent] += r

    def finish(self) -> None:
        """Step the agents whose episode ended, as PettingZoo requires."""
        for rewards in drain_dead(self.env):
            self._add(rewards)


@pytest.fixture(params=[EngineTable, EnvTable], ids=["engine", "env"])
def table(request):
    return request.param


def labels(result: dict[str, Any]) -> dict[int, str]:
    return {s: h["label"] for s, h in result["hands"].items()}


def hands(result: dict[str, Any]) -> dict[int, list[int]]:
    return {s: cards(" ".join(h["cards"])) for s, h in result["hands"].items()}


# Three weak hands used where the cards do not matter (9 ♥, 9 ♦, 20 ♠).
WEAK = {1: "7C 8S 9H", 2: "7S 8H 9D", 0: "8D 10S JS"}


# ------------------------------------------------------------ dealer's choice
def test_deal_order_and_keep(table):
    t = table(stacked=stack({1: "7C 8C 9C", 2: "7S 8S 9S", 0: "7H 8H 9H"}, ["10D JD QD"]))
    g = t.game
    assert g.phase == engine.DEALER_CHOICE and g.current == 0 and g.dealer == 0
    assert g.legal_actions() == (KEEP, EXCHANGE)
    assert g.hands == [cards("7H 8H 9H"), cards("7C 8C 9C"), cards("7S 8S 9S")]
    assert g.table == [] and g.stock_size == 32 - 9
    assert t.play("keep") is None
    assert g.table == cards("10D JD QD")
    assert g.hands == [cards("7H 8H 9H"), cards("7C 8C 9C"), cards("7S 8S 9S")]
    assert g.phase == engine.TURNS and g.current == 1  # play starts left of the dealer
    assert g.stock_size == 32 - 12
    assert KNOCK in g.legal_actions()  # [choice] knocking allowed on the first turn


def test_exchange(table):
    t = table(stacked=stack({1: "7C 8C 9C", 2: "7S 8S 9S", 0: "7H 8H 9H"}, ["10D JD QD"]))
    assert t.play("exchange") is None
    g = t.game
    assert g.table == cards("7H 8H 9H")  # the dealer's hand goes face up
    assert g.hands[0] == cards("10D JD QD")  # the three fresh cards
    assert g.hands[1:] == [cards("7C 8C 9C"), cards("7S 8S 9S")]
    assert g.phase == engine.TURNS and g.current == 1 and g.stock_size == 32 - 12


def test_deal_order_left_of_dealer_ending_with_dealer(table):
    deck = stack({3: "7C 8C 9C", 0: "7S 8S 9S", 1: "7H 8H 9H", 2: "10C JC QS"}, dealer=2)
    t = table(stacked=deck, dealer=2, num_players=4)
    assert t.game.hands[3] == cards("7C 8C 9C")
    assert t.game.hands[2] == cards("10C JC QS")
    assert " ".join(deck[:12]) == "7C 8C 9C 7S 8S 9S 7H 8H 9H 10C JC QS"
    t.play("keep")
    assert t.game.table == cards(" ".join(deck[12:15]))
    assert t.game.current == 3


# ------------------------------------------------- instant ends after the deal
@pytest.mark.parametrize("choice", ["keep", "exchange"])
def test_schnauz_dealt_to_a_player_ends_the_round_after_the_dealers_choice(table, choice):
    t = table(stacked=stack({1: "AC KC QC", 2: "7S 8H 9D", 0: "7D 8D 10S"}, ["JH QH KH"]))
    assert t.game.phase == engine.DEALER_CHOICE  # the round does not end before the choice
    result = t.play(choice)
    assert result["reason"] == "instant"
    assert labels(result)[1] == "Schnauz ♣"
    assert labels(result)[2] == "9 ♦"
    assert result["losers"] == [2]
    assert result["knocker"] is None and result["fire_holder"] is None
    assert result["lives_after"] == [3, 3, 2]
    # the next round is dealt at once, the deal passing to the left
    assert t.game.round == 1 and t.game.dealer == 1 and t.game.phase == engine.DEALER_CHOICE


def test_dealers_own_fire_ends_the_round_after_keep(table):
    t = table(stacked=stack({1: "7C 8S 9H", 2: "7S 8H 9D", 0: "AC AS AH"}, ["JH QH KH"]))
    result = t.play("keep")
    assert result["reason"] == "instant" and result["fire_holder"] == 0
    assert labels(result) == {1: "9 ♥", 2: "9 ♦", 0: "Fire"}
    assert result["losers"] == [2]


def test_dealers_new_hand_after_exchange_is_fire(table):
    t = table(stacked=stack({1: "7C 8S 9H", 2: "7S 8H 9D", 0: "KD QD 10S"}, ["AC AS AH"]))
    result = t.play("exchange")
    assert result["reason"] == "instant"
    assert hands(result)[0] == cards("AC AS AH")
    assert labels(result) == {1: "9 ♥", 2: "9 ♦", 0: "Fire"}
    assert result["fire_holder"] == 0
    assert result["losers"] == [2]
    assert result["lives_after"] == [3, 3, 2]


def test_dealers_new_hand_after_exchange_is_schnauz(table):
    t = table(stacked=stack({1: "7C 8S 9H", 2: "7S 8H 9D", 0: "KD QD 10S"}, ["AH KH JH"]))
    result = t.play("exchange")
    assert result["reason"] == "instant" and labels(result)[0] == "Schnauz ♥"


def test_fire_laid_on_the_table_is_not_a_hand(table):
    t = table(stacked=stack({1: "7C 8S 9H", 2: "7S 8H 9D", 0: "KD QD 10S"}, ["AC AS AH"]))
    assert t.play("keep") is None  # the table's three aces belong to nobody
    assert t.game.phase == engine.TURNS
    result = t.play("all")  # seat 1 takes them
    assert result["reason"] == "instant" and labels(result)[1] == "Fire"
    assert t.results[0]["hands"][1]["cards"] == ["AC", "AS", "AH"]
    assert labels(result) == {1: "Fire", 2: "9 ♦", 0: "20 ♦"}
    assert result["losers"] == [2]


def test_exchange_giving_away_schnauz_does_not_end_the_round(table):
    # the dealer holds Schnauz but exchanges it: after the choice nobody holds it
    t = table(stacked=stack({1: "7C 8S 9H", 2: "7S 8H 9D", 0: "AD KD QD"}, ["10H JC 8C"]))
    assert t.play("exchange") is None
    assert t.game.table == cards("AD KD QD") and t.game.phase == engine.TURNS


@pytest.mark.parametrize(
    ("ties", "losers", "lives"), [("break", [0], [2, 3]), ("share", [0, 1], [2, 2])]
)
def test_two_schnauz_hands_dealt_are_decided_by_suit(table, ties, losers, lives):
    t = table(stacked=stack({1: "AC KC QC", 0: "AS KS QS"}, ["7C 8S 9H"]), num_players=2, ties=ties)
    result = t.play("keep")
    assert labels(result) == {1: "Schnauz ♣", 0: "Schnauz ♠"}
    assert sorted(result["losers"]) == losers
    assert result["lives_after"] == lives


def test_fire_and_schnauz_dealt_together(table):
    t = table(stacked=stack({1: "AD KD QD", 0: "AC AS AH"}, ["7C 8S 9H"]), num_players=2)
    result = t.play("exchange")  # the dealer gives Fire away: seat 1's Schnauz ends the round
    assert result["reason"] == "instant"
    assert labels(result) == {1: "Schnauz ♦", 0: "9 ♥"}  # the dealer took 7C 8S 9H
    assert result["losers"] == [0] and result["fire_holder"] is None
    t = table(stacked=stack({1: "AD KD QD", 0: "AC AS AH"}, ["7C 8S 9H"]), num_players=2)
    result = t.play("keep")
    assert labels(result) == {1: "Schnauz ♦", 0: "Fire"}
    assert result["losers"] == [1] and result["fire_holder"] == 0


# ------------------------------------------------------------ swaps
def test_schnauz_after_a_swap(table):
    t = table(stacked=stack({1: "AC KC 7D", 2: "7S 8H 9D", 0: "8D 10S JS"}, ["QC 7H 8C"]))
    t.play("keep")
    assert t.game.table == cards("7H 8C QC")
    result = t.play("7D/QC")
    assert result["reason"] == "instant"
    assert labels(result) == {1: "Schnauz ♣", 2: "9 ♦", 0: "20 ♠"}
    assert result["losers"] == [2] and result["lives_after"] == [3, 3, 2]


def test_swap_one_keeps_hand_and_table_sorted(table):
    t = table(stacked=stack(WEAK, ["QC 7H 8C"]))
    t.play("keep", "9H/QC")
    g = t.game
    assert g.hands[1] == cards("7C 8S QC")
    assert g.table == cards("7H 8C 9H")
    assert g.current == 2 and g.phase == engine.TURNS


def test_schnauz_after_swap_all(table):
    t = table(stacked=stack({1: "7C 8S 9H", 2: "7S 8H 9D", 0: "8D 10S JS"}, ["AH KH QH"]))
    t.play("keep")
    result = t.play("all")
    assert result["reason"] == "instant"
    assert labels(result) == {1: "Schnauz ♥", 2: "9 ♦", 0: "20 ♠"}
    assert result["losers"] == [2]


def test_swap_all_without_a_strong_hand_continues(table):
    t = table(stacked=stack(WEAK, ["QC 7H 8C"]))
    t.play("keep", "all")
    assert t.game.hands[1] == cards("7H 8C QC")
    assert t.game.table == cards("7C 8S 9H")
    assert t.game.current == 2


# ------------------------------------------------------------ knock
def test_knock_and_final_circle(table):
    deck = stack({1: "AC KC 7D", 2: "7S 8H 9D", 3: "8S 9H 10C", 0: "JD QD 7C"}, ["8C 9C 7H"])
    t = table(stacked=deck, num_players=4)
    t.play("keep")
    assert t.game.legal_actions()[-1] == KNOCK
    assert t.play("knock") is None
    g = t.game
    assert g.phase == engine.FINAL_CIRCLE and g.knocker == 1 and g.current == 2
    assert KNOCK not in g.legal_actions()
    assert t.play("7S/7H") is None  # seat 2: 7H 8H 9D = 15 ♥
    assert g.current == 3 and KNOCK not in g.legal_actions()
    assert t.play("pass") is None
    assert g.current == 0 and KNOCK not in g.legal_actions()
    result = t.play("pass")  # the last final turn: the knocker does not play again
    assert result["reason"] == "knock" and result["knocker"] == 1
    assert labels(result) == {1: "21 ♣", 2: "15 ♥", 3: "10 ♣", 0: "20 ♦"}
    assert result["losers"] == [3]
    assert result["lives_after"] == [3, 3, 3, 2]
    assert t.game.dealer == 1 and t.game.phase == engine.DEALER_CHOICE


def test_knocker_can_lose(table):
    t = table(stacked=stack(WEAK, ["QC 7H 8C"]))
    result = t.play("keep", "knock", "pass", "pass")
    assert result["reason"] == "knock" and result["knocker"] == 1
    assert labels(result) == {1: "9 ♥", 2: "9 ♦", 0: "20 ♠"}
    assert result["losers"] == [2]
    t2 = table(stacked=stack(WEAK, ["QC 7H 8C"]))
    result = t2.play("keep", "knock", "9D/QC", "pass")  # seat 2: 7S 8H QC = 10 ♣
    assert result["losers"] == [1]  # the knocker's 9 ♥ is now lowest


def test_final_circle_passes_do_not_refresh_the_table(table):
    t = table(stacked=stack(WEAK, ["QC 7H 8C"]))
    t.play("keep", "pass", "knock")  # seat 1 passes, seat 2 knocks
    assert t.game.passes == 0
    assert t.play("pass") is None  # seat 0
    result = t.play("pass")  # seat 1: the last final turn
    assert result["reason"] == "knock" and result["knocker"] == 2
    assert result["hands"][0]["cards"] == ["8D", "10S", "JS"]


def test_schnauz_during_the_final_circle(table):
    t = table(stacked=stack({1: "7C 8S 9H", 2: "AC KC 7D", 0: "8D 10S JS"}, ["QC 7H 8C"]))
    t.play("keep", "knock")
    result = t.play("7D/QC")  # seat 2 completes Schnauz in its final turn
    assert result["reason"] == "instant"
    assert result["knocker"] == 1
    assert labels(result) == {1: "9 ♥", 2: "Schnauz ♣", 0: "20 ♠"}
    assert result["losers"] == [1]
    assert t.game.round == 1  # seat 0 never got its final turn


def test_swap_all_to_fire_during_the_final_circle(table):
    t = table(stacked=stack({1: "7C 8S 9H", 2: "7S 8H 9D", 0: "8D 10S JS"}, ["AC AS AH"]))
    t.play("keep", "knock")
    result = t.play("all")
    assert result["reason"] == "instant" and result["fire_holder"] == 2
    assert result["losers"] == [1]  # the knocker's 9 ♥ is below seat 0's 20 ♠


@pytest.mark.parametrize("first_circle", [True, False])
def test_knock_in_first_circle_option(table, first_circle):
    t = table(stacked=stack(WEAK, ["QC 7H 8C"]), knock_in_first_circle=first_circle)
    t.play("keep")
    assert (KNOCK in t.game.legal_actions()) is first_circle  # seat 1, first turn
    t.play("pass")
    assert (KNOCK in t.game.legal_actions()) is first_circle  # seat 2
    t.play("9D/QC")
    assert (KNOCK in t.game.legal_actions()) is first_circle  # seat 0, last of the circle
    t.play("pass")
    assert KNOCK in t.game.legal_actions()  # seat 1 again: everyone has had a turn
    t.play("knock")
    assert t.game.phase == engine.FINAL_CIRCLE and t.game.knocker == 1


# ------------------------------------------------------------ all pass
def test_all_pass_refreshes_the_table(table):
    t = table(stacked=stack(WEAK, ["QC 7H 8C", "10H JH QS", "9C 9S KD"]))
    t.play("keep", "pass", "pass")
    assert t.game.table == cards("7H 8C QC") and t.game.passes == 2
    assert t.play("pass") is None  # the dealer's pass completes the circle
    g = t.game
    assert sorted(g.out_of_play) == cards("QC 7H 8C")
    assert g.table == cards("10H JH QS")
    assert g.stock_size == 32 - 15
    assert g.passes == 0 and g.current == 1 and g.phase == engine.TURNS
    assert g.hands == [cards("8D 10S JS"), cards("7C 8S 9H"), cards("7S 8H 9D")]
    t.play("pass", "pass", "pass")
    assert sorted(g.out_of_play) == cards("QC 7H 8C 10H JH QS")
    assert g.table == cards("9C 9S KD")


def test_a_swap_breaks_the_circle_of_passes(table):
    t = table(stacked=stack(WEAK, ["QC 7H 8C", "10H JH QS"]))
    t.play("keep", "pass", "9D/QC", "pass", "pass")  # pass, swap, pass, pass: no circle
    g = t.game
    assert g.out_of_play == [] and g.table == cards("7H 8C 9D") and g.passes == 2
    t.play("pass")  # seat 2 completes three passes in a row
    assert sorted(g.out_of_play) == cards("7H 8C 9D")
    assert g.table == cards("10H JH QS")


A9_SIX = {  # deck A9, six players, dealer 0: 18 + 3 choice cards leave a stock of 3
    1: "AC KC 9S",  # 21 ♣
    2: "AS QS 9H",  # 21 ♠
    3: "AH 10H 9D",  # 21 ♥
    4: "AD JD 9C",  # 21 ♦
    5: "KS JS 10C",  # 20 ♠
    0: "KH QH 10S",  # 20 ♥
}


def test_short_stock_ends_with_a_showdown(table):
    t = table(stacked=stack(A9_SIX, ["QC JH 10D", "KD QD JC"], deck="A9"), deck="A9", num_players=6)
    t.play("keep")
    assert t.game.stock_size == 3
    assert t.play(*["pass"] * 6) is None  # the last three stock cards are laid out
    assert t.game.stock_size == 0 and t.game.table == cards("KD QD JC")
    result = t.play(*["pass"] * 6)
    assert result["reason"] == "short_stock"
    assert labels(result) == {
        1: "21 ♣",
        2: "21 ♠",
        3: "21 ♥",
        4: "21 ♦",
        5: "20 ♠",
        0: "20 ♥",
    }
    assert result["losers"] == [0]
    assert result["lives_after"] == [2, 3, 3, 3, 3, 3]


def test_short_stock_recycle(table):
    t = table(
        stacked=stack(A9_SIX, ["QC JH 10D", "KD QD JC"], deck="A9"),
        deck="A9",
        num_players=6,
        short_stock="recycle",
    )
    t.play("keep", *["pass"] * 12)
    g = t.game
    # the first table, taken out of play, went back under the stock and was laid out
    assert g.round == 0 and g.phase == engine.TURNS
    assert g.table == cards("QC JH 10D")
    assert sorted(g.out_of_play) == cards("KD QD JC")
    assert g.stock_size == 0


def test_short_stock_two_players_a7(table):
    # 32 - 9 = 23 stock cards: seven refreshes leave 2, the eighth all-pass ends the round
    t = table(stacked=stack({1: "7C 8S 9H", 0: "7S 8H 9D"}, ["QC 7H 8C"]), num_players=2)
    t.play("keep", *["pass"] * 14)
    assert t.game.stock_size == 2 and len(t.game.out_of_play) == 21
    result = t.play("pass", "pass")
    assert result["reason"] == "short_stock"
    assert result["losers"] == [0]  # 9 ♦ below 9 ♥


def test_short_stock_recycle_two_players_a7(table):
    deck = stack({1: "7C 8S 9H", 0: "7S 8H 9D"}, ["QC 7H 8C"])
    t = table(stacked=deck, num_players=2, short_stock="recycle")
    t.play("keep", *["pass"] * 14)
    g = t.game
    left = g.stock  # the two cards still in the stock
    first_out = g.out_of_play[0]  # the first card that left the table
    last_table = list(g.table)
    assert t.play("pass", "pass") is None
    assert g.table == sorted([*left, first_out])
    assert g.out_of_play == last_table
    assert g.stock_size == 2 + 21 - 3  # the 21 cards went under the 2, then a table was laid


# ------------------------------------------------------------ turn guard
def test_turn_limit(table):
    t = table(stacked=stack(WEAK, ["QC 7H 8C", "10H JH QS"]), max_turns=4)
    t.play("keep", "pass", "pass")
    assert t.play("pass") is None  # the third turn refreshes the table
    result = t.play("9H/10H")  # the fourth turn reaches the limit
    assert result["reason"] == "turn_limit" and result["turn_limit_reached"] is True
    assert labels(result) == {1: "10 ♥", 2: "9 ♦", 0: "20 ♠"}
    assert result["losers"] == [2]
    assert t.game.round == 1


def test_turn_limit_not_reported_otherwise(table):
    t = table(stacked=stack(WEAK, ["QC 7H 8C"]))
    result = t.play("keep", "knock", "pass", "pass")
    assert result["turn_limit_reached"] is False


# ------------------------------------------------------------ lives and going out
# decks that end each round at once: someone holds Schnauz after the dealer's choice
def schnauz_round(winner: int, loser: int, middle: int | None, dealer: int) -> list[str]:
    hand = {winner: "AC KC QC", loser: "7S 8H 9D"}  # Schnauz ♣ and 9 ♦
    if middle is not None:
        hand[middle] = "8D 10S JS"  # 20 ♠
    return stack(hand, ["7C 8S 9H"], dealer=dealer)


def test_swimming_going_out_and_the_last_player_winning(table):
    decks = [
        schnauz_round(winner=2, loser=0, middle=1, dealer=0),
        schnauz_round(winner=0, loser=1, middle=2, dealer=1),
        schnauz_round(winner=2, loser=0, middle=None, dealer=2),  # seat 1 is out
    ]
    t = table(decks=decks, dealer=0, lives=[1, 0, 1])
    r1 = t.play("keep")
    assert r1["losers"] == [0] and r1["went_out"] == []
    assert r1["lives_after"] == [0, 0, 1] and r1["out_after"] == [False, False, False]
    assert r1["places"] == {}
    g = t.game
    assert g.hands[0] == cards("AC KC QC")  # seat 0 swims but is dealt in
    assert g.dealer == 1
    r2 = t.play("keep")  # dealer 1 keeps; seat 1 (swimming) loses and is out
    assert r2["losers"] == [1] and r2["went_out"] == [1]
    assert r2["lives_after"] == [0, 0, 1] and r2["out_after"] == [False, True, False]
    assert r2["places"] == {1: 3.0}
    assert g.dealer == 2 and g.hands[1] == [] and not g.game_over
    assert g.hands[0] == cards("7S 8H 9D") and g.hands[2] == cards("AC KC QC")
    r3 = t.play("keep")
    assert sorted(r3["hands"]) == [0, 2]  # seat 1 is no longer at the showdown
    assert r3["losers"] == [0] and r3["went_out"] == [0]
    assert r3["places"] == {0: 2.0, 2: 1.0}
    assert g.game_over and g.phase == engine.OVER and g.places == [2.0, 3.0, 1.0]
    assert g.legal_actions() == ()
    if t.kind == "env":
        t.finish()
        assert t.returns == {"player_0": 0.0, "player_1": -1.0, "player_2": 1.0}
        assert [r for r in t.step_rewards if any(r.values())] == [
            {"player_0": 0.5, "player_1": -1.0, "player_2": 0.5},
            {"player_0": -0.5, "player_2": 0.5},
        ]


def test_dealer_rotation_skips_players_who_are_out(table):
    decks = [
        stack({1: "7S 8H 9D", 2: "8D 10S JS", 3: "9C 10C JC", 0: "AC KC QC"}, ["7C 8S 9H"]),
        stack({3: "AC KC QC", 0: "8D 10S JS", 2: "7S 8H 9D"}, ["7C 8S 9H"], dealer=2),
        stack({0: "7S 8H 9D", 3: "AC KC QC"}, ["7C 8S 9H"], dealer=3),
    ]
    t = table(decks=decks, dealer=0, lives=[3, 0, 0, 3], num_players=4)
    r1 = t.play("keep")
    assert r1["went_out"] == [1]
    g = t.game
    assert g.dealer == 2  # seat 1 is skipped
    assert g.current == 2 and g.phase == engine.DEALER_CHOICE
    assert g.hands == [cards("8D 10S JS"), [], cards("7S 8H 9D"), cards("AC KC QC")]
    r2 = t.play("keep")  # the dealer, seat 2, is swimming and loses
    assert r2["went_out"] == [2] and r2["places"] == {2: 3.0}
    assert g.dealer == 3  # left of the player who went out
    assert g.hands == [cards("7S 8H 9D"), [], [], cards("AC KC QC")]
    r3 = t.play("keep")
    assert r3["losers"] == [0] and r3["lives_after"] == [2, 0, 0, 3]
    assert not g.game_over
    assert g.dealer == 0  # seats 1 and 2 are skipped


def test_dealer_rotation_wraps_around(table):
    t = table(stacked=schnauz_round(winner=1, loser=0, middle=2, dealer=2), dealer=2)
    result = t.play("keep")
    assert result["losers"] == [0]
    assert t.game.dealer == 0 and t.game.current == 0  # left of seat 2 is seat 0


# ------------------------------------------------------------ rule options
@pytest.mark.parametrize(
    ("fire_costs_all", "losers", "lives"),
    [(False, [2], [3, 3, 2]), (True, [2, 0], [2, 3, 2])],
)
def test_fire_costs_all(table, fire_costs_all, losers, lives):
    deck = stack({1: "AC AS 7D", 2: "7S 8H 9D", 0: "8D 10S JS"}, ["AH 7H 8C"])
    t = table(stacked=deck, fire_costs_all=fire_costs_all)
    t.play("keep")
    result = t.play("7D/AH")
    assert result["reason"] == "instant" and result["fire_holder"] == 1
    assert labels(result) == {1: "Fire", 2: "9 ♦", 0: "20 ♠"}
    assert sorted(result["losers"]) == sorted(losers)
    assert result["lives_after"] == lives


def test_fire_costs_all_at_a_knock_showdown(table):
    deck = stack({1: "AC AS 7D", 2: "7S 8H 9D", 0: "8D 10S JS"}, ["AH 7H 8C"])
    t = table(stacked=deck, fire_costs_all=True)
    result = t.play("keep", "knock", "pass", "pass")  # seat 1 knocks without Fire
    assert result["losers"] == [2]  # no Fire at this showdown: only the lowest loses


def test_fire_costs_all_eliminating_two_at_once(table):
    deck = stack({1: "AC AS 7D", 2: "7S 8H 9D", 0: "8D 10S JS"}, ["AH 7H 8C"])
    t = table(stacked=deck, fire_costs_all=True, lives=[0, 0, 0])
    result = t.play("keep", "7D/AH")
    assert sorted(result["went_out"]) == [0, 2]
    assert result["places"] == {0: 2.5, 2: 2.5, 1: 1.0}
    assert t.game.game_over
    if t.kind == "env":
        t.finish()
        assert t.returns == pytest.approx({"player_0": -0.5, "player_1": 1.0, "player_2": -0.5})


@pytest.mark.parametrize(
    ("ties", "losers", "lives"), [("break", [2], [3, 3, 2]), ("share", [1, 2], [3, 2, 2])]
)
def test_ties_share_several_losers(table, ties, losers, lives):
    # seat 1: 9 ♥, seat 2: 9 ♦ (equal points), seat 0: 20 ♦
    t = table(
        stacked=stack({1: "7C 8S 9H", 2: "7S 8H 9D", 0: "KD QD 10S"}, ["JC JS JH"]), ties=ties
    )
    result = t.play("keep", "knock", "pass", "pass")
    assert sorted(result["losers"]) == losers
    assert result["lives_after"] == lives


def test_ties_share_two_swimmers_out_together(table):
    deck = stack({1: "7C 8S 9H", 2: "7S 8H 9D", 0: "KD QD 10S"}, ["JC JS JH"])
    t = table(stacked=deck, ties="share", lives=[3, 0, 0])
    result = t.play("keep", "knock", "pass", "pass")
    assert sorted(result["went_out"]) == [1, 2]
    assert result["places"] == {1: 2.5, 2: 2.5, 0: 1.0}
    assert t.game.game_over
    if t.kind == "env":
        t.finish()
        assert t.returns == pytest.approx({"player_0": 1.0, "player_1": -0.5, "player_2": -0.5})


def test_replay_when_a_showdown_would_leave_nobody(table):
    # ties="share", everyone swimming, three hands worth 9: all would go out
    deck = stack({1: "7C 8S 9H", 2: "7S 8H 9D", 0: "7H 8D 9C"}, ["JC JS JH"])
    t = table(stacked=deck, ties="share", lives=[0, 0, 0], seed=3)
    result = t.play("keep", "knock", "pass", "pass")
    assert set(labels(result).values()) == {"9 ♥", "9 ♦", "9 ♣"}
    assert result["replays"], "a replay deal must be played"
    for k, deal in enumerate(result["replays"]):
        assert sorted(deal) == [0, 1, 2]
        all_cards = [c for h in deal.values() for c in h]
        assert len(set(all_cards)) == 9
        values = {s: evaluate_hand(h, ties="share") for s, h in deal.items()}
        low = min(values.values())
        lowest = [s for s, v in values.items() if v == low]
        if k < len(result["replays"]) - 1:
            assert len(lowest) > 1  # replayed because the lowest was shared
        else:
            assert result["went_out"] == lowest  # one loser, below the others
    assert result["losers"] == result["went_out"] and len(result["went_out"]) == 1
    loser = result["went_out"][0]
    assert result["places"] == {loser: 3.0}
    assert result["out_after"] == [s == loser for s in range(3)]
    assert result["lives_after"] == [0, 0, 0]
    assert not t.game.game_over and t.game.num_active == 2


# ------------------------------------------------------------ reset options
def test_decks_and_lives_options(table):
    decks = [
        schnauz_round(winner=1, loser=2, middle=0, dealer=0),
        stack({2: "9C 9S 9H", 0: "KD QD 10S", 1: "7S 8H 9D"}, ["JC JS JH"], dealer=1),
    ]
    t = table(decks=decks, dealer=0, lives=[2, 1, 5])
    assert t.game.lives == [2, 1, 5]
    r1 = t.play("keep")
    assert r1["losers"] == [2] and r1["lives_after"] == [2, 1, 4]
    g = t.game
    assert g.hands == [cards("KD QD 10S"), cards("7S 8H 9D"), cards("9C 9S 9H")]
    r2 = t.play("keep", "knock", "pass", "pass")  # dealer 1 keeps; seat 2 knocks with 30½
    assert labels(r2) == {2: "30½", 0: "20 ♦", 1: "9 ♦"}
    assert r2["losers"] == [1] and r2["lives_after"] == [2, 0, 4]
    # the stacked decks are used up: the third round is shuffled, a full deal all the same
    assert g.round == 2 and [len(h) for h in g.hands] == [3, 3, 3]
    assert sorted(g.deck) == sorted(int(c) for c in t.config.deck_cards)


def test_deck_and_decks_together(table):
    first = schnauz_round(winner=1, loser=2, middle=0, dealer=0)
    second = stack({2: "9C 9S 9H", 0: "KD QD 10S", 1: "7S 8H 9D"}, ["JC JS JH"], dealer=1)
    t = table(stacked=first, decks=[second], dealer=0)
    t.play("keep")
    assert t.game.hands[2] == cards("9C 9S 9H")


# ------------------------------------------------------------ env rewards
def test_round_episode_rewards():
    t = EnvTable(stacked=stack(WEAK, ["QC 7H 8C"]), episode="round")
    t.play("keep", "knock", "pass", "pass")
    env = t.env
    assert t.game.game_over and all(env.terminations.values())
    assert env.rewards == {"player_0": 0.5, "player_1": 0.5, "player_2": -1.0}
    info = env.infos["player_0"]
    assert info["lives"] == {"player_0": 3, "player_1": 3, "player_2": 2}
    assert info["last_showdown"]["losers"] == ["player_2"]
    assert info["last_showdown"]["hands"]["player_2"] == {
        "cards": ["7S", "8H", "9D"],
        "label": "9 ♦",
    }
    t.finish()
    assert env.agents == []
    assert t.returns == {"player_0": 0.5, "player_1": 0.5, "player_2": -1.0}


def test_round_episode_shared_losers():
    deck = stack({1: "7C 8S 9H", 2: "7S 8H 9D", 0: "KD QD 10S"}, ["JC JS JH"])
    t = EnvTable(stacked=deck, episode="round", ties="share")
    t.play("keep", "knock", "pass", "pass")
    assert t.env.rewards == {"player_0": 2.0, "player_1": -1.0, "player_2": -1.0}


def test_round_episode_fire_costs_all():
    deck = stack({1: "AC AS 7D", 2: "7S 8H 9D", 0: "8D 10S JS"}, ["AH 7H 8C"])
    t = EnvTable(stacked=deck, episode="round", fire_costs_all=True, num_players=3)
    t.play("keep", "7D/AH")
    assert t.env.rewards == {"player_0": -1.0, "player_1": 2.0, "player_2": -1.0}


def test_game_episode_rewards_are_place_values():
    # four players, everyone swimming: three rounds, one player out each
    decks = [
        stack({1: "AC KC QC", 2: "7S 8H 9D", 3: "8D 10S JS", 0: "9C 10C JC"}, ["7C 8S 9H"]),
        # dealer 1; seat 2 is out: deal 3, 0, 1
        stack({3: "AC KC QC", 0: "7S 8H 9D", 1: "8D 10S JS"}, ["7C 8S 9H"], dealer=1),
        # dealer 3 (seat 2 out): deal 1, 3
        stack({1: "AC KC QC", 3: "7S 8H 9D"}, ["7C 8S 9H"], dealer=3),
    ]
    t = EnvTable(decks=decks, dealer=0, lives=[0, 0, 0, 0], num_players=4)
    r1 = t.play("keep")
    assert r1["went_out"] == [2]
    assert t.env.rewards == pytest.approx(
        {"player_0": 1 / 3, "player_1": 1 / 3, "player_2": -1.0, "player_3": 1 / 3}
    )
    assert t.env.terminations["player_2"] and not t.env.terminations["player_0"]
    r2 = t.play("keep")
    assert r2["went_out"] == [0]
    r3 = t.play("keep")
    assert r3["went_out"] == [3] and r3["places"] == {3: 2.0, 1: 1.0}
    t.finish()
    places = t.game.places
    assert places == [3.0, 1.0, 4.0, 2.0]
    for seat, agent in enumerate(t.env.possible_agents):
        assert t.returns[agent] == pytest.approx(place_value(places[seat], 4))
    assert t.returns == pytest.approx(
        {"player_0": -1 / 3, "player_1": 1.0, "player_2": -1.0, "player_3": 1 / 3}
    )


def test_game_episode_no_reward_while_nobody_goes_out():
    t = EnvTable(stacked=stack(WEAK, ["QC 7H 8C"]))
    t.play("keep", "knock", "pass", "pass")
    assert t.results[0]["losers"] == [2]
    assert all(all(v == 0 for v in r.values()) for r in t.step_rewards)
    assert not any(t.env.terminations.values())
    assert t.env.infos["player_2"]["lives"]["player_2"] == 2


def test_infos_before_the_first_showdown():
    t = EnvTable(stacked=stack(WEAK, ["QC 7H 8C"]), lives=[1, 2, 3])
    info = t.env.infos["player_1"]
    assert info["last_showdown"] is None and info["round"] == 0
    assert info["lives"] == {"player_0": 1, "player_1": 2, "player_2": 3}
    assert info["out"] == {"player_0": False, "player_1": False, "player_2": False}
