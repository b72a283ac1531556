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

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from gymnasium import spaces

try:
    from stable_baselines3.common.vec_env import VecEnv
except ImportError as err:  # pragma: no cover - exercised only without SB3
    raise ImportError(
        "SchnauzVecEnv needs stable-baselines3: pip install stable-baselines3 sb3-contrib"
    ) from err

from schnauz_env.batched.schnauz import BatchedSchnauz
from schnauz_env.batched.schnauz import loop as K
from schnauz_env.batched.schnauz.state import F_ERROR
from schnauz_env.schnauz.config import MAX_PLAYERS, SchnauzConfig
from schnauz_env.schnauz.engine import NUM_ACTIONS

OpponentFn = Callable[..., Any]
#: The opponents the kernel plays itself.
BUILT_IN = {"random": K.OPP_RANDOM, "greedy": K.OPP_GREEDY}


def opponent_function(opponent: Any) -> tuple[OpponentFn | None, int, bool]:
    """``(function, kernel opponent kind, per_game)`` of a VecEnv's ``opponent`` argument.

    ``"random"`` and ``"greedy"`` are played in the kernel (no function); a policy object
    is its ``act_batch``; a callable is itself. ``ValueError`` for anything else, with
    how to pass another player.
    """
    if isinstance(opponent, str):
        if opponent in BUILT_IN:
            return None, BUILT_IN[opponent], False
        raise ValueError(
            f"unknown opponent {opponent!r}: the VecEnv plays 'random' and 'greedy' itself; "
            "pass any other player as a policy object or a callable (obs, masks[, games]) -> "
            f"actions, e.g. policies.make_policy({opponent!r}, game='schnauz', config=config, "
            "seed=seed), or a policies.pool.OpponentPool"
        )
    if callable(opponent):
        fn = opponent
    elif callable(getattr(opponent, "act_batch", None)):
        fn = opponent.act_batch
    else:
        raise ValueError(
            f"opponent must be 'random', 'greedy', a policy object (with act_batch) or a "
            f"callable (obs, masks[, games]) -> actions; got {opponent!r}"
        )
    per_game = bool(getattr(fn, "per_game", False) or getattr(opponent, "per_game", False))
    return fn, K.OPP_EXTERNAL, per_game


class SchnauzVecEnv(VecEnv):
    """``num_envs`` Schnauz games, each a single-agent env for the learner's seat."""

    def __init__(
        self,
        num_envs: int = 64,
        config: SchnauzConfig | None = None,
        opponent: Any = "random",
        learner_seat: int | None = None,
        seed: int | None = None,
        keep_points: int = 16,
        knock_points: int = 26,
        **options: Any,
    ) -> None:
        self.opponent_fn, self.opponent_kind, self._per_game = opponent_function(opponent)
        self.engine = eng = BatchedSchnauz(
            num_envs,
            config,
            seed=seed,
            observe=False,
            keep_points=keep_points,
            knock_points=knock_points,
            **options,
        )
        self.config = eng.config
        n, b = eng.num_players, eng.num_games
        if learner_seat is not None and not 0 <= learner_seat < n:
            raise ValueError(f"learner_seat must be None or a seat 0..{n - 1}")
        self.learner_seat = learner_seat
        self.render_mode = None
        size = eng.obs_size
        self._obs = np.zeros((b, size), dtype=np.float32)
        self._mask = np.zeros((b, NUM_ACTIONS), dtype=np.int8)
        self._term_obs = np.zeros((b, size), dtype=np.float32)
        self._term_place = np.zeros(b, dtype=np.float64)
        self._reward = np.zeros(b, dtype=np.float64)
        self._done = np.zeros(b, dtype=np.int8)
        self._need = np.zeros(b, dtype=np.int8)
        self._opp_obs = np.zeros(
            (b, size) if self.opponent_fn is not None else (1, 1), dtype=np.float32
        )
        self._opp_mask = np.zeros((b, NUM_ACTIONS), dtype=np.int8)
        self._opp_actions = np.zeros(b, dtype=np.int64)
        self._actions = np.zeros(b, dtype=np.int64)
        self._vs = np.zeros((b, 4), dtype=np.int32)
        self._vacc = np.zeros(b, dtype=np.float64)
        self._rew = np.zeros((b, MAX_PLAYERS), dtype=np.float64)
        self._all = np.arange(b, dtype=np.int64)
        self._pending_seed: int | None = None
        super().__init__(
            b,
            spaces.Box(0.0, 1.0, (size,), dtype=np.float32),
            spaces.Discrete(NUM_ACTIONS),
        )

    # ------------------------------------------------------------------ running
    def _run(self, games: np.ndarray) -> None:
        eng = self.engine
        errors = K.k_vec(
            *eng.kernel_state,
            self._rew,
            self._vs,
            self._vacc,
            games,
            self._actions,
            self._opp_actions,
            self.opponent_kind,
            -1 if self.learner_seat is None else self.learner_seat,
            self._obs,
            self._mask,
            self._term_obs,
            self._term_place,
            self._reward,
            self._done,
            self._need,
            self._opp_obs,
            self._opp_mask,
            self.opponent_fn is not None,
        )
        if errors:
            bad = np.flatnonzero(eng.gs[:, F_ERROR])
            eng.gs[bad, F_ERROR] = 0
            g = int(bad[0])
            who = "learner" if self._vs[g, K.V_STAGE] == K.S_READY else "opponent"
            act = self._actions[g] if who == "learner" else self._opp_actions[g]
            mask = self._mask[g] if who == "learner" else self._opp_mask[g]
            raise ValueError(
                f"illegal {who} action {int(act)} in env {g}; legal actions: "
                f"{np.flatnonzero(mask).tolist()}"
            )

    def _advance(self) -> None:
        self._run(self._all)
        while self.opponent_fn is not None:
            games = np.flatnonzero(self._need)
            if games.size == 0:
                break
            if self._per_game:
                acts = self.opponent_fn(self._opp_obs[games], self._opp_mask[games], games)
            else:
                acts = self.opponent_fn(self._opp_obs[games], self._opp_mask[games])
            self._opp_actions[games] = np.asarray(acts, dtype=np.int64).reshape(-1)
            self._run(games)

    def reset(self) -> np.ndarray:
        if self._pending_seed is not None:
            self.engine.seed(self._pending_seed)
            self._pending_seed = None
        self._vs[:, K.V_STAGE] = K.S_RESET
        self._vacc[:] = 0.0
        self._done[:] = 0
        self._reward[:] = 0.0
        self._advance()
        self._done[:] = 0
        self.reset_infos = [{} for _ in range(self.num_envs)]
        return self._obs.copy()

    def step_async(self, actions: np.ndarray) -> None:
        self._actions[:] = np.asarray(actions).reshape(-1)

    def step_wait(self):
        self._done[:] = 0
        self._reward[:] = 0.0
        self._advance()
        dones = self._done.astype(bool)
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        for g in np.flatnonzero(dones):
            infos[g] = {
                "terminal_observation": self._term_obs[g].copy(),
                "place": float(self._term_place[g]),
                "TimeLimit.truncated": False,
            }
        return self._obs.copy(), self._reward.astype(np.float32), dones, infos

    def action_masks(self) -> np.ndarray:
        """``(num_envs, 14)`` bool: the learner's legal actions (for ``MaskablePPO``)."""
        return self._mask.astype(bool)

    @property
    def learner_seats(self) -> np.ndarray:
        """The learner's seat in each game."""
        return self._vs[:, K.V_LEARNER].copy()

    # ------------------------------------------------------------ VecEnv plumbing
    def seed(self, seed: int | None = None) -> Sequence[int | None]:
        """Reseed every game's generator at the next ``reset()``."""
        self._pending_seed = seed
        return [None if seed is None else seed + i for i in range(self.num_envs)]

    def close(self) -> None:
        pass

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        value = getattr(self, attr_name)  # raises AttributeError as SB3 expects
        return [value for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        setattr(self, attr_name, value)

    def env_method(
        self, method_name: str, *method_args: Any, indices: Any = None, **method_kwargs: Any
    ) -> list[Any]:
        if method_name == "action_masks":
            return list(self.action_masks()[list(self._get_indices(indices))])
        result = getattr(self, method_name)(*method_args, **method_kwargs)
        return [result for _ in self._get_indices(indices)]

    def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> list[bool]:
        return [False for _ in self._get_indices(indices)]
