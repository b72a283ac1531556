"""Many Schnauz games stepped at once, in numba kernels over arrays (floor 2).

    from schnauz_env.batched.schnauz import BatchedSchnauz

:class:`BatchedSchnauz` (in :mod:`.engine`) is the engine's API. The kernels behind it
are split by what they do, each taking every rule fact from the rules floor
(:mod:`schnauz_env.schnauz`, :mod:`schnauz_env.common.places`):

=============  ======================================================================
module         holds
=============  ======================================================================
``state``      where the arrays keep things: ``State``, the ``C_*``, ``F_*``, ``O_*``
               and ``L_*`` fields
``rules``      deal, move, showdown and rewards of one game (the reference engine's
               twin)
``encode``     the action mask and the observation of one game
``greedy``     the greedy player's move (plain Python; ``GreedyPolicy`` calls it too)
``bots``       the built-in opponents: random, and greedy compiled
``loop``       the compiled loops over games (``k_*``), the VecEnv's loop included
``engine``     :class:`BatchedSchnauz`, :func:`reference_decks`
=============  ======================================================================

Imported lazily: importing this package (or :mod:`.greedy`, :mod:`.state`) compiles
and imports nothing from numba; :class:`BatchedSchnauz` does.
"""

from __future__ import annotations

from typing import Any

__all__ = ["HAVE_NUMBA", "REPLAY_SLOTS", "BatchedSchnauz", "key_table", "reference_decks"]


def __getattr__(name: str) -> Any:
    if name in __all__ or name == "rounds_bound":
        from schnauz_env.batched.schnauz import engine

        return getattr(engine, name)
    raise AttributeError(f"module 'schnauz_env.batched.schnauz' has no attribute {name!r}")
