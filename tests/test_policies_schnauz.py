"""The Schnauz baselines: legal play everywhere, the documented ideas on fixed deals."""

from __future__ import annotations

import numpy as np
import pytest

from policies import available_policies, make_policy
from policies.schnauz import (
    ExpertPolicy,
    GreedyPolicy,
    RandomPolicy,
    best_action,
    best_reply,
    hand_tables,
    lowest_risk,
    sample_hands,
)
from schnauz_env.schnauz import (
    EXCHANGE,
    KEEP,
    KNOCK,
    PASS,
    SWAP_ALL,
    ObservationEncoder,
    SchnauzConfig,
    evaluate_hand,
    hand_key,
    new_game,
    parse_cards,
    swap_action,
)
from schnauz_env.schnauz.infoset import decode_observation

POLICIES = ["random", "greedy", "expert", "ismcts:24"]
CONFIGS = [
    SchnauzConfig(num_players=2),
    SchnauzConfig(num_players=4),
    SchnauzConfig(num_players=3, deck="A9", knock_in_first_circle=False),
    SchnauzConfig(num_players=6, deck="A5", lives=1),
    SchnauzConfig(num_players=5, ties="share", fire_costs_all=True),
]


def cards(text: str) -> list[int]:
    return [int(c) for c in parse_cards(text)]


def stacked(config: SchnauzConfig, hands: list[str], choice: str, rest: str = "") -> list[int]:
    """A deck dealing ``hands`` (in dealing order: left of the dealer first), then ``choice``."""
    first = [c for h in hands for c in cards(h)] + cards(choice) + cards(rest)
    return first + [int(c) for c in config.deck_cards if int(c) not in first]


def test_every_builtin_policy_is_registered():
    names = available_policies("schnauz")
    for name in ("random", "greedy", "expert", "ismcts"):
        assert name in names


@pytest.mark.parametrize("name", POLICIES)
@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c.num_players}p-{c.deck}")
def test_policy_plays_only_legal_actions_over_random_states(name, config):
    """States come from random play; at each, the policy must choose a legal action."""
    enc = ObservationEncoder(config)
    policy = make_policy(name, config=config, seed=1)
    rng = np.random.default_rng(config.num_players)
    asked = 0
    budget = 60 if name.startswith("ismcts") else 400
    for g in range(40):
        state = new_game(config, np.random.default_rng(g))
        while not state.game_over and asked < budget:
            seat = state.current
            mask = state.legal_mask()
            action = policy.act(enc.encode(state, seat), mask)
            assert mask[action], f"{name} chose illegal {action} in {state!r}"
            asked += 1
            legal = state.legal_actions()
            # Drive the game half by the policy, half at random, to reach varied states.
            state.apply(int(action) if rng.random() < 0.5 else legal[rng.integers(len(legal))])
        if asked >= budget:
            break
    assert asked == budget


@pytest.mark.parametrize("name", ["random", "greedy", "expert"])
def test_policy_plays_whole_games_legally(name):
    config = SchnauzConfig(num_players=4)
    enc = ObservationEncoder(config)
    policies = [make_policy(name, config=config, seed=s) for s in range(4)]
    for g in range(3):
        state = new_game(config, np.random.default_rng(g))
        while not state.game_over:
            seat = state.current
            mask = state.legal_mask()
            action = policies[seat].act(enc.encode(state, seat), mask)
            assert mask[action]
            state.apply(int(action))
        assert sorted(state.places) == [1.0, 2.0, 3.0, 4.0]


def test_random_batch_actions_are_legal_and_cover_every_legal_action():
    config = SchnauzConfig()
    policy = RandomPolicy(config, seed=0)
    masks = np.zeros((2000, 14), dtype=np.int8)
    masks[:1000, [0, 1]] = 1
    masks[1000:, 2:13] = 1
    actions = policy.act_batch(np.zeros((2000, 436), dtype=np.float32), masks)
    assert all(masks[i, a] for i, a in enumerate(actions))
    assert set(actions[:1000]) == {0, 1}
    assert set(actions[1000:]) == set(range(2, 13))


def test_same_seed_same_choices():
    config = SchnauzConfig(num_players=3)
    enc = ObservationEncoder(config)
    state = new_game(config, np.random.default_rng(0))
    state.apply(KEEP)
    obs, mask = enc.encode(state, state.current), state.legal_mask()
    for name in ("random", "expert", "ismcts:30"):
        a = [make_policy(name, config=config, seed=5).act(obs, mask) for _ in range(2)]
        assert a[0] == a[1]


def test_bad_policy_names_and_parameters_are_rejected():
    with pytest.raises(ValueError, match="unknown schnauz policy"):
        make_policy("grandmaster")
    with pytest.raises(ValueError, match="ismcts:N"):
        make_policy("ismcts:lots")
    with pytest.raises(ValueError, match="unknown expert parameter"):
        make_policy("expert:cleverness=9")
    assert make_policy("greedy:28").knock_at == 28.0
    assert make_policy("expert:knock_share=0.4").params.knock_share == 0.4
    assert make_policy("ismcts:77").params.simulations == 77
    ismcts = make_policy("ismcts:simulations=9,exploration=1.0,opponents=tree")
    assert (ismcts.params.simulations, ismcts.params.exploration) == (9, 1.0)
    with pytest.raises(ValueError, match="'model' or 'tree'"):
        make_policy("ismcts:opponents=nobody")


# ---------------------------------------------------------------- hand helpers


def test_hand_tables_agree_with_the_rules():
    config = SchnauzConfig(deck="A9")
    tables = hand_tables(config)
    rng = np.random.default_rng(0)
    deck = [int(c) for c in config.deck_cards]
    for _ in range(300):
        a, b, c = (int(x) for x in rng.choice(deck, 3, replace=False))
        assert tables.key[a][b][c] == tables.key[c][a][b] == hand_key((a, b, c))
        assert tables.pts[b][c][a] == evaluate_hand([a, b, c]).points


def test_best_reply_and_best_action_maximise_the_hand():
    key = hand_tables(SchnauzConfig()).key
    hand, table = tuple(cards("7C 8H KH")), tuple(cards("9S AH 10D"))
    k, new_hand, new_table = best_reply(key, hand, table)
    assert sorted(new_hand) == sorted(cards("8H KH AH")) and k == hand_key(cards("8H KH AH"))
    assert sorted(new_table) == sorted(cards("9S 7C 10D"))
    k2, action = best_action(key, sorted(hand), sorted(table))
    assert k2 == k and action == swap_action(0, 2)  # 7C (slot 0) for AH (table slot 2)
    assert best_action(key, cards("JC QC AC"), cards("7S 8D 9H"))[1] == PASS
    assert best_action(key, cards("7S 8D 9H"), cards("JC QC AC"))[1] == SWAP_ALL


def test_lowest_risk_falls_with_points_and_with_more_players():
    assert lowest_risk(31, 4) < lowest_risk(28, 4) < lowest_risk(21, 4) < lowest_risk(15, 4)
    assert lowest_risk(25, 2) > lowest_risk(25, 4) > lowest_risk(25, 6)


def test_opponent_model_keeps_known_cards_and_deals_each_card_once():
    import random

    config = SchnauzConfig(num_players=4)
    enc = ObservationEncoder(config)
    state = new_game(config, np.random.default_rng(1))
    state.apply(KEEP)
    state.apply(swap_action(0, 2))  # the first player takes a card: it is now known
    view = decode_observation(enc.encode(state, state.current), config)
    key = hand_tables(config).key
    rnd = random.Random(0)
    strong = weak = 0.0
    for _ in range(200):
        hands = sample_hands(view, key, rnd, skill=(14, 8, 2))
        flat = [c for h in hands[1:] for c in h]
        assert len(flat) == len(set(flat)) == 9
        assert set(flat) <= set(view.unseen) | set().union(*view.known)
        assert view.known[3] <= set(hands[3])
        strong += evaluate_hand(hands[3]).points
        weak += evaluate_hand(sample_hands(view, key, rnd, skill=1)[3]).points
    assert strong > weak  # best-of-several draws make stronger hands than uniform ones


# ---------------------------------------------------------------- fixed deals


def expert_and_view(config, deck, dealer, moves=()):
    state = new_game(config, np.random.default_rng(0), deck=deck, dealer=dealer)
    for m in moves:
        state.apply(m)
    enc = ObservationEncoder(config)
    return state, enc.encode(state, state.current), state.legal_mask()


def test_everyone_grabs_a_schnauz_within_reach():
    config = SchnauzConfig(num_players=3)
    # Dealer 2; seat 0 holds AH KH 7C and the table (after keep) offers QH.
    deck = stacked(config, ["AH KH 7C", "8C 9S 10D", "8D 9D JS"], "QH 7S 8S")
    for name in ("greedy", "expert", "ismcts:50"):
        state, obs, mask = expert_and_view(config, deck, dealer=2, moves=[KEEP])
        action = make_policy(name, config=config, seed=0).act(obs, mask)
        state.apply(int(action))
        assert state.round == 1, f"{name} did not take the Schnauz"
        assert state.last_result.reason == "instant"


def test_expert_knocks_a_near_certain_winner_and_not_a_weak_hand():
    config = SchnauzConfig(num_players=4)
    deck = stacked(config, ["AH KH 9H", "7C 8S 9D", "7D 8C 10S", "9C JS QD"], "7S 8D JC")
    state, obs, mask = expert_and_view(config, deck, dealer=3, moves=[KEEP])
    assert ExpertPolicy(config, seed=0).act(obs, mask) == KNOCK  # 30 in hearts at once
    deck = stacked(config, ["7H 9S JD", "AC 10C 8S", "AD KD 9D", "QS KS AS"], "7S 8D JC")
    state, obs, mask = expert_and_view(config, deck, dealer=3, moves=[KEEP])
    assert ExpertPolicy(config, seed=0).act(obs, mask) != KNOCK  # 10 points: never


def test_greedy_knocks_at_its_threshold_and_otherwise_improves():
    config = SchnauzConfig(num_players=3)
    deck = stacked(config, ["AH KH 8H", "7C 8S 9D", "7D 8C 10S"], "7S 8D JC")
    state, obs, mask = expert_and_view(config, deck, dealer=2, moves=[KEEP])
    assert GreedyPolicy(config).act(obs, mask) == KNOCK  # 29 >= 26
    assert GreedyPolicy(config, knock_at=30).act(obs, mask) == PASS  # nothing improves 29
    deck = stacked(config, ["AH 7C 8S", "9C 9S 9D", "7D 8C 10S"], "KH QD 10H")
    state, obs, mask = expert_and_view(config, deck, dealer=2, moves=[KEEP])
    action = GreedyPolicy(config).act(obs, mask)
    state.apply(action)
    assert evaluate_hand(state.hands[0]).points == 21  # AH + KH (or 10H)


def test_dealer_keeps_a_strong_hand_and_exchanges_a_weak_one():
    config = SchnauzConfig(num_players=4)
    strong = stacked(config, ["7C 8S 9D", "7D 8C 10S", "9C JS QD", "AH KH 9H"], "7S 8D JC")
    weak = stacked(config, ["AH KH 9H", "7D 8C 10S", "9C JS QD", "7C 8S 9D"], "7S 8D JC")
    for name in ("greedy", "expert"):
        _, obs, mask = expert_and_view(config, strong, dealer=3)
        assert make_policy(name, config=config, seed=0).act(obs, mask) == KEEP
        _, obs, mask = expert_and_view(config, weak, dealer=3)
        assert make_policy(name, config=config, seed=0).act(obs, mask) == EXCHANGE


def test_expert_in_the_final_circle_escapes_the_lowest_hand():
    config = SchnauzConfig(num_players=3)
    # Seat 0 knocks with 30; seat 1 holds 15 and can reach 21 by taking the ace.
    deck = stacked(config, ["AH KH 9H", "7C 8C 9S", "QS KS 10D"], "AC 7S 8D")
    state, _, _ = expert_and_view(config, deck, dealer=2, moves=[KEEP, KNOCK])
    enc = ObservationEncoder(config)
    action = ExpertPolicy(config, seed=0).act(enc.encode(state, 1), state.legal_mask())
    state.apply(int(action))
    assert evaluate_hand(state.hands[1]).points >= 26  # 7C 8C + AC = 26
