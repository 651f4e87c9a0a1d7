"""`logsleuth serve`: the read-only web application over an index."""

from __future__ import annotations

from pathlib import Path

import typer

from logsleuth.cli.app import app
from logsleuth.errors import UsageError


@app.command()
def serve(
    db: Path | None = typer.Option(None, "--db", help="Index directory (default: $XDG_DATA_HOME/logsleuth)."),
    host: str = typer.Option("127.0.0.1", "--host", help="Address to listen on (default: this machine only)."),
    port: int = typer.Option(8765, "--port", min=0, max=65535),
    token: str | None = typer.Option(None, "--token", help="Require this bearer token on every request ($LOGSLEUTH_TOKEN)."),
) -> None:
    """Serve search, sessions, postmortems and error fingerprints of an index over HTTP (read-only)."""
    from logsleuth.index.files import default_dir

    where = db if db is not None else default_dir()
    if not (where / "files.parquet").is_file():
        raise UsageError(f"no index at {where}", hint="build one with `logsleuth index PATH…`, or pass --db")
    try:
        from logsleuth.serve import serve as run
    except ImportError as exc:  # pragma: no cover - the [serve] extra is not installed
        raise UsageError(f"serve needs {exc.name}", hint="pip install 'logsleuth[serve]'") from exc
    run(where, host, port, token)
