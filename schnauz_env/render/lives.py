"""What the pictures of the games of lives (Schnauz, Scat) share: a seat with its lives
as tokens, and the winner once the game is over."""

from __future__ import annotations

from collections.abc import Sequence

from schnauz_env.common.engine import LivesState
from schnauz_env.render.table import BLUE, KNOCK, TEXT, Canvas, Seat


def lives_seat(
    state: LivesState, s: int, seat: int | None, names: Sequence[str], zero: str
) -> Seat:
    """Seat ``s`` as ``seat`` sees it: its hand, lives as tokens (``zero``, in blue, with
    none left: ``"swimming"``, ``"on the bus"``), the dealer and knocker badges."""
    badges = []
    if s == state.dealer and not state.out[s]:
        badges.append(("dealer", (70, 70, 80)))
    if s == state.knocker and not state.game_over:  # type: ignore[attr-defined]
        badges.append(("knocked", KNOCK))
    if state.out[s]:
        status, tokens, color = "out", 0, None
    elif state.lives[s] == 0:
        status, tokens, color = zero, 0, BLUE
    else:
        status, tokens, color = "lives", state.lives[s], None
    return Seat(
        seat=s,
        title=names[s] + (" (you)" if s == seat else ""),
        cards=[] if state.out[s] else state.visible_hand(s, seat),
        status=status,
        tokens=tokens,
        status_color=color,
        badges=badges,
        acting=s == state.current and not state.game_over,
        dim=state.out[s],
    )


def draw_winner(
    canvas: Canvas, state: LivesState, names: Sequence[str], xy: tuple[int, int]
) -> None:
    """``"Game over: <winner> wins"`` at ``xy`` (without a name if nobody has place 1)."""
    winner = next((s for s in range(state.n) if state.places[s] == 1.0), None)
    text = "Game over" + (f": {names[winner]} wins" if winner is not None else "")
    canvas.text(xy, text, 26, TEXT, anchor="mm")
