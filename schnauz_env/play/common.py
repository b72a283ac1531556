"""What every game's screen shares: cards as rich text, moves, input parsing, the base screen."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from rich.columns import Columns
from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from schnauz_env.cards import format_card

RED_SUITS = (2, 3)  # ♥ ♦


def card_text(card: int | None) -> Text:
    """One card as a small white tile (``None``: a face-down card)."""
    if card is None:
        return Text(" ?? ", style="bold white on blue")
    color = "red3" if int(card) & 3 in RED_SUITS else "grey0"
    return Text(f" {format_card(card, symbols=True)} ", style=f"bold {color} on grey93")


def cards_text(cards: Iterable[int | None], empty: str = "-") -> Text:
    """Cards side by side, or ``empty`` when there are none."""
    parts = [card_text(c) for c in cards]
    if not parts:
        return Text(empty, style="dim")
    return Text(" ").join(parts)


def lives_text(lives: int, zero: str) -> Text:
    """Lives as tokens; ``zero`` names the last chance (``"swimming"``, ``"on the bus"``)."""
    if lives == 0:
        return Text(zero, style="bold cyan")
    return Text("● " * lives, style="yellow").append(f"{lives}", style="dim")


class BadInput(ValueError):
    """What the person typed is not a move; the message says why and what is allowed."""


@dataclass(frozen=True)
class Move:
    """A choice on the menu: typed as one of ``keys``; plays ``actions`` in order."""

    keys: tuple[str, ...]
    label: Text | str
    actions: tuple[int, ...]
    note: Text | str = ""


class Screen:
    """Base of a game's screen: the table, the menu and the results, from one seat.

    Subclasses name the game and implement :meth:`table`, :meth:`moves`,
    :meth:`results`; :meth:`parse` turns typed text into actions, giving
    :class:`BadInput` with a helpful message otherwise. ``compact=True`` asks
    :meth:`table` and :meth:`menu` for the layout of a small terminal (80×24):
    no blank lines, the moves side by side, long notes left to ``?``.
    """

    game = "card game"
    #: Letter keys that always mean the same action in this game, for messages about
    #: a move that exists but is not legal now: key -> (action, name).
    fixed_keys: dict[str, tuple[int, str]] = {}

    def __init__(self, names: Sequence[str], seat: int) -> None:
        self.names = list(names)
        self.seat = seat
        #: The words already explained on this screen (see :meth:`explain`).
        self.explained: set[str] = set()

    def who(self, seat: int) -> str:
        """A seat in a sentence: ``"you"`` or ``"expert (seat 2)"``."""
        return "you" if seat == self.seat else f"{self.names[seat]} (seat {seat})"

    def subject(self, seat: int) -> str:
        """A seat starting a sentence: ``"You"`` or ``"expert (seat 2)"``."""
        return "You" if seat == self.seat else self.who(seat)

    def possessive(self, seat: int) -> str:
        """``"your"`` or ``"expert (seat 2)'s"``."""
        return "your" if seat == self.seat else f"{self.who(seat)}'s"

    # --------------------------------------------------------------- to draw
    def header(self, state: Any) -> Text:
        raise NotImplementedError

    def table(self, state: Any, compact: bool = False) -> RenderableType:
        raise NotImplementedError

    def moves(self, state: Any) -> list[Move]:
        raise NotImplementedError

    def results(self, result: Any, state: Any) -> RenderableType:
        raise NotImplementedError

    def announce(self, state: Any, seat: int, action: int) -> str | None:
        """What the table sees when ``seat`` plays ``action`` (called before it is applied);
        ``None`` for steps nobody would notice."""
        return state.action_to_string(action, symbols=True)

    def explain(self, state: Any) -> list[Text]:
        """Game words that appear on the turn screen of ``state`` for the first time,
        each explained once (the caller shows them with the table)."""
        return []

    def is_showdown(self, result: Any) -> bool:
        """Whether ``result`` deserves a pause (a showdown, a game's end)."""
        return True

    def is_out(self, state: Any) -> bool:
        """Whether the person's seat has left the game (the bots play on)."""
        return bool(state.out[self.seat])

    def final(self, state: Any) -> RenderableType:
        """The end of the game: every seat's place (and :meth:`final_extra`'s columns)."""
        extra = self.final_extra(state)
        grid = Table(box=None, padding=(0, 1), header_style="dim")
        add_columns(grid, ("place", "seat", "player", *extra))
        order = sorted(range(state.n), key=lambda s: state.places[s] or state.n)
        for s in order:
            place = state.places[s]
            grid.add_row(
                place_name(place) if place is not None else "-",
                str(s),
                Text(self.names[s], style="bold" if s == self.seat else ""),
                *(cells[s] for cells in extra.values()),
            )
        return grid

    def final_extra(self, state: Any) -> dict[str, list[str]]:
        """More columns for the final table: heading -> one cell per seat."""
        return {}

    def help_line(self, state: Any) -> str:
        return "Type the number or key of a move."

    def extra_help(self, state: Any) -> RenderableType | None:
        """Shown when the person types ``?``."""
        return None

    def menu(self, state: Any, compact: bool = False) -> RenderableType:
        """The legal moves, one per line with their notes; ``compact``: side by side,
        numbered down the columns, with only the short notes."""
        moves = self.moves(state)
        if compact:
            return Group(
                Text("Your move:", style="bold"),
                Columns(compact_cells(moves), padding=(0, 3), column_first=True),
            )
        grid = Table.grid(padding=(0, 2))
        grid.add_column(justify="right", style="bold cyan", no_wrap=True)
        grid.add_column()
        grid.add_column(style="dim")
        for m in moves:
            keys = " / ".join(m.keys)
            grid.add_row(keys, m.label, m.note)
        return Group(Text("Your move:", style="bold"), grid)

    # ---------------------------------------------------------------- input
    def parse(self, state: Any, text: str) -> tuple[int, ...]:
        """The actions meant by ``text``; :class:`BadInput` if it names no legal move."""
        typed = text.strip().lower()
        moves = self.moves(state)
        for m in moves:
            if typed in m.keys:
                return m.actions
        numbers = [k for m in moves for k in m.keys if k.isdigit()]
        allowed = self._allowed(moves)
        if not typed:
            raise BadInput(f"Type a move: {allowed}.")
        if typed.lstrip("-").isdigit():
            raise BadInput(
                f"There is no move {typed}; choose "
                + (f"a number from {numbers[0]} to {numbers[-1]}" if numbers else allowed)
                + "."
            )
        if typed in self.fixed_keys:
            action, name = self.fixed_keys[typed]
            why = self.why_not(state, action)
            raise BadInput(f"You cannot {name} now{f' ({why})' if why else ''}. Choose {allowed}.")
        raise BadInput(f"{text.strip()!r} is not a move. Choose {allowed}.")

    def why_not(self, state: Any, action: int) -> str:
        """Why ``action`` (a move of this game) is not legal now, for the message."""
        return ""

    @staticmethod
    def _allowed(moves: list[Move]) -> str:
        numbers = [k for m in moves for k in m.keys if k.isdigit()]
        letters = [k for m in moves for k in m.keys if not k.isdigit()]
        parts = []
        if numbers:
            parts.append(numbers[0] if len(numbers) == 1 else f"{numbers[0]}-{numbers[-1]}")
        parts += letters
        return ", ".join(parts)


class LivesScreen(Screen):
    """Base of the screens of the games of lives (Schnauz, Scat): the header, the seat
    table and the showdown panel; the game fills in the middle of the table, the
    moves and each seat's outcome."""

    #: What having no lives left is called (``"swimming"``, ``"on the bus"``).
    zero_lives = ""
    #: What it means, said the first time it appears.
    zero_meaning = ""
    #: How a round ended, by result ``reason``, for the showdown's title.
    reasons: dict[str, str] = {}

    def title(self, state: Any) -> tuple[str, str]:
        """The game's name (bold) and what follows it in the header."""
        return self.game, ""

    def label_hand(self, state: Any, cards: list[int]) -> str:
        """The value of ``cards`` as the game names it."""
        raise NotImplementedError

    def header(self, state: Any) -> Text:
        name, extra = self.title(state)
        if state.game_over:
            rounds = "round" if state.round == 1 else "rounds"
            return Text.assemble(
                (name, "bold"), f"{extra} · game over after {state.round} {rounds}"
            )
        return Text.assemble(
            (name, "bold"),
            f"{extra} · round {state.round + 1} · {state.phase_names[state.phase]} · "
            f"stock {state.stock_size} cards",
        )

    def help_line(self, state: Any) -> str:
        return "Type a move's number or letter; q quits."

    def seat_table(self, state: Any) -> Table:
        """Every seat: the hand as you see it (your own with its value), lives, and the
        dealer / knocker / to-act notes."""
        me = self.seat
        grid = seat_grid()
        add_columns(grid, ("", "seat", "player", "hand", "lives", ""))
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
                    hand.append(f"  {self.label_hand(state, state.hands[s])}", style="bold green")
                lives = lives_text(state.lives[s], self.zero_lives)
            grid.add_row(
                Text("▶" if acting else " ", style="bold yellow"),
                str(s),
                Text(self.names[s], style="bold" if s == me else ""),
                hand,
                lives,
                Text(" ").join(notes),
            )
        return grid

    def explain(self, state: Any) -> list[Text]:
        if any(state.lives[s] == 0 and not state.out[s] for s in range(state.n)):
            note = self.explain_zero()
            return [note] if note is not None else []
        return []

    def explain_zero(self) -> Text | None:
        """What :attr:`zero_lives` means, the first time it is used; then ``None``."""
        if not self.zero_meaning or "zero" in self.explained:
            return None
        self.explained.add("zero")
        return Text.assemble((self.zero_lives, "bold cyan"), f": {self.zero_meaning}")

    def deal_text(self, deal: dict[int, list[str]]) -> str:
        """A showdown-only deal (seat -> card codes) in a sentence."""
        return "; ".join(f"{self.who(int(s))}: {' '.join(c)}" for s, c in deal.items())

    def showdown(self, result: Any, outcomes: dict[int, Text], notes: list[Text]) -> Panel:
        """A round's result: every hand shown with its value and ``outcomes[seat]``,
        then ``notes``."""
        grid = Table(box=None, padding=(0, 1), header_style="dim")
        add_columns(grid, ("seat", "player", "hand", "value", "outcome"))
        for s, cards in result.hands.items():
            grid.add_row(
                str(s),
                Text(self.names[s], style="bold" if s == self.seat else ""),
                cards_text(cards),
                Text(result.labels[s], style="bold"),
                outcomes[s],
            )
        if any(result.lives_after[s] == 0 and s not in result.went_out for s in result.losers):
            meaning = self.explain_zero()
            if meaning is not None:
                notes = [*notes, meaning]
        reason = self.reasons.get(result.reason, result.reason)
        title = f"Showdown · round {result.round + 1} · {reason}"
        return Panel(Group(grid, *notes), title=title, title_align="left", border_style="yellow")


#: The longest note a compact menu keeps beside its move (the value after a swap, ...).
SHORT_NOTE = 24


def short_note(note: Text | str) -> Text:
    """``note`` if it is short enough for a compact menu, else nothing."""
    text = Text(note) if isinstance(note, str) else note.copy()
    return text if text.cell_len <= SHORT_NOTE else Text("")


def compact_cells(moves: Sequence[Move]) -> list[Text]:
    """One cell per move for a compact menu: keys, label and a short note, the keys
    right-aligned to one width so that the columns line up."""
    width = max((len(" / ".join(m.keys)) for m in moves), default=0)
    cells = []
    for m in moves:
        cell = Text(" / ".join(m.keys).rjust(width), style="bold cyan", end="")
        cell.append("  ").append_text(Text(m.label) if isinstance(m.label, str) else m.label)
        note = short_note(m.note)
        if note:
            note.style = "dim"
            cell.append("  ").append_text(note)
        cells.append(cell)
    return cells


#: The widest a player's name is shown in a table (longer names end in "…").
NAME_WIDTH = 22
#: Columns that may wrap onto a second line (notes, outcomes, a 13-card hand); the
#: others keep each seat on one line.
WRAPPING = ("", "outcome", "cards")


def add_columns(grid: Table, columns: Sequence[str]) -> None:
    """Add ``columns`` to a table of seats: names cut at :data:`NAME_WIDTH`, only the
    :data:`WRAPPING` columns wrapped, so that a seat stays on one line at 80 columns."""
    for col in columns:
        if col == "player":
            grid.add_column(col, no_wrap=True, overflow="ellipsis", max_width=NAME_WIDTH)
        else:
            grid.add_column(col, no_wrap=col not in WRAPPING)


def seat_grid() -> Table:
    """The table of seats every game shows (columns added by the caller)."""
    return Table(box=None, padding=(0, 1), show_header=True, header_style="dim")


def place_name(place: float) -> str:
    if place != int(place):
        return f"{place:g} (shared)"
    p = int(place)
    suffix = {1: "st", 2: "nd", 3: "rd"}.get(p if p < 20 else p % 10, "th")
    return f"{p}{suffix}"
