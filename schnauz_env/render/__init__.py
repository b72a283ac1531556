"""Pictures of the table: ``render_mode="rgb_array"`` for every game of the package.

    from schnauz_env.render import draw_state

    frame = draw_state(env.unwrapped.game, seat=0)   # (640, 960, 3) uint8, seat 0's view

:func:`draw_state` draws any game's engine state (Schnauz, Scat, Thirteen) with
card faces drawn by the package (:mod:`schnauz_env.render.cards`). ``seat=None``
shows every hand open (a spectator's or a researcher's view); a seat number shows
what that player sees: their own hand, the face-up cards, the cards the others
are publicly known to hold, and the backs of the rest. Every picture has the
same shape, :data:`SHAPE`, so the frames of an episode make a video.

Pillow is an optional dependency (``pip install "schnauz_env[play]"``): it is
imported only when a picture is drawn.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from typing import Any

import numpy as np

#: ``(height, width, channels)`` of every picture.
SHAPE: tuple[int, int, int] = (640, 960, 3)


def draw_state(
    state: Any, seat: int | None = None, names: Sequence[str] | None = None
) -> np.ndarray:
    """A picture of ``state`` (any game's engine state) as a ``(640, 960, 3)`` uint8 array.

    ``seat`` chooses whose view is drawn (``None``: every hand open); ``names``
    optionally labels the seats (default ``"seat k"``).
    """
    game = type(state).__module__.split(".")[1]  # schnauz_env.<game>.engine
    if seat is not None and (
        isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < state.n
    ):
        raise ValueError(f"invalid seat {seat!r} to draw from: must be None or 0..{state.n - 1}")
    try:
        module = importlib.import_module(f"schnauz_env.render.{game}")
    except ModuleNotFoundError as err:
        if err.name == "PIL":
            raise ImportError(
                'drawing the table needs Pillow: pip install "schnauz_env[play]"'
            ) from err
        raise
    return module.draw_state(state, None if seat is None else int(seat), names)


__all__ = ["SHAPE", "draw_state"]
