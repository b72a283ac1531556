"""Many tables at once, with bounded memory: the server's store of live objects.

A :class:`Store` keeps the tables (or the loaded replays) of the server under ids that
nobody can guess (:func:`secrets.token_urlsafe`, 128 bits). An object idle for longer
than ``idle_seconds`` expires: it is dropped at the next look at the store, and its id
is remembered for a while so that a late request hears "expired" rather than "unknown".
At most ``max_items`` live at once; one more is refused (HTTP 503) until one expires or
is closed. Every method is thread-safe: the server runs requests in a thread pool.
"""

from __future__ import annotations

import re
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

from schnauz_env.web.errors import ApiError

T = TypeVar("T")

#: What an id looks like (``token_urlsafe``'s alphabet); anything else is refused unread.
ID_PATTERN = re.compile(r"[A-Za-z0-9_-]{16,64}")
#: Bytes of randomness in an id (22 characters).
ID_BYTES = 16
#: How many expired ids are remembered (to answer "expired" instead of "unknown").
REMEMBER_EXPIRED = 10_000


@dataclass
class _Entry(Generic[T]):
    item: T
    used: float


class Store(Generic[T]):
    """Live objects of one ``kind`` (``"table"``, ``"replay"``) under unguessable ids."""

    def __init__(
        self,
        kind: str,
        max_items: int,
        idle_seconds: float,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if max_items < 1:
            raise ValueError(f"max_items must be >= 1, got {max_items}")
        if idle_seconds <= 0:
            raise ValueError(f"idle_seconds must be > 0, got {idle_seconds}")
        self.kind = kind
        self.max_items = max_items
        self.idle_seconds = idle_seconds
        self.clock = clock
        self._items: dict[str, _Entry[T]] = {}
        self._expired: OrderedDict[str, None] = OrderedDict()
        self._lock = threading.Lock()
        #: How many objects were ever added (for the load benchmark and the log).
        self.created = 0

    def __len__(self) -> int:
        with self._lock:
            self._sweep()
            return len(self._items)

    def check_room(self) -> None:
        """503 if the store is full (after dropping what expired)."""
        with self._lock:
            self._check_room()

    def _check_room(self) -> None:
        self._sweep()
        if len(self._items) >= self.max_items:
            raise ApiError(
                503,
                f"too_many_{self.kind}s",
                f"the server holds its maximum of {self.max_items} {self.kind}s; "
                "try again when one has expired or been closed",
            )

    def add(self, item: T) -> str:
        """Keep ``item`` and return its new id; 503 when the store is full."""
        with self._lock:
            self._check_room()
            key = secrets.token_urlsafe(ID_BYTES)
            while key in self._items:  # never in practice: 2**128 ids
                key = secrets.token_urlsafe(ID_BYTES)
            self._items[key] = _Entry(item, self.clock())
            self.created += 1
            return key

    def get(self, key: str) -> T:
        """The object with id ``key`` (its idle time starts again); 404 for an id that
        never was, 410 for one that expired or was closed."""
        if not isinstance(key, str) or not ID_PATTERN.fullmatch(key):
            raise ApiError(404, f"unknown_{self.kind}", f"no {self.kind} has id {key!r}")
        with self._lock:
            self._sweep()
            entry = self._items.get(key)
            if entry is None:
                if key in self._expired:
                    raise ApiError(
                        410,
                        f"expired_{self.kind}",
                        f"{self.kind} {key} has expired or was closed (idle {self.kind}s "
                        f"are dropped after {self.idle_seconds:g} s)",
                    )
                raise ApiError(404, f"unknown_{self.kind}", f"no {self.kind} has id {key}")
            entry.used = self.clock()
            return entry.item

    def remove(self, key: str) -> None:
        """Close the object ``key`` (404/410 as :meth:`get` when there is none)."""
        self.get(key)
        with self._lock:
            if self._items.pop(key, None) is not None:
                self._forget(key)

    def sweep(self) -> int:
        """Drop the expired objects now; returns how many live on."""
        with self._lock:
            self._sweep()
            return len(self._items)

    def _sweep(self) -> None:
        now = self.clock()
        old = [k for k, e in self._items.items() if now - e.used > self.idle_seconds]
        for key in old:
            del self._items[key]
            self._forget(key)

    def _forget(self, key: str) -> None:
        self._expired[key] = None
        while len(self._expired) > REMEMBER_EXPIRED:
            self._expired.popitem(last=False)


__all__ = ["ID_PATTERN", "Store"]
