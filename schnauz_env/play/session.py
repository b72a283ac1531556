"""One game at the terminal: a person in one seat, bots in the others.

The session drives the game's own AEC environment (``raw_env``): the bots see
``observe(agent)`` exactly as in training, and the person's moves go through the
same ``step``. The screen shows the table from the person's seat only.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from rich.console import Console, Group
from rich.panel import Panel
from rich.text import Text

from schnauz_env.games import env_module
from schnauz_env.play.common import BadInput, Screen, place_name

#: How many of the latest moves the screen repeats above your menu.
LOG_LINES = 14


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
        self.ask = ask or (lambda prompt: console.input(prompt))
        self.log: list[Text] = []
        self._last_result: Any = None
        self._watching = False

    # ------------------------------------------------------------------ loop
    def run(self) -> int:
        env = self.env
        env.reset(seed=self.seed)
        for bot in self.bots.values():
            bot.reset()
        state = env.game
        self.console.print(self._banner())
        opening = getattr(state, "opening_result", None)
        if opening is not None:  # Scat: the first deal already ended the round
            self._show_result(opening)
        self._last_result = state.last_result
        while not state.game_over:
            self._drain_dead()
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
                self.console.print(
                    Text("You are out of the game; the bots play on.", style="bold red")
                )
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

    def _drain_dead(self) -> None:
        env = self.env
        while env.agents and (
            env.terminations[env.agent_selection] or env.truncations[env.agent_selection]
        ):
            env.step(None)

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
            self.console.print(line)
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

    def _pause(self, seconds: float) -> None:
        if seconds > 0:
            time.sleep(seconds)

    # ------------------------------------------------------------ your turn
    def _draw(self) -> None:
        state = self.env.game
        if self.clear and self.console.is_terminal:
            self.console.clear()
        parts: list[Any] = [self.screen.table(state)]
        if self.log:
            parts += [Text(""), Text("Since your last move:", style="dim"), *self.log[-LOG_LINES:]]
        self.console.print(
            Panel(
                Group(*parts),
                title=self.screen.header(state),
                title_align="left",
                border_style="blue",
            )
        )
        self.console.print(self.screen.menu(state))

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
                self.console.print(Text(self.screen.help_line(state), style="dim"))
                continue
            try:
                return self.screen.parse(state, text)
            except BadInput as err:
                self.console.print(Text(str(err), style="bold red"))
