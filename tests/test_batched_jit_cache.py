"""numba's on-disk cache when processes compile the same function at once
(:func:`schnauz_env.batched.jit._lock_cache_saves`)."""

from __future__ import annotations

import pickle
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

pytest.importorskip("numba")

KERNEL = """
import numba

@numba.njit(cache=True)
def f(x):
    return x.sum() + 1
"""

#: One process: import the project's jit module (which locks the cache's saves), wait for
#: the common start, then compile ``f`` for 12 signatures of its own.
COMPILE = """
import sys, time
sys.path.insert(0, {folder!r})
import schnauz_env.batched.jit  # noqa: F401
import numpy as np
import kern
while time.time() < {start}:
    time.sleep(0.001)
for dtype in {dtypes!r}:
    for ndim in (1, 2, 3):
        kern.f(np.zeros((2,) * ndim, dtype=dtype))
"""


def cache_entries(cache: Path) -> list[tuple[tuple, list[tuple]]]:
    """Each index entry of ``cache``: its signature, and the signatures its data file holds."""
    import numba  # noqa: F401  (unpickles numba's types)

    out = []
    for index in cache.glob("*.nbi"):
        with open(index, "rb") as fh:
            pickle.load(fh)  # numba's version
            _, overloads = pickle.loads(fh.read())
        for key, data_name in overloads.items():
            payload = pickle.loads((cache / data_name).read_bytes())
            held = [tuple(p.args) for p in payload if type(p).__name__ == "Signature"]
            out.append((tuple(getattr(key[0], "args", key[0])), held))
    return out


def test_two_processes_compiling_one_function_at_once_keep_its_cache_index_right(
    tmp_path, monkeypatch
):
    (tmp_path / "kern.py").write_text(textwrap.dedent(KERNEL))
    monkeypatch.syspath_prepend(str(tmp_path))  # the cached data names its module
    start = time.time() + 4  # both processes have imported numba by then
    groups = (["int8", "int16", "int32", "int64"], ["uint8", "uint16", "uint32", "uint64"])
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", COMPILE.format(folder=str(tmp_path), start=start, dtypes=g)]
        )
        for g in groups
    ]
    assert [p.wait(timeout=300) for p in procs] == [0, 0]
    entries = cache_entries(tmp_path / "__pycache__")
    assert len(entries) == 24  # every signature saved, none lost
    for signature, held in entries:  # and each names its own machine code
        assert held == [signature]
