"""Nothing lost (issue 16): files are written whole or not at all, histories grow by
appending, nothing a user made is overwritten, and a crashing machine is survived.

Fault injection: a writer killed mid-write (the old file stays as it was), an
evaluation worker killed mid-run (a clear error naming it, at once, and no partial
file), and Ctrl-C during ``schnauz-eval`` (the finished games saved whole, marked
partial, and no half file).
"""

from __future__ import annotations

import json
import os
import re
import select
import signal
import subprocess
import sys
import textwrap
import time
import zipfile
from pathlib import Path

import numpy as np
import pytest

from policies.base import Policy
from policies.evaluation import evaluate
from policies.evaluation.report import check_out
from policies.evaluation.runner import WorkerDied, imap_workers
from schnauz_env.common.files import append_csv_rows, atomic_write, read_csv_rows, write_text

ROOT = Path(__file__).resolve().parents[1]


def leftovers(folder: Path) -> list[str]:
    """Temporary files a killed writer left in ``folder``."""
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


# ------------------------------------------------------------------ a killed writer

WRITER = """
import sys, time
from schnauz_env.common.files import atomic_write

def slow(f):
    for i in range(10_000):
        f.write(b"new bytes " * 1000)
        if i == 3:
            f.flush()
            print("writing", flush=True)
        time.sleep(0.01)

atomic_write(sys.argv[1], slow, overwrite=True, binary=True)
"""


def test_a_writer_killed_mid_write_leaves_the_old_file_whole(tmp_path):
    target = tmp_path / "model.npz"
    target.write_bytes(b"the old model")
    proc = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(target)], cwd=ROOT, stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout.readline().strip() == "writing"
    proc.kill()
    proc.wait(timeout=30)
    assert target.read_bytes() == b"the old model"
    # What the writer had written is in its temporary file, never under the final name.
    (tmp,) = leftovers(tmp_path)
    assert tmp.startswith(".model.npz.") and (tmp_path / tmp).stat().st_size > 0


def test_a_failed_write_leaves_neither_a_new_file_nor_a_temporary_one(tmp_path):
    target = tmp_path / "results.json"
    target.write_text("old\n")

    def broken(f):
        f.write("half")
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        atomic_write(target, broken, overwrite=True)
    assert target.read_text() == "old\n" and leftovers(tmp_path) == []
    with pytest.raises(FileExistsError):
        write_text(target, "new\n", overwrite=False)
    assert target.read_text() == "old\n"


def test_a_replaced_file_keeps_its_permissions_and_a_new_one_gets_the_usual_ones(tmp_path):
    old = tmp_path / "a.csv"
    old.write_text("x\n")
    old.chmod(0o640)
    write_text(old, "y\n")
    assert old.stat().st_mode & 0o777 == 0o640
    mask = os.umask(0o022)
    os.umask(mask)
    new = write_text(tmp_path / "b.csv", "z\n")
    assert new.stat().st_mode & 0o777 == 0o666 & ~mask


def test_a_history_row_cut_short_by_a_crash_is_dropped_and_the_rest_kept(tmp_path):
    path = tmp_path / "eval.csv"
    append_csv_rows(path, [{"step": 1, "win": 0.5}, {"step": 2, "win": 0.6}])
    with open(path, "ab") as fh:  # a kill in the middle of the third row
        fh.write(b"3,0.")
    assert [r["step"] for r in read_csv_rows(path)] == ["1", "2"]
    append_csv_rows(path, [{"step": 4, "win": 0.7}])
    assert [(r["step"], r["win"]) for r in read_csv_rows(path)] == [
        ("1", "0.5"), ("2", "0.6"), ("4", "0.7")
    ]  # fmt: skip
    append_csv_rows(path, [{"step": 5, "win": 0.8, "win_lo": 0.7}])  # a new column
    rows = read_csv_rows(path)
    assert len(rows) == 4 and rows[0]["win_lo"] == "" and rows[-1]["win_lo"] == "0.7"


# ------------------------------------------------------------------ runs


def test_a_run_directory_is_never_reused(tmp_path):
    from training.args import new_run_dir

    run = new_run_dir(tmp_path / "runs", "r1")
    (run / "eval.csv").write_bytes(b"step\r\n1\r\n")
    with pytest.raises(ValueError, match="never overwritten"):
        new_run_dir(tmp_path / "runs", "r1")
    assert (run / "eval.csv").read_bytes() == b"step\r\n1\r\n"
    assert new_run_dir(tmp_path / "runs", "empty").is_dir()
    assert new_run_dir(tmp_path / "runs", "empty").is_dir()  # an empty folder is taken
    (tmp_path / "file").write_text("")
    with pytest.raises(ValueError, match=r"--run-dir .* is a file"):
        new_run_dir(tmp_path / "file", "r")


def test_each_evaluation_appends_one_row_to_the_run_history(tmp_path):
    from training.evaluation import append_rows, plot_learning_curve

    path = tmp_path / "eval.csv"
    for step in range(3):
        append_rows(path, [{"step": step, "win_random": 0.5, "win_random_lo": 0.4,
                            "win_random_hi": 0.6}])  # fmt: skip
        before = path.read_bytes()
    assert len(read_csv_rows(path)) == 3 and path.read_bytes() == before
    plot_learning_curve(path, tmp_path / "curve.png", ["random"], 4)
    assert (tmp_path / "curve.png").read_bytes()[:4] == b"\x89PNG" and leftovers(tmp_path) == []


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda b: b[: len(b) // 2], "not a whole SB3 .zip"),
        (lambda b: b"", "not a whole SB3 .zip"),
        (lambda b: b"PK\x03\x04" + b"\0" * 64, "not a whole SB3 .zip"),
        (lambda b: b.replace(b"hello world", b"hellO world"), "damaged"),
    ],
    ids=["truncated", "empty", "garbage", "bit-flip"],
)
def test_a_damaged_init_model_is_named_before_the_run(tmp_path, damage, message):
    pytest.importorskip("sb3_contrib")
    from training.train import check_checkpoint

    good = tmp_path / "good.zip"
    with zipfile.ZipFile(good, "w", zipfile.ZIP_STORED) as zf:
        zf.writestr("data", json.dumps({"n_steps": 8}))
        zf.writestr("policy.pth", b"hello world" * 100)
    assert check_checkpoint(str(good)) == {"n_steps": 8}
    bad = tmp_path / "bad.zip"
    bad.write_bytes(damage(good.read_bytes()))
    with pytest.raises(ValueError, match=message) as err:
        check_checkpoint(str(bad))
    assert str(bad) in str(err.value) and "\n" not in str(err.value)


def test_an_init_model_with_unknown_pickled_entries_is_refused_unread(tmp_path):
    pytest.importorskip("sb3_contrib")
    from training.train import Args, _own_objects, load_checkpoint

    evil = tmp_path / "evil.zip"
    payload = {
        ":type:": "x",
        ":serialized:": "gASVIQAAAAAAAACMCGJ1aWx0aW5zlIwEZXZhbJSTlIwBMZSFlFKULg==",
    }
    with zipfile.ZipFile(evil, "w") as zf:
        zf.writestr("data", json.dumps({"n_steps": 8, "surprise": payload}))
        zf.writestr("policy.pth", b"")
    args = Args(init_model=str(evil))

    class Spaces:
        observation_space = action_space = None

    assert "surprise" not in _own_objects(args, Spaces(), {"learning_rate": 1.0, "clip_range": 0.2})
    with pytest.raises(ValueError, match=r"surprise.*refusing to unpickle"):
        load_checkpoint(args, Spaces(), {"learning_rate": 1.0, "clip_range": 0.2})


# ------------------------------------------------------------------ evaluation output


def test_schnauz_eval_out_is_checked_before_any_game(tmp_path):
    out = tmp_path / "board"
    check_out(out)  # a folder still to make is fine, and is not made
    assert not out.exists()
    out.mkdir()
    (out / "leaderboard.png").write_bytes(b"mine")
    with pytest.raises(FileExistsError, match=r"leaderboard\.png"):
        check_out(out)
    check_out(out, overwrite=True)
    (tmp_path / "file").write_text("")
    with pytest.raises(ValueError, match="is a file"):
        check_out(tmp_path / "file")
    with pytest.raises(ValueError, match="is a file"):
        check_out(tmp_path / "file" / "sub")


def test_eval_results_are_saved_whole_and_never_over_earlier_ones(tmp_path):
    result = evaluate(["random"], players=2, games=2, workers=1)
    out = tmp_path / "board"
    paths = result.save(str(out), games_csv=True)
    assert sorted(Path(p).name for p in paths) == sorted(
        ["results.json", "leaderboard.csv", "pairwise.csv", "games.csv", "leaderboard.png"]
    )
    first = {p: Path(p).read_bytes() for p in paths}
    with pytest.raises(FileExistsError):
        result.save(str(out), games_csv=True)
    assert {p: Path(p).read_bytes() for p in paths} == first
    result.save(str(out), games_csv=True, overwrite=True)
    assert json.loads((out / "results.json").read_text())["games"] == 2
    assert leftovers(out) == []


# ------------------------------------------------------------------ a killed worker


class KillsItsWorker(Policy):
    """Plays randomly; in a worker process (not the test's own) it kills its process
    with SIGKILL at its 20th move, as the kernel's out-of-memory killer would."""

    name = "kills-its-worker"
    game = "schnauz"

    def __init__(self, parent: int) -> None:
        self.parent, self.moves = parent, 0

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        self.moves += 1
        if os.getpid() != self.parent and self.moves == 20:
            os.kill(os.getpid(), signal.SIGKILL)
        return int(np.flatnonzero(action_mask)[0])

    def reset(self, seed: int | None = None) -> None:
        pass


@pytest.fixture
def deadline():
    """Fail instead of hanging for ever (the bug this guards against)."""

    def hung(signum, frame):
        raise TimeoutError("the evaluation hung after its worker died")

    old = signal.signal(signal.SIGALRM, hung)
    signal.alarm(120)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, old)


def test_a_killed_worker_is_a_clear_error_not_a_hang_and_no_file(tmp_path, deadline):
    record = tmp_path / "records"
    with pytest.raises(WorkerDied, match=r"worker process died: \d+ \(killed by SIGKILL\)"):
        evaluate(
            [KillsItsWorker(os.getpid()), "random"],
            players=2,
            games=40,
            workers=2,
            record=record,
        )
    assert not record.exists() or list(record.iterdir()) == []


def _exits(code: int) -> int:
    if code == 3:
        os._exit(3)
    return code


def test_imap_workers_names_a_worker_that_exits(deadline):
    with pytest.raises(WorkerDied, match=r"exit code 3.*after \d+ of 8 jobs"):
        list(imap_workers(_exits, [0, 1, 2, 3, 4, 5, 6, 7], 2, unit="jobs"))
    assert sorted(imap_workers(_exits, [0, 1, 2, 4], 2)) == [0, 1, 2, 4]
    with pytest.raises(ZeroDivisionError):  # an error in the work comes through as it is
        list(imap_workers(_one_over, [1, 0], 2))


def _one_over(x: int) -> float:
    return 1 / x


# ------------------------------------------------------------------ Ctrl-C


def test_ctrl_c_during_schnauz_eval_saves_whole_files_marked_partial(tmp_path):
    out = tmp_path / "board"
    script = textwrap.dedent(
        """
        import sys
        from policies.evaluation.cli import main
        sys.exit(main(sys.argv[1:]))
        """
    )
    argv = ["--policies", "random", "greedy", "--games", "20000", "--workers", "2",
            "--out", str(out), "--record", str(tmp_path / "rec")]  # fmt: skip
    proc = subprocess.Popen(
        [sys.executable, "-c", script, *argv],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    # Wait for games to finish (off a terminal the progress is a line per tenth of the
    # games, "played 2,000/20,000 games ..."), then press Ctrl-C.
    seen = b""
    start = time.monotonic()
    while time.monotonic() - start < 120 and proc.poll() is None:
        ready, _, _ = select.select([proc.stderr], [], [], 0.5)
        if ready:
            seen += os.read(proc.stderr.fileno(), 65536)
        if re.search(rb"played [1-9][\d,]*/20,000", seen):  # some games done
            break
    proc.send_signal(signal.SIGINT)
    try:  # it ends by itself: a hang at exit (a lock left taken by the interrupt) fails here
        out_bytes, _ = proc.communicate(timeout=120)
    finally:
        proc.kill()
    stdout = out_bytes.decode()
    assert proc.returncode == 130
    results = json.loads((out / "results.json").read_text())
    games = results["games"]
    assert results["settings"]["partial"] is True and 0 < games < 20000
    assert results["settings"]["games_planned"] == 20000
    records = (tmp_path / "rec" / "records.jsonl").read_text().splitlines()
    assert len(records) == games and all(json.loads(line)["outcome"] for line in records)
    assert leftovers(out) == [] and "partial" in stdout
