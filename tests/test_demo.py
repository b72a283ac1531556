"""``python -m schnauz_env``: the README's main job (a seeded game, then a short evaluation)."""

from __future__ import annotations

import itertools
import re

import pytest
from test_play_terminal import random_model

from policies import mlp as models
from schnauz_env.demo import main
from schnauz_env.schnauz import SchnauzConfig


def test_the_demo_seats_the_shipped_model_and_evaluates_it(tmp_path, monkeypatch, capsys):
    random_model(tmp_path, "schnauz", SchnauzConfig(num_players=3))
    monkeypatch.setattr(models, "models_dir", lambda: tmp_path)
    assert main(["--players", "3", "--seed", "3", "--quiet", "--eval-games", "6"]) == 0
    out = capsys.readouterr().out
    assert "seat 0: model" in out and "seat 1: expert" in out and "seat 2: greedy" in out
    assert "Final places:" in out
    rows = re.findall(
        r"2x (expert|greedy|random)\s+([01]\.\d{3}) \[([01]\.\d{3}), ([01]\.\d{3})\]", out
    )
    assert [r[0] for r in rows] == ["expert", "greedy", "random"]
    for _, rate, lo, hi in rows:
        assert float(lo) <= float(rate) <= float(hi)
    # progress while the players get ready and while each row is played
    assert "Getting the players ready" in out and "Players ready in" in out
    assert [m for m in re.findall(r"2x (\w+)\s+playing 6 games…", out)] == [
        "expert",
        "greedy",
        "random",
    ]


def test_without_a_model_for_the_rules_expert_sits_in_seat_0(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(models, "models_dir", lambda: tmp_path)  # nothing shipped here
    assert main(["--players", "2", "--quiet", "--eval-games", "0"]) == 0
    out = capsys.readouterr().out
    assert "no trained model ships for these rules" in out
    assert "seat 0: expert" in out and "win rate" not in out


def test_the_same_seed_prints_the_same_game(capsys):
    main(["--players", "3", "--seed", "11", "--eval-games", "0", "--policies", "greedy", "random"])
    first = capsys.readouterr().out
    main(["--players", "3", "--seed", "11", "--eval-games", "0", "--policies", "greedy", "random"])
    assert capsys.readouterr().out == first


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--policies", "nobody"], "unknown schnauz policy 'nobody'"),
        (["--eval-games", "-1"], "--eval-games must be >= 0"),
        (["--policies", "model", "--deck", "A5", "--lives", "1"], "no trained schnauz model"),
    ],
)
def test_bad_command_lines_get_a_clear_error(argv, message, capsys, tmp_path, monkeypatch):
    monkeypatch.setattr(models, "models_dir", lambda: tmp_path)
    assert main(argv) == 2
    assert message in capsys.readouterr().err


def test_python_m_schnauz_env_runs_the_demo():
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, "-m", "schnauz_env", "--help"], capture_output=True, text=True, check=True
    ).stdout
    assert out.startswith("usage: python -m schnauz_env") and "--eval-games" in out


def test_the_demo_shows_the_face_up_table_after_each_change(capsys):
    assert main(["--players", "3", "--seed", "5", "--eval-games", "0", "--policies", "greedy"]) == 0
    lines = capsys.readouterr().out.splitlines()
    swaps = 0
    for line, after in itertools.pairwise(lines):
        move = re.search(r"\): (?:swap (\S+) \(hand\) for|(keep|exchange)$)", line)
        if move is None or "showdown" in after:  # a move that ends the round shows the hands
            continue
        assert after.startswith("      table: "), (line, after)
        if move[1]:  # the card you gave up now lies face up
            assert move[1] in after.split(), (line, after)
            swaps += 1
    assert swaps > 5


def test_the_demo_speaks_like_the_terminal_game(capsys):
    argv = ["--players", "3", "--seed", "2", "--lives", "1", "--eval-games", "0", "--quiet"]
    assert main([*argv, "--policies", "greedy", "random"]) == 0
    out = capsys.readouterr().out
    assert "loses a life, now swimming" in out and "0 left" not in out
    assert out.count("(swimming: no lives left, still in the game") == 1
    assert "goes out" in out
    assert re.search(r"showdown, round \d+: (after a knock|Fire or Schnauz ends)", out)


def test_the_demo_prints_no_warning_even_without_numba():
    """The trained model's features run as plain Python without numba: no warning about
    a batched engine the demo does not use (nor any other from the project's code)."""
    import os
    import subprocess
    import sys

    env = dict(os.environ, SCHNAUZ_ENV_NO_NUMBA="1", PYTHONWARNINGS="default")
    done = subprocess.run(
        [sys.executable, "-m", "schnauz_env", "--players", "3", "--quiet", "--eval-games", "0"],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    ours = re.findall(r"(?:schnauz_env|policies|training)/\S+\.py:\d+: \w*Warning.*", done.stderr)
    assert not ours, ours
    assert "numba" not in done.stdout + done.stderr
