"""Helpers of the browser app's tests (``tests/test_web_*.py``): a live server on a free
loopback port and a small JSON client over ``http.client`` (no third-party client:
the tests send exactly the bytes and headers they mean, malformed ones included)."""

from __future__ import annotations

import http.client
import json
from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit


class Client:
    """Requests to the server at ``base`` (``http://127.0.0.1:PORT/``)."""

    def __init__(self, base: str) -> None:
        parts = urlsplit(base)
        self.host, self.port = parts.hostname, parts.port

    def call(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        raw: bytes | Iterable[bytes] | None = None,
        headers: dict[str, str] | None = None,
        chunked: bool = False,
    ) -> tuple[int, Any, dict[str, str]]:
        """``(status, parsed JSON or text, headers)``. ``body`` is sent as JSON;
        ``raw`` as it is (``chunked``: without a Content-Length)."""
        sent = dict(headers or {})
        data: Any = None
        if body is not None:
            data = json.dumps(body).encode()
            sent.setdefault("Content-Type", "application/json")
        elif raw is not None:
            data = raw
        conn = http.client.HTTPConnection(self.host, self.port, timeout=120)
        try:
            conn.request(method, path, body=data, headers=sent, encode_chunked=chunked)
            response = conn.getresponse()
            payload = response.read()
            kind = response.getheader("Content-Type", "")
            parsed: Any = payload
            if kind.startswith("application/json"):
                parsed = json.loads(payload)
            elif kind.startswith("text/"):
                parsed = payload.decode()
            return response.status, parsed, dict(response.getheaders())
        finally:
            conn.close()

    def ok(self, method: str, path: str, body: Any = None, status: int = 200) -> Any:
        """The JSON answer of a request that must succeed with ``status``."""
        got, data, _ = self.call(method, path, body)
        assert got == status, f"{method} {path}: {got} {data}"
        return data

    def new_table(self, **fields: Any) -> tuple[str, dict[str, Any]]:
        data = self.ok("POST", "/api/tables", fields, 201)
        return data["id"], data["view"]

    def play(self, table: str, view: dict[str, Any], move: dict[str, Any]) -> dict[str, Any]:
        return self.ok(
            "POST", f"/api/tables/{table}/moves", {"turn": view["turn"], "actions": move["actions"]}
        )
