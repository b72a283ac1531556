"""The games of the package, found by name, for tools that work with any of them
(the evaluation harness, training, the play UI).

Each game is a subpackage ``schnauz_env.<game>`` exporting:

* ``Config`` — its frozen, validated rules config (``num_players`` among the fields);
* ``new_game(config, rng, **reset_options)`` — the engine's start; the state has
  ``current``, ``game_over``, ``n``, ``legal_actions()``, ``legal_mask()``,
  ``apply(action)``, ``action_to_string(action, symbols)``, ``clone()`` and
  ``places`` (final place per seat once decided, 1 = best);
* ``ObservationEncoder(config)`` with ``size`` and ``encode(state, seat)``;
* ``NUM_ACTIONS``; and the AEC env module ``schnauz_env.<game>_v0``.
"""

from __future__ import annotations

import importlib
from types import ModuleType

GAMES: tuple[str, ...] = ("schnauz", "scat", "thirteen")


def game_module(game: str) -> ModuleType:
    """The rules package of ``game`` (``"schnauz"``, ``"scat"`` or ``"thirteen"``)."""
    if game not in GAMES:
        raise ValueError(f"unknown game {game!r}; known games: {', '.join(GAMES)}")
    return importlib.import_module(f"schnauz_env.{game}")


def env_module(game: str) -> ModuleType:
    """The versioned AEC env module of ``game`` (``schnauz_env.<game>_v0``)."""
    game_module(game)
    return importlib.import_module(f"schnauz_env.{game}_v0")
