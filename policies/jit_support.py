"""What the compiled players share (:mod:`policies.expert_jit`, :mod:`policies.scat_expert_jit`,
:mod:`policies.thirteen_expert_jit`).

* :class:`KernelSet`: a module's kernels and the helpers they call, rebound to their
  numba versions the first time a player needs them (importing :mod:`policies` stays
  cheap, and without numba they stay plain Python);
* :func:`record`: a one-element numpy record array, how the kernels take their
  parameters and the observation layout (fields read by name; :func:`layout_dtype`,
  :func:`observation_record`);
* :func:`check_rows` and :func:`check_masks`: a batch of observations and action masks
  as the kernels take them, or a ``ValueError`` that says what was expected.
"""

from __future__ import annotations

import threading
from collections.abc import Collection, Sequence
from typing import Any

import numpy as np


class KernelSet:
    """The functions ``names`` of a module's namespace, compiled once, on first use.

    numba resolves a kernel's global names when it first compiles it, so
    :meth:`compile` rebinds every helper in the namespace before any kernel runs (the
    ``inline`` ones inlined into their callers at numba's IR level), together with the
    :mod:`schnauz_env.batched.jit` attributes named in ``jit_names`` (e.g.
    ``unmanaged``, whose plain stand-in the module defines). Without numba it only warns
    (once) how to install it. Thread-safe: the first caller rebinds every name under a
    lock, and :attr:`compiled` turns true only once all of them are rebound (two threads
    wrapping the same helper twice failed: numba refuses to jit a jitted function).
    """

    def __init__(
        self,
        namespace: dict[str, Any],
        names: Sequence[str],
        inline: Collection[str] = (),
        jit_names: Sequence[str] = (),
        what: str | None = None,
    ) -> None:
        self.namespace = namespace
        self.names = tuple(names)
        self.inline = frozenset(inline)
        self.jit_names = tuple(jit_names)
        self.what = what
        self.compiled = False
        self._lock = threading.Lock()

    def compile(self) -> None:
        """Rebind the functions to their numba versions (once; see the class)."""
        if self.compiled:
            return
        with self._lock:
            if self.compiled:
                return
            from schnauz_env.batched import jit

            if self.what is None:
                jit.warn_if_slow()
            else:
                jit.warn_if_slow(self.what)
            g = self.namespace
            rebound = {name: getattr(jit, name) for name in self.jit_names}
            for name in self.names:
                rebound[name] = jit.njit(g[name], inline=name in self.inline)
            g.update(rebound)
            self.compiled = True


def record(dtype: np.dtype, **values: Any) -> np.ndarray:
    """A one-element record array of ``dtype`` holding ``values``."""
    from schnauz_env.batched import jit

    rec = np.zeros(1, dtype=dtype)
    for name, value in values.items():
        rec[name][0] = value
    # numba types a plain structured array in about a microsecond, a recarray in eight;
    # the Python fallback reads the fields as attributes, which only a recarray's have.
    return rec if jit.HAVE_NUMBA else rec.view(np.recarray)


def layout_dtype(blocks: Sequence[str], fields: Sequence[tuple[str, Any]]) -> np.dtype:
    """The record of an observation layout: where each of ``blocks`` starts and the
    observation's size ``obs_size`` (int64), then ``fields`` (``(name, dtype)`` pairs)."""
    starts = [(name, np.int64) for name in (*blocks, "obs_size")]
    return np.dtype(starts + list(fields), align=True)


def observation_record(dtype: np.dtype, layout: Any, **values: Any) -> np.ndarray:
    """The :func:`record` of ``dtype`` (a :func:`layout_dtype`) for ``layout`` (a
    :class:`~schnauz_env.common.layout.BlockLayout`): where its blocks start, its size,
    and ``values``."""
    s = layout.slices
    starts = {name: s[name].start for name in dtype.names if name in s}
    return record(dtype, **starts, obs_size=layout.size, **values)


def check_rows(observations: np.ndarray, size: int, what: str) -> np.ndarray:
    """``observations`` as a C-contiguous float32 ``(B, size)`` array; ``ValueError``
    (naming ``what`` of the config decides the size) for any other shape."""
    obs = np.ascontiguousarray(observations, dtype=np.float32)
    if obs.ndim != 2 or obs.shape[1] != size:
        raise ValueError(
            f"observations of shape {obs.shape} do not match this config "
            f"({what}: expected (B, {size}))"
        )
    return obs


def check_masks(action_masks: np.ndarray, rows: int, actions: int) -> np.ndarray:
    """``action_masks`` as a C-contiguous int8 ``(rows, actions)`` array, or ``ValueError``."""
    masks = np.ascontiguousarray(action_masks, dtype=np.int8)
    if masks.shape != (rows, actions):
        raise ValueError(f"action masks of shape {masks.shape}: expected ({rows}, {actions})")
    return masks
