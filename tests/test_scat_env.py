"""The Scat AEC environment: PettingZoo's API and seed tests, options, stacked decks,
infos, rewards, rendering, illegal moves, and the ``schnauz_env.games`` contract."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from schnauz_env import scat_v0
from schnauz_env.games import env_module, game_module
from schnauz_env.scat import (
    DRAW_STOCK,
    KNOCK,
    NUM_ACTIONS,
    PASS,
    ScatConfig,
    discard_action,
    stack_deck,
)

THREE = {0: "AC KC 9C", 1: "KH 9H 2S", 2: "3C 6S 8D"}  # 30, 19, 8


def drain(env) -> None:
    while env.agents and env.terminations[env.agent_selection]:
        env.step(None)


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"num_players": 2},
        {"num_players": 7, "four_card": True},
        {"num_players": 3, "buy_ins": 1, "lives": 1, "knock_on_first_turn": True},
        {"num_players": 5, "episode": "round", "no_trinca": True},
    ],
)
def test_pettingzoo_api(options: dict) -> None:
    api_test(scat_v0.env(**options), num_cycles=300)


def test_pettingzoo_seed_test() -> None:
    seed_test(lambda: scat_v0.env(num_players=4), num_cycles=300)


def test_registry_entry() -> None:
    registration = pytest.importorskip("pettingzoo.env_registry.registration")
    import schnauz_env  # noqa: F401  (registers the environments)

    env = registration.make("aec", "schnauz_env/scat_v0", num_players=3)
    env.reset(seed=0)
    assert env.unwrapped.config == ScatConfig(num_players=3)


def test_games_contract() -> None:
    module = game_module("scat")
    assert module.Config is ScatConfig and module.NUM_ACTIONS == NUM_ACTIONS == 9
    config = module.Config(num_players=4)
    state = module.new_game(config, np.random.default_rng(0))
    encoder = module.ObservationEncoder(config)
    assert encoder.encode(state, 0).shape == (encoder.size,) == (685,)
    assert state.n == 4 and not state.game_over and 0 <= state.current < 4
    assert list(np.flatnonzero(state.legal_mask())) == list(state.legal_actions())
    assert isinstance(state.action_to_string(DRAW_STOCK, symbols=True), str)
    assert state.places == [None] * 4 and state.lives == [3] * 4 and state.out == [False] * 4
    copy = state.clone()
    copy.apply(copy.legal_actions()[0])
    assert state.step == 0 and copy.step == 1
    assert state.apply(DRAW_STOCK) is None
    assert env_module("scat") is scat_v0


def test_spaces_and_observation_sizes() -> None:
    for four_card, size in ((False, 685), (True, 737)):
        env = scat_v0.env(num_players=7, four_card=four_card)
        env.reset(seed=1)
        obs, *_ = env.last()
        assert obs["observation"].shape == (size,) and obs["observation"].dtype == np.float32
        assert obs["action_mask"].shape == (NUM_ACTIONS,) and obs["action_mask"].dtype == np.int8
        assert env.action_space(env.agent_selection).n == NUM_ACTIONS
    # the size does not depend on the table size
    sizes = {scat_v0.raw_env(num_players=n).encoder.size for n in range(2, 8)}
    assert sizes == {685}


def test_options_errors_are_clear() -> None:
    with pytest.raises(ValueError, match=r"unknown Scat option\(s\): jokers; allowed options: "):
        scat_v0.env(jokers=True)
    with pytest.raises(ValueError, match="2 to 7 players"):
        scat_v0.env(num_players=9)
    with pytest.raises(ValueError, match="invalid render_mode"):
        scat_v0.env(render_mode="svg")
    env = scat_v0.raw_env()
    with pytest.raises(ValueError, match="malformed stacked deck"):
        env.reset(options={"deck": ["AS", "KS"]})
    with pytest.warns(UserWarning, match="unknown reset option"):
        env.reset(options={"colour": "red"})


def scripted_env(**options):
    env = scat_v0.raw_env(num_players=3, knock_on_first_turn=True, **options)
    env.reset(seed=0, options={"deck": stack_deck(THREE, "2D", dealer=2), "dealer": 2})
    return env


def test_stacked_deck_and_showdown_info() -> None:
    env = scripted_env()
    game = env.unwrapped.game
    assert game.hands[0] == sorted(game.hands[0]) and env.agent_selection == "player_0"
    env.step(KNOCK)
    env.step(PASS)
    env.step(PASS)
    info = env.infos["player_0"]
    last = info["last_showdown"]
    assert last["reason"] == "knock" and last["knocker"] == "player_0"
    assert last["losses"] == {"player_2": 1} and last["losers"] == ["player_2"]
    assert last["hands"]["player_0"] == {
        "cards": ["9C", "KC", "AC"],
        "value": 30.0,
        "label": "30 ♣",
    }
    assert info["lives"] == {"player_0": 3, "player_1": 3, "player_2": 2}
    assert info["round"] == 1 and info["on_the_bus"]["player_2"] is False
    assert info["buy_ins_left"] == {"player_0": 0, "player_1": 0, "player_2": 0}
    assert all(env.infos[a] == info for a in env.agents)


def test_single_round_rewards_count_lives_lost() -> None:
    env = scat_v0.raw_env(num_players=3, knock_on_first_turn=True, episode="round")
    deck = stack_deck({0: "2C 3S 4H", 1: "KH 9H 2S", 2: "KS 9S 3H"}, "2D", dealer=2)
    env.reset(seed=0, options={"deck": deck, "dealer": 2})
    for action in (KNOCK, PASS, PASS):
        env.step(action)
    # the knocker, strictly lowest, lost two lives; the others share +2
    assert env.rewards == {"player_0": -2.0, "player_1": 1.0, "player_2": 1.0}
    assert all(env.terminations.values())
    drain(env)
    assert env.agents == []


def test_blitz_on_the_first_deal_is_settled_at_reset() -> None:
    env = scat_v0.raw_env(num_players=3, episode="round")
    deck = stack_deck({0: "2C 3S 4H", 1: "AS KS 10S", 2: "5C 6S 7H"}, "2D", dealer=2)
    env.reset(seed=0, options={"deck": deck, "dealer": 2})
    assert env.infos["player_0"]["last_showdown"]["reason"] == "blitz_deal"
    assert env._cumulative_rewards == {"player_0": -1.0, "player_1": 2.0, "player_2": -1.0}
    assert all(env.terminations.values())
    drain(env)
    assert env.agents == []


def test_blitz_on_the_first_deal_can_end_a_whole_game() -> None:
    env = scat_v0.raw_env(num_players=3)
    deck = stack_deck({0: "2C 3S 4H", 1: "AS KS 10S", 2: "5C 6S 7H"}, "2D", dealer=2)
    env.reset(seed=0, options={"deck": deck, "dealer": 2, "lives": [0, 3, 0]})
    assert env.unwrapped.game.game_over and env.unwrapped.game.places == [2.5, 1.0, 2.5]
    assert env._cumulative_rewards == {"player_0": -0.5, "player_1": 1.0, "player_2": -0.5}
    drain(env)
    assert env.agents == []


def test_illegal_move_under_the_wrapper_and_raw() -> None:
    env = scat_v0.env(num_players=3)
    env.reset(seed=0)
    offender = env.agent_selection
    env.step(discard_action(0))  # a discard at the draw step
    assert env.rewards[offender] == -1.0
    assert sorted(env.rewards.values()) == [-1.0, 0.0, 0.0]
    assert all(env.terminations.values())
    raw = scat_v0.raw_env(num_players=3)
    raw.reset(seed=0)
    with pytest.raises(ValueError, match=r"legal actions: 0 \(draw stock\), 1 \(draw"):
        raw.step(discard_action(0))


def test_render_text() -> None:
    env = scat_v0.env(num_players=3, render_mode="ansi")
    env.reset(seed=3)
    text = env.render()
    assert "Scat, round 1" in text and "discard pile" in text and "to act" in text
    assert text.count("seat ") == 3
    from schnauz_env.scat.render import render_text

    hidden = render_text(env.unwrapped.game, seat=0)
    assert hidden.count("??") == 6  # two opponents, three unseen cards each
    env.close()


def test_action_names_through_the_env() -> None:
    env = scripted_env()
    assert env.action_to_string(1) == "draw 2♦ from the discard pile"
    assert env.action_to_string(PASS) == "pass (the stock is empty)"
