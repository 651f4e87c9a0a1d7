"""`logsleuth serve`: a small read-only web application over an index, for a team.

Starlette (ASGI) with jinja2 templates (autoescaped: nothing from a transcript reaches a page
unescaped) and a JSON API under /api/ whose shapes are the command line's (`search -O json`,
`sessions -O json`). Pages work without JavaScript: the search page renders its results on the
server (GET `/?q=`, POST for a long pasted traceback); the script only makes it search as you type.

Nothing slow runs on the event loop. An answer (a page, an API document) is a function of the
index generation and the request: it is made once in a small thread pool and kept (cache.py),
so 200 people searching are answered from memory, side by side. A postmortem is rendered in a
worker process at a lower priority, and kept (postmortems.py). guard.py checks the Host and sets the security headers; with a token (`--token` or
$LOGSLEUTH_TOKEN) every request must carry it: an `Authorization: Bearer` header, or the cookie
that opening `/?token=…` once sets for a browser.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from concurrent.futures.process import BrokenProcessPool
from contextlib import asynccontextmanager
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
from logsleuth.serve.cache import Answers
from logsleuth.serve.data import Index
from logsleuth.serve.params import BadParam, api_filters, limit_of, page_filters
from logsleuth.serve.postmortems import Busy, Postmortems

COOKIE = "logsleuth_token"
ICON = b'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><circle cx="7" cy="7" r="5" fill="none" stroke="#1d2b3a" stroke-width="2"/></svg>'
TEMPLATES = Path(__file__).resolve().parent / "templates"
STATIC = Path(__file__).resolve().parent / "static"
MAX_QUERY = 4000  # characters of a query (a pasted traceback) that are searched: its head and its tail
LINKABLE = 1500  # characters of a query the form's POST turns into a `/?q=` link (search.js's LONG)
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
               reasoning: bool = True, postmortems: Postmortems | None = None) -> Any:
    """The application over the index at `db` (each answer kept for the index generation it was
    computed from: no restart after `index`), behind the guard (Host allow-list, security headers,
    body cap, deadline) and the token. `reasoning=False` renders postmortems without the
    language model (faster, for tests); `postmortems`: how they are rendered (a worker pool)."""
    idx = Index(Path(db))
    answers = Answers(idx.db)
    renders = postmortems if postmortems is not None else Postmortems()
    routes = _page_routes(idx, answers, renders, reasoning) + _api_routes(idx, answers)
    app: Any = Starlette(routes=routes, exception_handlers={Exception: _on_error, HTTPException: _on_http},
                         lifespan=_lifespan(idx, answers, renders))
    if token:
        app = _Auth(app, token)
    return guard.Guard(app, allowed=guard.allowed_hosts(host, allow_hosts), wildcard=host in guard.WILDCARDS)


def _lifespan(idx: Index, answers: Answers, renders: Postmortems) -> Any:
    @asynccontextmanager
    async def lifespan(app: Any) -> AsyncIterator[None]:
        # start the postmortem workers and read the index now, not in the first visitor's request
        renders.start()
        asyncio.get_running_loop().run_in_executor(answers.pool, _warm, idx)
        try:
            yield
        finally:
            renders.close()
            answers.close()

    return lifespan


def _warm(idx: Index) -> None:
    """What the first requests would otherwise wait for: imports, the templates, the index's
    sessions, a full-text and a pattern search with its advice (the library's explanations)."""
    from logsleuth.search.advice import advice

    for name in sorted(p.name for p in TEMPLATES.glob("*.j2")):
        _env().get_template(name)
    inline_code("`warm`")  # the `code` filter's module (render.postmortem) took a first search page 1.2 s
    try:
        idx.known_categories()
        idx.groups(idx.search("error"))
        result = idx.search("CUDA out of memory. Tried to allocate 2.00 GiB")
        idx.groups(result)
        advice(result.query.pattern, result.query.captures)
    except LogsleuthError:  # an index being rewritten: the first request reads it
        pass


def key_of(request: Request) -> tuple[str, str]:
    """What an answer depends on in a request: its path and query (hashed when long)."""
    query = request.scope.get("query_string", b"")
    text = query.decode("latin-1") if len(query) <= 512 else hashlib.blake2b(query, digest_size=16).hexdigest()
    return request.url.path, text


def kept(response: Response) -> bool:
    return response.status_code < 500  # a 503 (index changed while read) is tried again


def cached(answers: Answers, make: Callable[[Request], Response]) -> Callable[[Request], Awaitable[Response]]:
    """An endpoint answering from `answers`, made by `make` in a worker thread when missing."""
    async def endpoint(request: Request) -> Response:
        return await answers.get(key_of(request), lambda: make(request), kept)  # type: ignore[no-any-return]

    return endpoint


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


def _page_routes(idx: Index, answers: Answers, renders: Postmortems, reasoning: bool) -> list[Route]:
    def results_of(q: str) -> dict[str, Any]:
        if not q.strip():
            return {"groups": [], "q": q, "query": None, "advice": None}
        from logsleuth.search.advice import advice

        result = idx.search(q)
        groups = idx.groups(result)
        tip = advice(result.query.pattern, result.query.captures)
        return {"groups": groups, "q": q, "query": result.query, "advice": tip}

    def searched(name: str, q: str) -> Callable[[], Response]:
        return lambda: page(name, **results_of(q), cut=len(q) >= MAX_QUERY)  # clipped

    async def home(request: Request) -> Response:
        q = await _query_of(request)
        if request.method == "POST" and len(q) <= LINKABLE:  # the form posts: a short query gets its link
            return RedirectResponse("/?q=" + quote(q, safe="") if q else "/", status_code=303)
        return await answers.get(("home", _digest(q)), searched("search.html.j2", q), kept)  # type: ignore[no-any-return]

    async def results(request: Request) -> Response:
        q = await _query_of(request)
        return await answers.get(("results", _digest(q)), searched("_results.html.j2", q), kept)  # type: ignore[no-any-return]

    def sessions_page(request: Request) -> Response:
        f = page_filters(request.query_params)
        return page("sessions.html.j2", sessions=idx.sessions(**f), f=f, categories=idx.categories())

    def session_page(request: Request) -> Response:
        s, src = request.query_params.get("session", ""), request.query_params.get("source", "")
        doc = idx.session(s, src)
        if doc is None:
            return page("missing.html.j2", 404, what="session")
        return page("session.html.j2", doc=doc, session=s, source=src)

    async def report(request: Request) -> Response:
        s, src = request.query_params.get("session", ""), request.query_params.get("source", "")
        found = await answers.get(("source", s, src), lambda: idx.source_of(s, src))
        if found is None:
            return page("missing.html.j2", 404, what="session")
        try:
            html, problem = await renders.get((answers.current(), s, src), found[0], found[1], s, reasoning)
        except (Busy, BrokenProcessPool) as exc:
            why = exc.one_line() if isinstance(exc, Busy) else "a postmortem worker stopped"
            return page("missing.html.j2", 503, what="postmortem", problem=f"{why}: retry in a few seconds")
        if html is None:
            return page("missing.html.j2", 404, what="postmortem", problem=problem)
        return HTMLResponse(with_back_link(html, s, src))

    def fingerprint_page(request: Request) -> Response:
        doc = idx.fingerprint(request.path_params["pattern"], request.path_params["fp"])
        if doc is None:
            return page("missing.html.j2", 404, what="error fingerprint")
        return page("fingerprint.html.j2", doc=doc)

    script_js = (STATIC / "search.js").read_bytes()

    async def script(request: Request) -> Response:
        return Response(script_js, media_type="text/javascript", headers={"Cache-Control": "max-age=300"})

    async def icon(request: Request) -> Response:
        return Response(ICON, media_type="image/svg+xml", headers={"Cache-Control": "max-age=86400"})

    return [
        Route("/", home, methods=["GET", "POST"]),
        Route("/favicon.ico", icon),
        Route("/search/results", results, methods=["GET", "POST"]),
        Route("/static/search.js", script),
        Route("/sessions", cached(answers, sessions_page)),
        Route("/session", cached(answers, session_page)),
        Route("/session/report", report),
        Route("/fp/{pattern}/{fp}", cached(answers, fingerprint_page)),
    ]


def _digest(q: str) -> str:
    return q if len(q) <= 512 else hashlib.blake2b(q.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


def _api_routes(idx: Index, answers: Answers) -> list[Route]:
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
        Route("/api/search", cached(answers, api(api_search))),
        Route("/api/sessions", cached(answers, api(api_sessions))),
        Route("/api/session", cached(answers, api(api_session))),
        Route("/api/fingerprint/{pattern}/{fp}", cached(answers, api(api_fingerprint))),
    ]


async def _on_http(request: Request, exc: Exception) -> Response:
    status = getattr(exc, "status_code", 500)
    if request.url.path.startswith("/api/"):
        return as_json({"error": "no such API route" if status == 404 else str(getattr(exc, "detail", ""))}, status)
    what = "page" if status == 404 else "request"
    return page("missing.html.j2", status, what=what, problem=f"{request.url.path}: {getattr(exc, 'detail', '')}")


async def _on_error(request: Request, exc: Exception) -> Response:
    if isinstance(exc, guard.BodyTooLarge):
        return PlainTextResponse(f"request body over {guard.MAX_BODY} bytes\n", status_code=413,
                                 headers={"connection": "close"})  # the rest of the body is not read
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
