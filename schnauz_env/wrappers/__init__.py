"""Wrappers over the games' AEC envs (floor 3): the Gymnasium single-agent view and the
pool of players it seats.

They take their opponents as policy objects or callables (or a pool of them); policy
names and model files are resolved one floor up, by :class:`policies.pool.OpponentPool`.
:mod:`schnauz_env.wrappers.vec_env` (SB3 ``VecEnv`` wrappers) needs stable-baselines3
and is not imported here.
"""

from schnauz_env.wrappers.pool import PlayerPool
from schnauz_env.wrappers.single_agent import SingleAgentEnv

__all__ = ["PlayerPool", "SingleAgentEnv"]
