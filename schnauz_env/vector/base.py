"""What every VecEnv over a batched engine shares: seats, opponents, stepping, SB3 plumbing.

:class:`BatchedVecEnv` is a Stable-Baselines3 ``VecEnv`` of ``num_envs`` games of one
batched engine, each a single-agent env for the learner's seat. A game's own VecEnv
(:class:`~schnauz_env.vector.SchnauzVecEnv`, :class:`~schnauz_env.vector.ScatVecEnv`,
:class:`~schnauz_env.vector.ThirteenVecEnv`) builds the engine and calls its game's
compiled loop (``k_vec``: the learner's move, then the opponents' until the learner is
to act again, in every game at once); the rest is here:

- the opponent: ``"random"`` or ``"greedy"`` (played inside ``k_vec``), a policy object
  (its ``act_batch``) or a callable ``(obs, masks[, games]) -> actions``, called in
  Python for the games that wait for an opponent (:func:`opponent_function`). A
  ``per_game`` opponent that seats players by name, with ``entries`` (its players) and
  ``assignment`` (each game's entry), such as :class:`policies.pool.OpponentPool`, has
  the games it gives to a player the kernel plays (:meth:`BatchedVecEnv.kernel_players`)
  played inside ``k_vec`` too, and is called for the others only;
- ``reset`` / ``step``: the learner's view, its masks (:meth:`~BatchedVecEnv.action_masks`,
  for ``MaskablePPO``), its reward summed over its move and the opponents' moves up to
  its next turn, and at an episode's end ``infos[i]["terminal_observation"]`` and
  ``infos[i]["place"]`` (the game is then dealt again at once);
- seeding (``seed()``: every game's generators at the next ``reset()``) and the
  ``VecEnv`` methods SB3 calls.

The codes the kernels share with this class are in :mod:`schnauz_env.batched.learner_loop`.
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
        "the batched VecEnvs need stable-baselines3: pip install stable-baselines3 sb3-contrib"
    ) from err

from schnauz_env.batched.jit import SameTypes
from schnauz_env.batched.learner_loop import (
    OPP_EXTERNAL,
    OPP_GREEDY,
    OPP_RANDOM,
    S_READY,
    S_RESET,
    V_COLUMNS,
    V_LEARNER,
    V_STAGE,
    Buffers,
)

OpponentFn = Callable[..., Any]
#: The opponents the kernels play themselves.
BUILT_IN = {"random": OPP_RANDOM, "greedy": OPP_GREEDY}


def opponent_function(opponent: Any, game: str = "schnauz") -> tuple[OpponentFn | None, int, bool]:
    """``(function, kernel opponent kind, per_game)`` of a VecEnv's ``opponent`` argument.

    ``"random"`` and ``"greedy"`` are played in the kernel (no function); a policy object
    is its ``act_batch``; a callable is itself. ``ValueError`` for anything else, with
    how to pass another player of ``game``.
    """
    if isinstance(opponent, str):
        if opponent in BUILT_IN:
            return None, BUILT_IN[opponent], False
        raise ValueError(
            f"unknown opponent {opponent!r}: the VecEnv plays 'random' and 'greedy' itself; "
            "pass any other player as a policy object or a callable (obs, masks[, games]) -> "
            f"actions, e.g. policies.make_policy({opponent!r}, game={game!r}, config=config, "
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
    return fn, OPP_EXTERNAL, per_game


def _seats_by_name(opponent: Any) -> bool:
    """Whether ``opponent`` seats its players per game by name (``entries`` and
    ``assignment``, as :class:`policies.pool.OpponentPool` does)."""
    return isinstance(getattr(opponent, "entries", None), list) and hasattr(opponent, "assignment")


class BatchedVecEnv(VecEnv):
    """``num_envs`` games of a batched engine, each a single-agent env for the learner's seat.

    ``VecEnv(num_envs=64, config=None, opponent="random", learner_seat=None, seed=None,
    **options)``: ``config`` (or rule options as keywords, as for the game's ``env()``)
    sets the rules; any other keyword goes to the engine (e.g. the built-in greedy
    player's settings). A game's subclass names its engine class (:attr:`engine_class`:
    ``num_games``, ``num_players``, ``obs_size``, ``seed()``, ``gs``), its action count,
    most seats and its kernel ``k_vec``, called as ``k_vec(*self._kernel_state(),
    buffers, games, seat_mode, want_opp_obs)`` (``buffers``: the
    :class:`~schnauz_env.batched.learner_loop.Buffers` of this VecEnv; it returns how
    many games got an illegal action); it implements :meth:`_kernel_state`, names the
    column of ``gs`` that flags an error (:attr:`error_field`) and the players of a pool
    its kernel plays itself (:meth:`kernel_players`).
    """

    #: The game's name (in messages).
    game: str = ""
    #: The column of ``engine.gs`` that flags a game's error.
    error_field: int = -1
    #: The game's batched engine class.
    engine_class: Any = None
    #: The game's action count and most seats.
    num_actions: int = 0
    max_players: int = 0
    #: The game's compiled loop (a ``staticmethod``).
    k_vec: Any = None

    def __init__(
        self,
        num_envs: int = 64,
        config: Any = None,
        opponent: Any = "random",
        learner_seat: int | None = None,
        seed: int | None = None,
        **options: Any,
    ) -> None:
        # a bad opponent fails before any work
        self.opponent_fn, self.opponent_kind, self._per_game = opponent_function(
            opponent, self.game
        )
        self.engine = eng = self.engine_class(num_envs, config, seed=seed, observe=False, **options)
        num_actions, max_players = self.num_actions, self.max_players
        self.config = eng.config
        n, b = eng.num_players, eng.num_games
        if learner_seat is not None and not 0 <= learner_seat < n:
            raise ValueError(f"learner_seat must be None or a seat 0..{n - 1}")
        self.learner_seat = learner_seat
        self.render_mode = None
        size = eng.obs_size
        self._obs = np.zeros((b, size), dtype=np.float32)
        self._mask = np.zeros((b, num_actions), dtype=np.int8)
        self._term_obs = np.zeros((b, size), dtype=np.float32)
        self._term_place = np.zeros(b, dtype=np.float64)
        self._reward = np.zeros(b, dtype=np.float64)
        self._carry = np.zeros(b, dtype=np.float64)
        self._done = np.zeros(b, dtype=np.int8)
        self._need = np.zeros(b, dtype=np.int8)
        self._opp_obs = np.zeros(
            (b, size) if self.opponent_fn is not None else (1, 1), dtype=np.float32
        )
        self._opp_mask = np.zeros((b, num_actions), dtype=np.int8)
        self._opp_actions = np.zeros(b, dtype=np.int64)
        self._actions = np.zeros(b, dtype=np.int64)
        self._vs = np.zeros((b, V_COLUMNS), dtype=np.int32)
        self._vacc = np.zeros(b, dtype=np.float64)
        self._rew = np.zeros((b, max_players), dtype=np.float64)
        self._all = np.arange(b, dtype=np.int64)
        #: Each game's opponent kind (the kernels that take one per game read it).
        self._opp_kinds = np.full(b, self.opponent_kind, dtype=np.int8)
        self._buffers = Buffers(
            self._rew,
            self._vs,
            self._vacc,
            self._actions,
            self._opp_actions,
            self._opp_kinds,
            self._obs,
            self._mask,
            self._term_obs,
            self._term_place,
            self._reward,
            self._done,
            self._need,
            self._opp_obs,
            self._opp_mask,
        )
        # (called with the same types every time: numba's typing of the named tuple of
        # buffers, and of Thirteen's state, is skipped after the first call)
        self._k_vec = SameTypes(self.k_vec)
        self._pool = opponent if self._per_game and _seats_by_name(opponent) else None
        self._seated: Any = None  # the pool's assignment that _opp_kinds follows
        self._pending_seed: int | None = None
        super().__init__(
            b,
            spaces.Box(0.0, 1.0, (size,), dtype=np.float32),
            spaces.Discrete(num_actions),
        )

    # ------------------------------------------------------------------ running
    def kernel_players(self) -> dict[str, int]:
        """The players, by name as a pool seats them, that the kernel plays itself: their
        kernel opponent kinds. None here (a kernel that takes one kind for every game)."""
        return {}

    def _seat_pool(self) -> None:
        """Follow the pool's seating: its games seated by a player the kernel plays are
        played in the kernel, the others by the pool (read again when the pool redraws
        its seating, e.g. when a self-play snapshot joins it)."""
        pool = self._pool
        assignment = getattr(pool, "assignment", None)
        if assignment is self._seated or assignment is None:
            return
        self._seated = assignment
        if len(assignment) != self.num_envs:
            self._opp_kinds[:] = OPP_EXTERNAL
            return
        names = self.kernel_players()
        kinds = np.array(
            [
                names.get(e, OPP_EXTERNAL) if isinstance(e, str) else OPP_EXTERNAL
                for e in pool.entries
            ],
            dtype=np.int8,
        )
        self._opp_kinds[:] = kinds[np.asarray(assignment)]

    def _kernel_state(self) -> tuple[Any, ...]:
        """The arguments the game's ``k_vec`` takes before the buffers: the engine's state
        (and any arrays of the game's own)."""
        raise NotImplementedError

    def _kernel(self, games: np.ndarray) -> int:
        """Run the game's ``k_vec`` over ``games``; return the games with an illegal action."""
        return self._k_vec(
            *self._kernel_state(),
            self._buffers,
            games,
            -1 if self.learner_seat is None else self.learner_seat,
            self.opponent_fn is not None,
        )

    def _reseed(self, seed: int) -> None:
        """Reseed the engine so that the games from here on are those of a new VecEnv
        built with ``seed``."""
        self.engine.seed(seed)

    def _run(self, games: np.ndarray) -> None:
        if self._kernel(games):
            gs = self.engine.gs
            bad = np.flatnonzero(gs[:, self.error_field])
            gs[bad, self.error_field] = 0
            g = int(bad[0])
            who = "learner" if self._vs[g, V_STAGE] == S_READY else "opponent"
            act = self._actions[g] if who == "learner" else self._opp_actions[g]
            mask = self._mask[g] if who == "learner" else self._opp_mask[g]
            raise ValueError(
                f"illegal {who} action {int(act)} in env {g}; legal actions: "
                f"{np.flatnonzero(mask).tolist()}"
            )

    def _advance(self) -> None:
        if self._pool is not None:
            self._seat_pool()
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
            self._reseed(self._pending_seed)
            self._pending_seed = None
        self._vs[:, V_STAGE] = S_RESET
        self._vacc[:] = 0.0
        self._done[:] = 0
        self._reward[:] = 0.0
        self._advance()
        # What the learners earned before their first move is paid with it.
        self._carry[:] = self._reward
        self._done[:] = 0
        self.reset_infos = [{} for _ in range(self.num_envs)]
        return self._obs.copy()

    def step_async(self, actions: np.ndarray) -> None:
        self._actions[:] = np.asarray(actions).reshape(-1)

    def step_wait(self):
        self._done[:] = 0
        self._reward[:] = 0.0
        self._advance()
        if self._carry.any():
            self._reward += self._carry
            self._carry[:] = 0.0
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
        """``(num_envs, num_actions)`` bool: the learner's legal actions (for ``MaskablePPO``)."""
        return self._mask.astype(bool)

    @property
    def learner_seats(self) -> np.ndarray:
        """The learner's seat in each game."""
        return self._vs[:, V_LEARNER].copy()

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
