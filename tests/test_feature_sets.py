"""The expert feature sets of Scat and Thirteen (``scat-expert-v1``, ``thirteen-expert-v1``):
pinned, found by name, and carrying the expert's decisions.

``tests/data/<game>_expert_features_v1.npz`` holds, for 300 positions of seeded
four-player games of random moves, the observation and the v1 block computed when v1
shipped. Regenerate one only for a new feature set, never to make a test pass:
``python tests/test_feature_sets.py --write``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import conftest
import numpy as np
import pytest

from policies import scat, scat_features, thirteen, thirteen_features
from policies.mlp import feature_transform
from schnauz_env.games import game_module
from schnauz_env.scat.engine import DISCARD_BASE, DRAW_DISCARD, DRAW_STOCK, KNOCK, PASS

COUNT, SEED = 300, 2026


def scat_pick(state, rng) -> tuple[bool, int]:
    """Keep a third of the positions; random legal moves, knocking rarely so that rounds
    run long."""
    keep = rng.random() < 0.33
    legal = [a for a in state.legal_actions() if a != KNOCK]
    if KNOCK in state.legal_actions() and (not legal or rng.random() < 0.1):
        return keep, KNOCK
    return keep, int(legal[rng.integers(len(legal))])


def thirteen_pick(state, rng) -> tuple[bool, int]:
    """Keep a third of the positions with a choice; random legal moves."""
    legal = state.legal_actions()
    keep = len(legal) > 1 and rng.random() < 0.33
    return keep, int(legal[rng.integers(len(legal))])


#: game -> (features module, expert class, how golden positions are picked, block size)
SETS = {
    "scat": (scat_features, scat.ExpertPolicy, scat_pick, 18),
    "thirteen": (thirteen_features, thirteen.ExpertPolicy, thirteen_pick, 54),
}
GAMES = list(SETS)


def data_file(game: str) -> Path:
    return Path(__file__).parent / "data" / f"{game}_expert_features_v1.npz"


def config(game: str):
    return game_module(game).Config(num_players=4)


def feature_set(game: str):
    return SETS[game][0].make(config(game))


def positions(game: str, count: int = COUNT) -> np.ndarray:
    return conftest.golden_positions(game, count, SEED, SETS[game][2])


@pytest.mark.parametrize("game", GAMES)
def test_the_features_of_fixed_positions_never_move(game):
    with np.load(data_file(game)) as data:
        obs, want = data["obs"], data["features"]
    assert np.array_equal(obs, positions(game))  # the rules still reach the same positions
    assert np.array_equal(feature_set(game).features(obs), want)


@pytest.mark.parametrize("game", GAMES)
def test_retuning_the_expert_moves_the_expert_but_not_v1(game, monkeypatch):
    module, expert_class, _, _ = SETS[game]
    obs = positions(game, 150)
    before = feature_set(game).features(obs)
    for key, value in module.V1_PARAMS.items():
        monkeypatch.setattr(expert_class, key, type(value)(value * 2 + 1))
    assert np.array_equal(feature_set(game).features(obs), before)
    retuned = feature_set(game)
    for key in module.V1_PARAMS:  # the retuned expert, through the same code path
        setattr(retuned.expert, key, getattr(expert_class, key))
    assert not np.array_equal(retuned.features(obs), before)


@pytest.mark.parametrize("game", GAMES)
def test_models_find_the_feature_set_by_name_and_rows_are_checked(game):
    module, _, _, size = SETS[game]
    feats = feature_transform(module.FEATURES_NAME, game, config(game))
    assert feats.size == size and feats.name == module.FEATURES_NAME
    with pytest.raises(ValueError, match=module.FEATURES_NAME):
        feature_transform(module.FEATURES_NAME + "9", game, config(game))
    row = positions(game, 1)[0]
    with pytest.raises(ValueError, match="expected"):
        feats.features(row[:-1])
    assert feats(row).shape == (len(row) + size,)


def scat_move(block: np.ndarray, mask: np.ndarray) -> int:
    """The Scat expert's move read off its features (and the action mask)."""
    o = scat_features.OFFSET
    if not block[o["draw_step"]]:
        return DISCARD_BASE + int(block[o["discard_best"] : o["discard_best"] + 5].argmax())
    if mask[KNOCK] and block[o["knock"]]:
        return KNOCK
    if mask[DRAW_STOCK]:
        return DRAW_DISCARD if block[o["take_discard"]] else DRAW_STOCK
    if mask[DRAW_DISCARD] and block[o["with_top"]] > block[o["value_now"]]:
        return DRAW_DISCARD
    return KNOCK if mask[KNOCK] else PASS


@pytest.mark.parametrize("game", GAMES)
def test_the_block_carries_the_experts_move_on_its_turn_only(game):
    """Thirteen's block is the expert's move; every Scat move but a knock follows from
    its block exactly (the knock's chance is sampled with another generator than the
    expert's, so a few knocks near the limit differ)."""
    module = game_module(game)
    cfg = config(game)
    feats, expert = feature_set(game), SETS[game][1](cfg, seed=0)
    enc = module.ObservationEncoder(cfg)
    rng = np.random.default_rng(5)
    moves = knocks = other = 0
    for g in range(4):
        state = module.new_game(cfg, np.random.default_rng([7, g]))
        while not state.game_over:
            mask = state.legal_mask()
            for seat in range(cfg.num_players):
                if seat != state.current:
                    assert not feats.features(enc.encode(state, seat)).any()
            obs = enc.encode(state, state.current)
            block = feats.features(obs)
            if game == "scat" or mask.sum() > 1:
                want = expert.act(obs, mask)
                mine = scat_move(block, mask) if game == "scat" else int(block.argmax())
                assert game == "scat" or block.sum() == 1
                moves += 1
                knocks += mine != want and KNOCK in (mine, want) and game == "scat"
                other += mine != want and not (KNOCK in (mine, want) and game == "scat")
            legal = state.legal_actions()
            state.apply(want if game == "scat" else int(legal[rng.integers(len(legal))]))
    assert moves > 100 and other == 0 and knocks < 0.03 * moves


if __name__ == "__main__" and "--write" in sys.argv:
    for name in GAMES:
        conftest.write_golden(data_file(name), feature_set(name), positions(name))
