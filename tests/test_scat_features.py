"""``scat-expert-v1`` is pinned, and it carries the expert's decisions.

``tests/data/scat_expert_features_v1.npz`` holds, for 300 positions of seeded
four-player games of random moves, the observation and the v1 feature block computed
when v1 shipped. Regenerate it only for a new feature set, never to make this test
pass: ``python tests/test_scat_features.py --write``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from policies.scat import ExpertPolicy
from policies.scat_features import FEATURES_NAME, OFFSET, V1_PARAMS, ScatExpertFeatures
from schnauz_env.scat import ObservationEncoder, ScatConfig, new_game
from schnauz_env.scat.engine import DISCARD_BASE, DRAW_DISCARD, DRAW_STOCK, KNOCK, PASS

DATA = Path(__file__).parent / "data" / "scat_expert_features_v1.npz"
CONFIG = ScatConfig(num_players=4)
COUNT, SEED = 300, 2026


def golden_positions(count: int = COUNT, seed: int = SEED) -> np.ndarray:
    """Observations of ``count`` positions met in seeded games of random legal moves
    (knocking rarely, so that rounds run long; a third of the turns kept)."""
    enc = ObservationEncoder(CONFIG)
    rng = np.random.default_rng(seed)
    obs = []
    game = 0
    while len(obs) < count:
        state = new_game(CONFIG, np.random.default_rng([seed, game]))
        game += 1
        while not state.game_over and len(obs) < count:
            legal = [a for a in state.legal_actions() if a != KNOCK]
            if rng.random() < 0.33:
                obs.append(enc.encode(state, state.current))
            if KNOCK in state.legal_actions() and (not legal or rng.random() < 0.1):
                state.apply(KNOCK)
            else:
                state.apply(int(legal[rng.integers(len(legal))]))
    return np.stack(obs).astype(np.float32)


def play_from_features(block: np.ndarray, mask: np.ndarray) -> int:
    """The expert's move read off its features (and the action mask)."""
    if not block[OFFSET["draw_step"]]:
        o = OFFSET["discard_best"]
        return DISCARD_BASE + int(block[o : o + 5].argmax())
    if mask[KNOCK] and block[OFFSET["knock"]]:
        return KNOCK
    if mask[DRAW_STOCK]:
        return DRAW_DISCARD if block[OFFSET["take_discard"]] else DRAW_STOCK
    if mask[DRAW_DISCARD] and block[OFFSET["with_top"]] > block[OFFSET["value_now"]]:
        return DRAW_DISCARD
    return KNOCK if mask[KNOCK] else PASS


def test_the_features_of_fixed_positions_never_move():
    with np.load(DATA) as data:
        obs, want = data["obs"], data["features"]
    assert np.array_equal(obs, golden_positions())  # the rules still reach the same positions
    assert np.array_equal(ScatExpertFeatures(CONFIG).features(obs), want)


def test_the_features_carry_the_experts_moves():
    """Every move but a knock follows from the block exactly; the knock's chance is sampled
    with another generator than the expert's, so a few knocks near the limit differ."""
    feats = ScatExpertFeatures(CONFIG)
    expert = ExpertPolicy(CONFIG, seed=0)
    enc = ObservationEncoder(CONFIG)
    moves = knocks = other = 0
    for game in range(4):
        state = new_game(CONFIG, np.random.default_rng([7, game]))
        while not state.game_over:
            mask = state.legal_mask()
            for seat in range(CONFIG.num_players):
                if seat != state.current:
                    assert not feats.features(enc.encode(state, seat)).any()
            obs = enc.encode(state, state.current)
            action = expert.act(obs, mask)
            mine = play_from_features(feats.features(obs), mask)
            moves += 1
            if mine != action:
                knocks += KNOCK in (mine, action)
                other += KNOCK not in (mine, action)
            state.apply(action)
    assert moves > 500 and other == 0 and knocks < 0.03 * moves


def test_retuning_the_expert_moves_the_expert_but_not_v1(monkeypatch):
    obs = golden_positions(150)
    before = ScatExpertFeatures(CONFIG).features(obs)
    for key, value in V1_PARAMS.items():
        monkeypatch.setattr(ExpertPolicy, key, type(value)(value * 2))
    assert np.array_equal(ScatExpertFeatures(CONFIG).features(obs), before)
    retuned = ScatExpertFeatures(CONFIG)
    for key in V1_PARAMS:  # the retuned expert, through the same code path
        setattr(retuned.expert, key, getattr(ExpertPolicy, key))
    assert not np.array_equal(retuned.features(obs), before)


def test_models_find_the_feature_set_by_name():
    from policies.mlp import feature_transform

    feats = feature_transform(FEATURES_NAME, "scat", CONFIG)
    assert feats.size == 18 and feats.name == FEATURES_NAME
    with pytest.raises(ValueError, match="scat-expert-v1"):
        feature_transform("scat-expert-v0", "scat", CONFIG)


if __name__ == "__main__" and "--write" in sys.argv:
    positions = golden_positions()
    block = ScatExpertFeatures(CONFIG).features(positions)
    from schnauz_env.common.files import atomic_write

    atomic_write(DATA, lambda f: np.savez_compressed(f, obs=positions, features=block), binary=True)
    print(f"wrote {DATA}: {len(positions)} positions")
