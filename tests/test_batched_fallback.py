"""The batched engine without numba, and what importing the package costs.

These tests need no numba: without it the kernels run as plain Python, and the
engine says how to install the compiled version.
"""

from __future__ import annotations

import subprocess
import sys

from batched_helpers import HAVE_NUMBA, run_with_and_without_numba, warns_how_to_install


def test_import_schnauz_env_does_not_import_numba() -> None:
    code = (
        "import sys, schnauz_env, schnauz_env.schnauz_v0, schnauz_env.batched;"
        "assert 'numba' not in sys.modules, 'numba imported';"
        "from schnauz_env.batched import BatchedSchnauz;"
        f"assert ('numba' in sys.modules) == {HAVE_NUMBA}"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


SCRIPT = (
    warns_how_to_install(
        "from schnauz_env.batched import BatchedSchnauz", "BatchedSchnauz(2, num_players=3, seed=0)"
    )
    + """
eng = BatchedSchnauz(2, num_players=3, seed=4)
obs, mask = eng.reset()
out = [obs.copy()]
for _ in range(40):
    obs, mask, rew, ended = eng.step(eng.random_actions())
    out += [obs.copy(), mask.copy(), rew.copy(), ended.copy()]
np.savez(OUT, *out)
"""
)


def test_runs_without_numba_and_says_how_to_install_it(tmp_path) -> None:
    """With numba absent the same kernels run as Python: a warning naming the install
    command, and (where numba is installed to compare with) exactly the same games."""
    slow = run_with_and_without_numba(SCRIPT, tmp_path, "schnauz")
    assert len(slow) == 1 + 4 * 40


def test_the_old_private_shim_is_the_public_one() -> None:
    from schnauz_env.batched import _jit, jit

    assert _jit is jit
