"""`schnauz replay` in a real pseudo-terminal (pexpect), and the records `schnauz play`
writes: on request (also when you quit) and always on a crash."""

from __future__ import annotations

import copy
import subprocess
import sys

import pytest

pexpect = pytest.importorskip("pexpect")
pytest.importorskip("rich")

from test_play_terminal import (  # noqa: E402
    CONTINUE,
    GAME_OVER,
    PROMPT,
    TIMEOUT,
    play_to_the_end,
    random_model,
    spawn,
)

from policies.evaluation import evaluate  # noqa: E402
from schnauz_env.play import cli  # noqa: E402
from schnauz_env.play.cli import build_config  # noqa: E402
from schnauz_env.records import (  # noqa: E402
    Record,
    file_sha256,
    read_record,
    read_records,
    replay,
    write_record,
)

REPLAY_PROMPT = r"q: quit[^\n]*\n> "


def spawn_replay(*args: str, dimensions: tuple[int, int] = (60, 120)):
    return spawn(*args, command="replay", dimensions=dimensions)


@pytest.fixture(scope="module")
def eval_records(tmp_path_factory):
    folder = tmp_path_factory.mktemp("eval")
    evaluate(["random", "greedy", "expert"], players=3, games=3, workers=1, seed=2, record=folder)
    return folder / "records.jsonl"


def test_browse_a_record_from_a_seat_and_with_every_hand_open(eval_records):
    record = read_record(eval_records, 1)
    total = len(record.actions)
    child, screen = spawn_replay(str(eval_records), "--index", "1", "--seat", "1")
    child.expect(REPLAY_PROMPT)
    start = screen.text()
    assert f"move 0 of {total}" in start and "game 2 of 3" in start
    assert "the view of seat 1" in start
    assert "??" in start  # the other seats' cards are face down from seat 1
    child.sendline("")  # next
    child.expect(rf"move 1 of {total}")
    child.expect(REPLAY_PROMPT)
    assert "   1. " in screen.text()
    child.sendline("5")
    child.expect(rf"move 5 of {total}")
    child.expect(REPLAY_PROMPT)
    child.sendline("b")
    child.expect(rf"move 4 of {total}")
    child.expect(REPLAY_PROMPT)
    child.sendline("v")  # every hand open
    child.expect("every hand open")
    child.expect(REPLAY_PROMPT)
    opened = screen.text().rsplit("every hand open", 1)[1]
    assert "??" not in opened
    child.sendline("e")
    child.expect(GAME_OVER)
    child.expect(rf"move {total} of {total}")
    child.expect(REPLAY_PROMPT)
    child.sendline("q")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert "Traceback" not in screen.text()


def test_a_record_that_does_not_replay_is_shown_up_to_the_move_that_differs(tmp_path, eval_records):
    record = read_record(eval_records, 0)
    data = copy.deepcopy(record.to_dict())
    bad_move = 7
    seat, action = data["actions"][bad_move]
    legal_now = set()
    for step in __import__("schnauz_env.records", fromlist=["Replay"]).Replay(record):
        if step.index == bad_move:
            legal_now = set(step.env.observe(step.env.agent_selection)["action_mask"].nonzero()[0])
            break
    data["actions"][bad_move][1] = next(a for a in range(14) if a not in legal_now)
    del data["views"]
    path = write_record(tmp_path / "bad.json", Record.from_dict(data))
    child, screen = spawn_replay(str(path))
    child.expect(REPLAY_PROMPT)
    child.sendline("e")
    child.expect(f"move {bad_move} of")
    child.expect("does not replay here")
    child.expect(REPLAY_PROMPT)
    child.sendline("q")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert f"move {bad_move}: seat {seat}'s action" in screen.text().replace("\n", "")
    # Without a terminal the whole game is printed, and the bad record fails.
    out = subprocess.run(
        [sys.executable, "-m", "schnauz_env.play.cli", "replay", str(path)],
        capture_output=True, text=True, timeout=TIMEOUT, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert out.returncode == 1 and "does not replay" in out.stdout
    good = subprocess.run(
        [sys.executable, "-m", "schnauz_env.play.cli", "replay", str(eval_records), "--all"],
        capture_output=True, text=True, timeout=TIMEOUT,
    )  # fmt: skip
    assert good.returncode == 0 and "Game over" in good.stdout
    assert f"{len(record.actions):>4}. " in good.stdout or "Game over" in good.stdout


def test_bad_arguments_are_one_line_errors(tmp_path, eval_records, capsys):
    assert cli.main(["replay", str(eval_records), "--index", "9"]) == 2
    assert "holds 3 game(s)" in capsys.readouterr().err
    assert cli.main(["replay", str(eval_records), "--seat", "7"]) == 2
    assert "--seat must be a seat 0..2" in capsys.readouterr().err
    other = tmp_path / "other.json"
    other.write_text('{"format": "x"}')
    assert cli.main(["replay", str(other)]) == 2
    assert "not a schnauz_env game record" in capsys.readouterr().err


def test_schnauz_play_records_a_whole_game(tmp_path):
    config = build_config("schnauz", 3, {"lives": 0})
    model = random_model(tmp_path, "schnauz", config)
    path = tmp_path / "game.json"
    child, screen = spawn(
        *("--players", "3", "--seat", "1", "--seed", "5", "--speed", "0"),
        *("--opponents", model, "--rules", "lives=0", "--record", str(path)),
    )
    play_to_the_end(child, "k", bad=[])
    out = screen.text()
    assert child.exitstatus == 0, out[-2000:]
    assert "Game record saved to" in out
    record = read_record(path)
    assert record.finished and record.seed == 5 and record.meta["source"] == "schnauz play"
    assert record.seats[1].policy == "human"
    assert {s.sha256 for i, s in enumerate(record.seats) if i != 1} == {file_sha256(model)}
    assert replay(record).places == record.outcome.places


def test_quitting_saves_the_game_so_far_and_an_existing_file_is_refused(tmp_path):
    config = build_config("scat", 3, {})
    model = random_model(tmp_path, "scat", config)
    path = tmp_path / "quit.json"
    args = ("--game", "scat", "--players", "3", "--speed", "0", "--opponents", model)
    child, screen = spawn(*args, "--record", str(path))
    # No --seed: a deal can end its round before the person's first move (a 31 dealt),
    # and then the first question is "Press Enter to continue (q quits)"; q quits at both.
    child.expect([PROMPT, CONTINUE])
    child.sendline("q")
    child.expect(pexpect.EOF)
    child.close()
    record = read_record(path)
    assert not record.finished and record.meta["ended"] == "quit"
    assert isinstance(record.seed, int)  # no --seed: a fresh one, so the game replays
    assert not replay(record).finished
    child, screen = spawn(*args, "--record", str(path))
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 2 and "exists" in screen.text()


def test_a_crash_always_saves_the_game_so_far(tmp_path, monkeypatch, capsys):
    from schnauz_env.play import session as session_module

    original = session_module.PlaySession._play
    count = {"moves": 0}

    def crashing_play(self, seat, action):
        count["moves"] += 1
        if count["moves"] == 4:
            raise RuntimeError("the screen broke")
        return original(self, seat, action)

    monkeypatch.setattr(session_module.PlaySession, "_play", crashing_play)
    monkeypatch.setenv("SCHNAUZ_CRASH_DIR", str(tmp_path / "crashes"))
    monkeypatch.setattr(session_module.PlaySession, "_ask_terminal", lambda self, prompt: "1")
    with pytest.raises(RuntimeError, match="the screen broke"):
        cli.main(["play", "--players", "3", "--seat", "0", "--seed", "9", "--speed", "0",
                  "--opponents", "random", "--no-clear"])  # fmt: skip
    err = capsys.readouterr().err
    assert "schnauz-crash-schnauz-9.json" in err and "bug report" in err
    record = read_records(tmp_path / "crashes" / "schnauz-crash-schnauz-9.json")[0]
    assert record.meta["error"] == "RuntimeError: the screen broke"
    assert len(record.actions) == 3 and not record.finished
    replay(record)
