"""The picture of a Schnauz table (``render_mode="rgb_array"``): three table cards in
the middle, every seat's hand, lives as tokens, the dealer, the knocker and the player
to act. Drawn with the toolkit in :mod:`schnauz_env.render`; Pillow is imported here, so
the env imports this module only when a picture is drawn.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from schnauz_env.cards import format_cards
from schnauz_env.render import SHAPE, check_seat, seat_names
from schnauz_env.render.lives import draw_winner, lives_seat
from schnauz_env.render.table import GREY, HEIGHT, MUTED, Canvas, seat_centres, view_label
from schnauz_env.schnauz.engine import DEALER_CHOICE, PHASE_NAMES, SchnauzState


def showdown_line(state: SchnauzState, names: Sequence[str]) -> str:
    """The last showdown in one line (who lost a life or went out, with what), or ``""``."""
    r = state.last_result
    if r is None:
        return ""
    parts = []
    for s in r.losers:
        what = "goes out" if s in r.went_out else "loses a life"
        parts.append(f"{names[s]} {what} ({format_cards(r.hands[s], True)}, {r.labels[s]})")
    return f"Last showdown, round {r.round + 1} ({r.reason}): " + "; ".join(parts)


def draw_state(
    state: SchnauzState, seat: int | None = None, names: Sequence[str] | None = None
) -> np.ndarray:
    """The Schnauz table (see the module docstring) as a :data:`~schnauz_env.render.SHAPE`
    uint8 array, from ``seat``'s view and with ``names``, as :mod:`schnauz_env.render` says."""
    phase = "game over" if state.game_over else PHASE_NAMES[state.phase]
    seat = check_seat(seat, state.n)
    n = state.n
    names = seat_names(names, n)
    canvas = Canvas()
    cfg = state.config
    second = f"phase: {phase}"
    if state.knocker is not None and not state.game_over:
        second += f" · {names[state.knocker]} knocked"
    canvas.header(
        [f"Schnauz · deck {cfg.deck} · round {state.round + 1}", second], view_label(seat)
    )

    centres = seat_centres(n, 0 if seat is None else seat)
    for s in range(n):
        canvas.seat(lives_seat(state, s, seat, names, "swimming"), centres[s])

    cx, cy = 480, 318
    if state.game_over:
        draw_winner(canvas, state, names, (cx, cy))
    else:
        canvas.text((cx, cy - 62), "table", 15, MUTED, anchor="mm")
        canvas.cards(state.table, (cx, cy), width=64, max_span=230, slots=3)
        if state.phase == DEALER_CHOICE:
            canvas.text(
                (cx, cy + 58), "the dealer chooses: keep or exchange", 14, MUTED, anchor="mm"
            )
        info = f"stock {state.stock_size}"
        if state.out_of_play:
            info += f" · out of play {len(state.out_of_play)}"
        canvas.text((cx, cy + 78), info, 14, MUTED, anchor="mm")
    line = showdown_line(state, names)
    if line:
        canvas.text((14, HEIGHT - 12), line, 14, GREY if state.game_over else MUTED, anchor="ld")
    return canvas.array()


__all__ = ["SHAPE", "draw_state"]
