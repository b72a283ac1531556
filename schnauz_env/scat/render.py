"""Text rendering of a Scat table (``render_mode="ansi"`` / ``"human"``)."""

from __future__ import annotations

from schnauz_env.cards import format_cards
from schnauz_env.scat.engine import DISCARD, PHASE_NAMES, ScatState


def seat_status(state: ScatState, seat: int) -> str:
    if state.out[seat]:
        return "out"
    if state.lives[seat] == 0:
        return "on the bus"
    return f"{state.lives[seat]} {'life' if state.lives[seat] == 1 else 'lives'}"


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
    for s in range(state.n):
        marks = []
        if s == state.dealer:
            marks.append("dealer")
        if s == state.knocker:
            marks.append("knocked")
        acting = s == state.current and not state.game_over
        if acting:
            marks.append("to act")
        if state.out[s]:
            hand = "-"
        elif seat is None or s == seat:
            hand = format_cards(state.hands[s], symbols)
        else:
            known = [c for c in state.hands[s] if c in state.known[s]]
            hidden = len(state.hands[s]) - len(known)
            hand = " ".join([format_cards(known, symbols)] * bool(known) + ["??"] * hidden)
        lines.append(
            f"  {'>' if acting else ' '} seat {s}: {hand:<{width}} "
            f"{seat_status(state, s):<10} {' '.join(marks)}".rstrip()
        )
    if state.game_over:
        lines.append("  game over")
    return "\n".join(lines)
