"""OpenSpiel: a short DQN training (``open_spiel.python.pytorch.dqn``) through OpenSpiel's
``rl_environment`` on each game, against random seats, its episodes whole games paying
the places' values (docs/interop.md, "OpenSpiel"). OpenSpiel's own checks, its
``ISMCTSBot`` and ``MCTSBot`` playing whole games, and the game-for-game comparison with
the PettingZoo envs are tests/test_openspiel*.py and tests/test_interop_checks.py."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("pyspiel", reason="the openspiel extra (pip install -e '.[openspiel]')")
pytest.importorskip("torch", reason="OpenSpiel's DQN is torch's")
from interop_helpers import GAMES, SMALL, one_torch_thread  # noqa: F401
from open_spiel.python import rl_environment
from open_spiel.python.algorithms.random_agent import RandomAgent
from open_spiel.python.pytorch.dqn import DQN

from schnauz_env.common.places import place_value
from schnauz_env.games import game_module
from schnauz_env.openspiel import GAME_NAMES, parameters_of

pytestmark = pytest.mark.usefixtures("one_torch_thread")


@pytest.mark.parametrize("game", GAMES)
def test_dqn_trains_through_rl_environment_on_whole_games(game):
    config = game_module(game).Config(**SMALL[game])
    env = rl_environment.Environment(
        GAME_NAMES[game],
        chance_event_sampler=rl_environment.ChanceEventSampler(seed=0),
        **parameters_of(config),
    )
    n = env.num_players
    size = env.observation_spec()["info_state"][0]
    actions = env.action_spec()["num_actions"]
    learner = DQN(
        0,
        size,
        actions,
        hidden_layers_sizes=[32],
        batch_size=16,
        min_buffer_size_to_learn=32,
        learn_every=4,
        replay_buffer_capacity=1000,
        seed=0,
    )
    agents = [learner] + [RandomAgent(s, actions) for s in range(1, n)]
    for _ in range(3):
        step = env.reset()
        total = np.zeros(n)
        while not step.last():
            seat = step.observations["current_player"]
            out = agents[seat].step(step)
            assert out.action in step.observations["legal_actions"][seat]
            step = env.step([out.action])
            total += step.rewards
        for agent in agents:
            agent.step(step)  # the end of the episode, as OpenSpiel's examples do
        state = env.get_state
        places = state.engine.places
        assert total == pytest.approx([place_value(p, n) for p in places])
        assert state.returns() == pytest.approx(total)
    assert learner.loss is not None  # it learned from the games
