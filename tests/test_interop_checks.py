"""Every ecosystem's own checker, on every game (docs/interop.md, "What is checked"):

* PettingZoo's ``api_test`` on the AEC env and under each wrapper for other trainers,
  and ``parallel_api_test`` on ``turn_based_aec_to_parallel`` (the parallel-API route);
* OpenSpiel's checks for Python games: the registered game type against the loaded
  game, the game's string form loading back, and the C++ random-simulation test;
* Gymnasium's ``check_env`` on the registered single-agent view
  (``gymnasium.make("schnauz_env/<Game>-v0")``), and stable-baselines3's ``check_env``.
"""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from interop_helpers import GAMES, game_env
from pettingzoo.test import api_test, parallel_api_test
from pettingzoo.utils.conversions import turn_based_aec_to_parallel

from schnauz_env.wrappers import FixedAgentsWrapper, FlatObservationWrapper
from schnauz_env.wrappers.registration import gym_id

# --------------------------------------------------------------------------- PettingZoo
WRAPPERS = {
    "env": lambda env: env,
    "fixed agents": FixedAgentsWrapper,
    "fixed agents, no wait action": lambda env: FixedAgentsWrapper(env, wait_action=False),
    "flat": FlatObservationWrapper,
    "flat, mask in info only": lambda env: FlatObservationWrapper(env, mask_in_observation=False),
    "flat over fixed agents": lambda env: FlatObservationWrapper(FixedAgentsWrapper(env)),
}


@pytest.mark.parametrize("wrapper", list(WRAPPERS))
@pytest.mark.parametrize("game", GAMES)
def test_pettingzoo_api_test(game, wrapper):
    api_test(WRAPPERS[wrapper](game_env(game)), num_cycles=300, verbose_progress=False)


@pytest.mark.parametrize("game", GAMES)
def test_pettingzoo_parallel_api_test_through_turn_based_aec_to_parallel(game):
    parallel_api_test(turn_based_aec_to_parallel(FixedAgentsWrapper(game_env(game))), 300)


# ----------------------------------------------------------------------------- OpenSpiel
@pytest.mark.parametrize("game", GAMES)
def test_openspiel_checks_for_python_games(game):
    pyspiel = pytest.importorskip("pyspiel")
    from schnauz_env.openspiel import GAME_NAMES

    name = GAME_NAMES[game]
    registered = {t.short_name: t for t in pyspiel.registered_games()}
    assert name in pyspiel.registered_names()
    loaded = pyspiel.load_game(name, {"players": 3})
    declared = loaded.get_type()
    for field in (
        "short_name",
        "long_name",
        "dynamics",
        "chance_mode",
        "information",
        "utility",
        "reward_model",
        "min_num_players",
        "max_num_players",
        "provides_information_state_string",
        "provides_information_state_tensor",
        "provides_observation_string",
        "provides_observation_tensor",
        "provides_factored_observation_string",
    ):
        assert getattr(declared, field) == getattr(registered[name], field), field
    # the string form names the game and its parameters, and loads the same game back
    again = pyspiel.load_game(str(loaded))
    assert again.get_parameters() == loaded.get_parameters()
    assert (again.num_players(), again.num_distinct_actions()) == (3, loaded.num_distinct_actions())
    # OpenSpiel's random simulations: clones, legal actions, chance outcomes, tensors and
    # strings of every seat, returns within the utility bounds, serialization
    small = {"players": 2, "lives": 1} if game != "thirteen" else {"players": 2}
    pyspiel.random_sim_test(
        pyspiel.load_game(name, small), num_sims=2, serialize=True, verbose=False
    )


# --------------------------------------------------------------------- Gymnasium and SB3
@pytest.mark.parametrize("game", GAMES)
def test_gymnasium_check_env_on_the_registered_view(game):
    from gymnasium.utils.env_checker import check_env

    env = gymnasium.make(gym_id(game), opponents=["random"], table_sizes=[3], seed=0)
    check_env(env.unwrapped)
    assert env.spec.id == gym_id(game)
    _, info = env.reset(seed=0)
    np.testing.assert_array_equal(info["action_mask"], env.unwrapped.action_masks())
    _, _, _, _, info = env.step(int(info["action_mask"].argmax()))
    assert info["action_mask"].dtype == np.int8
    # and with a render mode: gymnasium's checker renders too
    shown = gymnasium.make(gym_id(game), opponents=["random"], table_sizes=[3], render_mode="ansi")
    check_env(shown.unwrapped)


@pytest.mark.parametrize("game", GAMES)
def test_stable_baselines3_check_env(game):
    env_checker = pytest.importorskip("stable_baselines3.common.env_checker")
    env = gymnasium.make(gym_id(game), opponents=["random"], table_sizes=[3], seed=0)
    env_checker.check_env(env.unwrapped, warn=True)
