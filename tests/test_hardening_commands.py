"""Every command given bad arguments gives a clear error (issue 16): exit code 2, no
traceback, and a last line on stderr that names the argument, before any work is done.

One table for every command, ``tests/data/bad_arguments.json`` (for each command, its rows
of argv and what the last line of stderr must contain), run in-process through each
command's ``main(argv)`` (a subprocess per row would cost seconds each): ``schnauz`` (play,
replay, serve), ``python -m schnauz_env`` (the demo), ``schnauz-eval``, and the training
scripts (``train``, ``rllib_train``, ``pretrain``, ``quick_eval``, ``curve``,
``datasets``). ``{file}``, ``{dir}``, ``{run}``, ``{zip}``, ``{out}`` and ``{model}`` in a
row stand for files the fixture makes: a plain file, an empty folder, a folder holding an
earlier run, a damaged ``.zip``, a folder holding an earlier evaluation, and the shipped
model; ``{nested}`` for a deeply nested value (a recursion bomb for a naive parser).
"""

from __future__ import annotations

import importlib
import io
import json
import sys
from pathlib import Path
from typing import Any

import pytest

NESTED = "[" * 5000  # a deeply nested value (a recursion bomb for a naive parser)
BAD_ARGUMENTS = Path(__file__).parent / "data" / "bad_arguments.json"

#: (command, argv, what the last line of stderr must contain)
ROWS: list[tuple[str, list[str], str]] = [
    (command, argv, names)
    for command, rows in json.loads(BAD_ARGUMENTS.read_text()).items()
    for argv, names in rows
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
            "out": str(out), "model": str(model), "nested": NESTED}  # fmt: skip


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
