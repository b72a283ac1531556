"""Misuse of the envs and the engines gives a clear error and changes nothing (issue 16).

Bad-input tables, for the three games: the env before ``reset()`` and after the game
ended, actions of the wrong type, refused resets (which must leave the running game and
its later deals untouched), config and reset options of the wrong type or value, and
observations that must stay inside the declared ``Box`` under every option.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

from schnauz_env import scat_v0, schnauz_v0, thirteen_v0
from schnauz_env.cards import ALL_CARDS, format_card
from schnauz_env.scat import ScatConfig
from schnauz_env.scat import new_game as scat_game
from schnauz_env.schnauz import SchnauzConfig
from schnauz_env.schnauz import new_game as schnauz_game
from schnauz_env.thirteen import ThirteenConfig
from schnauz_env.thirteen import new_game as thirteen_game
from schnauz_env.thirteen.engine import new_position

MODULES = [schnauz_v0, scat_v0, thirteen_v0]
IDS = ["schnauz", "scat", "thirteen"]


def play(env: Any, rng: np.random.Generator, steps: int | None = None) -> list[Any]:
    """Step ``env`` with random legal actions (``None`` for agents that are done), for
    ``steps`` steps or to the end; what every step showed, for comparing two envs."""
    seen = []
    k = 0
    while env.agents and (steps is None or k < steps):
        agent = env.agent_selection
        obs, reward, term, trunc, info = env.last()
        legal = np.flatnonzero(obs["action_mask"])
        action = None if term or trunc else int(rng.choice(legal))
        env.step(action)
        seen.append((agent, action, obs["observation"].tobytes(), reward, repr(info)))
        k += 1
    return seen


def state_of(env: Any) -> Any:
    """What an agent can read from ``env`` now (all zeros would do as well for a test
    that only compares: observations of every agent, rewards, infos, the selection)."""
    raw = env.unwrapped
    return (
        raw.agent_selection,
        list(raw.agents),
        {a: raw.observe(a)["observation"].tobytes() for a in raw.possible_agents},
        {a: raw.observe(a)["action_mask"].tobytes() for a in raw.possible_agents},
        dict(raw._cumulative_rewards),
        dict(raw.rewards),
        dict(raw.terminations),
        repr(raw.infos),
        repr(raw.game),
    )


# ---------------------------------------------------------------------------- before reset
@pytest.mark.parametrize("mod", MODULES, ids=IDS)
def test_raw_env_before_reset_says_to_call_reset(mod) -> None:
    env = mod.raw_env()
    calls = {
        "step": lambda: env.step(0),
        "last": lambda: env.last(),
        "observe": lambda: env.observe("player_0"),
        "action_to_string": lambda: env.action_to_string(0),
        "render": lambda: mod.raw_env(render_mode="ansi").render(),
    }
    for name, call in calls.items():
        with pytest.raises(RuntimeError, match=r"called before reset\(\); call reset\(\) first"):
            call()
        assert name


@pytest.mark.parametrize("mod", MODULES, ids=IDS)
def test_wrapped_env_before_reset_says_reset(mod) -> None:
    """PettingZoo's order-enforcing wrapper answers first; its messages name reset()."""
    env = mod.env()
    for call in (lambda: env.step(0), lambda: env.last(), lambda: env.observe("player_0")):
        with pytest.raises((AssertionError, AttributeError, RuntimeError), match="reset"):
            call()


# ---------------------------------------------------------------------------- after the end
@pytest.mark.parametrize("mod", MODULES, ids=IDS)
@pytest.mark.parametrize("wrapped", [False, True], ids=["raw", "wrapped"])
def test_after_the_game_ended(mod, wrapped: bool) -> None:
    env = mod.env(num_players=3) if wrapped else mod.raw_env(num_players=3)
    env.reset(seed=1)
    play(env, np.random.default_rng(1))
    assert env.agents == []
    with pytest.raises(RuntimeError, match=r"call reset\(\) to start a new game"):
        env.last()
    before = state_of(env)
    if wrapped:  # PettingZoo's wrapper warns and ignores the step
        with warnings.catch_warnings(record=True):
            warnings.simplefilter("always")
            env.step(0)
    else:
        for action in (0, None):
            with pytest.raises(RuntimeError, match=r"after the game ended.*call reset\(\)"):
                env.step(action)
    assert state_of(env) == before
    for agent in env.possible_agents:  # the final observations stay readable
        obs = env.observe(agent)
        assert env.observation_space(agent).contains(obs)
        assert not obs["action_mask"].any()
    env.reset(seed=2)  # and a new game starts
    assert len(env.agents) == 3


# ---------------------------------------------------------------------------- action types
BAD_ACTIONS = [
    (0.0, "float"),
    ("0", "str"),
    (b"0", "bytes"),
    (True, "bool"),
    (np.bool_(False), "bool"),
    (np.float32(0), "float32"),
    (1 + 0j, "complex"),
    ([0], "list"),
    ((0,), "tuple"),
    (np.array([0]), r"array of shape \(1,\)"),
    (np.array(0.0), "array of shape .*float64"),
    (object(), "object"),
]


@pytest.mark.parametrize("mod", MODULES, ids=IDS)
def test_a_non_integer_action_is_a_type_error_and_changes_nothing(mod) -> None:
    env = mod.raw_env()
    env.reset(seed=0)
    before = state_of(env)
    for bad, name in BAD_ACTIONS:
        with pytest.raises(TypeError, match=f"action must be an integer.*got (an )?{name}"):
            env.step(bad)
        assert state_of(env) == before
        with pytest.raises(TypeError, match="action must be an integer"):
            env.action_to_string(bad)
    with pytest.raises(ValueError, match="None given"):  # None means "done" to PettingZoo
        env.step(None)
    assert state_of(env) == before


@pytest.mark.parametrize("mod", MODULES, ids=IDS)
def test_numpy_integers_stay_accepted(mod) -> None:
    """What PettingZoo's wrappers and the RL libraries pass: numpy integers of every
    width and 0-d integer arrays (api_test steps with ``np.int32``)."""
    kinds = [int, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint64, np.array]
    for kind in kinds:
        env = mod.raw_env()
        env.reset(seed=0)
        twin = mod.raw_env()
        twin.reset(seed=0)
        legal = int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0])
        env.step(kind(legal))
        twin.step(legal)
        assert state_of(env) == state_of(twin)
    wrapped = mod.env()
    wrapped.reset(seed=0)
    legal = int(np.flatnonzero(wrapped.observe(wrapped.agent_selection)["action_mask"])[0])
    wrapped.step(np.int32(legal))


# ---------------------------------------------------------------------------- agents, seeds
@pytest.mark.parametrize("mod", MODULES, ids=IDS)
def test_unknown_agents_and_bad_seeds_are_named(mod) -> None:
    env = mod.raw_env()
    env.reset(seed=0)
    before = state_of(env)
    for bad in ("player_9", "player0", 0, None, ("player_0",)):
        for call in (env.observe, env.observation_space, env.action_space):
            with pytest.raises(ValueError, match=r"unknown agent .*; the agents are player_0"):
                call(bad)
    for seed, error in ((-1, ValueError), (1.5, TypeError), ("7", TypeError), (True, TypeError)):
        with pytest.raises(error, match="seed must be None or an integer >= 0"):
            env.reset(seed=seed)
    for options in (5, "deck", [("deck", None)]):
        with pytest.raises(TypeError, match="reset options must be a dict"):
            env.reset(seed=0, options=options)
    assert state_of(env) == before
    env.reset(seed=np.int64(3))  # numpy integers are seeds too


@pytest.mark.parametrize("mod", MODULES, ids=IDS)
def test_render_seat_set_later_is_checked_too(mod) -> None:
    """The attribute ``render_seat`` is documented as settable: garbage set there used to
    render silently (as nobody's view); it raises like the constructor option."""
    env = mod.raw_env(render_mode="ansi", render_seat=1)
    env.reset(seed=0)
    for bad in ("x", 99, -1, 1.5, True, [0]):
        with pytest.raises(ValueError, match=r"invalid render_seat .*: None \(every hand shown\)"):
            env.render_seat = bad
    assert env.render_seat == 1
    env.render_seat = np.int64(0)
    assert env.render_seat == 0 and type(env.render_seat) is int
    env.render_seat = None
    assert isinstance(env.render(), str)


# ---------------------------------------------------------------------------- refused resets
def codes(cards: Any) -> list[str]:
    return [format_card(c) for c in cards]


#: Reset options that every game refuses (lives/scores are per game, below).
BAD_RESETS = [
    {"deck": 5},
    {"deck": ["7C"]},
    {"deck": np.array(codes(ALL_CARDS))},
    {"deck": [*codes(ALL_CARDS)[:-1], "2C"]},
    {"decks": "7C"},
    {"decks": [5]},
]
BAD_SEATS = [
    {0: 1, 1: 1, 2: 1},  # a dict: its keys used to become the lives
    3,
    "333",
    [3, 3],
    [3, 3, 3, 3],
    [3.0, 3.0, 3.0],
    [True, 1, 1],
    [3, -1, 3],
    [[3], [3], [3]],
    np.array([[3, 3, 3]]),
]


def bad_resets(mod: Any) -> list[dict[str, Any]]:
    counts = "scores" if mod is thirteen_v0 else "lives"
    bad = [*BAD_RESETS, *({counts: v} for v in BAD_SEATS)]
    bad += [{"dealer": d} for d in (3, -1, True, 1.0, "0")]  # Thirteen ignores a seat only
    if mod is schnauz_v0:  # a deck of another variant
        bad.append({"deck": codes(SchnauzConfig(deck="A5").deck_cards)})
    return bad


@pytest.mark.parametrize("mod", MODULES, ids=IDS)
def test_a_refused_reset_changes_nothing(mod) -> None:
    """Each refused reset raises; the game goes on exactly as an untouched twin's, and
    so do the deals of the next (unseeded) reset."""
    tried = 0
    for k, options in enumerate(bad_resets(mod)):
        env, twin = mod.raw_env(num_players=3), mod.raw_env(num_players=3)
        env.reset(seed=k)
        twin.reset(seed=k)
        rng_a, rng_b = np.random.default_rng(k), np.random.default_rng(k)
        assert play(env, rng_a, 7) == play(twin, rng_b, 7)
        for seed in (None, 1000 + k):
            with pytest.raises(ValueError, match=r"must|malformed|invalid|bad card"):
                env.reset(seed=seed, options=options)
            tried += 1
        assert state_of(env) == state_of(twin)
        assert play(env, rng_a) == play(twin, rng_b)  # the rest of the game, every round
        env.reset()
        twin.reset()
        assert play(env, rng_a) == play(twin, rng_b)  # the next game's deals
    assert tried >= 2 * 21


@pytest.mark.parametrize(
    ("config", "new_game", "options"),
    [
        (SchnauzConfig(num_players=3), schnauz_game, {"lives": {0: 1, 1: 1, 2: 1}}),
        (ScatConfig(num_players=3), scat_game, {"lives": 3}),
        (ScatConfig(num_players=3), scat_game, {"dealer": 5}),
        (ThirteenConfig(num_players=3), thirteen_game, {"scores": [1, 2]}),
        (SchnauzConfig(num_players=3), schnauz_game, {"deck": ["7C"]}),
    ],
)
def test_engines_check_options_before_drawing(config, new_game, options) -> None:
    rng = np.random.default_rng(0)
    before = rng.bit_generator.state
    with pytest.raises(ValueError):
        new_game(config, rng, **options)
    assert rng.bit_generator.state == before


@pytest.mark.parametrize(
    ("mod", "options", "message"),
    [
        (schnauz_v0, {"lives": {0: 1, 1: 1, 2: 1}}, r"lives must list 3 integers.*got dict"),
        (schnauz_v0, {"lives": 3}, r"lives must list 3 integers.*got int 3"),
        (scat_v0, {"lives": {0: 1, 1: 1, 2: 1}}, r"lives must list 3 integers.*got dict"),
        (scat_v0, {"lives": 3}, r"lives must list 3 integers.*got int 3"),
        (thirteen_v0, {"scores": {0: 1, 1: 1, 2: 1}}, r"scores must list 3 integers.*got dict"),
        (thirteen_v0, {"scores": 3}, r"scores must list 3 integers.*got int 3"),
    ],
)
def test_seat_lists_of_the_wrong_type_say_so(mod, options, message) -> None:
    env = mod.raw_env(num_players=3)
    with pytest.raises(ValueError, match=message):
        env.reset(seed=0, options=options)
    env.reset(seed=0, options={k: np.array([2, 2, 2]) for k in options})  # arrays do


# ---------------------------------------------------------------------------- configs
BAD_CONFIGS = [
    # (module, options, message)
    (schnauz_v0, {"max_turns": True}, r"max_turns=True: must be a positive integer"),
    (schnauz_v0, {"first_dealer": True}, r"first_dealer=True: must be None or a seat"),
    (schnauz_v0, {"first_dealer": 1.0}, r"first_dealer=1.0"),
    (schnauz_v0, {"lives": True}, r"lives=True"),
    (schnauz_v0, {"num_players": True}, r"num_players=True"),
    (schnauz_v0, {"deck": ["7C"]}, r"deck=\['7C'\].*stacked deck.*is a reset option"),
    (schnauz_v0, {"deck": None}, r"deck=None: allowed decks"),
    (schnauz_v0, {"deck": 7}, r"deck=7: allowed decks"),
    (schnauz_v0, {"ties": ["break"]}, r"ties=\['break'\]: allowed"),
    (schnauz_v0, {"short_stock": np.array(["recycle"])}, r"short_stock=array.*allowed"),
    (schnauz_v0, {"episode": {"game": 1}}, r"episode=\{'game': 1\}: allowed"),
    (schnauz_v0, {"knock_in_first_circle": np.bool_(True)}, r"True or False"),
    (scat_v0, {"max_turns": True}, r"max_turns=True"),
    (scat_v0, {"first_dealer": True}, r"first_dealer=True"),
    (scat_v0, {"buy_ins": True}, r"buy_ins=True"),
    (scat_v0, {"lives": 2.0}, r"lives=2.0"),
    (scat_v0, {"episode": ["round"]}, r"episode=\['round'\]: allowed"),
    (scat_v0, {"four_card": 1}, r"four_card=1: must be True or False"),
    (thirteen_v0, {"target_points": True}, r"target_points=True"),
    (thirteen_v0, {"max_games": True}, r"max_games=True"),
    (thirteen_v0, {"num_players": 4.0}, r"num_players=4.0"),
    (thirteen_v0, {"opening": ["free"]}, r"opening=\['free'\]: allowed"),
    (thirteen_v0, {"episode": np.array(["game", "match"])}, r"episode=array.*allowed"),
    (thirteen_v0, {"instant_wins": "yes"}, r"instant_wins='yes'"),
]


@pytest.mark.parametrize(("mod", "options", "message"), BAD_CONFIGS)
def test_bad_config_values_are_refused_clearly(mod, options, message) -> None:
    with pytest.raises(ValueError, match=message):
        mod.raw_env(**options)
    with pytest.raises(ValueError, match=message):
        mod.env(**options)


@pytest.mark.parametrize("config_class", [SchnauzConfig, ScatConfig, ThirteenConfig])
def test_numpy_integers_are_plain_ints_in_a_config(config_class) -> None:
    """Like actions, seats and lives, a config takes numpy integers; it keeps them as
    ``int`` (configs are compared, hashed and written to model files)."""
    config = (
        config_class(num_players=np.int64(3), max_games=np.int32(5))
        if (config_class is ThirteenConfig)
        else config_class(num_players=np.int64(3), max_turns=np.int16(50))
    )
    assert type(config.num_players) is int
    assert config == config_class.from_dict(config.to_dict())
    assert config_class(num_players=np.int64(3)) == config_class(num_players=3)


def test_thirteen_positions_are_checked() -> None:
    config = ThirteenConfig(num_players=2)
    hand = "3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS 2S"
    ok = new_position(config, [hand, "3C 4C"], current=1)
    assert ok.current == 1
    for kwargs, message in (
        ({"hands": [hand + " 3D", "3C"]}, r"seat 0 holds 14 cards; a hand holds at most 13"),
        ({"hands": [hand, "3C"], "current": 2}, r"current must be a seat 0..1, got 2"),
        ({"hands": [hand, "3C"], "current": True}, r"current must be a seat"),
        ({"hands": [hand, "3C"], "passed": [False]}, r"passed must list 2 flags"),
        ({"hands": [hand, "3C"], "passed": [0, 0]}, r"passed must list 2 flags"),
        ({"hands": [hand, "3C"], "scores": [1]}, r"scores must list 2 integers"),
        ({"hands": [hand, "3C"], "scores": {0: 1, 1: 1}}, r"scores must list 2 integers"),
        ({"hands": [hand, "3C"], "table": "3D", "table_by": 1.0}, r"table_by must be a seat"),
    ):
        with pytest.raises(ValueError, match=message):
            new_position(config, **kwargs)


@pytest.mark.parametrize("config_class", [SchnauzConfig, ScatConfig, ThirteenConfig])
def test_from_dict_refuses_what_is_not_a_dict_of_options(config_class) -> None:
    for data, message in (
        (5, "rules must be a dict of options, got int"),
        (["lives", 3], "rules must be a dict of options, got list"),
        ({1: 2}, r"unknown .* option\(s\) 1; allowed:"),
        ({"lives": 2, None: 1}, r"unknown .* option\(s\) None"),
    ):
        with pytest.raises(ValueError, match=message):
            config_class.from_dict(data)


# ---------------------------------------------------------------------------- observation box
def option_grid(mod: Any) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(env options, reset options) covering every option of the game."""
    if mod is schnauz_v0:
        return [
            ({}, {}),
            ({"num_players": 2, "deck": "A9", "lives": 0}, {}),
            ({"num_players": 6, "deck": "A5", "short_stock": "recycle"}, {}),
            ({"num_players": 3, "ties": "share", "fire_costs_all": True}, {}),
            ({"num_players": 4, "knock_in_first_circle": False, "max_turns": 3}, {}),
            ({"num_players": 3, "episode": "round", "first_dealer": 2}, {}),
            ({"num_players": 4}, {"lives": [5, 5, 5, 5]}),
            ({"num_players": 3, "lives": 0}, {"lives": [9, 0, 1]}),
            ({"num_players": 3, "lives": 1}, {"lives": [0, 0, 0]}),
        ]
    if mod is scat_v0:
        return [
            ({}, {}),
            ({"num_players": 2, "lives": 0}, {}),
            ({"num_players": 7, "four_card": True}, {}),
            ({"num_players": 3, "no_trinca": True, "knock_on_first_turn": True}, {}),
            ({"num_players": 4, "buy_ins": 2, "lives": 1}, {}),
            ({"num_players": 3, "max_turns": 4, "episode": "round", "first_dealer": 1}, {}),
            ({"num_players": 4}, {"lives": [5, 5, 5, 5]}),  # the example
            ({"num_players": 3, "lives": 0, "buy_ins": 1}, {"lives": [9, 0, 1]}),
            ({"num_players": 3, "lives": 2}, {"lives": [0, 0, 0]}),
        ]
    return [
        ({}, {}),
        ({"num_players": 2, "opening": "free"}, {}),
        ({"num_players": 3, "instant_wins": True, "out_clears_table": True}, {}),
        ({"episode": "match", "target_points": 1, "max_games": 2}, {}),
        ({"episode": "match", "num_players": 3}, {"scores": [50, 0, 9]}),
        ({"num_players": 4}, {"scores": [100, 100, 100, 100]}),
    ]


@pytest.mark.parametrize("mod", MODULES, ids=IDS)
def test_every_observation_stays_in_its_box_under_every_option(mod) -> None:
    checked = 0
    for k, (options, reset) in enumerate(option_grid(mod)):
        env = mod.raw_env(**options)
        for episode in range(3):
            env.reset(seed=10 * k + episode, options=reset or None)
            rng = np.random.default_rng(k)
            while True:
                for agent in env.possible_agents:
                    obs = env.observe(agent)
                    box = env.observation_space(agent)["observation"]
                    assert obs["observation"].dtype == box.dtype
                    assert np.all(obs["observation"] >= box.low), (options, reset)
                    assert np.all(obs["observation"] <= box.high), (options, reset, agent)
                    assert env.observation_space(agent).contains(obs)
                    checked += 1
                if not env.agents:
                    break
                play(env, rng, 1)
    assert checked > 1000
