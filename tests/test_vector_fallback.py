"""The batched VecEnvs of Scat and Thirteen without numba: the same loops as plain Python,
the same games (compared with the compiled run where numba is installed)."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("stable_baselines3")

HAVE_NUMBA = importlib.util.find_spec("numba") is not None

SCRIPT = """
import warnings, numpy as np
warnings.simplefilter("ignore")
from schnauz_env.batched.jit import HAVE_NUMBA
assert HAVE_NUMBA == EXPECT_NUMBA
from schnauz_env.vector import vec_env_class
out = []
for opponent in ("greedy", "random"):
    venv = vec_env_class(GAME)(num_envs=3, num_players=3, opponent=opponent, seed=5)
    rng = np.random.default_rng(0)
    out.append(venv.reset())
    for _ in range(40):
        masks = venv.action_masks()
        obs, rewards, dones, infos = venv.step((rng.random(masks.shape) * masks).argmax(axis=1))
        out += [obs, rewards, dones, masks]
np.savez(OUT, *out)
"""


@pytest.mark.parametrize("game", ["scat", "thirteen"])
def test_runs_without_numba(game: str, tmp_path) -> None:
    outs = {}
    for flag in ("1", "0") if HAVE_NUMBA else ("1",):
        path = tmp_path / f"{game}_{flag}.npz"
        script = (
            SCRIPT.replace("OUT", repr(str(path)))
            .replace("GAME", repr(game))
            .replace("EXPECT_NUMBA", "False" if flag == "1" else "True")
        )
        env = dict(os.environ, SCHNAUZ_ENV_NO_NUMBA=flag)
        subprocess.run([sys.executable, "-c", script], check=True, env=env)
        with np.load(path) as data:
            outs[flag] = [data[k] for k in data.files]
    assert len(outs["1"]) == 2 * (1 + 4 * 40)
    if HAVE_NUMBA:
        for a, b in zip(outs["1"], outs["0"], strict=True):
            np.testing.assert_array_equal(a, b)
