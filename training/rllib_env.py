"""An RLlib ``MultiAgentEnv`` over a game's AEC ``raw_env``: learner seats against a pool.

    from training.rllib_env import TableEnv
    env = TableEnv({"game": "schnauz", "table_sizes": [4], "opponents": ["greedy"]})
    obs, infos = env.reset(seed=0)          # {"player_2": {"observation": ..., "action_mask": ...}}
    obs, rewards, terminateds, truncateds, infos = env.step({"player_2": 12})

* Each episode is one game (or round) at a table size drawn from ``table_sizes``.
  ``learner_seats`` seats (drawn at random) belong to the learning module and are the
  only agents RLlib sees; every other seat gets an opponent drawn from the pool
  (:class:`policies.pool.OpponentPool`: policy names such as ``"greedy"``, model file
  paths, :class:`policies.Policy` objects such as frozen snapshots of the learner, or
  callables ``(obs, mask) -> action``) and is played inside :meth:`step`. The pool and
  the deals are seeded from ``seed`` (with the env runner's and the vector's index).
  With ``learner_seats > 1`` the learner also plays against itself, live.
* Agent IDs are the AEC names (``"player_k"``); observations are the AEC env's
  ``{"observation", "action_mask"}`` dicts, as PettingZoo gives them.
* Turn-based: each return holds the observation of the one learner seat to act
  next, plus the final observation of any learner seat whose game just ended.
  An agent's reward is everything the AEC env paid it since its previous
  observation, so its episode return is its AEC return (its final place's value).
* The episode ends (``"__all__"``) when the game is over or no learner seat is left.
* An illegal action ends the game with −1 for the offender and 0 more for every
  other learner seat (PettingZoo's ``TerminateIllegalWrapper`` convention), and the
  offender's info carries ``illegal_action``; ``illegal_action="raise"`` raises.
* Final infos carry ``place`` (the seat's final place, 1 = winner, ``None`` if the
  game ended without deciding it) and ``table_size``.

Why not RLlib's ``PettingZooEnv`` with every seat exposed and opponents as frozen
RLModules: our baselines are numpy programs, not RLModules; playing them (and the
numpy exports of snapshots) inside the env keeps them exact, sends only the
learner's decisions through RLlib's connectors and torch, and makes one env step
one learner decision, the same unit as the SB3 path
(:mod:`schnauz_env.wrappers.single_agent`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from ray.rllib.callbacks.callbacks import RLlibCallback
from ray.rllib.env.multi_agent_env import MultiAgentEnv

from policies.pool import OpponentPool
from schnauz_env.games import env_module
from schnauz_env.wrappers.pool import Player, act_function, policy_of


class TableEnv(MultiAgentEnv):
    """Learner seats at one table, the rest played by a pool (see the module docstring).

    ``config`` keys (all optional): ``game`` (``"schnauz"``), ``rules`` (dict of rule
    options), ``table_sizes`` (``[4]``), ``opponents`` (``["random"]``), ``weights``
    (sampling weight per opponent), ``learner_seats`` (1), ``illegal_action``
    (``"lose"`` or ``"raise"``), ``seed``. RLlib passes an ``EnvContext``; its
    ``worker_index`` is mixed into every seed so that the copies on different env
    runners play different deals.
    """

    def __init__(self, config: dict[str, Any] | None = None) -> None:
        super().__init__()
        self._worker = int(getattr(config, "worker_index", 0))  # before dict() drops it
        vector = int(getattr(config, "vector_index", 0))
        config = dict(config or {})
        known = {
            "game",
            "rules",
            "table_sizes",
            "opponents",
            "weights",
            "learner_seats",
            "illegal_action",
            "seed",
        }
        unknown = sorted(set(config) - known)
        if unknown:
            raise ValueError(f"unknown TableEnv option(s) {unknown}; known: {sorted(known)}")
        self.game = config.get("game", "schnauz")
        rules = dict(config.get("rules") or {})
        if "num_players" in rules:
            raise ValueError("give table sizes with table_sizes=[...], not rules['num_players']")
        sizes = tuple(int(n) for n in config.get("table_sizes", (4,)))
        if not sizes:
            raise ValueError("table_sizes must name at least one table size")
        self.table_sizes = sizes
        raw_env = env_module(self.game).raw_env
        self._raw = {n: raw_env(num_players=n, **rules) for n in sizes}  # validates the rules
        #: The rules config of each table size.
        self.configs = {n: e.config for n, e in self._raw.items()}
        self.learner_seats = int(config.get("learner_seats", 1))
        if not 1 <= self.learner_seats <= min(sizes):
            raise ValueError(
                f"learner_seats must be 1..{min(sizes)} (the smallest table), "
                f"got {self.learner_seats}"
            )
        self.illegal_action = config.get("illegal_action", "lose")
        if self.illegal_action not in ("lose", "raise"):
            raise ValueError(
                f"illegal_action must be 'lose' or 'raise', got {self.illegal_action!r}"
            )
        first = self._raw[sizes[0]]
        if len({e.encoder.size for e in self._raw.values()}) != 1:
            raise ValueError(f"table sizes {sizes} give different observation sizes")
        space = first.observation_space(first.possible_agents[0])
        self.possible_agents = [f"player_{i}" for i in range(max(sizes))]
        self.agents = []
        self.observation_spaces = dict.fromkeys(self.possible_agents, space)
        self.action_spaces = {
            a: gym.spaces.Discrete(first.num_actions) for a in self.possible_agents
        }
        self.observation_space = gym.spaces.Dict(self.observation_spaces)
        self.action_space = gym.spaces.Dict(self.action_spaces)
        seed = config.get("seed")
        entropy = None if seed is None else [int(seed), self._worker, vector]
        self._rng = np.random.default_rng(entropy)
        # The pool seeds the opponents it builds from its own generator, not the deals'.
        self._pool_seed = (
            None if seed is None else int(np.random.SeedSequence(entropy).generate_state(1)[0])
        )
        self._pool: OpponentPool | None = None
        self.set_pool(config.get("opponents", ("random",)), config.get("weights"))
        self.env: Any = None
        self.seat_players: list[str] = []
        self._active: set[str] = set()
        self._pending: dict[str, float] = {}
        #: Illegal actions seen since construction (the learner should never make one).
        self.illegal_actions = 0

    # ------------------------------------------------------------ the pool
    def set_pool(self, opponents: Sequence[Player], weights: Sequence[float] | None = None) -> None:
        """Replace the opponent pool (used for the next episode)."""
        pool = list(opponents)
        if not pool and self.learner_seats < min(self.table_sizes):
            raise ValueError("the opponent pool is empty")
        config = self.configs[self.table_sizes[0]]  # names are checked now, not mid-training
        self._pool = (
            OpponentPool(pool, weights, game=self.game, config=config, seed=self._pool_seed)
            if pool
            else None
        )

    @property
    def pool(self) -> list[str]:
        """The names of the opponents in the pool."""
        return [] if self._pool is None else self._pool.names

    @property
    def opponent_pool(self) -> OpponentPool | None:
        """The opponent pool (``None`` when every seat is a learner's)."""
        return self._pool

    # ------------------------------------------------------------ RLlib API
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        if seed is not None:
            # RLlib seeds env i of runner w with seed + w + i, so runners overlap
            # (runner 1's env 1 = runner 2's env 0): mix the runner in.
            self._rng = np.random.default_rng([int(seed), self._worker])
        rng = self._rng
        n = int(self.table_sizes[int(rng.integers(len(self.table_sizes)))])
        learners = sorted(int(s) for s in rng.choice(n, size=self.learner_seats, replace=False))
        self._seat_policy = {}
        self.seat_players = []
        for s in range(n):
            if s in learners:
                self.seat_players.append("learner")
                continue
            index = self._pool.pick(rng)
            player = self._pool.player(index, self.configs[n])
            policy = policy_of(player)
            if policy is not None:
                policy.reset(seed=int(rng.integers(2**63)))
            self._seat_policy[s] = act_function(player)
            self.seat_players.append(getattr(player, "name", None) or self._pool.name(index))
        self.env = env = self._raw[n]
        names = env.possible_agents
        for _ in range(1000):
            env.reset(seed=int(rng.integers(2**63)), options=options)
            self._active = {names[s] for s in learners}
            self._pending = dict.fromkeys(self._active, 0.0)
            obs, rewards, terms, infos = self._advance()
            if obs and not any(terms.values()):
                break
            # The game ended for a learner seat before it could act (e.g. Fire dealt
            # in a single-round episode): no decision to learn from, deal again.
            if options:
                raise ValueError("the stacked deal ends a learner's episode before it acts")
        self.agents = sorted(self._active)
        return obs, infos

    def step(
        self, action_dict: dict[str, int]
    ) -> tuple[dict[str, Any], dict[str, float], dict[str, bool], dict[str, bool], dict]:
        env = self.env
        if env is None or not self._active:
            raise RuntimeError("call reset() before step()")
        agent = env.agent_selection
        if set(action_dict) != {agent}:
            raise ValueError(f"expected an action for {agent} only, got {sorted(action_dict)}")
        action = int(action_dict[agent])
        mask = env.game.legal_mask()
        if not mask[action]:
            self.illegal_actions += 1
            if self.illegal_action == "raise":
                raise ValueError(
                    f"illegal action {action} for {agent}; legal: {np.flatnonzero(mask).tolist()}"
                )
            return self._forfeit(agent, action)
        env.step(action)
        self._collect_rewards()
        obs, rewards, terms, infos = self._advance()
        truncs = dict.fromkeys(terms, False)
        terms["__all__"] = not self._active
        truncs["__all__"] = False
        # RLlib checks returned IDs against `agents`: a seat is listed on its last step too.
        self.agents = sorted(self._active | set(obs))
        return obs, rewards, terms, truncs, infos

    # ------------------------------------------------------------ helpers
    def _collect_rewards(self) -> None:
        rewards = self.env.rewards
        for a in self._active:
            self._pending[a] += rewards.get(a, 0.0)

    def _advance(self) -> tuple[dict, dict, dict, dict]:
        """Play the other seats until a learner seat is to act or no learner seat is left.

        Returns the observations, rewards, terminations and infos of the learner seats
        that are to act or whose game ended (those leave the active set)."""
        env = self.env
        obs: dict[str, Any] = {}
        rewards: dict[str, float] = {}
        terms: dict[str, bool] = {}
        infos: dict[str, Any] = {}
        while True:
            for a in sorted(self._active):
                if a not in env.agents or env.terminations[a] or env.game.game_over:
                    obs[a] = env.observe(a)
                    rewards[a] = self._pending.pop(a)
                    terms[a] = True
                    infos[a] = self._final_info(a)
                    self._active.discard(a)
            if not self._active:
                return obs, rewards, terms, infos
            agent = env.agent_selection
            if env.terminations[agent] or env.truncations[agent]:
                env.step(None)  # a seat that went out leaves the AEC env; no new rewards
                continue
            if agent in self._active:
                obs[agent] = env.observe(agent)
                rewards[agent] = self._pending[agent]
                self._pending[agent] = 0.0
                terms[agent] = False
                infos[agent] = {}
                return obs, rewards, terms, infos
            o = env.observe(agent)
            seat = env.agent_name_mapping[agent]
            env.step(int(self._seat_policy[seat](o["observation"], o["action_mask"])))
            self._collect_rewards()

    def _forfeit(self, agent: str, action: int) -> tuple[dict, dict, dict, dict, dict]:
        env = self.env
        obs, rewards, terms, infos = {}, {}, {}, {}
        for a in sorted(self._active):
            o = env.observe(a)
            obs[a] = {"observation": o["observation"], "action_mask": 0 * o["action_mask"]}
            rewards[a] = self._pending.pop(a) + (-1.0 if a == agent else 0.0)
            terms[a] = True
            infos[a] = {"place": None, "table_size": len(env.possible_agents)}
        infos[agent]["illegal_action"] = action
        self._active.clear()
        self.agents = sorted(obs)
        truncs = dict.fromkeys(terms, False)
        terms["__all__"] = True
        truncs["__all__"] = False
        return obs, rewards, terms, truncs, infos

    def _final_info(self, agent: str) -> dict[str, Any]:
        env = self.env
        place = env.game.places[env.agent_name_mapping[agent]]
        return {
            "place": None if place is None else float(place),
            "table_size": len(env.possible_agents),
        }

    def render(self) -> str | None:
        if self.env is None:
            return None
        return type(self.env).render_state(self.env.game)


class TableMetrics(RLlibCallback):
    """RLlib callback: per learner seat, win rate and mean place; illegal actions (summed)."""

    def on_episode_end(self, *, episode: Any, metrics_logger: Any = None, **kwargs: Any) -> None:
        illegal = 0
        for agent_episode in episode.agent_episodes.values():
            info = agent_episode.get_infos(-1)
            place = info.get("place")
            illegal += int("illegal_action" in info)
            if place is not None:
                metrics_logger.log_value("learner_win_rate", float(place == 1.0), window=1000)
                metrics_logger.log_value("learner_mean_place", place, window=1000)
        metrics_logger.log_value("illegal_actions", illegal, reduce="lifetime_sum")
