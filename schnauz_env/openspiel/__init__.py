"""Schnauz, Scat and Thirteen as OpenSpiel games (``pip install -e ".[openspiel]"``).

Importing this package registers three Python games with OpenSpiel::

    import pyspiel
    import schnauz_env.openspiel  # registers python_schnauz, python_scat, python_thirteen

    game = pyspiel.load_game("python_schnauz", {"players": 3, "lives": 2})

Each takes every option of its rules config as a game parameter (``num_players`` as
``players``; ``first_dealer=-1`` leaves the first dealer to chance). The deals are
explicit chance nodes, the rules are the engines' (``schnauz_env.<game>.engine``),
the tensors are the PettingZoo env's observations and the returns its place values;
``resample_from_infostate`` lets OpenSpiel's ``ISMCTSBot`` search them. See
:mod:`schnauz_env.openspiel.core` and ``docs/openspiel.md``.
"""

from schnauz_env.openspiel.core import (
    DEALER_BY_CHANCE,
    CardGame,
    CardGameState,
    CardObserver,
    GameSpec,
    config_of,
    parameter_specification,
    parameters_of,
    seeded_resampler,
)
from schnauz_env.openspiel.scat import ScatGame
from schnauz_env.openspiel.schnauz import SchnauzGame
from schnauz_env.openspiel.thirteen import ThirteenGame

#: The registered OpenSpiel name of each game of :data:`schnauz_env.games.GAMES`.
GAME_NAMES: dict[str, str] = {
    "schnauz": SchnauzGame.spec.short_name,
    "scat": ScatGame.spec.short_name,
    "thirteen": ThirteenGame.spec.short_name,
}

__all__ = [
    "DEALER_BY_CHANCE",
    "GAME_NAMES",
    "CardGame",
    "CardGameState",
    "CardObserver",
    "GameSpec",
    "ScatGame",
    "SchnauzGame",
    "ThirteenGame",
    "config_of",
    "parameter_specification",
    "parameters_of",
    "seeded_resampler",
]
