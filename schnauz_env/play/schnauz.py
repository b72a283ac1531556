"""The Schnauz screen: three table cards, every seat's lives and public cards, your hand
with its value, and a menu of your legal moves named by the engine."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from schnauz_env.play.common import (
    Move,
    Screen,
    cards_text,
    lives_text,
    seat_grid,
)
from schnauz_env.schnauz.engine import (
    DEALER_CHOICE,
    EXCHANGE,
    FINAL_CIRCLE,
    KEEP,
    KNOCK,
    PASS,
    PHASE_NAMES,
    SWAP_ALL,
    SWAP_BASE,
    RoundResult,
    SchnauzState,
)
from schnauz_env.schnauz.hands import hand_label

_REASONS = {
    "knock": "after a knock",
    "instant": "Fire or Schnauz ends the round at once",
    "short_stock": "everyone passed and the stock ran short",
    "turn_limit": "the turn limit was reached",
}


class SchnauzScreen(Screen):
    game = "Schnauz"
    fixed_keys = {
        "k": (KNOCK, "knock"),
        "p": (PASS, "pass"),
        "a": (SWAP_ALL, "swap all"),
        "x": (EXCHANGE, "exchange"),
        "c": (KEEP, "keep"),
    }

    def header(self, state: SchnauzState) -> Text:
        deck = f" · deck {state.config.deck}"
        if state.game_over:
            rounds = "round" if state.round == 1 else "rounds"
            return Text.assemble(
                ("Schnauz", "bold"), f"{deck} · game over after {state.round} {rounds}"
            )
        return Text.assemble(
            ("Schnauz", "bold"),
            f"{deck} · round {state.round + 1} · {PHASE_NAMES[state.phase]} · "
            f"stock {state.stock_size} cards",
        )

    def table(self, state: SchnauzState) -> RenderableType:
        me = self.seat
        grid = seat_grid()
        for col in ("", "seat", "player", "hand", "lives", ""):
            grid.add_column(col)
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
                    hand.append(f"  {hand_label(state.hands[s])}", style="bold green")
                lives = lives_text(state.lives[s], "swimming")
            grid.add_row(
                Text("▶" if acting else " ", style="bold yellow"),
                str(s),
                Text(self.names[s], style="bold" if s == me else ""),
                hand,
                lives,
                Text(" ").join(notes),
            )
        if state.table:
            table_line = Text("Table: ", style="bold").append_text(cards_text(state.table))
        else:
            table_line = Text(
                "Table: face down until the dealer chooses keep or exchange", style="bold"
            )
        lines: list[RenderableType] = [table_line]
        if state.out_of_play:
            lines.append(
                Text("Out of play: ", style="dim").append_text(cards_text(state.out_of_play))
            )
        if state.phase == FINAL_CIRCLE and state.knocker is not None:
            lines.append(
                Text(
                    f"{self.subject(state.knocker)} knocked: everyone else has one more turn.",
                    style="red",
                )
            )
        return Group(*lines, Text(""), grid)

    def _after(self, state: SchnauzState, action: int) -> Text:
        """The value of your hand after ``action`` (played on a copy by the engine)."""
        copy = state.clone()
        result = copy.apply(action)
        hand = result.hands[self.seat] if result is not None else copy.hands[self.seat]
        note = Text(f"→ {hand_label(hand)}")
        if result is not None:
            note.append("  ends the round!", style="bold green")
        return note

    def moves(self, state: SchnauzState) -> list[Move]:
        legal = state.legal_actions()
        moves: list[Move] = []
        number = 1
        if state.phase == DEALER_CHOICE:
            hand = hand_label(state.hands[self.seat])
            for a, key, note in (
                (KEEP, "c", f"keep your hand ({hand}); three stock cards go face up"),
                (EXCHANGE, "x", "your hand goes face up; you take three stock cards"),
            ):
                if a in legal:
                    moves.append(Move((str(number), key), state.action_to_string(a), (a,), note))
                    number += 1
            return moves
        for a in legal:
            if SWAP_BASE <= a < SWAP_ALL:
                moves.append(
                    Move(
                        (str(number),), state.action_to_string(a, True), (a,), self._after(state, a)
                    )
                )
                number += 1
        for a, key in ((SWAP_ALL, "a"), (PASS, "p"), (KNOCK, "k")):
            if a in legal:
                note: Text | str = ""
                if a == SWAP_ALL:
                    note = self._after(state, a)
                elif a == KNOCK:
                    note = "the others get one more turn, then the showdown"
                moves.append(Move((str(number), key), state.action_to_string(a, True), (a,), note))
                number += 1
        return moves

    def help_line(self, state: SchnauzState) -> str:
        return "Type a move's number or letter; q quits."

    def results(self, result: RoundResult, state: SchnauzState) -> RenderableType:
        grid = Table(box=None, padding=(0, 1), header_style="dim")
        for col in ("seat", "player", "hand", "value", "outcome"):
            grid.add_column(col)
        for s, cards in result.hands.items():
            outcome = Text("")
            if s in result.went_out:
                outcome = Text("goes out", style="bold red")
            elif s in result.losers:
                left = result.lives_after[s]
                outcome = Text(
                    "loses a life, now swimming" if left == 0 else f"loses a life ({left} left)",
                    style="bold red",
                )
            if s == result.knocker:
                outcome.append("  (knocked)", style="dim")
            if s == result.fire_holder:
                outcome.append("  Fire!", style="bold yellow")
            grid.add_row(
                str(s),
                Text(self.names[s], style="bold" if s == self.seat else ""),
                cards_text(cards),
                Text(result.labels[s], style="bold"),
                outcome,
            )
        parts: list[RenderableType] = [grid]
        for k, deal in enumerate(result.replays):
            hands = "; ".join(f"{self.who(int(s))}: {' '.join(c)}" for s, c in deal.items())
            parts.append(Text(f"replay deal {k + 1} (nobody may be left): {hands}", style="dim"))
        if result.turn_limit_reached:
            parts.append(Text("The round reached the turn limit.", style="yellow"))
        title = (
            f"Showdown · round {result.round + 1} · {_REASONS.get(result.reason, result.reason)}"
        )
        return Panel(Group(*parts), title=title, title_align="left", border_style="yellow")

    def why_not(self, state: SchnauzState, action: int) -> str:
        if state.phase == DEALER_CHOICE:
            return "the dealer chooses keep or exchange first"
        if action in (KEEP, EXCHANGE):
            return "only the dealer chooses, at the start of a round"
        if action == KNOCK and state.phase == FINAL_CIRCLE:
            return "someone has already knocked this round"
        if action == KNOCK:
            return "no knocking until everyone has had a turn"
        return ""
