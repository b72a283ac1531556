"""TorchRL: whole games through its ``PettingZooWrapper`` with a masked torch policy
(``ProbabilisticActor`` + ``MaskedCategorical``), and a short policy-gradient update on
the collected games (docs/interop.md, "TorchRL")."""

from __future__ import annotations

import pytest

pytest.importorskip("torchrl", reason="the interop extra (pip install -e '.[interop]')")
import torch
from interop_helpers import GAMES, Referee, game_env, one_torch_thread  # noqa: F401
from tensordict.nn import InteractionType, TensorDictModule
from torch import nn
from torchrl.envs.libs.pettingzoo import PettingZooWrapper
from torchrl.envs.utils import MarlGroupMapType
from torchrl.modules import MaskedCategorical, ProbabilisticActor

from schnauz_env.wrappers import FixedAgentsWrapper

pytestmark = pytest.mark.usefixtures("one_torch_thread")


def torchrl_env(game: str, seed: int) -> tuple[PettingZooWrapper, Referee]:
    """The docs' stack (infos off: TorchRL makes a tensor of every info value), with a
    referee under the wrapper; every seat in one group, as one network plays them all."""
    referee = Referee(game_env(game, infos=False))
    env = PettingZooWrapper(
        FixedAgentsWrapper(referee),
        use_mask=True,
        categorical_actions=True,
        group_map=MarlGroupMapType.ALL_IN_ONE_GROUP,
        seed=seed,
    )
    return env, referee


def masked_policy(env: PettingZooWrapper) -> ProbabilisticActor:
    """An MLP over the observation, sampling among the legal actions only; its last layer
    starts at zero, so it starts as the uniform random legal player."""
    size = env.observation_spec["agents", "observation", "observation"].shape[-1]
    actions = env.full_action_spec["agents", "action"].space.n
    mlp = nn.Sequential(nn.Linear(size, 32), nn.Tanh(), nn.Linear(32, actions))
    nn.init.zeros_(mlp[-1].weight)
    nn.init.zeros_(mlp[-1].bias)
    logits = TensorDictModule(
        mlp, in_keys=[("agents", "observation", "observation")], out_keys=[("agents", "logits")]
    )
    return ProbabilisticActor(
        logits,
        in_keys={"logits": ("agents", "logits"), "mask": ("agents", "action_mask")},
        out_keys=[("agents", "action")],
        distribution_class=MaskedCategorical,
        return_log_prob=True,
        default_interaction_type=InteractionType.RANDOM,  # sample (the default is the mode)
    )


@pytest.mark.parametrize("game", GAMES)
def test_rollouts_are_whole_games_paying_place_values(game):
    torch.manual_seed(0)
    env, referee = torchrl_env(game, seed=0)
    policy = masked_policy(env)
    for k in range(2):
        rollout = env.rollout(5000, policy, break_when_any_done=True)
        assert rollout["next", "done"][-1].item()  # the rollout stopped at the game's end
        assert not rollout["next", "done"][:-1].any()
        returns = rollout["next", "agents", "reward"].sum(0).squeeze(-1)
        assert len(referee.games) == k + 1
        torch.testing.assert_close(returns, torch.tensor(referee.games[k]), check_dtype=False)
        # exactly one agent acts per step, and it always had a legal action
        assert (rollout["agents", "mask"].sum(-1) == 1).all()
        acting = rollout["agents", "action_mask"][rollout["agents", "mask"]]
        assert acting.any(-1).all()
    assert referee.cut == 0


def test_a_policy_gradient_step_on_collected_games():
    torch.manual_seed(1)
    env, referee = torchrl_env("schnauz", seed=1)
    policy = masked_policy(env)
    optimizer = torch.optim.Adam(policy.parameters(), lr=1e-2)
    before = [p.detach().clone() for p in policy.parameters()]
    for _ in range(2):  # REINFORCE: each acting step's log-probability times its return-to-go
        rollout = env.rollout(5000, policy, break_when_any_done=True)
        rewards = rollout["next", "agents", "reward"].squeeze(-1)  # (steps, seats)
        to_go = rewards.flip(0).cumsum(0).flip(0)
        acting = rollout["agents", "mask"]
        dist = policy.get_dist(rollout)
        log_prob = dist.log_prob(rollout["agents", "action"])
        loss = -(log_prob[acting] * to_go[acting]).mean()
        assert torch.isfinite(loss)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    assert any(not torch.equal(b, p) for b, p in zip(before, policy.parameters(), strict=True))
    assert len(referee.games) == 2 and referee.cut == 0
