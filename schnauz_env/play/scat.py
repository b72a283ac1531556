"""The Scat screen: the discard pile and the stock, every seat's lives and the cards
it took from the pile, your hand with its value, and your legal moves."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from schnauz_env.play.common import Move, Screen, card_text, cards_text, lives_text, seat_grid
from schnauz_env.scat.engine import (
    DISCARD,
    DISCARD_BASE,
    DRAW_DISCARD,
    DRAW_STOCK,
    FINAL_TURNS,
    KNOCK,
    PASS,
    PHASE_NAMES,
    RoundResult,
    ScatState,
)
from schnauz_env.scat.hands import hand_label

_REASONS = {
    "blitz_deal": "31 right after the deal",
    "blitz": "Blitz: 31 in one suit",
    "knock": "after a knock",
    "empty_stock": "the stock is empty",
    "turn_limit": "the turn limit was reached",
}


class ScatScreen(Screen):
    game = "Scat"
    fixed_keys = {
        "s": (DRAW_STOCK, "draw from the stock"),
        "d": (DRAW_DISCARD, "draw from the discard pile"),
        "k": (KNOCK, "knock"),
        "p": (PASS, "pass"),
    }

    def __init__(self, names, seat) -> None:
        super().__init__(names, seat)
        self._before_draw: list[int] | None = None  # your hand before you drew from the stock

    def header(self, state: ScatState) -> Text:
        variant = "Four-card Scat" if state.config.four_card else "Scat"
        if state.game_over:
            rounds = "round" if state.round == 1 else "rounds"
            return Text.assemble((variant, "bold"), f" · game over after {state.round} {rounds}")
        return Text.assemble(
            (variant, "bold"),
            f" · round {state.round + 1} · {PHASE_NAMES[state.phase]} · "
            f"stock {state.stock_size} cards",
        )

    def announce(self, state: ScatState, seat: int, action: int) -> str | None:
        if seat == self.seat:
            self._before_draw = list(state.hands[seat]) if action == DRAW_STOCK else None
        return state.action_to_string(action, symbols=True)

    def table(self, state: ScatState) -> RenderableType:
        me = self.seat
        grid = seat_grid()
        for col in ("", "seat", "player", "hand", "lives", ""):
            grid.add_column(col)
        bus = state.on_the_bus
        for s in range(state.n):
            acting = s == state.current and not state.game_over
            notes = []
            if s == state.dealer and not state.out[s]:
                notes.append(Text("dealer", style="bold magenta"))
            if s == state.knocker:
                notes.append(Text("knocked", style="bold red"))
            if acting:
                notes.append(Text("to act", style="bold yellow"))
            if state.out[s]:
                hand, lives = Text("-", style="dim"), Text("out", style="dim")
            else:
                hand = cards_text(state.visible_hand(s, me))
                if s == me:
                    hand.append(
                        f"  {hand_label(state.hands[s], state.config.trinca)}", style="bold green"
                    )
                lives = lives_text(0 if bus[s] else state.lives[s], "on the bus")
            grid.add_row(
                Text("▶" if acting else " ", style="bold yellow"),
                str(s),
                Text(self.names[s], style="bold" if s == me else ""),
                hand,
                lives,
                Text(" ").join(notes),
            )
        pile = Text("Discard pile: ", style="bold")
        if state.pile:
            pile.append_text(card_text(state.pile[-1]))
            if len(state.pile) > 1:
                pile.append("   below: ", style="dim").append_text(
                    cards_text(state.pile[-4:-1][::-1])
                )
        else:
            pile.append("empty", style="dim")
        lines: list[RenderableType] = [pile]
        if state.phase == FINAL_TURNS and state.knocker is not None:
            lines.append(
                Text(
                    f"{self.subject(state.knocker)} knocked: everyone else has one final turn.",
                    style="red",
                )
            )
        if state.current == me and state.step == DISCARD and self._before_draw is not None:
            drawn = [c for c in state.hands[me] if c not in self._before_draw]
            lines.append(Text("You drew ").append_text(cards_text(drawn)))
        return Group(*lines, Text(""), grid)

    def moves(self, state: ScatState) -> list[Move]:
        legal = state.legal_actions()
        moves: list[Move] = []
        number = 1
        if state.step == DISCARD:
            hand = state.hands[self.seat]
            for a in legal:
                card = hand[a - DISCARD_BASE]
                rest = [c for c in hand if c != card]
                note = Text(f"→ keep {hand_label(rest, state.config.trinca)}")
                moves.append(Move((str(number),), state.action_to_string(a, True), (a,), note))
                number += 1
            return moves
        notes = {
            KNOCK: "the others get one final turn, then the showdown",
            PASS: "" if state.phase == FINAL_TURNS else "ends the round: the stock is empty",
        }
        for a, key in ((DRAW_STOCK, "s"), (DRAW_DISCARD, "d"), (KNOCK, "k"), (PASS, "p")):
            if a in legal:
                moves.append(
                    Move(
                        (str(number), key), state.action_to_string(a, True), (a,), notes.get(a, "")
                    )
                )
                number += 1
        return moves

    def why_not(self, state: ScatState, action: int) -> str:
        if state.step == DISCARD:
            return "you have drawn; now discard a card"
        if action == KNOCK and state.knocker is not None:
            return "someone has already knocked this round"
        if action == KNOCK:
            return "no knocking on your first turn of the round"
        if action == DRAW_STOCK:
            return "the stock is empty"
        if action == PASS:
            return "you may pass only after a knock or when the stock is empty"
        return ""

    def help_line(self, state: ScatState) -> str:
        return "Type a move's number or letter; q quits."

    def results(self, result: RoundResult, state: ScatState) -> RenderableType:
        panels = [self._one_result(r) for r in result.chain()]
        return Group(*panels)

    def _one_result(self, result: RoundResult) -> RenderableType:
        grid = Table(box=None, padding=(0, 1), header_style="dim")
        for col in ("seat", "player", "hand", "value", "outcome"):
            grid.add_column(col)
        for s, cards in result.hands.items():
            lost = result.losses.get(s, 0)
            outcome = Text("")
            if s in result.went_out:
                outcome = Text("goes out", style="bold red")
            elif s in result.bought_in:
                outcome = Text("buys back in with full lives", style="bold yellow")
            elif lost:
                left = result.lives_after[s]
                what = "a life" if lost == 1 else f"{lost} lives"
                outcome = Text(
                    f"loses {what}, now on the bus" if left == 0 else f"loses {what} ({left} left)",
                    style="bold red",
                )
            if s == result.knocker:
                outcome.append("  (knocked)", style="dim")
            if s in result.blitz_holders:
                outcome.append("  31!", style="bold yellow")
            grid.add_row(
                str(s),
                Text(self.names[s], style="bold" if s == self.seat else ""),
                cards_text(cards),
                Text(result.labels[s], style="bold"),
                outcome,
            )
        parts: list[RenderableType] = [grid]
        for k, deal in enumerate(result.tie_break):
            hands = "; ".join(f"{self.who(int(s))}: {' '.join(c)}" for s, c in deal.items())
            parts.append(Text(f"tie-break deal {k + 1}: {hands}", style="dim"))
        title = (
            f"Showdown · round {result.round + 1} · {_REASONS.get(result.reason, result.reason)}"
        )
        return Panel(Group(*parts), title=title, title_align="left", border_style="yellow")
