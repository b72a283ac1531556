"""The seeded opponent pool: a weighted mix of players for the seats the learner does not hold.

    from policies.pool import OpponentPool

    pool = OpponentPool(["greedy", "expert", "runs/a/model.npz"], [1, 2, 1], game="schnauz")

An opponent is a policy name (``"greedy"``, ``"ismcts:200"``), a model file, a
:class:`policies.Policy` object (e.g. a frozen self-play snapshot) or a callable
``(obs, mask) -> action``; names are resolved by :func:`policies.make_policy` under the
rules of the table they sit at. One pool serves every view of a game:

* **one observation at a time** (the AEC views: the Gymnasium single-agent view
  :class:`schnauz_env.wrappers.SingleAgentEnv` and RLlib's ``training.rllib_env.TableEnv``):
  the view draws a player per seat with :meth:`~schnauz_env.wrappers.pool.PlayerPool.pick`,
  gets it with :meth:`~schnauz_env.wrappers.pool.PlayerPool.player` and reseeds it every
  episode. A player built from a name is seeded from the generator the view passes in
  (its episode generator), else from the pool's own (``default_rng(seed)``).
* **a batch of games** (``num_games > 0``: the batched Schnauz ``VecEnv``): the pool is
  the VecEnv's opponent callable ``(obs, masks, games) -> actions`` (``per_game``).
  Game ``g`` is played by opponent ``assignment[g]`` at every other seat, the
  assignment drawn in proportion to the weights (exact shares up to rounding, in a
  random game order) and redrawn whenever the pool changes. The policies named in
  ``parallel`` (default ``expert`` and ``ismcts``: slow, and random inside) play each
  move reseeded from ``(seed, call, game)``, so a run is reproducible whether they run
  here or, with ``workers > 0``, in that many worker processes (each a share of the
  rows), so that both cores think while the learner waits.

Every random choice comes from a generator derived from ``seed`` (or the view's).
"""

from __future__ import annotations

import multiprocessing as mp
from collections.abc import Sequence
from typing import Any

import numpy as np

from policies.registry import make_policy
from schnauz_env.wrappers.pool import Player, PlayerPool, act_function
from schnauz_env.wrappers.single_agent import SingleAgentEnv

_WORKER_POLICIES: list[Any] = []


def _worker_init(entries: list[Any], game: str, config: Any, seed: int) -> None:
    global _WORKER_POLICIES
    _WORKER_POLICIES = [
        make_policy(e, game=game, config=config, seed=seed + i) if isinstance(e, str) else e
        for i, e in enumerate(entries)
    ]


def _act_rows(player: Player, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """One move per row: ``act_batch`` of a policy, else its act function row by row."""
    if hasattr(player, "act_batch"):
        return player.act_batch(obs, masks)
    act = act_function(player)
    return np.array([act(o, m) for o, m in zip(obs, masks, strict=True)], dtype=np.int64)


def _act_seeded(policy: Any, obs: np.ndarray, masks: np.ndarray, seeds: np.ndarray) -> np.ndarray:
    """One move per row, the policy reseeded with the row's seed first: the moves do not
    depend on which process plays them or on what it played before."""
    out = np.empty(len(obs), dtype=np.int64)
    for i in range(len(obs)):
        policy.reset(int(seeds[i]))
        out[i] = policy.act(obs[i], masks[i])
    return out


def _worker_act(job: tuple[int, np.ndarray, np.ndarray, np.ndarray]) -> np.ndarray:
    k, obs, masks, seeds = job
    return _act_seeded(_WORKER_POLICIES[k], obs, masks, seeds)


class OpponentPool(PlayerPool):
    """Opponents by name, model file, policy object or callable, with weights (see the
    module docstring).

    ``game`` and ``config`` (a rules config; required with ``num_games``) say what the
    names are built for; with a ``config``, every name is checked when the pool is set.
    ``seed`` (an ``int``, or ``None`` for fresh entropy where the view passes no
    generator) seeds everything the pool draws itself. ``num_games``, ``workers`` and
    ``parallel`` set up the batched seating.
    """

    #: As a VecEnv opponent, the pool is called with the games' indices too.
    per_game = True

    def __init__(
        self,
        opponents: Sequence[Player],
        weights: Sequence[float] | None = None,
        *,
        game: str = "schnauz",
        config: Any = None,
        seed: int | None = 0,
        num_games: int = 0,
        workers: int = 0,
        parallel: Sequence[str] = ("expert", "ismcts"),
    ) -> None:
        if num_games and (config is None or seed is None):
            raise ValueError("a pool for batched games needs a rules config and an int seed")
        self.game = game
        self.config = config
        self.seed = seed
        self.num_games = int(num_games)
        self.workers = int(workers)
        self.parallel = tuple(parallel)
        self.rng = np.random.default_rng(seed)
        self.policies: list[Player] = []
        self.assignment = np.zeros(0, dtype=np.int64)
        self._calls = 0
        self._pool_procs: Any = None
        super().__init__(opponents, weights)

    # ------------------------------------------------------------ the pool
    def check_entry(self, entry: Player) -> None:
        if not isinstance(entry, str):
            super().check_entry(entry)

    def set_pool(self, opponents: Sequence[Player], weights: Sequence[float] | None = None) -> None:
        """Replace the pool (e.g. to add a self-play snapshot); in batched games, the
        seating is drawn again."""
        super().set_pool(opponents, weights)
        if self.num_games:
            self._seat_games()
        elif self.config is not None:
            self.validate(self.config)

    def add(self, player: Player, weight: float | None = None) -> None:
        super().add(player, weight)
        if self.num_games:
            self._seat_games()
        elif self.config is not None:
            self.validate(self.config)

    def validate(self, config: Any) -> None:
        """``ValueError`` for a name or model file that cannot be built under ``config``."""
        for entry in self.entries:
            if isinstance(entry, str):
                make_policy(entry, game=self.game, config=config, seed=0)

    def build(self, entry: Player, config: Any, rng: np.random.Generator | None) -> Player:
        """A name's policy under ``config``, seeded from ``rng`` (default: the pool's own)."""
        if not isinstance(entry, str):
            return entry
        seed = int((self.rng if rng is None else rng).integers(2**31))
        return make_policy(entry, game=self.game, config=config, seed=seed)

    # ------------------------------------------------------------ batched games
    def _seat_games(self) -> None:
        entries = self.entries
        self.policies = [
            make_policy(e, game=self.game, config=self.config, seed=self.seed + i)
            if isinstance(e, str)
            else e
            for i, e in enumerate(entries)
        ]
        # Proportional seating (exact shares up to rounding), in random game order.
        p = self.probabilities
        share = np.full(len(entries), 1.0 / len(entries)) if p is None else p
        counts = np.floor(share * self.num_games).astype(int)
        for i in np.argsort(-(share * self.num_games - counts))[: self.num_games - counts.sum()]:
            counts[i] += 1
        self.assignment = self.rng.permutation(np.repeat(np.arange(len(entries)), counts))
        self._seeded = [self.name(i).split(":")[0] in self.parallel for i in range(len(entries))]
        self._remote = [self.workers > 0 and s for s in self._seeded]
        self.close()
        if any(self._remote):
            self._pool_procs = mp.get_context("fork").Pool(
                self.workers, _worker_init, (entries, self.game, self.config, self.seed + 1000)
            )

    def __call__(self, obs: np.ndarray, masks: np.ndarray, games: np.ndarray) -> np.ndarray:
        """The opponents' moves in ``games`` (rows of ``obs`` and ``masks``)."""
        if not self.num_games:
            raise RuntimeError("this pool seats no batched games: build it with num_games")
        out = np.zeros(len(games), dtype=np.int64)
        who = self.assignment[games]
        self._calls += 1
        seeds = np.random.SeedSequence([self.seed, self._calls]).generate_state(self.num_games)
        jobs, slots = [], []
        for k in np.unique(who):
            rows = np.flatnonzero(who == k)
            policy = self.policies[k]
            if self._remote[k]:
                for part in np.array_split(rows, self.workers):
                    if part.size:
                        jobs.append((int(k), obs[part], masks[part], seeds[games[part]]))
                        slots.append(part)
            elif self._seeded[k]:
                out[rows] = _act_seeded(policy, obs[rows], masks[rows], seeds[games[rows]])
            elif getattr(getattr(policy, "act_batch", None), "per_game", False):
                # per-game state (expert-jit's turn counters) follows each game
                out[rows] = policy.act_batch(obs[rows], masks[rows], games[rows])
            else:
                out[rows] = _act_rows(policy, obs[rows], masks[rows])
        if jobs:
            for part, acts in zip(slots, self._pool_procs.map(_worker_act, jobs), strict=True):
                out[part] = acts
        return out

    def close(self) -> None:
        """Stop the worker processes, if any."""
        if self._pool_procs is not None:
            self._pool_procs.terminate()
            self._pool_procs = None


def single_agent_env(
    game: str = "schnauz",
    opponents: Sequence[Player] = ("expert",),
    weights: Sequence[float] | None = None,
    seed: int | None = None,
    **kwargs: Any,
) -> SingleAgentEnv:
    """The Gymnasium single-agent view with its opponents given by name (or as players),
    seated by an :class:`OpponentPool`: the entry point of the registered ids
    (``gymnasium.make("schnauz_env/Schnauz-v0", opponents=["greedy", "expert"])``, see
    :mod:`schnauz_env.wrappers.registration`). Names keep the view's settings plain
    data, so a dataset can store them and rebuild the env. ``kwargs`` go to
    :class:`~schnauz_env.wrappers.SingleAgentEnv` (``rules``, ``table_sizes``, ...)."""
    pool = OpponentPool(list(opponents), weights, game=game, seed=seed)
    return SingleAgentEnv(game=game, opponents=pool, seed=seed, **kwargs)
