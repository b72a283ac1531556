"""The batched Thirteen engine without numba: the same kernels as plain Python.

Without numba (or with ``SCHNAUZ_ENV_NO_NUMBA=1``) the kernels run as ordinary Python:
the same games, very slowly, announced once with a warning naming the install command.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys

import numpy as np

HAVE_NUMBA = importlib.util.find_spec("numba") is not None

SCRIPT = """
import warnings, numpy as np
warnings.simplefilter("error")
from schnauz_env.batched.jit import HAVE_NUMBA
assert HAVE_NUMBA == EXPECT_NUMBA
from schnauz_env.batched.thirteen import BatchedThirteen
try:
    BatchedThirteen(2, num_players=3, seed=0)
except RuntimeWarning as w:
    assert not HAVE_NUMBA and 'pip install "schnauz_env[fast]"' in str(w), w
else:
    assert HAVE_NUMBA, "no warning"
warnings.simplefilter("ignore")
eng = BatchedThirteen(3, num_players=3, seed=4, instant_wins=True, episode="match",
                      target_points=2)
obs, mask = eng.reset()
out = [obs.copy(), mask.copy()]
for k in range(150):
    actions = eng.greedy_actions() if k % 3 else eng.random_actions()
    obs, mask, rew, ended = eng.step(actions)
    out += [obs.copy(), mask.copy(), rew.copy(), ended.copy(), eng.result.copy()]
out.append(eng.observe(1))
np.savez(OUT, *out)
"""


def run(numba: bool, path: str) -> list[np.ndarray]:
    env = dict(os.environ, SCHNAUZ_ENV_NO_NUMBA="0" if numba else "1")
    script = SCRIPT.replace("EXPECT_NUMBA", repr(numba)).replace("OUT", repr(path))
    subprocess.run([sys.executable, "-c", script], check=True, env=env)
    with np.load(path) as data:
        arrays = [data[k] for k in data.files]
    os.remove(path)
    return arrays


def test_runs_without_numba_and_plays_the_same_games(tmp_path) -> None:
    """Without numba: a warning naming the install command, and (where numba is installed
    to compare with) exactly the same observations, masks, rewards, ends and results."""
    slow = run(False, str(tmp_path / "python.npz"))
    assert len(slow) == 2 + 5 * 150 + 1
    assert any(r.any() for r in slow[4::5])  # rewards were paid
    if HAVE_NUMBA:
        fast = run(True, str(tmp_path / "numba.npz"))
        for a, b in zip(slow, fast, strict=True):
            np.testing.assert_array_equal(a, b)
