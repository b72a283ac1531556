"""numba when it is installed (``pip install schnauz_env[fast]``), plain Python when not.

The batched kernels are written once, in the subset of Python that numba compiles.
Without numba (or with ``SCHNAUZ_ENV_NO_NUMBA=1``) :func:`njit` returns the function
unchanged, so the same code runs as ordinary Python: correct, about a thousand
times slower, and announced once with a warning that says how to install numba.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable
from typing import Any

INSTALL_HINT = 'pip install "schnauz_env[fast]"  (or: pip install numba)'

_disabled = os.environ.get("SCHNAUZ_ENV_NO_NUMBA", "") not in ("", "0")
try:
    if _disabled:
        raise ImportError("numba disabled by SCHNAUZ_ENV_NO_NUMBA")
    import numba as _numba
except ImportError:
    _numba = None

HAVE_NUMBA: bool = _numba is not None


def njit(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``numba.njit(cache=True)`` if numba is available, else ``fn`` itself."""
    if _numba is None:
        return fn
    return _numba.njit(cache=True)(fn)


_warned = False


def warn_if_slow() -> None:
    """Warn once per process that the kernels run as plain Python."""
    global _warned
    if HAVE_NUMBA or _warned:
        return
    _warned = True
    warnings.warn(
        "numba is not installed: the batched Schnauz engine runs as plain Python, "
        f"roughly a thousand times slower. Install it with: {INSTALL_HINT}",
        RuntimeWarning,
        stacklevel=3,
    )
