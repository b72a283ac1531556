"""OpenSpiel's ISMCTSBot on the OpenSpiel games, against uniform random players.

    python bench/openspiel_ismcts.py                    # every game, 2 players, 40 games each
    python bench/openspiel_ismcts.py --game scat --players 4 --games 100 --simulations 50
    python bench/openspiel_ismcts.py --game schnauz --rules lives=1 --opponent mcts

Each game of each table plays one ``ISMCTSBot`` (``open_spiel.python.algorithms.ismcts``,
unchanged; its seat rotates from game to game) against ``--players - 1`` opponents:
OpenSpiel's ``UniformRandomBot`` (``--opponent random``), or OpenSpiel's ``MCTSBot``
with random rollouts and the same budget (``--opponent mcts``; it searches the true
state, so it sees every hidden card). The games run through OpenSpiel's own
``evaluate_bots`` on ``pyspiel.load_game("python_<game>", params)``, every deal drawn
at its chance nodes. ISMCTS samples worlds with the game's ``resample_from_infostate``
(the engine's ``determinize``) from a seeded generator.

Its leaf evaluation is a random rollout to the end of the game. ``--evaluator playout``
(the default) rolls out with the state's ``playout``: uniformly random legal actions
and deals, exactly what ``mcts.RandomRolloutEvaluator`` does, stepped in Python without
OpenSpiel's per-step bookkeeping (several times faster); ``--evaluator openspiel`` uses
``mcts.RandomRolloutEvaluator`` itself.

Reported per game: ISMCTS's win rate (first place) with its 95% Wilson interval, its
mean return (the final place's value, +1 down to -1) with a 95% t interval, the mean
number of decisions per game, and the CPU seconds per game of this process.
"""

from __future__ import annotations

import argparse
import random
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts
from open_spiel.python.algorithms.evaluate_bots import evaluate_bots
from open_spiel.python.bots.uniform_random import UniformRandomBot

from policies.evaluation.stats import mean_interval, wilson_interval
from schnauz_env.common.options import parse_rules
from schnauz_env.games import GAMES, game_module
from schnauz_env.openspiel import GAME_NAMES, parameters_of, seeded_resampler


class SearchBot(ismcts.ISMCTSBot):
    """OpenSpiel's ISMCTSBot. ``evaluate_bots`` calls ``restart_at``, which it does not
    implement; it builds a new tree every move, so there is nothing to restart."""

    def restart_at(self, state: Any) -> None:
        pass


class PlayoutEvaluator(mcts.RandomRolloutEvaluator):
    """``mcts.RandomRolloutEvaluator`` with its rollouts played by the state's
    ``playout`` (the same uniform random actions and deals, faster); the same prior."""

    def __init__(self, n_rollouts: int, seed: int) -> None:
        super().__init__(n_rollouts, np.random.RandomState(seed))
        self._rng = random.Random(seed)

    def evaluate(self, state: Any) -> np.ndarray:
        total = np.zeros(state.num_players())
        for _ in range(self.n_rollouts):
            total += state.playout(self._rng)
        return total / self.n_rollouts


@dataclass
class Tally:
    """ISMCTS's results over the games of one table."""

    returns: list[float] = field(default_factory=list)
    wins: int = 0
    decisions: int = 0
    cpu: float = 0.0


def play(game: Any, args: argparse.Namespace, seed: int) -> Tally:
    """``args.games`` games of ``game``, ISMCTS's seat rotating."""
    n = game.num_players()
    rs = np.random.RandomState(seed)
    if args.evaluator == "playout":
        evaluator: mcts.Evaluator = PlayoutEvaluator(args.rollouts, seed)
    else:
        evaluator = mcts.RandomRolloutEvaluator(args.rollouts, rs)
    bot = SearchBot(game, evaluator, args.uct_c, args.simulations, random_state=rs)
    bot.set_resampler(seeded_resampler(seed))
    tally = Tally()
    for k in range(args.games):
        seat = k % n
        bots: list[Any] = []
        for s in range(n):
            if s == seat:
                bots.append(bot)
            elif args.opponent == "mcts":
                rollout = PlayoutEvaluator(args.rollouts, seed * 1000 + 10 * k + s)
                bots.append(
                    mcts.MCTSBot(
                        game,
                        args.uct_c,
                        args.simulations,
                        rollout,
                        random_state=np.random.RandomState(seed * 1000 + 10 * k + s),
                    )
                )
            else:
                bots.append(UniformRandomBot(s, np.random.RandomState(seed * 1000 + 10 * k + s)))
        start = time.process_time()
        state = game.new_initial_state()
        returns = evaluate_bots(state, bots, np.random.RandomState(seed * 1000 + k))
        tally.cpu += time.process_time() - start
        tally.returns.append(returns[seat])
        tally.wins += int(state.engine.places[seat] == 1.0)  # (None in single rounds)
        tally.decisions += sum(1 for step in state.full_history() if step.player >= 0)
        if args.verbose:
            print(f"  game {k + 1}: seat {seat}, return {returns[seat]:+.3f}", flush=True)
    return tally


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", nargs="+", choices=GAMES, default=list(GAMES))
    parser.add_argument("--players", type=int, default=2, help="table size (default 2)")
    parser.add_argument("--games", type=int, default=40, help="games per game (default 40)")
    parser.add_argument("--simulations", type=int, default=20, help="ISMCTS simulations/move")
    parser.add_argument("--rollouts", type=int, default=1, help="random rollouts per leaf")
    parser.add_argument("--uct-c", type=float, default=2.0, help="UCT exploration constant")
    parser.add_argument("--evaluator", choices=("playout", "openspiel"), default="playout")
    parser.add_argument("--opponent", choices=("random", "mcts"), default="random")
    parser.add_argument("--rules", nargs="*", default=[], help="rule options key=value")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--verbose", action="store_true", help="print every game")
    args = parser.parse_args(argv)

    print(
        f"ISMCTSBot ({args.simulations} simulations, {args.rollouts} rollout(s) per leaf, "
        f"uct_c {args.uct_c}, evaluator {args.evaluator}) vs {args.players - 1} x "
        f"{args.opponent}; {args.games} games per game, seat rotating, seed {args.seed}"
    )
    header = f"{'game':<10} {'win rate [95% CI]':<24} {'mean return [95% CI]':<28} "
    print(header + f"{'moves/game':>10} {'CPU s/game':>11}")
    for name in args.game:
        config_cls = game_module(name).Config
        config = config_cls(num_players=args.players, **parse_rules(config_cls, args.rules))
        whole = getattr(config, "episode", "game") != "round"  # a round has no winner
        game = pyspiel.load_game(GAME_NAMES[name], parameters_of(config))
        tally = play(game, args, args.seed)
        n = len(tally.returns)
        low, high = wilson_interval(tally.wins, n)
        mean, mlow, mhigh = mean_interval(tally.returns)
        win = f"{tally.wins / n:.3f} [{low:.3f}, {high:.3f}]" if whole else "-"
        print(
            f"{name:<10} {win:<24} {f'{mean:+.3f} [{mlow:+.3f}, {mhigh:+.3f}]':<28} "
            f"{tally.decisions / n:>10.0f} {tally.cpu / n:>11.2f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
