"""The action-masking RLModule that RLlib trains, and its export to our model format.

:class:`MaskedMLPModule` is a PPO actor-critic for Dict observations holding a flat
vector and an ``"action_mask"``. It accepts PettingZoo's key (``"observation"``, as
our envs and RLlib's ``PettingZooEnv`` give it) or RLlib's example convention
(``"observations"``): the vector is the one entry that is not the mask.

* Actor: ``Linear -> act -> ... -> Linear`` (``model_config["hidden"]``, default
  ``(128, 128)``; ``model_config["activation"]`` ``"tanh"`` or ``"relu"``): exactly
  the forward of :class:`policies.mlp.MLPPolicy`, so :func:`export_module` copies
  its weights into a ``.npz`` model file that plays without torch or ray.
* Critic: a separate MLP of the same shape (no shared layers, nothing to export).
* Masking: logits of illegal actions are replaced by ``MASKED_LOGIT`` (−1e9) before
  the action distribution. A finite value keeps the entropy and KL terms of PPO
  finite (``0 · log 0`` would be NaN with −inf), and ``exp(−1e9)`` is exactly 0 in
  float32, so an illegal action is never sampled.
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import numpy as np
import torch
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis import ValueFunctionAPI
from ray.rllib.core.rl_module.torch import TorchRLModule
from torch import nn

MASK_KEY = "action_mask"
MASKED_LOGIT = -1e9
ACTIVATIONS: dict[str, type[nn.Module]] = {"tanh": nn.Tanh, "relu": nn.ReLU}


def vector_key(space: Any) -> str:
    """The key of the observation vector in a Dict space with an ``"action_mask"``."""
    keys = [k for k in getattr(space, "spaces", {}) if k != MASK_KEY]
    if MASK_KEY not in getattr(space, "spaces", {}) or len(keys) != 1:
        raise ValueError(
            "MaskedMLPModule needs a Dict observation space with 'action_mask' and one "
            f"vector ('observation' or 'observations'), got {space}"
        )
    return keys[0]


def mlp(sizes: list[int], activation: str) -> nn.Sequential:
    """Linear layers between ``sizes``, the activation after each but the last."""
    act = ACTIVATIONS[activation]
    layers: list[nn.Module] = []
    for i, (a, b) in enumerate(itertools.pairwise(sizes)):
        layers.append(nn.Linear(a, b))
        if i < len(sizes) - 2:
            layers.append(act())
    return nn.Sequential(*layers)


class MaskedMLPModule(TorchRLModule, ValueFunctionAPI):
    """PPO actor-critic with action masking (see the module docstring)."""

    def setup(self) -> None:
        self.obs_key = vector_key(self.observation_space)
        in_size = int(np.prod(self.observation_space[self.obs_key].shape))
        hidden = [int(h) for h in self.model_config.get("hidden", (128, 128))]
        self.activation = self.model_config.get("activation", "tanh")
        if self.activation not in ACTIVATIONS:
            raise ValueError(
                f"activation {self.activation!r} cannot be exported; use one of {list(ACTIVATIONS)}"
            )
        self.pi = mlp([in_size, *hidden, int(self.action_space.n)], self.activation)
        self.vf = mlp([in_size, *hidden, 1], self.activation)
        # Small initial logits: a near-uniform start over the legal actions.
        with torch.no_grad():
            self.pi[-1].weight.mul_(0.01)
            self.pi[-1].bias.zero_()

    def masked_logits(self, obs: dict[str, torch.Tensor]) -> torch.Tensor:
        logits = self.pi(obs[self.obs_key].float())
        legal = obs[MASK_KEY] > 0
        return torch.where(legal, logits, torch.full_like(logits, MASKED_LOGIT))

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        return {Columns.ACTION_DIST_INPUTS: self.masked_logits(batch[Columns.OBS])}

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> torch.Tensor:
        return self.vf(batch[Columns.OBS][self.obs_key].float()).squeeze(-1)

    def actor_weights(self) -> list[tuple[np.ndarray, np.ndarray]]:
        """The actor's layers as ``(W, b)`` with ``W`` of shape ``(in, out)``, as MLPPolicy uses."""
        return [
            (m.weight.detach().cpu().numpy().T.copy(), m.bias.detach().cpu().numpy().copy())
            for m in self.pi
            if isinstance(m, nn.Linear)
        ]


def export_module(
    module: MaskedMLPModule,
    path: str | Path,
    game: str,
    config: Any,
    table_sizes: list[int],
    extra: dict[str, Any] | None = None,
) -> Path:
    """Write ``module``'s actor as a numpy model file (:func:`policies.mlp.save_model`)."""
    from policies.mlp import save_model

    if not isinstance(module, MaskedMLPModule):
        raise ValueError(f"only MaskedMLPModule can be exported, got {type(module).__name__}")
    extra = {"trainer": "rllib", **(extra or {})}
    return save_model(
        path, module.actor_weights(), game, config, table_sizes, module.activation, extra=extra
    )
