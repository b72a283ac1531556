"""One flat ``Box`` observation, for SuperSuit's observation wrappers and trainers
without dict observations.

    import supersuit as ss
    from schnauz_env import schnauz_v0
    from schnauz_env.wrappers import FlatObservationWrapper

    env = FlatObservationWrapper(schnauz_v0.env(num_players=4))
    env = ss.dtype_v0(env, np.float64)

The games observe ``{"observation": float32 vector, "action_mask": int8 vector}``.
Under this wrapper an agent observes one float32 ``Box(0, 1, (size + num_actions,))``:

| indices | what |
|---|---|
| ``0 .. size − 1`` | the game's observation vector (its env docstring documents it) |
| ``size .. size + num_actions − 1`` | the action mask, 1.0 for a legal action |

``size`` is ``env.unwrapped.encoder.size`` (also ``wrapper.observation_size``), and
``wrapper.mask_slice`` selects the mask. With ``mask_in_observation=False`` the
observation is the vector alone (``Box(0, 1, (size,))``).

Either way every agent's info also carries its mask as ``info["action_mask"]`` (int8,
PettingZoo's other convention, which its ``TerminateIllegalWrapper``, TorchRL and
others read), so tools that change the observation (normalising, casting, padding)
keep an exact mask. Wrapping :class:`~schnauz_env.wrappers.FixedAgentsWrapper` gives
its masks (with the wait action).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import BaseWrapper


class FlatObservationWrapper(BaseWrapper):
    """The observation and the action mask as one flat ``Box`` (see the module docstring)."""

    def __init__(self, env: AECEnv, mask_in_observation: bool = True) -> None:
        super().__init__(env)
        inner = env.observation_space(env.possible_agents[0])
        if not isinstance(inner, spaces.Dict) or set(inner.spaces) != {
            "observation",
            "action_mask",
        }:
            raise TypeError(
                f"FlatObservationWrapper needs {{'observation', 'action_mask'}} observations, "
                f"got {inner}"
            )
        #: Length of the game's observation vector, and of the action mask.
        self.observation_size = int(inner["observation"].shape[0])
        self.num_actions = int(inner["action_mask"].shape[0])
        self.mask_in_observation = bool(mask_in_observation)
        #: Where the mask sits in the flat observation (``None`` when it is not in it).
        self.mask_slice = (
            slice(self.observation_size, self.observation_size + self.num_actions)
            if self.mask_in_observation
            else None
        )
        size = self.observation_size + self.num_actions * self.mask_in_observation
        self._space = spaces.Box(0.0, 1.0, (size,), dtype=np.float32)
        self._seen: dict[str, dict[str, np.ndarray]] = {}
        self._infos: dict[str, dict[str, Any]] | None = None

    def observation_space(self, agent: str) -> spaces.Space:
        self.env.observation_space(agent)  # an unknown agent raises
        return self._space

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self._seen, self._infos = {}, None
        self.env.reset(seed=seed, options=options)

    def step(self, action: Any) -> None:
        self._seen, self._infos = {}, None
        self.env.step(action)

    def _observe(self, agent: str) -> dict[str, np.ndarray]:
        """The wrapped env's observation of ``agent`` (once per step: infos read it too)."""
        obs = self._seen.get(agent)
        if obs is None:
            obs = self._seen[agent] = self.env.observe(agent)
        return obs

    def observe(self, agent: str) -> np.ndarray:
        obs = self._observe(agent)
        if not self.mask_in_observation:
            return np.array(obs["observation"], dtype=np.float32)
        return np.concatenate([obs["observation"], obs["action_mask"].astype(np.float32)])

    @property
    def infos(self) -> dict[str, dict[str, Any]]:
        """The wrapped env's infos, each with the agent's ``action_mask`` (the same dicts
        until the next step)."""
        if self._infos is None:
            self._infos = {
                a: {**info, "action_mask": self._observe(a)["action_mask"].copy()}
                for a, info in self.env.infos.items()
            }
        return self._infos

    def __str__(self) -> str:
        return f"FlatObservationWrapper<{self.env!s}>"
