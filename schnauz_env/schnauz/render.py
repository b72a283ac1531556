"""Text rendering of a Schnauz table (``render_mode="ansi"`` / ``"human"``)."""

from __future__ import annotations

from schnauz_env.cards import format_cards
from schnauz_env.schnauz.engine import PHASE_NAMES, SchnauzState


def seat_status(state: SchnauzState, seat: int) -> str:
    if state.out[seat]:
        return "out"
    if state.lives[seat] == 0:
        return "swimming"
    return f"{state.lives[seat]} {'life' if state.lives[seat] == 1 else 'lives'}"


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
    for s in range(state.n):
        marks = []
        if s == state.dealer:
            marks.append("dealer")
        if s == state.knocker:
            marks.append("knocked")
        if s == state.current and not state.game_over:
            marks.append("to act")
        if state.out[s]:
            hand = "-"
        elif seat is None or s == seat:
            hand = format_cards(state.hands[s], symbols)
        else:
            known = [c for c in state.hands[s] if c in state.known[s]]
            hand = " ".join(
                [format_cards(known, symbols)] * bool(known) + ["??"] * (3 - len(known))
            )
        lines.append(
            f"  {'>' if s == state.current and not state.game_over else ' '} seat {s}: "
            f"{hand:<14} {seat_status(state, s):<9} {' '.join(marks)}".rstrip()
        )
    if state.game_over:
        lines.append("  game over")
    return "\n".join(lines)
