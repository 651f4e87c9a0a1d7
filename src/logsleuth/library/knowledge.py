"""Version facts from `patterns/_meta` and the jinja2 filters that explanations use.

Filters: `cuda_for_ptx` (PTX ISA -> CUDA release), `ptx_for_cuda`, `driver_for_cuda` (minimum
driver), `arch_for_sm` (sm -> architecture name), `gpus_for_sm`. An unknown value renders as "?",
so an explanation never fails on a version the tables do not know yet.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Mapping
from functools import lru_cache
from typing import Any

from logsleuth.library.pattern import Knowledge

UNKNOWN = "?"
_NUM = re.compile(r"\d+(?:\.\d+)*")


MAX_DIGITS = 12  # a version or architecture part is short; a capture of thousands of digits is not one


def _version_key(v: str) -> tuple[int, ...]:
    # bounded: int() refuses strings past 4300 digits, and a longer part is no version anyway
    return tuple(int(x[:MAX_DIGITS]) for x in v.split(".") if x.isdigit())


def _norm_version(value: Any) -> str:
    """'13.2.1' -> '13.2.1'; 'CUDA 12.8' -> '12.8'; '12080' (cuDriverGetVersion) -> '12.8'."""
    m = _NUM.search(str(value or ""))
    if not m:
        return ""
    v = m.group(0)
    if v.isdigit() and len(v) == 5:  # major*1000 + minor*10
        n = int(v)
        return f"{n // 1000}.{(n % 1000) // 10}"
    return v


def _same_release(want: str, have: str) -> bool:
    """'13.2' matches '13.2' and '13.2.1'; '13' matches any 13.x."""
    w, h = _version_key(want), _version_key(have)
    n = min(len(w), len(h))
    return n > 0 and w[:n] == h[:n]


def _norm_sm(value: Any) -> str:
    """'sm_120a' / 'compute_90' / '120' / '12.0' -> '120' / '90' / '120' / '120'."""
    s = str(value or "").strip().lower()
    m = re.search(r"(\d+)\.(\d+)", s)
    if m:
        return f"{int(m.group(1)[:MAX_DIGITS])}{m.group(2)[:MAX_DIGITS]}"
    m = re.search(r"(\d+)", s)
    return m.group(1) if m else ""


class Facts:
    """Lookups over the knowledge tables."""

    def __init__(self, knowledge: Knowledge):
        self.k = knowledge

    def cuda_for_ptx(self, ptx: Any) -> str:
        want = _norm_version(ptx)
        for row in self.k.ptx_isa:
            if want and _norm_version(row.get("ptx")) == want:
                return str(row.get("cuda", UNKNOWN))
        return UNKNOWN

    def ptx_for_cuda(self, cuda: Any) -> str:
        want = _norm_version(cuda)
        best: tuple[tuple[int, ...], str] | None = None
        for row in self.k.ptx_isa:
            have = _norm_version(row.get("cuda"))
            if want and have and _same_release(want, have):
                ptx = _norm_version(row.get("ptx"))
                key = _version_key(ptx)
                if best is None or key > best[0]:
                    best = (key, ptx)
        return best[1] if best else UNKNOWN

    def driver_for_cuda(self, cuda: Any) -> str:
        want = _norm_version(cuda)
        if not want:
            return UNKNOWN
        for table in (self.k.cuda_driver, self.k.ptx_isa):
            for row in table:
                if _same_release(want, _norm_version(row.get("cuda"))):
                    drv = _driver_of(row)
                    if drv:
                        return drv
        return UNKNOWN

    def _sm_row(self, sm: Any) -> Mapping[str, Any] | None:
        want = _norm_sm(sm)
        for row in self.k.compute_capability:
            if want and (_norm_sm(row.get("sm")) == want or _norm_sm(row.get("cc")) == want):
                return row
        return None

    def arch_for_sm(self, sm: Any) -> str:
        row = self._sm_row(sm)
        return str(row.get("arch", UNKNOWN)) if row else UNKNOWN

    def gpus_for_sm(self, sm: Any) -> str:
        row = self._sm_row(sm)
        gpus = row.get("gpus") if row else None
        if not gpus:
            return UNKNOWN
        return ", ".join(str(g) for g in gpus) if isinstance(gpus, list) else str(gpus)

    def filters(self) -> dict[str, Callable[[Any], str]]:
        return {
            "cuda_for_ptx": self.cuda_for_ptx,
            "ptx_for_cuda": self.ptx_for_cuda,
            "driver_for_cuda": self.driver_for_cuda,
            "arch_for_sm": self.arch_for_sm,
            "gpus_for_sm": self.gpus_for_sm,
        }


def _driver_of(row: Mapping[str, Any]) -> str:
    for key in ("min_driver", "min_driver_linux", "driver", "driver_linux"):
        if row.get(key):
            return str(row[key])
    for key, value in row.items():
        if "driver" in str(key) and value:
            return str(value)
    return ""


FILTER_NAMES = ("cuda_for_ptx", "ptx_for_cuda", "driver_for_cuda", "arch_for_sm", "gpus_for_sm")


class Renderer:
    """Renders explain/fixes templates in a sandbox; missing captures render empty.

    Compiled templates are cached per source string (a library has a few hundred at most).
    """

    def __init__(self, knowledge: Knowledge):
        from jinja2 import FunctionLoader
        from jinja2.sandbox import SandboxedEnvironment

        from logsleuth.library.templatecache import disk_cache

        # a template is named by its source's hash, so that jinja2's bytecode cache can keep it
        self._sources: dict[str, str] = {}
        self.env = SandboxedEnvironment(autoescape=False, keep_trailing_newline=False,
                                        loader=FunctionLoader(self._load), cache_size=0,
                                        bytecode_cache=disk_cache("knowledge", ("sandboxed", False, False)))
        self.env.filters.update(Facts(knowledge).filters())
        self._compiled = lru_cache(maxsize=2048)(self._template)

    def _load(self, name: str) -> tuple[str, None, Callable[[], bool]]:
        return self._sources[name], None, lambda: True

    def _template(self, source: str) -> Any:
        """The compiled template of `source` (from the disk cache when there); a broken one
        raises what `from_string` raises, so warnings read as they did."""
        from jinja2 import TemplateSyntaxError

        name = hashlib.sha256(source.encode()).hexdigest()
        self._sources[name] = source
        try:
            return self.env.get_template(name)
        except TemplateSyntaxError:
            return self.env.from_string(source)

    def render(self, source: str, captures: Mapping[str, str], groups: tuple[str, ...] = ()) -> str:
        """Render one template; groups that did not take part in the match render as "".

        Raises jinja2's TemplateError subclasses on a broken template (callers turn that into
        a warning); the sandbox blocks unsafe attribute access.
        """
        if not source:
            return ""
        if "{" not in source:
            return source.strip()
        context = {g: "" for g in groups}
        context.update(captures)
        return str(self._compiled(source).render(**context)).strip()

    def problems(self, source: str, groups: tuple[str, ...]) -> list[str]:
        """Syntax errors, unknown filters and variables that no capture group provides."""
        from jinja2 import TemplateSyntaxError, meta

        try:
            # one code-generation pass: it also rejects unknown filters (TemplateAssertionError)
            names = meta.find_undeclared_variables(self.env.parse(source))
        except TemplateSyntaxError as exc:
            return [f"template line {exc.lineno}: {exc.message}"]
        except Exception as exc:  # anything else the parser/generator raises
            return [f"template: {exc}"]
        unknown = sorted(names - set(groups) - set(self.env.globals))
        return [f"template uses {{{{ {v} }}}} but the regex has no group named {v!r}" for v in unknown]


def empty_renderer() -> Renderer:
    return Renderer(Knowledge())
