"""Tianshou 2.x: whole games through its ``PettingZooEnv`` and ``Collector``, and a short
DQN training against random seats (docs/interop.md, "Tianshou")."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("tianshou", reason="the interop extra (pip install -e '.[interop]')")
import torch
from interop_helpers import GAMES, Referee, game_env, one_torch_thread  # noqa: F401
from tianshou.algorithm import (
    DQN,
    MARLRandomDiscreteMaskedOffPolicyAlgorithm,
    MultiAgentOffPolicyAlgorithm,
)
from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
from tianshou.algorithm.optim import AdamOptimizerFactory
from tianshou.data import Collector, VectorReplayBuffer
from tianshou.env import DummyVectorEnv
from tianshou.env.pettingzoo_env import PettingZooEnv
from tianshou.trainer import OffPolicyTrainerParams
from tianshou.utils.net.common import Net

from schnauz_env.wrappers import FixedAgentsWrapper

pytestmark = pytest.mark.usefixtures("one_torch_thread")


def tianshou_env(game: str, referees: list[Referee]) -> PettingZooEnv:
    """The docs' stack (infos off: Tianshou's trainer refuses a buffer holding ``None``),
    with a referee under the wrapper."""
    referee = Referee(game_env(game, infos=False))
    referees.append(referee)
    return PettingZooEnv(FixedAgentsWrapper(referee))


def agents(env: PettingZooEnv, learner: bool) -> MultiAgentOffPolicyAlgorithm:
    """A DQN learner in seat 0 (or a random player) and random players elsewhere."""
    space = env.action_space
    obs_space = env.observation_space["observation"]
    seats = [MARLRandomDiscreteMaskedOffPolicyAlgorithm(space) for _ in env.agents]
    if learner:
        net = Net(state_shape=obs_space.shape, action_shape=space.n, hidden_sizes=[32])
        policy = DiscreteQLearningPolicy(
            model=net, action_space=space, observation_space=obs_space, eps_training=0.2
        )
        seats[0] = DQN(policy=policy, optim=AdamOptimizerFactory(lr=1e-3), target_update_freq=20)
    return MultiAgentOffPolicyAlgorithm(algorithms=seats, env=env)


@pytest.mark.parametrize("game", GAMES)
def test_collector_episodes_are_whole_games_paying_place_values(game):
    np.random.seed(0)  # Tianshou's random players draw from numpy's global generator
    referees: list[Referee] = []
    envs = DummyVectorEnv([lambda: tianshou_env(game, referees)])
    envs.seed(0)
    collector = Collector(agents(tianshou_env(game, []), learner=False), envs)
    stats = collector.collect(n_episode=3, reset_before_collect=True)
    (referee,) = referees
    assert referee.cut == 0
    assert len(referee.games) == stats.n_collected_episodes == 3
    np.testing.assert_allclose(stats.returns, referee.games)
    assert stats.lens.sum() >= referee.actions  # every action, plus the wait steps at the end


def test_a_short_dqn_training_runs_on_whole_games():
    torch.manual_seed(0)
    np.random.seed(0)
    referees: list[Referee] = []
    train = DummyVectorEnv([lambda: tianshou_env("schnauz", referees) for _ in range(2)])
    test = DummyVectorEnv([lambda: tianshou_env("schnauz", referees)])
    train.seed(0)
    test.seed(100)
    algorithm = agents(tianshou_env("schnauz", []), learner=True)
    collector = Collector(algorithm, train, VectorReplayBuffer(2000, 2), exploration_noise=True)
    result = algorithm.run_training(
        OffPolicyTrainerParams(
            training_collector=collector,
            max_epochs=1,
            epoch_num_steps=200,
            collection_step_num_env_steps=50,
            batch_size=32,
            update_step_num_gradient_steps_per_sample=0.1,
            test_collector=Collector(algorithm, test),
            test_step_num_episodes=2,
            multi_agent_return_reduction=lambda returns: returns[:, 0],
            verbose=False,
            show_progress=False,
        )
    )
    assert result.update_step > 0
    assert result.test_episode >= 2
    finished = [g for r in referees for g in r.games]
    assert len(finished) >= result.test_episode
    assert sum(r.cut for r in referees[2:]) == 0  # the test env's episodes all ended
