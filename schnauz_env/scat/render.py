"""Text rendering of a Scat table (``render_mode="ansi"`` / ``"human"``)."""

from __future__ import annotations

from schnauz_env.cards import format_cards
from schnauz_env.common.text import seat_lines
from schnauz_env.scat.engine import DISCARD, PHASE_NAMES, ScatState


def render_text(state: ScatState, seat: int | None = None, symbols: bool = True) -> str:
    """The table as text. ``seat=None`` shows every hand (a spectator's view); a seat
    number hides the other hands except the cards that seat saw them draw."""
    cfg = state.config
    variant = "four-card Scat" if cfg.four_card else "Scat"
    step = " (discard)" if state.step == DISCARD and not state.game_over else ""
    lines = [
        f"{variant}, round {state.round + 1}, phase: {PHASE_NAMES[state.phase]}{step}, "
        f"stock: {state.stock_size} cards"
    ]
    pile = state.pile
    if pile:
        shown = format_cards(pile[-8:], symbols)
        more = f" (+{len(pile) - 8} below)" if len(pile) > 8 else ""
        lines.append(f"  discard pile (top last): {shown}{more}")
    width = 3 * (cfg.hand_size + 1) + cfg.hand_size + 2
    lines += seat_lines(state, seat, symbols, "on the bus", hand_width=width, status_width=10)
    if state.game_over:
        lines.append("  game over")
    return "\n".join(lines)
