"""The pieces the three games share (schnauz_env.common), checked once for every game."""

from __future__ import annotations

import numpy as np
import pytest

from schnauz_env.cards import ALL_CARDS
from schnauz_env.common.engine import next_deck, seat_counts, stacked_decks
from schnauz_env.common.layout import BlockLayout, first_hot
from schnauz_env.scat import ScatConfig
from schnauz_env.scat import new_game as scat_game
from schnauz_env.schnauz import SchnauzConfig
from schnauz_env.schnauz import new_game as schnauz_game
from schnauz_env.thirteen import ThirteenConfig
from schnauz_env.thirteen import new_game as thirteen_game

GAMES = [
    (SchnauzConfig(num_players=3), schnauz_game),
    (ScatConfig(num_players=3), scat_game),
    (ThirteenConfig(num_players=3), thirteen_game),
]


def test_block_layout_lays_blocks_end_to_end() -> None:
    layout = BlockLayout([("a", 3), ("b", 0), ("c", 2)])
    assert layout.size == 5
    assert layout["c"] == slice(3, 5)
    assert layout.describe() == [("a", 0, 3), ("b", 3, 3), ("c", 3, 5)]
    assert first_hot(np.array([0.0, 0.0, 1.0])) == 2
    assert first_hot(np.zeros(3)) is None


def test_stacked_decks_are_dealt_before_any_shuffle() -> None:
    deck = [c.code for c in reversed(ALL_CARDS)]
    pending = stacked_decks(deck, [deck[::-1]], ALL_CARDS)
    rng = np.random.default_rng(0)
    assert next_deck(pending, rng, ALL_CARDS) == list(range(51, -1, -1))
    assert next_deck(pending, rng, ALL_CARDS) == list(range(52))
    shuffled = next_deck(pending, rng, ALL_CARDS)
    assert sorted(shuffled) == list(range(52))
    assert shuffled == [int(i) for i in np.random.default_rng(0).permutation(52)]


@pytest.mark.parametrize(
    ("values", "ok"), [([1, 0, 2], True), ([1, 2], False), ([1, -1, 2], False), ("123", False)]
)
def test_seat_counts(values: object, ok: bool) -> None:
    if ok:
        assert seat_counts(values, 3, "lives") == [1, 0, 2]
    else:
        with pytest.raises(ValueError, match=r"lives must list 3 integers >= 0 \(one per seat\)"):
            seat_counts(values, 3, "lives")


@pytest.mark.parametrize(("config", "new_game"), GAMES)
def test_every_engine_checks_actions_the_same_way(config, new_game) -> None:
    state = new_game(config, np.random.default_rng(1))
    legal = state.legal_actions()
    assert state.legal_mask().tolist() == [int(a in legal) for a in range(state.num_actions)]
    assert state.clone().apply(np.int64(legal[0])) == state.clone().apply(legal[0])
    for bad, what in ((state.num_actions, "is not an action"), (-1, "is not an action")):
        with pytest.raises(ValueError, match=f"{what}.*; legal actions: {legal[0]} "):
            state.apply(bad)
    with pytest.raises(TypeError, match=r"an action must be an integer.*got str 'x'"):
        state.apply("x")
    with pytest.raises(ValueError, match="decks must be a list of stacked decks"):
        new_game(config, np.random.default_rng(1), decks="7C")


@pytest.mark.parametrize(("config", "new_game"), GAMES)
def test_clone_copies_what_apply_changes(config, new_game) -> None:
    state = new_game(config, np.random.default_rng(2))
    before = repr(state), [list(h) for h in state.hands]
    copy = state.clone()
    rng = np.random.default_rng(3)
    while not copy.game_over:
        legal = copy.legal_actions()
        copy.apply(legal[int(rng.integers(len(legal)))])
    assert (repr(state), [list(h) for h in state.hands]) == before


@pytest.mark.parametrize("config", [c for c, _ in GAMES])
def test_configs_round_trip_and_name_their_game(config) -> None:
    assert type(config).from_dict(config.to_dict()) == config
    assert type(config).option_names() == list(config.to_dict())
    with pytest.raises(ValueError, match=f"unknown {config.game_name} option\\(s\\) jokers"):
        type(config).from_dict({"jokers": 2})
    with pytest.raises(ValueError, match=f"invalid {config.game_name} option episode='x'"):
        type(config)(episode="x")
