"""A corpus, an index and a live server for the serve tests (started on 127.0.0.1, a free port)."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from index_sessions import claude_session, nvrtc_fixed, ptxas_catch22, ptxas_fixed, write

SECRET = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"  # a GitHub token shape the masking knows
XSS = "<script>alert('x')</script><img src=x onerror=alert(1)>"


def hostile_session() -> str:
    """A failure whose text carries markup and a secret: neither may reach a page as such."""
    out = f"ImportError: libnvrtc.so.13: cannot open shared object file: No such file or directory {XSS} token={SECRET}"
    return claude_session("sess-hostile", "2026-02-01T09:00:00", [("python -c 'import sgl_kernel'", out, True)])


def build_corpus(root: Path) -> Path:
    write(root / "ptxas.jsonl", ptxas_fixed())
    write(root / "nvrtc.jsonl", nvrtc_fixed())
    write(root / "c22.jsonl", ptxas_catch22())
    write(root / "hostile.jsonl", hostile_session())
    return root


def indexed_corpus(root: Path) -> Path:
    """The corpus under `root/corpus`, indexed into `root/db` (the db the serve tests read)."""
    from logsleuth.index import build as indexer

    build_corpus(root / "corpus")
    assert indexer.build([str(root / "corpus")], root / "db", origin="ci").errors == []
    return root / "db"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def running(app: object) -> Iterator[str]:
    """Serve `app` with uvicorn in a thread, configured as `logsleuth serve` runs it (header
    deadline, connection cap: serve/server.py); yields its base URL; stops it on the way out."""
    import uvicorn

    from logsleuth.serve import server as srv

    sock = srv.bind("127.0.0.1", 0)
    port = sock.getsockname()[1]
    server = uvicorn.Server(srv.config(app))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the server did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()


RENDERS_ENV = "LOGSLEUTH_TEST_RENDERS"  # a file each counted render appends a line to


def slow_render(source: str, sha: str, session: str, reasoning: bool) -> tuple[str | None, str, None]:
    """A postmortem that takes 3 s of a worker process's CPU (what a big session costs)."""
    end = time.monotonic() + 3
    while time.monotonic() < end:
        sum(range(1000))  # pure Python: in a thread of the server this would hold the GIL
    return "<html><body>late</body></html>", "", None


def counted_render(source: str, sha: str, session: str, reasoning: bool) -> tuple[str | None, str, object]:
    """The real render, counted: one line per render in the file $LOGSLEUTH_TEST_RENDERS names."""
    import os

    from logsleuth.serve.postmortems import render

    with open(os.environ[RENDERS_ENV], "a") as f:
        f.write(f"{session}\n")
    return render(source, sha, session, reasoning)
