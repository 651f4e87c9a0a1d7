"""`logsleuth serve`: the team's read-only web application over an index (see app.py, guard.py, server.py)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from logsleuth.errors import UsageError

TOKEN_ENV = "LOGSLEUTH_TOKEN"
LOOPBACK = ("127.0.0.1", "localhost", "::1", "[::1]")


def token_of(given: str | None) -> str | None:
    """`--token`, else $LOGSLEUTH_TOKEN, else none; an empty one (an unset `$TOKEN` in a script)
    is refused rather than read as "no authentication"."""
    token = given if given is not None else os.environ.get(TOKEN_ENV)
    if token is not None and not token.strip():
        where = "--token" if given is not None else f"${TOKEN_ENV}"
        raise UsageError(f"{where} is empty", hint=f"give a secret (e.g. `--token $(openssl rand -hex 16)`), or unset {TOKEN_ENV}")
    return token


def exposure_warning(host: str, token: str | None) -> str | None:
    """The warning for a bind other machines can reach, without a token."""
    if token or host in LOOPBACK or host.startswith("127."):
        return None
    return (f"logsleuth: warning: listening on {host} without --token: anyone who can reach this machine "
            "can read the index (hint: add --token SECRET)")


def serve(db: Path, host: str = "127.0.0.1", port: int = 8765, token: str | None = None,
          allow_hosts: Sequence[str] = ()) -> None:
    """Run the application with uvicorn until interrupted."""
    from logsleuth.serve import server
    from logsleuth.termsafe import say

    server.index_ready(db)
    token = token_of(token)
    warning = exposure_warning(host, token)
    sock = server.bind(host, port)
    from logsleuth.serve.app import create_app

    app = create_app(db, token, host=host, allow_hosts=allow_hosts)
    if warning:
        say(warning)
    server.run(app, sock, say)


__all__ = ["TOKEN_ENV", "serve", "token_of"]
