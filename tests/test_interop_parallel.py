"""The parallel-API route (AgileRL and other parallel-API trainers): PettingZoo's
``turn_based_aec_to_parallel`` over :class:`~schnauz_env.wrappers.FixedAgentsWrapper`,
every agent acting every step (the wait action for those not to act); and SuperSuit's
observation wrappers over :class:`~schnauz_env.wrappers.FlatObservationWrapper`
(docs/interop.md, "Parallel API" and "SuperSuit")."""

from __future__ import annotations

import numpy as np
import pytest
from interop_helpers import GAMES, Referee, game_env
from pettingzoo.utils.conversions import turn_based_aec_to_parallel

from schnauz_env.wrappers import FixedAgentsWrapper, FlatObservationWrapper


def random_masked(masks: dict[str, np.ndarray], rng: np.random.Generator) -> dict[str, int]:
    return {a: int(rng.choice(np.flatnonzero(m))) for a, m in masks.items()}


@pytest.mark.parametrize("game", GAMES)
def test_parallel_games_are_whole_games_paying_place_values(game):
    referee = Referee(game_env(game))
    env = turn_based_aec_to_parallel(FixedAgentsWrapper(referee))
    rng = np.random.default_rng(0)
    for k in range(3):
        observations, _ = env.reset(seed=k)
        returns = dict.fromkeys(env.possible_agents, 0.0)
        while env.agents:
            assert env.agents == env.possible_agents  # nobody leaves before the end
            masks = {a: o["action_mask"] for a, o in observations.items()}
            assert all(m.any() for m in masks.values())  # never an all-zero mask
            observations, rewards, terminations, truncations, _ = env.step(
                random_masked(masks, rng)
            )
            for a, r in rewards.items():
                returns[a] += r
            ended = [a for a in terminations if terminations[a] or truncations[a]]
            assert ended in ([], env.possible_agents)  # all at once, at the end
        assert [returns[a] for a in env.possible_agents] == pytest.approx(referee.games[k])
    assert referee.cut == 0 and len(referee.games) == 3


@pytest.mark.parametrize("game", GAMES)
def test_supersuit_observation_wrappers_work_on_flat_observations(game):
    ss = pytest.importorskip("supersuit", reason="the interop extra")
    referee = Referee(game_env(game))
    flat = FlatObservationWrapper(referee)
    env = ss.normalize_obs_v0(ss.dtype_v0(flat, np.float64), env_min=-1.0, env_max=1.0)
    env = ss.pad_observations_v0(ss.flatten_v0(env))
    space = env.observation_space(env.possible_agents[0])
    assert space.dtype == np.float64 and space.shape == flat.observation_space("player_0").shape
    rng = np.random.default_rng(1)
    for k in range(2):
        env.reset(seed=k)
        for _ in env.agent_iter():
            obs, _, terminated, truncated, info = env.last()
            assert obs.dtype == np.float64 and obs.min() >= -1.0 and obs.max() <= 1.0
            # the mask in the observation, rescaled, and exact in the info
            mask = info["action_mask"]
            np.testing.assert_allclose(obs[flat.mask_slice], mask * 2.0 - 1.0)
            env.step(None if terminated or truncated else int(rng.choice(np.flatnonzero(mask))))
    assert len(referee.games) == 2 and referee.cut == 0


@pytest.mark.parametrize("game", GAMES)
def test_supersuit_black_death_keeps_every_agent_of_the_parallel_env(game):
    """black_death_v3 gives the agents that went out zero observations until the game
    ends. SuperSuit 3.11 never reports that end itself (it waits for every agent to be
    terminated *and* truncated), so the loop reads it from the env underneath."""
    ss = pytest.importorskip("supersuit", reason="the interop extra")
    referee = Referee(game_env(game))
    parallel = turn_based_aec_to_parallel(FlatObservationWrapper(referee))
    env = ss.black_death_v3(parallel)
    rng = np.random.default_rng(2)
    observations, infos = env.reset(seed=0)
    out: set[str] = set()
    while parallel.agents:
        assert set(observations) == set(env.possible_agents)
        for a in out:  # out before this step (the step out gives the last observation)
            assert not observations[a].any()
        actions = {}
        for a in env.possible_agents:
            mask = infos.get(a, {}).get("action_mask")
            legal = np.flatnonzero(mask) if mask is not None and mask.any() else [0]
            actions[a] = int(rng.choice(legal))
        out = set(env.possible_agents) - set(parallel.agents)
        observations, _, _, _, infos = env.step(actions)
    assert len(referee.games) == 1 and referee.cut == 0
