"""Reward shaping for training on the batched ``VecEnv``s: SB3 ``VecEnv`` wrappers that
replace the env's place reward.

* :class:`LivesRewardVecEnv` (``train.py --reward lives``): −1 in every round the
  learner loses a life.
* :class:`WinChanceRewardVecEnv` (``--reward win-chance``): the change in the learner's
  fair chance to win (:func:`fair_win_chance`), read off everyone's lives.
* :class:`WinRewardVecEnv` (``--reward win``): +1 for a win, ``-1 / (players - 1)``
  otherwise, at the end of the episode only.

The lives rewards are for the games played for lives (Schnauz and Scat: :data:`LIVES_GAMES`).
The life units are read from the observation at the offsets that the game's
``ObservationLayout`` gives (its ``seats`` block: ``SEAT_IN_GAME`` and ``SEAT_LIVES`` of
every relative position).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from stable_baselines3.common.vec_env import VecEnv

from schnauz_env.common.places import fair_win_chance
from schnauz_env.games import game_module
from schnauz_env.wrappers.vec_env import MaskedVecEnvWrapper

#: The games played for lives, whose observations carry every seat's lives.
LIVES_GAMES = ("schnauz", "scat")


def life_columns(game: str, config: Any) -> tuple[np.ndarray, np.ndarray]:
    """The observation columns of "still in the game" and "lives / most lives" of every
    relative position (the observer first) in ``game``'s observation under ``config``."""
    if game not in LIVES_GAMES:
        raise ValueError(
            f"{game!r} is not played for lives (lives rewards: {', '.join(LIVES_GAMES)})"
        )
    module = game_module(game)
    obs = module.observation
    seats = obs.ObservationLayout(config).slices["seats"].start
    cols = seats + np.arange(module.config.MAX_PLAYERS) * obs.SEAT_FEATURES
    return cols + obs.SEAT_IN_GAME, cols + obs.SEAT_LIVES


class LivesRewardVecEnv(MaskedVecEnvWrapper):
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
    Schnauz or Scat VecEnv works; the terminal observation is used on the last step. A life lost
    before the learner's first move of an episode (an instant showdown right after the
    deal) is not charged: the learner had no say in it.
    """

    def __init__(self, venv: VecEnv, config: Any, game: str = "schnauz") -> None:
        super().__init__(venv)
        self._in, self._lives = life_columns(game, config)
        self._scale = float(config.lives)
        self._last = np.zeros(venv.num_envs)

    #: the reward is ``reward_scale`` times the change of :meth:`value`
    reward_scale = 1.0

    def all_units(self, obs: np.ndarray) -> np.ndarray:
        """Life units of every relative position (learner first), shape ``(..., seats)``:
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

    def __init__(
        self, venv: VecEnv, config: Any, scale: float = 8.0, game: str = "schnauz"
    ) -> None:
        super().__init__(venv, config, game)
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


class WinRewardVecEnv(MaskedVecEnvWrapper):
    """Rewards for winning only: at the end of an episode +1 for first place, else
    ``-1 / (players - 1)`` (still zero-sum); 0 on every other step.

    The env's own reward is the place value (+1 for first down to -1 for last), which
    values every place; this one trains for the win rate alone. Needs a VecEnv whose
    terminal infos carry ``"place"`` (:class:`schnauz_env.vector.SchnauzVecEnv`).
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
