"""A Stable-Baselines3 ``VecEnv`` over the batched Scat engine: one learner seat per game.

    from sb3_contrib import MaskablePPO
    from schnauz_env.vector import ScatVecEnv

    venv = ScatVecEnv(num_envs=64, num_players=4, opponent="greedy", seed=0)
    model = MaskablePPO("MlpPolicy", venv).learn(100_000)

Each of the ``num_envs`` games of :class:`~schnauz_env.batched.scat.BatchedScat` seats
the learner at one seat (drawn afresh every episode, or fixed with ``learner_seat``);
every other seat is an opponent. A ``step`` plays the learner's action in every game,
then the opponents' moves (all games together, in the compiled loop
:func:`schnauz_env.batched.scat.vec.k_vec` for the built-in opponents) until it is the
learner's turn again. Opponents, as for :class:`~schnauz_env.vector.SchnauzVecEnv`:

- ``"random"``: a uniformly random legal action, drawn in the kernel;
- ``"greedy"``: ``policies.scat.GreedyPolicy``'s move (``greedy:T`` with
  ``T = greedy_threshold``), computed in the kernel
  (:func:`schnauz_env.batched.scat.players.greedy_action`, checked move for move
  against the policy);
- a policy object (with ``act_batch``, e.g. ``policies.make_policy("expert",
  game="scat", config=config, seed=seed)``) or a callable ``(obs, masks[, games]) ->
  actions`` (a ``per_game`` one also gets the games' indices, e.g.
  :class:`policies.pool.OpponentPool`), called in Python with the views (float32, the
  AEC env's ``observe(agent)["observation"]``) and masks (int8) of the games waiting
  for an opponent.

Observations are the learner's ``observe(agent)["observation"]`` of ``scat_v0``,
``action_masks()`` its masks. The reward of a step is the learner's reward summed over
its move and the opponents' moves up to its next turn: the AEC env's zero-sum place
rewards, so an episode's return is the learner's final place value (+1 down to -1), or
with ``episode="round"`` the single round's rewards. An episode ends when the learner's
place is decided (it is out of lives and buy-ins, or the game ends) and the game is dealt
again at once (``infos[i]["terminal_observation"]`` holds the last view,
``infos[i]["place"]`` the final place, 0 for single-round episodes). A deal that ends
the learner's episode before it acts (a blitz after the deal in a single round) is dealt
again unseen; rewards paid before the learner's first move are paid with that move.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from schnauz_env.batched.learner_loop import OPP_GREEDY, OPP_RANDOM
from schnauz_env.batched.scat import BatchedScat
from schnauz_env.batched.scat.layout import F_ERROR, OBS_ENTRIES
from schnauz_env.batched.scat.vec import k_vec
from schnauz_env.scat.config import MAX_PLAYERS
from schnauz_env.scat.engine import NUM_ACTIONS
from schnauz_env.vector.base import BatchedVecEnv

__all__ = ["ScatVecEnv"]

#: The built-in greedy opponent's knock threshold, ``policies.scat.GreedyPolicy``'s.
DEFAULT_THRESHOLD = 27.0


class ScatVecEnv(BatchedVecEnv):
    """``num_envs`` Scat games, each a single-agent env for the learner's seat.

    ``config`` (or rule options as keywords, as for ``scat_v0.env``) sets the rules;
    ``greedy_threshold`` is the knock threshold of the built-in ``"greedy"`` opponent.
    """

    game = "scat"
    error_field = F_ERROR
    engine_class = BatchedScat
    num_actions = NUM_ACTIONS
    max_players = MAX_PLAYERS
    k_vec = staticmethod(k_vec)

    def __init__(
        self, *args: Any, greedy_threshold: float = DEFAULT_THRESHOLD, **options: Any
    ) -> None:
        super().__init__(*args, greedy_threshold=greedy_threshold, **options)
        self.greedy_threshold = float(greedy_threshold)
        b = self.num_envs
        self._rew0 = np.zeros((b, MAX_PLAYERS), dtype=np.float64)
        # the encoder's records of the entries it set in each view buffer
        self._obs_nz = np.zeros((b, OBS_ENTRIES), dtype=np.int16)
        self._term_nz = np.zeros((b, OBS_ENTRIES), dtype=np.int16)
        self._opp_nz = np.zeros(
            (b if self.opponent_fn is not None else 1, OBS_ENTRIES), dtype=np.int16
        )

    def kernel_players(self) -> dict[str, int]:
        """``random``, and ``greedy:T`` at the kernel's threshold (``greedy`` itself at
        the default 27, as ``policies.scat.GreedyPolicy`` plays it)."""
        threshold = self.greedy_threshold
        names = {"random": OPP_RANDOM, f"greedy:{threshold:g}": OPP_GREEDY}
        if threshold == DEFAULT_THRESHOLD:
            names["greedy"] = OPP_GREEDY
        return names

    def _kernel_state(self) -> tuple[Any, ...]:
        return (*self.engine.arrays, self._rew0, self._obs_nz, self._term_nz, self._opp_nz)
