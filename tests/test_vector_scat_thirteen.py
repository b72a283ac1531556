"""The SB3 VecEnvs over the batched Scat and Thirteen engines: the learner's view, whole-game
episodes returning place values, opponents (compiled and in Python) held to the policies,
seeding, and MaskablePPO training on them."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import pytest

pytest.importorskip("numba", reason="the VecEnvs run the compiled kernels")
pytest.importorskip("stable_baselines3")

from batched_helpers import play_learner, random_legal
from conftest import place_value

from policies import make_policy
from schnauz_env.batched.learner_loop import OPP_GREEDY
from schnauz_env.games import env_module, game_module
from schnauz_env.vector import ScatVecEnv, ThirteenVecEnv, vec_env_class
from schnauz_env.vector.base import BatchedVecEnv

GAMES = ("scat", "thirteen")
#: The tests every batched VecEnv passes alike (Schnauz's own are in test_batched_vec_env.py).
ALL_GAMES = ("schnauz", *GAMES)
NUM_ACTIONS = {"schnauz": 14, "scat": 9, "thirteen": 54}


def make(game: str, **kwargs: Any) -> BatchedVecEnv:
    return vec_env_class(game)(**kwargs)


# ------------------------------------------------------------------ the contract
class OneGame(gym.Env):
    """One game of a VecEnv as a Gymnasium env, for SB3's ``check_env``."""

    def __init__(self, venv: BatchedVecEnv) -> None:
        self.venv = venv
        self.observation_space = venv.observation_space
        self.action_space = venv.action_space

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        if seed is not None:
            self.venv.seed(seed)
        return self.venv.reset()[0], {}

    def step(self, action):
        if not self.venv.action_masks()[0, int(action)]:  # check_env samples any action
            action = int(np.flatnonzero(self.venv.action_masks()[0])[0])
        obs, rewards, dones, _ = self.venv.step(np.array([action]))
        return obs[0], float(rewards[0]), bool(dones[0]), False, {}

    def action_masks(self) -> np.ndarray:
        return self.venv.action_masks()[0]


@pytest.mark.parametrize("game", GAMES)
def test_sb3_check_env_and_spaces(game: str) -> None:
    from stable_baselines3.common.env_checker import check_env

    venv = make(game, num_envs=1, num_players=4, seed=0)
    check_env(OneGame(venv), warn=False)
    aec = env_module(game).raw_env(num_players=4)
    space = aec.observation_space(aec.possible_agents[0])["observation"]
    assert venv.observation_space.shape == space.shape
    assert venv.action_space.n == NUM_ACTIONS[game]
    obs = make(game, num_envs=8, num_players=3, seed=1).reset()
    assert obs.shape == (8, venv.engine.obs_size) and obs.dtype == np.float32
    assert ((obs >= 0) & (obs <= 1)).all()


@pytest.mark.parametrize("game", ALL_GAMES)
def test_the_learner_sees_its_own_view_and_masks(game: str) -> None:
    venv = make(game, num_envs=12, num_players=4, seed=2)
    obs = venv.reset()
    eng = venv.engine
    rng = np.random.default_rng(3)
    for _ in range(200):
        seats = venv.learner_seats
        assert (eng.current == seats).all()  # every game waits for the learner
        np.testing.assert_array_equal(obs, eng.observe(seats))
        obs, *_ = venv.step(random_legal(venv.action_masks(), rng))


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("opponent", ["random", "greedy"])
def test_episodes_are_whole_games_returning_place_values(game: str, opponent: str) -> None:
    n = 4
    out = play_learner(make(game, num_envs=24, num_players=n, opponent=opponent, seed=4), 800)
    returns, places = out["returns"], out["places"]
    assert len(returns) > 50
    for r, p in zip(returns, places, strict=True):
        assert 1.0 <= p <= n  # a whole game: the learner's place is decided
        assert r == pytest.approx(place_value(p, n), abs=1e-5)
    if opponent == "random":  # random against random from a random seat: about even
        assert abs(np.mean(returns)) < 0.2
        assert set(np.round(places)) >= {1.0, 2.0, 3.0, 4.0}
    else:  # greedy beats a random learner
        assert np.mean(returns) < -0.3


def test_scat_single_round_episodes_and_a_fixed_seat() -> None:
    venv = ScatVecEnv(num_envs=16, num_players=3, episode="round", learner_seat=1, seed=5)
    out = play_learner(venv, 400)
    assert (venv.learner_seats == 1).all()
    assert len(out["returns"]) > 30 and set(out["places"]) == {0.0}
    assert min(out["returns"]) < 0 < max(out["returns"])


@pytest.mark.parametrize(
    "options",
    [
        {"four_card": True},
        {"no_trinca": True, "knock_on_first_turn": True},
        {"buy_ins": 1, "lives": 1},
        # everyone on the bus: a blitz after the deal puts players out before the
        # learner's first move, and its share is paid with that move
        {"lives": 0},
    ],
)
def test_scat_variants_return_place_values(options: dict) -> None:
    out = play_learner(ScatVecEnv(num_envs=8, num_players=5, seed=6, **options), 300)
    assert out["returns"]
    for r, p in zip(out["returns"], out["places"], strict=True):
        assert r == pytest.approx(place_value(p, 5), abs=1e-5)


def test_thirteen_match_episodes() -> None:
    venv = ThirteenVecEnv(num_envs=8, num_players=4, episode="match", target_points=2, seed=7)
    out = play_learner(venv, 600)
    assert len(out["returns"]) > 5
    for r, p in zip(out["returns"], out["places"], strict=True):
        assert r == pytest.approx(place_value(p, 4), abs=1e-5)


@pytest.mark.parametrize("game", GAMES)
def test_seeded_runs_repeat(game: str) -> None:
    a = play_learner(make(game, num_envs=8, num_players=4, opponent="greedy", seed=8), 150)
    b = play_learner(make(game, num_envs=8, num_players=4, opponent="greedy", seed=8), 150)
    c = play_learner(make(game, num_envs=8, num_players=4, opponent="greedy", seed=9), 150)
    for x, y in zip(a["trajectory"], b["trajectory"], strict=True):
        np.testing.assert_array_equal(x, y)
    assert not all(
        np.array_equal(x, y) for x, y in zip(a["trajectory"], c["trajectory"], strict=True)
    )
    venv = make(game, num_envs=8, num_players=4, opponent="greedy", seed=1)
    play_learner(venv, 20)
    venv.seed(8)  # applies at the next reset
    d = play_learner(venv, 150)
    for x, y in zip(a["trajectory"], d["trajectory"], strict=True):
        np.testing.assert_array_equal(x, y)


# ------------------------------------------------------------------ opponents
@pytest.mark.parametrize("game", GAMES)
def test_compiled_greedy_plays_the_policies_greedy(game: str) -> None:
    """The same games with the compiled greedy and with ``policies``' GreedyPolicy called
    on the opponents' views: every move, so every step the learner sees, is the same.
    The views and masks handed to a Python opponent are the engine's (the reference's
    encoding, held to it by the differential tests) for the seat to act."""
    config = game_module(game).Config(num_players=4)
    policy = make_policy("greedy", game=game, config=config, seed=0)
    calls = []

    def opponent(obs: np.ndarray, masks: np.ndarray, games: np.ndarray) -> np.ndarray:
        eng = venv.engine
        seats = eng.current[games]
        assert (seats != venv.learner_seats[games]).all()
        np.testing.assert_array_equal(obs, eng.observe(seats, games))
        actions = policy.act_batch(obs, masks)
        assert masks[np.arange(len(masks)), actions].all()  # legal
        calls.append(len(games))
        return actions

    opponent.per_game = True  # type: ignore[attr-defined]
    compiled = play_learner(make(game, num_envs=16, config=config, opponent="greedy", seed=10), 250)
    venv = make(game, num_envs=16, config=config, opponent=opponent, seed=10)
    python = play_learner(venv, 250)
    assert sum(calls) > 1000
    for x, y in zip(compiled["trajectory"], python["trajectory"], strict=True):
        np.testing.assert_array_equal(x, y)


@pytest.mark.parametrize("game", GAMES)
def test_expert_opponents_through_act_batch(game: str) -> None:
    config = game_module(game).Config(num_players=3)
    expert = make_policy("expert", game=game, config=config, seed=11)
    venv = make(game, num_envs=4, config=config, opponent=expert, seed=11)
    out = play_learner(venv, 120)
    assert venv.opponent_fn == expert.act_batch
    assert out["returns"]
    for r, p in zip(out["returns"], out["places"], strict=True):
        assert r == pytest.approx(place_value(p, 3), abs=1e-5)


@pytest.mark.parametrize("game", GAMES)
def test_opponent_pools_seat_names_per_game(game: str) -> None:
    from policies.pool import OpponentPool

    config = game_module(game).Config(num_players=4)
    pool = OpponentPool(["greedy", "random"], game=game, config=config, seed=12, num_games=8)
    out = play_learner(make(game, num_envs=8, config=config, opponent=pool, seed=12), 200)
    for r, p in zip(out["returns"], out["places"], strict=True):
        assert r == pytest.approx(place_value(p, 4), abs=1e-5)


@pytest.mark.parametrize("game", GAMES)
def test_a_pools_greedy_games_are_played_in_the_kernel(game: str) -> None:
    """The games a pool seats with ``greedy`` are played in the kernel, the others by the
    pool: the same games as a pool called for every game (greedy is deterministic, and
    so is the Python player beside it, ``greedy:20``; Thirteen's greedy takes no
    parameter, so its pool holds greedy alone)."""
    from policies.pool import OpponentPool

    config = game_module(game).Config(num_players=4)
    names = ["greedy", "greedy:20"] if game == "scat" else ["greedy"]
    pool = OpponentPool(names, game=game, config=config, seed=16, num_games=8)
    called = []

    def spy(obs: np.ndarray, masks: np.ndarray, games: np.ndarray) -> np.ndarray:
        called.append(games.copy())
        return pool(obs, masks, games)

    spy.per_game = True  # type: ignore[attr-defined]
    seated = make(game, num_envs=8, config=config, opponent=pool, seed=16)
    fast = play_learner(seated, 150)
    kernel = np.flatnonzero(pool.assignment == 0)
    assert kernel.size and (seated._opp_kinds[kernel] == OPP_GREEDY).all()
    slow = play_learner(make(game, num_envs=8, config=config, opponent=spy, seed=16), 150)
    for x, y in zip(fast["trajectory"], slow["trajectory"], strict=True):
        np.testing.assert_array_equal(x, y)
    assert set(np.concatenate(called).tolist()) == set(range(8))
    if game == "scat":  # the pool is asked only for its greedy:20 games
        probe = []

        def watch(obs: np.ndarray, masks: np.ndarray, games: np.ndarray) -> np.ndarray:
            probe.append(games.copy())
            return pool(obs, masks, games)

        venv = make(game, num_envs=8, config=config, opponent=pool, seed=16)
        venv.opponent_fn = watch
        play_learner(venv, 50)
        assert set(np.concatenate(probe).tolist()) <= set(np.flatnonzero(pool.assignment == 1))


@pytest.mark.parametrize("game", ALL_GAMES)
def test_illegal_actions_and_bad_opponents_are_refused(game: str) -> None:
    venv = make(game, num_envs=4, num_players=2, seed=13)
    venv.reset()
    masks = venv.action_masks()
    actions = masks.argmax(axis=1)
    actions[2] = np.flatnonzero(~masks[2])[0]
    with pytest.raises(ValueError, match="illegal learner action"):
        venv.step(actions)

    def cheat(obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        return np.array([np.flatnonzero(m == 0)[0] for m in masks])

    venv = make(game, num_envs=4, num_players=2, opponent=cheat, seed=13)
    with pytest.raises(ValueError, match="illegal opponent action"):
        for _ in range(10):
            venv.reset()
    with pytest.raises(ValueError, match=rf"policies\.make_policy\('expert', game='{game}'"):
        make(game, num_envs=2, opponent="expert")
    with pytest.raises(ValueError, match="opponent must be"):
        make(game, num_envs=2, opponent=3)
    with pytest.raises(ValueError, match="learner_seat"):
        make(game, num_envs=2, num_players=3, learner_seat=3)
    with pytest.raises(ValueError, match="no batched VecEnv"):
        vec_env_class("poker")


# ------------------------------------------------------------------ training
@pytest.mark.parametrize("game", ALL_GAMES)
def test_maskable_ppo_trains_and_its_model_plays_as_an_opponent(game: str, tmp_path) -> None:
    """A tiny MaskablePPO run; its export plays as a (network) opponent in the VecEnv."""
    sb3_contrib = pytest.importorskip("sb3_contrib")
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported

    from policies.mlp import export_sb3

    config = game_module(game).Config(num_players=3)
    venv = make(game, num_envs=8, config=config, opponent="greedy", seed=14)
    assert is_masking_supported(venv)
    venv.reset()
    assert get_action_masks(venv).shape == (8, NUM_ACTIONS[game])
    model = sb3_contrib.MaskablePPO(
        "MlpPolicy", venv, n_steps=32, batch_size=64, n_epochs=1, seed=0, device="cpu"
    )
    model.learn(512)
    assert model.num_timesteps >= 512
    obs = venv.reset()
    actions, _ = model.predict(obs, action_masks=venv.action_masks())
    assert venv.action_masks()[np.arange(8), actions].all()

    path = export_sb3(model, tmp_path / "model.npz", game, config, [3])
    network = make_policy(str(path), game=game, config=config, seed=0)
    out = play_learner(make(game, num_envs=4, config=config, opponent=network, seed=15), 100)
    for r, p in zip(out["returns"], out["places"], strict=True):
        assert r == pytest.approx(place_value(p, 3), abs=1e-5)


@pytest.mark.parametrize("game", GAMES)
def test_train_runs_batched(game: str, tmp_path) -> None:
    """``python -m training.train --game <game> --vec-env batched``, tiny."""
    pytest.importorskip("sb3_contrib")
    from training.train import main

    main(
        [
            "--game", game, "--vec-env", "batched", "--table-sizes", "3", "--num-envs", "8",
            "--n-steps", "16", "--batch-size", "64", "--n-epochs", "1", "--total-steps", "256",
            "--eval-every", "0", "--eval-games", "4", "--eval-opponents", "greedy",
            "--eval-table-size", "3", "--opponents", "greedy", "random",
            "--run-dir", str(tmp_path), "--run-name", "tiny", "--no-progress-bar",
        ]
    )  # fmt: skip
    assert (tmp_path / "tiny" / "model.npz").is_file()
