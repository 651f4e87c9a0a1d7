"""Web attacks against a running `logsleuth serve`, with real requests (#35): oversized URL, headers
and bodies, paths that climb out, DNS-rebinding Host names, and slowloris beside a normal client.

    logsleuth serve --db DB --port 8765 &
    python bench/serve_attacks.py 8765                      # each attack once, then 1000 slow connections for 25 s
    python bench/serve_attacks.py 8765 --slow 300 --seconds 10

Prints one line per attack: the status line the client read (or how the connection failed) and the
start of the body. The slowloris part opens SLOW connections that each send an unfinished request
head and then a header byte a second, re-opened as soon as the server closes one, while a normal
client asks /api/search every 0.5 s; it prints how many of the normal client's requests were
answered 200. tests/test_serve_security.py holds the same checks as tests.
"""

from __future__ import annotations

import argparse
import asyncio
import socket
import time

CRLF = b"\r\n"


def raw(port: int, data: bytes) -> str:
    """Send `data` on a new connection; the status line and body start read back, or the failure."""
    with socket.create_connection(("127.0.0.1", port), timeout=20) as s:
        t0 = time.monotonic()
        try:
            s.sendall(data)
        except OSError as exc:
            return f"send failed: {exc!r}"
        out = b""
        try:
            while chunk := s.recv(65536):
                out += chunk
        except OSError as exc:
            return f"read failed after {out.split(CRLF)[0]!r}: {exc!r}"
    return f"{out.split(CRLF)[0]!r} {out.split(CRLF * 2, 1)[-1][:70]!r} ({time.monotonic() - t0:.1f} s)"


def requests() -> list[tuple[str, bytes]]:
    host = b"Host: 127.0.0.1\r\n"
    post = b"POST / HTTP/1.1\r\n" + host + b"Content-Length: %d\r\n\r\n"
    chunked = (b"100000\r\n" + b"x" * 0x100000 + b"\r\n") * 3 + b"0\r\n\r\n"
    out = [("URL of 1.2 MB", b"GET /?q=" + b"a" * 1_200_000 + b" HTTP/1.1\r\n" + host + CRLF),
           ("headers of 1.2 MB", b"GET / HTTP/1.1\r\n" + host + b"X-A: " + b"b" * 1_200_000 + CRLF * 2),
           ("not HTTP", b"GET / HTTP/1.1\r\nHost 127.0.0.1\r\n\r\n"),
           ("body of 1.2 MB", post % 1_200_000 + b"x" * 1_200_000),
           ("body of 8 MB", post % 8_000_000 + b"x" * 8_000_000),
           ("chunked body of 3 MB", b"POST / HTTP/1.1\r\n" + host + b"Transfer-Encoding: chunked\r\n\r\n" + chunked)]
    for path in ("/static/../../../../etc/passwd", "/static/%2e%2e/%2e%2e/etc/passwd", "/fp/..%2f..%2fetc/passwd",
                 "/..%5c..%5cetc%5cpasswd", "/session/report?session=x&source=/etc/passwd"):
        out.append((path, b"GET " + path.encode() + b" HTTP/1.1\r\n" + host + b"Connection: close\r\n\r\n"))
    for name in ("rebind.attacker.example", "127.0.0.1.nip.io", "127.0.0.1:8765@evil.example", ""):
        out.append((f"Host {name!r}", b"GET /api/sessions HTTP/1.1\r\nHost: " + name.encode() + b"\r\nConnection: close\r\n\r\n"))
    return out


async def slow_connection(port: int, end: float, stats: dict[str, int]) -> None:
    while time.monotonic() < end:
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
        except OSError:
            await asyncio.sleep(0.5)
            continue
        stats["opened"] += 1
        try:
            writer.write(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            while time.monotonic() < end:
                writer.write(b"X")
                await writer.drain()
                try:
                    if await asyncio.wait_for(reader.read(1), 1.0) == b"":
                        break
                except TimeoutError:
                    pass
        except OSError:
            pass
        finally:
            writer.close()


async def normal_client(port: int, end: float, out: list[tuple[str, float]]) -> None:
    await asyncio.sleep(3)  # the slow connections are up
    while time.monotonic() < end:
        t0 = time.monotonic()
        try:
            reader, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), 10)
            writer.write(b"GET /api/search?q=ImportError HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            data = await asyncio.wait_for(reader.read(), 10)
            writer.close()
            out.append((data.split(CRLF)[0].decode(errors="replace") or "closed, no answer", time.monotonic() - t0))
        except (OSError, TimeoutError) as exc:
            out.append((type(exc).__name__, time.monotonic() - t0))
        await asyncio.sleep(0.5)


async def slowloris(port: int, slow: int, seconds: float) -> str:
    end, stats, out = time.monotonic() + seconds, {"opened": 0}, []  # type: ignore[var-annotated]
    await asyncio.gather(*(slow_connection(port, end, stats) for _ in range(slow)), normal_client(port, end, out))
    ok = [t for status, t in out if status.startswith("HTTP/1.1 200")]
    failed = sorted({status for status, _ in out if not status.startswith("HTTP/1.1 200")})
    return (f"{slow} slow connections for {seconds:g} s ({stats['opened']} opened): the normal client got "
            f"{len(ok)} of {len(out)} answered 200, slowest {max(ok, default=float('nan')):.2f} s; failures: {failed or 'none'}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("port", type=int)
    ap.add_argument("--slow", type=int, default=1000, help="slow connections (0: no slowloris)")
    ap.add_argument("--seconds", type=float, default=25.0)
    args = ap.parse_args()
    for name, data in requests():
        print(f"{name}: {raw(args.port, data)}", flush=True)
    if args.slow:
        print(asyncio.run(slowloris(args.port, args.slow, args.seconds)))


if __name__ == "__main__":
    main()
