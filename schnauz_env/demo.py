"""The demo, ``python -m schnauz_env`` (or ``schnauz-demo``): the trained model at the table.

    python -m schnauz_env                       # 4 players, seed 7, then a short evaluation
    python -m schnauz_env --players 3 --deck A5 --seed 1 --policies expert greedy random
    python -m schnauz_env --quiet --eval-games 0   # only the showdowns and the result

First a seeded game, printed move by move: the trained model shipped with the
package (``model``) in seat 0 against the baselines ``expert``, ``greedy`` and
``random``. Then a short evaluation of the seat-0 player against three copies of each
baseline, on duplicate deals with 95% intervals (needs the ``eval`` extra; the
README has the full figures over thousands of games). Numpy only: no torch.

Players are names ``policies.make_policy`` knows (``model``, ``expert``, ``greedy``,
``random``, ``ismcts``) or model files, one per seat; give fewer names than seats and
the list repeats. Without a shipped model for the chosen rules, ``expert`` sits in
seat 0.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from schnauz_env.cards import format_cards
from schnauz_env.schnauz.config import DECK_VARIANTS, MAX_PLAYERS, MIN_PLAYERS
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
        return _main(argv)
    except BrokenPipeError:  # e.g. `python -m schnauz_env | head`: stop quietly
        sys.stderr.close()
        return 0


def _main(argv: Sequence[str] | None) -> int:
    args = _parser().parse_args(argv)
    from policies import available_policies, make_policy
    from schnauz_env import schnauz_v0

    if args.eval_games < 0:
        print("error: --eval-games must be >= 0", file=sys.stderr)
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
        print(f"error: {err}", file=sys.stderr)
        print(f"known players: {', '.join(available_policies('schnauz'))}", file=sys.stderr)
        return 2

    env.reset(seed=args.seed)
    game = env.game
    print(
        f"Schnauz, {args.players} players, deck {args.deck}, {args.lives} lives, seed {args.seed}"
    )
    for seat, name in enumerate(names):
        print(f"  seat {seat}: {name}")
    shown_round = -1
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
        action = players[seat].act(obs["observation"], obs["action_mask"])
        move = env.action_to_string(action)
        rounds_before = game.round
        env.step(action)
        if not args.quiet:
            print(f"   seat {seat} ({names[seat]}): {move}")
        if game.round != rounds_before:  # the move ended a round with a showdown
            _print_showdown(game.last_result, names)
    print("\nFinal places:")
    order = sorted(range(args.players), key=lambda s: game.places[s] or 0)
    for s in order:
        print(f"  {game.places[s]:g}. seat {s} ({names[s]})")
    if args.eval_games:
        return _evaluate(names[0], args)
    return 0


def _evaluate(player: str, args: argparse.Namespace) -> int:
    """Win rate of ``player`` against three copies of each baseline (duplicate deals)."""
    try:
        from policies.evaluation import evaluate
    except ImportError as err:
        print(
            f"\n(the evaluation table needs the eval extra: pip install 'schnauz_env[eval]'; {err})"
        )
        return 0
    options = {"deck": args.deck, "lives": args.lives}
    n = args.players
    print(
        f"\n{player} against {n - 1} copies of each baseline, {args.eval_games} duplicate "
        f"games each (seed {args.seed}; fair share {1 / n:.3f}):"
    )
    print(f"  {'opponents':<12} {'win rate [95% CI]':<24} {'mean place':>10}")
    for baseline in ("expert", "greedy", "random"):
        result = evaluate(
            [player] + [baseline] * (n - 1),
            players=n,
            games=args.eval_games,
            schedule="table",
            seed=args.seed,
            options=options,
        )
        st = result.stats(player)
        ci = f"{st.win_rate:.3f} [{st.win_low:.3f}, {st.win_high:.3f}]"
        print(f"  {f'{n - 1}x {baseline}':<12} {ci:<24} {st.mean_place:>10.2f}")
    print(
        "(short runs are noisy: the README's 'The shipped model' has 4,000-game figures; "
        "schnauz-eval measures any mix)"
    )
    return 0


def _print_showdown(result: RoundResult, names: list[str]) -> None:
    print(f"   showdown ({result.reason}):")
    for s, cards in result.hands.items():
        tag = ""
        if s in result.went_out:
            tag = "  <- out"
        elif s in result.losers:
            tag = f"  <- loses a life ({result.lives_after[s]} left)"
        print(f"     seat {s} {format_cards(cards, symbols=True):<12} {result.labels[s]:<10}{tag}")


if __name__ == "__main__":
    sys.exit(main())
