"""The batched Scat engine without numba: the same kernels as plain Python.

Without numba (or with ``SCHNAUZ_ENV_NO_NUMBA=1``) the kernels run as ordinary
Python: the engine warns how to install the compiled version and, where numba is
installed to compare with, plays exactly the same games.
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
from schnauz_env.batched import BatchedScat
try:
    BatchedScat(2, num_players=3, seed=0)
except RuntimeWarning as w:
    assert not HAVE_NUMBA and 'pip install "schnauz_env[fast]"' in str(w), w
else:
    assert HAVE_NUMBA, "no warning"
warnings.simplefilter("ignore")
out = []
for options in ({"num_players": 3, "buy_ins": 1}, {"num_players": 4, "four_card": True}):
    eng = BatchedScat(3, seed=4, **options)
    obs, mask = eng.reset()
    out += [obs.copy(), mask.copy()]
    for k in range(60):
        actions = eng.greedy_actions() if k % 3 == 0 else eng.random_actions()
        obs, mask, rew, ended = eng.step(actions)
        out += [obs.copy(), mask.copy(), rew.copy(), ended.copy(), eng.lives.copy()]
np.savez(OUT, *out)
"""


def test_runs_without_numba_and_says_how_to_install_it(tmp_path) -> None:
    outs = {}
    for flag in ("1", "0") if HAVE_NUMBA else ("1",):
        path = tmp_path / f"scat_{flag}.npz"
        script = SCRIPT.replace("OUT", repr(str(path))).replace(
            "EXPECT_NUMBA", "False" if flag == "1" else "True"
        )
        env = dict(os.environ, SCHNAUZ_ENV_NO_NUMBA=flag)
        subprocess.run([sys.executable, "-c", script], check=True, env=env)
        with np.load(path) as data:
            outs[flag] = [data[k] for k in data.files]
    assert len(outs["1"]) == 2 * (2 + 5 * 60)
    if HAVE_NUMBA:
        for a, b in zip(outs["1"], outs["0"], strict=True):
            np.testing.assert_array_equal(a, b)
