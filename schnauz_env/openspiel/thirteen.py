"""Thirteen as an OpenSpiel game: ``pyspiel.load_game("python_thirteen", {...})``.

Its contract with OpenSpiel, over the rules of :mod:`schnauz_env.thirteen` (the rest is
:mod:`schnauz_env.openspiel.core`'s, walked through in ``docs/openspiel.md``):

=======================  =========================================================
players                  2 to 4 (parameter ``players``, default 4)
distinct actions         54 (the env's action table: select a card 0..51, play, pass)
chance outcomes          52 cards: each game's deal card by card, the ``13 · players``
                         dealt cards (51 at four players, the last forced); Thirteen has
                         no dealer
utility                  zero-sum; the final place's value, +1 down to -1 (places by
                         going out, or by match score with ``episode="match"``)
game length              decisions: a game at most ``13 · n`` selections, ``13 · n``
                         plays, ``n - 1`` passes after each play and one instant-win
                         declaration; a match at most ``max_games`` games
parameters               every ``ThirteenConfig`` field (``num_players`` as ``players``)
=======================  =========================================================
"""

from __future__ import annotations

from schnauz_env.openspiel.core import CardGame, GameSpec
from schnauz_env.thirteen.config import HAND_SIZE, ThirteenConfig


def max_game_length(config: ThirteenConfig) -> int:
    """Each dealt card is selected once and played in a play of at least one card, at
    most ``n - 1`` passes follow a play before the table clears, and one instant win
    may be declared: ``13n + 13n + 13n(n - 1) + 1`` per game."""
    n = config.num_players
    cards = HAND_SIZE * n
    games = 1 if config.episode == "game" else config.max_games
    return games * (2 * cards + cards * (n - 1) + 1)


def utility_bounds(config: ThirteenConfig) -> tuple[float, float]:
    """Places' values: +1 for the best down to -1."""
    return -1.0, 1.0


def dealt_cards(config: ThirteenConfig) -> int:
    """The dealt cards are chance's (the last of a full deck then forced); the undealt
    rest, which no seat ever sees, follows in card order."""
    return min(HAND_SIZE * config.num_players, len(config.deck_cards) - 1)


SPEC = GameSpec.of_game("thirteen", max_game_length, utility_bounds, dealt_cards=dealt_cards)


class ThirteenGame(CardGame, spec=SPEC):
    """Thirteen as an OpenSpiel game (``pyspiel.load_game("python_thirteen", params)``)."""


GAME_TYPE = ThirteenGame.game_type
