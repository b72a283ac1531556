"""The ``schnauz-expert-v1`` feature set: the expert's own estimates, block by block."""

from __future__ import annotations

import numpy as np
import pytest

from policies import make_policy
from policies.expert_features import DL, EXPERT_SIZE, FB, FL, KN, TB, TV, ExpertFeatures
from policies.mlp import feature_transform
from schnauz_env.schnauz import SchnauzConfig
from schnauz_env.schnauz.engine import DEALER_CHOICE, FINAL_CIRCLE, KNOCK, TURNS
from schnauz_env.schnauz.features import MoveFeatures
from schnauz_env.schnauz.infoset import decode_observation
from schnauz_env.vector import SchnauzVecEnv

CONFIG = SchnauzConfig(num_players=4)


def expert_states(steps: int = 12, games: int = 128, seed: int = 3):
    """(observations, masks) of seats to move in games of four expert-jit players."""
    policy = make_policy("expert-jit", game="schnauz", config=CONFIG, seed=seed)
    venv = SchnauzVecEnv(num_envs=games, config=CONFIG, opponent=policy.act_batch, seed=seed)
    obs = venv.reset()
    out_obs, out_masks = [], []
    for _ in range(steps):
        masks = venv.action_masks().astype(np.int8)
        out_obs.append(obs)
        out_masks.append(masks)
        obs, *_ = venv.step(policy.act_batch(obs, masks))
    return np.concatenate(out_obs), np.concatenate(out_masks)


@pytest.fixture(scope="module")
def states():
    return expert_states()


def implied_move(block: np.ndarray, mask: np.ndarray) -> int:
    """The expert's move as the feature block says it (no Fire / Schnauz shortcut)."""
    if block[DL : DL + 2].any():
        return 0 if block[DL + 2] else 1
    if block[KN + 2] and mask[KNOCK]:
        return KNOCK
    if block[TB : TB + 11].any():
        return 2 + int(np.argmax(block[TB : TB + 11]))
    return 2 + int(np.argmax(block[FB : FB + 11]))


def test_the_block_follows_the_move_features_and_is_reproducible(states):
    obs, _ = states
    feats = feature_transform("schnauz-expert-v1", "schnauz", CONFIG)
    assert feats.size == MoveFeatures(CONFIG).size + EXPERT_SIZE
    full = ExpertFeatures(CONFIG, seed=5)(obs[:64])
    assert full.shape == (64, obs.shape[1] + feats.size)
    np.testing.assert_array_equal(full[:, : obs.shape[1]], obs[:64])
    np.testing.assert_array_equal(
        full[:, obs.shape[1] : -EXPERT_SIZE], MoveFeatures(CONFIG).features(obs[:64])
    )
    again = ExpertFeatures(CONFIG, seed=5)(obs[:64])
    np.testing.assert_array_equal(full, again)
    # a function of the observation: the same rows give the same numbers in any batch
    feats = ExpertFeatures(CONFIG, seed=5)
    alone = np.concatenate([feats.expert_block(obs[i : i + 1]) for i in range(8)])
    np.testing.assert_array_equal(alone, feats.expert_block(obs[7::-1])[::-1])
    np.testing.assert_array_equal(alone, full[:8, -EXPERT_SIZE:])
    assert len(np.unique(feats.seeds(obs))) > 0.99 * len(np.unique(obs, axis=0))
    with pytest.raises(ValueError, match="expected"):
        feats.expert_block(obs[:, :-1])


def test_each_phase_fills_only_its_own_columns(states):
    obs, _ = states
    block = ExpertFeatures(CONFIG).expert_block(obs)
    phases = {DEALER_CHOICE: 0, TURNS: 0, FINAL_CIRCLE: 0}
    for row, o in zip(block, obs, strict=True):
        view = decode_observation(o, CONFIG)
        phases[view.phase] += 1
        turn = row[TV : TB + 11].any() or row[KN : KN + 3].any()
        final = row[FL : FB + 11].any()
        dealer = row[DL : DL + 3].any()
        if view.phase == DEALER_CHOICE:
            assert dealer and not turn and not final
            assert row[DL + 2] == (row[DL] >= row[DL + 1])
        elif view.phase == TURNS:
            assert turn and not final and not dealer
            assert row[TB : TB + 11].sum() == 1
            assert row[TB + int(np.argmax(row[TV : TV + 11]))] == 1
            assert (row[TV : TV + 11] <= 0).all()
            if view.knocker is None:
                assert 0 <= row[KN] <= 1 and row[KN + 1] > 0
            else:
                assert not row[KN : KN + 3].any()
        else:
            assert final and not turn and not dealer
            assert row[FB : FB + 11].sum() == 1
            losses = row[FL : FL + 11]
            assert ((losses >= 0) & (losses <= 1)).all()
            assert losses[int(np.argmax(row[FB : FB + 11]))] == losses.min()
    assert min(phases.values()) > 20


def test_the_features_name_the_experts_move_as_often_as_the_expert_repeats_itself(states):
    # Monte Carlo estimates on both sides: compare with two differently seeded experts.
    obs, masks = states
    block = ExpertFeatures(CONFIG, seed=1).expert_block(obs)
    moves = MoveFeatures(CONFIG).features(obs)
    instant = moves[:, 2 : 11 * 5 : 5].any(axis=1)  # a Fire / Schnauz is within reach
    keep = ~instant
    a = make_policy("expert-jit", game="schnauz", config=CONFIG, seed=11).act_batch(obs, masks)
    b = make_policy("expert-jit", game="schnauz", config=CONFIG, seed=12).act_batch(obs, masks)
    implied = np.array([implied_move(r, m) for r, m in zip(block, masks, strict=True)])
    agree = (implied == a)[keep].mean()
    itself = (a == b)[keep].mean()
    assert keep.sum() > 500
    assert agree >= itself - 0.03, (agree, itself)
