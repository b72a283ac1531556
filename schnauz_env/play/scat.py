"""The Scat screen: the discard pile and the stock, every seat's lives and the cards
it took from the pile, your hand with its value, and your legal moves."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.text import Text

from schnauz_env.play.common import LivesScreen, Move, card_text, cards_text
from schnauz_env.play.words import SCAT_REASONS, ZERO_LIVES, ZERO_MEANING, scat_outcome
from schnauz_env.scat.engine import (
    DISCARD,
    DISCARD_BASE,
    DRAW_DISCARD,
    DRAW_STOCK,
    FINAL_TURNS,
    KNOCK,
    PASS,
    RoundResult,
    ScatState,
)
from schnauz_env.scat.hands import hand_label


class ScatScreen(LivesScreen):
    game = "Scat"
    zero_lives = ZERO_LIVES["scat"]
    zero_meaning = ZERO_MEANING
    reasons = SCAT_REASONS
    fixed_keys = {
        "s": (DRAW_STOCK, "draw from the stock"),
        "d": (DRAW_DISCARD, "draw from the discard pile"),
        "k": (KNOCK, "knock"),
        "p": (PASS, "pass"),
    }

    def __init__(self, names, seat) -> None:
        super().__init__(names, seat)
        self._before_draw: list[int] | None = None  # your hand before you drew from the stock

    def title(self, state: ScatState) -> tuple[str, str]:
        return ("Four-card Scat" if state.config.four_card else "Scat"), ""

    def label_hand(self, state: ScatState, cards: list[int]) -> str:
        return hand_label(cards, state.config.trinca)

    def announce(self, state: ScatState, seat: int, action: int) -> str | None:
        if seat == self.seat:
            self._before_draw = list(state.hands[seat]) if action == DRAW_STOCK else None
        return state.action_to_string(action, symbols=True)

    def table(self, state: ScatState, compact: bool = False) -> RenderableType:
        me = self.seat
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
        return Group(*lines, *([] if compact else [Text("")]), self.seat_table(state))

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

    def results(self, result: RoundResult, state: ScatState) -> RenderableType:
        panels = [self._one_result(r) for r in result.chain()]
        return Group(*panels)

    def _one_result(self, result: RoundResult) -> RenderableType:
        outcomes = {}
        for s in result.hands:
            outcome = Text(
                scat_outcome(result, s),
                style="bold yellow" if s in result.bought_in else "bold red",
            )
            if s == result.knocker:
                outcome.append("  (knocked)", style="dim")
            if s in result.blitz_holders:
                outcome.append("  31!", style="bold yellow")
            outcomes[s] = outcome
        notes = self.why(result)
        notes += [
            Text(f"tie-break deal {k + 1}: {self.deal_text(deal)}", style="dim")
            for k, deal in enumerate(result.tie_break)
        ]
        return self.showdown(result, outcomes, notes)

    def why(self, result: RoundResult) -> list[Text]:
        """Why the round went as it did: a blitz (that may cut a knock short), a tie for
        the lowest value, the knocker safe on a tie or paying double."""
        notes = []
        k = result.knocker
        if result.blitz_holders:
            holder = result.blitz_holders[0]
            text = f"{self.possessive(holder).capitalize()} blitz ({result.labels[holder]})"
            if k is not None and result.reason == "blitz":
                text = f"{self.subject(k)} knocked, but {self.possessive(holder)} blitz ({result.labels[holder]})"
            notes.append(
                Text(
                    f"{text} ended the round at once: everyone else loses a life.",
                    style="yellow",
                )
            )
            return notes
        low = min(result.values.values())
        lowest = [s for s in result.hands if result.values[s] == low]
        if len(lowest) > 1:
            tied = " and ".join(self.who(s) for s in lowest)
            text = f"Tie for the lowest value ({tied}): Scat has no suit tie-breaks, so"
            if k in lowest:
                text += f" the knocker, {self.who(k)}, is safe and the others tied lose."
            else:
                text += " each of them loses."
            notes.append(Text(text, style="yellow"))
        elif k is not None and result.losses.get(k, 0) == 2:
            notes.append(
                Text(
                    f"{self.subject(k)} knocked and had the lowest hand: a knocker pays double.",
                    style="yellow",
                )
            )
        return notes
