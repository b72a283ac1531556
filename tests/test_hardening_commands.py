"""Every command given bad arguments gives a clear error (issue 16): exit code 2, no
traceback, and a last line on stderr that names the argument, before any work is done.

One table for every command, run in-process through each command's ``main(argv)``
(a subprocess per row would cost seconds each): ``schnauz`` (play, replay, serve),
``python -m schnauz_env`` (the demo), ``schnauz-eval``, and the training scripts
(``train``, ``rllib_train``, ``pretrain``, ``quick_eval``, ``curve``, ``datasets``). ``{file}``,
``{dir}``, ``{run}``, ``{zip}``, ``{out}`` and ``{model}`` in a row stand for files the
fixture makes: a plain file, an empty folder, a folder holding an earlier run, a
damaged ``.zip``, a folder holding an earlier evaluation, and the shipped model.
"""

from __future__ import annotations

import importlib
import io
import sys
from pathlib import Path
from typing import Any

import pytest

NESTED = "[" * 5000  # a deeply nested value (a recursion bomb for a naive parser)

#: (command, argv, what the last line of stderr must contain)
ROWS: list[tuple[str, list[str], str]] = [
    # schnauz
    ("schnauz", ["bogus"], "invalid choice"),
    ("schnauz", ["play", "--speed", "inf"], "--speed"),
    ("schnauz", ["play", "--speed", "nan"], "--speed"),
    ("schnauz", ["play", "--speed", "-1"], "--speed"),
    ("schnauz", ["play", "--speed", "x"], "--speed"),
    ("schnauz", ["play", "--seed", "-1"], "--seed"),
    ("schnauz", ["play", "--players", "9"], "num_players"),
    ("schnauz", ["play", "--players", "x"], "--players"),
    ("schnauz", ["play", "--seat", "7"], "--seat"),
    ("schnauz", ["play", "--game", "poker"], "--game"),
    ("schnauz", ["play", "--opponents", "nobody"], "nobody"),
    ("schnauz", ["play", "--rules", "lives"], "key=value"),
    ("schnauz", ["play", "--rules", "colour=red"], "colour"),
    ("schnauz", ["play", "--rules", "num_players=3"], "--players"),
    ("schnauz", ["play", "--rules", f"deck={NESTED}"], "deck"),
    ("schnauz", ["play", "--record", "{dir}"], "--record"),
    ("schnauz", ["replay", "{file}/missing.json"], "missing.json"),
    ("schnauz", ["replay", "{file}"], "plain.txt"),
    ("schnauz", ["replay"], "file"),
    ("schnauz", ["serve", "--port", "70000"], "--port"),
    ("schnauz", ["serve", "--port", "-1"], "--port"),
    ("schnauz", ["serve", "--max-tables", "0"], "--max-tables"),
    ("schnauz", ["serve", "--idle-minutes", "nan"], "--idle-minutes"),
    # the demo
    ("demo", ["--players", "1"], "num_players"),
    ("demo", ["--seed", "-1"], "--seed"),
    ("demo", ["--eval-games", "-1"], "--eval-games"),
    ("demo", ["--deck", "X"], "--deck"),
    # schnauz-eval
    ("schnauz-eval", ["--games", "0"], "--games"),
    ("schnauz-eval", ["--workers", "0"], "--workers"),
    ("schnauz-eval", ["--seed", "-1"], "--seed"),
    ("schnauz-eval", ["--players", "9"], "num_players"),
    ("schnauz-eval", ["--policies", "nobody"], "nobody"),
    ("schnauz-eval", ["--game", "poker"], "poker"),
    ("schnauz-eval", ["--games-with", "random=0", "--policies", "random"], "--games-with"),
    ("schnauz-eval", ["--games-with", "random=x"], "--games-with"),
    ("schnauz-eval", ["--games-with", "random"], "--games-with"),
    ("schnauz-eval", ["--games-with", "nobody=3", "--policies", "random"], "nobody"),
    ("schnauz-eval", ["--option", f"deck={NESTED}"], "deck"),
    ("schnauz-eval", ["--rules", f"lives={NESTED}"], "lives"),
    ("schnauz-eval", ["--out", "{file}"], "--out"),
    ("schnauz-eval", ["--out", "{out}"], "--out"),
    ("schnauz-eval", ["--record-sample", "3"], "--record"),
    ("schnauz-eval", ["--save-games"], "--out"),
    ("schnauz-eval", ["--schedule", "circle"], "--schedule"),
    # python -m training.train
    ("train", ["--num-envs", "0"], "--num-envs"),
    ("train", ["--num-envs", "abc"], "--num-envs"),
    ("train", ["--batch-size", "0"], "--batch-size"),
    ("train", ["--torch-threads", "0"], "--torch-threads"),
    ("train", ["--total-steps", "-5"], "--total-steps"),
    ("train", ["--net-arch", "0"], "--net-arch"),
    ("train", ["--net-arch", "64", "-3"], "--net-arch"),
    ("train", ["--net-arch"], "--net-arch"),
    ("train", ["--learning-rate", "0"], "--learning-rate"),
    ("train", ["--learning-rate", "nan"], "--learning-rate"),
    ("train", ["--gamma", "1.5"], "--gamma"),
    ("train", ["--n-steps", "0"], "--n-steps"),
    ("train", ["--eval-games", "0"], "--eval-games"),
    ("train", ["--table-sizes", "1"], "--table-sizes"),
    ("train", ["--table-sizes"], "--table-sizes"),
    ("train", ["--opponent-weights", "1", "2"], "--opponent-weights"),
    ("train", ["--opponents"], "--opponents"),
    ("train", ["--seed", "-1"], "--seed"),
    ("train", ["--run-dir", "{file}"], "--run-dir"),
    ("train", ["--run-dir", "{dir}", "--run-name", "a/b"], "--run-name"),
    ("train", ["--run-dir", "{dir}", "--run-name", "old"], "--run-name"),
    ("train", ["--vec-env", "threads"], "--vec-env"),
    ("train", ["--bogus"], "--bogus"),
    ("train", ["--rules", "lives=x"], "lives"),
    ("train", ["--opponents", "random", "--run-dir", "{dir}", "--init-model", "{zip}"], "--init"),
    ("train", ["--opponents", "random", "--run-dir", "{dir}", "--init-model", "{dir}/0"], "--init"),
    # python -m training.rllib_train
    ("rllib_train", ["--iterations", "0"], "--iterations"),
    ("rllib_train", ["--train-batch-size", "0"], "--train-batch-size"),
    ("rllib_train", ["--num-envs-per-env-runner", "0"], "--num-envs-per-env-runner"),
    ("rllib_train", ["--eval-workers", "0"], "--eval-workers"),
    ("rllib_train", ["--batch-size", "-1"], "--batch-size"),
    ("rllib_train", ["--activation", "gelu"], "--activation"),
    ("rllib_train", ["--run-dir", "{file}"], "--run-dir"),
    # python -m training.pretrain
    ("pretrain", [], "--out"),
    ("pretrain", ["--out", "{dir}/t.npz", "--games", "0"], "--games"),
    ("pretrain", ["--out", "{dir}/t.npz", "--players", "1"], "--players"),
    ("pretrain", ["--out", "{dir}/t.npz", "--workers", "0"], "--workers"),
    ("pretrain", ["--out", "{dir}/t.npz", "--teacher", "nobody"], "nobody"),
    ("pretrain", ["--out", "{file}"], "--out"),
    ("pretrain", ["--out", "{dir}"], "--out"),
    # python -m training.quick_eval
    ("quick_eval", [], "model"),
    ("quick_eval", ["{dir}/missing.npz"], "missing.npz"),
    ("quick_eval", ["{file}"], "file"),
    ("quick_eval", ["{model}", "--games", "0"], "--games"),
    ("quick_eval", ["{model}", "--seed", "-1"], "--seed"),
    ("quick_eval", ["{model}", "--opponent", "nobody"], "nobody"),
    # python -m training.datasets
    ("datasets", [], "--out"),
    ("datasets", ["--out", "{file}"], "--out"),
    ("datasets", ["--out", "{dir}/d.npz", "--save-records", "{file}"], "--save-records"),
    ("datasets", ["--out", "{dir}/d.npz", "--games", "0"], "--games"),
    # python -m training.curve
    ("curve", ["--out", "{dir}/c.png"], "run"),
    ("curve", ["{dir}", "--out", "{dir}/c.png"], "eval.csv"),
    ("curve", ["{run}@x", "--out", "{dir}/c.png"], "@"),
    ("curve", ["{run}", "--out", "{dir}/c.txt"], "--out"),
    ("curve", ["{run}", "--out", "{file}"], "--out"),
]

MAINS = {
    "schnauz": "schnauz_env.play.cli",
    "demo": "schnauz_env.demo",
    "schnauz-eval": "policies.evaluation.cli",
    "train": "training.train",
    "rllib_train": "training.rllib_train",
    "pretrain": "training.pretrain",
    "quick_eval": "training.quick_eval",
    "curve": "training.curve",
    "datasets": "training.datasets",
}
NEEDS = {"train": "sb3_contrib", "rllib_train": "ray", "quick_eval": "numba", "curve": "tyro"}


@pytest.fixture(scope="module")
def places(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    root = tmp_path_factory.mktemp("commands")
    file = root / "plain.txt"
    file.write_text("not a record\n")
    folder = root / "empty"
    folder.mkdir()
    run = folder / "old"  # an earlier run, with its history
    run.mkdir()
    (run / "eval.csv").write_text("step,win_random,win_random_lo,win_random_hi\r\n0,1,1,1\r\n")
    damaged = root / "damaged.zip"
    damaged.write_bytes(b"PK\x03\x04" + b"\x00" * 40)
    out = root / "board"
    out.mkdir()
    (out / "results.json").write_text("{}\n")
    from policies.mlp import shipped_model
    from schnauz_env.schnauz import SchnauzConfig

    model = shipped_model("schnauz", SchnauzConfig())
    return {"file": str(file), "dir": str(folder), "run": str(run), "zip": str(damaged),
            "out": str(out), "model": str(model)}  # fmt: skip


def run_command(command: str, argv: list[str], capsys: Any) -> tuple[int, str]:
    """``command``'s ``main(argv)``: its exit code and what it wrote to stderr."""
    if command in NEEDS:
        pytest.importorskip(NEEDS[command])
    main = importlib.import_module(MAINS[command]).main
    try:
        code = main(argv)
    except SystemExit as stop:
        code = stop.code
    return code, capsys.readouterr().err


@pytest.mark.parametrize(("command", "argv", "names"), ROWS, ids=lambda v: str(v)[:40])
def test_a_bad_argument_is_a_clear_error(command, argv, names, places, capsys, monkeypatch):
    argv = [a.format(**places) for a in argv]
    if command == "schnauz":
        monkeypatch.setattr(sys, "stdin", io.StringIO("q\n"))  # never wait for a move
    code, err = run_command(command, argv, capsys)
    assert code == 2, err
    assert "Traceback" not in err
    last = err.strip().splitlines()[-1]
    assert "error" in last and names in last, err
    assert len(last) < 400 or NESTED[:50] in last  # one line (a nested value is echoed)


def test_every_command_has_rows():
    assert {c for c, _, _ in ROWS} == set(MAINS)


def test_nothing_was_written_by_a_refused_command(places):
    """The refused rows made no file: no run directory, no teacher data, no picture."""
    made = sorted(p.name for p in Path(places["dir"]).rglob("*"))
    assert made == ["eval.csv", "old"]
    assert Path(places["out"], "results.json").read_text() == "{}\n"
