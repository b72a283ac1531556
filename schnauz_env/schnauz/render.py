"""Text rendering of a Schnauz table (``render_mode="ansi"`` / ``"human"``)."""

from __future__ import annotations

from schnauz_env.cards import format_cards
from schnauz_env.common.text import seat_lines
from schnauz_env.schnauz.engine import PHASE_NAMES, SchnauzState


def render_text(state: SchnauzState, seat: int | None = None, symbols: bool = True) -> str:
    """The table as text. ``seat=None`` shows every hand (a spectator's view);
    a seat number hides the other hands except the cards that seat knows they hold."""
    lines = [
        f"Schnauz {state.config.deck}, round {state.round + 1}, "
        f"phase: {PHASE_NAMES[state.phase]}, stock: {state.stock_size} cards"
    ]
    table = (
        format_cards(state.table, symbols)
        if state.table
        else "(face down until the dealer chooses)"
    )
    lines.append(f"  table: {table}")
    if state.out_of_play:
        lines.append(f"  out of play: {format_cards(state.out_of_play, symbols)}")
    lines += seat_lines(state, seat, symbols, "swimming", hand_width=14, status_width=9)
    if state.game_over:
        lines.append("  game over")
    return "\n".join(lines)
