"""The batched engine without numba, and what importing the package costs.

These tests need no numba: without it the kernels run as plain Python, and the
engine says how to install the compiled version.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys

import numpy as np

HAVE_NUMBA = importlib.util.find_spec("numba") is not None


def test_import_schnauz_env_does_not_import_numba() -> None:
    code = (
        "import sys, schnauz_env, schnauz_env.schnauz_v0, schnauz_env.batched;"
        "assert 'numba' not in sys.modules, 'numba imported';"
        "from schnauz_env.batched import BatchedSchnauz;"
        f"assert ('numba' in sys.modules) == {HAVE_NUMBA}"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_runs_without_numba_and_says_how_to_install_it() -> None:
    """With numba absent the same kernels run as Python: a warning naming the install
    command, and (where numba is installed to compare with) exactly the same games."""
    code = """
import warnings, numpy as np
warnings.simplefilter("error")
from schnauz_env.batched.jit import HAVE_NUMBA
assert not HAVE_NUMBA
from schnauz_env.batched import BatchedSchnauz
try:
    BatchedSchnauz(2, num_players=3, seed=0)
except RuntimeWarning as w:
    assert 'pip install "schnauz_env[fast]"' in str(w), w
else:
    raise AssertionError("no warning")
warnings.simplefilter("ignore")
eng = BatchedSchnauz(2, num_players=3, seed=4)
obs, mask = eng.reset()
out = [obs.copy()]
for _ in range(40):
    obs, mask, rew, ended = eng.step(eng.random_actions())
    out += [obs.copy(), mask.copy(), rew.copy(), ended.copy()]
np.savez(OUT, *out)
"""
    outs = {}
    for flag in ("1", "0") if HAVE_NUMBA else ("1",):
        path = os.path.join(
            os.environ.get("TMPDIR", "/tmp"), f"schnauz_nonumba_{os.getpid()}_{flag}.npz"
        )
        env = dict(os.environ, SCHNAUZ_ENV_NO_NUMBA=flag)
        script = code.replace("OUT", repr(path))
        if flag == "0":
            script = script.replace("assert not HAVE_NUMBA", "assert HAVE_NUMBA").replace(
                'raise AssertionError("no warning")', "pass"
            )
        subprocess.run([sys.executable, "-c", script], check=True, env=env)
        with np.load(path) as data:
            outs[flag] = [data[k] for k in data.files]
        os.remove(path)
    assert len(outs["1"]) == 1 + 4 * 40
    if HAVE_NUMBA:
        for a, b in zip(outs["1"], outs["0"], strict=True):
            np.testing.assert_array_equal(a, b)


def test_the_old_private_shim_is_the_public_one() -> None:
    from schnauz_env.batched import _jit, jit

    assert _jit is jit
