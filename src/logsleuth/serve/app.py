"""`logsleuth serve`: a small read-only web application over an index, for a team.

Starlette (ASGI) with jinja2 templates (autoescaped: nothing from a transcript reaches a page
unescaped) and a JSON API under /api/ whose shapes are the command line's (`search -O json`,
`sessions -O json`). Pages work without JavaScript: the search page renders its results on the
server (GET `/?q=`, POST for a long pasted traceback); the script only makes it search as you type.

Handlers that read the index or render a postmortem are plain functions: Starlette runs them in
its worker threads, so a slow postmortem never blocks the event loop and searches run side by
side. guard.py checks the Host and sets the security headers; with a token (`--token` or
$LOGSLEUTH_TOKEN) every request must carry it: an `Authorization: Bearer` header, or the cookie
that opening `/?token=…` once sets for a browser.
"""

from __future__ import annotations

import hmac
from collections.abc import Callable, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import quote

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import Route

from logsleuth.enums import Outcome
from logsleuth.errors import LogsleuthError
from logsleuth.serve import guard
from logsleuth.serve.data import Index
from logsleuth.serve.params import BadParam, api_filters, limit_of, page_filters

COOKIE = "logsleuth_token"
ICON = b'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><circle cx="7" cy="7" r="5" fill="none" stroke="#1d2b3a" stroke-width="2"/></svg>'
TEMPLATES = Path(__file__).resolve().parent / "templates"
STATIC = Path(__file__).resolve().parent / "static"
MAX_QUERY = 4000  # characters of a query (a pasted traceback) that are searched: its head and its tail
HEAD = 1000  # of them from the start; the rest from the end, where a traceback names its exception


class _Auth:
    """Plain ASGI: the bearer token, its cookie, or `?token=` once (then a cookie)."""

    def __init__(self, app: Any, token: str) -> None:
        self.app, self.token = app, token.encode()

    def _ok(self, value: str) -> bool:
        return bool(value) and hmac.compare_digest(value.encode(), self.token)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        given = request.headers.get("authorization", "")
        bearer = given[7:] if given.lower().startswith("bearer ") else ""
        if self._ok(bearer) or self._ok(request.cookies.get(COOKIE, "")):
            await self.app(scope, receive, send)
            return
        if self._ok(request.query_params.get("token", "")):
            # a browser's first visit: remember the token in a cookie, drop it from the address
            rest = request.url.remove_query_params("token")
            back: Response = RedirectResponse(rest.path + (f"?{rest.query}" if rest.query else ""), status_code=303)
            back.set_cookie(COOKIE, self.token.decode(), httponly=True, samesite="strict")
        else:
            back = PlainTextResponse("a bearer token is required (open /?token=… once, or send Authorization: Bearer …)\n",
                                     status_code=401, headers={"WWW-Authenticate": "Bearer"})
        await back(scope, receive, send)


def inline_code(text: object) -> Any:
    """Escape, then turn `backticked` spans into <code> (one rule with render/postmortem.py)."""
    from logsleuth.render.postmortem import inline_code as code

    return code(str(text or ""))


@lru_cache(maxsize=1)
def _env() -> Any:
    from jinja2 import Environment, FileSystemLoader, select_autoescape

    from logsleuth.search.render import outcome_class

    env = Environment(loader=FileSystemLoader(TEMPLATES), autoescape=select_autoescape(default=True, default_for_string=True))
    env.filters["q"] = lambda v: quote(str(v or ""), safe="")
    env.filters["code"] = inline_code  # `backticked` commands as <code>, as in the HTML report
    env.filters["oc"] = lambda v: outcome_class(Outcome(v) if v in {o.value for o in Outcome} else None)
    env.globals["Outcome"] = Outcome
    return env


def page(name: str, status: int = 200, **ctx: Any) -> HTMLResponse:
    return HTMLResponse(_env().get_template(name).render(**ctx), status_code=status)


def as_json(obj: Any, status: int = 200) -> Response:
    from logsleuth import jsonout

    return Response(jsonout.dumps(obj, indent=False), status_code=status, media_type="application/json")


def create_app(db: Path, token: str | None = None, *, host: str = "127.0.0.1", allow_hosts: Sequence[str] = (),
               reasoning: bool = True) -> Any:
    """The application over the index at `db` (read on every request: no restart after `index`),
    behind the guard (Host allow-list, security headers, body cap, deadline) and the token.
    `reasoning=False` renders postmortems without the language model (faster, for tests)."""
    idx = Index(Path(db))
    routes = _page_routes(idx, reasoning) + _api_routes(idx)
    app: Any = Starlette(routes=routes, exception_handlers={Exception: _on_error, HTTPException: _on_http})
    if token:
        app = _Auth(app, token)
    return guard.Guard(app, allowed=guard.allowed_hosts(host, allow_hosts), wildcard=host in guard.WILDCARDS)


async def _query_of(request: Request) -> str:
    q = request.query_params.get("q", "")
    if request.method == "POST":  # a form's urlencoded body (guard.py caps it at 1 MB)
        from urllib.parse import parse_qs

        body = (await request.body()).decode("utf-8", "replace")
        q = (parse_qs(body, max_num_fields=20).get("q") or [q])[0]
    return clip_query(q)


def clip_query(q: str) -> str:
    """A query of at most MAX_QUERY characters: a long paste's head and tail."""
    return q if len(q) <= MAX_QUERY else q[:HEAD] + "\n" + q[-(MAX_QUERY - HEAD - 1):]


def _page_routes(idx: Index, reasoning: bool) -> list[Route]:
    def results_of(q: str) -> dict[str, Any]:
        if not q.strip():
            return {"groups": [], "q": q, "query": None, "advice": None}
        from logsleuth.search.advice import advice

        result = idx.search(q)
        groups = idx.groups(result)
        tip = advice(result.query.pattern, result.query.captures)
        return {"groups": groups, "q": q, "query": result.query, "advice": tip}

    async def home(request: Request) -> Response:
        from starlette.concurrency import run_in_threadpool

        q = await _query_of(request)
        return page("search.html.j2", **(await run_in_threadpool(results_of, q)), cut=len(q) >= MAX_QUERY)  # clipped

    async def results(request: Request) -> Response:
        from starlette.concurrency import run_in_threadpool

        q = await _query_of(request)
        return page("_results.html.j2", **(await run_in_threadpool(results_of, q)))

    def sessions_page(request: Request) -> Response:
        f = page_filters(request.query_params)
        return page("sessions.html.j2", sessions=idx.sessions(**f), f=f, categories=idx.categories())

    def session_page(request: Request) -> Response:
        s, src = request.query_params.get("session", ""), request.query_params.get("source", "")
        doc = idx.session(s, src)
        if doc is None:
            return page("missing.html.j2", 404, what="session")
        return page("session.html.j2", doc=doc, session=s, source=src)

    def report(request: Request) -> Response:
        s, src = request.query_params.get("session", ""), request.query_params.get("source", "")
        found = idx.source_of(s, src)
        if found is None:
            return page("missing.html.j2", 404, what="session")
        html, problem = postmortem(found[0], found[1], s, reasoning)
        if html is None:
            return page("missing.html.j2", 404, what="postmortem", problem=problem)
        return HTMLResponse(with_back_link(html, s, src))

    def fingerprint_page(request: Request) -> Response:
        doc = idx.fingerprint(request.path_params["pattern"], request.path_params["fp"])
        if doc is None:
            return page("missing.html.j2", 404, what="error fingerprint")
        return page("fingerprint.html.j2", doc=doc)

    async def script(request: Request) -> Response:
        return Response((STATIC / "search.js").read_bytes(), media_type="text/javascript",
                        headers={"Cache-Control": "max-age=300"})

    async def icon(request: Request) -> Response:
        return Response(ICON, media_type="image/svg+xml", headers={"Cache-Control": "max-age=86400"})

    return [
        Route("/", home, methods=["GET", "POST"]),
        Route("/favicon.ico", icon),
        Route("/search/results", results, methods=["GET", "POST"]),
        Route("/static/search.js", script),
        Route("/sessions", sessions_page),
        Route("/session", session_page),
        Route("/session/report", report),
        Route("/fp/{pattern}/{fp}", fingerprint_page),
    ]


def _api_routes(idx: Index) -> list[Route]:
    def api(fn: Callable[[Request], Any]) -> Callable[[Request], Response]:
        def run(request: Request) -> Response:
            try:
                got = fn(request)
            except BadParam as exc:
                return as_json({"error": str(exc), "parameter": exc.name, "valid": exc.valid}, 400)
            return got if isinstance(got, Response) else as_json(got)
        return run

    def api_search(request: Request) -> Any:
        q = clip_query(request.query_params.get("q", ""))
        if not q.strip():
            raise BadParam("q", "give the query as ?q=…")
        f = api_filters(request.query_params, idx.known_categories())
        return idx.search(q, limit=limit_of(request.query_params), category=f["category"] or None).to_dict()

    def api_sessions(request: Request) -> Any:
        rows = idx.sessions(**api_filters(request.query_params, idx.known_categories()))
        if "limit" in request.query_params:  # checked as /api/search checks it (limit=abc is a 400)
            rows = rows[:limit_of(request.query_params)]
        return {"sessions": rows}

    def api_session(request: Request) -> Any:
        doc = idx.session(request.query_params.get("session", ""), request.query_params.get("source", ""))
        return doc if doc is not None else as_json({"error": "no such session in the index"}, 404)

    def api_fingerprint(request: Request) -> Any:
        doc = idx.fingerprint(request.path_params["pattern"], request.path_params["fp"])
        return doc if doc is not None else as_json({"error": "no such error fingerprint in the index"}, 404)

    return [
        Route("/api/search", api(api_search)),
        Route("/api/sessions", api(api_sessions)),
        Route("/api/session", api(api_session)),
        Route("/api/fingerprint/{pattern}/{fp}", api(api_fingerprint)),
    ]


async def _on_http(request: Request, exc: Exception) -> Response:
    status = getattr(exc, "status_code", 500)
    if request.url.path.startswith("/api/"):
        return as_json({"error": "no such API route" if status == 404 else str(getattr(exc, "detail", ""))}, status)
    what = "page" if status == 404 else "request"
    return page("missing.html.j2", status, what=what, problem=f"{request.url.path}: {getattr(exc, 'detail', '')}")


async def _on_error(request: Request, exc: Exception) -> Response:
    if isinstance(exc, guard.BodyTooLarge):
        return PlainTextResponse(f"request body over {guard.MAX_BODY} bytes\n", status_code=413)
    msg = exc.one_line() if isinstance(exc, LogsleuthError) else "internal error"
    status = 503 if isinstance(exc, LogsleuthError) else 500
    if request.url.path.startswith("/api/"):
        return as_json({"error": msg}, status)
    return page("missing.html.j2", status, what="index", problem=msg)


def with_back_link(html: str, session: str, source: str) -> str:
    """The served postmortem, with a bar back to its session page and to search."""
    from html import escape

    href = f"/session?session={quote(session, safe='')}&amp;source={quote(source, safe='')}"
    bar = (f'<nav id="served" style="font:14px system-ui,sans-serif;padding:.4rem 1rem;background:#1d2b3a">'
           f'<a id="back" style="color:#cfe3ff" href="{href}">← session {escape(session)}</a> · '
           f'<a style="color:#cfe3ff" href="/">search</a></nav>')
    at = html.find("<body")
    end = html.find(">", at) + 1 if at >= 0 else 0
    return html[:end] + bar + html[end:]


@lru_cache(maxsize=16)
def postmortem(source: str, sha: str, session: str, reasoning: bool = True) -> tuple[str | None, str]:
    """The HTML postmortem of an indexed session, rendered from its source (masked), when the
    source is on this machine with the content that was indexed; else why not. Cached by the
    content hash: a re-indexed, changed transcript has another."""
    from logsleuth.index.files import content_hash

    path = Path(source)
    if not path.exists():
        return None, "its transcript is not on this machine (indexed elsewhere, or moved)"
    if sha and content_hash(path) != sha:
        return None, "its transcript changed since it was indexed: run `logsleuth index` again"
    from logsleuth.analysis import analyze
    from logsleuth.render import postmortem as pm

    return pm.render_html(analyze(str(path), session=session, with_reasoning=reasoning), redact=True), ""
