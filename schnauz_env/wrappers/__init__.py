"""Wrappers over the games' AEC envs (floor 3): the Gymnasium single-agent view and the
pool of players it seats, and the PettingZoo wrappers for other trainers
(``docs/interop.md``): every agent kept until the game ends, and flat observations.

They take their opponents as policy objects or callables (or a pool of them); policy
names and model files are resolved one floor up, by :class:`policies.pool.OpponentPool`.
:mod:`schnauz_env.wrappers.vec_env` (SB3 ``VecEnv`` wrappers) needs stable-baselines3
and is not imported here.
"""

from schnauz_env.wrappers.fixed_agents import FixedAgentsWrapper
from schnauz_env.wrappers.flat import FlatObservationWrapper
from schnauz_env.wrappers.pool import PlayerPool
from schnauz_env.wrappers.single_agent import SingleAgentEnv

__all__ = ["FixedAgentsWrapper", "FlatObservationWrapper", "PlayerPool", "SingleAgentEnv"]
