"""Every agent stays in the episode until the game ends, for trainers that need a fixed
set of agents (Tianshou, TorchRL, parallel-API trainers).

    from schnauz_env import schnauz_v0
    from schnauz_env.wrappers import FixedAgentsWrapper

    env = FixedAgentsWrapper(schnauz_v0.env(num_players=4))

The games' AEC envs terminate an agent at the step that puts it out of a whole game,
and it leaves ``agents`` after stepping out with ``None``; the others play on. Tools
that treat the first termination as the end of the episode (Tianshou's
``PettingZooEnv``) stop there, and tools that keep a fixed group of agents (TorchRL)
see an agent to act with an all-zero action mask. Under this wrapper:

* ``agents`` is every agent from ``reset()`` until the game ends; nobody is terminated
  or truncated before then. At the end every agent is terminated at once (truncated
  too where the game ended by an illegal move under ``env()``) and steps out in turn,
  as in any PettingZoo game.
* Rewards are the game's, step by step: an agent that goes out gets its reward at the
  step that puts it out (its return is then its place's value) and 0 afterwards, so
  every return over the episode is still its final place's value.
* ``agent_selection`` is always the player to act; an agent that is out is never
  selected before the end. It still observes the table (its seat's view, as the
  game's own ``observe`` gives it), and its info is everyone's info.
* **The wait action** (``wait_action=True``, the default): the action space grows by
  one, action ``n`` (``num_actions`` of the game), which is the only legal action of
  every agent that is not to act (and of every agent once the game is over). The
  agent to act never has it. So no agent's mask is ever all zeros: masked policies
  that sample an action for every agent (parallel-API trainers, a TorchRL policy run
  on the final step) always have one legal action. The wrapper absorbs the wait action:
  it is accepted (like ``None``) from an agent whose episode ended; from the agent to
  act it is illegal and raises ``ValueError``. ``wait_action=False`` keeps the game's
  action space and masks (all zeros for agents not to act).

The wrapped env is any of the games' AEC envs (``env()`` or ``raw_env()``; what
either does with an illegal action is kept), or a wrapper of one with the same API.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import BaseWrapper


class FixedAgentsWrapper(BaseWrapper):
    """Keeps every agent in the episode until the game ends (see the module docstring)."""

    def __init__(self, env: AECEnv, wait_action: bool = True) -> None:
        super().__init__(env)
        agent = env.possible_agents[0]
        space = env.action_space(agent)
        if not isinstance(space, spaces.Discrete):
            raise TypeError(f"FixedAgentsWrapper needs Discrete actions, got {space}")
        self.wait_action = bool(wait_action)
        #: The game's number of actions; with the wait action, that is its id.
        self.game_actions = int(space.n)
        self.wait = self.game_actions if self.wait_action else None
        n = self.game_actions + int(self.wait_action)
        inner = env.observation_space(agent)
        self._observation_space = spaces.Dict(
            {
                "observation": inner["observation"],
                "action_mask": spaces.Box(0, 1, (n,), dtype=np.int8),
            }
        )
        self._action_space = spaces.Discrete(n)
        self._over = False

    # ------------------------------------------------------------------ spaces
    def observation_space(self, agent: str) -> spaces.Space:
        self.env.observation_space(agent)  # an unknown agent raises
        return self._observation_space

    def action_space(self, agent: str) -> spaces.Space:
        self.env.action_space(agent)
        return self._action_space

    # --------------------------------------------------------------------- API
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self.env.reset(seed=seed, options=options)
        self.agents = list(self.env.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self._over = False
        self._skip_agent_selection = None
        self._follow()  # a deal can decide places already (a hand that wins on the deal)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        obs = self.env.observe(agent)
        if not self.wait_action:
            return obs
        mask = obs["action_mask"]
        waits = np.int8(self._over or agent != self.agent_selection or not mask.any())
        return {"observation": obs["observation"], "action_mask": np.append(mask, waits)}

    def step(self, action: Any) -> None:
        if not self.agents:
            raise RuntimeError("step() called after the game ended; call reset()")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            # The game is over: the agent steps out; the wait action is absorbed like None.
            if action is not None and self.wait_action and int(action) == self.wait:
                action = None
            self._was_dead_step(action)
            return
        if self.wait_action and action is not None and int(action) == self.wait:
            raise ValueError(
                f"{agent} is to act: the wait action {self.wait} is only for agents not to "
                "act; choose a legal action of its mask"
            )
        self.env.step(action)
        self._cumulative_rewards[agent] = 0.0
        self._follow()

    # ----------------------------------------------------------------- helpers
    def _follow(self) -> None:
        """Take the rewards of the game's last step, step out the agents it put out, and
        mirror the game: the player to act, or (the game over) everyone terminated."""
        env = self.env
        rewards = dict.fromkeys(self.agents, 0.0)
        for a, r in env.rewards.items():
            rewards[a] = float(r)
        while env.agents and not self._game_over():
            a = env.agent_selection
            if not (env.terminations[a] or env.truncations[a]):
                break
            env.step(None)  # an agent out of the game steps out (rewards already taken)
        self.rewards = rewards
        infos = env.infos
        shared = next(iter(infos.values()), {})
        self.infos = {
            a: infos[a] if a in infos else {k: v for k, v in shared.items()} for a in self.agents
        }
        if self._game_over():
            self._over = True
            for a in self.agents:
                self.terminations[a] = True
                self.truncations[a] = bool(env.truncations.get(a, False))
            self._accumulate_rewards()
            self._deads_step_first()
        else:
            self.agent_selection = env.agent_selection
            self._accumulate_rewards()

    def _game_over(self) -> bool:
        env = self.env
        return all(env.terminations[a] or env.truncations[a] for a in env.agents)

    def __str__(self) -> str:
        return f"FixedAgentsWrapper<{self.env!s}>"
