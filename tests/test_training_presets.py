"""The one-command recipes (``training.train --preset strong``): a tiny run of each game's
trains, exports, loads and plays, and flags given beat the preset; a run killed part way
is continued with ``--resume`` from its latest checkpoint."""

from __future__ import annotations

import json
import shutil

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
    "--eval-every", "0", "--select-games", "4", "--no-progress-bar",
]  # fmt: skip


def check_stages(top, stages) -> None:
    """Each later stage of a staged run (seed 5) took the settings it names (a given flag
    still wins), the next seed, and started from the earlier stage's kept weights without
    cloning."""
    recipe = json.loads((top / "recipe.json").read_text())
    assert "total_steps" in recipe["given"] and recipe["args"]["seed"] == 5
    first = json.loads((top / "stage_1" / "args.json").read_text())
    assert first["seed"] == 5 and first["pretrain_teacher"] == "expert-jit"
    for i, stage in enumerate(stages, start=2):
        settings = json.loads((top / f"stage_{i}" / "args.json").read_text())
        assert settings["seed"] == 5 + i - 1
        assert settings["pretrain_teacher"] == "" and settings["pretrain_data"] == []
        assert settings["init_model"] == str(top / f"stage_{i - 1}" / "model.zip")
        for key, value in stage.items():
            if key not in (
                "total_steps",
                "num_envs",
                "batch_size",
                "eval_every",
                "eval_games",
                "select_games",
            ):  # fmt: skip  (given by TINY)
                assert settings[key] == (list(value) if isinstance(value, tuple) else value)
        assert settings["total_steps"] == 128  # given on the command line: wins


@pytest.mark.parametrize("game", ["schnauz", "scat", "thirteen"])
def test_a_tiny_strong_run_trains_exports_loads_and_plays(game, tmp_path):
    main(["--game", game, "--preset", "strong", "--run-dir", str(tmp_path),
          "--run-name", "tiny", "--seed", "5", *TINY])  # fmt: skip
    recipe = PRESETS[game]["strong"]
    stages = recipe.get("stages", ())
    if stages:
        check_stages(tmp_path / "tiny", stages)
    top = tmp_path / "tiny"
    run = top / f"stage_{len(stages) + 1}" if stages else top  # the last stage's run
    settings = json.loads((run / "args.json").read_text())
    # the preset's settings, except where a flag was given
    assert settings["preset"] == "strong" and settings["features"] == recipe["features"]
    assert settings["opponents"] == list(recipe["opponents"]) and settings["vec_env"] == "batched"
    assert settings["total_steps"] == 128 and settings["num_envs"] == 4
    assert (run / "selection.csv").read_text().count("\n") == 2  # the final model, selected
    assert (top / "model.npz").read_bytes() == (run / "model.npz").read_bytes()
    weights, meta = read_model(top / "model.npz")
    assert meta["game"] == game and meta["features"] == recipe["features"]
    from schnauz_env.games import game_module

    config = game_module(game).Config(num_players=4)
    policy = load_model_policy(top / "model.npz", game, config)
    assert policy.game == game
    result = evaluate(
        [str(top / "model.npz"), "greedy", "greedy", "greedy"],
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
            values = dict(values)
            stages = values.pop("stages", ())
            Args(game=game, **values)  # every key is a setting of the trainer
            for stage in stages:
                Args(game=game, **{**values, **stage})


def test_an_unknown_preset_is_a_one_line_error(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["--game", "thirteen", "--preset", "fast"])
    assert stop.value.code == 2
    assert "no preset 'fast' for thirteen" in capsys.readouterr().err


RESUMABLE = [
    "--game", "schnauz", "--vec-env", "batched", "--opponents", "greedy", "--num-envs", "4",
    "--n-steps", "16", "--batch-size", "32", "--n-epochs", "1", "--total-steps", "256",
    "--checkpoint-every", "64", "--eval-every", "128", "--eval-games", "4",
    "--eval-opponents", "random", "--lr-schedule", "linear", "--pretrain-teacher", "greedy",
    "--pretrain-games", "2", "--pretrain-epochs", "1", "--no-progress-bar",
]  # fmt: skip


def interrupt(run, at: int) -> None:
    """Leave ``run`` as a kill just after its step-``at`` checkpoint would have: no final
    model, no later checkpoint (one half-written), no later evaluation row."""
    (run / "model.zip").unlink()
    (run / "model.npz").unlink()
    for path in (run / "checkpoints").iterdir():
        if int(path.stem.removeprefix("step_")) > at:
            path.unlink()
    (run / "checkpoints" / "step_999.zip").write_bytes(b"PK\x03\x04 half a file")
    lines = (run / "eval.csv").read_text().splitlines(keepends=True)
    kept = [line for line in lines[1:] if int(line.split(",")[0]) <= at]
    (run / "eval.csv").write_text("".join([lines[0], *kept]))


def test_resume_continues_an_interrupted_run_from_its_latest_checkpoint(tmp_path, capsys):
    main([*RESUMABLE, "--run-dir", str(tmp_path), "--run-name", "r"])
    run = tmp_path / "r"
    steps = [int(line.split(",")[0]) for line in (run / "eval.csv").read_text().splitlines()[1:]]
    assert steps == [0, 128, 256]  # the cloned start, the schedule's, the end's (once)
    first = (run / "args.json").read_text()
    interrupt(run, at=128)
    capsys.readouterr()

    main(["--resume", str(run)])
    out = capsys.readouterr().out
    assert "resuming" in out and "at step 128 of 256" in out
    assert "cloned" not in out  # the cloning is not repeated
    assert (run / "args.json").read_text() == first  # the settings are the run's own
    steps = [int(line.split(",")[0]) for line in (run / "eval.csv").read_text().splitlines()[1:]]
    assert steps == [0, 128, 256]  # the schedule goes on; nothing evaluated twice
    assert (run / "checkpoints" / "step_192.zip").exists()  # checkpoint_every continued
    from policies.mlp import load_model_policy
    from schnauz_env.schnauz import SchnauzConfig

    load_model_policy(run / "model.npz", "schnauz", SchnauzConfig(num_players=4))

    # a finished run, a folder that is no run, and other flags are refused in one line
    for argv, message in [
        (["--resume", str(run)], "the run has finished"),
        (["--resume", str(tmp_path)], "not a run folder"),
        (["--resume", str(run), "--total-steps", "512"], "drop --total-steps"),
    ]:
        with pytest.raises(SystemExit) as stop:
            main(argv)
        assert stop.value.code == 2 and message in capsys.readouterr().err


def test_a_run_killed_while_cloning_reuses_its_teacher_games(tmp_path, capsys):
    main([*RESUMABLE, "--run-dir", str(tmp_path), "--run-name", "r"])
    run = tmp_path / "r"
    data = (run / "pretrain_data.npz").read_bytes()
    interrupt(run, at=-1)  # no checkpoint at all: killed before the cloned start's
    (run / "eval.csv").unlink()
    capsys.readouterr()
    main(["--resume", str(run)])
    out = capsys.readouterr().out
    assert "cloned greedy" in out and "resuming" not in out
    assert (run / "pretrain_data.npz").read_bytes() == data  # read back, not played again
    assert (run / "model.zip").exists()


def test_resume_continues_a_staged_recipe_at_its_unfinished_stage(tmp_path, capsys):
    main(["--game", "thirteen", "--preset", "strong", "--run-dir", str(tmp_path),
          "--run-name", "tiny", *TINY])  # fmt: skip
    top = tmp_path / "tiny"
    first = (top / "stage_1" / "model.npz").read_bytes()
    # killed during stage 2: its folder holds its settings and a TensorBoard log only
    for name in ("model.zip", "model.npz", "selection.csv", "eval.csv"):
        (top / "stage_2" / name).unlink(missing_ok=True)
    shutil.rmtree(top / "stage_2" / "checkpoints")
    (top / "model.npz").unlink()
    capsys.readouterr()
    main(["--resume", str(top)])
    out = capsys.readouterr().out
    assert "stage 1 of 2: done" in out and "cloned" not in out
    assert (top / "stage_1" / "model.npz").read_bytes() == first  # kept, not trained again
    assert (top / "model.npz").read_bytes() == (top / "stage_2" / "model.npz").read_bytes()
    with pytest.raises(SystemExit) as stop:  # a recipe folder with a broken recipe.json
        (top / "recipe.json").write_text("{")
        main(["--resume", str(top)])
    assert stop.value.code == 2 and "cannot read its recipe.json" in capsys.readouterr().err


def test_a_linear_rate_decays_to_lr_end(tmp_path):
    from training.train import ppo_settings

    args = Args(learning_rate=2e-4, lr_schedule="linear", lr_end=1e-4)
    rate = ppo_settings(args, tmp_path)["learning_rate"]
    assert rate(1.0) == 2e-4 and rate(0.0) == 1e-4 and rate(0.5) == pytest.approx(1.5e-4)
    plain = ppo_settings(Args(learning_rate=3e-4, lr_schedule="linear"), tmp_path)["learning_rate"]
    assert plain(0.25) == 3e-4 * 0.25 and plain(0.0) == 0.0  # to 0 by default, as before
    with pytest.raises(SystemExit):
        main(["--lr-end", "-1"])  # a rate is not negative


def test_last_stage_stops_a_staged_recipe_early(tmp_path):
    main(["--game", "thirteen", "--preset", "strong", "--run-dir", str(tmp_path),
          "--run-name", "one", "--last-stage", "1", *TINY])  # fmt: skip
    top = tmp_path / "one"
    assert not (top / "stage_2").exists()
    assert (top / "model.npz").read_bytes() == (top / "stage_1" / "model.npz").read_bytes()
