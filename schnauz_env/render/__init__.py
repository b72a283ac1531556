"""The drawing toolkit behind ``render_mode="rgb_array"``: card faces, the table, lives.

This package knows no game. It draws cards (:mod:`schnauz_env.render.cards`), a
table with seats around it (:mod:`schnauz_env.render.table`) and the lives of the
games of lives (:mod:`schnauz_env.render.lives`); each game's own picture sits in
its package and is built from these pieces:

    from schnauz_env.schnauz.picture import draw_state

    frame = draw_state(env.unwrapped.game, seat=0)   # (640, 960, 3) uint8, seat 0's view

(also :mod:`schnauz_env.scat.picture` and :mod:`schnauz_env.thirteen.picture`).
``seat=None`` shows every hand open (a spectator's or a researcher's view); a seat
number shows what that player sees: their own hand, the face-up cards, the cards the
others are publicly known to hold, and the backs of the rest. Every picture has the
same shape, :data:`SHAPE`, so the frames of an episode make a video.

Pillow is an optional dependency (``pip install "schnauz_env[play]"``): this module
does not import it, and a game's env imports its picture module (which does) only
when a picture is drawn, inside :func:`pillow_required`.
"""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np

#: Width and height of every picture, in pixels.
WIDTH, HEIGHT = 960, 640
#: ``(height, width, channels)`` of every picture.
SHAPE: tuple[int, int, int] = (HEIGHT, WIDTH, 3)

#: What to install when Pillow is missing.
PILLOW_HINT = 'drawing the table needs Pillow: pip install "schnauz_env[play]"'


@contextmanager
def pillow_required() -> Iterator[None]:
    """Import a picture module inside this block: a missing Pillow becomes an
    ``ImportError`` that says what to install."""
    try:
        yield
    except ModuleNotFoundError as err:
        if err.name == "PIL":
            raise ImportError(PILLOW_HINT) from err
        raise


def check_seat(seat: Any, n: int) -> int | None:
    """``seat`` as the view to draw (``None``: every hand open), or ``ValueError``."""
    if seat is None:
        return None
    if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < n:
        raise ValueError(f"invalid seat {seat!r} to draw from: must be None or 0..{n - 1}")
    return int(seat)


def seat_names(names: Sequence[str] | None, n: int) -> list[str]:
    """The seats' labels of a picture: ``names``, or ``"seat k"``."""
    return list(names) if names is not None else [f"seat {s}" for s in range(n)]


def picture_drawer(module: str) -> Callable[..., np.ndarray]:
    """A game env's ``draw_state(state, seat=None, names=None)``: that of the picture
    module ``module`` (``"schnauz_env.<game>.picture"``), which it imports, and Pillow
    with it, only when a picture is drawn (inside :func:`pillow_required`)."""

    def draw_state(
        state: Any, seat: int | None = None, names: Sequence[str] | None = None
    ) -> np.ndarray:
        with pillow_required():
            picture = importlib.import_module(module)
        return picture.draw_state(state, seat, names)

    draw_state.__doc__ = (
        f"A picture of the table (:func:`{module}.draw_state`); Pillow and the picture "
        "module are imported only now, when a picture is drawn."
    )
    return draw_state


def draw_state(
    state: Any, seat: int | None = None, names: Sequence[str] | None = None
) -> np.ndarray:
    """Deprecated: use ``schnauz_env.<game>.picture.draw_state`` (e.g.
    :func:`schnauz_env.schnauz.picture.draw_state`), or ``env.render()``."""
    game = type(state).__module__.split(".")[1]  # schnauz_env.<game>.engine
    warnings.warn(
        "schnauz_env.render.draw_state is deprecated and will be removed in the next "
        f"version; use schnauz_env.{game}.picture.draw_state",
        DeprecationWarning,
        stacklevel=2,
    )
    check_seat(seat, state.n)
    with pillow_required():
        # by name: the toolkit sits below the games and imports none of them
        module = importlib.import_module(f"schnauz_env.{game}.picture")
    return module.draw_state(state, seat, names)


__all__ = [
    "HEIGHT",
    "PILLOW_HINT",
    "SHAPE",
    "WIDTH",
    "check_seat",
    "draw_state",
    "picture_drawer",
    "pillow_required",
    "seat_names",
]
