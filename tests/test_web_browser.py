"""The browser app in a real headless Chromium (Debian's ``chromium``, driven by
Playwright's Python API): a whole game of each game played through the page by clicking
legal moves, checking what a person sees (cards, whose turn it is, the showdowns, the
final places); coach mode (the probabilities of exactly the legal moves, summing to 1)
and the review of a player who always passes; a downloaded record loaded back and
stepped through.

Screenshots for the docs: ``SCHNAUZ_WEB_SHOTS=1 pytest tests/test_web_browser.py``
writes ``web_*.png`` to ``results/img/`` (or to the folder the variable names; the
README's pictures are ``docs/img/web_*.png``). Without Chromium or Playwright the tests
are skipped, except under CI (``CI`` set), where they fail: ``.ci/run`` installs both.
"""

from __future__ import annotations

import json
import os
import random
import re
import warnings
from pathlib import Path

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

from web_helpers import Client

from schnauz_env.web.app import Settings, create_app
from schnauz_env.web.cli import running

warnings.filterwarnings("ignore", "numba is not installed", RuntimeWarning)

CHROMIUM = os.environ.get("SCHNAUZ_CHROMIUM", "/usr/bin/chromium")
#: Headless, and none of Chromium's own connections (updates, sync, ...): only loopback.
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
CARD_NAME = re.compile(r"^(10|[2-9JQKA])[♣♠♥♦]$")
READY = """() => {
    const s = document.querySelector('#status').textContent;
    return s.startsWith('Your turn') || s === 'Game over';
}"""
ROOT = Path(__file__).resolve().parents[1]


def _missing(reason: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"{reason} (CI installs it: .ci/run)")
    pytest.skip(reason)


def shots_dir() -> Path | None:
    """Where to write screenshots, when asked (``SCHNAUZ_WEB_SHOTS``)."""
    asked = os.environ.get("SCHNAUZ_WEB_SHOTS")
    if not asked:
        return None
    folder = ROOT / "results" / "img" if asked in ("1", "yes", "true") else Path(asked)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def shoot(page, name: str) -> None:
    """A screenshot of the whole page, when asked, as a 256-colour PNG (a fifth of the size)."""
    folder = shots_dir()
    if folder is None:
        return
    import io

    from PIL import Image

    page.wait_for_function("[...document.images].every((i) => i.complete && i.naturalWidth)")
    image = Image.open(io.BytesIO(page.screenshot(full_page=True))).convert("RGB")
    image.quantize(256, dither=Image.Dither.NONE).save(folder / f"web_{name}.png", optimize=True)


@pytest.fixture(scope="module")
def browser():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _missing('Playwright is not installed (pip install "schnauz_env[browser]")')
    if not Path(CHROMIUM).exists():
        _missing(f"no Chromium at {CHROMIUM} (apt-get install chromium)")
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture(scope="module")
def server():
    app = create_app(Settings(max_tables=20))
    # What `schnauz serve` does in the background: load the models and compile their
    # kernels now (tens of seconds on a cold numba cache, as in a fresh clone, and more
    # while the other test worker is busy), not while a page waits for a move.
    app.state.app.warm_up()
    with running(app) as url:
        yield url


@pytest.fixture
def page(browser, server):
    context = browser.new_context(viewport={"width": 1280, "height": 900}, accept_downloads=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    page.set_default_timeout(30_000)
    page.base = server  # type: ignore[attr-defined]
    yield page
    context.close()
    assert not errors, f"the page raised: {errors}"


def start(page, game: str, seed: int, players=None, rules=None, coach=False) -> None:
    """Set up a table on the page and start it."""
    page.goto(page.base + "?speed=0")
    page.wait_for_selector("body[data-ready='1']")
    page.select_option("#game-select", game)
    if players is not None:
        page.fill("#players", str(players))
        page.dispatch_event("#players", "change")
    page.fill("#seed", str(seed))
    if rules:
        page.click("#setup summary")  # open "Rule options"
    for name, value in (rules or {}).items():
        field = page.locator(f"#rule-{name}")
        if field.evaluate("e => e.tagName") == "SELECT":
            field.select_option(value)
        else:
            field.fill(value)
    if coach:
        page.check("#coach-setup")
    page.click("#start")
    page.wait_for_selector("#game:not([hidden])")


#: What a person sees, read in one go: the status, a showdown, the hand (the cards'
#: names), the highlighted seat, the moves on offer.
LOOK = """() => {
    const text = (sel) => (document.querySelector(sel) || {}).innerText || '';
    const acting = document.querySelector('.seat.acting');
    return {
        status: text('#status'),
        showdown: text('.showdown'),
        page: document.body.innerText,
        hand: [...document.querySelectorAll('[data-testid=hand] img.card')].map((c) => c.alt),
        acting: acting ? acting.className : '',
        moves: [...document.querySelectorAll('button.move:not([disabled])')].map((b) => ({
            label: b.innerText,
            actions: JSON.parse(b.dataset.actions),
            hand: JSON.parse(b.dataset.hand),
            table: JSON.parse(b.dataset.table),
        })),
    };
}"""


def look(page) -> dict:
    """What a person sees now (see :data:`LOOK`), once the page waits for them."""
    page.wait_for_function(READY)
    return page.evaluate(LOOK)


def make_move(page, game: str, seen: dict, k: int, rng: random.Random) -> None:
    """Play move ``k`` of those shown: by its button, or the way a person would with
    the cards (Thirteen: select the play's cards, then play them; Schnauz: a hand card,
    then the table card to swap it with; Scat: the card to discard)."""
    move = seen["moves"][k]
    by_cards = rng.random() < 0.5
    if by_cards and game == "thirteen" and move["hand"]:
        for slot in move["hand"]:
            page.click(f"[data-testid=hand] img.card[data-slot='{slot}']")
        page.click("#play-selected")
    elif by_cards and game == "schnauz" and len(move["hand"]) == 1:
        page.click(f"[data-testid=hand] img.card[data-slot='{move['hand'][0]}']")
        page.click(f"[data-testid=center] img.card >> nth={move['table'][0]}")
    elif by_cards and game == "scat" and len(move["hand"]) == 1:
        page.click(f"[data-testid=hand] img.card[data-slot='{move['hand'][0]}']")
    else:
        page.locator("button.move:not([disabled])").nth(k).click()


def play_game(page, game: str, rng: random.Random, choose=None) -> dict:
    """Click legal moves until the game is over; returns what was seen on the way."""
    showdowns: list[str] = []
    moves = 0
    shot = False
    while True:
        seen = look(page)
        assert not re.search(r"\[object|\bundefined\b|\bnull\b|\bNaN\b", seen["page"]), seen["page"]
        if seen["showdown"] and seen["showdown"] not in showdowns:
            showdowns.append(seen["showdown"])
        if seen["status"] == "Game over":
            return {"showdowns": showdowns, "moves": moves}
        assert seen["status"] == "Your turn: choose a move"
        assert seen["hand"] and all(CARD_NAME.match(c) for c in seen["hand"]), seen["hand"]
        assert "you" in seen["acting"].split()  # the highlighted seat is yours
        assert seen["moves"], "your turn, but no move to click"
        k = choose(seen) if choose else rng.randrange(len(seen["moves"]))
        if not shot and moves >= 3 and (showdowns or game == "thirteen"):
            shoot(page, game)
            shot = True
        make_move(page, game, seen, k, rng)
        moves += 1
        assert moves < 500, "the game did not end"


def wait_text(page, selector: str, prefix: str) -> None:
    """Wait until ``selector``'s text starts with ``prefix``."""
    page.wait_for_function(
        "([sel, prefix]) => document.querySelector(sel).textContent.startsWith(prefix)",
        arg=[selector, prefix],
    )


def final_rows(page) -> list[list[str]]:
    rows = page.locator("#final .place-row")
    return [rows.nth(i).locator("td").all_inner_texts() for i in range(rows.count())]


@pytest.mark.parametrize(
    ("game", "players", "rules"),
    [
        ("schnauz", 3, {"lives": "2"}),
        ("scat", 3, {"lives": "2"}),
        ("thirteen", 4, {}),
    ],
)
def test_a_whole_game_through_the_page(page, game, players, rules, tmp_path) -> None:
    start(page, game, seed=101, players=players, rules=rules)
    assert page.inner_text("#game-header").startswith(game.capitalize())
    seen = play_game(page, game, random.Random(7))
    assert seen["moves"] > 0
    words = "Game 1 over" if game == "thirteen" else "Showdown · round"
    assert any(words in s for s in seen["showdowns"]), seen["showdowns"]
    # the final places, as the page shows them and as the server knows them
    assert page.is_visible("#final")
    verdict = page.inner_text("#final .verdict")
    assert verdict == "You win!" or verdict.startswith("You finished ")
    rows = final_rows(page)
    assert len(rows) == players and [r[1] for r in rows].count("You") == 1
    view = Client(page.base).ok("GET", f"/api/tables/{page.get_attribute('body', 'data-table')}")
    assert [[r["place"], r["name"], str(r["seat"])] for r in view["final"]["rows"]] == [
        r[:3] for r in rows
    ]
    if game == "thirteen":  # the record: downloaded, loaded back, stepped to its end
        with page.expect_download() as download:
            page.click("#download")
        path = tmp_path / download.value.suggested_filename
        download.value.save_as(path)
        page.set_input_files("#load-record", str(path))
        page.wait_for_selector("#replay:not([hidden])")
        wait_text(page, "#rp-position", "move 0 of ")
        page.click("#rp-next")
        wait_text(page, "#rp-position", "move 1 of ")
        page.click("#rp-end")
        page.wait_for_selector("#rp-final:not([hidden])")
        assert page.inner_text("#rp-final .verdict") == verdict
        replayed = page.locator("#rp-final .place-row")
        assert [replayed.nth(i).locator("td").all_inner_texts()[0] for i in range(len(rows))] == [
            r[0] for r in rows
        ]


def test_the_coach_and_the_review(page) -> None:
    start(page, "schnauz", seed=5, coach=True)  # the shipped model's rules
    page.wait_for_function(READY)
    page.wait_for_selector("button.move[data-p]")
    buttons = page.locator("button.move")
    probs = [float(buttons.nth(i).get_attribute("data-p")) for i in range(buttons.count())]
    shown = [buttons.nth(i).locator(".prob").inner_text() for i in range(buttons.count())]
    view = Client(page.base).ok("GET", f"/api/tables/{page.get_attribute('body', 'data-table')}")
    # exactly the legal moves, each with its probability, summing to 1
    assert [
        json.loads(buttons.nth(i).get_attribute("data-actions")) for i in range(len(probs))
    ] == [m["actions"] for m in view["moves"]]
    assert sum(probs) == pytest.approx(1.0, abs=1e-9)
    assert all(re.fullmatch(r"\d+\.\d%", s) for s in shown)
    assert sum(float(s[:-1]) for s in shown) == pytest.approx(100.0, abs=0.05 * len(shown) + 0.01)
    panel = page.inner_text("#coach-panel")
    assert "schnauz4_a7.npz" in panel and "only the policy" in panel
    assert "The expert's estimates" in panel
    shoot(page, "coach")

    def always_pass(seen: dict) -> int:
        # "Your turn" shows only once the coach has answered: every move button already
        # carries its probability, so none is replaced under the pointer afterwards
        assert page.locator("button.move:not([data-p])").count() == 0
        labels = [m["label"].split("\n")[0].strip() for m in seen["moves"]]
        return next((k for k, label in enumerate(labels) if label.startswith("pass")), 0)

    play_game(page, "schnauz", random.Random(0), choose=always_pass)
    page.click("#review-button")
    page.wait_for_selector("#replay:not([hidden])")
    wait_text(page, "#rp-position", "move 0 of ")
    items = page.locator("#review-list li")
    assert items.count() >= 1, page.inner_text("#review")
    first = items.first.inner_text()
    assert "you played pass" in first or "you played keep" in first or "exchange" in first
    items.first.locator("button").click()
    page.wait_for_function(
        "!document.querySelector('#rp-position').textContent.startsWith('move 0 ')"
    )
    position = int(page.inner_text("#rp-position").split()[1])
    assert page.inner_text("#rp-next-move").startswith("Next: You")
    page.click("#rp-next")
    wait_text(page, "#rp-position", f"move {position + 1} of ")
    shoot(page, "review")
