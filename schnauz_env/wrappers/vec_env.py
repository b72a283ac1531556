"""Stable-Baselines3 ``VecEnv`` wrappers that keep the action masks (needs stable-baselines3).

* :class:`MaskedVecEnvWrapper`: the base of every wrapper here and of the reward
  wrappers in :mod:`training.rewards`; passes the wrapped env's ``action_masks()`` on,
  as sb3-contrib's ``MaskablePPO`` asks the outermost env for them.
* :class:`FeatureVecEnv`: appends a feature block to every observation (and terminal
  observation), e.g. ``schnauz-moves-v1`` (:mod:`schnauz_env.schnauz.features`); the
  feature set is passed in (``policies.mlp.feature_transform`` builds one by name).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env import VecEnv, VecEnvWrapper


class MaskedVecEnvWrapper(VecEnvWrapper):
    """A VecEnv wrapper that passes the wrapped env's action masks on (for MaskablePPO)."""

    def reset(self) -> np.ndarray:
        return self.venv.reset()

    def action_masks(self) -> np.ndarray:
        return np.asarray(self.venv.env_method("action_masks"))


class FeatureVecEnv(MaskedVecEnvWrapper):
    """Appends ``features(obs)`` to every observation (and terminal observation).

    ``features`` maps a ``(..., obs)`` array to ``(..., obs + features.size)``: the
    observation with its feature block appended."""

    def __init__(self, venv: VecEnv, features: Any) -> None:
        self.features = features
        size = venv.observation_space.shape[0] + features.size
        super().__init__(venv, observation_space=spaces.Box(0.0, 1.0, (size,), dtype=np.float32))

    def reset(self) -> np.ndarray:
        return self.features(self.venv.reset())

    def step_wait(self):
        obs, rewards, dones, infos = self.venv.step_wait()
        for info in infos:
            if "terminal_observation" in info:
                info["terminal_observation"] = self.features(info["terminal_observation"])
        return self.features(obs), rewards, dones, infos
