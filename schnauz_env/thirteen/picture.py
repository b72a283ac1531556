"""The picture of a Thirteen table (``render_mode="rgb_array"``): the play to beat in
the middle, every seat's hand (the cards being selected raised), scores, passes and the
order of going out. Drawn with the toolkit in :mod:`schnauz_env.render`; Pillow is
imported here, so the env imports this module only when a picture is drawn.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from schnauz_env.render import SHAPE, check_seat, seat_names
from schnauz_env.render.table import (
    GREY,
    HEIGHT,
    MUTED,
    TEXT,
    Canvas,
    Seat,
    seat_centres,
    view_label,
)
from schnauz_env.thirteen.engine import ThirteenState

_ORDINALS = ("1st", "2nd", "3rd", "4th")


def draw_state(
    state: ThirteenState, seat: int | None = None, names: Sequence[str] | None = None
) -> np.ndarray:
    """A picture of a Thirteen game: the ``seat`` view (see :mod:`schnauz_env.render`)."""
    title = f"Thirteen · game {state.game + 1}"
    seat = check_seat(seat, state.n)
    n = state.n
    names = seat_names(names, n)
    cfg = state.config
    canvas = Canvas()
    if cfg.episode == "match":
        title += f" · match to {cfg.target_points}"
    if state.game_over:
        second = "game over"
    elif state.table_combo is None:
        second = f"the table is clear: {names[state.current]} leads"
    else:
        second = f"to beat: {state.table_combo.label} by {names[state.table_by]}"
    canvas.header([title, second], view_label(seat))

    centres = seat_centres(n, 0 if seat is None else seat, rx=330, ry=220)
    selecting = state.current if not state.game_over else None
    for s in range(n):
        hand = state.hands[s]
        open_hand = seat is None or s == seat
        cards: list[int | None] = list(hand) if open_hand else [None] * len(hand)
        raised: frozenset[int] = frozenset()
        if s == selecting and open_hand and state.selection:
            chosen = set(state.selection)
            raised = frozenset(i for i, c in enumerate(hand) if c in chosen)
        badges = []
        if s in state.finish_order:
            place = state.finish_order.index(s)
            badges.append((f"out {_ORDINALS[place]}", (40, 120, 180)))
        elif state.passed[s] and not state.game_over:
            badges.append(("passed", (90, 90, 100)))
        status = f"score {state.scores[s]} · {len(hand)} {'card' if len(hand) == 1 else 'cards'}"
        horizontal = abs(centres[s][0] - 480) < 200  # top and bottom seats have more room
        canvas.seat(
            Seat(
                seat=s,
                title=names[s] + (" (you)" if s == seat else ""),
                cards=cards,
                status=status,
                badges=badges,
                acting=s == state.current and not state.game_over,
                dim=not hand and not state.game_over,
                raised=raised,
            ),
            centres[s],
            width=44,
            max_span=330 if horizontal else 230,
        )

    cx, cy = 480, 318
    if state.game_over:
        order = ", ".join(names[s] for s in state.finish_order)
        canvas.text((cx, cy - 12), "Game over", 26, TEXT, anchor="mm")
        canvas.text((cx, cy + 20), f"out in order: {order}", 14, MUTED, anchor="mm")
    elif state.table:
        canvas.cards(state.table, (cx, cy), width=56, max_span=300)
        label = f"{state.table_combo.label} by {names[state.table_by]}" if state.table_combo else ""
        canvas.text((cx, cy + 52), label, 14, MUTED, anchor="mm")
    else:
        canvas.text((cx, cy), "the table is clear", 16, MUTED, anchor="mm")
    if state.undealt and seat is None:
        canvas.text((cx, cy + 72), f"undealt: {len(state.undealt)} cards", 13, GREY, anchor="mm")
    scores = "   ".join(f"{names[s]}: {state.scores[s]}" for s in range(n))
    canvas.text((14, HEIGHT - 12), f"Scores  {scores}", 14, MUTED, anchor="ld")
    return canvas.array()


__all__ = ["SHAPE", "draw_state"]
