"""`schnauz play` in an 80×24 pseudo-terminal: every game, at its largest table, fits.

At every one of the person's turns, what the screen holds since it was cleared (the
turn's screen, up to the prompt) must fit 24 lines of 80 columns and show the header,
the face-up cards (the table, the discard pile, the play to beat) and the person's
own hand: nothing that matters has scrolled off the top.
"""

from __future__ import annotations

import os
import re

import pytest

pexpect = pytest.importorskip("pexpect")

from test_play_terminal import ANSI, CONTINUE, GAME_OVER, PROMPT, random_model, spawn  # noqa: E402

from schnauz_env.play.cli import build_config, read_rules  # noqa: E402

ROWS, COLS = 24, 80
CLEAR = "\x1b[2J"
CARD = r"(?:10|[2-9JQKA])[♣♠♥♦]"
#: What each game's turn screen must show: its header and its face-up cards.
#: (The full layout has them in a panel, the compact one on plain lines.)
HEADER = {
    "schnauz": r"^(╭─ )?Schnauz · deck",
    "scat": r"^(╭─ )?Scat · round",
    "thirteen": r"^(╭─ )?Thirteen · game",
}
TABLE = {
    "schnauz": r"^(│ )?Table: ",
    "scat": r"^(│ )?Discard pile: ",
    "thirteen": r"^(│ )?(To beat: |The table is clear)",
}


def turn_screens(child: pexpect.spawn, preferred: str, fallback: str) -> list[str]:
    """Play to the end, answering ``preferred`` (else ``fallback`` when it is refused) and
    Enter at every pause; return each turn's screen as the terminal shows it."""
    screens = []
    raw = ""
    refused = False
    while True:
        i = child.expect([PROMPT, CONTINUE, GAME_OVER, r"You cannot|is not a move|no move"])
        raw += child.before + child.after
        if i == 0:
            screens.append(ANSI.sub("", raw[raw.rfind(CLEAR) :]).replace("\r\n", "\n"))
            assert len(screens) < 400, "the game did not end"
            child.sendline(fallback if refused else preferred)
            refused = False
        elif i == 1:
            child.sendline("")
        elif i == 2:
            break
        else:
            refused = True
    child.expect(pexpect.EOF)
    child.close()
    if os.environ.get("SHOW_SCREENS"):
        print(*screens, sep="\n" + "=" * COLS + "\n")
    return screens


@pytest.mark.parametrize(
    "game, players, rules, preferred, fallback",
    [
        ("schnauz", 6, ["lives=1"], "k", "1"),
        ("scat", 7, ["lives=1"], "k", "1"),
        ("thirteen", 4, [], "1", "p"),
    ],
)
def test_every_turn_screen_fits_80x24_with_the_table_and_your_hand(
    tmp_path, game, players, rules, preferred, fallback
):
    config = build_config(game, players, read_rules(game, rules))
    model = random_model(tmp_path, game, config)
    child, screen = spawn(
        *("--game", game, "--players", str(players), "--seed", "3", "--speed", "0"),
        *("--opponents", model, *(["--rules", *rules] if rules else [])),
        dimensions=(ROWS, COLS),
    )
    screens = turn_screens(child, preferred, fallback)
    assert child.exitstatus == 0 and "Traceback" not in screen.text()
    assert not re.search(r"\w+Warning\b", screen.text()), "no warning reaches the screen"
    assert len(screens) >= 3
    for shown in screens:
        lines = shown.split("\n")
        assert len(lines) <= ROWS, f"{len(lines)} lines:\n{shown}"
        assert max(len(line.rstrip()) for line in lines) <= COLS, shown
        assert re.search(HEADER[game], shown, re.M), shown
        assert re.search(TABLE[game], shown, re.M), shown
        assert re.search(rf"\d\s+You\s+{CARD}", shown), f"your hand:\n{shown}"
        assert "Your move:" in shown


def test_a_long_message_wraps_short_of_the_last_column(tmp_path):
    """A message that fills all 80 columns makes some terminals wrap early and show a
    blank line inside it: messages wrap at 79."""
    config = build_config("scat", 3, {})
    child, screen = spawn(
        *("--game", "scat", "--players", "3", "--seed", "1", "--speed", "0"),
        *("--opponents", random_model(tmp_path, "scat", config)),
        dimensions=(ROWS, COLS),
    )
    child.expect(PROMPT)
    child.sendline("k")  # "You cannot knock now (no knocking on your first turn ...). Choose ..."
    child.expect(PROMPT)
    message = ANSI.sub("", child.before).replace("\r\n", "\n").strip("\n").split("\n")[1:]
    child.sendeof()
    child.expect(pexpect.EOF)
    child.close()
    assert message[0].startswith("You cannot knock now") and len(message) == 2
    assert all(0 < len(line) < COLS for line in message), message


@pytest.mark.parametrize("case", ["no model for the rules", "model for another table size"])
def test_the_note_on_your_opponents_stays_on_the_turn_screen(tmp_path, case):
    """The note saying who your opponents are is on your turn screens (until the first
    showdown), not only in the banner that the first screen clears."""
    if case == "no model for the rules":
        args, note = ["--rules", "lives=2"], "No trained schnauz model for these rules"
    else:
        model = random_model(tmp_path, "schnauz", build_config("schnauz", 4, {}))
        args, note = ["--opponents", model], "was trained at a table of 4 players"
    child, screen = spawn(
        *("--players", "3", "--seed", "2", "--speed", "0", *args), dimensions=(ROWS, COLS)
    )
    child.expect(PROMPT)
    raw = "".join(screen.parts)
    child.sendeof()
    child.expect(pexpect.EOF)
    child.close()
    assert CLEAR in raw, "the turn screen is drawn on a cleared screen"
    first = ANSI.sub("", raw[raw.rfind(CLEAR) :])
    assert note in re.sub(r"\s+", " ", first), first
