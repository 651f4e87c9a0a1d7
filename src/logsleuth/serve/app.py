"""`logsleuth serve`: a small read-only web application over an index, for a team.

Starlette (ASGI) with jinja2 templates (autoescaped: nothing from a transcript reaches a page
unescaped) and a JSON API under /api/ whose shapes are the command line's (`search -O json`,
`sessions -O json`). With a token (`--token` or $LOGSLEUTH_TOKEN) every request must carry it: an
`Authorization: Bearer` header, or the cookie that opening `/?token=…` once sets for a browser.
"""

from __future__ import annotations

import hmac
import os
from functools import lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import quote

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.base import BaseHTTPMiddleware, RequestResponseEndpoint
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import Route

from logsleuth.enums import Outcome
from logsleuth.errors import LogsleuthError
from logsleuth.serve.data import Index

TOKEN_ENV = "LOGSLEUTH_TOKEN"
COOKIE = "logsleuth_token"
TEMPLATES = Path(__file__).resolve().parent / "templates"
MAX_QUERY = 4000  # characters of a query (a pasted traceback): more is cut


class _Auth(BaseHTTPMiddleware):
    def __init__(self, app: Any, token: str):
        super().__init__(app)
        self.token = token

    async def dispatch(self, request: Request, call_next: RequestResponseEndpoint) -> Response:
        given = request.headers.get("authorization", "")
        bearer = given[7:] if given.lower().startswith("bearer ") else ""
        cookie = request.cookies.get(COOKIE, "")
        query = request.query_params.get("token", "")
        if any(v and hmac.compare_digest(v.encode(), self.token.encode()) for v in (bearer, cookie)):
            return await call_next(request)
        if query and hmac.compare_digest(query.encode(), self.token.encode()):
            # a browser's first visit: remember the token in a cookie, drop it from the address
            back = RedirectResponse(request.url.remove_query_params("token").path or "/", status_code=303)
            back.set_cookie(COOKIE, self.token, httponly=True, samesite="strict")
            return back
        return PlainTextResponse("a bearer token is required", status_code=401, headers={"WWW-Authenticate": "Bearer"})


def inline_code(text: object) -> Any:
    """Escape, then turn `backticked` spans into <code> (one rule with render/postmortem.py)."""
    from logsleuth.render.postmortem import inline_code as code

    return code(str(text or ""))


@lru_cache(maxsize=1)
def _env() -> Any:
    from jinja2 import Environment, FileSystemLoader, select_autoescape

    env = Environment(loader=FileSystemLoader(TEMPLATES), autoescape=select_autoescape(default=True, default_for_string=True))
    env.filters["q"] = lambda v: quote(str(v or ""), safe="")
    env.filters["code"] = inline_code  # `backticked` commands as <code>, as in the HTML report
    env.globals["Outcome"] = Outcome  # templates compare a fix's outcome with its member, not a literal
    return env


def _page(name: str, status: int = 200, **ctx: Any) -> HTMLResponse:
    return HTMLResponse(_env().get_template(name).render(**ctx), status_code=status)


def _json(obj: Any, status: int = 200) -> Response:
    from logsleuth import jsonout

    return Response(jsonout.dumps(obj, indent=False), status_code=status, media_type="application/json",
                    headers={"X-Content-Type-Options": "nosniff"})


def create_app(db: Path, token: str | None = None, *, reasoning: bool = True) -> Starlette:
    """The application over the index at `db` (read on every request: no restart after `index`).
    `reasoning=False` renders postmortems without the language model (faster, for tests)."""
    idx = Index(Path(db))

    def query_of(request: Request) -> str:
        return request.query_params.get("q", "")[:MAX_QUERY]

    async def home(request: Request) -> Response:
        return _page("search.html.j2", q=query_of(request))

    async def results(request: Request) -> Response:
        q = query_of(request)
        if not q.strip():
            return _page("_results.html.j2", groups=[], q=q, query=None)
        result = idx.search(q)
        return _page("_results.html.j2", groups=idx.groups(result), q=q, query=result.query)

    async def sessions_page(request: Request) -> Response:
        f = _filters(request)
        return _page("sessions.html.j2", sessions=idx.sessions(**f), f=f)

    async def session_page(request: Request) -> Response:
        s, src = request.query_params.get("session", ""), request.query_params.get("source", "")
        doc = idx.session(s, src)
        if doc is None:
            return _page("missing.html.j2", 404, what="session")
        return _page("session.html.j2", doc=doc, session=s, source=src)

    async def report(request: Request) -> Response:
        s, src = request.query_params.get("session", ""), request.query_params.get("source", "")
        found = idx.source_of(s, src)
        if found is None:
            return _page("missing.html.j2", 404, what="session")
        html, problem = _postmortem(found[0], found[1], s, reasoning)
        if html is None:
            return _page("missing.html.j2", 404, what="postmortem", problem=problem)
        return HTMLResponse(html)

    async def fingerprint_page(request: Request) -> Response:
        doc = idx.fingerprint(request.path_params["pattern"], request.path_params["fp"])
        if doc is None:
            return _page("missing.html.j2", 404, what="error fingerprint")
        return _page("fingerprint.html.j2", doc=doc)

    async def api_search(request: Request) -> Response:
        q = query_of(request)
        if not q.strip():
            return _json({"error": "give the query as ?q=…"}, 400)
        limit = _int(request.query_params.get("limit"), 10)
        category = request.query_params.get("category") or None
        return _json(idx.search(q, limit=limit, category=category).to_dict())

    async def api_sessions(request: Request) -> Response:
        return _json({"sessions": idx.sessions(**_filters(request))})

    async def api_session(request: Request) -> Response:
        doc = idx.session(request.query_params.get("session", ""), request.query_params.get("source", ""))
        return _json(doc) if doc is not None else _json({"error": "no such session in the index"}, 404)

    async def api_fingerprint(request: Request) -> Response:
        doc = idx.fingerprint(request.path_params["pattern"], request.path_params["fp"])
        return _json(doc) if doc is not None else _json({"error": "no such error fingerprint in the index"}, 404)

    async def on_error(request: Request, exc: Exception) -> Response:
        msg = exc.one_line() if isinstance(exc, LogsleuthError) else "internal error"
        if request.url.path.startswith("/api/"):
            return _json({"error": msg}, 503 if isinstance(exc, LogsleuthError) else 500)
        return _page("missing.html.j2", 503, what="index", problem=msg)

    routes = [
        Route("/", home),
        Route("/search/results", results),
        Route("/sessions", sessions_page),
        Route("/session", session_page),
        Route("/session/report", report),
        Route("/fp/{pattern}/{fp}", fingerprint_page),
        Route("/api/search", api_search),
        Route("/api/sessions", api_sessions),
        Route("/api/session", api_session),
        Route("/api/fingerprint/{pattern}/{fp}", api_fingerprint),
    ]
    middleware = [Middleware(_Auth, token=token)] if token else []
    return Starlette(routes=routes, middleware=middleware, exception_handlers={Exception: on_error})


def _filters(request: Request) -> dict[str, str]:
    p = request.query_params
    return {k: p.get(k, "")[:200] for k in ("text", "category", "outcome", "since", "until")}


def _int(value: str | None, default: int) -> int:
    return max(1, min(100, int(value))) if value and value.isdigit() else default


@lru_cache(maxsize=16)
def _postmortem(source: str, sha: str, session: str, reasoning: bool = True) -> tuple[str | None, str]:
    """The HTML postmortem of an indexed session, rendered from its source (masked), when the
    source is on this machine with the content that was indexed; else why not."""
    from logsleuth.index.files import content_hash

    path = Path(source)
    if not path.exists():
        return None, "its transcript is not on this machine (indexed elsewhere, or moved)"
    if sha and content_hash(path) != sha:
        return None, "its transcript changed since it was indexed: run `logsleuth index` again"
    from logsleuth.analysis import analyze
    from logsleuth.render import postmortem

    return postmortem.render_html(analyze(str(path), session=session, with_reasoning=reasoning), redact=True), ""


def token_from_env(token: str | None) -> str | None:
    return token or os.environ.get(TOKEN_ENV) or None
