"""Load on the browser app's server: N simulated players at once over loopback.

    python bench/web_load.py                       # N = 1, 10, 100; 20 s each
    python bench/web_load.py --players 10 --seconds 5 --opponents random

Starts ``schnauz serve`` on a free 127.0.0.1 port (a separate process, so the players'
own work does not share its interpreter), then for each N runs N players in threads
for ``--seconds``: each sits at a table (the games in turn: Schnauz, Scat, Thirteen,
default opponents unless ``--opponents``), plays random legal moves through the API
until the game is over, closes the table and starts another, until the time is up;
then it stops and the next N starts. Only loopback is used, every loop is bounded in
count and time, and the server is stopped at the end.

Reported per N: tables served (started), games finished, moves per second (the
players' moves; each also runs the bots until the player's next turn), p50 and p95
latency of a move and of a new table, and errors (any non-2xx answer or failed
request). The first table of each game is played before the runs (numba's kernels
and the model files load then), so the figures are a warm server's.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import statistics
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

GAMES = ("schnauz", "scat", "thirteen")
#: The longest a single request may take before it counts as an error.
TIMEOUT = 120.0


@dataclass
class Tally:
    """What one player (or all of them) did in a run."""

    tables: int = 0
    finished: int = 0
    moves: int = 0
    errors: int = 0
    move_ms: list[float] = field(default_factory=list)
    table_ms: list[float] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)

    def add(self, other: Tally) -> None:
        self.tables += other.tables
        self.finished += other.finished
        self.moves += other.moves
        self.errors += other.errors
        self.move_ms += other.move_ms
        self.table_ms += other.table_ms
        self.messages += other.messages[:3]


class Connection:
    """One player's keep-alive connection to the server."""

    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.conn = http.client.HTTPConnection(host, port, timeout=TIMEOUT)

    def call(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        data = None if body is None else json.dumps(body).encode()
        headers = {"Content-Type": "application/json"} if data is not None else {}
        try:
            self.conn.request(method, path, body=data, headers=headers)
            response = self.conn.getresponse()
            payload = response.read()
        except (OSError, http.client.HTTPException):
            self.conn.close()  # a fresh connection for the next request
            self.conn = http.client.HTTPConnection(self.host, self.port, timeout=TIMEOUT)
            raise
        return response.status, json.loads(payload) if payload else None

    def close(self) -> None:
        self.conn.close()


def timed_call(
    conn: Connection,
    tally: Tally,
    what: str,
    times: list[float] | None,
    method: str,
    path: str,
    body: Any = None,
    expect: int = 200,
) -> Any:
    """One request: its answer, its time in ``times`` (ms); ``None`` after counting a
    failure (no answer, or a status other than ``expect``) in ``tally``."""
    start = time.perf_counter()
    try:
        status, data = conn.call(method, path, body)
    except (OSError, http.client.HTTPException) as err:
        tally.errors += 1
        tally.messages.append(f"{what}: {err!r}")
        return None
    if times is not None:
        times.append(1000 * (time.perf_counter() - start))
    if status != expect:
        tally.errors += 1
        tally.messages.append(f"{what}: {status} {data}")
        return None
    return data


@dataclass(frozen=True)
class Load:
    """What every player of a run shares: the server's ``url``, the ``opponents`` asked
    for (``None``: the server's default), and when to stop: at ``deadline``
    (``time.monotonic()``), or after ``max_games`` games each."""

    url: str
    opponents: list[str] | None
    deadline: float
    max_games: int | None = None


def player(load: Load, index: int, tally: Tally) -> None:
    """Player ``index`` of ``load``: play games until it stops; count everything in
    ``tally``."""
    deadline, max_games = load.deadline, load.max_games
    parts = urlsplit(load.url)
    conn = Connection(parts.hostname or "127.0.0.1", parts.port or 80)
    rng = random.Random(index)
    game_no = 0
    try:
        while time.monotonic() < deadline and (max_games is None or game_no < max_games):
            game = GAMES[(index + game_no) % len(GAMES)]
            game_no += 1
            request: dict[str, Any] = {"game": game, "seed": rng.randrange(2**31)}
            if load.opponents:
                request["opponents"] = load.opponents
            data = timed_call(
                conn, tally, "new table", tally.table_ms, "POST", "/api/tables", request, 201
            )
            if data is None:
                time.sleep(0.1)
                continue
            tally.tables += 1
            table, view = data["id"], data["view"]
            while not view["game_over"] and time.monotonic() < deadline:
                move = rng.choice(view["moves"])
                body = {"turn": view["turn"], "actions": move["actions"]}
                answer = timed_call(
                    conn, tally, "move", tally.move_ms, "POST", f"/api/tables/{table}/moves", body
                )
                if answer is None:
                    break
                tally.moves += 1
                view = answer
            if view["game_over"]:
                tally.finished += 1
            timed_call(conn, tally, "delete", None, "DELETE", f"/api/tables/{table}")
    finally:
        conn.close()


def run(url: str, n: int, seconds: float, opponents: list[str] | None) -> dict[str, Any]:
    """``n`` players for ``seconds``; the summary of the run."""
    tallies = [Tally() for _ in range(n)]
    start = time.monotonic()
    load = Load(url, opponents, deadline=start + seconds)
    threads = [
        threading.Thread(target=player, args=(load, k, tallies[k]), daemon=True) for k in range(n)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=seconds + TIMEOUT + 10)
    elapsed = time.monotonic() - start
    total = Tally()
    for t in tallies:
        total.add(t)
    stuck = sum(t.is_alive() for t in threads)

    def pct(values: list[float], q: float) -> float | None:
        if not values:
            return None
        return (
            statistics.quantiles(values, n=100, method="inclusive")[q - 1]
            if len(values) > 1
            else values[0]
        )

    return {
        "players": n,
        "seconds": round(elapsed, 1),
        "tables": total.tables,
        "finished": total.finished,
        "moves": total.moves,
        "moves_per_s": round(total.moves / elapsed, 1),
        "move_p50_ms": pct(total.move_ms, 50),
        "move_p95_ms": pct(total.move_ms, 95),
        "table_p50_ms": pct(total.table_ms, 50),
        "errors": total.errors + stuck,
        "error_samples": total.messages[:5],
    }


def start_server(max_tables: int) -> tuple[subprocess.Popen, str]:
    """``schnauz serve`` on a free loopback port; its process and URL."""
    cmd = [
        sys.executable,
        "-m",
        "schnauz_env.play.cli",
        "serve",
        "--host",
        "127.0.0.1",
        "--port",
        "0",
        "--max-tables",
        str(max_tables),
    ]
    proc = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONWARNINGS": "ignore"}
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if "http://" not in line:
        proc.kill()
        raise RuntimeError(f"the server did not start: {line!r}")
    return proc, next(w for w in line.split() if w.startswith("http://"))


def warm_up(url: str, opponents: list[str] | None) -> float:
    """Play one table of each game (model files, numba kernels); seconds taken."""
    start = time.monotonic()
    tally = Tally()
    load = Load(url, opponents, deadline=time.monotonic() + 600, max_games=1)
    for k in range(len(GAMES)):
        player(load, k, tally)
    if tally.errors:
        raise RuntimeError(f"warm-up failed: {tally.messages}")
    return time.monotonic() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, nargs="+", default=[1, 10, 100])
    parser.add_argument("--seconds", type=float, default=20.0, help="per N (default 20)")
    parser.add_argument(
        "--opponents", nargs="+", default=None, help="opponent names (default: the server's)"
    )
    parser.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    args = parser.parse_args(argv)
    if any(n < 1 for n in args.players) or args.seconds <= 0:
        parser.error("--players must be >= 1 and --seconds > 0")
    proc, url = start_server(max_tables=2 * max(args.players) + 10)
    rows = []
    try:
        print(f"server {url} (pid {proc.pid}); warming up…", flush=True)
        print(f"warm-up: {warm_up(url, args.opponents):.1f} s", flush=True)
        for n in args.players:
            row = run(url, n, args.seconds, args.opponents)
            rows.append(row)
            print(json.dumps(row), flush=True)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
    cpus = os.cpu_count()
    print()
    print(
        f"{args.seconds:g} s per N, {cpus} CPU cores, opponents: {' '.join(args.opponents) if args.opponents else 'default'}"
    )
    print(
        "| players | tables served | games finished | moves/s | move p50 | move p95 | new table p50 | errors |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")

    def ms(x: float | None) -> str:
        return "-" if x is None else f"{x:.0f} ms"

    for r in rows:
        print(
            f"| {r['players']} | {r['tables']} | {r['finished']} | {r['moves_per_s']} | "
            f"{ms(r['move_p50_ms'])} | {ms(r['move_p95_ms'])} | {ms(r['table_p50_ms'])} | {r['errors']} |"
        )
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=2)
    return 1 if any(r["errors"] for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
