"""``schnauz play``: sit at the table with the package's agents, in a terminal.

    schnauz play                                      # Schnauz, 4 players, you in seat 0
    schnauz play --game scat --players 3 --seat 1 --opponents expert greedy
    schnauz play --game thirteen --speed 0.2
    schnauz play --rules deck=A9 lives=2 --opponents model expert
    schnauz play --opponents path/to/model.npz

Opponents: ``model`` (the trained model shipped for the game and rules; the default
when there is one, else ``expert``), any baseline name (``random``, ``greedy``,
``expert``, ``ismcts``, ...), or the path of a model file. Give fewer names than
bot seats and the list repeats. Rules are the game's config options as
``--rules key=value ...``, typed by the config's fields
(:func:`schnauz_env.common.options.parse_rules`, as on every command line of the
package: ``knock_in_first_circle=false`` is ``False``); ``--help`` lists them.

At the prompt type a move's number or letter; ``?`` shows help, ``q`` quits, and so
do Ctrl-C and Ctrl-D (end of input), with a one-line goodbye.
"""

from __future__ import annotations

import argparse
import importlib
import shutil
import sys
import textwrap
import warnings
from collections.abc import Sequence
from typing import Any

from schnauz_env.common.options import make_config, parse_rules, rules_help
from schnauz_env.games import GAMES, game_module
from schnauz_env.play.command import missing_extra, register
from schnauz_env.play.replay import recording

#: ``schnauz serve``, the browser app (floor 7 beside this one): imported by name, so that
#: the terminal game never imports it (``schnauz --help`` needs neither Starlette nor uvicorn).
SERVE = "schnauz_env.web.cli"
#: The subcommands beside ``play``: the modules that declare and run them
#: (:mod:`schnauz_env.play.command`), in the order ``schnauz --help`` lists them.
SUBCOMMANDS = ("schnauz_env.play.replay", SERVE)
#: The longest pause between the bots' moves (``--speed``), in seconds.
MAX_SPEED = 60.0
SCREENS = {
    "schnauz": "schnauz_env.play.schnauz:SchnauzScreen",
    "scat": "schnauz_env.play.scat:ScatScreen",
    "thirteen": "schnauz_env.play.thirteen:ThirteenScreen",
}


def read_rules(game: str, items: Sequence[str]) -> dict[str, Any]:
    """``--rules key=value ...`` as the game's typed options
    (:func:`schnauz_env.common.options.parse_rules`, the parser of every command line);
    ``ValueError`` with a one-line message for a bad item."""
    if any(str(item).partition("=")[0].strip() == "num_players" for item in items):
        raise ValueError("set the table size with --players, not as a rule")
    return parse_rules(game_module(game).Config, items)


def build_config(game: str, players: int | None, rules: dict[str, Any]) -> Any:
    """The game's rules config for ``players`` seats and ``rules``; ``ValueError`` if invalid."""
    if "num_players" in rules:
        raise ValueError("set the table size with --players, not as a rule")
    config_class = game_module(game).Config
    options = dict(rules)
    if players is not None:
        options["num_players"] = players
    return make_config(config_class, options, game)


def _rules_help() -> str:
    """Every game's rule options with their defaults and meaning, wrapped to the terminal."""
    width = max(60, min(100, shutil.get_terminal_size().columns - 2))
    lines = [
        "rule options: --rules key=value ... (true/false, numbers, none or text);",
        "each game's options with their defaults:",
    ]
    for game in GAMES:
        try:
            config_class = game_module(game).Config
        except (ImportError, AttributeError):  # a game still being written
            continue
        lines.append(f"  {game}:")
        for line in rules_help(config_class):
            lines.append(
                textwrap.fill(line, width, initial_indent="    ", subsequent_indent="        ")
            )
    return "\n".join(lines)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="schnauz",
        description="Card games of schnauz_env in the terminal.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    play = sub.add_parser(
        "play",
        help="play against the package's agents",
        description="Sit at the table with bots: the trained model, a baseline or a model file.",
        epilog=_rules_help(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    play.add_argument("--game", choices=GAMES, default="schnauz", help="the game (default schnauz)")
    play.add_argument("--players", type=int, default=None, help="table size (default: the game's)")
    play.add_argument("--seat", type=int, default=0, help="your seat, 0..players-1 (default 0)")
    play.add_argument(
        "--opponents",
        nargs="+",
        metavar="NAME",
        default=None,
        help="bots in seat order, repeated to fill the table: 'model', a baseline name "
        "or a model file (default: the shipped model, else expert)",
    )
    play.add_argument(
        "--rules", nargs="+", metavar="KEY=VALUE", default=[], help="rule options (see below)"
    )
    play.add_argument(
        "--speed",
        type=float,
        default=0.6,
        help="seconds between the bots' moves (default 0.6; 0 = no delay)",
    )
    play.add_argument("--seed", type=int, default=None, help="seed of the deal and the bots")
    play.add_argument(
        "--no-clear", action="store_true", help="do not clear the screen before your turns"
    )
    play.add_argument(
        "--record", metavar="FILE", help="save the game's record (schnauz replay FILE shows it)"
    )
    play.set_defaults(run=run_play)
    for module in SUBCOMMANDS:
        register(sub, importlib.import_module(module))
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    with warnings.catch_warnings():
        # Without numba (the play extra does not install it) the trained model's expert
        # features run as plain Python: quick enough for one game, nothing to warn about.
        warnings.filterwarnings("ignore", "numba is not installed", RuntimeWarning)
        return _main(argv)


def _main(argv: Sequence[str] | None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    return args.run(args)


def run_play(args: argparse.Namespace) -> int:
    """The ``schnauz play`` command."""
    if missing_extra("play", "play", "rich"):
        return 2
    from rich.console import Console

    from schnauz_env.play.opponents import make_lineup
    from schnauz_env.play.session import PlaySession, Quit

    try:
        if not 0 <= args.speed <= MAX_SPEED:  # also refuses nan and inf
            raise ValueError(f"--speed must be 0..{MAX_SPEED} seconds, got {args.speed}")
        if args.seed is not None and args.seed < 0:
            raise ValueError(f"--seed must be >= 0, got {args.seed}")
        if sys.stdin is None or sys.stdin.closed:
            raise ValueError("schnauz play reads your moves from standard input, which is closed")
        config = build_config(args.game, args.players, read_rules(args.game, args.rules))
        n = config.num_players
        if not 0 <= args.seat < n:
            raise ValueError(f"--seat must be a seat 0..{n - 1} at a table of {n}, got {args.seat}")
        lineup = make_lineup(args.game, config, args.seat, args.opponents, args.seed)
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2

    module, _, cls = SCREENS[args.game].partition(":")
    screen_class = getattr(importlib.import_module(module), cls)
    names = ["You" if s == args.seat else lineup.names[s] for s in range(config.num_players)]
    console = Console(highlight=False)
    session = PlaySession(
        args.game,
        config,
        args.seat,
        lineup.policies,
        screen_class(names, args.seat),
        console,
        speed=args.speed,
        seed=args.seed,
        clear=not args.no_clear,
        note=lineup.note,
    )
    try:
        with recording(session, args):  # --record FILE, and a record of any crash
            return session.run()
    except (EOFError, Quit):
        console.print()
        console.print("Goodbye.")
        return 0
    except KeyboardInterrupt:
        console.print()
        console.print("Goodbye.")
        return 130


if __name__ == "__main__":
    sys.exit(main())
