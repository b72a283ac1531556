"""Plain text the games' ``render_text`` functions share (``render_mode="ansi"``)."""

from __future__ import annotations

from schnauz_env.cards import format_card
from schnauz_env.common.engine import LivesState


def lives_status(lives: int, out: bool, zero: str) -> str:
    """``"out"``, ``zero`` (the name of having no lives left: ``"swimming"``, ``"on the
    bus"``) or ``"2 lives"``."""
    if out:
        return "out"
    if lives == 0:
        return zero
    return f"{lives} {'life' if lives == 1 else 'lives'}"


def seat_lines(
    state: LivesState,
    seat: int | None,
    symbols: bool,
    zero: str,
    hand_width: int,
    status_width: int,
) -> list[str]:
    """One line per seat of a game of lives (Schnauz, Scat): ``>`` for the player to
    act, the hand as ``seat`` sees it (``??`` for a card it cannot see, ``-`` when
    out), the lives and the dealer / knocker / to-act marks."""
    lines = []
    for s in range(state.n):
        marks = []
        if s == state.dealer:
            marks.append("dealer")
        if s == state.knocker:  # type: ignore[attr-defined]
            marks.append("knocked")
        acting = s == state.current and not state.game_over
        if acting:
            marks.append("to act")
        if state.out[s]:
            hand = "-"
        else:
            hand = " ".join(
                "??" if c is None else format_card(c, symbols) for c in state.visible_hand(s, seat)
            )
        status = lives_status(state.lives[s], state.out[s], zero)
        lines.append(
            f"  {'>' if acting else ' '} seat {s}: {hand:<{hand_width}} "
            f"{status:<{status_width}} {' '.join(marks)}".rstrip()
        )
    return lines
