"""Text rendering of a Thirteen table (``render_mode="ansi"`` / ``"human"``)."""

from __future__ import annotations

from schnauz_env.cards import format_cards
from schnauz_env.thirteen.combos import combo_label
from schnauz_env.thirteen.engine import DECLARE, ThirteenState


def _seat_status(state: ThirteenState, seat: int) -> str:
    if seat in state.finish_order:
        return f"out #{state.finish_order.index(seat) + 1}"
    if state.passed[seat]:
        return "passed"
    return ""


def render_text(state: ThirteenState, seat: int | None = None, symbols: bool = True) -> str:
    """The table as text. ``seat=None`` shows every hand (a spectator's view); a seat
    number shows only that seat's hand and the others' card counts."""
    cfg = state.config
    head = f"Thirteen, {cfg.num_players} players"
    if cfg.episode == "match":
        head += f", game {state.game + 1} of a match to {cfg.target_points}"
    lines = [head]
    if state.table:
        assert state.table_combo is not None
        lines.append(
            f"  to beat: {format_cards(state.table, symbols)} "
            f"({combo_label(state.table_combo)}, seat {state.table_by})"
        )
    elif not state.game_over:
        lines.append("  table clear: the player to act leads")
    if state.opening_card is not None:
        lines.append(f"  the first play must include {format_cards([state.opening_card], symbols)}")
    for s in range(state.n):
        to_act = s == state.current and not state.game_over
        if seat is None or s == seat:
            hand = format_cards(state.hands[s], symbols) or "-"
        else:
            hand = f"{len(state.hands[s])} cards"
        marks = [_seat_status(state, s)]
        if cfg.episode == "match":
            marks.append(f"{state.scores[s]} pts")
        if to_act and state.selection and (seat is None or s == seat):
            marks.append(f"selected: {format_cards(state.selection, symbols)}")
        if to_act and state.phase == DECLARE:
            marks.append("instant win")
        lines.append(
            f"  {'>' if to_act else ' '} seat {s}: {hand}  {' '.join(m for m in marks if m)}".rstrip()
        )
    if state.game_over:
        places = ", ".join(f"seat {s}: {p:g}" for s, p in enumerate(state.places))
        lines.append(f"  game over; places {places}")
    return "\n".join(lines)
