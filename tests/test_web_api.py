"""The browser app's server (``schnauz serve``) through its HTTP API, on a live loopback
server: whole games of every game, records, the coach and the review, and every bad
request refused with a 4xx JSON error that names the problem and leaves the table as it
was. The page itself is tested in a real browser in ``test_web_browser.py``."""

from __future__ import annotations

import random
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

from web_helpers import Client

from policies.mlp import save_model
from schnauz_env.games import game_module
from schnauz_env.records import Record, replay
from schnauz_env.web.app import Settings, card_png, create_app
from schnauz_env.web.cli import running
from schnauz_env.web.coach import REVIEW_RATIO
from schnauz_env.web.store import Store

warnings.filterwarnings("ignore", "numba is not installed", RuntimeWarning)


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def tiny_model(folder: Path, game: str, seed: int = 0, name: str = "", **rules: Any) -> Path:
    """A small random model file for ``game`` (``rules``, else the defaults; 4 players)."""
    module = game_module(game)
    config = module.Config(**rules)
    size = module.ObservationEncoder(config).size
    rng = np.random.default_rng(seed)
    weights = [
        (rng.normal(0, 0.3, (size, 8)), np.zeros(8)),
        (rng.normal(0, 0.3, (8, module.NUM_ACTIONS)), np.zeros(module.NUM_ACTIONS)),
    ]
    return save_model(
        folder / (name or f"tiny_{game}.npz"),
        weights,
        game,
        config,
        [4],
        "tanh",
        obs_size=size,
        num_actions=module.NUM_ACTIONS,
    )


@pytest.fixture(scope="module")
def models(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("models")
    for game in ("scat", "thirteen"):
        tiny_model(folder, game)
    tiny_model(folder, "scat", name="tiny_scat_four_card.npz", four_card=True)
    return folder


@pytest.fixture(scope="module")
def server(models):
    app = create_app(Settings(max_tables=50, models=[str(models)]))
    with running(app) as url:
        yield app, Client(url)


@pytest.fixture
def client(server) -> Client:
    return server[1]


def play_out(client: Client, table: str, view: dict, rng: random.Random, pick=None) -> dict:
    """Play random legal moves (or ``pick(view)``'s) until the game is over."""
    for _ in range(2000):
        if view["game_over"]:
            return view
        assert view["your_turn"] and view["moves"], view
        move = pick(view) if pick else rng.choice(view["moves"])
        view = client.play(table, view, move)
    raise AssertionError("the game did not end")


# ------------------------------------------------------------------ pages and pictures


def test_the_page_its_files_and_the_options(client: Client) -> None:
    status, page, _ = client.call("GET", "/")
    assert status == 200 and "schnauz_env" in page and "/static/app.js" in page
    for name in ("app.js", "style.css"):
        assert client.call("GET", f"/static/{name}")[0] == 200
    options = client.ok("GET", "/api/options")
    assert options["order"] == ["schnauz", "scat", "thirteen"]
    schnauz = options["games"]["schnauz"]
    assert {"random", "greedy", "expert", "model"} <= set(schnauz["opponents"])
    assert schnauz["players"] == {"min": 2, "max": 6, "default": 4}
    assert any(
        r["name"] == "knock_in_first_circle" and r["kind"] == "bool" for r in schnauz["rules"]
    )
    assert "tiny_thirteen.npz" in options["games"]["thirteen"]["opponents"]
    shipped = {m["name"]: m["rules"]["deck"] for m in schnauz["models"] if m["shipped"]}
    assert shipped == {"schnauz4_a7.npz": "A7", "schnauz4_a9.npz": "A9", "schnauz4_a5.npz": "A5"}


def test_card_pictures_are_the_rgb_array_faces(client: Client) -> None:
    status, png, headers = client.call("GET", "/cards/10H.png")
    assert status == 200 and headers["content-type"] == "image/png"
    assert png.startswith(b"\x89PNG") and png == card_png(8 * 4 + 2)  # 10♥: rank 8, suit 2
    assert client.call("GET", "/cards/back.png")[1] == card_png(None)
    for bad in ("1H.png", "10H.gif", "back", "..%2F..%2Fpyproject.toml", "7C.png.png"):
        status, body, _ = client.call("GET", f"/cards/{bad}")
        assert status == 404 and body["error"] == "not_found", bad


def test_no_request_reaches_the_filesystem_with_its_own_path(client: Client) -> None:
    for path in (
        "/static/__init__.py",
        "/static/..%2F__init__.py",
        "/static/../app.py",
        "/static/%2Fetc%2Fpasswd",
    ):
        status, body, _ = client.call("GET", path)
        assert status == 404, path
    # a model named by a path of this machine is refused, not loaded
    shipped = str(Path(__file__).parents[1] / "policies" / "models" / "schnauz4_a7.npz")
    for name in (shipped, "../policies/models/schnauz4_a7.npz", "schnauz4_a7.npz"):
        status, body, _ = client.call("POST", "/api/tables", {"opponents": [name]})
        assert status == 422 and "unknown schnauz opponent" in body["message"], name


# ------------------------------------------------------------------ whole games


@pytest.mark.parametrize("game", ["schnauz", "scat", "thirteen"])
def test_a_whole_game_its_record_and_its_replay(client: Client, game: str) -> None:
    rules = {"lives": 2} if game != "thirteen" else {}
    table, view = client.new_table(
        game=game, players=3, seat=1, seed=11, opponents=["greedy", "random"], rules=rules
    )
    assert view["seat"] == 1 and view["names"][1] == "You"
    assert view["names"][0] == "greedy bot" and view["names"][2] == "random bot"
    assert view["your_turn"] and view["turn"] == 0
    view = play_out(client, table, view, random.Random(5))
    final = view["final"]
    assert [r["seat"] for r in final["rows"]] and len(final["rows"]) == 3
    assert final["verdict"] in ("You win!", "You finished 2nd.", "You finished 3rd.")
    assert "log" not in view  # a move's answer has its own events only
    log = client.ok("GET", f"/api/tables/{table}")["log"]
    showdowns = [e for e in log if e["type"] == "showdown"]
    assert showdowns and showdowns[-1]["game_over"]
    # a finished game refuses moves, and says why
    status, body, _ = client.call(
        "POST", f"/api/tables/{table}/moves", {"turn": view["turn"], "actions": [0]}
    )
    assert status == 409 and body["error"] == "game_over"

    status, data, headers = client.call("GET", f"/api/tables/{table}/record")
    assert status == 200 and f"schnauz_env-{game}-11.json" in headers["content-disposition"]
    record = Record.from_dict(data)
    assert record.seed == 11 and [s.policy for s in record.seats] == ["greedy", "human", "random"]
    result = replay(record)  # every move checked, the outcome too
    places = {r["seat"]: r["place"] for r in final["rows"]}
    assert result.finished and len(places) == 3

    loaded = client.ok("POST", "/api/replays", data, 201)
    assert loaded["viewer"] == 1 and loaded["end"] == loaded["total"] == len(record.actions)
    rp = loaded["replay"]
    start = client.ok("GET", f"/api/replays/{rp}?position=0")
    assert start["position"] == 0 and start["next"]["seat"] == record.actions[0][0]
    end = client.ok("GET", f"/api/replays/{rp}?position={loaded['end']}&seat=all")
    assert end["final"]["rows"] == [
        {**r, "name": loaded["names"][r["seat"]], "you": False} for r in final["rows"]
    ]
    assert all(None not in s["cards"] for s in end["seats"])  # every hand open
    status, body, _ = client.call("GET", f"/api/replays/{rp}?position={loaded['end'] + 1}")
    assert status == 422


def test_a_record_that_does_not_replay_is_shown_up_to_the_move_that_differs(
    client: Client,
) -> None:
    table, view = client.new_table(game="schnauz", seed=3, opponents=["random"])
    view = play_out(client, table, view, random.Random(1))
    data = client.call("GET", f"/api/tables/{table}/record")[1]
    data["actions"][6][1] = 99  # no such action
    loaded = client.ok("POST", "/api/replays", data, 201)
    assert loaded["end"] == 6 and "move 6" in loaded["error"]
    at_end = client.ok("GET", f"/api/replays/{loaded['replay']}?position=6")
    assert at_end["error"] and at_end["next"] is not None
    status, body, _ = client.call("POST", "/api/replays", {"format": "something else"})
    assert status == 422 and "not a schnauz_env game record" in body["message"]


# ------------------------------------------------------------------ bad requests


def snapshot(client: Client, table: str) -> dict:
    view = client.ok("GET", f"/api/tables/{table}")
    record = client.call("GET", f"/api/tables/{table}/record")[1]
    return {"view": view, "record": record}


def test_each_bad_move_is_refused_and_changes_nothing(server) -> None:
    app, client = server
    table, view = client.new_table(game="schnauz", seed=21, opponents=["greedy"])
    before = snapshot(client, table)
    legal = [m["actions"] for m in view["moves"]]
    illegal = next(a for a in range(14) if [a] not in legal)
    limit = app.state.app.settings.max_body
    path = f"/api/tables/{table}/moves"
    cases = [
        ("illegal move", {"body": {"turn": 0, "actions": [illegal]}}, 422, "illegal_move"),
        ("no such action", {"body": {"turn": 0, "actions": [1000]}}, 422, "illegal_move"),
        ("two moves at once", {"body": {"turn": 0, "actions": legal[0] * 2}}, 422, "illegal_move"),
        ("a future turn", {"body": {"turn": 3, "actions": legal[0]}}, 409, "wrong_turn"),
        (
            "malformed JSON",
            {"raw": b'{"turn": 0, "actions": [', "json": True},
            400,
            "malformed_json",
        ),
        ("not JSON at all", {"raw": b"\xff\xfe", "json": True}, 400, "malformed_json"),
        ("nested too deeply", {"raw": b"[" * 12000, "json": True}, 400, "malformed_json"),
        ("an array", {"body": [0, legal[0]]}, 400, "bad_request"),
        ("empty body", {"raw": b"", "json": True}, 400, "bad_request"),
        ("no turn", {"body": {"actions": legal[0]}}, 400, "bad_request"),
        ("turn as text", {"body": {"turn": "0", "actions": legal[0]}}, 400, "bad_request"),
        ("actions as text", {"body": {"turn": 0, "actions": "pass"}}, 400, "bad_request"),
        ("a bool action", {"body": {"turn": 0, "actions": [True]}}, 400, "bad_request"),
        (
            "an unknown field",
            {"body": {"turn": 0, "actions": legal[0], "x": 1}},
            400,
            "bad_request",
        ),
        (
            "text/plain",
            {"raw": b'{"turn": 0}', "type": "text/plain"},
            415,
            "unsupported_media_type",
        ),
        (
            "oversized (Content-Length)",
            {"raw": b'{"turn": 0, "pad": "' + b"x" * limit + b'"}', "json": True},
            413,
            "body_too_large",
        ),
        (
            "oversized (chunked, no length)",
            {"raw": [b'{"pad": "', b"x" * limit, b'"}'], "json": True, "chunked": True},
            413,
            "body_too_large",
        ),
    ]
    for name, how, status, code in cases:
        headers = {}
        if how.get("json"):
            headers["Content-Type"] = "application/json"
        if how.get("type"):
            headers["Content-Type"] = how["type"]
        got, body, _ = client.call(
            "POST",
            path,
            how.get("body"),
            raw=how.get("raw"),
            headers=headers,
            chunked=how.get("chunked", False),
        )
        assert (got, body.get("error")) == (status, code), f"{name}: {got} {body}"
        assert body["message"], name
        assert snapshot(client, table) == before, f"{name} changed the table"

    # a move sent twice: the second is refused and the table stays where the first left it
    move = {"turn": 0, "actions": legal[0]}
    first = client.ok("POST", path, move)
    assert first["turn"] == 1
    after = snapshot(client, table)
    got, body, _ = client.call("POST", path, move)
    assert got == 409 and body["error"] == "wrong_turn" and "already played" in body["message"]
    assert body["details"]["turn"] == 1
    assert snapshot(client, table) == after


def test_unknown_expired_and_closed_tables(server) -> None:
    app, client = server
    store = app.state.app.tables
    clock = FakeClock()
    real_clock, store.clock = store.clock, clock
    try:
        table, view = client.new_table(game="thirteen", seed=2, opponents=["random"])
        for path in (f"/api/tables/{'A' * 22}", "/api/tables/short", "/api/tables/..%2F..%2Fetc"):
            status, body, _ = client.call("GET", path)
            assert status == 404 and body["error"] in ("unknown_table", "not_found"), path
        clock.now += store.idle_seconds - 1
        assert client.call("GET", f"/api/tables/{table}")[0] == 200  # used: idle time restarts
        clock.now += store.idle_seconds + 1
        status, body, _ = client.call(
            "POST",
            f"/api/tables/{table}/moves",
            {"turn": 0, "actions": view["moves"][0]["actions"]},
        )
        assert status == 410 and body["error"] == "expired_table"
        other, _ = client.new_table(game="scat", seed=2, opponents=["random"])
        assert client.ok("DELETE", f"/api/tables/{other}") == {"closed": True}
        status, body, _ = client.call("GET", f"/api/tables/{other}/record")
        assert status == 410 and body["error"] == "expired_table"
    finally:
        store.clock = real_clock


def test_a_full_server_refuses_one_table_more() -> None:
    app = create_app(Settings(max_tables=2))
    with running(app) as url:
        client = Client(url)
        for seed in (1, 2):
            client.new_table(game="thirteen", seed=seed, opponents=["random"])
        status, body, headers = client.call(
            "POST", "/api/tables", {"game": "thirteen", "opponents": ["random"]}
        )
        assert status == 503 and body["error"] == "too_many_tables" and headers["retry-after"]
        assert client.ok("GET", "/api/health")["tables"] == 2


@pytest.mark.parametrize(
    ("fields", "status", "words"),
    [
        ({"game": "poker"}, 422, "unknown game 'poker'"),
        ({"rules": {"lives": "many"}}, 422, "rule lives='many': write an integer"),
        ({"rules": {"colour": "red"}}, 422, "unknown Schnauz rule 'colour'"),
        (
            {"rules": {"num_players": 3}},
            422,
            "num_players is not a rule option here: it has its own",
        ),
        ({"rules": {"deck": "A2"}}, 422, "invalid Schnauz option deck='A2'"),
        ({"rules": ["lives=2"]}, 400, "'rules' must be an object"),
        ({"players": 9}, 422, "'players' must be 2..6"),
        ({"seat": 4}, 422, "'seat' must be 0..3"),
        ({"seed": -1}, 422, "'seed' must be 0.."),
        ({"seed": "7"}, 400, "'seed' must be an integer"),
        ({"opponents": ["grandmaster"]}, 422, "unknown schnauz opponent 'grandmaster'"),
        ({"opponents": "expert"}, 400, "'opponents' must be a list"),
        (
            {"game": "scat", "rules": {"four_card": True}, "opponents": ["model"]},
            422,
            "no trained scat model",
        ),
        ({"game": "scat", "opponents": ["tiny_thirteen.npz"]}, 422, "unknown scat opponent"),
        ({"tables": 2}, 400, "unknown field(s) tables"),
    ],
)
def test_a_table_that_cannot_be_set_says_why(client: Client, fields, status, words) -> None:
    got, body, _ = client.call("POST", "/api/tables", fields)
    assert got == status and words in body["message"], body


# ------------------------------------------------------------------ coach and review


def test_the_coach_covers_every_legal_move_with_the_shipped_model(client: Client) -> None:
    table, view = client.new_table(game="schnauz", seed=8, opponents=["greedy"])
    assert view["coach"] == {"available": True, "model": "schnauz4_a7.npz"}
    for _ in range(6):
        coach = client.ok("GET", f"/api/tables/{table}/coach?turn={view['turn']}")
        ids = [p["id"] for p in coach["probabilities"]]
        assert ids == [m["id"] for m in view["moves"]]
        assert sum(p["p"] for p in coach["probabilities"]) == pytest.approx(1.0, abs=1e-9)
        assert coach["value"] is None and "only the policy" in coach["value_note"]
        expert = coach["expert"]
        assert expert["phase"] in ("dealer", "turns", "final")
        assert set(expert["risk"]) <= {str(i) for i in ids}
        assert all(0.0 <= r <= 1.0 for r in expert["risk"].values())
        if any(m["label"] == "knock" for m in view["moves"]):
            assert 0.0 <= expert["knock"]["loss"] <= 1.0 and isinstance(
                expert["knock"]["advice"], bool
            )
        view = client.play(table, view, view["moves"][coach["model_move"]])
        if view["game_over"]:
            break
    status, body, _ = client.call("GET", f"/api/tables/{table}/coach?turn=0")
    assert status == 409 and body["error"] in ("wrong_turn", "not_your_turn")


def test_an_operator_model_plays_thirteen_and_the_shipped_one_coaches(client: Client) -> None:
    table, view = client.new_table(game="thirteen", seed=4, opponents=["tiny_thirteen.npz"])
    # the shipped model for these rules coaches (an operator's model only where none ships)
    assert view["coach"] == {"available": True, "model": "thirteen4.npz"}
    assert view["names"][1] == "trained bot tiny_thirteen"
    coach = client.ok("GET", f"/api/tables/{table}/coach")
    # every play is a chain of card choices; the chain rule sums to 1 over the plays
    assert len(coach["probabilities"]) == len(view["moves"]) > 1
    assert sum(p["p"] for p in coach["probabilities"]) == pytest.approx(1.0, abs=1e-9)
    assert coach["expert"] is None
    record = client.call("GET", f"/api/tables/{table}/record")[1]
    seat = record["seats"][1]
    assert seat["policy"] == "tiny_thirteen.npz" and len(seat["sha256"]) == 64


def test_an_operator_model_coaches_where_no_model_ships(client: Client) -> None:
    table, view = client.new_table(
        game="scat", rules={"four_card": True}, seed=4, opponents=["tiny_scat_four_card.npz"]
    )
    assert view["coach"] == {"available": True, "model": "tiny_scat_four_card.npz"}
    coach = client.ok("GET", f"/api/tables/{table}/coach")
    assert sum(p["p"] for p in coach["probabilities"]) == pytest.approx(1.0, abs=1e-9)


def test_the_review_lists_a_player_who_always_passes(client: Client) -> None:
    def always_pass(view: dict) -> dict:
        return next((m for m in view["moves"] if m["label"] == "pass"), view["moves"][0])

    table, view = client.new_table(game="schnauz", seed=5, opponents=["expert"])
    status, body, _ = client.call("POST", f"/api/tables/{table}/review")
    assert status == 409 and body["error"] == "game_not_over"
    view = play_out(client, table, view, random.Random(0), pick=always_pass)
    data = client.ok("POST", f"/api/tables/{table}/review")
    items = data["items"]
    assert items, "always passing should be clearly worse than the model somewhere"
    for item in items:
        assert item["played"] == "pass" or item["played"] in ("keep", "exchange")
        assert item["model_p"] >= REVIEW_RATIO * item["played_p"]
    at = client.ok("GET", f"/api/replays/{data['replay']}?position={items[0]['position']}")
    assert at["next"]["seat"] == view["seat"] and at["review"] == items


def test_no_coach_without_a_model(client: Client) -> None:
    _, view = client.new_table(game="scat", seed=1, opponents=["random"])
    assert view["coach"]["available"] is True  # the tiny operator model fits scat's defaults
    table, _ = client.new_table(
        game="scat", seed=1, opponents=["random"], rules={"knock_on_first_turn": True}
    )
    status, body, _ = client.call("GET", f"/api/tables/{table}/coach")
    assert status == 409 and body["error"] == "no_coach"


# ------------------------------------------------------------------ the server's parts


def test_the_store_keeps_unguessable_ids_and_forgets_idle_ones() -> None:
    clock = FakeClock()
    store: Store[str] = Store("table", max_items=3, idle_seconds=60, clock=clock)
    ids = [store.add(f"t{k}") for k in range(3)]
    assert len(set(ids)) == 3 and all(len(i) == 22 for i in ids)
    with pytest.raises(Exception) as full:
        store.add("t3")
    assert full.value.status == 503
    clock.now += 30
    assert store.get(ids[0]) == "t0"
    clock.now += 31  # ids[1] and ids[2] idle for 61 s, ids[0] for 31 s
    assert len(store) == 1
    with pytest.raises(Exception) as gone:
        store.get(ids[1])
    assert gone.value.status == 410
    with pytest.raises(Exception) as never:
        store.get("B" * 22)
    assert never.value.status == 404
    store.add("t4")


def test_host_names_other_than_loopback_are_refused_when_asked() -> None:
    app = create_app(Settings(allowed_hosts=["127.0.0.1", "localhost"]))
    with running(app) as url:
        client = Client(url)
        assert client.call("GET", "/api/health")[0] == 200
        assert client.call("GET", "/api/health", headers={"Host": "evil.example"})[0] == 400


def test_schnauz_serve_is_a_subcommand(capsys) -> None:
    from schnauz_env.play.cli import main

    with pytest.raises(SystemExit) as done:
        main(["serve", "--help"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert "--max-tables" in out and "127.0.0.1" in out
