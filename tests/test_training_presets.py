"""The one-command recipes (``training.train --preset strong``) for Scat and Thirteen: a
tiny run of each trains, exports, loads and plays, and flags given beat the preset."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("sb3_contrib")
pytest.importorskip("numba")

from policies.evaluation import evaluate
from policies.mlp import load_model_policy, read_model
from training.presets import PRESETS, preset
from training.train import Args, main

TINY = [
    "--total-steps", "128", "--num-envs", "4", "--n-steps", "32", "--batch-size", "64",
    "--pretrain-games", "2", "--pretrain-epochs", "1", "--eval-games", "4",
    "--eval-every", "0", "--no-progress-bar",
]  # fmt: skip


@pytest.mark.parametrize("game", ["scat", "thirteen"])
def test_a_tiny_strong_run_trains_exports_loads_and_plays(game, tmp_path):
    main(["--game", game, "--preset", "strong", "--run-dir", str(tmp_path),
          "--run-name", "tiny", *TINY])  # fmt: skip
    run = tmp_path / "tiny"
    settings = json.loads((run / "args.json").read_text())
    recipe = PRESETS[game]["strong"]
    # the preset's settings, except where a flag was given
    assert settings["preset"] == "strong" and settings["features"] == recipe["features"]
    assert settings["opponents"] == list(recipe["opponents"]) and settings["vec_env"] == "batched"
    assert settings["total_steps"] == 128 and settings["num_envs"] == 4
    weights, meta = read_model(run / "model.npz")
    assert meta["game"] == game and meta["features"] == recipe["features"]
    from schnauz_env.games import game_module

    config = game_module(game).Config(num_players=4)
    policy = load_model_policy(run / "model.npz", game, config)
    assert policy.game == game
    result = evaluate(
        [str(run / "model.npz"), "greedy", "greedy", "greedy"],
        game=game,
        players=4,
        games=4,
        seed=3,
        schedule="table",
        workers=1,
    )
    assert result.games == 4 and sum(p.wins for p in result.policies) == 4


def test_presets_are_checked_and_named():
    with pytest.raises(ValueError, match="no preset 'fast' for scat"):
        preset("scat", "fast")
    assert preset("thirteen", "none") == {}
    for game, recipes in PRESETS.items():
        for values in recipes.values():
            Args(game=game, **values)  # every key is a setting of the trainer


def test_an_unknown_preset_is_a_one_line_error(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["--game", "schnauz", "--preset", "strong"])
    assert stop.value.code == 2
    assert "no preset 'strong' for schnauz" in capsys.readouterr().err
