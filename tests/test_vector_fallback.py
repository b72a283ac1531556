"""The batched VecEnvs of Scat and Thirteen without numba: the same loops as plain Python,
the same games (compared with the compiled run where numba is installed)."""

from __future__ import annotations

import pytest
from batched_helpers import run_with_and_without_numba

pytest.importorskip("stable_baselines3")

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
    script = SCRIPT.replace("GAME", repr(game))
    slow = run_with_and_without_numba(script, tmp_path, game)
    assert len(slow) == 2 * (1 + 4 * 40)
