"""One game at the terminal: a person in one seat, bots in the others.

The session drives the game's own AEC environment (``raw_env``): the bots see
``observe(agent)`` exactly as in training, and the person's moves go through the
same ``step``. The screen shows the table from the person's seat only.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any

from rich.console import Console, Group, RenderableType
from rich.panel import Panel
from rich.text import Text

from schnauz_env.common.aec import step_out_dead
from schnauz_env.games import env_module
from schnauz_env.play.common import BadInput, Screen, place_name

#: How many of the latest moves the screen repeats above your menu.
LOG_LINES = 14
#: Lines kept free below your turn's screen: the prompt, an answer to a bad move (up to
#: two lines), the prompt again.
PROMPT_LINES = 4


def flush_input() -> None:
    """Drop the keys typed ahead on a terminal's input (nothing when it is not one)."""
    try:
        if not sys.stdin.isatty():
            return
    except (AttributeError, ValueError):  # no stdin, or a closed one
        return
    try:
        import termios
    except ImportError:  # Windows
        import msvcrt

        while msvcrt.kbhit():
            msvcrt.getwch()
        return
    termios.tcflush(sys.stdin.fileno(), termios.TCIFLUSH)


class Quit(Exception):
    """The person asked to leave the table."""


class PlaySession:
    """Seat a person at ``seat`` of a ``game`` table with the given bots and play one game."""

    def __init__(
        self,
        game: str,
        config: Any,
        seat: int,
        bots: dict[int, Any],
        screen: Screen,
        console: Console,
        speed: float = 0.5,
        seed: int | None = None,
        clear: bool = True,
        note: str = "",
        ask: Callable[[str], str] | None = None,
    ) -> None:
        options = {name: getattr(config, name) for name in config.__dataclass_fields__}
        self.env = env_module(game).raw_env(**options)
        self.game_name = game
        self.config = config
        self.seat = seat
        self.bots = bots
        self.screen = screen
        self.console = console
        self.speed = speed
        self.seed = seed
        self.clear = clear
        self.note = note
        self.ask = ask or self._ask_terminal
        self.log: list[Text] = []
        self._last_result: Any = None
        self._watching = False
        self._warned_small = False
        self._note_seen = False

    # ------------------------------------------------------------------ loop
    def run(self) -> int:
        env = self.env
        env.reset(seed=self.seed)
        for bot in self.bots.values():
            bot.reset()
        state = env.game
        self.say(self._banner())
        opening = getattr(state, "opening_result", None)
        if opening is not None:  # Scat: the first deal already ended the round
            self._show_result(opening)
        self._last_result = state.last_result
        while not state.game_over:
            step_out_dead(self.env)
            if state.game_over:
                break
            seat = state.current
            if seat == self.seat and not self.screen.is_out(state):
                actions = self._ask_move()
                for a in actions:
                    self._play(seat, a)
            else:
                obs = env.observe(env.agent_selection)
                action = int(self.bots[seat].act(obs["observation"], obs["action_mask"]))
                if self._play(seat, action):
                    self._pause(self.speed)
            if not self._watching and self.screen.is_out(state) and not state.game_over:
                self._watching = True
                self.say(Text("You are out of the game; the bots play on.", style="bold red"))
                self.ask("Press Enter to watch the rest (q quits) ")
        place = state.places[self.seat]
        verdict = Text("")
        if place == 1:
            verdict = Text("You win!", style="bold green")
        elif place is not None:
            verdict = Text(f"You finished {place_name(place)}.", style="bold")
        self.console.print(
            Panel(
                Group(self.screen.header(state), verdict, Text(""), self.screen.final(state)),
                title="Game over",
                title_align="left",
                border_style="green",
            )
        )
        return 0

    def _banner(self) -> Text:
        text = Text.assemble(
            (f"{self.screen.game}", "bold"),
            f" · {self.config.num_players} players · you are seat {self.seat}",
        )
        if self.seed is not None:
            text.append(f" · seed {self.seed}")
        if self.note:
            text.append(f"\n{self.note}", style="italic")
        return text

    def _play(self, seat: int, action: int) -> bool:
        """Step ``action`` for ``seat``; print what the table saw. True if anything was shown."""
        state = self.env.game
        said = self.screen.announce(state, seat, action)
        self.env.step(action)
        shown = False
        if said is not None:
            who = self.screen.subject(seat)
            line = Text.assemble((who, "bold" if seat == self.seat else "cyan"), f": {said}")
            self.log.append(line)
            self.say(line)
            shown = True
        result = state.last_result
        if result is not None and result is not self._last_result:
            self._last_result = result
            self._show_result(result)
        return shown

    def _show_result(self, result: Any) -> None:
        screen = self.screen
        shown = screen.results(result, self.env.game)
        self.console.print(shown)
        if not screen.is_showdown(result):
            if isinstance(shown, Text):
                self.log.append(shown)
            return
        self.log.clear()
        self._note_seen = True
        if self.env.game.game_over:
            return
        if self._watching:
            self._pause(4 * self.speed)
        else:
            self._continue_prompt()

    def _continue_prompt(self) -> None:
        text = self.ask("Press Enter to continue (q quits) ")
        if text.strip().lower() in ("q", "quit", "exit"):
            raise Quit

    def _ask_terminal(self, prompt: str) -> str:
        """Read a line at ``prompt``, ignoring whatever was typed before it appeared: a key
        pressed while the bots played must not answer "Press Enter" and skip a showdown."""
        flush_input()
        return self.console.input(prompt)

    def say(self, text: Text) -> None:
        """Print a message wrapped one column short of the terminal's width: a line that
        fills the last column makes some terminals wrap early and show a blank line."""
        self.console.print(text, width=max(20, self.console.width - 1))

    def _pause(self, seconds: float) -> None:
        if seconds > 0:
            time.sleep(seconds)

    # ------------------------------------------------------------ your turn
    def _draw(self) -> None:
        state = self.env.game
        if self.clear and self.console.is_terminal:
            self.console.clear()
        self.console.print(self.turn_screen(state))

    def turn_screen(self, state: Any) -> RenderableType:
        """What you see at your turn: the table in a panel, the moves since your last
        turn, your menu. In a terminal too small for that (80×24 with five bots, say),
        the compact layout: no panel and no blank lines, the moves side by side, and the
        latest moves since your turn on as few lines as fit, above the prompt."""
        screen = self.screen
        notes = [n.copy() for n in screen.explain(state)]
        if self.note and not self._note_seen:  # who your opponents are, until a showdown
            notes.insert(0, Text(self.note))
        for note in notes:
            note.stylize("italic")
        parts: list[Any] = [screen.table(state), *notes]
        if self.log:
            parts += [Text(""), Text("Since your last move:", style="dim"), *self.log[-LOG_LINES:]]
        full = Group(
            Panel(
                Group(*parts), title=screen.header(state), title_align="left", border_style="blue"
            ),
            screen.menu(state),
        )
        room = self.console.height - PROMPT_LINES
        if not self.console.is_terminal or self._height(full) <= room:
            return full
        header = screen.header(state)
        header.stylize("reverse")
        table = Group(screen.table(state, compact=True), *notes)
        menu = screen.menu(state, compact=True)
        free = room - self._height(Group(header, table, menu))
        log = self._compact_log(free)
        if free < 0 and not self._warned_small:
            self._warned_small = True
            size = self.console.size
            header.append(
                f"  (a {size.width}×{size.height} terminal is too small: the game needs "
                f"{size.height - free} lines)",
                style="bold red",
            )
        return Group(header, table, *([log] if log is not None else []), menu)

    def _compact_log(self, lines: int) -> Text | None:
        """The latest moves since your turn, run together on at most ``lines`` lines."""
        if not self.log or lines <= 0:
            return None
        entries = self.log[-LOG_LINES:]
        dropped = len(self.log) - len(entries)
        while entries:
            text = Text("… " if dropped else "", style="dim").append_text(Text(" · ").join(entries))
            if self._height(text) <= lines:
                return text
            entries = entries[1:]
            dropped += 1
        return None

    def _height(self, renderable: RenderableType) -> int:
        """How many lines ``renderable`` takes on this console."""
        return len(self.console.render_lines(renderable, self.console.options, pad=False))

    def _ask_move(self) -> tuple[int, ...]:
        state = self.env.game
        self._draw()
        self.log.clear()
        while True:
            text = self.ask("> ")
            typed = text.strip().lower()
            if typed in ("q", "quit", "exit"):
                raise Quit
            if typed in ("?", "help"):
                extra = self.screen.extra_help(state)
                self.console.print(extra if extra is not None else self.screen.menu(state))
                self.say(Text(self.screen.help_line(state), style="dim"))
                continue
            try:
                return self.screen.parse(state, text)
            except BadInput as err:
                self.say(Text(str(err), style="bold red"))
