"""What the compiled players share (:mod:`policies.expert_jit`, :mod:`policies.scat_expert_jit`,
:mod:`policies.thirteen_expert_jit`).

* :class:`KernelSet`: a module's kernels and the helpers they call, rebound to their
  numba versions the first time a player needs them (importing :mod:`policies` stays
  cheap, and without numba they stay plain Python);
* :func:`record`: a one-element numpy record array, how the kernels take their
  parameters and the observation layout (fields read by name; :func:`params_dtype`,
  :func:`layout_dtype`, :func:`observation_record`);
* :func:`check_rows` and :func:`check_masks`: a batch of observations and action masks
  as the kernels take them, or a ``ValueError`` that says what was expected;
* :class:`CompiledExpert`: what a compiled copy of an expert adds to it (``act``
  and ``act_batch`` on one compiled call, the tunables' record rebuilt only when one
  changed); :func:`takes_games` marks an ``act_batch`` that wants the games' indices.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

import numpy as np

_F = TypeVar("_F", bound=Callable[..., Any])


class KernelSet:
    """A module's kernels and the helpers they call, compiled once, on first use.

    Each is marked where it is defined, with :meth:`jit` (compiled as a function of its
    own: the kernels, and the helpers too large to inline) or :meth:`inline` (inlined
    into its callers at numba's IR level: the small hot helpers), and stays plain Python
    until :meth:`compile`. numba resolves a kernel's global names when it first compiles
    it, so :meth:`compile` rebinds every marked function in the module's ``namespace``
    before any kernel runs, together with the :mod:`schnauz_env.batched.jit` attributes
    named in ``jit_names`` (e.g. ``unmanaged``, whose plain stand-in the module defines).
    Plain helpers the module imports (by their own names, like :func:`first_legal`) are
    marked :meth:`inline` by passing them as ``inline_imports``.
    Without numba it only warns (once) how to install it, naming ``what``. Thread-safe:
    the first caller rebinds every name under a lock, and :attr:`compiled` turns true
    only once all of them are rebound (two threads wrapping the same helper twice failed:
    numba refuses to jit a jitted function).
    """

    def __init__(
        self,
        namespace: dict[str, Any],
        jit_names: Sequence[str] = (),
        what: str | None = None,
        inline_imports: Sequence[Callable[..., Any]] = (),
    ) -> None:
        self.namespace = namespace
        #: The marked functions' names, in the order they were marked.
        self.names: list[str] = []
        #: Those of them marked :meth:`inline`.
        self.inlined: set[str] = set()
        self.jit_names = tuple(jit_names)
        self.what = what
        self.compiled = False
        self._lock = threading.Lock()
        for function in inline_imports:
            self.inline(function)

    def jit(self, function: _F) -> _F:
        """Decorator: compile ``function`` as a function of its own (returned unchanged)."""
        self._mark(function.__name__)
        return function

    def inline(self, function: _F) -> _F:
        """Decorator: compile ``function`` inlined into its callers (returned unchanged)."""
        self._mark(function.__name__)
        self.inlined.add(function.__name__)
        return function

    def _mark(self, name: str) -> None:
        if self.compiled:
            raise RuntimeError(f"{name} is marked after its module's kernels were compiled")
        self.names.append(name)

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
                rebound[name] = jit.njit(g[name], inline=name in self.inlined)
            g.update(rebound)
            self.compiled = True


def first_legal(masks: np.ndarray, r: int) -> int:
    """The first legal action of row ``r`` of ``masks`` (-1: none). Plain Python, compiled
    inline by the modules that import it (:class:`KernelSet`'s ``inline_imports``)."""
    for a in range(masks.shape[1]):
        if masks[r, a]:
            return a
    return -1


def record(dtype: np.dtype, **values: Any) -> np.ndarray:
    """A one-element record array of ``dtype`` holding ``values``."""
    from schnauz_env.batched import jit

    rec = np.zeros(1, dtype=dtype)
    for name, value in values.items():
        rec[name][0] = value
    # numba types a plain structured array in about a microsecond, a recarray in eight;
    # the Python fallback reads the fields as attributes, which only a recarray's have.
    return rec if jit.HAVE_NUMBA else rec.view(np.recarray)


#: A tunable's record field type, by the type of its default (a tuple: an int64 array).
_FIELD_TYPES = {int: np.int64, float: np.float64, bool: np.bool_}


def params_dtype(defaults: Any, names: Iterable[str]) -> np.dtype:
    """The record of an expert's tunables ``names``, in order, each field typed by its
    default on ``defaults`` (the expert's class, or the dataclass of its parameters): an
    int is int64, a float float64, a bool bool, a tuple an int64 array as long;
    ``TypeError`` for any other type."""
    fields: list[tuple[Any, ...]] = []
    for name in names:
        default = getattr(defaults, name)
        if isinstance(default, tuple):
            fields.append((name, np.int64, (len(default),)))
        elif type(default) in _FIELD_TYPES:
            fields.append((name, _FIELD_TYPES[type(default)]))
        else:
            raise TypeError(f"{name} ({type(default).__name__}) has no record field type")
    return np.dtype(fields, align=True)


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


class CompiledExpert:
    """A mixin for the compiled copy of an expert, put before the reference expert (or
    :class:`~policies.base.Policy`) in the bases.

    :meth:`act_batch` checks the rows, asks :meth:`_turns` for each row's turn of the
    round (none by default: Scat's and Thirteen's experts keep no state between moves;
    Schnauz's counts each seat's turns), checks the masks, and makes one compiled call,
    :meth:`_decide`.

    A subclass sets :attr:`num_actions`, :attr:`rows_what` (what of the config decides
    the observation's size, for the error) and :attr:`no_action` (the error when a row has
    no legal action), keeps its layout record and observation size (:meth:`_compiled_init`
    does, and builds the record of the tunables read off the instance by the names of the
    fields of :attr:`param_record`), and writes the compiled call in :meth:`_decide`.
    """

    #: The record of the tunables of an expert (a function of the expert).
    param_record: Callable[[Any], np.ndarray]
    num_actions: int
    no_action = "an action mask is empty: there is no legal action to choose"

    def _compiled_init(self, lay: np.ndarray) -> None:
        """Keep the layout record ``lay`` and the observation size, and build the
        tunables' record."""
        self._lay = lay
        self._size = int(lay["obs_size"][0])
        self._params_rec = type(self).param_record(self)
        self._param_names: tuple[str, ...] = self._params_rec.dtype.names
        self._params_key = tuple(getattr(self, name) for name in self._param_names)

    @property
    def rows_what(self) -> str:
        """What of the config decides the observation's size (named in the error)."""
        return "the observation"

    def _params(self) -> np.ndarray:
        """:attr:`param_record` of the tunables as they are now (rebuilt when one changed)."""
        key = tuple(getattr(self, name) for name in self._param_names)
        if key != self._params_key:
            self._params_key, self._params_rec = key, type(self).param_record(self)
        return self._params_rec

    def _turns(self, obs: np.ndarray, games: np.ndarray | None) -> np.ndarray | None:
        """Each checked row's turn of the round, for :meth:`_decide`; ``games`` is
        :meth:`act_batch`'s. None: the expert keeps no state between moves."""
        return None

    def _decide(
        self, obs: np.ndarray, masks: np.ndarray, turns: np.ndarray | None, actions: np.ndarray
    ) -> None:
        """Write the moves of the checked rows ``obs`` and ``masks`` (on their ``turns``
        of :meth:`_turns`) into ``actions`` (-1 where a row has no legal action): the
        compiled call."""
        raise NotImplementedError

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """The move of one observation: :meth:`act_batch` on a batch of one."""
        return int(self.act_batch(np.asarray(observation)[None], np.asarray(action_mask)[None])[0])

    def act_batch(
        self,
        observations: np.ndarray,
        action_masks: np.ndarray,
        games: np.ndarray | None = None,
    ) -> np.ndarray:
        """Moves for ``(B, obs)`` observations and ``(B, actions)`` masks in one compiled
        call: the reference's moves on the same rows in order (drawing from the policy's
        generator if the reference draws). ``games`` (one index per row, for the VecEnvs'
        per-game opponents) goes to :meth:`_turns`: an expert that keeps no state between
        moves does not need it."""
        obs = self._rows(observations)
        return self._moves(obs, action_masks, self._turns(obs, games))

    def _rows(self, observations: np.ndarray) -> np.ndarray:
        """``observations`` checked (:func:`check_rows`)."""
        return check_rows(observations, self._size, self.rows_what)

    def _moves(
        self, obs: np.ndarray, action_masks: np.ndarray, turns: np.ndarray | None
    ) -> np.ndarray:
        """The moves of the checked rows ``obs`` on their ``turns``: :meth:`_decide` on the
        checked masks; ``ValueError`` (:attr:`no_action`) if a row has no legal action."""
        masks = check_masks(action_masks, obs.shape[0], self.num_actions)
        actions = np.zeros(obs.shape[0], dtype=np.int64)
        if obs.shape[0] == 0:
            return actions
        self._decide(obs, masks, turns, actions)
        if (actions < 0).any():
            raise ValueError(self.no_action)
        return actions


def takes_games(act_batch: _F) -> _F:
    """``act_batch`` marked ``per_game`` for a subclass whose :meth:`CompiledExpert._turns`
    reads the games' indices: the VecEnvs and :class:`policies.pool.OpponentPool` then pass
    them, and read the mark off the bound method."""

    @functools.wraps(act_batch)
    def per_game_act_batch(self: Any, *args: Any, **kwargs: Any) -> Any:
        return act_batch(self, *args, **kwargs)

    per_game_act_batch.per_game = True  # type: ignore[attr-defined]
    return per_game_act_batch  # type: ignore[return-value]
