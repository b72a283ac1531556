"""The OpenSpiel games (``schnauz_env.openspiel``): OpenSpiel's own consistency checks,
the contract each game declares, explicit chance, the observer, determinizing for
ISMCTS, serialization, the engines' deals-on-demand hook, and OpenSpiel's ``ISMCTSBot``
playing whole games. The game-for-game comparison with the PettingZoo envs is
``test_openspiel_differential.py``.

``open_spiel.python.algorithms.get_all_states`` is not run: a deal alone has 31! (Scat
51!) orders, so no game tree of these games can be listed.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from open_spiel.python.algorithms import ismcts, mcts  # noqa: E402
from open_spiel.python.algorithms.evaluate_bots import evaluate_bots  # noqa: E402
from open_spiel.python.bots.uniform_random import UniformRandomBot  # noqa: E402
from open_spiel.python.observation import make_observation  # noqa: E402

from schnauz_env.cards import parse_card, parse_cards  # noqa: E402
from schnauz_env.common.places import place_value  # noqa: E402
from schnauz_env.openspiel import (  # noqa: E402
    GAME_NAMES,
    ScatGame,
    SchnauzGame,
    ThirteenGame,
    seeded_resampler,
)
from schnauz_env.scat import ScatConfig  # noqa: E402
from schnauz_env.scat import new_game as scat_new_game  # noqa: E402
from schnauz_env.scat.engine import stack_deck  # noqa: E402
from schnauz_env.schnauz import KNOCK, SchnauzConfig  # noqa: E402
from schnauz_env.schnauz import new_game as schnauz_new_game  # noqa: E402
from schnauz_env.thirteen import ThirteenConfig  # noqa: E402
from schnauz_env.thirteen.engine import stacked_deck  # noqa: E402

GAMES = {
    "python_schnauz": (SchnauzGame, SchnauzConfig),
    "python_scat": (ScatGame, ScatConfig),
    "python_thirteen": (ThirteenGame, ThirteenConfig),
}


def play_to_decision(state, rng: np.random.Generator, decisions: int = 0):
    """Apply random chance outcomes and ``decisions`` random actions, then chance
    outcomes up to the next decision node (or the end)."""
    while True:
        while state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[int(rng.integers(len(outcomes)))][0])
        if state.is_terminal() or decisions == 0:
            return state
        legal = state.legal_actions()
        state.apply_action(legal[int(rng.integers(len(legal)))])
        decisions -= 1


def feed(state, game, deck) -> None:
    """Deal ``deck`` (card codes, top first) through the chance nodes of the deal due."""
    cards = [int(c) for c in game.config.deck_cards]
    for code in deck:
        if not state.is_chance_node():
            return
        state.apply_action(cards.index(int(parse_card(code))))


# ---------------------------------------------------------------- OpenSpiel's own checks
@pytest.mark.parametrize(
    ("name", "params"),
    [
        ("python_schnauz", {"players": 2, "lives": 1}),
        ("python_schnauz", {"players": 3, "lives": 0, "max_turns": 3, "deck": "A9"}),
        ("python_scat", {"players": 3, "lives": 0}),
        ("python_scat", {"players": 2, "lives": 0, "max_turns": 1, "episode": "round"}),
        ("python_thirteen", {"players": 2}),
        ("python_thirteen", {"players": 3, "episode": "match", "target_points": 2}),
    ],
)
def test_random_simulations_pass_openspiels_checks(name, params):
    """OpenSpiel's C++ random-simulation test (clones, legal-action masks, chance
    outcomes, tensors of every seat, rewards summing to returns, utility and length
    bounds, serialization)."""
    pyspiel.random_sim_test(
        pyspiel.load_game(name, params), num_sims=2, serialize=True, verbose=False
    )


@pytest.mark.parametrize("name", list(GAMES))
def test_game_type_declares_the_contract(name):
    game_cls, config_cls = GAMES[name]
    game = pyspiel.load_game(name)
    t = game.get_type()
    assert t.short_name == name
    assert t.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    assert t.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert t.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert t.utility == pyspiel.GameType.Utility.ZERO_SUM
    assert t.reward_model == pyspiel.GameType.RewardModel.TERMINAL  # (MCTSBot needs it)
    assert t.provides_information_state_tensor and t.provides_observation_tensor
    assert t.provides_information_state_string and t.provides_observation_string
    assert (t.min_num_players, t.max_num_players) == (
        game_cls.spec.min_players,
        game_cls.spec.max_players,
    )
    # every option of the rules config is a parameter, with the config's default
    defaults = {f.name: f.default for f in dataclasses.fields(config_cls)}
    params = game.get_parameters()
    assert params.pop("players") == defaults.pop("num_players")
    if "first_dealer" in defaults:
        assert defaults.pop("first_dealer") is None and params.pop("first_dealer") == -1
    assert params == defaults
    config = config_cls()
    assert game.num_players() == config.num_players
    assert game.num_distinct_actions() == game_cls.spec.num_actions
    assert game.max_chance_outcomes() == len(config.deck_cards)
    assert (game.min_utility(), game.max_utility(), game.utility_sum()) == (-1.0, 1.0, 0.0)
    size = game_cls.spec.encoder_class(config).size
    assert game.observation_tensor_shape() == game.information_state_tensor_shape() == [size]


def test_parameters_become_the_rules_config():
    game = pyspiel.load_game(
        "python_schnauz(players=3,deck=A9,lives=1,ties=share,first_dealer=2,episode=round)"
    )
    assert game.config == SchnauzConfig(
        num_players=3, deck="A9", lives=1, ties="share", first_dealer=2, episode="round"
    )
    assert (game.min_utility(), game.max_utility()) == (-1.0, 2.0)  # two losers pay one
    scat = pyspiel.load_game("python_scat", {"players": 2, "episode": "round"})
    assert (scat.min_utility(), scat.max_utility()) == (-2.0, 2.0)  # a failed knock pays 2
    thirteen = pyspiel.load_game("python_thirteen", {"players": 3, "episode": "match"})
    assert thirteen.config == ThirteenConfig(num_players=3, episode="match")
    assert thirteen.max_game_length() == 100 * (13 * 3 * 4 + 1)


def test_invalid_parameters_say_what_is_allowed():
    with pytest.raises(pyspiel.SpielError, match="Unknown parameter 'bogus'"):
        pyspiel.load_game("python_scat", {"bogus": 1})
    with pytest.raises(ValueError, match="num_players=8: Scat is for 2 to 7 players"):
        pyspiel.load_game("python_scat", {"players": 8})
    with pytest.raises(ValueError, match="deck='A8'"):
        pyspiel.load_game("python_schnauz", {"deck": "A8"})


# ------------------------------------------------------------------------------ chance
def test_the_first_dealer_and_every_card_of_a_deal_are_chance_nodes():
    game = pyspiel.load_game("python_schnauz", {"players": 3})
    state = game.new_initial_state()
    assert state.current_player() == pyspiel.PlayerId.CHANCE
    assert state.chance_outcomes() == [(s, pytest.approx(1 / 3)) for s in range(3)]
    assert state.action_to_string(pyspiel.PlayerId.CHANCE, 2) == "first dealer: seat 2"
    state.apply_action(2)
    for k in range(31):  # A7: 32 cards, the last one forced
        outcomes = state.chance_outcomes()
        assert len(outcomes) == 32 - k
        assert sum(p for _, p in outcomes) == pytest.approx(1.0)
        state.apply_action(outcomes[-1][0])  # deal the deck from its highest card down
    assert state.current_player() == 2  # the dealer's choice
    engine = state.engine
    assert engine.dealer == 2
    # the deck top first: AD AH AS AC KD KH KS KC QD QH QS QC JD ...; three at once to
    # each from the dealer's left, then three for the dealer's choice
    assert engine.hands == [sorted(parse_cards(h)) for h in ("AD AH AS", "AC KD KH", "KS KC QD")]
    assert engine.stock == parse_cards(
        "QH QS QC JD JH JS JC 10D 10H 10S 10C 9D 9H 9S 9C 8D 8H 8S 8C 7D 7H 7S 7C"
    )


def test_a_fixed_first_dealer_has_no_chance_node_and_thirteen_deals_only_dealt_cards():
    state = pyspiel.load_game("python_scat", {"first_dealer": 1}).new_initial_state()
    assert len(state.chance_outcomes()) == 52
    assert state.action_to_string(pyspiel.PlayerId.CHANCE, 0) == "deal 2♣"
    state = pyspiel.load_game("python_thirteen", {"players": 2}).new_initial_state()
    for _ in range(26):  # two hands of 13; the other 26 cards stay undealt
        assert state.is_chance_node()
        state.apply_action(state.chance_outcomes()[0][0])
    assert not state.is_chance_node()
    assert state.engine.undealt == sorted(state.engine.undealt)  # in card order


def test_a_blitz_on_the_deal_pays_at_the_chance_node():
    """Scat: seat 0 is dealt 31 in hearts; everyone else loses a life at once, and the
    single-round episode ends on the last chance outcome."""
    game = pyspiel.load_game("python_scat", {"players": 3, "first_dealer": 2, "episode": "round"})
    state = game.new_initial_state()
    deck = stack_deck({0: "AH KH QH", 1: "2C 5D 8S", 2: "3C 6D 9S"}, discard="4C", dealer=2)
    feed(state, game, deck)
    assert state.is_terminal()
    assert state.returns() == state.rewards() == [2.0, -1.0, -1.0]


def test_a_scripted_schnauz_round_ends_as_the_rules_say():
    """Three players, seat 2 deals and keeps; seat 0 knocks at once (allowed in the first
    circle); seats 1 and 2 pass; seat 1 holds the lowest hand and loses a life."""
    game = pyspiel.load_game(
        "python_schnauz", {"players": 3, "first_dealer": 2, "episode": "round"}
    )
    state = game.new_initial_state()
    hands = "AS KS 9D  7C 8D 9H  10C JH JD"  # 21, 9 and 20 points
    rest = "7D 8S 9C  AC AH AD KC KH KD QC QH QD QS JC JS 10S 10H 10D 9S 8C 8H 7S 7H"
    deck = (hands + " " + rest).split()
    feed(state, game, deck)
    assert state.current_player() == 2
    assert state.action_to_string(2, 0) == "keep"
    state.apply_action(0)  # keep: the table is 7D 8S 9C
    assert state.current_player() == 0
    state.apply_action(KNOCK)
    state.apply_action(12)  # seat 1 passes
    assert state.action_to_string(2, 12) == "pass"
    state.apply_action(12)  # seat 2 passes: the showdown
    assert state.is_terminal()
    assert state.returns() == [0.5, -1.0, 0.5]
    assert state.engine.last_result.losers == [1]


def test_thirteen_deals_one_card_at_a_time_from_seat_0():
    game = pyspiel.load_game("python_thirteen", {"players": 2})
    state = game.new_initial_state()
    hands = ["3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS 2S", "3C 4C 5C 6C 7C 8C 9C 10C JC QC KC AC 2C"]
    feed(state, game, stacked_deck(hands))
    assert state.current_player() == 0  # holds 3♠, the lowest card dealt
    assert state.legal_actions()[0] == 0  # select 3♠ (the first play must include it)
    assert state.action_to_string(0, 0) == "select 3♠"


# ------------------------------------------------------------------------------ returns
@pytest.mark.parametrize("name", list(GAMES))
def test_whole_games_return_the_final_places_values(name):
    rng = np.random.default_rng(5)
    game = pyspiel.load_game(name, {"players": 3, **({} if "thirteen" in name else {"lives": 0})})
    for _ in range(3):
        state = play_to_decision(game.new_initial_state(), rng, decisions=10_000)
        assert state.is_terminal()
        places = state.engine.places
        assert state.returns() == pytest.approx([place_value(p, 3) for p in places])
        assert sum(state.returns()) == pytest.approx(0.0)


@pytest.mark.parametrize("name", list(GAMES))
def test_playout_plays_a_copy_to_the_end(name):
    import random

    game = pyspiel.load_game(name, {"players": 3, **({} if "thirteen" in name else {"lives": 0})})
    state = play_to_decision(game.new_initial_state(), np.random.default_rng(4), decisions=2)
    before = (str(state), state.history())
    returns = state.playout(random.Random(0))
    assert (str(state), state.history()) == before
    assert sorted(returns) == pytest.approx([place_value(p, 3) for p in (3, 2, 1)])


def test_parameters_of_inverts_config_of():
    from schnauz_env.openspiel import config_of, parameters_of

    config = ScatConfig(num_players=5, lives=1, buy_ins=2, first_dealer=None, four_card=True)
    params = parameters_of(config)
    assert params["players"] == 5 and params["first_dealer"] == -1
    assert config_of(ScatGame.spec, params) == config
    assert pyspiel.load_game("python_scat", params).config == config


# ----------------------------------------------------------------------------- observer
@pytest.mark.parametrize("name", list(GAMES))
def test_observer_is_the_env_encoding_with_named_blocks(name):
    game_cls, _ = GAMES[name]
    game = pyspiel.load_game(name, {"players": 3})
    observation = make_observation(game)
    layout = game_cls.spec.encoder_class(game.config).layout
    assert list(observation.dict) == [k for k, _, _ in layout.describe()]
    state = game.new_initial_state()
    observation.set_from(state, 0)
    assert not observation.tensor.any()  # nothing is known before the deal
    state = play_to_decision(state, np.random.default_rng(1), decisions=3)
    seat = state.current_player()
    observation.set_from(state, seat)
    np.testing.assert_array_equal(
        observation.tensor, game_cls.spec.encoder_class(game.config).encode(state.engine, seat)
    )
    text = state.information_state_string(seat)
    assert text == state.observation_string(seat)
    assert text.startswith(f"p{seat} ") and " legal:" in text
    other = (seat + 1) % 3
    assert "legal:" not in state.information_state_string(other)
    with pytest.raises(ValueError, match="own view"):
        make_observation(
            game,
            pyspiel.IIGObservationType(
                perfect_recall=False, public_info=True, private_info=pyspiel.PrivateInfoType.NONE
            ),
        )


# ----------------------------------------------------------------------- determinizing
@pytest.mark.parametrize("name", list(GAMES))
def test_resample_keeps_the_seats_information_and_redeals_the_rest(name):
    game = pyspiel.load_game(name, {"players": 3})
    rng = np.random.default_rng(3)
    for decisions in (0, 4, 9):
        state = play_to_decision(game.new_initial_state(), rng, decisions)
        if state.is_terminal():
            continue
        seat = state.current_player()
        before = str(state)
        unseen = sorted(state.engine.unseen_cards(seat))
        hidden_seen = set()
        for source in (pyspiel.UniformProbabilitySampler(0.0, 1.0), np.random.default_rng(9), 4):
            new = state.resample_from_infostate(seat, source)
            assert new.information_state_string(seat) == state.information_state_string(seat)
            np.testing.assert_array_equal(
                new.information_state_tensor(seat), state.information_state_tensor(seat)
            )
            assert new.legal_actions() == state.legal_actions()
            assert sorted(new.engine.unseen_cards(seat)) == unseen  # the same cards, redealt
            others = [s for s in range(3) if s != seat]
            hidden_seen.add(tuple(tuple(new.engine.hands[s]) for s in others))
        assert str(state) == before  # the state itself is unchanged
        assert len(hidden_seen) > 1  # the other hands were dealt again
        assert new.history() == state.history()


def test_resample_needs_a_decision_node():
    state = pyspiel.load_game("python_schnauz").new_initial_state()
    with pytest.raises(ValueError, match="decision node"):
        state.resample_from_infostate(0, 1)


def test_serialized_states_load_back():
    game = pyspiel.load_game("python_scat", {"players": 3, "lives": 1})
    state = play_to_decision(game.new_initial_state(), np.random.default_rng(2), 7)
    text = pyspiel.serialize_game_and_state(game, state)
    game2, state2 = pyspiel.deserialize_game_and_state(text)
    assert str(game2) == str(game)
    assert state2.history() == state.history()
    for s in range(3):
        assert state2.information_state_string(s) == state.information_state_string(s)


# ------------------------------------------------------------- the engines' deal hook
def test_deals_on_demand_give_the_same_game_as_stacked_decks():
    config = SchnauzConfig(num_players=3, lives=0)
    deck = [int(c) for c in np.random.default_rng(0).permutation(config.deck_cards)]
    stacked = schnauz_new_game(config, np.random.default_rng(1), deck=deck, dealer=1)
    waiting = schnauz_new_game(config, np.random.default_rng(2), dealer=1, deal_on_demand=True)
    assert waiting.awaiting_deal and not stacked.awaiting_deal
    with pytest.raises(ValueError, match="stacked deck"):
        waiting.deal(deck[:-1])
    assert waiting.awaiting_deal  # a refused deck changes nothing
    assert waiting.deal(deck) is None
    assert (waiting.hands, waiting.stock, waiting.current) == (
        stacked.hands,
        stacked.stock,
        stacked.current,
    )
    with pytest.raises(RuntimeError, match="no deal is awaited"):
        waiting.deal(deck)
    normal = scat_new_game(ScatConfig(num_players=2), np.random.default_rng(0))
    assert not normal.deal_on_demand and not normal.awaiting_deal


# ------------------------------------------------------------------------------ ISMCTS
def test_mcts_bot_runs_on_the_games():
    """OpenSpiel's MCTSBot (perfect-information search: it sees the state's hidden cards)
    needs a TERMINAL reward model, which the games declare."""
    game = pyspiel.load_game("python_schnauz", {"players": 2, "lives": 0})
    rs = np.random.RandomState(0)
    bot = mcts.MCTSBot(game, 2.0, 8, mcts.RandomRolloutEvaluator(1, rs), random_state=rs)
    returns = evaluate_bots(
        game.new_initial_state(), [bot, UniformRandomBot(1, np.random.RandomState(1))], rs
    )
    assert sorted(returns) == [-1.0, 1.0]


class SearchBot(ismcts.ISMCTSBot):
    """OpenSpiel's ISMCTSBot; ``evaluate_bots`` calls ``restart_at``, which it lacks
    (it builds a new tree every move, so there is nothing to restart)."""

    def restart_at(self, state):
        pass


@pytest.mark.parametrize(
    ("name", "params"),
    [
        ("python_schnauz", {"players": 2, "lives": 0}),
        ("python_scat", {"players": 3, "lives": 0}),
        ("python_thirteen", {"players": 2}),
    ],
)
def test_ismcts_plays_whole_games_through_the_wrapper(name, params):
    game = pyspiel.load_game(name, params)
    n = game.num_players()
    rs = np.random.RandomState(0)
    bot = SearchBot(game, mcts.RandomRolloutEvaluator(1, rs), 2.0, 6, random_state=rs)
    bot.set_resampler(seeded_resampler(0))
    for k in range(2):
        seat = k % n
        bots = [UniformRandomBot(s, np.random.RandomState(10 + s)) for s in range(n)]
        bots[seat] = bot
        returns = evaluate_bots(game.new_initial_state(), bots, np.random.RandomState(k))
        assert sum(returns) == pytest.approx(0.0)
        assert sorted(returns) == pytest.approx([place_value(p, n) for p in range(n, 0, -1)])


def test_openspiels_rl_environment_runs_whole_games():
    from open_spiel.python import rl_environment

    env = rl_environment.Environment("python_schnauz", players=3, lives=0)
    rng = np.random.default_rng(0)
    for _ in range(2):
        step = env.reset()
        total = np.zeros(3)
        while not step.last():
            seat = step.observations["current_player"]
            step = env.step([int(rng.choice(step.observations["legal_actions"][seat]))])
            total += step.rewards
        assert sorted(total) == pytest.approx([-1.0, 0.0, 1.0])
        assert len(step.observations["info_state"][0]) == 436


def test_the_game_names_cover_every_game():
    from schnauz_env.games import GAMES as ALL

    assert set(GAME_NAMES) == set(ALL)
    for name in GAME_NAMES.values():
        assert name in pyspiel.registered_names()
