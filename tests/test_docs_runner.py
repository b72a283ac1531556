"""What keeps the documentation runnable, beside running its blocks (conftest.py at the
root runs every ```python and ```bash block of README.md and docs/*.md):

* a command in an untagged fence would escape that test: every fence that starts with a
  command of the package is tagged;
* the install commands are skipped there, so the extras they name are checked here;
* long work reports its progress as plain lines where the output is not a terminal.
"""

from __future__ import annotations

import io
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(
    r"^(?P<indent> *)(?P<fence>```+)(?P<info>[^\n`]*)\n(?P<body>.*?)^(?P=indent)(?P=fence)\s*$",
    re.M | re.S,
)
COMMANDS = ("schnauz", "schnauz-eval", "schnauz-demo", "python", "pip", "pytest", "ruff")


def fences(page: Path) -> list[tuple[int, str, str]]:
    """(line, info string, body) of every fenced block of a page."""
    text = page.read_text(encoding="utf-8")
    return [
        (text.count("\n", 0, m.start()) + 1, m.group("info").strip(), m.group("body"))
        for m in FENCE.finditer(text)
    ]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_command_block_is_tagged(page: Path) -> None:
    untagged = [
        line
        for line, info, body in fences(page)
        if not info and body.split() and body.split()[0] in COMMANDS
    ]
    assert not untagged, f"{page.name}: commands in untagged fences at lines {untagged}"


def test_the_pages_hold_runnable_blocks() -> None:
    languages = {info.split()[0] for page in PAGES for _, info, _ in fences(page) if info}
    assert {"python", "bash"} <= languages


def test_install_commands_name_extras_that_exist() -> None:
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    extras = set(project["optional-dependencies"])
    named = {
        (page.name, extra.strip())
        for page in PAGES
        for match in re.finditer(r"pip install[^\n]*?\"[^\"\n]*\[([^\]\n]+)\]\"", page.read_text())
        for extra in match.group(1).split(",")
    }
    assert named, "no install command found"
    unknown = sorted((page, extra) for page, extra in named if extra not in extras)
    assert not unknown, f"extras that pyproject.toml does not define: {unknown}"


def test_evaluation_progress_is_plain_lines_without_a_terminal(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from policies.evaluation import runner

    err = io.StringIO()  # not a terminal, like a log file under nohup or CI
    monkeypatch.setattr(sys, "stderr", err)
    bar = runner._progress(40, show=True)
    for _ in range(37):
        bar.update(1)
    bar.close()
    lines = err.getvalue().splitlines()
    assert "\r" not in err.getvalue()
    assert lines[0].startswith("played 4/40 games (10%")
    assert lines[-1].startswith("played 37/40 games (92%")  # where it stopped
    assert len(lines) == 10  # one per tenth, and the stop


def test_evaluation_progress_is_a_bar_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    from policies.evaluation import runner

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.setattr(sys, "stderr", Terminal())
    bar = runner._progress(10, show=True)
    assert type(bar).__name__ == "tqdm"
    bar.close()
