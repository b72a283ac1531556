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
``tests/test_feature_sets.py`` holds the features of a fixed set of positions.

A batch is computed by one call of the compiled Thirteen expert's kernel
(:func:`policies.thirteen_expert_jit.features_kernel`), which plays the expert's moves
exactly; :meth:`ThirteenExpertFeatures.row` (the Python expert, the reference) is kept
for the tests.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from policies.base import RowFeatures, with_params
from policies.thirteen import ExpertPolicy
from policies.thirteen_expert_jit import features_kernel, layout_record
from schnauz_env.thirteen.config import ThirteenConfig
from schnauz_env.thirteen.engine import NUM_ACTIONS, PLAY
from schnauz_env.thirteen.infoset import decode_observation
from schnauz_env.thirteen.observation import ObservationEncoder

FEATURES_NAME = "thirteen-expert-v1"
#: Every tunable class attribute of :class:`~policies.thirteen.ExpertPolicy` in v1, frozen.
V1_PARAMS: dict[str, float] = {"spend_penalty": 1.0, "margin": -0.25}


class ThirteenExpertFeatures(RowFeatures):
    """The ``thirteen-expert-v1`` feature set: ``obs_batch -> obs ++ expert move``."""

    name = FEATURES_NAME
    size = NUM_ACTIONS
    sampled = False  # the expert plans without sampling: no per-row seeds to hash

    def __init__(self, config: ThirteenConfig, seed: int = 0) -> None:
        super().__init__(config, ObservationEncoder(config).size, seed)
        self.expert = with_params(ExpertPolicy(config, seed=seed), V1_PARAMS)
        self._lay = layout_record(config)

    def rows(self, batch: np.ndarray, seeds: np.ndarray, out: np.ndarray) -> None:
        """The whole batch in one compiled call (the same blocks as :meth:`row`)."""
        features_kernel(batch, self.expert, self._lay, out)

    def expert_action(self, obs: np.ndarray) -> int | None:
        """The expert's action in the position ``obs`` shows (``None``: not the
        observer's turn, or the game is over)."""
        view = decode_observation(obs, self.config)
        if view.to_act != 0 or not view.hand:
            return None
        if view.declare:
            return PLAY
        return self.expert.plan_action(view)

    def row(self, obs: np.ndarray, seed: int, out: np.ndarray) -> None:
        """The one-hot of :meth:`expert_action` (``seed`` is unused)."""
        action = self.expert_action(obs)
        if action is not None:
            out[action] = 1.0


def make(config: Any) -> ThirteenExpertFeatures:
    """The feature set for ``config`` (a :class:`ThirteenConfig`)."""
    if not isinstance(config, ThirteenConfig):
        raise ValueError(f"{FEATURES_NAME} needs a ThirteenConfig, got {type(config).__name__}")
    return ThirteenExpertFeatures(config)
