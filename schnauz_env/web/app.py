"""The web app: a Starlette application serving the page, the card pictures and the API.

:func:`create_app` builds it from :class:`Settings`. Every answer of the API is JSON;
every refusal is a 4xx (or 503 when the server is full) with ``{"error", "message"}``
naming the problem, and leaves the table as it was (see :mod:`schnauz_env.web.errors`).

==========================================  =============================================
``GET /``                                   the page (static HTML, CSS and JS)
``GET /static/<name>``                      the page's files (a fixed set, read at start)
``GET /cards/<code>.png``                   a card face (``7C``, ``10H``) or ``back.png``
``GET /api/options``                        games, rule options, table sizes, opponents
``POST /api/tables``                        a new table: ``{game, players, seat, rules,
                                            opponents, seed}``; 201 ``{id, view}``
``GET /api/tables/<id>``                    the table as the person sees it
``POST /api/tables/<id>/moves``             ``{turn, actions}``: the person's move
``GET /api/tables/<id>/coach?turn=N``       the coach on the current decision
``GET /api/tables/<id>/record``             the game's record (download)
``POST /api/tables/<id>/review``            after the game: the review and its replay
``DELETE /api/tables/<id>``                 close the table
``POST /api/replays``                       a record (JSON) to step through; 201 ``{id}``
``GET /api/replays/<id>?position=K&seat=S`` the table after ``K`` moves (``seat=all``:
                                            every hand open)
``GET /api/health``                         how many tables and replays live
==========================================  =============================================

Requests never reach the filesystem with a path of their own: the page's files are read
into memory when the app is built, card pictures are drawn from a parsed card code, and
model files are named from the server's own list (:class:`~schnauz_env.web.coach.Catalog`).
POST bodies must be ``application/json`` (so another web site cannot post to the server
from a visitor's browser without CORS, which it does not grant) and at most
``max_body`` bytes (``max_record`` for a record).
"""

from __future__ import annotations

import functools
import importlib
import io
import json
import threading
import warnings
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from schnauz_env.cards import CODES, parse_card
from schnauz_env.common.options import make_config, parse_rules, rules_help
from schnauz_env.games import GAMES, game_module
from schnauz_env.records import Record, RecordError, dumps, fresh_seed
from schnauz_env.web.coach import Catalog
from schnauz_env.web.errors import ApiError, bad_request, invalid
from schnauz_env.web.replays import ReplaySession
from schnauz_env.web.store import Store
from schnauz_env.web.table import Table, new_table

#: The page's files, served from memory: name -> media type.
STATIC_FILES = {
    "index.html": "text/html; charset=utf-8",
    "app.js": "text/javascript; charset=utf-8",
    "style.css": "text/css; charset=utf-8",
}
#: Width of the card pictures, in pixels (the page shows them at half that or less).
CARD_WIDTH = 120


def table_sizes(game: str) -> tuple[int, int]:
    """The fewest and the most seats at a ``game`` table (its config's limits)."""
    config = importlib.import_module(f"schnauz_env.{game}.config")
    return config.MIN_PLAYERS, config.MAX_PLAYERS


@dataclass
class Settings:
    """How the server runs (``schnauz serve``'s options)."""

    max_tables: int = 200
    """Tables (and, separately, loaded replays) that may live at once."""
    idle_seconds: float = 30 * 60
    """A table nobody has touched for this long expires."""
    max_body: int = 16 * 1024
    """Largest request body in bytes (a move, a new table)."""
    max_record: int = 4 * 1024 * 1024
    """Largest record to replay, in bytes."""
    models: list[str] = field(default_factory=list)
    """The operator's model files or folders of them (offered by file name)."""
    allowed_hosts: list[str] | None = None
    """``Host`` headers answered (``None``: any; ``schnauz serve`` sets the loopback names
    when it binds to loopback, which shuts out DNS rebinding)."""


def _json(data: Any, status: int = 200, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse(data, status_code=status, headers=headers)


def _error(err: ApiError) -> JSONResponse:
    headers = {"Retry-After": "60"} if err.status == 503 else None
    return _json(err.body(), err.status, headers)


async def read_json(request: Request, limit: int) -> dict[str, Any]:
    """The request's JSON object: 415 unless sent as ``application/json``, 413 when the
    body is over ``limit`` bytes (from its header, or counted as it arrives), 400 when it
    is empty, not JSON or not an object."""
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/json":
        raise ApiError(
            415,
            "unsupported_media_type",
            f"send the body as application/json, not {kind or 'nothing'!r}",
        )
    length = request.headers.get("content-length")
    if length is not None:
        if not length.isdigit():
            raise bad_request(f"Content-Length {length!r} is not a number")
        if int(length) > limit:
            raise ApiError(
                413, "body_too_large", f"the body has {length} bytes; the limit is {limit}"
            )
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            raise ApiError(413, "body_too_large", f"the body is over the limit of {limit} bytes")
    if not body:
        raise bad_request("the body is empty: send a JSON object")
    try:
        data = json.loads(bytes(body))
    except (ValueError, UnicodeDecodeError) as err:
        raise ApiError(400, "malformed_json", f"the body is not valid JSON: {err}") from None
    except RecursionError:
        raise ApiError(400, "malformed_json", "the body's JSON is nested too deeply") from None
    if not isinstance(data, dict):
        raise bad_request(f"the body must be a JSON object, got {type(data).__name__}")
    return data


def _rule_items(game: str, rules: Any) -> list[str]:
    """A request's ``rules`` (option -> value; strings as typed in the form, or JSON
    values) as ``key=value`` items for the one rules parser."""
    if rules is None:
        return []
    if not isinstance(rules, dict):
        raise bad_request(f"'rules' must be an object of option: value, got {rules!r}")
    items = []
    for key, value in rules.items():
        if isinstance(value, bool):
            text = "true" if value else "false"
        elif value is None:
            text = "none"
        elif isinstance(value, (int, str)):
            text = str(value)
        else:
            raise bad_request(f"rule {key}: a value is a string, a number, true/false or null")
        items.append(f"{key}={text}")
    return items


def _int_field(data: dict[str, Any], name: str, low: int, high: int, default: Any) -> Any:
    value = data.get(name, default)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise bad_request(f"'{name}' must be an integer, got {value!r}")
    if not low <= value <= high:
        raise invalid(f"'{name}' must be {low}..{high}, got {value}")
    return value


def options_of(catalog: Catalog) -> dict[str, Any]:
    """What the setup form offers, per game."""
    games = {}
    models = catalog.describe()
    for game in GAMES:
        config_cls = game_module(game).Config
        default = config_cls()
        fields_help = rules_help(config_cls)
        rules = []
        for line in fields_help:
            head, _, doc = line.partition("  ")
            name = head.partition("=")[0]
            value = getattr(default, name)
            rules.append(
                {
                    "name": name,
                    "default": "none"
                    if value is None
                    else str(value).lower()
                    if isinstance(value, bool)
                    else str(value),
                    "kind": "bool" if isinstance(value, bool) else "text",
                    "help": doc.strip(),
                }
            )
        low, high = table_sizes(game)
        games[game] = {
            "title": {"schnauz": "Schnauz", "scat": "Scat", "thirteen": "Thirteen"}[game],
            "players": {"min": low, "max": high, "default": default.num_players},
            "rules": rules,
            **models[game],
        }
    return {"games": games, "order": list(GAMES)}


class App:
    """The server's state: the stores and the model catalog (see :func:`create_app`)."""

    def __init__(self, settings: Settings, catalog: Catalog | None = None) -> None:
        self.settings = settings
        self.catalog = catalog if catalog is not None else Catalog(settings.models)
        self.tables: Store[Table] = Store("table", settings.max_tables, settings.idle_seconds)
        self.replays: Store[ReplaySession] = Store(
            "replay", settings.max_tables, settings.idle_seconds
        )
        self.options = options_of(self.catalog)
        self.static = {
            name: (resources.files("schnauz_env.web").joinpath("static", name).read_bytes(), kind)
            for name, kind in STATIC_FILES.items()
        }
        # Tables are seated one at a time: seating bots loads model files, whose expert
        # features compile numba kernels the first time (policies.expert_jit._compile),
        # which must not run in two threads at once. A new table takes ~0.1 s.
        self._build_lock = threading.Lock()

    def warm_up(self) -> None:
        """Deal one table of each game and ask the coach once, then forget them: the
        model files, the expert's tables and numba's kernels load here, not while the
        first visitor waits (``schnauz serve`` calls it in the background)."""
        for game in GAMES:
            config = game_module(game).Config()
            with self._build_lock:
                table = new_table(self.catalog, game, config, 0, None, 0)
                if table.coach_model is not None and table.your_turn():
                    table.coach(table.turn)

    # ---------------------------------------------------------------- pages
    async def index(self, request: Request) -> Response:
        body, _ = self.static["index.html"]
        return HTMLResponse(body, headers={"Cache-Control": "no-cache"})

    async def static_file(self, request: Request) -> Response:
        name = request.path_params["name"]
        if name not in self.static:
            raise ApiError(404, "not_found", f"no file {name!r} here")
        body, kind = self.static[name]
        return Response(body, media_type=kind, headers={"Cache-Control": "no-cache"})

    async def card(self, request: Request) -> Response:
        name = request.path_params["name"]
        code, dot, ext = name.rpartition(".")
        if ext != "png" or not dot or (code != "back" and code.upper() not in CODES):
            raise ApiError(
                404, "not_found", f"no card picture {name!r}: ask for 7C.png, 10H.png or back.png"
            )
        png = card_png(None if code == "back" else int(parse_card(code)))
        return Response(
            png, media_type="image/png", headers={"Cache-Control": "public, max-age=86400"}
        )

    # ---------------------------------------------------------------- api
    async def api_options(self, request: Request) -> Response:
        return _json(self.options)

    async def health(self, request: Request) -> Response:
        return _json(
            {
                "tables": len(self.tables),
                "replays": len(self.replays),
                "tables_created": self.tables.created,
                "max_tables": self.settings.max_tables,
            }
        )

    async def create_table(self, request: Request) -> Response:
        data = await read_json(request, self.settings.max_body)
        unknown = sorted(set(data) - {"game", "players", "seat", "rules", "opponents", "seed"})
        if unknown:
            raise bad_request(f"unknown field(s) {', '.join(unknown)}")
        game = data.get("game", "schnauz")
        if game not in GAMES:
            raise invalid(f"unknown game {game!r}; the games are {', '.join(GAMES)}")
        low, high = table_sizes(game)
        players = _int_field(data, "players", low, high, None)
        seed = _int_field(data, "seed", 0, 2**63 - 1, None)
        opponents = data.get("opponents")
        if opponents is not None and (not isinstance(opponents, list) or len(opponents) > high):
            raise bad_request(
                f"'opponents' must be a list of names (at most {high}), got {opponents!r}"
            )
        items = _rule_items(game, data.get("rules"))
        config_cls = game_module(game).Config
        try:
            rules = parse_rules(config_cls, items)  # the one parser of rule options
            if players is not None:
                rules["num_players"] = players
            config = make_config(config_cls, rules, game)
        except ValueError as err:
            raise invalid(str(err)) from None
        seat = _int_field(data, "seat", 0, config.num_players - 1, 0)

        def build() -> tuple[str, dict[str, Any]]:
            self.tables.check_room()  # before the work of seating the bots
            with self._build_lock:  # see __init__
                table = new_table(
                    self.catalog,
                    game,
                    config,
                    seat,
                    opponents or None,
                    seed if seed is not None else fresh_seed(),
                )
            key = self.tables.add(table)
            with table.lock:
                return key, table.view()

        key, view = await run_in_threadpool(build)
        return _json({"id": key, "view": view}, 201)

    async def get_table(self, request: Request) -> Response:
        table = self.tables.get(request.path_params["id"])

        def look() -> dict[str, Any]:
            with table.lock:
                return table.view()

        return _json(await run_in_threadpool(look))

    async def move(self, request: Request) -> Response:
        table = self.tables.get(request.path_params["id"])
        data = await read_json(request, self.settings.max_body)
        unknown = sorted(set(data) - {"turn", "actions"})
        if unknown:
            raise bad_request(f"unknown field(s) {', '.join(unknown)}; a move is {{turn, actions}}")
        if "turn" not in data or "actions" not in data:
            raise bad_request(
                "a move needs 'turn' (the table's turn) and 'actions' (a list of action ids)"
            )

        def play() -> dict[str, Any]:
            with table.lock:
                events = table.play(data["turn"], data["actions"])
                return table.view(events)

        return _json(await run_in_threadpool(play))

    async def coach(self, request: Request) -> Response:
        table = self.tables.get(request.path_params["id"])
        turn = request.query_params.get("turn")
        if turn is not None and not turn.isdigit():
            raise bad_request(f"turn must be a number, got {turn!r}")

        def ask() -> dict[str, Any]:
            with table.lock:
                return table.coach(None if turn is None else int(turn))

        return _json(await run_in_threadpool(ask))

    async def record(self, request: Request) -> Response:
        key = request.path_params["id"]
        table = self.tables.get(key)

        def build() -> str:
            with table.lock:
                return dumps(table.record()) + "\n"

        text = await run_in_threadpool(build)
        name = f"schnauz_env-{table.game}-{table.seed}.json"
        return Response(
            text,
            media_type="application/json",
            headers={"Content-Disposition": f'attachment; filename="{name}"'},
        )

    async def review(self, request: Request) -> Response:
        table = self.tables.get(request.path_params["id"])

        def build() -> dict[str, Any]:
            with table.lock:
                items = table.review()
                session = ReplaySession(table.record(), table.names, table.seat, items)
            key = self.replays.add(session)
            return {"replay": key, "items": items, **session.summary()}

        return _json(await run_in_threadpool(build))

    async def close_table(self, request: Request) -> Response:
        self.tables.remove(request.path_params["id"])
        return _json({"closed": True})

    async def load_replay(self, request: Request) -> Response:
        data = await read_json(request, self.settings.max_record)

        def build() -> dict[str, Any]:
            try:
                record = Record.from_dict(data)
            except RecordError as err:
                raise invalid(f"not a record this package reads: {err}") from None
            session = ReplaySession(record)
            key = self.replays.add(session)
            return {"replay": key, **session.summary()}

        return _json(await run_in_threadpool(build), 201)

    async def replay_position(self, request: Request) -> Response:
        session = self.replays.get(request.path_params["id"])
        position = request.query_params.get("position", "0")
        seat = request.query_params.get("seat", "default")
        if not position.isdigit():
            raise bad_request(f"position must be a move number, got {position!r}")
        viewer: Any = seat
        if seat == "all":
            viewer = None
        elif seat != "default":
            if not seat.isdigit():
                raise bad_request(f"seat must be a seat number, 'all' or 'default', got {seat!r}")
            viewer = int(seat)
        return _json(await run_in_threadpool(session.position, int(position), viewer))


@functools.lru_cache(maxsize=64)
def card_png(card: int | None) -> bytes:
    """A card's face (``None``: its back) as PNG bytes, drawn by :mod:`schnauz_env.render`
    as in the ``rgb_array`` pictures."""
    from schnauz_env.render.cards import card_back, card_face

    image = card_back(CARD_WIDTH) if card is None else card_face(card, CARD_WIDTH)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", optimize=True)
    return buffer.getvalue()


def _guard(
    endpoint: Callable[[Request], Awaitable[Response]],
) -> Callable[[Request], Awaitable[Response]]:
    async def guarded(request: Request) -> Response:
        try:
            return await endpoint(request)
        except ApiError as err:
            return _error(err)

    guarded.__name__ = endpoint.__name__
    return guarded


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "http_error")
    return _json({"error": code, "message": str(exc.detail)}, exc.status_code)


async def _server_error(request: Request, exc: Exception) -> Response:
    return _json({"error": "server_error", "message": f"the server failed: {exc!r}"}, 500)


def create_app(settings: Settings | None = None, catalog: Catalog | None = None) -> Starlette:
    """The web app with ``settings`` (see :class:`Settings`)."""
    settings = settings or Settings()
    app = App(settings, catalog)
    routes = [
        Route("/", _guard(app.index)),
        Route("/static/{name}", _guard(app.static_file)),
        Route("/cards/{name}", _guard(app.card)),
        Route("/api/options", _guard(app.api_options)),
        Route("/api/health", _guard(app.health)),
        Route("/api/tables", _guard(app.create_table), methods=["POST"]),
        Route("/api/tables/{id}", _guard(app.get_table), methods=["GET"]),
        Route("/api/tables/{id}", _guard(app.close_table), methods=["DELETE"]),
        Route("/api/tables/{id}/moves", _guard(app.move), methods=["POST"]),
        Route("/api/tables/{id}/coach", _guard(app.coach)),
        Route("/api/tables/{id}/record", _guard(app.record)),
        Route("/api/tables/{id}/review", _guard(app.review), methods=["POST"]),
        Route("/api/replays", _guard(app.load_replay), methods=["POST"]),
        Route("/api/replays/{id}", _guard(app.replay_position)),
    ]
    middleware = []
    if settings.allowed_hosts is not None:
        middleware.append(Middleware(TrustedHostMiddleware, allowed_hosts=settings.allowed_hosts))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        starlette = Starlette(
            routes=routes,
            middleware=middleware,
            exception_handlers={HTTPException: _http_error, Exception: _server_error},
        )
    starlette.state.app = app
    return starlette


__all__ = ["CARD_WIDTH", "STATIC_FILES", "App", "Settings", "card_png", "create_app", "read_json"]
