"""A Stable-Baselines3 ``VecEnv`` over the batched Thirteen engine: one learner seat per game.

    from sb3_contrib import MaskablePPO
    from schnauz_env.vector import ThirteenVecEnv

    venv = ThirteenVecEnv(num_envs=64, num_players=4, opponent="greedy", seed=0)
    model = MaskablePPO("MlpPolicy", venv).learn(100_000)

Each of the ``num_envs`` games of :class:`~schnauz_env.batched.thirteen.BatchedThirteen`
seats the learner at one seat (drawn afresh every episode, or fixed with
``learner_seat``); every other seat is an opponent. A ``step`` plays the learner's
action in every game, then the opponents' moves (all games together, in the compiled
loop :func:`schnauz_env.batched.thirteen.vec.k_vec` for the built-in opponents) until it
is the learner's turn again. Opponents, as for :class:`~schnauz_env.vector.SchnauzVecEnv`:

- ``"random"``: a uniformly random legal action, drawn in the kernel;
- ``"greedy"``: ``policies.thirteen.GreedyPolicy``'s move, computed in the kernel
  (:func:`schnauz_env.batched.thirteen.players.greedy_action`, checked move for move
  against the policy);
- a policy object (with ``act_batch``, e.g. ``policies.make_policy("expert",
  game="thirteen", config=config, seed=seed)``) or a callable ``(obs, masks[, games])
  -> actions`` (a ``per_game`` one also gets the games' indices, e.g.
  :class:`policies.pool.OpponentPool`), called in Python with the views (float32, the
  AEC env's ``observe(agent)["observation"]``) and masks (int8) of the games waiting
  for an opponent.

Observations are the learner's ``observe(agent)["observation"]`` of ``thirteen_v0``,
``action_masks()`` its masks (a play is built card by card: select, then *play*; or
*pass*). The reward of a step is the learner's reward summed over its move and the
opponents' moves up to its next turn: the AEC env's zero-sum place rewards, so an
episode's return is the learner's final place value (+1 down to -1). An episode ends
when the learner's place is decided (it went out, or the game, or with
``episode="match"`` the match, is over) and a new one is dealt at once
(``infos[i]["terminal_observation"]`` holds the last view, ``infos[i]["place"]`` the
final place). An episode that ends before the learner acts (an instant win at the deal)
is dealt again unseen.
"""

from __future__ import annotations

from typing import Any

from schnauz_env.batched.learner_loop import OPP_GREEDY, OPP_RANDOM
from schnauz_env.batched.thirteen import BatchedThirteen
from schnauz_env.batched.thirteen.layout import F_ERROR, P
from schnauz_env.batched.thirteen.vec import k_vec
from schnauz_env.thirteen.engine import NUM_ACTIONS
from schnauz_env.vector.base import BatchedVecEnv

__all__ = ["ThirteenVecEnv"]


class ThirteenVecEnv(BatchedVecEnv):
    """``num_envs`` Thirteen games (or matches), each a single-agent env for the learner's
    seat. ``config`` (or rule options as keywords, as for ``thirteen_v0.env``) sets the
    rules."""

    game = "thirteen"
    error_field = F_ERROR
    engine_class = BatchedThirteen
    num_actions = NUM_ACTIONS
    max_players = P
    k_vec = staticmethod(k_vec)

    def kernel_players(self) -> dict[str, int]:
        """``random`` and ``greedy`` (``policies.thirteen.GreedyPolicy``, move for move)."""
        return {"random": OPP_RANDOM, "greedy": OPP_GREEDY}

    def _kernel_state(self) -> tuple[Any, ...]:
        return self.engine.tables, self.engine.state
