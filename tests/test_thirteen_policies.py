"""Thirteen policies: registry, legal play from observations only, and the behaviour
each one promises (greedy: weakest play; expert: combinations kept, 2s saved, going out,
card counts watched)."""

from __future__ import annotations

import numpy as np
import pytest

from policies import available_policies, make_policy
from policies.thirteen import decompose
from schnauz_env.cards import format_cards
from schnauz_env.thirteen import (
    PASS,
    PLAY,
    ObservationEncoder,
    ThirteenConfig,
    new_game,
    new_position,
)


def choice(policy, state) -> str:
    """What ``policy`` does at the seat to act: the cards it plays, or ``"pass"``.
    The state is left unchanged."""
    state = state.clone()
    enc = ObservationEncoder(state.config)
    seat = state.current
    while True:
        action = policy.act(enc.encode(state, seat), state.legal_mask())
        if action == PASS:
            return "pass"
        if action == PLAY:
            return format_cards(state.selection)
        state.apply(action)
        assert state.current == seat


def pos(hands, table="", table_by=None, current=0, passed=None):
    config = ThirteenConfig(num_players=len(hands))
    return new_position(config, hands, table, table_by, current, passed)


def test_registry():
    assert {"random", "greedy", "expert"} <= set(available_policies("thirteen"))
    policy = make_policy("expert", game="thirteen", config=ThirteenConfig(num_players=3))
    assert policy.game == "thirteen" and policy.name == "expert"
    assert make_policy("greedy", game="thirteen").config == ThirteenConfig()
    with pytest.raises(ValueError, match="takes no parameter"):
        make_policy("greedy:3", game="thirteen")


@pytest.mark.parametrize("name", ["random", "greedy", "expert"])
def test_policies_play_whole_games_legally(name):
    for g in range(24):
        config = ThirteenConfig(num_players=2 + g % 3, instant_wins=g % 4 == 0)
        policies = [make_policy(name, game="thirteen", config=config, seed=s) for s in range(4)]
        enc = ObservationEncoder(config)
        state = new_game(config, np.random.default_rng(g))
        while not state.game_over:
            seat = state.current
            mask = state.legal_mask()
            action = policies[seat].act(enc.encode(state, seat), mask)
            assert mask[action], f"{name} chose an illegal action"
            state.apply(action)


# ------------------------------------------------------------------- greedy


def test_greedy_leads_its_weakest_single():
    greedy = make_policy("greedy", game="thirteen", config=ThirteenConfig(num_players=2))
    assert choice(greedy, pos(["5C 5H 6D 7S 2H", "3S 4S"])) == "5C"


def test_greedy_beats_with_the_weakest_play_of_the_same_kind():
    greedy = make_policy("greedy", game="thirteen", config=ThirteenConfig(num_players=2))
    assert choice(greedy, pos(["3S 8C 9D 2S", "4S 4C"], "7S", table_by=1)) == "8C"
    state = pos(["9S 9C 9D 9H 2H", "4S 4C"], "2S", table_by=1)
    assert choice(greedy, state) == "2H"  # a single before a bomb
    assert choice(greedy, pos(["3S 4C", "4S 4D"], "AH", table_by=1)) == "pass"


# ------------------------------------------------------------------- expert


@pytest.fixture
def expert():
    return make_policy("expert", game="thirteen", config=ThirteenConfig(num_players=2), seed=0)


def test_expert_goes_out_when_the_hand_is_one_play(expert):
    state = pos(["5C 6H 7D 8S 9C", "3S 4S 10H"])
    assert choice(expert, state) == "5C 6H 7D 8S 9C"
    state = pos(["6C 6H 7D 7S 8C 8H", "3S 4S"], "2S", table_by=1)
    assert choice(expert, state) == "6C 6H 7S 7D 8C 8H"  # the bomb, to go out


def test_expert_keeps_a_sequence_together(expert):
    state = pos(["5C 6H 7D 8S 9C KH", "3S 4S 10H JD QD"], "6S", table_by=1)
    assert choice(expert, state) == "KH"


def test_expert_saves_its_2_while_nobody_is_close_to_going_out(expert):
    hands = ["3S 5C 7D 2H", "4S 4C 6D 8H 9H 10S JC QD KD"]
    assert choice(expert, pos(hands, "KS", table_by=1)) == "pass"
    greedy = make_policy("greedy", game="thirteen", config=ThirteenConfig(num_players=2))
    assert choice(greedy, pos(hands, "KS", table_by=1)) == "2H"


def test_expert_spends_its_2_when_an_opponent_has_one_card_left(expert):
    assert choice(expert, pos(["3S 5C 7D 2H", "4S"], "KS", table_by=1)) == "2H"


def test_expert_does_not_lead_a_single_into_an_opponent_with_one_card(expert):
    state = pos(["3S 4C 9D 9H", "10S"])
    assert len(choice(expert, state).split()) >= 2


def test_expert_leads_an_unbeatable_card_first_to_go_out(expert):
    # Only 4♦ 5♦ are unseen: 2♥ cannot be beaten, then 3♠ goes out.
    state = pos(["3S 2H", "4D 5D"])
    assert choice(expert, state) == "2H"
    greedy = make_policy("greedy", game="thirteen", config=ThirteenConfig(num_players=2))
    assert choice(greedy, state) == "3S"


def test_expert_reads_only_its_observation(expert):
    state = pos(["5C 6H 7D 8S 9C KH", "3S 4S 10H JD QD"], "6S", table_by=1)
    other = pos(["5C 6H 7D 8S 9C KH", "3S 4S 10H JD QC"], "6S", table_by=1)
    enc = ObservationEncoder(state.config)
    obs = enc.encode(state, 0)
    # the opponent's hands differ, but seat 0 sees the same: the choice is the same
    assert np.array_equal(obs[:52], enc.encode(other, 0)[:52])
    assert expert.act(obs, state.legal_mask()) == expert.act(obs, state.legal_mask())


def test_decompose_prefers_combinations():
    # 5 6 7 8 9 as one sequence, not five singles
    counts = [0] * 13
    for r in (2, 3, 4, 5, 6):
        counts[r] = 1
    cost, groups = decompose(tuple(counts))
    assert len(groups) == 1 and cost < 1.0
    # a pair of 2s is a cheap group, two low singles are expensive
    pairs = [0] * 13
    pairs[12] = 2
    assert decompose(tuple(pairs))[0] < decompose((1, 1) + (0,) * 11)[0]


def test_expert_wins_more_than_greedy():
    from policies.evaluation import evaluate

    result = evaluate(["expert", "greedy"], game="thirteen", players=4, games=60, workers=1, seed=3)
    stats = {p.policy: p for p in result.policies}
    assert stats["expert"].win_rate > stats["greedy"].win_rate
    assert stats["expert"].mean_place < stats["greedy"].mean_place
