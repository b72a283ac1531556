"""numba when it is installed (``pip install schnauz_env[fast]``), plain Python when not.

Every compiled kernel of the project (the batched engines, the compiled players) is
compiled through this module::

    from schnauz_env.batched.jit import njit, unmanaged, unmanaged_fields, warn_if_slow

The kernels are written once, in the subset of Python that numba compiles. Without
numba (or with ``SCHNAUZ_ENV_NO_NUMBA=1``) :func:`njit` returns the function
unchanged, so the same code runs as ordinary Python: correct, about a thousand
times slower, and announced once with a warning that says how to install numba.

``njit`` compiles with ``cache=True``: numba keeps the machine code on disk and
checks only the source file of the function it compiled. A kernel that inlines or
calls code from another file (the rules floor's constants and functions, the helpers
of :mod:`schnauz_env.batched.common`) is therefore not recompiled when only that other
file changes; delete the ``__pycache__/*.nbi`` / ``*.nbc`` files after such an edit.
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


def _lock_cache_saves() -> None:
    """Make numba's on-disk cache safe for processes that compile at the same time.

    Several processes compile the same kernels at once whenever the cache is cold:
    ``schnauz-eval --workers``, a training run's opponent workers, the test suite's
    pytest-xdist workers. numba writes each cache file atomically, but saving a new
    signature reads the function's index, picks the first free data file
    ``<name>.N.nbc``, then writes the index and the data, with no lock
    (numba/numba#10128): two processes saving two signatures of one function at once
    (``unmanaged`` alone has about twenty) can both pick ``N``, and the index then names,
    for one signature, the other's machine code, which a later process loads and runs.
    Here a save holds a lock on the function's index file (``<index>.lock``), reads the
    index again under it, and writes the data before the index, so an index never names
    data of another signature or not yet written (tests/test_batched_jit.py races two
    processes). Applied once numba is imported here; where numba's private cache API is
    not the one this was written against (numba 0.59-0.68), or there is no ``fcntl``
    (Windows), saves stay numba's own.
    """
    try:
        import fcntl

        from numba.core.caching import IndexDataCacheFile
    except ImportError:
        return
    private = ("_load_index", "_save_index", "_save_data", "_data_name")
    if not all(hasattr(IndexDataCacheFile, name) for name in private):
        return

    def save(self: Any, key: Any, data: Any) -> None:
        with open(f"{self._index_path}.lock", "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            overloads = self._load_index()
            name = overloads.get(key)
            if name is None:
                taken = set(overloads.values())
                name = next(n for i in range(1, 1 << 20) if (n := self._data_name(i)) not in taken)
            self._save_data(name, data)
            if overloads.get(key) != name:
                overloads[key] = name
                self._save_index(overloads)

    IndexDataCacheFile.save = save


if _numba is not None:
    _lock_cache_saves()


def njit(
    fn: Callable[..., Any] | None = None,
    *,
    inline: bool = False,
    counted: bool = True,
    allocates: bool = False,
) -> Any:
    """``numba.njit(cache=True)`` if numba is available, else ``fn`` itself.

    ``inline=True`` inlines the function into its callers at numba's IR level, which
    removes the call and the array reference counting around it (small hot helpers).
    ``counted=False`` compiles it without numba's reference counting at all (numba's
    ``_nrt=False``): for a loop that only works on arrays its caller owns (unmanaged
    views, or arrays the caller keeps alive) and creates none, and takes them in named
    tuples, whose every field read would otherwise be counted.

    ``allocates=True`` is for a function that makes an array (``np.empty``, ...) and may
    be reached from such an uncounted loop: numba compiles a callee with its caller's
    counting unless the callee sets its own, and an array cannot be made uncounted, so
    the callee's compile would then fail, or not, by which caller compiled it first in
    the process (the uncounted VecEnv loop first, on an empty numba cache, failed).
    """

    def wrap(f: Callable[..., Any]) -> Callable[..., Any]:
        if _numba is None:
            return f
        options: dict[str, Any] = {"_nrt": True} if allocates else {}
        if not counted:
            options["_nrt"] = False
        return _numba.njit(cache=True, inline="always" if inline else "never", **options)(f)

    return wrap if fn is None else wrap(fn)


_jitable: set[int] = set()


def jitable(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Let compiled code call the plain Python function ``fn`` by its own name; return ``fn``.

    For the rules floor's functions, which import no numba (``may_knock``,
    ``place_value``, ``settle_places``, ...): after ``jitable(fn)`` a compiled kernel that
    calls ``fn`` (directly, or through another such function) compiles it with itself,
    while Python callers keep calling ``fn``. Without numba it does nothing. Idempotent.

    Never inlined at numba's IR level (``register_jitable(inline="always")``): numba
    0.68 then silently drops stores in other branches of the caller (numba issue #9778;
    here the dealer's choice stopped passing the turn). LLVM still inlines such small
    functions into their callers.
    """
    if _numba is not None and id(fn) not in _jitable:
        from numba.extending import register_jitable

        register_jitable(fn)
        _jitable.add(id(fn))
    return fn


if _numba is not None:
    from numba import types as _types
    from numba.core import cgutils as _cgutils
    from numba.extending import intrinsic as _intrinsic

    @_intrinsic
    def _voidptr(typingctx, address):  # type: ignore[no-untyped-def]
        def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
            return builder.inttoptr(args[0], _cgutils.voidptr_t)

        return _types.voidptr(address), codegen

    @_numba.njit(cache=True)
    def unmanaged(x):  # type: ignore[no-untyped-def]
        return _numba.carray(_voidptr(x.ctypes.data), x.shape, x.dtype)

else:

    def unmanaged(x):  # type: ignore[no-untyped-def]
        return x


def unmanaged_fields(t):  # type: ignore[no-untyped-def]
    """The named tuple ``t`` of C-contiguous arrays with every field re-viewed by
    :func:`unmanaged`: what a kernel does on entry with a state or buffers it takes whole.
    Compiled, one re-view a field, generated for each named tuple type."""
    return type(t)(*(unmanaged(x) for x in t))


if _numba is not None:
    from numba.extending import overload as _overload

    @_overload(unmanaged_fields)
    def _unmanaged_fields(t):  # type: ignore[no-untyped-def]
        if not isinstance(t, _types.BaseNamedTuple):
            return None
        fields = ", ".join(f"unmanaged(t[{i}])" for i in range(len(t)))
        scope = {"cls": t.instance_class, "unmanaged": unmanaged}
        exec(f"def impl(t):\n    return cls({fields})\n", scope)
        return scope["impl"]


unmanaged.__doc__ = """The same C-contiguous array, seen without numba's reference counting.

Every call of a compiled function that takes arrays counts references to them,
and those atomic counts cost about 15 ns a call: more than a Schnauz move. The
kernels therefore re-view their (caller-owned, C-contiguous) arguments as
unmanaged arrays once on entry, and the helpers they call count nothing.
"""


class SameTypes:
    """A kernel called with arguments of the same types every time: through numba's
    dispatcher once, then through the compiled entry point of that call's signature.

    The dispatcher types every argument of every call, and typing a named tuple of arrays
    costs some 10-30 µs (as much as stepping a hundred games); an engine or a VecEnv that
    always passes the same kinds of arrays (dtypes, dimensions, layouts) skips it; the
    caller answers for that, as the entry point does not look at the types again.
    Without numba the kernel is called as it is.
    """

    def __init__(self, kernel: Any) -> None:
        self.kernel = kernel
        self.call: Any = None

    def __call__(self, *args: Any) -> Any:
        if self.call is not None:
            return self.call(*args)
        out = self.kernel(*args)
        if HAVE_NUMBA:
            sig = tuple(self.kernel.typeof_pyval(a) for a in args)
            self.call = self.kernel.overloads[sig].entry_point
        else:
            self.call = self.kernel
        return out


_warned = False


def warn_if_slow(what: str = "the batched Schnauz engine") -> None:
    """Warn once per process that the kernels (of ``what``) run as plain Python."""
    global _warned
    if HAVE_NUMBA or _warned:
        return
    _warned = True
    warnings.warn(
        f"numba is not installed: {what} runs as plain Python, "
        f"roughly a thousand times slower. Install it with: {INSTALL_HINT}",
        RuntimeWarning,
        stacklevel=3,
    )
