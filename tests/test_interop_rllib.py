"""Ray RLlib: whole games through RLlib's ``PettingZooEnv`` (its multi-agent API over
the AEC env, every seat its own agent id). The project's RLlib trainer
(``python -m training.rllib_train``: a tiny PPO run, checkpoints, export) is
tests/test_rllib.py (docs/interop.md, "Ray RLlib")."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("ray.rllib", reason="the rllib extra (pip install -e '.[rllib]')")
from interop_helpers import GAMES, Referee, game_env
from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv


@pytest.mark.parametrize("game", GAMES)
def test_rllib_pettingzoo_env_plays_whole_games_paying_place_values(game):
    referee = Referee(game_env(game))
    env = PettingZooEnv(referee)
    rng = np.random.default_rng(0)
    for k in range(3):
        obs, _ = env.reset(seed=k)
        returns = dict.fromkeys(referee.possible_agents, 0.0)
        done = False
        while not done:
            (agent,) = obs  # one agent acts at a time
            mask = obs[agent]["action_mask"]
            obs, rewards, terminateds, truncateds, _ = env.step(
                {agent: int(rng.choice(np.flatnonzero(mask)))}
            )
            for a, r in rewards.items():
                returns[a] += r
            done = terminateds["__all__"] or truncateds["__all__"]
            obs = {a: o for a, o in obs.items() if not (terminateds[a] or truncateds[a])}
            assert obs or done
        assert len(referee.games) == k + 1
        assert [returns[a] for a in referee.possible_agents] == pytest.approx(referee.games[k])
    assert referee.cut == 0
