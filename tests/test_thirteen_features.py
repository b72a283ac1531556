"""``thirteen-expert-v1`` is pinned, and it is the expert's move.

``tests/data/thirteen_expert_features_v1.npz`` holds, for 300 positions of seeded
four-player games of random moves, the observation and the v1 feature block computed
when v1 shipped. Regenerate it only for a new feature set, never to make this test
pass: ``python tests/test_thirteen_features.py --write``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from policies.thirteen import ExpertPolicy
from policies.thirteen_features import FEATURES_NAME, V1_PARAMS, ThirteenExpertFeatures
from schnauz_env.thirteen import ObservationEncoder, ThirteenConfig, new_game

DATA = Path(__file__).parent / "data" / "thirteen_expert_features_v1.npz"
CONFIG = ThirteenConfig(num_players=4)
COUNT, SEED = 300, 2026


def golden_positions(count: int = COUNT, seed: int = SEED) -> np.ndarray:
    """Observations of ``count`` positions met in seeded games of random legal moves (a
    third of the turns kept; only the rules engine and numpy's generator decide them)."""
    enc = ObservationEncoder(CONFIG)
    rng = np.random.default_rng(seed)
    obs = []
    game = 0
    while len(obs) < count:
        state = new_game(CONFIG, np.random.default_rng([seed, game]))
        game += 1
        while not state.game_over and len(obs) < count:
            legal = state.legal_actions()
            if len(legal) > 1 and rng.random() < 0.33:
                obs.append(enc.encode(state, state.current))
            state.apply(int(legal[rng.integers(len(legal))]))
    return np.stack(obs).astype(np.float32)


def test_the_features_of_fixed_positions_never_move():
    with np.load(DATA) as data:
        obs, want = data["obs"], data["features"]
    assert np.array_equal(obs, golden_positions())  # the rules still reach the same positions
    assert np.array_equal(ThirteenExpertFeatures(CONFIG).features(obs), want)


def test_the_block_is_the_experts_move_on_its_turn_and_zeros_otherwise():
    feats = ThirteenExpertFeatures(CONFIG)
    expert = ExpertPolicy(CONFIG, seed=0)
    enc = ObservationEncoder(CONFIG)
    rng = np.random.default_rng(5)
    moves = 0
    for game in range(6):
        state = new_game(CONFIG, np.random.default_rng([9, game]))
        while not state.game_over:
            mask = state.legal_mask()
            for seat in range(CONFIG.num_players):
                block = feats.features(enc.encode(state, seat))
                if seat != state.current:
                    assert not block.any()
                elif mask.sum() > 1:
                    want = expert.act(enc.encode(state, seat), mask)
                    assert block.sum() == 1 and block[want] == 1
                    moves += 1
            legal = state.legal_actions()
            state.apply(int(legal[rng.integers(len(legal))]))
    assert moves > 100
    row = enc.encode(state, 0)
    assert np.array_equal(feats(row), np.concatenate([row, np.zeros(feats.size, np.float32)]))
    with pytest.raises(ValueError, match="expected"):
        feats.features(row[:-1])


def test_retuning_the_expert_moves_the_expert_but_not_v1(monkeypatch):
    obs = golden_positions(120)
    before = ThirteenExpertFeatures(CONFIG).features(obs)
    monkeypatch.setattr(ExpertPolicy, "margin", V1_PARAMS["margin"] + 3.0)
    monkeypatch.setattr(ExpertPolicy, "spend_penalty", V1_PARAMS["spend_penalty"] + 2.0)
    assert np.array_equal(ThirteenExpertFeatures(CONFIG).features(obs), before)
    retuned = ThirteenExpertFeatures(CONFIG)
    for key in V1_PARAMS:  # the retuned expert, through the same code path
        setattr(retuned.expert, key, getattr(ExpertPolicy, key))
    assert not np.array_equal(retuned.features(obs), before)


def test_models_find_the_feature_set_by_name():
    from policies.mlp import feature_transform

    feats = feature_transform(FEATURES_NAME, "thirteen", CONFIG)
    assert feats.size == 54 and feats.name == FEATURES_NAME
    with pytest.raises(ValueError, match="thirteen-expert-v1"):
        feature_transform("thirteen-expert-v9", "thirteen", CONFIG)


if __name__ == "__main__" and "--write" in sys.argv:
    positions = golden_positions()
    block = ThirteenExpertFeatures(CONFIG).features(positions)
    from schnauz_env.common.files import atomic_write

    atomic_write(DATA, lambda f: np.savez_compressed(f, obs=positions, features=block), binary=True)
    print(f"wrote {DATA}: {len(positions)} positions")
