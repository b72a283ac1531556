"""What a seat knows (decode_observation) and states consistent with it (sample_state)."""

from __future__ import annotations

import numpy as np
import pytest

from schnauz_env.schnauz import (
    DEALER_CHOICE,
    FINAL_CIRCLE,
    KNOCK,
    OVER,
    ObservationEncoder,
    SchnauzConfig,
    new_game,
    parse_cards,
)
from schnauz_env.schnauz.infoset import decode_observation, sample_state

CONFIGS = [
    SchnauzConfig(num_players=2),
    SchnauzConfig(num_players=3, deck="A9"),
    SchnauzConfig(num_players=4),
    SchnauzConfig(num_players=5, deck="A5", knock_in_first_circle=False),
    SchnauzConfig(num_players=6, deck="A9", lives=1),
    SchnauzConfig(num_players=4, short_stock="recycle", lives=0),
]


def random_states(config: SchnauzConfig, games: int, seed: int):
    """Every state of ``games`` random games (the state is mutated as play goes on)."""
    rng = np.random.default_rng(seed)
    for g in range(games):
        state = new_game(config, np.random.default_rng(seed * 1000 + g))
        while not state.game_over:
            yield state
            legal = state.legal_actions()
            state.apply(legal[rng.integers(len(legal))])
        yield state


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c.num_players}p-{c.deck}")
def test_sampled_state_reencodes_to_the_same_observation(config):
    enc = ObservationEncoder(config)
    rng = np.random.default_rng(1)
    checked = 0
    for state in random_states(config, games=6, seed=config.num_players):
        for seat in range(state.n):
            obs = enc.encode(state, seat)
            mask = state.legal_mask() if seat == state.current else None
            sampled = sample_state(obs, config, rng, mask)
            np.testing.assert_array_equal(enc.encode(sampled, 0), obs)
            if seat == state.current and not state.game_over:
                assert sampled.legal_actions() == state.legal_actions()
            checked += 1
    assert checked > 500


@pytest.mark.parametrize("config", CONFIGS[:4], ids=lambda c: f"{c.num_players}p-{c.deck}")
def test_decoded_view_matches_the_real_state(config):
    enc = ObservationEncoder(config)
    for state in random_states(config, games=3, seed=7):
        if state.game_over:
            continue
        n = state.n
        for seat in range(n):
            view = decode_observation(enc.encode(state, seat), config)
            assert view.num_players == n
            assert list(view.hand) == state.hands[seat]
            assert list(view.table) == state.table
            assert view.out_of_play == frozenset(state.out_of_play)
            assert view.stock_size == state.stock_size
            assert view.phase == state.phase
            assert view.passes == state.passes
            rel = [(seat + k) % n for k in range(n)]
            assert view.lives == tuple(state.lives[s] for s in rel)
            assert view.out == tuple(state.out[s] for s in rel)
            assert view.dealer == (state.dealer - seat) % n
            assert view.to_act == (state.current - seat) % n
            expected_knocker = None if state.knocker is None else (state.knocker - seat) % n
            assert view.knocker == expected_knocker
            for k in range(1, n):
                assert view.known[k] == frozenset(state.known[rel[k]])
            # The cards this seat cannot locate are exactly the engine's unseen cards.
            assert set(view.unseen) == set(state.unseen_cards(seat))


def test_known_cards_stay_and_hidden_cards_are_redealt():
    config = SchnauzConfig(num_players=3)
    # Seat 1 deals; seat 2, seat 0, seat 1 get three cards each; then the table.
    deck = parse_cards(
        "7C 7S 7H  8C 8S 8H  9C 9S 9H  AC AS AH  10C 10S 10H JC JS JH QC QS QH KC KS KH 7D 8D 9D 10D JD QD KD AD"
    )
    state = new_game(config, np.random.default_rng(0), deck=deck, dealer=1)
    state.apply(0)  # keep: the table is AC AS AH
    state.apply(2 + 3 * 0 + 0)  # seat 2 swaps 7C for AC
    enc = ObservationEncoder(config)
    obs = enc.encode(state, 0)  # seat 0's view: seat 2 (position 2) is known to hold AC
    view = decode_observation(obs, config)
    assert view.known[2] == {int(parse_cards("AC")[0])}
    hands = set()
    for s in range(40):
        sampled = sample_state(obs, config, np.random.default_rng(s))
        assert int(parse_cards("AC")[0]) in sampled.hands[2]
        assert sampled.hands[0] == state.hands[0]
        assert sampled.table == state.table
        hands.add(tuple(sampled.hands[1]))
        cards = [c for h in sampled.hands for c in h] + sampled.table + sampled.stock
        assert sorted(cards) == sorted(int(c) for c in config.deck_cards)
    assert len(hands) > 10  # the hidden cards really are redealt


def test_sampled_state_plays_on_to_the_end_of_the_round():
    config = SchnauzConfig(num_players=4)
    enc = ObservationEncoder(config)
    rng = np.random.default_rng(3)
    for state in random_states(config, games=2, seed=3):
        if state.game_over:
            continue
        sampled = sample_state(enc.encode(state, state.current), config, rng, state.legal_mask())
        rounds = sampled.round
        while sampled.round == rounds and not sampled.game_over:
            legal = sampled.legal_actions()
            sampled.apply(legal[rng.integers(len(legal))])


def test_final_circle_and_knock_rules_survive_sampling():
    config = SchnauzConfig(num_players=4, knock_in_first_circle=False)
    enc = ObservationEncoder(config)
    state = new_game(config, np.random.default_rng(5))
    state.apply(0)
    seat = state.current
    obs, mask = enc.encode(state, seat), state.legal_mask()
    assert not mask[KNOCK]
    assert not sample_state(obs, config, np.random.default_rng(0), mask).knock_allowed()
    for _ in range(4):
        state.apply(12)  # everyone passes once: the first circle is over
    seat = state.current
    assert state.legal_mask()[KNOCK]
    sampled = sample_state(
        enc.encode(state, seat), config, np.random.default_rng(0), state.legal_mask()
    )
    assert sampled.legal_mask()[KNOCK]
    state.apply(KNOCK)
    seat = state.current
    sampled = sample_state(enc.encode(state, seat), config, np.random.default_rng(0))
    assert sampled.phase == FINAL_CIRCLE
    assert sampled.final_left == state.final_left


def test_biased_hands_are_used_and_checked():
    config = SchnauzConfig(num_players=3)
    enc = ObservationEncoder(config)
    state = new_game(config, np.random.default_rng(2))
    state.apply(0)
    seat = state.current
    obs = enc.encode(state, seat)
    view = decode_observation(obs, config)
    pool = list(view.unseen)
    hands = [(), tuple(pool[0:3]), tuple(pool[3:6])]
    sampled = sample_state(view, config, np.random.default_rng(0), hands=hands)
    assert sampled.hands[1] == sorted(pool[0:3]) and sampled.hands[2] == sorted(pool[3:6])
    np.testing.assert_array_equal(enc.encode(sampled, 0), obs)
    with pytest.raises(ValueError, match="not consistent"):
        sample_state(
            view, config, np.random.default_rng(0), hands=[(), tuple(pool[0:3]), tuple(pool[0:3])]
        )
    with pytest.raises(ValueError, match="not consistent"):
        sample_state(
            view, config, np.random.default_rng(0), hands=[(), tuple(view.hand), tuple(pool[3:6])]
        )


def test_dealer_choice_and_game_over_views():
    config = SchnauzConfig(num_players=2)
    enc = ObservationEncoder(config)
    state = new_game(config, np.random.default_rng(4))
    view = decode_observation(enc.encode(state, state.dealer), config)
    assert view.phase == DEALER_CHOICE and view.table == () and view.dealer == 0
    rng = np.random.default_rng(0)
    while not state.game_over:
        legal = state.legal_actions()
        state.apply(legal[rng.integers(len(legal))])
    view = decode_observation(enc.encode(state, 0), config)
    assert view.phase == OVER and view.to_act is None
    assert sample_state(enc.encode(state, 0), config, rng).game_over


def test_a_wrong_observation_is_rejected():
    with pytest.raises(ValueError, match="does not match"):
        decode_observation(np.zeros(10, dtype=np.float32), SchnauzConfig())
    obs = ObservationEncoder(SchnauzConfig(num_players=3)).encode(
        new_game(SchnauzConfig(num_players=3), np.random.default_rng(0)), 0
    )
    with pytest.raises(ValueError, match="3 players"):
        decode_observation(obs, SchnauzConfig(num_players=4))
