"""Hidden information in Scat: changing cards a seat cannot see leaves that seat's
observation (and mask) unchanged; changing what it can see changes it."""

from __future__ import annotations

import random

import numpy as np
import pytest

from schnauz_env.scat import ObservationEncoder, ScatConfig, ScatState, new_game
from schnauz_env.scat.infoset import decode_observation


def reshuffle_hidden(state: ScatState, seat: int, rng: random.Random) -> tuple[ScatState, bool]:
    """A copy in which the cards ``seat`` cannot see (the opponents' cards not drawn
    from the discard pile, and the stock) are dealt again among those places."""
    new = state.clone()
    places: list[tuple[int, int]] = []  # (owner, index); owner -1 is the stock
    for s in range(state.n):
        if s != seat and not state.out[s]:
            places += [(s, i) for i, c in enumerate(state.hands[s]) if c not in state.known[s]]
    places += [(-1, i) for i in range(state.pos, len(state.deck))]
    cards = [state.deck[i] if s < 0 else state.hands[s][i] for s, i in places]
    shuffled = list(cards)
    rng.shuffle(shuffled)
    for (s, i), c in zip(places, shuffled, strict=True):
        if s < 0:
            new.deck[i] = c
        else:
            new.hands[s][i] = c
    for s in range(state.n):
        new.hands[s].sort()
    return new, shuffled != cards


CONFIGS = [
    ScatConfig(num_players=2),
    ScatConfig(num_players=4),
    ScatConfig(num_players=7, four_card=True, lives=1),
    ScatConfig(num_players=5, buy_ins=1, lives=0),
]


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"n{c.num_players}")
def test_hidden_cards_never_reach_an_observation(config: ScatConfig) -> None:
    rng = random.Random(11)
    encoder = ObservationEncoder(config)
    checked = changed = 0
    for game in range(25):
        state = new_game(config, np.random.default_rng(game))
        while not state.game_over:
            if rng.random() < 0.3:
                for seat in state.active:
                    other, did_change = reshuffle_hidden(state, seat, rng)
                    assert np.array_equal(encoder.encode(other, seat), encoder.encode(state, seat))
                    if seat == state.current:
                        assert other.legal_actions() == state.legal_actions()
                    checked += 1
                    changed += did_change
            legal = state.legal_actions()
            state.apply(legal[rng.randrange(len(legal))])
    assert checked > 200 and changed > 0.9 * checked


def test_what_a_seat_can_see_does_change_its_observation() -> None:
    config = ScatConfig(num_players=3)
    encoder = ObservationEncoder(config)
    state = new_game(config, np.random.default_rng(0))
    base = encoder.encode(state, 0)
    own = state.clone()
    stock_card = own.deck[own.pos]
    own.deck[own.pos], own.hands[0][0] = own.hands[0][0], stock_card
    own.hands[0].sort()
    assert not np.array_equal(encoder.encode(own, 0), base)  # own hand
    pile = state.clone()
    pile.pile[-1], pile.deck[pile.pos] = pile.deck[pile.pos], pile.pile[-1]
    assert not np.array_equal(encoder.encode(pile, 0), base)  # the discard pile
    # a card seat 1 drew from the discard pile is public knowledge
    taken = state.clone()
    taken.known[1].add(taken.hands[1][0])
    assert not np.array_equal(encoder.encode(taken, 0), base)


def test_observation_decodes_to_what_the_seat_knows() -> None:
    config = ScatConfig(num_players=4, buy_ins=2)
    encoder = ObservationEncoder(config)
    rng = random.Random(3)
    state = new_game(config, np.random.default_rng(5))
    for _ in range(60):
        legal = state.legal_actions()
        state.apply(legal[rng.randrange(len(legal))])
        if state.game_over:
            break
        for seat in range(4):
            view = decode_observation(encoder.encode(state, seat), config)
            assert view.hand == tuple(state.hands[seat])
            assert view.pile == tuple(state.pile)
            assert view.stock_size == state.stock_size
            assert view.num_players == 4
            for k in range(1, 4):
                assert view.known[k] == frozenset(state.known[(seat + k) % 4])
                assert view.lives[k] == state.lives[(seat + k) % 4]
            assert view.to_act == (state.current - seat) % 4
            hidden = set(view.unseen())
            assert hidden == set(state.unseen_cards(seat))
