"""The picture of a Scat table (``render_mode="rgb_array"``): the stock and the discard
pile in the middle, every seat's hand, lives as tokens, the dealer, the knocker and the
player to act. Drawn with the toolkit in :mod:`schnauz_env.render`; Pillow is imported
here, so the env imports this module only when a picture is drawn.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from schnauz_env.cards import format_cards
from schnauz_env.render import SHAPE, check_seat, seat_names
from schnauz_env.render.lives import draw_winner, lives_seat
from schnauz_env.render.table import GREY, HEIGHT, MUTED, Canvas, seat_centres, view_label
from schnauz_env.scat.engine import DISCARD, PHASE_NAMES, ScatState


def result_line(state: ScatState, names: Sequence[str]) -> str:
    """The last round's result in one line (who lost lives or went out), or ``""``."""
    r = state.last_result
    if r is None:
        return ""
    while r.then is not None:  # a deal blitz chained after it is the latest
        r = r.then
    parts = []
    for s, lost in sorted(r.losses.items()):
        what = "goes out" if s in r.went_out else f"loses {lost} {'life' if lost == 1 else 'lives'}"
        parts.append(f"{names[s]} {what} ({format_cards(r.hands[s], True)}, {r.labels[s]})")
    return f"Last round {r.round + 1} ({r.reason}): " + ("; ".join(parts) or "nobody loses")


def draw_state(
    state: ScatState, seat: int | None = None, names: Sequence[str] | None = None
) -> np.ndarray:
    """The Scat table, drawn as the module docstring says; ``seat`` and ``names`` as in
    :mod:`schnauz_env.render` (``None``: every hand open; default labels ``"seat k"``)."""
    variant = "four-card Scat" if state.config.four_card else "Scat"
    seat = check_seat(seat, state.n)
    n = state.n
    names = seat_names(names, n)
    canvas = Canvas()
    if state.game_over:
        second = "game over"
    else:
        step = "discard" if state.step == DISCARD else "draw"
        second = f"phase: {PHASE_NAMES[state.phase]} · {step}"
        if state.knocker is not None:
            second += f" · {names[state.knocker]} knocked"
    canvas.header([f"{variant} · round {state.round + 1}", second], view_label(seat))

    centres = seat_centres(n, 0 if seat is None else seat, rx=335, ry=215)
    for s in range(n):
        canvas.seat(
            lives_seat(state, s, seat, names, "on the bus"),
            centres[s],
            width=52 if n > 5 else 56,
            max_span=230,
        )

    cx, cy = 480, 318
    if state.game_over:
        draw_winner(canvas, state, names, (cx, cy))
    else:
        canvas.text((cx - 60, cy - 62), f"stock {state.stock_size}", 15, MUTED, anchor="mm")
        canvas.cards([None] if state.stock_size else [], (cx - 60, cy), width=64, slots=1)
        canvas.text((cx + 60, cy - 62), "discard pile", 15, MUTED, anchor="mm")
        canvas.cards(state.pile[-1:], (cx + 60, cy), width=64, slots=1)
        if len(state.pile) > 1:
            below = format_cards(state.pile[-4:-1][::-1], True)
            canvas.text((cx + 60, cy + 58), f"below: {below}", 13, MUTED, anchor="mm")
    line = result_line(state, names)
    if line:
        canvas.text((14, HEIGHT - 12), line, 14, GREY if state.game_over else MUTED, anchor="ld")
    return canvas.array()


__all__ = ["SHAPE", "draw_state"]
