"""The Schnauz screen: three table cards, every seat's lives and public cards, your hand
with its value, and a menu of your legal moves named by the engine."""

from __future__ import annotations

from rich.columns import Columns
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from schnauz_env.play.common import LivesScreen, Move, card_text, cards_text, compact_cells
from schnauz_env.play.words import SCHNAUZ_REASONS, ZERO_LIVES, ZERO_MEANING, schnauz_outcome
from schnauz_env.schnauz.config import SchnauzConfig
from schnauz_env.schnauz.engine import (
    DEALER_CHOICE,
    EXCHANGE,
    FINAL_CIRCLE,
    KEEP,
    KNOCK,
    PASS,
    SWAP_ALL,
    SWAP_BASE,
    RoundResult,
    SchnauzState,
    swap_action,
)
from schnauz_env.schnauz.hands import (
    POINTS,
    SCHNAUZ,
    THIRTY_HALF,
    best_suit_points,
    category_of,
    hand_key,
    hand_label,
)


class SchnauzScreen(LivesScreen):
    game = "Schnauz"
    zero_lives = ZERO_LIVES["schnauz"]
    zero_meaning = ZERO_MEANING
    reasons = SCHNAUZ_REASONS
    fixed_keys = {
        "k": (KNOCK, "knock"),
        "p": (PASS, "pass"),
        "a": (SWAP_ALL, "swap all"),
        "x": (EXCHANGE, "exchange"),
        "c": (KEEP, "keep"),
    }

    def title(self, state: SchnauzState) -> tuple[str, str]:
        return "Schnauz", f" · deck {state.config.deck}"

    def label_hand(self, state: SchnauzState, cards: list[int]) -> str:
        return hand_label(cards)

    def table(self, state: SchnauzState, compact: bool = False) -> RenderableType:
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
        return Group(*lines, *([] if compact else [Text("")]), self.seat_table(state))

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

    def menu(self, state: SchnauzState, compact: bool = False) -> RenderableType:
        """``compact``: the nine swaps as a grid (your cards down, the table's across,
        each cell the move's number and your hand's value after it), the rest on one line."""
        if not compact or state.phase == DEALER_CHOICE:
            return super().menu(state, compact)
        moves = self.moves(state)
        swaps = {m.actions[0]: m for m in moves if SWAP_BASE <= m.actions[0] < SWAP_ALL}
        others = [m for m in moves if m.actions[0] not in swaps]
        parts: list[RenderableType] = [Text("Your move:", style="bold")]
        if swaps:
            hand = state.hands[self.seat]
            grid = Table.grid(padding=(0, 3))
            for _ in range(len(state.table) + 1):
                grid.add_column(no_wrap=True)
            grid.add_row(
                Text("swap your", style="dim"),
                *(Text("for ").append_text(card_text(c)) for c in state.table),
            )
            for i, card in enumerate(hand):
                cells: list[Text] = []
                for j in range(len(state.table)):
                    m = swaps.get(swap_action(i, j))
                    if m is None:
                        cells.append(Text(""))
                        continue
                    cell = Text(m.keys[0].rjust(2), style="bold cyan")
                    cells.append(cell.append(" ").append_text(m.note))  # type: ignore[arg-type]
                grid.add_row(Text("     ").append_text(card_text(card)), *cells)
            parts.append(grid)
        parts.append(Columns(compact_cells(others), padding=(0, 3)))
        return Group(*parts)

    def results(self, result: RoundResult, state: SchnauzState) -> RenderableType:
        outcomes = {}
        for s in result.hands:
            outcome = Text(schnauz_outcome(result, s), style="bold red")
            if s == result.knocker:
                outcome.append("  (knocked)", style="dim")
            if s == result.fire_holder:
                outcome.append("  Fire!", style="bold yellow")
            outcomes[s] = outcome
        notes = self.why(result, state.config)
        notes += [
            Text(f"replay deal {k + 1} (nobody may be left): {self.deal_text(deal)}", style="dim")
            for k, deal in enumerate(result.replays)
        ]
        if result.turn_limit_reached:
            notes.append(Text("The round reached the turn limit.", style="yellow"))
        return self.showdown(result, outcomes, notes)

    def why(self, result: RoundResult, config: SchnauzConfig) -> list[Text]:
        """Why the showdown went as it did, where the table alone does not say: a knock
        cut short by Fire or Schnauz, Fire costing everyone, a tie broken by suit or rank."""
        notes = []
        instant = [s for s in result.hands if category_of(result.keys[s]) >= SCHNAUZ]
        if result.reason == "instant" and result.knocker is not None and instant:
            holder = instant[0]
            notes.append(
                Text(
                    f"{self.subject(result.knocker)} knocked, but "
                    f"{self.possessive(holder)} {result.labels[holder]} ended the round at "
                    "once: a Fire or Schnauz wins on the spot, before the last turns.",
                    style="yellow",
                )
            )
        if config.fire_costs_all and result.fire_holder is not None:
            notes.append(
                Text("Fire costs every other player a life (rule fire_costs_all).", style="yellow")
            )
            return notes
        if len(result.losers) > 1:
            tied = " and ".join(self.who(s) for s in result.losers)
            notes.append(
                Text(
                    f"Tie for the lowest hand: {tied} each lose (rule ties=share).", style="yellow"
                )
            )
            return notes
        loser = result.losers[0] if result.losers else None
        if loser is None or config.ties != "break":
            return notes
        share = {s: hand_key(h, "share") for s, h in result.hands.items()}
        tied = [s for s in result.hands if s != loser and share[s] == share[loser]]
        if not tied:
            return notes
        above = min(tied, key=lambda s: result.keys[s])  # the hand just above the loser
        category = category_of(result.keys[loser])
        if category == POINTS:
            suits = {best_suit_points(result.hands[s])[1] for s in (above, loser)}
            rule = (
                "equal points are decided by the scoring suit (♣ > ♠ > ♥ > ♦)"
                if len(suits) == 2
                else "equal points in one suit are decided by the higher cards (A > K > Q > J > 10 …)"
            )
        elif category == THIRTY_HALF:
            rule = "equal three of a kind are decided by rank (K > Q > J > 10)"
        else:
            rule = "equal hands are decided by suit (♣ > ♠ > ♥ > ♦)"
        notes.append(
            Text(
                f"Tie broken: {self.possessive(above)} {result.labels[above]} beats "
                f"{self.possessive(loser)} {result.labels[loser]}, because {rule}.",
                style="yellow",
            )
        )
        return notes

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
