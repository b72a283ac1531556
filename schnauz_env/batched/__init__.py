"""Batched engines: many games stepped at once in arrays, and an SB3 VecEnv over them.

Imported lazily: ``import schnauz_env`` never imports numba or compiles anything.

    from schnauz_env.batched import BatchedSchnauz, SchnauzVecEnv

The kernels are compiled with numba when it is installed
(``pip install "schnauz_env[fast]"``), on first use, and cached on disk.
"""

from __future__ import annotations

from typing import Any

__all__ = ["BatchedScat", "BatchedSchnauz", "SchnauzVecEnv", "reference_decks"]


def __getattr__(name: str) -> Any:
    if name in ("BatchedSchnauz", "reference_decks"):
        from schnauz_env.batched import schnauz

        return getattr(schnauz, name)
    if name == "BatchedScat":
        from schnauz_env.batched.scat import BatchedScat

        return BatchedScat
    if name == "SchnauzVecEnv":
        from schnauz_env.batched.vec_env import SchnauzVecEnv

        return SchnauzVecEnv
    raise AttributeError(f"module 'schnauz_env.batched' has no attribute {name!r}")
