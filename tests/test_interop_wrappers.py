"""The wrappers for other trainers (schnauz_env.wrappers): FixedAgentsWrapper plays the
same game as the env it wraps with every agent kept to the end, and
FlatObservationWrapper lays the observation and the mask out as documented."""

from __future__ import annotations

import numpy as np
import pytest
from interop_helpers import GAMES, game_env

from schnauz_env.wrappers import FixedAgentsWrapper, FlatObservationWrapper


def play(env, seed: int, rng: np.random.Generator) -> tuple[dict[str, float], list[int]]:
    """A random game (legal actions of the game, never the wait action): each agent's
    return and the actions taken."""
    env.reset(seed=seed)
    returns = dict.fromkeys(env.possible_agents, 0.0)
    actions = []
    for _ in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        for a, r in env.rewards.items():
            returns[a] += r
        if terminated or truncated:
            env.step(None)
            continue
        mask = obs["action_mask"][: env.unwrapped.num_actions]
        actions.append(int(rng.choice(np.flatnonzero(mask))))
        env.step(actions[-1])
    return returns, actions


@pytest.mark.parametrize("game", GAMES)
def test_fixed_agents_plays_the_same_game_with_every_agent_to_the_end(game):
    for seed in range(3):
        plain, plain_actions = play(game_env(game), seed, np.random.default_rng(seed))
        env = FixedAgentsWrapper(game_env(game))
        rng = np.random.default_rng(seed)
        env.reset(seed=seed)
        returns = dict.fromkeys(env.possible_agents, 0.0)
        actions = []
        wait = env.game_actions
        while env.agents:
            agent = env.agent_selection
            obs, _, terminated, truncated, _ = env.last()
            for a, r in env.rewards.items():
                returns[a] += r
            if terminated or truncated:
                assert all(env.terminations[a] for a in env.agents)  # all at once, at the end
                assert np.flatnonzero(obs["action_mask"]).tolist() == [wait]
                env.step(wait)  # absorbed like None
                continue
            assert env.agents == env.possible_agents
            for other in env.possible_agents:  # everyone else may only wait
                mask = env.observe(other)["action_mask"]
                assert mask[wait] == (other != agent)
                assert (other == agent) == bool(mask[:wait].any())
            mask = obs["action_mask"]
            actions.append(int(rng.choice(np.flatnonzero(mask[:wait]))))
            env.step(actions[-1])
        assert actions == plain_actions
        assert returns == pytest.approx(plain)


def test_the_wait_action_is_refused_from_the_agent_to_act():
    env = FixedAgentsWrapper(game_env("schnauz"))
    env.reset(seed=0)
    assert env.action_space("player_0").n == env.game_actions + 1
    with pytest.raises(ValueError, match="wait action"):
        env.step(env.game_actions)
    lean = FixedAgentsWrapper(game_env("schnauz"), wait_action=False)
    lean.reset(seed=0)
    assert lean.action_space("player_0").n == lean.game_actions
    others = [a for a in lean.possible_agents if a != lean.agent_selection]
    assert not any(lean.observe(a)["action_mask"].any() for a in others)


@pytest.mark.parametrize("game", GAMES)
def test_flat_observation_is_the_vector_then_the_mask(game):
    env = FlatObservationWrapper(game_env(game))
    lean = FlatObservationWrapper(game_env(game), mask_in_observation=False)
    plain = game_env(game)
    for e in (env, lean, plain):
        e.reset(seed=3)
    size, n = env.observation_size, env.num_actions
    assert env.observation_space("player_0").shape == (size + n,)
    assert lean.observation_space("player_0").shape == (size,) and lean.mask_slice is None
    assert env.mask_slice == slice(size, size + n)
    for agent in env.possible_agents:
        inner = plain.observe(agent)
        flat = env.observe(agent)
        assert flat.dtype == np.float32 and env.observation_space(agent).contains(flat)
        np.testing.assert_array_equal(flat[:size], inner["observation"])
        np.testing.assert_array_equal(flat[env.mask_slice], inner["action_mask"])
        np.testing.assert_array_equal(lean.observe(agent), inner["observation"])
        for e in (env, lean):
            np.testing.assert_array_equal(e.infos[agent]["action_mask"], inner["action_mask"])


def test_flat_observation_needs_dict_observations():
    with pytest.raises(TypeError, match="observation"):
        FlatObservationWrapper(FlatObservationWrapper(game_env("scat")))
