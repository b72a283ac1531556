"""`schnauz play` driven through a real pseudo-terminal (pexpect), as a person would.

The bots are small model files written here with random weights, so the games
exercise the real model-loading path and do not depend on the baselines' speed.
Every game is played to its end with bad keystrokes on the way; end of input
and Ctrl-C must leave with a one-line goodbye and never a traceback.
"""

from __future__ import annotations

import os
import re
import signal
import sys
from pathlib import Path

import numpy as np
import pytest

pexpect = pytest.importorskip("pexpect")

from policies.mlp import save_model  # noqa: E402
from schnauz_env.cards import parse_card  # noqa: E402
from schnauz_env.games import game_module  # noqa: E402
from schnauz_env.play.cli import build_config  # noqa: E402

PROMPT = r"\n> "
CONTINUE = r"Press Enter to (continue|watch)"
GAME_OVER = r"Game over"
REFUSED = (
    r"You cannot|is not a move|There is no move|Type a move|does not beat|You do not hold|bad card"
)
TIMEOUT = 120  # generous: CI machines are shared and a cold start can be slow
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07")


def random_model(tmp: Path, game: str, config, seed: int = 0) -> str:
    """A tiny MLP model file for ``game`` under ``config``, with random weights."""
    module = game_module(game)
    obs, n_act = module.ObservationEncoder(config).size, module.NUM_ACTIONS
    rng = np.random.default_rng(seed)
    weights = [
        (rng.normal(size=(obs, 16)).astype(np.float32), np.zeros(16, np.float32)),
        (rng.normal(size=(16, n_act)).astype(np.float32), np.zeros(n_act, np.float32)),
    ]
    path = save_model(
        tmp / f"{game}_random.npz", weights, game, config, [config.num_players], "tanh", obs, n_act
    )
    return str(path)


class Screen:
    """Everything the terminal showed (pexpect's ``logfile_read``), without colour codes."""

    def __init__(self) -> None:
        self.parts: list[str] = []

    def write(self, text: str) -> None:
        self.parts.append(text)

    def flush(self) -> None:
        pass

    def text(self) -> str:
        return ANSI.sub("", "".join(self.parts))


def spawn(
    *args: str, command: str = "play", dimensions: tuple[int, int] = (50, 120), **environ: str
) -> tuple[pexpect.spawn, Screen]:
    """``schnauz <command> *args`` in a pseudo-terminal, and what its screen shows."""
    env = dict(os.environ, PYTHONUNBUFFERED="1", TERM="xterm-256color", **environ)
    for var in ("NO_COLOR", "COLUMNS", "LINES"):
        env.pop(var, None)
    child = pexpect.spawn(
        sys.executable,
        ["-m", "schnauz_env.play.cli", command, *args],
        encoding="utf-8",
        timeout=TIMEOUT,
        dimensions=dimensions,
        env=env,
        # A shell that starts a job in the background (e.g. `.ci/run &`) hands it SIGINT
        # ignored, and Python then never turns Ctrl-C into KeyboardInterrupt: give the
        # game the disposition a terminal would.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    screen = Screen()
    child.logfile_read = screen
    return child, screen


def play_to_the_end(child: pexpect.spawn, preferred: str, bad: list[str]) -> None:
    """Answer every prompt until the game is over: first the ``bad`` keystrokes, then
    ``preferred`` (a letter such as ``k`` for knock), or move 1 when the screen refused it."""
    bad = list(bad)
    refused = False
    prompts = 0
    while True:
        i = child.expect([PROMPT, CONTINUE, GAME_OVER, REFUSED])
        if i == 1:
            child.sendline("")
        elif i == 2:
            break
        elif i == 3:
            refused = True
        else:
            prompts += 1
            assert prompts < 500, "the game did not end"
            if bad:
                child.sendline(bad.pop(0))
            else:
                child.sendline("1" if refused else preferred)
                refused = False
    child.expect(pexpect.EOF)
    child.close()


def an_illegal_move(game: str, config, seat: int, seed: int) -> tuple[str, str]:
    """Keys that name a real move which is not legal at ``seat``'s first prompt, and the
    message the screen must answer with. The deal is the env's: ``reset(seed)`` draws
    the first dealer and shuffles with ``default_rng(seed)``, as ``new_game`` does here."""
    state = game_module(game).new_game(config, np.random.default_rng(seed))
    if game == "schnauz":  # the dealer first chooses keep or exchange; the others never may
        if state.dealer == seat:
            return "k", "You cannot knock now"
        return "x", "You cannot exchange now"
    if game == "scat":  # no knocking on your first turn (the default rule)
        return "k", "You cannot knock now"
    hand = state.hands[seat]  # Thirteen: two cards of different ranks are no combination
    codes = f"{parse_card(hand[0]).code} {parse_card(hand[-1]).code}"
    return codes, "is not a combination"


@pytest.mark.parametrize(
    "game, players, rules, preferred, not_a_move",
    [
        # everyone swimming: two rounds end the game
        ("schnauz", 3, {"lives": 0}, "k", "'zz' is not a move"),
        # everyone on the bus
        ("scat", 3, {"lives": 0}, "k", "'zz' is not a move"),
        # Thirteen reads card codes: zz is not one
        ("thirteen", 4, {}, "p", "bad card code 'zz'"),
    ],
)
def test_a_whole_game_against_bots_through_the_terminal(
    tmp_path, game, players, rules, preferred, not_a_move
):
    config = build_config(game, players, rules)
    model = random_model(tmp_path, game, config)
    rule_args = ["--rules", *(f"{k}={v}" for k, v in rules.items())] if rules else []
    illegal, refusal = an_illegal_move(game, config, seat=1, seed=5)
    child, screen = spawn(
        *("--game", game, "--players", str(players), "--seat", "1", "--seed", "5"),
        *("--speed", "0", "--opponents", model, *rule_args),
    )
    # bad keystrokes first: a word that is no move, a number out of range, an empty
    # line, a move the rules do not allow now
    play_to_the_end(child, preferred, bad=["zz", "99", "", illegal])
    out = screen.text()
    assert child.exitstatus == 0, out[-3000:]
    assert "Traceback" not in out
    assert not re.search(r"\w+Warning\b", out), "no warning reaches the screen"
    assert not_a_move in out
    assert "There is no move 99" in out
    assert "Type a move" in out
    assert refusal in out
    assert "Your move:" in out and "(seat 0): " in out, "menus and the bots' moves are shown"
    assert re.search(r"place\s+seat\s+player", out), "the final places are shown"
    if game == "thirteen":
        assert "out of cards" in out and re.search(r"Game 1 over", out)
    else:
        assert "Showdown" in out and "goes out" in out
        assert re.search(r"You\s+.*●|lives|swimming|on the bus", out)


def test_end_of_input_says_goodbye(tmp_path):
    config = build_config("schnauz", 3, {})
    child, screen = spawn(
        *("--players", "3", "--seed", "1", "--speed", "0"),
        *("--opponents", random_model(tmp_path, "schnauz", config)),
    )
    child.expect(PROMPT)
    child.sendline("x7")  # something bad first
    child.expect("is not a move")
    child.expect(PROMPT)
    child.sendeof()
    child.expect(pexpect.EOF)
    child.close()
    out = screen.text()
    assert child.exitstatus == 0
    assert out.rstrip().endswith("Goodbye.")
    assert "Traceback" not in out


def test_ctrl_c_while_the_bots_play_says_goodbye(tmp_path):
    # seat 1 at a table whose first dealer (seed 2) is another seat: a bot moves first,
    # and Ctrl-C arrives while the screen waits --speed seconds after its move
    config = build_config("schnauz", 3, {})
    state = game_module("schnauz").new_game(config, np.random.default_rng(2))
    me = (state.dealer + 1) % 3
    child, screen = spawn(
        *("--players", "3", "--seat", str(me), "--seed", "2", "--speed", "5"),
        *("--opponents", random_model(tmp_path, "schnauz", config)),
    )
    child.expect(rf"\(seat {state.dealer}\)\S*: \S*(keep|exchange)")
    child.sendintr()
    child.expect(pexpect.EOF)
    child.close()
    out = screen.text()
    assert child.exitstatus == 130
    assert "Goodbye." in out and "Traceback" not in out
    assert "Your move:" not in out


def test_ctrl_c_at_the_prompt_says_goodbye(tmp_path):
    config = build_config("scat", 2, {})
    child, screen = spawn(
        *("--game", "scat", "--players", "2", "--seed", "3", "--speed", "0"),
        *("--opponents", random_model(tmp_path, "scat", config)),
    )
    child.expect(PROMPT)
    child.sendintr()
    child.expect(pexpect.EOF)
    child.close()
    out = screen.text()
    assert child.exitstatus == 130
    assert out.rstrip().endswith("Goodbye.") and "Traceback" not in out


def test_keys_typed_ahead_do_not_skip_the_showdown(tmp_path):
    """Enter pressed before "Press Enter to continue" appears is dropped: the showdown
    waits for a key pressed after it, and no stray key reaches the next prompt."""
    config = build_config("schnauz", 2, {"lives": 1})
    child, screen = spawn(
        *("--players", "2", "--seed", "4", "--speed", "0", "--rules", "lives=1"),
        *("--opponents", random_model(tmp_path, "schnauz", config)),
    )
    while True:  # to your first turn where you may knock
        child.expect(PROMPT)
        if "k  knock" not in ANSI.sub("", child.before):
            child.sendline("1")
            continue
        # knock and, in the same keystrokes, Enter three times: typed ahead of the showdown
        child.send("k\r\r\r")
        break
    child.expect(CONTINUE)
    child.sendline("q")
    child.expect(pexpect.EOF)
    child.close()
    out = screen.text()
    after = out[out.index("Showdown") :]
    assert "Goodbye." in after and "Traceback" not in out
    assert "Your move:" not in after and "Type a move" not in after, after


def test_no_warning_reaches_the_screen_without_numba():
    """The play extra does not install numba: the shipped model's features then run as
    plain Python, and the screen shows the game, not a warning about it."""
    child, screen = spawn(
        *("--players", "4", "--seed", "1", "--speed", "0"),
        SCHNAUZ_ENV_NO_NUMBA="1",
        PYTHONWARNINGS="default",
    )
    child.expect(PROMPT)
    child.sendeof()
    child.expect(pexpect.EOF)
    child.close()
    out = screen.text()
    assert "Your move:" in out and not re.search(r"\w+Warning\b", out), out
