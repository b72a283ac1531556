"""Every code block of README.md and docs/*.md runs as a test (Sybil).

``pytest`` collects README.md and docs/ (``testpaths`` in pyproject.toml); each
```python and ```bash block is one test, run as a user would paste it:

* a Python block runs in a fresh namespace (it must import what it uses);
* a bash block runs in ``bash -e -o pipefail`` with no standard input;
* the blocks of one page share a working folder, a temporary copy of the checkout's
  layout (its top-level folders linked in), so a command's default outputs land there;
  a block that writes into the checkout's shipped files (``docs/``, the shipped models)
  fails.

Comments just above a block, which the reader of the rendered page does not see:

* ``<!-- skip: next "reason" -->`` (Sybil's): the block is skipped, and the reason is
  the test's skip message. ``<!-- skip: next if(missing("minari"), reason="...") -->``
  skips only when a module is not installed.
* ``<!-- smaller: --games 2000 => --games 20 | --seed 0 => --seed 1 -->``: the block runs
  with these replacements, each of which must occur in it (a smaller budget of the same
  command: hours of training become seconds, and the flags are still checked).
* ``<!-- invisible-code-block: bash ... -->`` (Sybil's): setup that the page assumes,
  run like a block.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
import traceback
from collections.abc import Iterator
from pathlib import Path

import pytest
from sybil import Document, Example, Region, Sybil
from sybil.parsers.markdown import CodeBlockParser, SkipParser

ROOT = Path(__file__).resolve().parent
# The checkout's folders and files a block may read (linked into its working folder, so
# everything else a block writes stays there), and the shipped files no block may change
# or add to (documentation, pictures, result tables, the shipped models).
LINKED = ("bench", "docs", "policies", "schnauz_env", "tests", "training")
LINKED_FILES = ("README.md", "pyproject.toml")
SHIPPED = ("docs", "policies/models")  # the pages themselves (*.md) excepted
BASH_TIMEOUT = 600  # seconds; a block that needs longer takes a smaller budget
SMALLER = re.compile(r"<!--\s*smaller:(?P<pairs>(?:(?!-->).)*)-->\s*\Z", re.DOTALL)


def missing(module: str) -> bool:
    """True when ``module`` is not installed (for ``skip: next if(missing(...), ...)``)."""
    return importlib.util.find_spec(module) is None


def _replacements(document: Document, region: Region) -> list[tuple[str, str]]:
    """The ``smaller:`` comment just above a block, as (old, new) pairs."""
    match = SMALLER.search(document.text, 0, region.start)
    if match is None:
        return []
    pairs = []
    for pair in match.group("pairs").split("|"):
        old, arrow, new = pair.partition("=>")
        if not arrow or not old.strip():
            raise ValueError(f"{document.path}: 'smaller:' pairs read 'old => new': {pair!r}")
        pairs.append((old.strip(), new.strip()))
    return pairs


def _source(example: Example) -> str:
    source = str(example.parsed)
    for old, new in example.region.replacements:
        if old not in source:
            raise AssertionError(f"'smaller:' replaces {old!r}, which the block does not hold")
        source = source.replace(old, new)
    return source


def _checkout_files() -> dict[str, tuple[int, int]]:
    """Modification time and size of every shipped file but the pages (which people edit
    while the tests run)."""
    files = {}
    paths = []
    for name in SHIPPED:
        for folder, dirs, names in os.walk(ROOT / name):
            dirs[:] = [d for d in dirs if d != "__pycache__"]
            paths += [Path(folder, n) for n in names if not n.endswith(".md")]
    for path in paths:
        stat = path.stat()
        files[str(path.relative_to(ROOT))] = (stat.st_mtime_ns, stat.st_size)
    return files


def _check_checkout(before: dict[str, tuple[int, int]]) -> None:
    after = _checkout_files()
    changed = sorted(p for p in after.keys() | before.keys() if after.get(p) != before.get(p))
    if changed:
        raise AssertionError(f"the block wrote into the checkout: {', '.join(changed[:10])}")


def _run_python(example: Example) -> None:
    __tracebackhide__ = True
    source = "\n" * (example.line + example.parsed.line_offset) + _source(example)
    code = compile(source, example.path, "exec", dont_inherit=True)
    before = _checkout_files()
    try:
        exec(code, {"__name__": "__main__"})
    except Exception as error:
        # The traceback from the block's own line on (Sybil's pytest report cannot cut a
        # traceback that ends in an import inside the block).
        frames = traceback.extract_tb(error.__traceback__)
        first = next((i for i, f in enumerate(frames) if f.filename == str(example.path)), 0)
        lines = traceback.format_list(frames[first:]) + traceback.format_exception_only(error)
        raise AssertionError("".join(lines)) from None
    _check_checkout(before)


def _run_bash(example: Example) -> None:
    __tracebackhide__ = True
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    before = _checkout_files()
    try:
        done = subprocess.run(
            ["bash", "-e", "-o", "pipefail", "-c", _source(example)],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            env=env,
            timeout=BASH_TIMEOUT,
        )
    except subprocess.TimeoutExpired as error:
        raise AssertionError(f"the block ran longer than {BASH_TIMEOUT} s") from error
    if done.returncode != 0:
        raise AssertionError(
            f"exit code {done.returncode}\n--- stdout (end)\n{done.stdout[-3000:]}"
            f"\n--- stderr (end)\n{done.stderr[-3000:]}"
        )
    _check_checkout(before)


class _Blocks(CodeBlockParser):
    """Sybil's Markdown code-block parser, with the ``smaller:`` comment read."""

    def __call__(self, document: Document) -> Iterator[Region]:
        for region in super().__call__(document):
            region.replacements = _replacements(document, region)
            yield region


@pytest.fixture(scope="module")
def docs_workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One working folder per page, laid out like the checkout."""
    folder = tmp_path_factory.mktemp("docs")
    for name in LINKED + LINKED_FILES:
        (folder / name).symlink_to(ROOT / name)
    return folder


@pytest.fixture
def docs_cwd(docs_workdir: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Each block runs in its page's working folder, plotting without a display; crash
    records and Minari datasets go there too, not into the user's folders."""
    monkeypatch.chdir(docs_workdir)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    monkeypatch.setenv("SCHNAUZ_CRASH_DIR", str(docs_workdir / "crashes"))
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(docs_workdir / "minari"))
    return docs_workdir


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """``-n auto``: a worker for each CPU this process may run on, whether or not psutil
    is installed (with it, pytest-xdist would count the machine's physical cores: one on
    a two-vCPU VM with hyperthreads, all the host's in a container pinned to two).
    ``PYTEST_XDIST_AUTO_NUM_WORKERS`` still decides when set."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS") or not hasattr(os, "sched_getaffinity"):
        return None
    return max(1, len(os.sched_getaffinity(0)))


pytest_collect_file = Sybil(
    parsers=[
        _Blocks("python", _run_python),
        _Blocks("bash", _run_bash),
        SkipParser(),
    ],
    patterns=["README.md", "docs/*.md"],
    fixtures=["docs_cwd"],
    setup=lambda namespace: namespace.update(missing=missing),
).pytest()
