"""Running the application: the listening socket (bound here, so that a port in use is a located
error and `--port 0` prints the port it got), uvicorn with a header deadline and a connection
cap, and the "listening on" line.

uvicorn's h11 protocol starts no timer on a new connection: one that never finishes its request
headers is held forever (~20,000 of them deny all service). `GuardedH11` closes a connection
that has not sent a whole request head within HEADER_TIMEOUT seconds, and any connection over
MAX_CONNECTIONS at once.
"""

from __future__ import annotations

import errno
import socket
from pathlib import Path
from typing import Any

from logsleuth.errors import InputError, Location

HEADER_TIMEOUT = 10.0  # seconds from connect to the end of the request head
KEEP_ALIVE = 5  # seconds an idle keep-alive connection is kept
MAX_CONNECTIONS = 512  # open connections at once; more are closed at accept
MAX_HEADER = 64 * 1024  # bytes of a request head


def bind(host: str, port: int) -> socket.socket:
    """The listening socket, or an input error naming the address and what to do."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host.strip("[]"), port))
        sock.listen(1024)
    except OSError as exc:
        sock.close()
        where = Location(f"{host}:{port}")
        if exc.errno == errno.EADDRINUSE:
            raise InputError("the port is in use", where, "stop what listens there, or pick another with --port (0: any free port)") from None
        if exc.errno in (errno.EACCES, errno.EPERM):
            raise InputError("not allowed to listen here", where, "ports below 1024 need privileges: use --port 8765") from None
        raise InputError(f"cannot listen: {exc.strerror or exc}", where, "check --host: an address of this machine, e.g. 127.0.0.1") from None
    sock.set_inheritable(True)
    return sock


def url_of(sock: socket.socket) -> str:
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}"


def guarded_h11() -> type[Any]:
    """uvicorn's h11 protocol with the header deadline and the connection cap."""
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class GuardedH11(H11Protocol):
        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            if len(self.connections) > MAX_CONNECTIONS:
                transport.close()
                return
            self._head_timer = self.loop.call_later(HEADER_TIMEOUT, self._head_timeout)

        def _head_timeout(self) -> None:
            if self.cycle is None and not self.transport.is_closing():  # no request head yet
                self.transport.close()

        def connection_lost(self, exc: Exception | None) -> None:
            timer = getattr(self, "_head_timer", None)
            if timer is not None:
                timer.cancel()
            super().connection_lost(exc)

    return GuardedH11


def config(app: Any, **extra: Any) -> Any:
    import uvicorn

    return uvicorn.Config(app, http=guarded_h11(), log_level="warning", timeout_keep_alive=KEEP_ALIVE,
                          limit_concurrency=MAX_CONNECTIONS, h11_max_incomplete_event_size=MAX_HEADER,
                          server_header=False, **extra)


def run(app: Any, sock: socket.socket, say: Any) -> None:
    """Serve on `sock` until interrupted; `say` prints the one line that tells where."""
    import uvicorn

    server = uvicorn.Server(config(app))
    say(f"logsleuth: serving {url_of(sock)} (Ctrl-C to stop)")
    server.run(sockets=[sock])


def index_ready(db: Path) -> None:
    if not (db / "files.parquet").is_file():
        raise InputError("no index here", Location(str(db)), "build one with `logsleuth index PATH…`, or pass --db")
