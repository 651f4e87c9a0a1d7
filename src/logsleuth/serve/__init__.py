"""`logsleuth serve`: the team's read-only web application over an index (see app.py)."""

from __future__ import annotations

from pathlib import Path


def serve(db: Path, host: str = "127.0.0.1", port: int = 8765, token: str | None = None) -> None:
    """Run the application with uvicorn until interrupted."""
    import uvicorn

    from logsleuth.serve.app import create_app, token_from_env

    uvicorn.run(create_app(db, token_from_env(token)), host=host, port=port, log_level="warning")


__all__ = ["serve"]
