"""``schnauz-expert-v1`` is pinned: the features of fixed states never move.

The shipped model reads these features. ``tests/data/expert_features_v1.npz`` holds, for
160 states of seeded four-player A7 games, the observation, the action mask, the whole
feature block (move features and the expert's numbers) and the shipped model's move,
all computed when v1 shipped. Regenerate it only for a new feature set, never to make
this test pass: ``python tests/test_expert_features_golden.py --write``.
"""

from __future__ import annotations

import functools
import sys
from dataclasses import fields
from pathlib import Path

import numpy as np
import pytest

from schnauz_env.schnauz import ObservationEncoder, SchnauzConfig, new_game
from schnauz_env.schnauz.engine import DEALER_CHOICE, FINAL_CIRCLE, KNOCK, TURNS

DATA = Path(__file__).parent / "data" / "expert_features_v1.npz"
CONFIG = SchnauzConfig(num_players=4)
COUNT, SEED = 160, 2024


def golden_states(config: SchnauzConfig = CONFIG, count: int = COUNT, seed: int = SEED):
    """``(observations, masks)`` of ``count`` states met in seeded games of random moves.

    Only the rules engine and numpy's generator decide them (no policy that could be
    retuned): a random legal move, knocking rarely so that rounds run long enough for
    good hands; every dealer's choice, half the final-circle and a fifth of the other
    turns are kept.
    """
    share = {DEALER_CHOICE: 1.0, TURNS: 0.2, FINAL_CIRCLE: 0.5}
    enc = ObservationEncoder(config)
    rng = np.random.default_rng(seed)
    obs, masks = [], []
    game = 0
    while len(obs) < count:
        state = new_game(config, np.random.default_rng([seed, game]))
        game += 1
        while not state.game_over and len(obs) < count:
            mask = state.legal_mask()
            if rng.random() < share[state.phase]:
                obs.append(enc.encode(state, state.current))
                masks.append(mask)
            moves = [a for a in state.legal_actions() if a != KNOCK]
            if mask[KNOCK] and rng.random() < 0.08:
                state.apply(KNOCK)
            else:
                state.apply(int(moves[rng.integers(len(moves))]))
    return np.stack(obs).astype(np.float32), np.stack(masks).astype(np.int8)


def compute(obs: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The v1 feature block and the shipped model's moves on these states."""
    from policies import make_policy
    from policies.expert_features import ExpertFeatures

    features = ExpertFeatures(CONFIG).features(obs)
    moves = make_policy("model", config=CONFIG, seed=0).act_batch(obs, masks)
    return features, np.asarray(moves, dtype=np.int64)


@pytest.fixture(scope="module")
def golden():
    with np.load(DATA) as data:
        return {k: data[k] for k in data.files}


def test_the_states_are_the_seeded_games_states(golden):
    from schnauz_env.schnauz.infoset import decode_observation

    obs, masks = golden_states()
    np.testing.assert_array_equal(obs, golden["obs"])
    np.testing.assert_array_equal(masks, golden["masks"])
    phases = [decode_observation(o, CONFIG).phase for o in obs]
    assert min(phases.count(p) for p in (DEALER_CHOICE, TURNS, FINAL_CIRCLE)) >= 30


def test_the_v1_features_and_the_models_moves_are_the_stored_ones(golden):
    features, moves = compute(golden["obs"], golden["masks"])
    np.testing.assert_allclose(features, golden["features"], rtol=0, atol=1e-6)
    np.testing.assert_array_equal(moves, golden["model_moves"])


def test_v1_spells_out_every_expert_parameter():
    from policies.expert_features import V1_PARAMS, V1_VALUES, ExpertFeatures
    from policies.schnauz import ExpertParams

    assert set(V1_VALUES) == {f.name for f in fields(ExpertParams)}
    assert ExpertFeatures.params is V1_PARAMS


def retune_expert(monkeypatch: pytest.MonkeyPatch, **new: object) -> None:
    """Change :class:`ExpertParams` defaults, as retuning the expert would."""
    from policies.schnauz import ExpertParams

    names = [f.name for f in fields(ExpertParams)]
    defaults = list(ExpertParams.__init__.__defaults__)
    for name, value in new.items():
        defaults[names.index(name)] = value
        monkeypatch.setattr(ExpertParams, name, value)
    monkeypatch.setattr(ExpertParams.__init__, "__defaults__", tuple(defaults))


def test_retuning_the_expert_changes_no_v1_model_move(golden, monkeypatch):
    from policies import make_policy, mlp
    from policies.expert_features import ExpertFeatures
    from policies.schnauz import ExpertParams

    obs, masks = golden["obs"], golden["masks"]
    retune_expert(monkeypatch, samples=16, knock_share=0.3, skill=(3, 2, 1), risk_now=0.2)
    assert ExpertParams().samples == 16 and ExpertParams().skill == (3, 2, 1)
    # The retune is real: the expert and features built on the live defaults change.
    live = type("Live", (ExpertFeatures,), {"params": ExpertParams()})(CONFIG)
    assert not np.allclose(live.features(obs), golden["features"], atol=1e-6)
    # A model built now (no feature set cached from before the retune) plays as before.
    monkeypatch.setattr(mlp, "_feature_set", functools.cache(mlp._feature_set.__wrapped__))
    moves = make_policy("model", config=CONFIG, seed=0).act_batch(obs, masks)
    np.testing.assert_array_equal(moves, golden["model_moves"])
    np.testing.assert_allclose(
        ExpertFeatures(CONFIG).features(obs), golden["features"], rtol=0, atol=1e-6
    )


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit(f"usage: python {sys.argv[0]} --write   (rewrites {DATA})")
    obs, masks = golden_states()
    features, moves = compute(obs, masks)
    DATA.parent.mkdir(exist_ok=True)
    np.savez_compressed(DATA, obs=obs, masks=masks, features=features, model_moves=moves)
    print(f"wrote {DATA}: {len(obs)} states, {features.shape[1]} features")
