"""The demo, ``python -m schnauz_env`` (or ``schnauz-demo``): the trained model at the table.

    python -m schnauz_env                       # 4 players, seed 7, then a short evaluation
    python -m schnauz_env --players 3 --deck A5 --seed 1 --policies expert greedy random
    python -m schnauz_env --quiet --eval-games 0   # only the showdowns and the result

First a seeded game, printed move by move: the trained model shipped with the
package (``model``) in seat 0 against the baselines ``expert``, ``greedy`` and
``random``; every hand at the deal, each move, the face-up table after each change,
and each showdown in the terminal game's words (:mod:`schnauz_env.play.words`). Then a
short evaluation of the seat-0 player against three copies of each baseline, on
duplicate deals with 95% intervals (needs the ``eval`` extra; the README has the full
figures over thousands of games), a line of progress for each. Numpy only: no torch
(numba, when installed, compiles the model's expert features once and caches them).

Players are names ``policies.make_policy`` knows (``model``, ``expert``, ``greedy``,
``random``, ``ismcts``) or model files, one per seat; give fewer names than seats and
the list repeats. Without a shipped model for the chosen rules, ``expert`` sits in
seat 0.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from collections.abc import Sequence
from typing import Any, TextIO

from schnauz_env.cards import format_cards
from schnauz_env.play.words import SCHNAUZ_REASONS, ZERO_LIVES, ZERO_MEANING, schnauz_outcome
from schnauz_env.schnauz.config import DECK_VARIANTS, MAX_PLAYERS, MIN_PLAYERS, SchnauzConfig
from schnauz_env.schnauz.engine import RoundResult


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m schnauz_env",
        description="Play and print a seeded Schnauz game between built-in players.",
    )
    p.add_argument(
        "--players", type=int, default=4, help=f"{MIN_PLAYERS}-{MAX_PLAYERS} (default 4)"
    )
    p.add_argument("--deck", default="A7", choices=sorted(DECK_VARIANTS), help="deck variant")
    p.add_argument("--lives", type=int, default=3, help="lives per player (default 3)")
    p.add_argument("--seed", type=int, default=7, help="seed of the deal and the players")
    p.add_argument(
        "--policies",
        nargs="+",
        default=None,
        metavar="NAME",
        help="a player per seat, repeated to fill the table (default: model expert greedy "
        "random, or expert in seat 0 when no model ships for these rules)",
    )
    p.add_argument("--quiet", action="store_true", help="print only showdowns and the result")
    p.add_argument(
        "--eval-games",
        type=int,
        default=100,
        metavar="N",
        help="then play N duplicate games of seat 0's player against three copies of each "
        "baseline and print its win rates (default 100; 0: skip)",
    )
    return p


def main(argv: Sequence[str] | None = None) -> int:
    try:
        with warnings.catch_warnings():
            # Without numba the trained model's expert features run as plain Python: a
            # game is still quick, and the evaluation says that it runs slower.
            warnings.filterwarnings("ignore", "numba is not installed", RuntimeWarning)
            return _main(argv)
    except BrokenPipeError:  # e.g. `python -m schnauz_env | head`: stop quietly
        sys.stderr.close()
        return 0


class Progress:
    """What the demo is busy with: one line rewritten in place on a terminal, plain
    lines when the output is a file or a pipe."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stdout
        self.tty = self.stream.isatty()

    def busy(self, text: str) -> None:
        if self.tty:
            self.stream.write(f"\r\x1b[K{text}")
        else:
            self.stream.write(f"{text}\n")
        self.stream.flush()

    def clear(self) -> None:
        """Remove the busy line (on a terminal; elsewhere it stays as a log line)."""
        if self.tty:
            self.stream.write("\r\x1b[K")
            self.stream.flush()


def _main(argv: Sequence[str] | None) -> int:
    args = _parser().parse_args(argv)
    from policies import available_policies, make_policy
    from schnauz_env import schnauz_v0

    if args.eval_games < 0:
        print("error: --eval-games must be >= 0", file=sys.stderr)
        return 2
    if args.seed < 0:
        print(f"error: --seed must be >= 0, got {args.seed}", file=sys.stderr)
        return 2
    try:
        env = schnauz_v0.raw_env(num_players=args.players, deck=args.deck, lives=args.lives)
        wanted = args.policies
        if wanted is None:
            from policies.mlp import SHIPPED, shipped_model

            has_model = shipped_model("schnauz", env.config) is not None
            wanted = [SHIPPED if has_model else "expert", "expert", "greedy", "random"]
            if not has_model:
                print("(no trained model ships for these rules: expert sits in seat 0)")
        names = [wanted[i % len(wanted)] for i in range(args.players)]
        players = [
            make_policy(name, game="schnauz", config=env.config, seed=args.seed + i)
            for i, name in enumerate(names)
        ]
    except ValueError as err:
        known = f"; known players: {', '.join(available_policies('schnauz'))}"
        print(f"error: {err}{known if 'polic' in str(err) else ''}", file=sys.stderr)
        return 2

    print(
        f"Schnauz, {args.players} players, deck {args.deck}, {args.lives} lives, seed {args.seed}"
    )
    for seat, name in enumerate(names):
        print(f"  seat {seat}: {name}")
    _warm_up(names, env.config, args.seed)
    _play(env, players, names, args)
    if args.eval_games:
        return _evaluate(names[0], args)
    return 0


def _warm_up(names: list[str], config: SchnauzConfig, seed: int) -> None:
    """Let every kind of player make one move on a scratch table, so that compiling the
    trained model's kernels (about 10 s the first time, then cached) happens here,
    announced, and not in the middle of the game. The game's own players are untouched."""
    from policies import make_policy
    from schnauz_env import schnauz_v0

    progress = Progress()
    progress.busy("Getting the players ready (the first run compiles the model's kernels)…")
    start = time.perf_counter()
    scratch = schnauz_v0.raw_env(**config.to_dict())
    scratch.reset(seed=seed)
    obs = scratch.observe(scratch.agent_selection)
    for name in dict.fromkeys(names):
        make_policy(name, game="schnauz", config=config, seed=0).act(
            obs["observation"], obs["action_mask"]
        )
    progress.clear()
    if not progress.tty:
        print(f"Players ready in {time.perf_counter() - start:.1f} s.")


def _play(env: Any, players: list[Any], names: list[str], args: argparse.Namespace) -> None:
    """One game, printed move by move: every hand at the deal, each move, the face-up
    table after each change, and each showdown (``--quiet``: only the showdowns)."""
    env.reset(seed=args.seed)
    game = env.game
    shown_round = -1
    table = list(game.table)
    last = game.last_result
    explained = False
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        seat = env.agent_name_mapping[agent]
        if game.round != shown_round and not args.quiet:
            shown_round = game.round
            print(f"\n-- round {game.round + 1}: dealer seat {game.dealer}")
            for s in game.active:
                print(f"   seat {s} holds {format_cards(game.hands[s], symbols=True)}")
            table = list(game.table)
        action = players[seat].act(obs["observation"], obs["action_mask"])
        move = env.action_to_string(action)
        env.step(action)
        if not args.quiet:
            print(f"   seat {seat} ({names[seat]}): {move}")
        if game.last_result is not last:  # the move ended a round with a showdown
            last = game.last_result
            explained = _print_showdown(last, names, explained)
            table = list(game.table)
        elif game.table != table:
            table = list(game.table)
            if not args.quiet:
                print(f"      table: {format_cards(table, symbols=True)}")
    print("\nFinal places:")
    order = sorted(range(args.players), key=lambda s: game.places[s] or 0)
    for s in order:
        print(f"  {game.places[s]:g}. seat {s} ({names[s]})")


def _evaluate(player: str, args: argparse.Namespace) -> int:
    """Win rate of ``player`` against three copies of each baseline (duplicate deals)."""
    try:
        from policies.evaluation import evaluate
    except ImportError as err:
        print(
            f"\n(the evaluation table needs the eval extra: pip install 'schnauz_env[eval]'; {err})"
        )
        return 0
    from schnauz_env.batched.jit import HAVE_NUMBA, INSTALL_HINT

    options = {"deck": args.deck, "lives": args.lives}
    n = args.players
    print(
        f"\n{player} against {n - 1} copies of each baseline, {args.eval_games} duplicate "
        f"games each (seed {args.seed}; fair share {1 / n:.3f}):"
    )
    if not HAVE_NUMBA:
        print(f"  (numba is not installed, so this runs slower: {INSTALL_HINT})")
    print(f"  {'opponents':<12} {'win rate [95% CI]':<24} {'mean place':>10}")
    progress = Progress()
    start = time.perf_counter()
    for baseline in ("expert", "greedy", "random"):
        label = f"{n - 1}x {baseline}"
        progress.busy(f"  {label:<12} playing {args.eval_games} games…")
        result = evaluate(
            [player] + [baseline] * (n - 1),
            players=n,
            games=args.eval_games,
            schedule="table",
            seed=args.seed,
            options=options,
        )
        progress.clear()
        st = result.stats(player)
        ci = f"{st.win_rate:.3f} [{st.win_low:.3f}, {st.win_high:.3f}]"
        print(f"  {label:<12} {ci:<24} {st.mean_place:>10.2f}")
    print(
        f"({time.perf_counter() - start:.0f} s. Short runs are noisy: the README's 'The shipped "
        "model' has 4,000-game figures; schnauz-eval measures any mix)"
    )
    return 0


def _print_showdown(result: RoundResult, names: list[str], explained: bool) -> bool:
    """Every hand of a showdown, its value and what it cost, in the terminal game's
    words; the first time someone is swimming, what that means. Returns whether it has
    been explained now."""
    print(f"   showdown, round {result.round + 1}: {SCHNAUZ_REASONS[result.reason]}")
    for s, cards in result.hands.items():
        outcome = schnauz_outcome(result, s)
        tag = f"  <- {outcome}" if outcome else ""
        line = f"     seat {s} {format_cards(cards, symbols=True):<12} {result.labels[s]:<10}{tag}"
        print(line.rstrip())
    swimming = any(result.lives_after[s] == 0 for s in result.losers if s not in result.went_out)
    if swimming and not explained:
        print(f"   ({ZERO_LIVES['schnauz']}: {ZERO_MEANING})")
        return True
    return explained


if __name__ == "__main__":
    sys.exit(main())
