"""What the tests of the compiled Scat and Thirteen experts share
(``tests/test_scat_expert_jit.py``, ``tests/test_thirteen_expert_jit.py``): the states
of real games, and the checks that hold the compiled expert to the reference's moves,
rows and errors."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import batched_helpers
import numpy as np
import pytest

from policies.base import RowFeatures
from policies.evaluation import evaluate


def expert_game_states(
    config: Any,
    encoder: Any,
    expert: Any,
    deal: Callable[[int], Any],
    games: int,
    seed: int,
    explore: float,
    other_seats: float,
    ask_every_move: bool,
) -> tuple[np.ndarray, np.ndarray]:
    """Observations and masks met in ``games`` games between experts (game ``g`` dealt
    by ``deal(g)``), a share ``explore`` of the moves random; with ``other_seats``, that
    share of the rows is another seat's view (not its turn). With ``ask_every_move`` the
    expert decides the random moves too (its generator steps as in a game of its own)."""
    rng = np.random.default_rng(seed)
    obs, masks = [], []
    for g in range(games):
        state = deal(g)
        while not state.game_over:
            mine = encoder.encode(state, state.current)
            mask = state.legal_mask()
            seat = state.current
            if rng.random() < other_seats:
                seat = int(rng.integers(config.num_players))
            obs.append(encoder.encode(state, seat))
            masks.append(mask)
            action = expert.act(mine, mask) if ask_every_move else None
            if rng.random() < explore:
                legal = state.legal_actions()
                action = legal[rng.integers(len(legal))]
            elif action is None:
                action = expert.act(mine, mask)
            state.apply(int(action))
    return np.stack(obs), np.stack(masks)


def assert_compiled_rows(feats: Any, obs: np.ndarray, config: Any) -> np.ndarray:
    """The compiled block of ``feats`` on ``obs``, after checking it is the reference's
    row by row (``RowFeatures.rows``)."""
    got = feats.features(obs)
    want = np.zeros_like(got)
    RowFeatures.rows(feats, obs, feats.seeds(obs), want)
    batched_helpers.assert_same(got, want, config)
    return got


def assert_bad_inputs_refused(
    policy: Any, obs: np.ndarray, masks: np.ndarray, make: Callable[[Any], Any], config_name: str
) -> None:
    """``policy`` refuses observations and masks of the wrong width and an empty mask,
    ``make`` (the class) a config of another game (the error names ``config_name``), and
    an empty batch has no moves."""
    with pytest.raises(ValueError, match="do not match"):
        policy.act_batch(obs[:, :-1], masks)
    with pytest.raises(ValueError, match="action masks"):
        policy.act_batch(obs, masks[:, :-1])
    with pytest.raises(ValueError, match="no legal action"):
        policy.act_batch(obs[:1], np.zeros_like(masks[:1]))
    with pytest.raises(ValueError, match=config_name):
        make(object())
    assert policy.act_batch(obs[:0], masks[:0]).shape == (0,)


def assert_first_legal_when_forbidden(
    make: Callable[[], Any], obs: np.ndarray, masks: np.ndarray, least: int
) -> None:
    """With the move of a fresh ``make()`` masked out of each row (more than ``least``
    rows), another fresh one plays the first legal action."""
    moves = make().act_batch(obs, masks)
    masks = masks.copy()
    masks[np.arange(len(obs)), moves] = 0
    got = make().act_batch(obs, masks)
    assert len(obs) > least and got.tolist() == masks.argmax(axis=1).tolist()


def places_against(seats: Callable[[str], list[str]], **kwargs: Any) -> dict[str, list[Any]]:
    """The places of every game of the harness's evaluation of ``seats(opponent)`` for
    ``expert`` and ``expert-jit`` opponents (``kwargs`` passed on to ``evaluate``)."""
    places = {}
    for opponent in ("expert", "expert-jit"):
        result = evaluate(seats(opponent), workers=1, **kwargs)
        places[opponent] = [r.places for r in result.records]
    return places


def random_play_script(game: str, config_class: str, features_class: str, rows: int) -> str:
    """The start of a script for ``batched_helpers.run_with_and_without_numba``: ``rows``
    observations and masks (``obs``, ``masks``) of a seeded random game of ``game``
    for 3 players (``cfg``), with ``make_policy`` and ``features_class`` imported."""
    return f"""
import numpy as np
from policies import make_policy
from policies.{game}_features import {features_class}
from schnauz_env.{game} import {config_class}, new_game
from schnauz_env.{game}.observation import ObservationEncoder
cfg = {config_class}(num_players=3)
enc = ObservationEncoder(cfg)
obs, masks = [], []
state = new_game(cfg, np.random.default_rng(4))
rng = np.random.default_rng(5)
while not state.game_over and len(obs) < {rows}:
    obs.append(enc.encode(state, state.current))
    masks.append(state.legal_mask())
    legal = state.legal_actions()
    state.apply(int(legal[rng.integers(len(legal))]))
obs, masks = np.stack(obs), np.stack(masks)
"""
