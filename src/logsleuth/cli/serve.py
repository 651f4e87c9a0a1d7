"""`logsleuth serve`: the read-only web application over an index."""

from __future__ import annotations

from pathlib import Path

import typer

from logsleuth.cli.app import app
from logsleuth.errors import InputError


@app.command()
def serve(
    db: Path | None = typer.Option(None, "--db", help="Index directory (default: $XDG_DATA_HOME/logsleuth)."),
    host: str = typer.Option("127.0.0.1", "--host", help="Address to listen on (default: this machine only)."),
    port: int = typer.Option(8765, "--port", min=0, max=65535, help="Port to listen on (0: any free port)."),
    token: str | None = typer.Option(None, "--token", help="Require this bearer token on every request ($LOGSLEUTH_TOKEN)."),
    allow_host: list[str] = typer.Option([], "--allow-host", metavar="NAME",
                                         help="Also answer to this Host name (a DNS name of this machine); repeatable."),
) -> None:
    """Serve search, sessions, postmortems and error fingerprints of an index over HTTP (read-only)."""
    from logsleuth.index.files import default_dir

    try:
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError as exc:  # the [serve] extra is not installed
        raise InputError(f"serve needs the Python package {exc.name!r}, which is not installed",
                         hint="install the serve extra: `pip install -e '.[serve]'` (or `pip install 'logsleuth[serve]'`)") from None
    from logsleuth.serve import serve as run

    run(db if db is not None else default_dir(), host, port, token, allow_host)
