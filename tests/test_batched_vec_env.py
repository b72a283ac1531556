"""The SB3 VecEnv over the batched engine: the learner's view, rewards, opponents, MaskablePPO."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("numba", reason="the VecEnv runs the compiled kernels")
pytest.importorskip("stable_baselines3")

from batched_helpers import play_learner, random_legal
from conftest import place_value

from schnauz_env.batched.schnauz.rules import is_legal
from schnauz_env.schnauz import SchnauzConfig
from schnauz_env.vector import SchnauzVecEnv


def test_learner_masks_are_the_rules() -> None:
    """The learner's masks are the batched rules' legal actions (``is_legal``); its views
    are the engine's in tests/test_vector_scat_thirteen.py, for every game."""
    venv = SchnauzVecEnv(num_envs=16, num_players=3, seed=0)
    venv.reset()
    cfg, gs = venv.engine.cfg, venv.engine.gs
    rng = np.random.default_rng(1)
    for _ in range(300):
        masks = venv.action_masks()
        assert masks.dtype == bool and masks.any(axis=1).all()
        for g in range(16):
            legal = [a for a in range(14) if is_legal(cfg, gs, g, a)]
            assert np.flatnonzero(masks[g]).tolist() == legal
        venv.step(random_legal(masks, rng))


def test_returns_are_the_learners_place_values() -> None:
    venv = SchnauzVecEnv(num_envs=32, num_players=4, seed=2)
    out = play_learner(venv, 1500)
    returns, places = out["returns"], out["places"]
    assert len(returns) > 100
    for r, p in zip(returns, places, strict=True):
        assert r == pytest.approx(place_value(p, 4), abs=1e-5)
    # random against random from a random seat: about even
    assert abs(np.mean(returns)) < 0.15
    assert set(np.round(places, 1)) >= {1.0, 2.0, 3.0, 4.0}


def test_greedy_opponents_beat_a_random_learner() -> None:
    returns = play_learner(
        SchnauzVecEnv(num_envs=32, num_players=4, opponent="greedy", seed=3), 1500
    )["returns"]
    assert len(returns) > 100 and np.mean(returns) < -0.5


def test_round_episodes_and_a_fixed_seat() -> None:
    venv = SchnauzVecEnv(num_envs=16, num_players=3, episode="round", learner_seat=2, seed=4)
    out = play_learner(venv, 600)
    returns, places = out["returns"], out["places"]
    assert (venv.learner_seats == 2).all()
    assert len(returns) > 50 and set(places) == {0.0}
    # a loser gets -1; a survivor its share of the losers' lives (1/2 or 2)
    assert set(np.round(returns, 5)) <= {-1.0, 0.0, 0.5, 2.0}
    assert -1.0 in returns and 0.5 in returns


def test_callable_opponent_gets_its_own_views() -> None:
    rng = np.random.default_rng(5)
    calls = []

    def opponent(obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        calls.append(len(obs))
        assert obs.shape == (len(masks), 436) and masks.shape == (len(obs), 14)
        assert masks.any(axis=1).all()
        return random_legal(masks, rng)

    venv = SchnauzVecEnv(num_envs=16, num_players=4, opponent=opponent, seed=6)
    out = play_learner(venv, 600)
    returns, places = out["returns"], out["places"]
    assert calls and len(returns) > 30
    for r, p in zip(returns, places, strict=True):
        assert r == pytest.approx(place_value(p, 4), abs=1e-5)


def test_player_names_are_resolved_by_the_players_floor() -> None:
    """The VecEnv (floor 3) imports no player: a name other than its built-in ones says
    how to pass one."""
    with pytest.raises(ValueError, match=r"policies\.make_policy\('expert'.*OpponentPool"):
        SchnauzVecEnv(num_envs=2, opponent="expert")


def test_policy_objects_play_through_act_batch() -> None:
    policies = pytest.importorskip("policies")
    config = SchnauzConfig(num_players=3)
    policy = policies.make_policy("expert:samples=8", game="schnauz", config=config, seed=9)
    venv = SchnauzVecEnv(num_envs=4, config=config, opponent=policy, seed=9)
    out = play_learner(venv, 60)
    returns, places = out["returns"], out["places"]
    assert venv.opponent_fn == policy.act_batch
    for r, p in zip(returns, places, strict=True):
        assert r == pytest.approx(place_value(p, 3), abs=1e-5)


def test_per_game_opponents_get_the_games() -> None:
    """A callable with ``per_game`` (e.g. ``policies.pool.OpponentPool``) is told which
    games its rows are, and sees every game that waits for an opponent."""
    rng = np.random.default_rng(3)
    seen = []

    def opponent(obs: np.ndarray, masks: np.ndarray, games: np.ndarray) -> np.ndarray:
        seen.append(games.copy())
        assert len(games) == len(obs) == len(masks)
        return random_legal(masks, rng)

    opponent.per_game = True  # type: ignore[attr-defined]
    venv = SchnauzVecEnv(num_envs=8, num_players=4, opponent=opponent, seed=4)
    play_learner(venv, 50)
    games = np.concatenate(seen)
    assert set(games.tolist()) == set(range(8))
    assert all((np.diff(g) > 0).all() for g in seen)  # in game order, each once a call


def test_old_import_paths_warn_and_still_work() -> None:
    import schnauz_env.batched

    with pytest.warns(DeprecationWarning, match="schnauz_env.vector"):
        old = schnauz_env.batched.SchnauzVecEnv
    assert old is SchnauzVecEnv
    with pytest.warns(DeprecationWarning, match="schnauz_env.vector"):
        from schnauz_env.batched.vec_env import SchnauzVecEnv as older
    assert older is SchnauzVecEnv


_FIRST_COMPILE = """
import sys
import numpy as np
from schnauz_env.vector import vec_env_class
venv = vec_env_class(sys.argv[1])(num_envs=8, seed=0, opponent="random")
venv.reset()
rng = np.random.default_rng(0)
for _ in range(300):
    masks = venv.action_masks()
    venv.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
print("stepped")
"""


@pytest.mark.parametrize("game", ["schnauz", "scat", "thirteen"])
def test_the_vec_env_compiles_first_in_a_fresh_process(game: str, tmp_path) -> None:
    """On an empty numba cache the VecEnv's loop may be the first kernel to compile.
    It runs without reference counting, and numba compiles a callee with its caller's
    counting unless the callee sets its own: a rule function that makes an array
    (Schnauz's showdown replay, Scat's tie-break) failed to compile from there. Within
    one test process another kernel compiles those first, so this needs a process and a
    numba cache of its own."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    out = subprocess.run(
        [sys.executable, "-c", _FIRST_COMPILE, game],
        capture_output=True,
        text=True,
        env=env,
        timeout=900,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.strip() == "stepped"
