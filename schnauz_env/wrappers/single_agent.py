"""A Gymnasium single-agent view of a game: the learner owns one seat, a pool plays the rest.

    from policies.pool import OpponentPool
    from schnauz_env.wrappers import SingleAgentEnv

    pool = OpponentPool(["greedy", "expert"], game="schnauz")
    env = SingleAgentEnv(game="schnauz", table_sizes=(3, 4, 5), opponents=pool)
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(env.action_masks().argmax())

* Each episode samples a table size from ``table_sizes``, the learner's seat (or uses
  ``seat``), and an opponent for every other seat from the pool (uniformly, or by
  ``weights``). Opponents are policy objects (``act(obs, mask)``, e.g.
  :class:`policies.Policy`), callables ``(obs, mask) -> action``, or a pool of them
  (:class:`~schnauz_env.wrappers.pool.PlayerPool`). Policy names (``"random"``,
  ``"greedy"``, …) and model files are resolved one floor up: pass a
  :class:`policies.pool.OpponentPool`, which takes them. Every draw (the table, the
  seats, the seeds of the opponents it builds and reseeds each episode) comes from
  the env's generator, so ``reset(seed=...)`` fixes the episode.
* The environment underneath is the game's AEC ``raw_env``; the other seats' moves
  are played inside :meth:`step` until the learner is to act again or its episode
  ends. The reward is the learner's own: the sum of what the AEC env paid the
  learner's agent over those steps, so the episode return is the learner's return
  (its final place's value in a whole game).
* The episode ends (``terminated``) when the learner's own game ends: it went out,
  or the game (or single round) is over.
* :meth:`action_masks` gives the legal actions, as sb3-contrib's MaskablePPO expects.
  An illegal action ends the learner's episode with reward −1 (PettingZoo's
  ``TerminateIllegalWrapper`` convention; ``info["illegal_action"]`` names it), or
  with ``illegal_action="raise"`` raises ``ValueError`` naming the legal actions.
* The observation is the flat vector of the AEC observation (``Box``), the same for
  every table size.
* ``info["action_mask"]`` holds the legal actions too (int8, the same as
  :meth:`action_masks`), for tools that read masks from infos (Minari datasets,
  Tianshou, TorchRL's Gym wrapper). ``info`` also carries the AEC env's info (every
  seat's lives and places, the last showdown; seats named by agent), the table size,
  the learner's seat and the opponents' names. Trainers that read none of it can pass
  ``infos=False``: SB3's ``DummyVecEnv`` deep-copies every info dict every step, which
  was 42% of the time of a PPO run against random opponents (``bench/ppo_speed.py
  --profile``); ``action_mask`` and ``illegal_action`` are still reported.
* Rendering (``render_mode``): ``"ansi"`` returns the table as text, ``"human"`` prints
  it after every reset and step, ``"rgb_array"`` returns a picture (needs the ``play``
  extra); always from the learner's seat (its own hand, what it knows of the others),
  so a render shows what the learner saw. Another mode raises ``ValueError``.
* Registered with Gymnasium as ``schnauz_env/Schnauz-v0``, ``schnauz_env/Scat-v0`` and
  ``schnauz_env/Thirteen-v0`` (opponents by name;
  :mod:`schnauz_env.wrappers.registration`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import fields
from typing import Any

import gymnasium as gym
import numpy as np

from schnauz_env.games import env_module, game_module
from schnauz_env.wrappers.pool import Player, PlayerPool, act_function, policy_of


class SingleAgentEnv(gym.Env):
    """One learner seat against a pool of opponents (see the module docstring)."""

    metadata = {"render_modes": ["ansi", "human", "rgb_array"], "render_fps": 1}

    def __init__(
        self,
        game: str = "schnauz",
        rules: dict[str, Any] | None = None,
        table_sizes: Sequence[int] = (4,),
        opponents: Sequence[Player] | PlayerPool = (),
        weights: Sequence[float] | None = None,
        seat: int | None = None,
        seed: int | None = None,
        render_mode: str | None = None,
        illegal_action: str = "lose",
        infos: bool = True,
    ) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"invalid render_mode {render_mode!r}; allowed: None, "
                + ", ".join(repr(m) for m in self.metadata["render_modes"])
            )
        self.infos = infos
        if illegal_action not in ("lose", "raise"):
            raise ValueError(f"illegal_action must be 'lose' or 'raise', got {illegal_action!r}")
        self.illegal_action = illegal_action
        self.game = game
        module = game_module(game)
        rules = dict(rules or {})
        if "num_players" in rules:
            raise ValueError("give table sizes with table_sizes=..., not rules['num_players']")
        if not table_sizes:
            raise ValueError("table_sizes must name at least one table size")
        self.table_sizes = tuple(int(n) for n in table_sizes)
        self._raw = {}
        raw_env = env_module(game).raw_env
        for n in self.table_sizes:
            self._raw[n] = raw_env(num_players=n, **rules)  # validates every option
        first = self._raw[self.table_sizes[0]]
        #: The rules config of each table size.
        self.configs = {n: e.config for n, e in self._raw.items()}
        self.rules = {f.name: getattr(first.config, f.name) for f in fields(module.Config)}
        del self.rules["num_players"]
        sizes = {e.encoder.size for e in self._raw.values()}
        if len(sizes) != 1:
            raise ValueError(f"table sizes {self.table_sizes} give different observation sizes")
        self.observation_space = gym.spaces.Box(0.0, 1.0, (sizes.pop(),), dtype=np.float32)
        self.action_space = gym.spaces.Discrete(first.num_actions)
        if seat is not None and not all(0 <= seat < n for n in self.table_sizes):
            raise ValueError(f"seat {seat} does not exist at every table size {self.table_sizes}")
        self.seat = seat
        if isinstance(opponents, PlayerPool):
            if weights is not None:
                raise ValueError("give the weights to the pool, not to SingleAgentEnv")
            self.pool = opponents
        else:
            self.pool = PlayerPool(opponents, weights)
        self.pool.validate(first.config)  # fail now on a bad name or model file, not mid-training
        self.render_mode = render_mode
        self._np_random_seed = seed
        self._rng = np.random.default_rng(seed)
        self.env: Any = None
        self.learner: str = ""
        self.opponent_names: list[str] = []
        self._obs: dict[str, np.ndarray] | None = None
        self._pending = 0.0

    # ------------------------------------------------------------ the pool
    def add_opponent(self, opponent: Player, weight: float | None = None) -> None:
        """Add an opponent to the pool (e.g. a frozen snapshot of the learner)."""
        self.pool.add(opponent, weight)
        self.pool.validate(self._raw[self.table_sizes[0]].config)

    def set_pool(self, opponents: Sequence[Player], weights: Sequence[float] | None = None) -> None:
        """Replace the opponents (what the pool accepts: a :class:`PlayerPool` takes
        players, :class:`policies.pool.OpponentPool` names too) for the next episode."""
        self.pool.set_pool(opponents, weights)
        self.pool.validate(self._raw[self.table_sizes[0]].config)

    # ------------------------------------------------------------- gym API
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        options = dict(options or {})
        rng = self._rng
        n = int(
            options.pop("num_players", self.table_sizes[int(rng.integers(len(self.table_sizes)))])
        )
        if n not in self._raw:
            raise ValueError(f"num_players {n} is not one of the table sizes {self.table_sizes}")
        seat = options.pop("seat", self.seat)
        if seat is None:
            seat = int(rng.integers(n))
        config = self._raw[n].config
        picks = self.pool.pick(rng, size=n)
        players = {s: self.pool.player(int(picks[s]), config, rng) for s in range(n) if s != seat}
        for s, player in players.items():
            # Reseed the policies from this episode's stream, so a reset seed fixes the episode.
            policy = policy_of(player)
            if policy is not None:
                policy.reset(seed=int(rng.integers(2**63)) + s)
        self._seat_players = {s: act_function(p) for s, p in players.items()}
        self.opponent_names = [
            "learner" if s == seat else self.pool.name(int(picks[s])) for s in range(n)
        ]
        self.env = env = self._raw[n]
        self.learner = env.possible_agents[seat]
        for _ in range(1000):
            env.reset(seed=int(rng.integers(2**63)), options=options or None)
            # Rewards paid before the learner's first decision (a showdown right after
            # the deal) are carried into its first step's reward.
            self._pending, done = self._advance()
            if not done:
                break
            # The learner's game ended before it could act (e.g. Fire dealt in a
            # single-round episode): such a deal has no decision to learn, redeal.
            if options:
                raise ValueError("the stacked deal ends the learner's episode before it acts")
        if self.render_mode == "human":
            self.render()
        return self._obs["observation"], self._info()

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        env = self.env
        if env is None or self._obs is None:
            raise RuntimeError("call reset() before step()")
        if env.agent_selection != self.learner or env.terminations.get(self.learner, True):
            raise RuntimeError("the learner's episode is over; call reset()")
        if not self._obs["action_mask"][int(action)] and self.illegal_action == "lose":
            # PettingZoo's convention (TerminateIllegalWrapper): the offender's game ends at -1.
            info = self._info()
            info["illegal_action"] = int(action)
            info["action_mask"] = 0 * self._obs["action_mask"]
            self._obs = {
                "observation": self._obs["observation"],
                "action_mask": 0 * self._obs["action_mask"],
            }
            self.env.terminations[self.learner] = True
            return self._obs["observation"], -1.0, True, False, info
        env.step(int(action))  # raw_env raises ValueError on an illegal action
        reward = env.rewards.get(self.learner, 0.0) + self._pending
        self._pending = 0.0
        more, done = self._advance()
        if self.render_mode == "human":
            self.render()
        return self._obs["observation"], float(reward + more), done, False, self._info()

    def _advance(self) -> tuple[float, bool]:
        """Play the other seats until the learner is to act or its episode is over."""
        env = self.env
        learner = self.learner
        reward = 0.0
        while True:
            if learner not in env.agents or env.terminations[learner]:
                self._obs = env.observe(learner)
                return reward, True
            agent = env.agent_selection
            if agent == learner:
                self._obs = env.observe(learner)
                return reward, False
            if env.terminations[agent] or env.truncations[agent]:
                env.step(None)
                continue
            obs = env.observe(agent)
            seat = env.agent_name_mapping[agent]
            env.step(int(self._seat_players[seat](obs["observation"], obs["action_mask"])))
            reward += env.rewards.get(learner, 0.0)

    def _info(self) -> dict[str, Any]:
        mask = self._obs["action_mask"].copy()
        if not self.infos:
            return {"action_mask": mask}
        info = self.env.info_for()  # fresh objects: callers may keep or change them
        info["table_size"] = len(self.env.possible_agents)
        info["seat"] = self.env.agent_name_mapping[self.learner]
        info["players"] = list(self.opponent_names)
        info["action_mask"] = mask
        return info

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions (bool), for sb3-contrib's MaskablePPO."""
        return self._obs["action_mask"].astype(bool)

    def render(self) -> str | np.ndarray | None:
        """The table from the learner's seat, as ``render_mode`` says (see the module
        docstring); ``None`` in ``"human"`` mode (printed) and without a render mode."""
        if self.render_mode is None:
            gym.logger.warn(
                "render() called without a render_mode; pass render_mode='ansi', 'human' or "
                "'rgb_array' to the constructor (or to gymnasium.make)"
            )
            return None
        if self.env is None:
            raise RuntimeError("render() called before reset(); call reset() first")
        game = self.env.game
        seat = self.env.agent_name_mapping[self.learner]
        if self.render_mode == "rgb_array":
            return type(self.env).draw_state(game, seat, self.opponent_names)
        text = type(self.env).render_state(game, seat)
        if self.render_mode == "human":
            print(text + "\n")
            return None
        return text
