"""A Stable-Baselines3 ``VecEnv`` over the batched engine: one learner seat per game.

    from sb3_contrib import MaskablePPO
    from schnauz_env.vector import SchnauzVecEnv

    venv = SchnauzVecEnv(num_envs=64, num_players=4, opponent="greedy", seed=0)
    model = MaskablePPO("MlpPolicy", venv).learn(100_000)

Each of the ``num_envs`` games seats the learner at one seat (drawn afresh every
episode, or fixed with ``learner_seat``); every other seat is an opponent. A
``step`` plays the learner's action in every game, then the opponents' moves —
all games together, inside the compiled kernel for the built-in opponents — until
it is the learner's turn again. Opponents:

- ``"random"``: a uniformly random legal action, drawn in the kernel;
- ``"greedy"``: ``policies.schnauz.GreedyPolicy``'s move, computed in the kernel
  (the same function, :func:`schnauz_env.batched.schnauz.greedy.greedy_move`);
- a policy object (anything with ``act_batch``, e.g. ``policies.make_policy("expert",
  game="schnauz", config=config, seed=seed)``): its ``act_batch``, called in Python;
- any callable ``(obs_batch, mask_batch) -> actions`` (e.g. a torch policy),
  called with the views (float32) and masks (int8, as the AEC env's
  ``action_mask``) of all games waiting for an opponent, one row per game.

A callable (or a policy object, or its ``act_batch``) with a true ``per_game``
attribute also gets the games' indices as a third argument, to seat different
opponents in different games (e.g. :class:`policies.pool.OpponentPool`) or to keep
state per game (``expert-jit``). Names of other players are resolved one floor up:
pass ``policies.make_policy(name, ...)`` or a ``policies.pool.OpponentPool``.

Observations are the learner's ``observe(agent)["observation"]`` of the AEC env,
``action_masks()`` its masks (for ``MaskablePPO``). The reward of a step is the
learner's reward summed over its move and the opponents' moves up to its next
turn: the AEC env's zero-sum place rewards (return = final place value, +1 down
to -1), or ``episode="round"`` rewards. An episode ends when the learner's place
is decided (it goes out, or the game ends); the game is then dealt again at once
(``infos[i]["terminal_observation"]`` holds the last view, ``infos[i]["place"]``
the final place, 0 for single-round episodes). An episode in which the learner
never got to act (an instant showdown before its first turn) is dealt again
unseen.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from schnauz_env.batched.schnauz import BatchedSchnauz
from schnauz_env.batched.schnauz import loop as K
from schnauz_env.batched.schnauz.state import F_ERROR
from schnauz_env.schnauz.config import MAX_PLAYERS
from schnauz_env.schnauz.engine import NUM_ACTIONS
from schnauz_env.vector.base import BUILT_IN, BatchedVecEnv, OpponentFn, opponent_function

__all__ = ["BUILT_IN", "OpponentFn", "SchnauzVecEnv", "opponent_function"]


class SchnauzVecEnv(BatchedVecEnv):
    """``num_envs`` Schnauz games, each a single-agent env for the learner's seat.

    ``config`` (or rule options as keywords, as for ``schnauz_v0.env``) sets the rules;
    ``keep_points`` and ``knock_points`` set the built-in ``"greedy"`` opponent (16 and
    26, as ``policies.schnauz.GreedyPolicy`` plays it)."""

    game = "schnauz"
    error_field = F_ERROR
    engine_class = BatchedSchnauz
    num_actions = NUM_ACTIONS
    max_players = MAX_PLAYERS
    k_vec = staticmethod(K.k_vec)

    def _kernel_state(self) -> tuple[Any, ...]:
        return self.engine.kernel_state

    def action_masks(self) -> np.ndarray:
        """``(num_envs, 14)`` bool: the learner's legal actions (for ``MaskablePPO``)."""
        return self._mask.astype(bool)
