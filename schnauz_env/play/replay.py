"""``schnauz replay FILE``: a recorded game, move by move, in the terminal; and the
recording of ``schnauz play`` (``--record FILE``, and always on a crash).

    schnauz replay game.json                    # every hand open
    schnauz replay game.json --seat 2           # what seat 2 saw
    schnauz replay runs/eval/records.jsonl --index 17 --all

The record (:mod:`schnauz_env.records`) is replayed through the game's env, so every
move is checked as it is shown; a record that does not replay is shown up to the move
that differs, with the reason. The table is drawn with the terminal game's screens
(:mod:`schnauz_env.play`), from one seat's view or with every hand open.

At the prompt: Enter (or ``n``) shows the next move, ``b`` the one before, a number
goes to that move, ``e`` to the end, ``v N`` views from seat N, ``v`` with every hand
open, ``q`` quits. Without a terminal (or with ``--all``) the whole game is printed.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import sys
import tempfile
import traceback
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from schnauz_env.play.command import Subcommand, missing_extra
from schnauz_env.records import Record, RecordError, RecordingEnv, Replay, Seat, read_records

#: The subcommand this module runs (:mod:`schnauz_env.play.command`).
COMMAND = Subcommand(
    "replay",
    help="show a recorded game move by move",
    description="Show a recorded game (schnauz-eval --record, schnauz play --record) move "
    "by move, checking every move against the rules.",
)

#: How many of the latest moves the replay screen lists.
LOG_LINES = 10
SCREENS = {
    "schnauz": "schnauz_env.play.schnauz:SchnauzScreen",
    "scat": "schnauz_env.play.scat:ScatScreen",
    "thirteen": "schnauz_env.play.thirteen:ThirteenScreen",
}
HELP = "Enter: next · b: back · NUMBER: go to move · e: end · v N: seat N's view · v: all hands · q: quit"


# ------------------------------------------------------------------ the command


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The arguments of ``schnauz replay``."""
    p.add_argument("file", help="a record file (.json, or .jsonl with many games)")
    p.add_argument(
        "--index", type=int, default=0, help="which game of a .jsonl file (0 = the first)"
    )
    view = p.add_mutually_exclusive_group()
    view.add_argument("--seat", type=int, default=None, help="show what this seat saw")
    view.add_argument(
        "--open", action="store_true", help="show every hand (the default without --seat)"
    )
    p.add_argument("--all", action="store_true", help="print the whole game at once (no prompt)")
    p.add_argument("--move", type=int, default=0, help="start at this move (default 0)")
    p.add_argument("--no-clear", action="store_true", help="do not clear the screen")


def run(args: argparse.Namespace) -> int:
    """The ``schnauz replay`` command."""
    if missing_extra("replay", "play", "rich"):
        return 2
    from rich.console import Console

    try:
        records = read_records(args.file)
        if not 0 <= args.index < len(records):
            raise ValueError(
                f"{args.file} holds {len(records)} game(s); --index must be 0..{len(records) - 1}"
            )
        record = records[args.index]
        n = record.num_players
        if args.seat is not None and not 0 <= args.seat < n:
            raise ValueError(f"--seat must be a seat 0..{n - 1}, got {args.seat}")
        viewer = Viewer(record, args.seat, title=_title(args.file, args.index, len(records)))
    except (OSError, ValueError, IndexError) as err:  # RecordError is a ValueError
        print(f"error: {err}", file=sys.stderr)
        return 2
    console = Console(highlight=False)
    if args.all or not (console.is_terminal and sys.stdin.isatty()):
        return viewer.print_all(console)
    try:
        return viewer.browse(console, start=args.move, clear=not args.no_clear)
    except (EOFError, KeyboardInterrupt):
        console.print()
        console.print("Goodbye.")
        return 0


def _title(path: str, index: int, count: int) -> str:
    name = Path(path).name
    return f"{name} · game {index + 1} of {count}" if count > 1 else name


# ------------------------------------------------------------------ the viewer


@dataclass
class Position:
    """The table after ``moves`` moves of a record."""

    moves: int
    state: Any
    """The engine state (a copy)."""
    screen: Any
    """The screen that followed the game to here."""
    events: list[Any] = field(default_factory=list)
    """What the table saw so far: one line per move, a panel per round result."""
    error: RecordError | None = None
    """Why the record stops replaying here, if it does."""


class Viewer:
    """A record shown from ``seat``'s view (``None``: every hand open)."""

    def __init__(self, record: Record, seat: int | None = None, title: str = "") -> None:
        self.record = record
        self.seat = seat
        self.title = title
        self.names = [s.policy for s in record.seats]
        Replay(record)  # the record as a whole (format, rules, deal) is checked here
        self.total = len(record.actions)

    def screen(self) -> Any:
        module, _, cls = SCREENS[self.record.game].partition(":")
        return getattr(importlib.import_module(module), cls)(self.names, self.seat)

    def events(self, walk: Replay, screen: Any, moves: int | None = None) -> Iterator[Any]:
        """Play ``walk`` (a fresh :class:`Replay` of the record) on ``screen`` (a fresh
        one), yielding every move line and round result of the first ``moves`` moves
        (all: ``None``; the outcome is then checked). A move that differs raises
        :class:`RecordError` where it is met, ``walk`` left before it."""
        from rich.text import Text

        state = walk.env.game
        opening = getattr(state, "opening_result", None)
        if opening is not None:  # Scat: the deal itself ended the first round
            yield screen.results(opening, state)
        shown = state.last_result
        for step in walk:
            # The generator plays a move when asked for the next: its result shows here.
            if state.last_result is not None and state.last_result is not shown:
                shown = state.last_result
                yield screen.results(shown, state)
            if moves is not None and step.index >= moves:
                break
            said = screen.announce(state, step.seat, step.action)
            if said is not None:
                who = screen.subject(step.seat)
                yield Text.assemble((f"{step.index + 1:>4}. ", "dim"), (who, "cyan"), f": {said}")
        else:
            if state.last_result is not None and state.last_result is not shown:
                yield screen.results(state.last_result, state)
            walk.result()

    def position(self, moves: int) -> Position:
        """The table after the first ``moves`` moves (or where the record stops replaying)."""
        screen = self.screen()
        walk = Replay(self.record)
        events: list[Any] = []
        error = None
        try:
            events.extend(self.events(walk, screen, moves))
        except RecordError as err:
            error = err
        return Position(walk.played, walk.env.game.clone(), screen, events, error)

    # ------------------------------------------------------------ printing
    def print_all(self, console: Any) -> int:
        """Print the whole game: every move and round result, then the end."""
        from rich.text import Text

        console.print(self.banner())
        screen = self.screen()
        walk = Replay(self.record)
        try:
            for event in self.events(walk, screen):
                console.print(event)
        except RecordError as err:
            console.print(Text(f"The record does not replay: {err}", style="bold red"))
            return 1
        console.print(self.ending(screen, walk.env.game))
        return 0

    def banner(self) -> Any:
        from rich.text import Text

        r = self.record
        view = "every hand open" if self.seat is None else f"the view of seat {self.seat}"
        text = Text.assemble(
            (f"Replay of {self.title}" if self.title else "Replay", "bold"),
            f" · {r.game} · {r.num_players} players · seed {r.seed} · {self.total} moves · {view}",
        )
        who = " · ".join(f"seat {s}: {name}" for s, name in enumerate(self.names))
        text.append(f"\n{who}", style="dim")
        source = r.meta.get("source")
        if source:
            text.append(f"\nrecorded by {source}", style="dim")
        if r.meta.get("error"):
            text.append(f"\nthe game stopped on an error: {r.meta['error']}", style="bold red")
        return text

    def ending(self, screen: Any, state: Any) -> Any:
        from rich.console import Group
        from rich.panel import Panel
        from rich.text import Text

        if not state.game_over:
            return Text("The record ends here: the game did not finish.", style="bold yellow")
        return Panel(
            Group(screen.header(state), Text(""), screen.final(state)),
            title="Game over",
            title_align="left",
            border_style="green",
        )

    # ------------------------------------------------------------ browsing
    def frame(self, pos: Position) -> Any:
        """The screen at ``pos``: the table, the latest moves, the next move."""
        from rich.console import Group
        from rich.panel import Panel
        from rich.text import Text

        screen = pos.screen
        state = pos.state
        parts: list[Any] = [screen.table(state)]
        if self.seat is None and not hasattr(state, "visible_hand"):
            parts += [Text(""), *self.hands(state)]
        recent = pos.events[-LOG_LINES:]
        if recent:
            parts += [Text(""), Text("Moves so far:", style="dim"), *recent]
        body = Panel(
            Group(*parts), title=screen.header(state), title_align="left", border_style="blue"
        )
        status = Text(f"move {pos.moves} of {self.total}", style="bold")
        if pos.error is not None:
            status.append(f" · the record does not replay here: {pos.error}", style="bold red")
        elif pos.moves < self.total:
            seat, action = self.record.actions[pos.moves]
            name = state.action_to_string(action, symbols=True)
            status.append(f" · next: {screen.subject(seat)}: {name}")
        elif state.game_over:
            return Group(self.banner(), body, self.ending(screen, state), status)
        return Group(self.banner(), body, status)

    def hands(self, state: Any) -> list[Any]:
        """Every seat's hand (for games whose table shows only its own)."""
        from rich.text import Text

        from schnauz_env.play.common import cards_text

        return [
            Text(f"{self.names[s]} (seat {s}): ", style="bold").append_text(
                cards_text(state.hands[s])
            )
            for s in range(state.n)
        ]

    def browse(self, console: Any, start: int = 0, clear: bool = True) -> int:
        """Move through the game at the prompt (see the module docstring)."""
        from rich.text import Text

        k = max(0, min(start, self.total))
        while True:
            pos = self.position(k)
            if clear and console.is_terminal:
                console.clear()
            console.print(self.frame(pos))
            typed = console.input(f"[dim]{HELP}[/dim]\n> ").strip().lower()
            if typed in ("q", "quit", "exit"):
                return 0
            if typed in ("", "n", "next"):
                k = min(pos.moves + 1, self.total)
            elif typed in ("b", "back", "p"):
                k = max(0, pos.moves - 1)
            elif typed in ("e", "end"):
                k = self.total
            elif typed.isdigit():
                k = min(int(typed), self.total)
            elif typed.split()[:1] == ["v"]:
                rest = typed.split()[1:]
                if not rest:
                    self.seat = None
                elif rest[0].isdigit() and int(rest[0]) < self.record.num_players:
                    self.seat = int(rest[0])
                else:
                    console.print(Text(f"No seat {rest[0]}.", style="bold red"))
            else:
                console.print(Text(f"{typed!r}: {HELP}", style="bold red"))


# ------------------------------------------------------------------ schnauz play --record


def play_seats(
    game: str, config: Any, seat: int, wanted: list[str] | None, seed: int | None
) -> list[Seat]:
    """Who sits where in ``schnauz play``: ``human`` at ``seat``, the bots as
    :func:`schnauz_env.play.opponents.make_lineup` seats them (names, model files by
    SHA-256, their seeds)."""
    from policies.evaluation.runner import seat_identity
    from schnauz_env.play.opponents import FALLBACK, SHIPPED, shipped_model

    wanted = wanted or [SHIPPED if shipped_model(game, config) is not None else FALLBACK]
    seats = [Seat("human") for _ in range(config.num_players)]
    bots = [s for s in range(config.num_players) if s != seat]
    for k, s in enumerate(bots):
        identity = seat_identity(wanted[k % len(wanted)], game, config)
        identity.seed = None if seed is None else seed + 1 + s
        seats[s] = identity
    return seats


@contextlib.contextmanager
def recording(session: Any, args: argparse.Namespace) -> Iterator[RecordingEnv]:
    """Record ``session``'s game (``schnauz play``): to ``args.record`` when asked
    (at the end, or when the person quits), and always when the game crashes (to
    ``args.record``, else to ``schnauz-crash-<game>-<seed>.json`` in
    :func:`crash_folder`), saying where."""
    path = getattr(args, "record", None)
    if path is not None and Path(path).exists():
        print(f"error: {path} exists; choose another file for --record", file=sys.stderr)
        raise SystemExit(2)
    seats = play_seats(session.game_name, session.config, session.seat, args.opponents, args.seed)
    env = RecordingEnv(session.env, session.game_name, seats, meta={"source": "schnauz play"})
    session.env = env
    try:
        yield env
    except (EOFError, KeyboardInterrupt) as quit_:
        if path is not None and env.seed is not None:
            _save(env, path, {"ended": type(quit_).__name__})
        raise
    except Exception as err:
        if type(err).__name__ == "Quit":  # the person typed q (schnauz_env.play.session.Quit)
            if path is not None and env.seed is not None:
                _save(env, path, {"ended": "quit"})
            raise
        if env.seed is not None:
            where = Path(path) if path is not None else crash_path(session.game_name, env.seed)
            error = traceback.format_exception_only(type(err), err)[-1].strip()
            saved = _save(env, where, {"error": error})
            if saved is not None:
                print(
                    f"schnauz play stopped on an error; the game so far is saved in {saved} "
                    f"(schnauz replay {saved} shows it): please attach it to a bug report.",
                    file=sys.stderr,
                )
        raise
    else:
        if path is not None and env.seed is not None:
            saved = _save(env, path, None)
            if saved is not None:
                session.console.print(f"Game record saved to {saved} (schnauz replay {saved}).")


def _save(env: RecordingEnv, path: str | Path, meta: dict[str, Any] | None) -> Path | None:
    try:
        return env.save(path, meta)
    except (OSError, RuntimeError) as err:
        print(f"could not save the game record to {path}: {err}", file=sys.stderr)
        return None


def crash_folder() -> Path:
    """Where crashed games are saved: ``$SCHNAUZ_CRASH_DIR``, else the user's state
    folder (``$XDG_STATE_HOME`` or ``~/.local/state``; ``%LOCALAPPDATA%`` on Windows)
    under ``schnauz_env/crashes``; never the current folder (a checkout, say)."""
    chosen = os.environ.get("SCHNAUZ_CRASH_DIR")
    if chosen:
        return Path(chosen)
    if sys.platform == "win32" and os.environ.get("LOCALAPPDATA"):
        base = Path(os.environ["LOCALAPPDATA"])
    else:
        base = Path(os.environ.get("XDG_STATE_HOME") or Path.home() / ".local" / "state")
    return base / "schnauz_env" / "crashes"


def crash_path(game: str, seed: int) -> Path:
    """A new file for a crashed game's record in :func:`crash_folder` (the temporary
    folder if that cannot be written)."""
    for folder in (crash_folder(), Path(tempfile.gettempdir())):
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError:
            continue
        for k in range(1000):
            path = folder / f"schnauz-crash-{game}-{seed}{f'-{k}' if k else ''}.json"
            if not path.exists() and os.access(folder, os.W_OK):
                return path
    return Path(tempfile.gettempdir()) / f"schnauz-crash-{game}-{seed}.json"
