"""``schnauz serve``: the browser app on a local server.

    schnauz serve                          # http://127.0.0.1:8000/
    schnauz serve --port 0                 # any free port (the URL is printed)
    schnauz serve --models runs/models/    # offer the operator's model files too
    schnauz serve --max-tables 50 --idle-minutes 10

Binds 127.0.0.1 unless ``--host`` says otherwise. Needs the ``web`` extra
(``pip install "schnauz_env[web]"``: Starlette and uvicorn). This module imports neither
until the server starts, so ``schnauz --help`` works without them.
"""

from __future__ import annotations

import argparse
import contextlib
import socket
import sys
import threading
import time
import warnings
from collections.abc import Iterator
from typing import Any

from schnauz_env.play.command import Subcommand, missing_extra

#: The subcommand this module runs (:mod:`schnauz_env.play.command`).
COMMAND = Subcommand(
    "serve",
    help="play in the browser (a local web server)",
    description="Start the browser app: every game against the package's agents, with "
    "a coach and a review, on a local web server. Needs the web extra.",
)

#: Where the server listens unless told otherwise: this machine only.
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000
LOOPBACK_NAMES = ["127.0.0.1", "localhost", "::1", "[::1]"]


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The arguments of ``schnauz serve``."""
    p.add_argument("--host", default=DEFAULT_HOST, help=f"address to bind (default {DEFAULT_HOST})")
    p.add_argument(
        "--port",
        type=int,
        default=DEFAULT_PORT,
        help=f"port (default {DEFAULT_PORT}; 0: any free port)",
    )
    p.add_argument(
        "--models",
        nargs="+",
        default=[],
        metavar="PATH",
        help="model files (.npz) or folders of them to offer as opponents and coaches",
    )
    p.add_argument("--max-tables", type=int, default=200, help="tables at once (default 200)")
    p.add_argument(
        "--idle-minutes",
        type=float,
        default=30.0,
        help="a table untouched this long expires (default 30)",
    )


def bind(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host:port`` (``port`` 0: a free one)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(128)
    return sock


def url_of(sock: socket.socket) -> str:
    host, port = sock.getsockname()[:2]
    return f"http://{f'[{host}]' if ':' in host else host}:{port}/"


def run(args: argparse.Namespace) -> int:
    """The ``schnauz serve`` command."""
    if missing_extra("serve", "web", "uvicorn", "schnauz_env.web.app"):
        return 2
    import uvicorn

    from schnauz_env.web.app import Settings, create_app

    if args.max_tables < 1 or not 0 < args.idle_minutes < float("inf"):
        print("error: --max-tables must be >= 1 and --idle-minutes > 0", file=sys.stderr)
        return 2
    if not 0 <= args.port <= 65535:
        print(f"error: --port must be 0..65535, got {args.port}", file=sys.stderr)
        return 2
    loopback = args.host in LOOPBACK_NAMES or args.host.startswith("127.")
    settings = Settings(
        max_tables=args.max_tables,
        idle_seconds=args.idle_minutes * 60,
        models=list(args.models),
        allowed_hosts=[*LOOPBACK_NAMES, args.host] if loopback else None,
    )
    try:
        with warnings.catch_warnings():
            # Without numba the shipped model's features run as plain Python: slower, not wrong.
            warnings.filterwarnings("ignore", "numba is not installed", RuntimeWarning)
            app = create_app(settings)
        sock = bind(args.host, args.port)
    except (ValueError, OSError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    print(f"schnauz_env in the browser: {url_of(sock)}  (Ctrl-C stops the server)", flush=True)
    if not loopback:
        print(
            f"warning: bound to {args.host}: other machines can reach this server",
            file=sys.stderr,
        )
    warm = threading.Thread(target=_warm_up, args=(app,), daemon=True)
    warm.start()
    server = uvicorn.Server(
        uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off")
    )
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:  # uvicorn shuts down gracefully, then passes Ctrl-C on
        pass
    finally:
        sock.close()
    print("Server stopped.")
    return 0


def _warm_up(app: Any) -> None:
    """Load the models and kernels in the background (see ``App.warm_up``); a failure
    here only means the first table is slower, so it is reported, not raised."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "numba is not installed", RuntimeWarning)
        try:
            app.state.app.warm_up()
        except Exception as err:
            print(f"warning: warming up failed: {err!r}", file=sys.stderr)


@contextlib.contextmanager
def running(app: Any, host: str = DEFAULT_HOST, port: int = 0) -> Iterator[str]:
    """Serve ``app`` with uvicorn in a background thread while the block runs; yields
    its URL (``port`` 0: a free port). For tests and ``bench/web_load.py``."""
    import uvicorn

    sock = bind(host, port)
    server = uvicorn.Server(
        uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off")
    )
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            sock.close()
            raise RuntimeError("the web server did not start")
        time.sleep(0.02)
    try:
        yield url_of(sock)
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()


__all__ = [
    "COMMAND",
    "DEFAULT_HOST",
    "DEFAULT_PORT",
    "add_arguments",
    "bind",
    "run",
    "running",
    "url_of",
]
