"""Schnauz as an OpenSpiel game: ``pyspiel.load_game("python_schnauz", {...})``.

Its contract with OpenSpiel, over the rules of :mod:`schnauz_env.schnauz` (the rest is
:mod:`schnauz_env.openspiel.core`'s, walked through in ``docs/openspiel.md``):

=======================  =========================================================
players                  2 to 6 (parameter ``players``, default 4)
distinct actions         14 (the env's action table, ``schnauz.engine.ACTION_NAMES``)
chance outcomes          the deck's cards (32 for A7, 24 for A9, 40 for A5): the first
                         dealer (a seat, if ``first_dealer=-1``), then each deal card
                         by card, all but the last card
utility                  zero-sum; a whole game returns the final place's value, +1 down
                         to -1; ``episode="round"``: -1 per loser, the others share
                         (at most ``players - 1``)
game length              decisions: at most ``max_turns + 1`` per round (the dealer's
                         choice and the turns), and a round costs someone a life or the
                         game: at most ``players · (lives + 1) - 1`` rounds
parameters               every ``SchnauzConfig`` field (``num_players`` as ``players``,
                         ``first_dealer=None`` as ``-1``)
=======================  =========================================================
"""

from __future__ import annotations

from schnauz_env.common.places import single_round_reward
from schnauz_env.openspiel.core import CardGame, GameSpec
from schnauz_env.schnauz.config import SchnauzConfig
from schnauz_env.schnauz.engine import RoundResult


def max_game_length(config: SchnauzConfig) -> int:
    """Every showdown costs a seat a life or its place, so a game of ``n`` seats with
    ``lives`` each has at most ``n · (lives + 1) - 1`` rounds; a round at most the
    dealer's choice and ``max_turns`` turns."""
    n = config.num_players
    rounds = 1 if config.episode == "round" else n * (config.lives + 1) - 1
    return rounds * (config.max_turns + 1)


def utility_bounds(config: SchnauzConfig) -> tuple[float, float]:
    """Places' values for whole games; single rounds: a loser pays 1, and at most
    ``n - 1`` losers pay the one seat left."""
    n = config.num_players
    if config.episode == "round":
        return single_round_reward(True, 1, n), single_round_reward(False, n - 1, n)
    return -1.0, 1.0


def round_rewards(result: RoundResult) -> dict[int, float]:
    """A single-round episode's rewards (the AEC env's ``CardGameEnv.round_rewards``)."""
    seats = result.seats
    losers = set(result.losers)
    return {s: single_round_reward(s in losers, len(losers), len(seats)) for s in seats}


SPEC = GameSpec.of_game("schnauz", max_game_length, utility_bounds, round_rewards=round_rewards)


class SchnauzGame(CardGame, spec=SPEC):
    """Schnauz as an OpenSpiel game (``pyspiel.load_game("python_schnauz", params)``)."""


GAME_TYPE = SchnauzGame.game_type
