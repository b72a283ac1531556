"""Opponents for the batched VecEnv, and the feature wrapper shared by every training env.

:class:`OpponentMix` seats a mix of policies (names, model files, self-play snapshots)
in the games of a :class:`schnauz_env.batched.SchnauzVecEnv`: game ``g`` is played by
opponent ``assignment[g]`` at every other seat, the assignment drawn by weight and
redrawn whenever the pool changes. Slow scripted opponents (``expert``: ~1 ms a move)
can run in worker processes, so that both cores think while the learner waits.

:class:`FeatureVecEnv` appends a feature block (e.g. ``schnauz-moves-v1``, see
:mod:`schnauz_env.schnauz.features`) to every observation of any SB3 ``VecEnv``.
"""

from __future__ import annotations

import functools
import multiprocessing as mp
from collections.abc import Sequence
from typing import Any

import numpy as np
from stable_baselines3.common.vec_env import VecEnv, VecEnvWrapper

from policies.base import make_policy

_WORKER_POLICIES: list[Any] = []


def _worker_init(names: list[str], config: Any, seed: int) -> None:
    global _WORKER_POLICIES
    _WORKER_POLICIES = [
        make_policy(n, game="schnauz", config=config, seed=seed + i) for i, n in enumerate(names)
    ]


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


class OpponentMix:
    """A per-game opponent callable for :class:`~schnauz_env.batched.SchnauzVecEnv`.

    ``pool`` holds policy names or model files; ``weights`` their sampling weights
    (default uniform). The policies named in ``parallel`` (default ``expert`` and
    ``ismcts``: slow, and random inside) play each move reseeded from ``(seed, call,
    game)``, so a run is reproducible whether they run here or, with ``workers > 0``,
    in that many worker processes (each a share of the rows).
    """

    per_game = True

    def __init__(
        self,
        pool: Sequence[str],
        config: Any,
        num_games: int,
        weights: Sequence[float] | None = None,
        seed: int = 0,
        workers: int = 0,
        parallel: Sequence[str] = ("expert", "ismcts"),
    ) -> None:
        self.config = config
        self.num_games = num_games
        self.seed = seed
        self.workers = workers
        self.parallel = tuple(parallel)
        self._rng = np.random.default_rng(seed)
        self._calls = 0
        self._pool_procs: Any = None
        self.set_pool(list(pool), weights)

    def set_pool(self, pool: Sequence[str], weights: Sequence[float] | None = None) -> None:
        """Replace the pool (e.g. to add a self-play snapshot) and redraw the seating."""
        pool = list(pool)
        if not pool:
            raise ValueError("the opponent pool is empty")
        if weights is None or len(weights) != len(pool):
            w = np.ones(len(pool))
        else:
            w = np.asarray(weights, dtype=float)
        if (w < 0).any() or w.sum() <= 0:
            raise ValueError(f"opponent weights must be >= 0 with a positive sum, got {list(w)}")
        self.pool = pool
        self.weights = w / w.sum()
        self.policies = [
            make_policy(p, game="schnauz", config=self.config, seed=self.seed + i)
            for i, p in enumerate(pool)
        ]
        # Proportional seating (exact shares up to rounding), in random game order.
        counts = np.floor(self.weights * self.num_games).astype(int)
        for i in np.argsort(-(self.weights * self.num_games - counts))[
            : self.num_games - counts.sum()
        ]:
            counts[i] += 1
        self.assignment = self._rng.permutation(np.repeat(np.arange(len(pool)), counts))
        self._seeded = [str(p).split(":")[0] in self.parallel for p in pool]
        self._remote = [self.workers > 0 and s for s in self._seeded]
        if self._pool_procs is not None:
            self._pool_procs.terminate()
            self._pool_procs = None
        if any(self._remote):
            self._pool_procs = mp.get_context("fork").Pool(
                self.workers, _worker_init, (pool, self.config, self.seed + 1000)
            )

    def __call__(self, obs: np.ndarray, masks: np.ndarray, games: np.ndarray) -> np.ndarray:
        out = np.zeros(len(games), dtype=np.int64)
        who = self.assignment[games]
        self._calls += 1
        seeds = np.random.SeedSequence([self.seed, self._calls]).generate_state(self.num_games)
        jobs, slots = [], []
        for k in np.unique(who):
            rows = np.flatnonzero(who == k)
            if self._remote[k]:
                for part in np.array_split(rows, self.workers):
                    if part.size:
                        jobs.append((int(k), obs[part], masks[part], seeds[games[part]]))
                        slots.append(part)
            elif self._seeded[k]:
                out[rows] = _act_seeded(
                    self.policies[k], obs[rows], masks[rows], seeds[games[rows]]
                )
            elif getattr(self.policies[k].act_batch, "per_game", False):
                # per-game state (expert-jit's turn counters) follows each game
                out[rows] = self.policies[k].act_batch(obs[rows], masks[rows], games[rows])
            else:
                out[rows] = self.policies[k].act_batch(obs[rows], masks[rows])
        if jobs:
            for part, acts in zip(slots, self._pool_procs.map(_worker_act, jobs), strict=True):
                out[part] = acts
        return out

    def close(self) -> None:
        if self._pool_procs is not None:
            self._pool_procs.terminate()
            self._pool_procs = None


class _MaskedWrapper(VecEnvWrapper):
    """A VecEnv wrapper that passes the wrapped env's action masks on (for MaskablePPO)."""

    def reset(self) -> np.ndarray:
        return self.venv.reset()

    def action_masks(self) -> np.ndarray:
        return np.asarray(self.venv.env_method("action_masks"))


class FeatureVecEnv(_MaskedWrapper):
    """Appends ``features(obs)`` to every observation (and terminal observation)."""

    def __init__(self, venv: VecEnv, features: Any) -> None:
        from gymnasium import spaces

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


class LivesRewardVecEnv(_MaskedWrapper):
    """Rewards per round: −1 on the step in which the learner loses a life (or, swimming,
    goes out), 0 otherwise.

    The place reward arrives once, at the end of a game of a dozen rounds, and mostly
    measures luck; a round's loser is decided within a few of the learner's moves, so this
    signal is about ten times denser. It is what winning is made of: every round costs
    exactly one player a life, and the last player with lives wins, so a learner that
    loses rounds less often than its fair share wins more than its share (losing 7% fewer
    rounds than fair at a 4-player table of equals wins about 30% of the games).

    The learner's life units (lives, plus one while in the game) are read from its own
    observation (position 0 of the ``seats`` block) before and after each step, so any
    Schnauz VecEnv works; the terminal observation is used on the last step. A life lost
    before the learner's first move of an episode (an instant showdown right after the
    deal) is not charged: the learner had no say in it.
    """

    def __init__(self, venv: VecEnv, config: Any) -> None:
        from schnauz_env.schnauz.observation import SEAT_FEATURES, ObservationLayout

        super().__init__(venv)
        seats = ObservationLayout(config).slices["seats"].start
        # "still in" and "lives / most lives" of every relative position, learner first
        cols = np.arange(6) * SEAT_FEATURES
        self._in, self._lives = seats + 1 + cols, seats + 3 + cols
        self._scale = float(config.lives)
        self._last = np.zeros(venv.num_envs)

    #: the reward is ``reward_scale`` times the change of :meth:`value`
    reward_scale = 1.0

    def all_units(self, obs: np.ndarray) -> np.ndarray:
        """Life units of every relative position (learner first), shape ``(..., 6)``:
        lives + 1 while in, 0 when out."""
        obs = np.asarray(obs)
        return obs[..., self._in] + np.rint(obs[..., self._lives] * self._scale)

    def units(self, obs: np.ndarray) -> np.ndarray:
        """The learner's life units in each row of ``obs``."""
        return self.all_units(obs)[..., 0]

    def value(self, obs: np.ndarray) -> np.ndarray:
        """What the reward is the change of: here the learner's life units."""
        return self.units(obs)

    def reset(self) -> np.ndarray:
        obs = self.venv.reset()
        self._last = self.value(obs)
        return obs

    def step_wait(self):
        obs, _, dones, infos = self.venv.step_wait()
        now = self.value(obs)
        after = now.copy()
        for i in np.flatnonzero(dones):
            after[i] = self.value(infos[i]["terminal_observation"])
        rewards = (self.reward_scale * (after - self._last)).astype(np.float32)
        self._last = now
        return obs, rewards, dones, infos


@functools.cache
def fair_win_chance(mine: int, others: tuple[int, ...]) -> float:
    """The chance that a player with ``mine`` life units wins, if every later round's
    loser is drawn uniformly from the players still in (``others``: the other players'
    units, sorted, zeros left out). Each round costs one player one unit, as in Schnauz."""
    if mine <= 0:
        return 0.0
    if not others:
        return 1.0
    total = fair_win_chance(mine - 1, others)
    for j in range(len(others)):
        rest = (*others[:j], others[j] - 1, *others[j + 1 :])
        total += fair_win_chance(mine, tuple(sorted(u for u in rest if u > 0)))
    return total / (len(others) + 1)


class WinChanceRewardVecEnv(LivesRewardVecEnv):
    """Rewards the change in the learner's chance to win the game, read off the lives.

    Whenever life units change (the learner's or anybody's), the reward is
    ``scale * (Φ(after) − Φ(before))``, where Φ is :func:`fair_win_chance` of the
    learner's units against the others' — the chance to win if every later round were a
    fair draw. At the end of a game Φ is exactly 1 for the winner and 0 for the others, so
    over an episode the rewards add up to ``scale * (won − Φ(start))``: the win itself,
    shaped by a potential (Ng et al., 1999), as dense as ``lives``. Unlike ``lives`` it
    weighs a round by what is at stake (the first life lost at a table of four costs
    0.12 of a game; going out when all four swim 0.25; going out when swimming against
    three full players 0.01) and credits the learner when an opponent loses one.
    ``scale`` (default 8) makes a first life lost at a 4-player table cost about 1, as
    under ``lives``. Lives lost before the learner's first move of an episode are not
    charged (as in :class:`LivesRewardVecEnv`).
    """

    def __init__(self, venv: VecEnv, config: Any, scale: float = 8.0) -> None:
        super().__init__(venv, config)
        self.reward_scale = float(scale)

    def potential(self, obs: np.ndarray) -> np.ndarray:
        """Φ of each row of ``obs`` (see the class docstring); a float for one row."""
        units = np.atleast_2d(self.all_units(obs)).astype(np.int64)
        phi = np.array(
            [
                fair_win_chance(int(u[0]), tuple(sorted(int(x) for x in u[1:] if x > 0)))
                for u in units
            ]
        )
        return phi if np.ndim(obs) > 1 else phi[0]

    value = potential


class WinRewardVecEnv(_MaskedWrapper):
    """Rewards for winning only: at the end of an episode +1 for first place, else
    ``-1 / (players - 1)`` (still zero-sum); 0 on every other step.

    The env's own reward is the place value (+1 for first down to -1 for last), which
    values every place; this one trains for the win rate alone. Needs a VecEnv whose
    terminal infos carry ``"place"`` (:class:`schnauz_env.batched.SchnauzVecEnv`).
    """

    def __init__(self, venv: VecEnv, num_players: int) -> None:
        super().__init__(venv)
        self.num_players = num_players

    def step_wait(self):
        obs, _, dones, infos = self.venv.step_wait()
        rewards = np.zeros(len(dones), dtype=np.float32)
        for i in np.flatnonzero(dones):
            if "place" not in infos[i]:
                raise ValueError("WinRewardVecEnv needs terminal infos with 'place'")
            rewards[i] = 1.0 if infos[i]["place"] == 1 else -1.0 / (self.num_players - 1)
        return obs, rewards, dones, infos
