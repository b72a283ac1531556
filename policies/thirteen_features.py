"""``thirteen-expert-v1``: the Thirteen expert's next move as features, for a network to
build on.

A network trained on the raw observation has to rediscover from one-hot cards what the
``expert`` computes by search over partitions of its hand: which plays keep pairs and
sequences together, which group is a boss, when a pass is cheaper. Cloning the expert
that way agrees with it on about 91% of its card-by-card actions, and that network wins
only about half its fair share against three experts (a wrong card breaks a whole
play). This feature set hands the network the expert's own choice, so it can play the
expert exactly and learn *where to deviate* (residual policy learning), as
``schnauz-expert-v1`` does for Schnauz.

The block is 54 numbers: the one-hot of the action the expert would take in the
observed position (a card to select, *play* or *pass*: the action ids of
:mod:`schnauz_env.thirteen.engine`), all zeros when it is not the observer's turn.
The expert reads only the observation, so the block is a function of it.

The expert's tunable numbers are frozen with the feature set's version: :data:`V1_PARAMS`
holds :class:`~policies.thirteen.ExpertPolicy`'s values when v1 shipped, written out, so
retuning the expert changes neither these features nor the moves of a model trained on
them (a new parameter set is a new name, ``thirteen-expert-v2``).
``tests/test_thirteen_features.py`` holds the features of a fixed set of positions.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from policies.thirteen import ExpertPolicy
from schnauz_env.thirteen.config import ThirteenConfig
from schnauz_env.thirteen.engine import NUM_ACTIONS, PLAY
from schnauz_env.thirteen.observation import ObservationEncoder

FEATURES_NAME = "thirteen-expert-v1"
#: Every tunable class attribute of :class:`~policies.thirteen.ExpertPolicy` in v1, frozen.
V1_PARAMS: dict[str, float] = {"spend_penalty": 1.0, "margin": -0.25}


class ThirteenExpertFeatures:
    """The ``thirteen-expert-v1`` feature set: ``obs_batch -> obs ++ expert move``."""

    name = FEATURES_NAME
    size = NUM_ACTIONS

    def __init__(self, config: ThirteenConfig, seed: int = 0) -> None:
        self.config = config
        self.obs_size = ObservationEncoder(config).size
        self.expert = ExpertPolicy(config, seed=seed)
        for key, value in V1_PARAMS.items():
            setattr(self.expert, key, value)  # the instance's values, not the class's

    def expert_action(self, obs: np.ndarray) -> int | None:
        """The expert's action in the position ``obs`` shows (``None``: not the
        observer's turn, or the game is over)."""
        from schnauz_env.thirteen.infoset import decode_observation

        view = decode_observation(obs, self.config)
        if view.to_act != 0 or not view.hand:
            return None
        if view.declare:
            return PLAY
        return self.expert.plan_action(view)

    def features(self, obs: np.ndarray) -> np.ndarray:
        """The 54-number block of one observation or a batch ``(B, obs_size)``."""
        obs = np.asarray(obs, dtype=np.float32)
        single = obs.ndim == 1
        batch = obs[None] if single else obs
        if batch.ndim != 2 or batch.shape[1] != self.obs_size:
            raise ValueError(f"observations of shape {obs.shape}, expected (B, {self.obs_size})")
        out = np.zeros((batch.shape[0], self.size), dtype=np.float32)
        for i, row in enumerate(batch):
            action = self.expert_action(row)
            if action is not None:
                out[i, action] = 1.0
        return out[0] if single else out

    def __call__(self, obs: np.ndarray) -> np.ndarray:
        """``obs`` with its feature block appended (last axis)."""
        obs = np.asarray(obs, dtype=np.float32)
        return np.concatenate([obs, self.features(obs)], axis=-1)


def make(config: Any) -> ThirteenExpertFeatures:
    """The feature set for ``config`` (a :class:`ThirteenConfig`)."""
    if not isinstance(config, ThirteenConfig):
        raise ValueError(f"{FEATURES_NAME} needs a ThirteenConfig, got {type(config).__name__}")
    return ThirteenExpertFeatures(config)
