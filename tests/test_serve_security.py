"""`logsleuth serve` safe by default (issue #35, item 4), against a real uvicorn on 127.0.0.1:
an empty token refused, the Host allow-list (DNS rebinding), the security headers, the body
cap, the header deadline, index work off the event loop, and the start-up errors."""

from __future__ import annotations

import http.client
import json
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

from index_sessions import PTXAS
from logsleuth.errors import InputError, UsageError
from logsleuth.serve import exposure_warning, server, token_of
from logsleuth.serve.app import create_app
from logsleuth.serve.guard import allowed_hosts, host_of, host_ok
from logsleuth.serve.postmortems import Postmortems
from serve_helpers import RENDERS_ENV, counted_render, indexed_corpus, running, slow_render


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return indexed_corpus(tmp_path_factory.mktemp("serve-sec"))


@pytest.fixture(scope="module")
def base(db: Path):  # type: ignore[no-untyped-def]
    with running(create_app(db, reasoning=False)) as url:
        yield url


def request(base: str, path: str, *, method: str = "GET", host: str | None = None, body: bytes | None = None,
            headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
    u = urlsplit(base)
    c = http.client.HTTPConnection(u.hostname, u.port, timeout=30)
    try:
        c.putrequest(method, path, skip_host=host is not None)
        if host is not None:
            c.putheader("Host", host)
        for k, v in (headers or {}).items():
            c.putheader(k, v)
        if body is not None:
            c.putheader("Content-Length", str(len(body)))
        c.endheaders(body)
        r = c.getresponse()
        return r.status, {k.lower(): v for k, v in r.getheaders()}, r.read()
    finally:
        c.close()


def test_an_empty_token_is_refused_not_read_as_no_authentication(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(UsageError, match="--token is empty"):
        token_of("")
    monkeypatch.setenv("LOGSLEUTH_TOKEN", "  ")
    with pytest.raises(UsageError, match="LOGSLEUTH_TOKEN is empty"):
        token_of(None)
    monkeypatch.setenv("LOGSLEUTH_TOKEN", "s3")
    assert token_of(None) == "s3" and token_of("given") == "given"
    assert exposure_warning("0.0.0.0", None) and not exposure_warning("0.0.0.0", "s3")
    assert not exposure_warning("127.0.0.1", None)


def test_the_cli_refuses_an_empty_token_with_exit_2(db: Path) -> None:
    r = subprocess.run([sys.executable, "-m", "logsleuth", "serve", "--db", str(db), "--token", ""],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "--token is empty" in r.stderr and r.stdout == ""


def test_host_names_it_answers_to() -> None:
    local = allowed_hosts("127.0.0.1", ["logs.example.org"])
    assert host_of("[::1]:8765") == "::1" and host_of("Example.ORG:80") == "example.org"
    for ok in ("127.0.0.1:8765", "localhost", "LOCALHOST:1", "[::1]:8765", "logs.example.org"):
        assert host_ok(ok, local, wildcard=False), ok
    for bad in ("evil.example", "attacker.test:8765", "", "10.0.0.5", "127.0.0.1:8765@evil.example", "[::1]x"):
        assert not host_ok(bad, local, wildcard=False), bad
    anywhere = allowed_hosts("0.0.0.0")
    assert host_ok("10.0.0.5:8765", anywhere, wildcard=True) and not host_ok("rebind.evil", anywhere, wildcard=True)


def test_a_dns_rebinding_host_is_refused_and_headers_are_set(base: str) -> None:
    status, _, body = request(base, "/api/sessions", host="rebind.attacker.example:8765")
    assert status == 421 and b"--allow-host" in body
    status, h, _ = request(base, "/")
    assert status == 200
    assert "frame-ancestors 'none'" in h["content-security-policy"] and "script-src 'self'" in h["content-security-policy"]
    assert "unsafe-inline" not in h["content-security-policy"].split("script-src")[1].split(";")[0]
    assert h["x-frame-options"] == "DENY" and h["x-content-type-options"] == "nosniff"
    assert h["referrer-policy"] == "no-referrer" and "server" not in h
    status, h, _ = request(base, "/no/such/page")
    assert status == 404 and h["x-frame-options"] == "DENY"


def test_a_long_traceback_is_posted_and_a_body_over_1_mb_is_refused(base: str) -> None:
    from urllib.parse import quote

    pasted = ("Traceback (most recent call last):\n" + "  File \"x.py\", line 1, in f\n" * 6600 + PTXAS).encode()
    assert len(pasted) > 180_000
    status, _, page = request(base, "/", method="POST", body=b"q=" + quote(pasted).encode(),
                              headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert status == 200 and b"last 3000 characters were searched" in page
    assert b"ptxas-unsupported-ptx-version" in page  # the exception line at its end was read
    status, _, body = request(base, "/", method="POST", body=b"q=" + b"x" * 1_200_000,
                              headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert status == 413 and b"over 1000000 bytes" in body


def test_a_connection_that_never_sends_its_headers_is_closed(base: str, monkeypatch: pytest.MonkeyPatch) -> None:
    u = urlsplit(base)
    with socket.create_connection((u.hostname, u.port), timeout=server.HEADER_TIMEOUT + 10) as s:
        s.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # and never the end of the head
        t0 = time.monotonic()
        assert s.recv(100) == b""  # closed by the server
        waited = time.monotonic() - t0
    assert server.HEADER_TIMEOUT - 1 < waited < server.HEADER_TIMEOUT + 5


def test_a_slow_postmortem_does_not_block_search(db: Path) -> None:
    from urllib.parse import urlencode

    renders = Postmortems(slow_render, processes=1)
    with running(create_app(db, reasoning=False, postmortems=renders)) as url:
        s = json.loads(request(url, "/api/sessions")[2])["sessions"][0]
        report = threading.Thread(target=request, args=(url, "/session/report?" + urlencode(
            {"session": s["session"], "source": s["source"]})))
        renders.start()
        time.sleep(2)  # the worker process is up (spawned, imports done)
        report.start()
        time.sleep(0.5)
        took = []
        for q in ("ptxas%20fatal", "libnvrtc", "ImportError%20x1", "no%20such%20words%20anywhere"):  # misses: computed now
            t0 = time.monotonic()
            status, _, _ = request(url, "/api/search?q=" + q)
            took.append(time.monotonic() - t0)
            assert status == 200
        rendering = report.is_alive()
        report.join(30)
    assert rendering and max(took) < 2  # answered while the postmortem was still rendering


def test_a_postmortem_is_rendered_once_per_index_generation(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from urllib.parse import urlencode

    from logsleuth.index import build as indexer

    db = indexed_corpus(tmp_path)
    log = tmp_path / "renders.txt"
    monkeypatch.setenv(RENDERS_ENV, str(log))  # before the worker is spawned: it inherits it
    with running(create_app(db, reasoning=False, postmortems=Postmortems(counted_render, processes=1))) as url:
        s = next(r for r in json.loads(request(url, "/api/sessions")[2])["sessions"] if r["session"] == "sess-ptxas")
        path = "/session/report?" + urlencode({"session": s["session"], "source": s["source"]})
        first, second = request(url, path), request(url, path)
        assert first[0] == second[0] == 200 and first[2] == second[2] and b"[msg " in first[2]
        assert log.read_text().splitlines() == ["sess-ptxas"]  # the second was the kept one
        assert indexer.build([str(tmp_path / "corpus")], db, origin="ci", force=True).errors == []
        assert request(url, path)[0] == 200
        assert log.read_text().splitlines() == ["sess-ptxas", "sess-ptxas"]  # a new generation: rendered again


def test_start_up_errors_are_located_lines(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        with pytest.raises(InputError) as exc:
            server.bind("127.0.0.1", port)
        assert f"127.0.0.1:{port}: the port is in use" in exc.value.one_line() and "--port" in exc.value.one_line()
    with pytest.raises(InputError, match="no index here"):
        server.index_ready(tmp_path)
    r = subprocess.run([sys.executable, "-m", "logsleuth", "serve", "--db", str(tmp_path)],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 3 and "no index here" in r.stderr


def start_serve(db: Path, *args: str) -> tuple[subprocess.Popen[str], list[str]]:
    """`logsleuth serve --port 0 ARGS` in a process, and its lines up to the "listening on" one."""
    p = subprocess.Popen([sys.executable, "-m", "logsleuth", "serve", "--db", str(db), "--port", "0", *args],
                         stderr=subprocess.PIPE, text=True)
    lines: list[str] = []
    while p.stderr is not None and not (lines and "listening on http" in lines[-1]):
        line = p.stderr.readline()
        if not line:
            break
        lines.append(line)
    return p, lines


def test_serve_says_where_it_listens_and_the_port_in_use_is_one_line_exit_3(db: Path) -> None:
    p, lines = start_serve(db)
    try:
        assert len(lines) == 1 and lines[0].startswith("logsleuth: listening on http://127.0.0.1:") and "Ctrl-C" in lines[0]
        port = int(lines[0].split(":")[3].split()[0])
        assert request(f"http://127.0.0.1:{port}", "/sessions")[0] == 200
        again = subprocess.run([sys.executable, "-m", "logsleuth", "serve", "--db", str(db), "--port", str(port)],
                               capture_output=True, text=True, timeout=60)
        assert again.returncode == 3 and again.stdout == ""
        assert again.stderr == (f"logsleuth: error: 127.0.0.1:{port}: the port is in use (hint: stop what listens there, "
                                "or pick another with --port (0: any free port))\n")
        workers = children(p.pid)
        assert workers  # the postmortem workers, started with the server
    finally:
        p.terminate()
        p.wait(20)
    deadline = time.monotonic() + 20
    while any(Path(f"/proc/{w}").exists() for w in workers) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not any(Path(f"/proc/{w}").exists() for w in workers)  # stopped with it


def children(pid: int) -> list[int]:
    return [int(c) for t in Path(f"/proc/{pid}/task").glob("*/children") for c in t.read_text().split()]


def test_a_bind_other_machines_reach_without_a_token_is_warned_about(db: Path) -> None:
    p, lines = start_serve(db, "--host", "0.0.0.0")
    try:
        assert lines[0].startswith("logsleuth: warning: listening on 0.0.0.0 without --token: anyone who can reach")
        assert lines[-1].startswith("logsleuth: listening on http://0.0.0.0:")
    finally:
        p.terminate()
        p.wait(20)
    p, lines = start_serve(db, "--host", "0.0.0.0", "--token", "s3cret")
    try:
        assert len(lines) == 1 and "warning" not in lines[0]
    finally:
        p.terminate()
        p.wait(20)


def test_serve_without_its_extra_says_how_to_install_it(db: Path) -> None:
    code = ("import sys; sys.modules['uvicorn'] = None; from logsleuth.cli import main; "
            f"sys.exit(main(['serve', '--db', {str(db)!r}]))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode == 3 and "'uvicorn', which is not installed" in r.stderr and ".[serve]" in r.stderr
    assert "internal error" not in r.stderr


def raw(base: str, data: bytes) -> bytes:
    """Send `data` on a new connection; what the server answers until it closes."""
    u = urlsplit(base)
    with socket.create_connection((u.hostname, u.port), timeout=30) as s:
        s.sendall(data)
        out = b""
        while chunk := s.recv(65536):
            out += chunk
    return out


def test_oversized_requests_get_a_clear_answer_not_a_reset(base: str) -> None:
    head = raw(base, b"GET /?q=" + b"a" * 1_200_000 + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 414 ") and b"POST a long query" in head and b"x-frame-options: DENY" in head
    head = raw(base, b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-A: " + b"b" * 1_200_000 + b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 431 ")
    head = raw(base, b"GET / HTTP/1.1\r\nHost 127.0.0.1\r\n\r\n")  # no colon: not HTTP
    assert head.startswith(b"HTTP/1.1 400 ") and b"x-content-type-options: nosniff" in head
    for n in (1_200_000, 8_000_000):  # announced: answered before the body is read, which is then drained
        got = raw(base, b"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: %d\r\n\r\n" % n + b"x" * n)
        assert got.startswith(b"HTTP/1.1 413 ") and b"over 1000000 bytes" in got
    chunks = (b"100000\r\n" + b"x" * 0x100000 + b"\r\n") * 3 + b"0\r\n\r\n"
    t0 = time.monotonic()
    got = raw(base, b"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n" + chunks)
    assert got.startswith(b"HTTP/1.1 413 ") and time.monotonic() - t0 < server.HEADER_TIMEOUT


def test_paths_that_climb_out_reach_no_file(base: str) -> None:
    for path in ("/static/../../../../etc/passwd", "/static/%2e%2e/%2e%2e/%2e%2e/etc/passwd", "/fp/..%2f..%2fetc/passwd",
                 "/static/search.js/../../app.py", "/..%5c..%5cetc%5cpasswd",
                 "/session/report?session=x&source=/etc/passwd", "/session/report?session=x&source=..%2F..%2Fapp.py"):
        status, _, body = request(base, path)
        assert status == 404 and b"root:" not in body and b"import" not in body, path


def test_a_keep_alive_connection_dripping_its_next_head_is_closed(base: str) -> None:
    u = urlsplit(base)
    with socket.create_connection((u.hostname, u.port), timeout=server.HEADER_TIMEOUT + 10) as s:
        s.sendall(b"GET /favicon.ico HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        assert s.recv(65536).startswith(b"HTTP/1.1 200 ")
        t0 = time.monotonic()
        s.sendall(b"GET / HTTP/1.1\r\n")
        closed = False
        while time.monotonic() - t0 < server.HEADER_TIMEOUT + 5:
            try:
                s.sendall(b"X")  # a byte a second: never the end of the head
            except OSError:
                closed = True
                break
            s.settimeout(1)
            try:
                if s.recv(100) == b"":
                    closed = True
                    break
            except TimeoutError:
                pass
    assert closed and server.HEADER_TIMEOUT - 1 < time.monotonic() - t0 < server.HEADER_TIMEOUT + 5


def test_slow_connections_past_the_cap_do_not_lock_out_a_normal_client(db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(server, "MAX_CONNECTIONS", 20)
    with running(create_app(db, reasoning=False)) as url:
        u = urlsplit(url)
        slow = []
        for _ in range(60):  # three times the cap, each holding an unfinished request head
            s = socket.create_connection((u.hostname, u.port), timeout=10)
            s.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            slow.append(s)
        time.sleep(0.5)
        answers = [request(url, "/api/sessions")[0] for _ in range(5)]
        open_slow = 0
        for s in slow:
            s.settimeout(0.2)
            try:
                open_slow += s.recv(1) != b""
            except TimeoutError:
                open_slow += 1
            except OSError:
                pass
            s.close()
    assert answers == [200] * 5  # each replaced the slow connection that waited longest
    assert open_slow <= 20


def test_a_request_past_the_deadline_is_answered_503() -> None:
    import asyncio

    from logsleuth.serve.guard import Guard

    async def stuck(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":  # started and stopped at once
            while (await receive())["type"] != "lifespan.shutdown":
                await send({"type": "lifespan.startup.complete"})
            await send({"type": "lifespan.shutdown.complete"})
            return
        await asyncio.sleep(30)

    with running(Guard(stuck, allowed=allowed_hosts("127.0.0.1"), deadline=0.5)) as url:
        t0 = time.monotonic()
        status, h, body = request(url, "/anything")
    assert status == 503 and b"took over 0.5 s" in body and h["x-frame-options"] == "DENY"
    assert time.monotonic() - t0 < 5
