"""Running the application: the listening socket (bound here, so that a port in use is a located
error and `--port 0` prints the port it got), uvicorn with a header deadline and a connection
cap, and the "listening on" line.

uvicorn's h11 protocol starts no timer on a new connection: one that never finishes its request
headers is held forever (~20,000 of them deny all service). `GuardedH11`:

- closes a connection that has not sent a whole request head within HEADER_TIMEOUT seconds of
  connecting, or of the end of its previous response (a keep-alive connection dripping the next
  head one byte at a time is a slow connection too);
- holds at most MAX_CONNECTIONS at once: past it, a new connection replaces the one that has
  waited longest without a request in progress (slow or idle), so that many slow connections
  cannot lock a normal client out; only when all are busy with requests is the new one closed;
- answers a request head over MAX_HEADER bytes with 414 (its request line) or 431 (its header
  fields), then drains what the client still sends for a moment before closing, so that the
  client reads the answer instead of a reset connection.
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
LINGER = 2.0  # seconds a refused connection's input is drained before it is closed


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
    """uvicorn's h11 protocol with the header deadline, the connection cap and the head size answer."""
    import time

    from uvicorn.protocols.http.h11_impl import H11Protocol

    class GuardedH11(H11Protocol):
        def connection_made(self, transport: Any) -> None:
            super().connection_made(Lingering(transport, self))  # type: ignore[arg-type]  # a Transport in all it is asked
            self._opened, self._draining = time.monotonic(), False
            if len(self.connections) > MAX_CONNECTIONS and not _make_room(self.connections, self):
                transport.close()
                return
            self._arm()

        def _arm(self) -> None:
            """Start the deadline for the next request head (the current cycle is done or none)."""
            timer = getattr(self, "_head_timer", None)
            if timer is not None:
                timer.cancel()
            self._waiting_since, self._timed_cycle = time.monotonic(), self.cycle
            self._head_timer = self.loop.call_later(HEADER_TIMEOUT, self._head_timeout)

        def idle(self) -> bool:
            """No request in progress: no head yet, or the last response sent."""
            return self.cycle is None or bool(self.cycle.response_complete)

        def _head_timeout(self) -> None:
            if self.cycle is self._timed_cycle and self.idle() and not self.transport.is_closing():
                self.transport.close()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing():
                self._arm()

        def data_received(self, data: bytes) -> None:
            if self._draining:  # after a 414/431: read and dropped, until the client stops
                return
            super().data_received(data)

        def send_400_response(self, msg: str) -> None:
            """A request h11 cannot read: 414/431 when its head is too large, else 400 (with the
            security headers every answer carries), then the input drained and the connection closed."""
            pending = self.conn.trailing_data[0]
            line_end = pending.find(b"\r\n")
            status = 400 if len(pending) <= MAX_HEADER else 414 if line_end < 0 or line_end > MAX_HEADER // 2 else 431
            self.transport.write(refusal(status))
            self.transport.linger()  # type: ignore[attr-defined]  # our Lingering

        def connection_lost(self, exc: Exception | None) -> None:
            timer = getattr(self, "_head_timer", None)
            if timer is not None:
                timer.cancel()
            super().connection_lost(exc)

    return GuardedH11


class Lingering:
    """A connection's transport that (1) writes what one step of the server sends as one write: uvicorn
    writes a response's head and body apart, two system calls and two packets the client wakes for;
    (2) on close while the client is still sending a request body the server will not read (a 413
    answered at once), first half-closes and drains the input for LINGER seconds: closing at once
    would reset the connection, and the client would see the reset instead of the answer."""

    def __init__(self, transport: Any, protocol: Any) -> None:
        self._transport, self._protocol = transport, protocol
        self._pending: list[bytes] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)

    def write(self, data: bytes) -> None:
        if not self._pending:
            self._protocol.loop.call_soon(self._flush)
        self._pending.append(data)

    def _flush(self) -> None:
        if self._pending:
            data = b"".join(self._pending)
            self._pending.clear()
            if not self._transport.is_closing():
                self._transport.write(data)

    def write_eof(self) -> None:
        self._flush()
        self._transport.write_eof()

    def close(self) -> None:
        import h11

        self._flush()
        if self._protocol.conn.their_state is h11.SEND_BODY and not self._protocol._draining:
            self.linger()
        else:
            self._transport.close()

    def linger(self) -> None:
        """Send the end of what the server says, drop what comes in, close in LINGER seconds."""
        self._flush()
        if self._protocol._draining:
            return
        self._protocol._draining = True
        self._transport.resume_reading()  # uvicorn pauses reading past 64 KB of unread body
        if self._transport.can_write_eof():
            self._transport.write_eof()
        self._protocol.loop.call_later(LINGER, self._transport.close)


def _make_room(connections: Any, newcomer: Any) -> bool:
    """Close the connection that has waited longest without a request in progress (not the
    newcomer); False when every one is busy with a request."""
    idle = [c for c in connections if c is not newcomer and getattr(c, "idle", lambda: False)()]
    if not idle:
        return False
    oldest = min(idle, key=lambda c: getattr(c, "_waiting_since", c._opened))
    oldest.transport.close()
    connections.discard(oldest)  # gone now, not when the loop gets to its connection_lost
    return True


REFUSALS = {
    400: ("Bad Request", "not a valid HTTP/1.1 request"),
    414: ("URI Too Long", f"the address is too long (over {MAX_HEADER} bytes): POST a long query (the search form does)"),
    431: ("Request Header Fields Too Large", f"the request's header fields are too large (over {MAX_HEADER} bytes)"),
}


def refusal(status: int) -> bytes:
    """A whole response to a request h11 could not read (400), or whose head is over MAX_HEADER
    bytes (414: the URL, 431: the header fields)."""
    from logsleuth.serve.guard import HEADERS

    what = REFUSALS[status]
    body = f"{what[1]}\n".encode()
    head = [f"HTTP/1.1 {status} {what[0]}".encode(), b"content-type: text/plain; charset=utf-8",
            f"content-length: {len(body)}".encode(), b"connection: close",
            *(k + b": " + v for k, v in HEADERS)]
    return b"\r\n".join(head) + b"\r\n\r\n" + body


def config(app: Any, **extra: Any) -> Any:
    import uvicorn

    return uvicorn.Config(app, http=guarded_h11(), log_level="warning", timeout_keep_alive=KEEP_ALIVE,
                          h11_max_incomplete_event_size=MAX_HEADER,
                          server_header=False, **extra)


def run(app: Any, sock: socket.socket, say: Any) -> None:
    """Serve on `sock` until interrupted; `say` prints the one line that tells where."""
    import uvicorn

    server = uvicorn.Server(config(app))
    say(f"logsleuth: listening on {url_of(sock)} (Ctrl-C to stop)")
    server.run(sockets=[sock])


def index_ready(db: Path) -> None:
    if not (db / "files.parquet").is_file():
        raise InputError("no index here", Location(str(db)), "build one with `logsleuth index PATH…`, or pass --db")
