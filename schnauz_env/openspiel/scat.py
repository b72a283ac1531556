"""Scat as an OpenSpiel game: ``pyspiel.load_game("python_scat", {...})``.

Its contract with OpenSpiel, over the rules of :mod:`schnauz_env.scat` (the rest is
:mod:`schnauz_env.openspiel.core`'s, walked through in ``docs/openspiel.md``):

=======================  =========================================================
players                  2 to 7 (parameter ``players``, default 4)
distinct actions         9 (the env's action table, ``scat.engine.ACTION_NAMES``)
chance outcomes          52 cards: the first dealer (a seat, if ``first_dealer=-1``),
                         then each deal card by card, all but the last card
utility                  zero-sum; a whole game returns the final place's value, +1 down
                         to -1; ``episode="round"``: minus the lives lost (at most 2),
                         the seats that lost none share the total (at most
                         ``max(players - 1, 2)``)
game length              decisions: a turn is at most two (draw, discard), a round at
                         most ``max_turns`` turns, a knock and ``players - 1`` final turns;
                         a round costs someone a life, so at most
                         ``players · (lives + 1) · (buy_ins + 1) - 1`` rounds
parameters               every ``ScatConfig`` field (``num_players`` as ``players``,
                         ``first_dealer=None`` as ``-1``)
=======================  =========================================================
"""

from __future__ import annotations

from schnauz_env.openspiel.core import CardGame, GameSpec
from schnauz_env.scat.config import ScatConfig
from schnauz_env.scat.engine import RoundResult, round_reward


def max_game_length(config: ScatConfig) -> int:
    """Every round costs a seat at least a life (lives run ``lives`` .. 0, then out, and
    each buy-in starts them again), so at most ``n · (lives + 1) · (buy_ins + 1) - 1``
    rounds; a round at most ``max_turns`` turns of two actions before a knock, the knock,
    and ``n - 1`` final turns of two."""
    n = config.num_players
    lives = (config.lives + 1) * (config.buy_ins + 1)
    rounds = 1 if config.episode == "round" else n * lives - 1
    return rounds * (2 * config.max_turns + 1 + 2 * (n - 1))


def utility_bounds(config: ScatConfig) -> tuple[float, float]:
    """Places' values for whole games; single rounds: a knocker strictly lowest pays 2,
    and the most one winner collects is ``n - 1`` (a blitz) or 2 (that knocker)."""
    n = config.num_players
    if config.episode == "round":
        return round_reward(2, 2, n - 1, n), round_reward(0, max(n - 1, 2), 1, n)
    return -1.0, 1.0


def round_rewards(result: RoundResult) -> dict[int, float]:
    """A single-round episode's rewards (the AEC env's ``scat.env.raw_env.round_rewards``)."""
    seats = result.seats
    lost = {s: result.losses.get(s, 0) for s in seats}
    total = sum(lost.values())
    winners = sum(1 for s in seats if lost[s] == 0)
    return {s: round_reward(lost[s], total, winners, len(seats)) for s in seats}


SPEC = GameSpec.of_game("scat", max_game_length, utility_bounds, round_rewards=round_rewards)


class ScatGame(CardGame, spec=SPEC):
    """Scat as an OpenSpiel game (``pyspiel.load_game("python_scat", params)``)."""


GAME_TYPE = ScatGame.game_type
