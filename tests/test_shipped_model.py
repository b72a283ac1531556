"""The trained model shipped in policies/models/: numpy only, found by name, legal, strong."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from policies import make_policy, mlp
from policies.mlp import models_dir, read_model, shipped_model
from schnauz_env import schnauz_v0
from schnauz_env.schnauz import SchnauzConfig

CONFIG = SchnauzConfig(num_players=4)
PATH = shipped_model("schnauz", CONFIG)


def test_a_model_ships_for_four_player_a7():
    assert PATH is not None and PATH.name == "schnauz4_a7.npz"
    assert PATH.stat().st_size < 1_000_000  # a small file
    _, meta = read_model(PATH)
    assert meta["game"] == "schnauz" and meta["table_sizes"] == [4]
    assert meta["rules"]["deck"] == "A7" and meta["features"] == "schnauz-expert-v1"


def test_it_plays_without_torch():
    code = (
        "import sys; from policies import make_policy; import numpy as np\n"
        "p = make_policy('model', seed=0)\n"
        "from schnauz_env.schnauz import SchnauzConfig, ObservationEncoder, new_game\n"
        "s = new_game(SchnauzConfig(), np.random.default_rng(0))\n"
        "p.act(ObservationEncoder(SchnauzConfig()).encode(s, s.current), s.legal_mask())\n"
        "assert 'torch' not in sys.modules and 'stable_baselines3' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_it_plays_legal_deterministic_moves_in_whole_games():
    policy = make_policy("model", config=CONFIG, seed=0)
    again = make_policy("model", config=CONFIG, seed=1)
    env = schnauz_v0.raw_env(num_players=4)
    moves = 0
    for game in range(6):
        env.reset(seed=game)
        for _agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            action = policy.act(obs["observation"], obs["action_mask"])
            assert obs["action_mask"][action] == 1
            assert again.act(obs["observation"], obs["action_mask"]) == action
            env.step(action)
            moves += 1
    assert moves > 200


def test_it_is_refused_under_other_rules():
    for config in (SchnauzConfig(num_players=4, deck="A9"), SchnauzConfig(ties="share")):
        with pytest.raises(ValueError, match="no trained schnauz model for these rules"):
            make_policy("model", config=config)


def test_it_beats_random_players():
    from policies.evaluation import evaluate

    result = evaluate(["model", "random", "random", "random"], games=40, workers=1, seed=3)
    stats = result.stats("model")
    assert stats.seat_games == 40 and stats.win_low > 0.8
    assert np.isfinite(stats.mean_place)


def test_the_model_files_ship_as_package_data():
    tomllib = pytest.importorskip("tomllib")
    root = Path(__file__).resolve().parents[1]
    data = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]
    (pattern,) = data["package-data"]["policies.models"]
    shipped = sorted((root / "policies" / "models").glob(pattern))
    assert PATH in shipped and shipped == sorted(models_dir().glob("*.npz"))


def test_the_old_module_path_warns_and_gives_the_same_names(monkeypatch):
    monkeypatch.delitem(sys.modules, "policies.models", raising=False)
    with pytest.deprecated_call(match="import the model format from policies.mlp"):
        old = importlib.import_module("policies.models")
    for name in mlp.__all__:
        assert getattr(old, name) is getattr(mlp, name)
