"""Batched engines (floor 2): many games stepped at once in arrays, in numba kernels.

Imported lazily: ``import schnauz_env`` never imports numba or compiles anything.

    from schnauz_env.batched import BatchedSchnauz

Each game's engine sits in its own package (:mod:`schnauz_env.batched.schnauz`,
:mod:`~schnauz_env.batched.scat`, :mod:`~schnauz_env.batched.thirteen`) and takes every
rule fact from the rules floor; :mod:`~schnauz_env.batched.base` (what the engines share:
argument checks, seeding, ``observe``, state views, errors), :mod:`~schnauz_env.batched.jit`
(the numba shim) and :mod:`~schnauz_env.batched.common` (generators, shuffles, bit counts)
serve them all. The kernels are compiled with numba when it is installed
(``pip install "schnauz_env[fast]"``), on first use, and cached on disk.

The SB3 ``VecEnv``s over the engines are in :mod:`schnauz_env.vector` (floor 3:
``SchnauzVecEnv``, ``ScatVecEnv``, ``ThirteenVecEnv``); ``schnauz_env.batched.SchnauzVecEnv``
still finds the first, with a ``DeprecationWarning``, for one version.
"""

from __future__ import annotations

import warnings
from importlib import import_module
from typing import Any

__all__ = ["BatchedScat", "BatchedSchnauz", "BatchedThirteen", "reference_decks"]


def __getattr__(name: str) -> Any:
    if name in ("BatchedSchnauz", "reference_decks"):
        from schnauz_env.batched import schnauz

        return getattr(schnauz, name)
    if name == "BatchedScat":
        from schnauz_env.batched.scat import BatchedScat

        return BatchedScat
    if name == "BatchedThirteen":
        from schnauz_env.batched.thirteen import BatchedThirteen

        return BatchedThirteen
    if name == "SchnauzVecEnv":
        warnings.warn(
            "schnauz_env.batched.SchnauzVecEnv is deprecated: import SchnauzVecEnv from "
            "schnauz_env.vector",
            DeprecationWarning,
            stacklevel=2,
        )
        # imported by name at run time: the VecEnv is a floor above the engines
        return import_module("schnauz_env.vector.schnauz").SchnauzVecEnv
    raise AttributeError(f"module 'schnauz_env.batched' has no attribute {name!r}")
