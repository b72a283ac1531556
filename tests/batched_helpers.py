"""What the batched engines' tests share: running a script with and without numba.

The fallback tests run one script twice in fresh processes, without numba
(``SCHNAUZ_ENV_NO_NUMBA=1``: the kernels as plain Python) and, where numba is installed,
with it; each run saves the arrays it produced, and both runs must produce the same.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

HAVE_NUMBA = importlib.util.find_spec("numba") is not None

#: A script's opening: warnings are errors, the numba flag is the one expected
#: (``EXPECT_NUMBA``), and building ``MAKE`` (an engine's constructor call) warns how to
#: install numba exactly when it is missing.
WARNS_HOW_TO_INSTALL = """
import warnings, numpy as np
warnings.simplefilter("error")
from schnauz_env.batched.jit import HAVE_NUMBA
assert HAVE_NUMBA == EXPECT_NUMBA
IMPORT
try:
    MAKE
except RuntimeWarning as w:
    assert not HAVE_NUMBA and 'pip install "schnauz_env[fast]"' in str(w), w
else:
    assert HAVE_NUMBA, "no warning"
warnings.simplefilter("ignore")
"""


def warns_how_to_install(import_line: str, make: str) -> str:
    """:data:`WARNS_HOW_TO_INSTALL` for the engine imported by ``import_line`` and built
    by the expression ``make``."""
    return WARNS_HOW_TO_INSTALL.replace("IMPORT", import_line).replace("MAKE", make)


def run_with_and_without_numba(script: str, tmp_path: Path, name: str) -> list[np.ndarray]:
    """Run ``script`` (which saves its arrays with ``np.savez(OUT, *out)`` and may assert
    ``HAVE_NUMBA == EXPECT_NUMBA``) without numba and, where numba is installed, with it;
    assert that both runs saved the same arrays; return those of the run without."""
    outs = {}
    for flag in ("1", "0") if HAVE_NUMBA else ("1",):
        path = tmp_path / f"{name}_{flag}.npz"
        code = script.replace("OUT", repr(str(path))).replace(
            "EXPECT_NUMBA", "False" if flag == "1" else "True"
        )
        env = dict(os.environ, SCHNAUZ_ENV_NO_NUMBA=flag)
        subprocess.run([sys.executable, "-c", code], check=True, env=env)
        with np.load(path) as data:
            outs[flag] = [data[k] for k in data.files]
    if HAVE_NUMBA:
        for a, b in zip(outs["1"], outs["0"], strict=True):
            np.testing.assert_array_equal(a, b)
    return outs["1"]
