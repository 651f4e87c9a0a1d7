"""What keeps `logsleuth serve` safe to run: one ASGI middleware in front of the application.

- the Host header must name this server (the bind address, localhost, or a name given with
  `--allow-host`): a DNS-rebinding page, whose requests carry its own name, is refused (421);
- every response carries a Content-Security-Policy (no inline script, no framing, no foreign
  origin), `X-Frame-Options: DENY`, `nosniff` and `Referrer-Policy: no-referrer`;
- a request body over MAX_BODY bytes is refused with 413, read or announced;
- a request that runs past DEADLINE seconds is answered 503 (when nothing was sent yet).

The connection-level limits (a header deadline, a connection cap) are in server.py.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from typing import Any

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

MAX_BODY = 1_000_000  # bytes of a request body (a pasted traceback POSTed to the search page)
DEADLINE = 30.0  # seconds a request may take (a postmortem of a big session renders in a few)
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
    "connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
)
HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-opener-policy", b"same-origin"),
]
LOCAL_NAMES = ("localhost", "127.0.0.1", "::1")
WILDCARDS = ("0.0.0.0", "::", "")


def allowed_hosts(bind: str, extra: Iterable[str] = ()) -> frozenset[str]:
    """The Host names (without port, lower case) this server answers to. A wildcard bind adds
    this machine's host names; an IP literal is always accepted there (see `host_ok`)."""
    names = {*LOCAL_NAMES, bind.strip("[]").lower(), *(e.strip().strip("[]").lower() for e in extra)}
    if bind in WILDCARDS:
        names |= {socket.gethostname().lower(), socket.getfqdn().lower()}
    return frozenset(n for n in names if n)


def host_of(header: str) -> str:
    """The name of a Host header: `[::1]:8765` -> `::1`, `Example.org:80` -> `example.org`."""
    h = header.strip().lower()
    if h.startswith("["):
        name, _, rest = h[1:].partition("]")
        return name if rest == "" or (rest[:1] == ":" and rest[1:].isdigit()) else h
    name, colon, port = h.rpartition(":")
    return name if colon and h.count(":") == 1 and port.isdigit() else h  # `a:1@evil` is not `a`


def host_ok(header: str, allowed: frozenset[str], wildcard: bool) -> bool:
    name = host_of(header)
    if name in allowed:
        return True
    if not wildcard:
        return False
    try:  # an address typed as such cannot be rebound by DNS
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


class Guard:
    """The ASGI middleware (plain ASGI: no per-request task or buffering of its own)."""

    def __init__(self, app: ASGIApp, *, allowed: frozenset[str], wildcard: bool = False,
                 max_body: int = MAX_BODY, deadline: float = DEADLINE) -> None:
        self.app, self.allowed, self.wildcard = app, allowed, wildcard
        self.max_body, self.deadline = max_body, deadline

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        if not host_ok(headers.get(b"host", b"").decode("latin-1"), self.allowed, self.wildcard):
            await _plain(send, 421, "this server does not answer to that Host name "
                                    "(hint: start it with `--allow-host NAME`)\n")
            return
        length = headers.get(b"content-length", b"0").decode("latin-1")
        if not length.isdigit() or int(length) > self.max_body:
            await _plain(send, 413, f"request body over {self.max_body} bytes\n")
            return
        await self._guarded(scope, _capped(receive, self.max_body), send)

    async def _guarded(self, scope: Scope, receive: Receive, send: Send) -> None:
        import asyncio

        started = False

        async def send_secured(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                names = {k.lower() for k, _ in message.get("headers", [])}
                message["headers"] = [*message.get("headers", []), *(h for h in HEADERS if h[0] not in names)]
            await send(message)

        try:
            async with asyncio.timeout(self.deadline):  # asyncio's own: anyio's scope cost ~0.1 ms a request
                await self.app(scope, receive, send_secured)
        except TimeoutError:
            if not started:
                await _plain(send, 503, f"the request took over {self.deadline:g} s\n")
        except BodyTooLarge:
            if not started:
                await _plain(send, 413, f"request body over {self.max_body} bytes\n")


class BodyTooLarge(Exception):
    """A chunked body ran past the cap."""


def _capped(receive: Receive, limit: int) -> Receive:
    seen = 0

    async def inner() -> Message:
        nonlocal seen
        message = await receive()
        if message["type"] == "http.request":
            seen += len(message.get("body", b""))
            if seen > limit:
                raise BodyTooLarge
        return message

    return inner


async def _plain(send: Send, status: int, text: str) -> None:
    body = text.encode()
    headers = [(b"content-type", b"text/plain; charset=utf-8"), (b"content-length", str(len(body)).encode()),
               (b"connection", b"close"), *HEADERS]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
