"""Training end to end (tiny real runs) and the model file format."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from policies import make_policy
from policies.mlp import load_model_policy, read_model, save_model
from schnauz_env.schnauz import SchnauzConfig
from schnauz_env.schnauz.features import MoveFeatures

pytest.importorskip("sb3_contrib")

#: The tiny run's rules, given on its command line as --rules knock_in_first_circle=false.
RULES = {"knock_in_first_circle": False}
CONFIG = SchnauzConfig(num_players=4, **RULES)


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory) -> Path:
    """A few thousand steps of MaskablePPO from the command line, end to end: train, save,
    export, evaluate, plot."""
    from training.train import main

    out = tmp_path_factory.mktemp("runs")
    main(
        ["--total-steps", "2048", "--table-sizes", "3", "4", "--opponents", "random", "greedy",
         "--rules", "knock_in_first_circle=false",
         "--self-play-every", "1024", "--self-play-keep", "1", "--num-envs", "2",
         "--checkpoint-every", "1024",
         "--n-steps", "256", "--batch-size", "256", "--n-epochs", "1", "--eval-every", "0",
         "--pretrain-teacher", "greedy", "--pretrain-games", "4", "--pretrain-epochs", "1",
         "--eval-games", "8", "--eval-opponents", "random", "greedy",
         "--run-dir", str(out), "--run-name", "tiny", "--no-progress-bar"]
    )  # fmt: skip
    return out / "tiny"


def test_the_rules_on_the_command_line_reach_the_model(tiny_run: Path):
    args = json.loads((tiny_run / "args.json").read_text())
    assert args["rules"] == ["knock_in_first_circle=false"]
    _, meta = read_model(tiny_run / "model.npz")
    assert meta["rules"]["knock_in_first_circle"] is False
    with pytest.raises(ValueError, match=r"other rules.*knock_in_first_circle"):
        load_model_policy(tiny_run / "model.npz", config=SchnauzConfig(num_players=4))


def test_tiny_training_run_writes_everything(tiny_run: Path):
    for name in ("model.npz", "model.zip", "eval.csv", "learning_curve.png", "args.json"):
        assert (tiny_run / name).is_file(), name
    assert list((tiny_run / "snapshots").glob("*.npz")), "self-play snapshots were taken"
    assert any((tiny_run / "tb").rglob("events.*")), "TensorBoard logs were written"
    rows = (tiny_run / "eval.csv").read_text().strip().splitlines()
    assert rows[0].startswith("step,win_random,")
    assert len(rows) >= 3  # the cloned start (step 0) and the final evaluation
    assert rows[1].startswith("0,")
    assert (tiny_run / "pretrain_data.npz").is_file()


def test_the_run_logs_like_an_sb3_run(tiny_run: Path):
    """VecMonitor's episode returns, the evaluations at their own steps (the final one
    included), and checkpoints on their own schedule."""
    event_accumulator = pytest.importorskip(
        "tensorboard.backend.event_processing.event_accumulator"
    )
    events = event_accumulator.EventAccumulator(str(next((tiny_run / "tb").glob("*"))))
    events.Reload()
    tags = events.Tags()["scalars"]
    assert "rollout/ep_rew_mean" in tags and "rollout/ep_len_mean" in tags
    returns = [e.value for e in events.Scalars("rollout/ep_rew_mean")]
    assert all(-1.0 <= r <= 1.0 for r in returns)  # whole games pay a place value
    evals = {e.step: e.value for e in events.Scalars("eval/win_rate_vs_random")}
    rows = [line.split(",") for line in (tiny_run / "eval.csv").read_text().splitlines()[1:]]
    assert {int(r[0]) for r in rows} == set(evals)  # every evaluation, at its own step
    assert max(evals) == 2048  # the final evaluation is logged too
    checkpoints = {p.name for p in (tiny_run / "checkpoints").glob("step_*.zip")}
    assert "step_1024.zip" in checkpoints  # --checkpoint-every, without an evaluation there


def test_exported_model_plays_legally_and_is_found_by_name(tiny_run: Path):
    from policies.evaluation import evaluate

    path = str(tiny_run / "model.npz")
    policy = make_policy(path, game="schnauz", config=CONFIG, seed=0)
    assert policy.meta["table_sizes"] == [3, 4]
    result = evaluate(
        [path, "random", "random", "random"], players=4, games=8, workers=1, seed=1, options=RULES
    )
    assert result.stats(path).seat_games == 8


def test_export_matches_the_torch_policy(tiny_run: Path):
    from sb3_contrib import MaskablePPO

    model = MaskablePPO.load(tiny_run / "model.zip", device="cpu")
    policy = load_model_policy(tiny_run / "model.npz", config=CONFIG)
    from schnauz_env import schnauz_v0

    env = schnauz_v0.raw_env(num_players=4, **RULES)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    checked = 0
    for _agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        mask = obs["action_mask"].astype(bool)
        # The model was trained on the observation plus its feature block (train.py's
        # default for Schnauz); the numpy policy appends the block itself.
        featured = policy._features(obs["observation"])
        torch_action, _ = model.predict(featured, action_masks=mask, deterministic=True)
        assert policy.act(obs["observation"], obs["action_mask"]) == int(torch_action)
        checked += 1
        env.step(int(rng.choice(np.flatnonzero(mask))))
    assert checked > 20


def test_model_under_other_rules_is_refused(tiny_run: Path):
    path = tiny_run / "model.npz"
    with pytest.raises(ValueError, match=r"other rules.*deck"):
        load_model_policy(path, config=SchnauzConfig(num_players=4, deck="A9", **RULES))
    with pytest.raises(ValueError, match=r"other rules.*ties"):
        make_policy(str(path), config=SchnauzConfig(ties="share", **RULES))
    with pytest.raises(ValueError, match="trained for 'schnauz'"):
        load_model_policy(path, game="scat")
    # Table size, dealer and episode length do not change what the model sees.
    load_model_policy(
        path, config=SchnauzConfig(num_players=6, first_dealer=2, episode="round", **RULES)
    )


def test_model_with_another_observation_layout_is_refused(tiny_run: Path, tmp_path: Path):
    weights, meta = read_model(tiny_run / "model.npz")
    config = SchnauzConfig(**RULES)
    old = save_model(
        tmp_path / "old.npz",
        weights,
        "schnauz",
        config,
        [4],
        meta["activation"],
        meta["obs_size"],
        14,
        features=meta.get("features"),
    )
    with np.load(old) as data:
        arrays = dict(data)
    header = json.loads(str(arrays["meta"]))
    header["obs_version"] = 0
    arrays["meta"] = np.array(json.dumps(header))
    np.savez(old, **arrays)
    with pytest.raises(ValueError, match="observation layout v0"):
        load_model_policy(old)


def test_model_without_its_feature_set_is_refused(tiny_run: Path, tmp_path: Path):
    weights, meta = read_model(tiny_run / "model.npz")
    assert meta["features"] == "schnauz-moves-v1"
    assert meta["input_size"] == meta["obs_size"] + MoveFeatures(CONFIG).size
    for change, message in (
        ({"features": None}, "damaged: input size"),
        ({"features": "schnauz-moves-v9"}, "unknown feature set 'schnauz-moves-v9'"),
    ):
        header = {**meta, **change}
        if header["features"] is None:
            del header["features"]
        arrays = {"meta": np.array(json.dumps(header))}
        for i, (w, b) in enumerate(weights):
            arrays[f"w{i}"], arrays[f"b{i}"] = w, b
        np.savez(tmp_path / "m.npz", **arrays)
        with pytest.raises(ValueError, match=message):
            load_model_policy(tmp_path / "m.npz")


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "not a readable"),
        (b"PK\x03\x04garbage", "not a readable"),
        (b"this is not a model", "not a readable"),
    ],
)
def test_corrupt_model_files_are_refused(tmp_path: Path, content: bytes, message: str):
    path = tmp_path / "broken.npz"
    path.write_bytes(content)
    with pytest.raises(ValueError, match=message):
        load_model_policy(path)


def test_truncated_and_foreign_files_are_refused(tiny_run: Path, tmp_path: Path):
    data = (tiny_run / "model.npz").read_bytes()
    cut = tmp_path / "cut.npz"
    cut.write_bytes(data[: len(data) // 2])
    with pytest.raises(ValueError, match="not a readable"):
        load_model_policy(cut)
    other = tmp_path / "other.npz"
    np.savez(other, meta=np.array(json.dumps({"format": "something-else"})))
    with pytest.raises(ValueError):
        load_model_policy(other)
    with pytest.raises(ValueError, match="does not exist"):
        load_model_policy(tmp_path / "missing.npz")
