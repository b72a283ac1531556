"""The ``schnauz-eval`` command: play policies against each other and report (``--help``)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

from policies.evaluation.harness import RECORDS_FILE, evaluate, make_game_config
from policies.evaluation.report import EvalResult, check_out
from policies.evaluation.runner import Interrupted, WorkerDied
from policies.evaluation.schedule import SCHEDULES
from policies.registry import available_policies, make_policy
from schnauz_env.common.options import parse_rules, rules_help
from schnauz_env.games import GAMES, game_module

PROG = "schnauz-eval"

EXAMPLES = """\
examples:
  schnauz-eval --policies random greedy expert --games 2000 --out docs/leaderboard
  schnauz-eval --policies expert ismcts:400 --players 3 --games 200
  schnauz-eval --policies random --players 4 --games 400   # four copies of random
  schnauz-eval --game scat --policies random greedy --rules lives=2 knock_on_first_turn=true
  schnauz-eval --policies model expert expert expert --games 400 --record runs/eval400
Policy names: see --list. A policy may take a parameter after a colon
(greedy:27 knocks at 27 points, ismcts:400 searches 400 determinizations)."""


def rules_epilog() -> str:
    """Every game's rule options with their defaults, for ``--help``."""
    lines = ["rule options (--rules KEY=VALUE ...), shown with their defaults:"]
    for game in GAMES:
        try:
            config_cls = game_module(game).Config
        except (ImportError, AttributeError):  # a game not installed
            continue
        lines.append(f"  {game}:")
        lines += [f"    {line}" for line in rules_help(config_cls)]
    return "\n".join(lines)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=PROG,
        description=(
            "Play policies against each other on duplicate deals and report win rates with "
            "95% Wilson intervals, mean places, lives lost per round, time per move and an "
            "openskill (Plackett-Luce) leaderboard; save JSON, CSV and a PNG plot with --out."
        ),
        epilog=f"{EXAMPLES}\n\n{rules_epilog()}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--game", default="schnauz", help=f"game to play: {', '.join(GAMES)} (default schnauz)"
    )
    p.add_argument("--players", type=int, default=4, help="seats at the table (default 4)")
    p.add_argument(
        "--policies",
        nargs="+",
        default=["random", "greedy", "expert"],
        metavar="NAME",
        help="policies to evaluate: registered names (see --list), optionally NAME:PARAM, or "
        "model file paths (default: random greedy expert)",
    )
    p.add_argument(
        "--games",
        type=int,
        default=200,
        help="games per table (per pairing in a round robin), rounded up to whole sets of "
        "duplicate rotations (default 200)",
    )
    p.add_argument(
        "--games-with",
        action="append",
        default=[],
        metavar="NAME=N",
        help="play only N games at tables holding policy NAME (for slow players; repeatable)",
    )
    p.add_argument(
        "--schedule",
        choices=SCHEDULES,
        default="auto",
        help="'table': the policies sit in the given order, one per seat; 'pairs': round robin, "
        "every pair at its own table with alternating seats; 'auto' (default): table when "
        "there is one policy or one per seat, else pairs",
    )
    p.add_argument(
        "--no-duplicate",
        action="store_true",
        help="fresh deal for every game instead of replaying each deal with the seats rotated",
    )
    p.add_argument(
        "--workers", type=int, default=None, help="worker processes (default: every core)"
    )
    p.add_argument(
        "--seed", type=int, default=0, help="seed of the deals and the policies (default 0)"
    )
    p.add_argument(
        "--rules",
        nargs="+",
        action="extend",
        default=[],
        metavar="KEY=VALUE",
        help="rule options of the game's config, e.g. deck=A9 lives=2 "
        "knock_in_first_circle=false (listed below)",
    )
    p.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="deprecated: one rule option, as in --rules",
    )
    p.add_argument(
        "--out",
        metavar="DIR",
        help="write results.json, leaderboard.csv, pairwise.csv, leaderboard.png here",
    )
    p.add_argument(
        "--overwrite",
        action="store_true",
        help="replace the files of an earlier evaluation in --out DIR (else refused, before "
        "any game is played)",
    )
    p.add_argument(
        "--save-games", action="store_true", help="also write every game to DIR/games.csv"
    )
    p.add_argument(
        "--record",
        metavar="DIR",
        help="write every game's record to DIR/records.jsonl (JSON Lines; replay one with "
        "'schnauz replay DIR/records.jsonl --index N'; docs/records.md)",
    )
    p.add_argument(
        "--record-sample",
        type=int,
        metavar="K",
        help="with --record: record only K games, chosen by --seed",
    )
    p.add_argument(
        "--record-details",
        action="store_true",
        help="with --record: also keep each move's legal actions and the policy's probabilities",
    )
    p.add_argument(
        "--markdown", action="store_true", help="also print the leaderboard as a Markdown table"
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--list", action="store_true", help="list the policy names of --game and exit")
    return p


def _fail(message: str) -> NoReturn:
    """A one-line error on stderr and exit code 2 (argparse's code for bad arguments)."""
    print(f"{PROG}: error: {message}", file=sys.stderr)
    raise SystemExit(2)


def _pairs(items: Sequence[str], what: str) -> dict[str, str]:
    out = {}
    for item in items:
        k, sep, v = item.partition("=")
        if not sep or not k:
            _fail(f"{what} must look like KEY=VALUE, got {item!r}")
        out[k] = v
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """The ``schnauz-eval`` command (``--help`` documents it)."""
    args = build_parser().parse_args(argv)
    if args.game not in GAMES:
        _fail(f"unknown game {args.game!r}; known games: {', '.join(GAMES)}")
    try:
        config_cls = game_module(args.game).Config
    except ModuleNotFoundError:
        _fail(f"game {args.game!r} is not available in this installation yet")
    if args.list:
        print("\n".join(available_policies(args.game)))
        return 0
    if args.option:
        print(
            f"{PROG}: warning: --option is deprecated; write --rules KEY=VALUE ... instead",
            file=sys.stderr,
        )
    try:
        options = parse_rules(config_cls, [*args.rules, *args.option])
    except ValueError as err:
        _fail(str(err))
    games_with = {}
    for k, v in _pairs(args.games_with, "--games-with").items():
        try:
            games_with[k] = int(v)
        except ValueError:
            _fail(f"--games-with {k}={v}: N must be an integer")
        if games_with[k] < 1:
            _fail(f"--games-with {k}={v}: N must be at least 1")
    if args.games < 1:
        _fail(f"--games must be at least 1, got {args.games}")
    if args.workers is not None and args.workers < 1:
        _fail(f"--workers must be at least 1, got {args.workers}")
    if args.record is None and (args.record_sample is not None or args.record_details):
        _fail("--record-sample and --record-details need --record DIR")
    if args.record_sample is not None and args.record_sample < 0:
        _fail(f"--record-sample must be >= 0, got {args.record_sample}")
    if args.seed < 0:
        _fail(f"--seed must be >= 0, got {args.seed}")
    if args.out is None and (args.overwrite or args.save_games):
        _fail("--overwrite and --save-games need --out DIR")
    if args.out is not None:
        try:  # before any game is played: an evaluation is never thrown away at the end
            check_out(args.out, args.save_games, args.overwrite)
        except (ValueError, FileExistsError) as err:
            _fail(f"--out: {err}")
    try:
        config = make_game_config(args.game, args.players, options)
    except (ValueError, TypeError) as err:
        _fail(f"bad table or rule option: {err}")
    for name in args.policies:
        try:
            make_policy(name, game=args.game, config=config, seed=0)
        except ValueError as err:
            _fail(str(err))
    command = f"{PROG} " + " ".join(sys.argv[1:] if argv is None else list(argv))
    try:
        result = evaluate(
            args.policies,
            game=args.game,
            players=args.players,
            games=args.games,
            schedule=args.schedule,
            duplicate=not args.no_duplicate,
            workers=args.workers,
            seed=args.seed,
            options=options,
            games_with=games_with,
            progress=not args.quiet,
            record=args.record,
            record_sample=args.record_sample,
            record_details=args.record_details,
        )
    except (ValueError, FileExistsError) as err:
        _fail(str(err))
    except WorkerDied as err:
        print(f"{PROG}: error: {err}", file=sys.stderr)
        return 1
    except Interrupted as stop:
        return _interrupted(stop, args, command)
    result.settings["command"] = command
    result.print_table()
    if args.markdown:
        print(result.markdown())
    _save(result, args)
    return 0


def _save(result: EvalResult, args: argparse.Namespace) -> None:
    """Write ``--out`` and say where the files and records went."""
    if args.out:
        for path in result.save(args.out, games_csv=args.save_games, overwrite=args.overwrite):
            print(f"wrote {path}")
    if args.record:
        count = result.settings["recorded_games"]
        print(f"wrote {count} game records to {Path(args.record) / RECORDS_FILE}")


def _interrupted(stop: Interrupted, args: argparse.Namespace, command: str) -> int:
    """Ctrl-C: save the games finished so far, marked as partial; exit code 130."""
    print(f"\n{PROG}: interrupted after {len(stop.records)} of {stop.total} games", file=sys.stderr)
    result = stop.result
    if result is not None:
        result.settings["command"] = command
        result.print_table()
        _save(result, args)
        if args.out:
            print(f'(partial: results.json says "partial": true, {len(stop.records)} games)')
    return 130


if __name__ == "__main__":
    raise SystemExit(main())
