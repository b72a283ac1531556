"""Helpers shared by the interop tests (``tests/test_interop_*.py``): small tables of each
game, and a referee that watches a game through any trainer's wrapper stack.

Tests import these directly (``from interop_helpers import Referee``); pytest puts this
directory on ``sys.path``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from pettingzoo import AECEnv
from pettingzoo.utils import BaseWrapper

from schnauz_env.common.places import place_value
from schnauz_env.games import GAMES, env_module

#: Short whole games of each game for smoke tests (a few dozen decisions each).
SMALL: dict[str, dict[str, Any]] = {
    "schnauz": {"num_players": 3, "lives": 1},
    "scat": {"num_players": 3, "lives": 1},
    "thirteen": {"num_players": 3},
}


@pytest.fixture
def one_torch_thread() -> Iterator[None]:
    """Torch on one thread for the test, restored after: on a busy 2-core machine its
    thread pool made each small forward pass ~25 ms instead of ~1. (Restored so that no
    other test's numbers depend on these running first.)"""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def game_env(game: str, **options: Any) -> AECEnv:
    """``<game>_v0.env(...)`` (PettingZoo's wrappers: an illegal move ends the game) on a
    small table, ``options`` overriding :data:`SMALL`."""
    return env_module(game).env(**{**SMALL[game], **options})


class Referee(BaseWrapper):
    """Watches every game played through it: each action the agent to act takes must be
    legal (``AssertionError`` naming the legal actions, before the game sees it), and
    each episode is recorded as a whole game or one cut short by a ``reset``.

    ``games`` lists, per game finished, each agent's final place's value (the return a
    whole-game episode must pay); ``cut`` counts episodes reset before their game
    ended after at least one action; ``actions`` counts the actions taken.
    """

    def __init__(self, env: AECEnv) -> None:
        super().__init__(env)
        self.games: list[list[float]] = []
        self.cut = 0
        self.actions = 0
        self._moves = 0
        self._recorded = True

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if not self._recorded and self._moves:
            self.cut += 1
        self._moves, self._recorded = 0, False
        self.env.reset(seed=seed, options=options)

    def step(self, action: Any) -> None:
        agent = self.env.agent_selection
        raw = self.env.unwrapped
        if not (self.env.terminations[agent] or self.env.truncations[agent]):
            mask = raw._action_mask(agent)
            legal = np.flatnonzero(mask).tolist()
            assert action is not None and int(action) in legal, (
                f"{agent} took {action!r}; legal actions {legal}"
            )
            self.actions += 1
            self._moves += 1
        self.env.step(action)
        if not self._recorded and raw.game.game_over:
            n = raw.config.num_players
            self.games.append([place_value(p, n) for p in raw.game.places])
            self._recorded = True


__all__ = ["GAMES", "SMALL", "Referee", "game_env", "one_torch_thread"]
