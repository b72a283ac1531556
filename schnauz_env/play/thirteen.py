"""The Thirteen screen: the play to beat, every seat's card count, passes and order of
going out, your hand, and your plays typed as card codes or picked from a list."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from schnauz_env.cards import format_cards, parse_cards
from schnauz_env.play.common import (
    BadInput,
    Move,
    Screen,
    add_columns,
    cards_text,
    place_name,
    seat_grid,
)
from schnauz_env.thirteen.combos import STRENGTH, classify, combo_label
from schnauz_env.thirteen.engine import (
    DECLARE,
    NUM_CARD_ACTIONS,
    PASS,
    PLAY,
    GameResult,
    ThirteenState,
    play_actions,
)

#: Plays listed on the menu by number; the others are typed as card codes.
MAX_LISTED = 12


def play_label(cards: list[int]) -> str:
    combo = classify(cards)
    return combo_label(combo) if combo is not None else "?"


class ThirteenScreen(Screen):
    game = "Thirteen"
    fixed_keys = {"p": (PASS, "pass")}

    def header(self, state: ThirteenState) -> Text:
        cfg = state.config
        if state.game_over:
            games = f" after {state.game} games" if cfg.episode == "match" else ""
            return Text.assemble(("Thirteen", "bold"), f" · game over{games}")
        text = Text.assemble(("Thirteen", "bold"), f" · game {state.game + 1}")
        if cfg.episode == "match":
            text.append(f" · match to {cfg.target_points} points")
        return text

    def announce(self, state: ThirteenState, seat: int, action: int) -> str | None:
        if action < NUM_CARD_ACTIONS:
            return None  # choosing the cards of a play, one by one: nobody sees that
        return state.action_to_string(action, symbols=True)

    def table(self, state: ThirteenState, compact: bool = False) -> RenderableType:
        me = self.seat
        if state.table and state.table_combo is not None:
            beat = Text("To beat: ", style="bold").append_text(cards_text(state.table))
            beat.append(f"  {combo_label(state.table_combo)} by {self.who(state.table_by)}")
        elif state.game_over:
            beat = Text("")
        else:
            leader = "you lead" if state.current == me else f"{self.who(state.current)} leads"
            beat = Text(f"The table is clear: {leader} any combination.", style="bold")
        lines: list[RenderableType] = [beat]
        if state.opening_card is not None and state.current == me:
            lines.append(
                Text("The first play of the game must include ").append_text(
                    cards_text([state.opening_card])
                )
            )
        grid = seat_grid()
        add_columns(grid, ("", "seat", "player", "cards", "score", ""))
        for s in range(state.n):
            acting = s == state.current and not state.game_over
            notes = []
            if s in state.finish_order:
                notes.append(
                    Text(f"out {place_name(state.finish_order.index(s) + 1)}", style="bold cyan")
                )
            elif state.passed[s] and not state.game_over:
                notes.append(Text("passed", style="dim"))
            if acting:
                notes.append(Text("to act", style="bold yellow"))
            if s == me:
                cards = cards_text(state.hands[s])
            else:
                n = len(state.hands[s])
                cards = Text(f"{n} {'card' if n == 1 else 'cards'}")
            grid.add_row(
                Text("▶" if acting else " ", style="bold yellow"),
                str(s),
                Text(self.names[s], style="bold" if s == me else ""),
                cards,
                str(state.scores[s]),
                Text(" ").join(notes),
            )
        return Group(*lines, *([] if compact else [Text("")]), grid)

    def _plays(self, state: ThirteenState) -> list[list[int]]:
        """Every legal play, shortest and weakest first."""
        return sorted(state.legal_plays(), key=lambda p: (len(p), STRENGTH[p[-1]]))

    def _listed(self, state: ThirteenState) -> list[list[int]]:
        """The plays on the menu: the weakest of every shape (single, pair, sequence of 4,
        ...) in turn, so a long list of singles does not hide the pairs and sequences."""
        shapes: dict[tuple[str, int], list[list[int]]] = {}
        for p in self._plays(state):
            shapes.setdefault((play_label(p), len(p)), []).append(p)
        listed: list[list[int]] = []
        depth = 0
        while len(listed) < MAX_LISTED and any(depth < len(v) for v in shapes.values()):
            for plays in shapes.values():
                if depth < len(plays) and len(listed) < MAX_LISTED:
                    listed.append(plays[depth])
            depth += 1
        return sorted(listed, key=lambda p: (len(p), STRENGTH[p[-1]]))

    def moves(self, state: ThirteenState) -> list[Move]:
        if state.phase == DECLARE:
            return [Move(("1",), state.action_to_string(PLAY, True), (PLAY,))]
        plays = self._listed(state)
        moves = [
            Move(
                (str(k + 1),),
                Text(f"{play_label(p)} ").append_text(cards_text(p)),
                tuple(play_actions(p)),
            )
            for k, p in enumerate(plays)
        ]
        if PASS in state.legal_actions():
            moves.append(
                Move(("p",), "pass", (PASS,), "you may not play again until the table clears")
            )
        return moves

    def menu(self, state: ThirteenState, compact: bool = False) -> RenderableType:
        parts = [super().menu(state, compact)]
        more = len(state.legal_plays()) - MAX_LISTED
        if state.phase != DECLARE:
            tail = f"… and {more} more {'play' if more == 1 else 'plays'}. " if more > 0 else ""
            parts.append(
                Text(
                    f"{tail}Or type the cards to play (e.g. 7S 7H); ? lists every play.",
                    style="dim",
                )
            )
        return Group(*parts)

    def help_line(self, state: ThirteenState) -> str:
        return "Type a number, card codes such as 7S 7H, p to pass, ? for every play; q quits."

    def extra_help(self, state: ThirteenState) -> RenderableType:
        plays = self._plays(state)
        shown = plays[:80]
        lines = [Text(f"{play_label(p):<28}{format_cards(p)}") for p in shown]
        if len(plays) > len(shown):
            lines.append(Text(f"… and {len(plays) - len(shown)} more", style="dim"))
        return Panel(Group(*lines), title=f"{len(plays)} legal plays", title_align="left")

    def parse(self, state: ThirteenState, text: str) -> tuple[int, ...]:
        typed = text.strip()
        if not typed or typed.isdigit() or typed.lower() in self.fixed_keys:
            return super().parse(state, text)
        try:
            cards = [int(c) for c in parse_cards(typed)]
        except ValueError as err:
            raise BadInput(f"{err}. {self.help_line(state)}") from None
        hand = state.hands[self.seat]
        missing = [c for c in cards if c not in hand]
        if missing:
            raise BadInput(f"You do not hold {format_cards(missing, True)}.")
        if len(set(cards)) != len(cards):
            raise BadInput("A card is named twice.")
        actions = play_actions(cards)
        trial = state.clone()
        try:
            for a in actions:
                trial.apply(a)
        except ValueError:
            named = format_cards(sorted(cards, key=STRENGTH.__getitem__), True)
            if classify(cards) is None:
                why = "is not a combination (single, pair, triple, four of a kind, sequence, double sequence)"
            elif state.opening_card is not None and state.opening_card not in cards:
                why = f"does not include {format_cards([state.opening_card], True)}, which the first play must"
            elif state.table_combo is not None:
                why = f"does not beat the {combo_label(state.table_combo)} on the table"
            else:
                why = "is not a legal play now"
            raise BadInput(f"{named} {why}. Type ? to list every legal play.") from None
        return tuple(actions)

    def why_not(self, state: ThirteenState, action: int) -> str:
        if action == PASS and state.phase == DECLARE:
            return "declare your instant win"
        return "you lead: the table is clear" if action == PASS else ""

    def is_out(self, state: ThirteenState) -> bool:
        return state.config.episode == "game" and self.seat in state.finish_order

    def final_extra(self, state: ThirteenState) -> dict[str, list[str]]:
        return {"score": [str(x) for x in state.scores]}

    def is_showdown(self, result: GameResult) -> bool:
        return result.reason != "out"

    def results(self, result: GameResult, state: ThirteenState) -> RenderableType:
        if result.reason == "out":
            place = place_name(len(result.finish_order))
            who = "You are" if result.went_out == self.seat else f"{self.who(result.went_out)} is"
            return Text(f"{who} out of cards ({place}).", style="bold cyan")
        grid = Table(box=None, padding=(0, 1), header_style="dim")
        add_columns(grid, ("order", "seat", "player", "points", "score"))
        for i, s in enumerate(result.finish_order):
            grid.add_row(
                place_name(i + 1),
                str(s),
                Text(self.names[s], style="bold" if s == self.seat else ""),
                f"+{result.points.get(s, 0)}",
                str(result.scores[s]),
            )
        title = f"Game {result.game + 1} over"
        if result.instant_win:
            title += f" · instant win ({result.instant_win})"
        return Panel(grid, title=title, title_align="left", border_style="yellow")
