"""The trained models shipped in policies/models/: numpy only, found by name, legal, strong."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from policies import make_policy, mlp
from policies.mlp import models_dir, read_model, shipped_model
from schnauz_env.games import env_module, game_module
from schnauz_env.schnauz import SchnauzConfig

CONFIG = SchnauzConfig(num_players=4)
PATH = shipped_model("schnauz", CONFIG)

#: The shipped files: game -> (file name, the feature set it reads, rules it is refused
#: under). Each is trained at the 4-player table of the game's standard rules.
SHIPPED = {
    "schnauz": ("schnauz4_a7.npz", "schnauz-expert-v1", {"lives": 2}),
    "scat": ("scat4.npz", "scat-expert-v1", {"lives": 2}),
    "thirteen": ("thirteen4.npz", "thirteen-expert-v1", {"target_points": 5}),
}
GAMES = list(SHIPPED)
#: The files shipped for other rules of a game: file name -> (game, the rules it plays).
OTHER_RULES = {
    "schnauz4_a9.npz": ("schnauz", {"deck": "A9"}),
    "schnauz4_a5.npz": ("schnauz", {"deck": "A5"}),
}


def config_of(game: str, **rules):
    return game_module(game).Config(num_players=4, **rules)


def check_shipped(path, name: str, game: str, features: str, rules: dict) -> None:
    assert path is not None and path.name == name
    assert path.stat().st_size < 1_000_000  # a small file
    _, meta = read_model(path)
    assert meta["game"] == game and meta["table_sizes"] == [4]
    assert meta["features"] == features
    assert meta["rules"] == mlp.rules_of(config_of(game, **rules))


@pytest.mark.parametrize("game", GAMES)
def test_a_model_ships_for_the_four_player_table(game):
    name, features, _ = SHIPPED[game]
    check_shipped(shipped_model(game, config_of(game)), name, game, features, {})


@pytest.mark.parametrize("name", OTHER_RULES)
def test_the_file_for_other_rules_is_found_by_them_and_plays_legally(name):
    game, rules = OTHER_RULES[name]
    features = SHIPPED[game][1]
    for players in (2, 4, 6):  # found by the rules at every table, trained at four
        config = game_module(game).Config(num_players=players, **rules)
        path = shipped_model(game, config)
        assert path is not None and path.name == name
    check_shipped(shipped_model(game, config_of(game, **rules)), name, game, features, rules)
    assert play_whole_games(game, rules, seeds=1) > 0
    # the standard rules keep their own file, and this one is refused under any other rules
    assert shipped_model(game, config_of(game)).name == SHIPPED[game][0]
    path = models_dir() / name
    for other in ({}, {**rules, "lives": 2}):
        with pytest.raises(ValueError, match="rules"):
            mlp.load_model_policy(path, game, config_of(game, **other))
    with pytest.raises(ValueError, match=f"no trained {game} model for these rules"):
        make_policy("model", game=game, config=config_of(game, **rules, lives=2))


@pytest.mark.parametrize("game", GAMES)
def test_it_plays_without_torch(game):
    code = (
        "import sys; from policies import make_policy; import numpy as np\n"
        "from schnauz_env.games import game_module\n"
        f"m = game_module({game!r}); config = m.Config(num_players=4)\n"
        f"p = make_policy('model', game={game!r}, config=config, seed=0)\n"
        "s = m.new_game(config, np.random.default_rng(0))\n"
        "p.act(m.ObservationEncoder(config).encode(s, s.current), s.legal_mask())\n"
        "assert 'torch' not in sys.modules and 'stable_baselines3' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def play_whole_games(game: str, rules: dict, seeds: int) -> int:
    """The shipped model (found by ``rules``) plays every seat of ``seeds`` whole games:
    each move legal, and the same from a differently seeded copy. Returns the moves."""
    config = config_of(game, **rules)
    policy = make_policy("model", game=game, config=config, seed=0)
    again = make_policy("model", game=game, config=config, seed=1)
    env = env_module(game).raw_env(num_players=4, **rules)
    moves = 0
    for seed in range(seeds):
        env.reset(seed=seed)
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
    return moves


@pytest.mark.parametrize("game", GAMES)
def test_it_plays_legal_deterministic_moves_in_whole_games(game):
    assert play_whole_games(game, {}, seeds=3) > 100


@pytest.mark.parametrize("game", GAMES)
def test_it_is_refused_under_other_rules(game):
    other = SHIPPED[game][2]
    with pytest.raises(ValueError, match=f"no trained {game} model for these rules"):
        make_policy("model", game=game, config=config_of(game, **other))


@pytest.mark.parametrize("game", GAMES)
def test_it_beats_random_players(game):
    from policies.evaluation import evaluate

    result = evaluate(
        ["model", "random", "random", "random"], game=game, games=40, workers=1, seed=3
    )
    stats = result.stats("model")
    assert stats.seat_games == 40 and stats.win_low > 0.6
    assert np.isfinite(stats.mean_place)


def test_the_model_files_ship_as_package_data():
    tomllib = pytest.importorskip("tomllib")
    root = Path(__file__).resolve().parents[1]
    data = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]
    (pattern,) = data["package-data"]["policies.models"]
    shipped = sorted((root / "policies" / "models").glob(pattern))
    assert PATH in shipped and shipped == sorted(models_dir().glob("*.npz"))
    names = [name for name, _, _ in SHIPPED.values()] + list(OTHER_RULES)
    assert sorted(p.name for p in shipped) == sorted(names)


def test_the_old_module_path_warns_and_gives_the_same_names(monkeypatch):
    monkeypatch.delitem(sys.modules, "policies.models", raising=False)
    with pytest.deprecated_call(match="import the model format from policies.mlp"):
        old = importlib.import_module("policies.models")
    for name in mlp.__all__:
        assert getattr(old, name) is getattr(mlp, name)
