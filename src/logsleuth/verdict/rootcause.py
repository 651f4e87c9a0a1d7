"""The root cause: the underlying condition that explains the chain, never a symptom's category.

Where the sentence comes from, in order of trust: the agent's own statement of the cause, weighed
sentence by sentence (verdict.agentcause: what it says, under which heading, which facts of the
failures and fixes it names); the condition the failure's
category names (patterns/_meta/causes.yaml) with the failure's own telling line; what the fix
changed, for a category that only says that something failed; else none is named ("unknown")."""

from __future__ import annotations

import re
from collections.abc import Sequence

from logsleuth.clip import short
from logsleuth.link.resolution import typed_probe_missing
from logsleuth.model import Action, Episode
from logsleuth.verdict.agentcause import best, sentences
from logsleuth.verdict.context import Context, episodes_by_id
from logsleuth.verdict.model import FailureVerdict, RootCause

# a version, a code span, or a word; `_tokens` keeps the words that hold a digit or one of _./-
# (one repeat per alternative: the audit found the old word shape's two repeats quadratic)
_TOKEN = re.compile(r"\b\d+\.\d[\w+.-]*|`[^`\n]{1,60}`|\b[A-Za-z_][\w./-]*")  # `x` too: else its closing quote opens a false span
_TELLING = re.compile(r"[_./\d-]")
_CAMEL = re.compile(r"[a-z][A-Z]|[A-Z]{2}[a-z]")  # cudaDeviceProp, clockRate, HTMLParser: names, not words


def _tokens(text: str) -> set[str]:
    """The distinctive tokens of a text, lower-cased (versions, code spans, dotted/underscored names)."""
    out = set()
    for raw in _TOKEN.findall(text):
        t = raw.strip("`").rstrip(".-/").lower() if not raw.startswith("`") else raw.strip("`").lower()
        if raw.startswith("`") and len(t) < 2:
            continue
        if raw.startswith("`") or t[:1].isdigit() or _TELLING.search(t) or _CAMEL.search(raw):
            out.add(t)
    return out
_STOP = frozenset({"e.g", "i.e", "etc", "vs"})


def decide_root_cause(ctx: Context, failures: Sequence[FailureVerdict]) -> RootCause:
    """The root cause of the session (kind "unknown", text None when none can be named)."""
    ep = _beyond_probes(ctx, episodes_by_id(ctx.graph).get(ctx.graph.root_cause or ""), failures)
    if ep is None:
        return RootCause(None, "unknown", None)
    title = ctx.title(ep)
    implied = _implied(ctx, ep)
    kind = implied[0] if implied else ctx.causes.get(ep.category) or "unknown"
    specific = kind not in ("symptom", "unknown")
    # a category that knows its condition is outweighed only by a surer sentence (sglang sample: a
    # status line's "X missing → did Y" at 5 displaced the ptxas skew the category names)
    said = _agent_cause(ctx, _facts(ctx, ctx.graph.episodes, failures), 6 if specific else 4)
    if said is not None:
        seq, text = said
        return RootCause(text, kind if specific else "unknown", ep.id, (seq, ep.occurrences[0]), "agent", title)
    if specific:
        return RootCause(_condition(ctx, ep, implied[1] if implied else None), kind, ep.id, (ep.occurrences[0],),
                         "knowledge", title)
    fixed = _from_fix(ctx, ep, failures)
    if fixed is not None:
        return RootCause(fixed[0], fixed[1], ep.id, (ep.occurrences[0],), "fix", title)
    return RootCause(None, "unknown", ep.id, (ep.occurrences[0],), "none", title)


def _implied(ctx: Context, ep: Episode) -> tuple[str, str] | None:
    """(kind, condition) a fact of the session implies for this failure (causes.yaml `when`)."""
    for package, has, kind, condition in ctx.when.get(ep.category, ()):
        if has in ctx.facts.get(package, ""):
            return kind, condition
    return None


def _typed_probe(ctx: Context, ep: Episode) -> bool:
    """A missing program the agent itself typed to look at something (link.resolution's rule)."""
    call = next((r for r in ctx.graph.runs if r.result_seq == ep.occurrences[0] or r.seq == ep.occurrences[0]), None)
    name = next((v for k, v in ep.first.captures.items() if k in ("command", "program") and v), "").rsplit("/", 1)[-1]
    return call is not None and name not in ctx.goal and typed_probe_missing(ep.first, call)


def _beyond_probes(ctx: Context, ep: Episode | None, failures: Sequence[FailureVerdict]) -> Episode | None:
    """The linker's root episode, unless it is a typed probe's missing program: then the last
    failure still open, else the first, among the others."""
    if ep is None or not _typed_probe(ctx, ep):
        return ep
    others = [e for e in ctx.graph.episodes if e.id != ep.id and not _typed_probe(ctx, e)]
    if not others:
        return ep
    open_ids = {f.id for f in failures if not f.fixed}
    still = [e for e in others if e.id in open_ids]
    return max(still, key=lambda e: e.occurrences[-1]) if still else others[0]


def _condition(ctx: Context, ep: Episode, template: str | None = None) -> str:
    """The category's condition sentence, filled from the failure's captures and the session's
    facts (`{nvcc}`, `{torch}`, `{arch}`); a `[…]` part whose value is unknown is left out."""
    values = {**{k: str(v) for k, v in ep.first.captures.items() if v}, **ctx.facts}
    values["line"] = f"`{telling_line(ep)}`"
    cat = template or ctx.conditions.get(ep.category, "") or "{line}"
    text = _OPTIONAL.sub(lambda m: m.group(1) if all(n in values for n in _FIELD.findall(m.group(1))) else "", cat)
    text = _FIELD.sub(lambda m: values.get(m.group(1), m.group(0)), text)
    return text[:1].upper() + text[1:]


_OPTIONAL = re.compile(r"\[([^\[\]]*)\]")
_FIELD = re.compile(r"\{([\w-]+)\}")


def telling_line(ep: Episode) -> str:
    """The failure's most telling line: the first that reads as an error, else its first line."""
    lines = [ln.strip() for ln in ep.first.text.splitlines() if ln.strip()]
    hit = next((ln for ln in lines if _TELLS.search(ln) and not _BARE_HEAD.search(ln)),
               lines[0] if lines else ep.category)
    bare = _LOCATION.sub("", hit)  # `path/file.cuh:88:8: error: …` → `error: …`: the path is noise here
    return short(bare if len(bare) >= 20 else hit, 160)


_TELLS = re.compile(r"error|fatal|not found|unsupported|cannot|can't|no such|failed|mismatch|not compatible|incompatible|"
                    r"insufficient|unable|invalid|denied|killed|timed out|out of memory|not defined|undefined", re.I)
_BARE_HEAD = re.compile(r"(?:Warning|Error|Traceback \(most recent call last\)):\s*$")  # a heading whose message is the next line
_LOCATION = re.compile(r"^[^\s:]*[./][^\s:]*:\d+(?::\d+)?:\s*")  # a file's path (host:pid:tid is not one)


def _agent_cause(ctx: Context, facts: set[str], least: int) -> tuple[int, str] | None:
    """(seq, sentence) of the cause the agent states after the first failure, weighed sentence by
    sentence (verdict.agentcause), when it is sure enough."""
    first = min(ep.occurrences[0] for ep in ctx.graph.episodes)
    end = ctx.graph.runs[-1].end if ctx.graph.runs else -1
    said = " ".join(f.text for ep in ctx.graph.episodes for f in ep.findings[:2]).lower()
    return best(((s, _overlap(s.text, facts), _echoes(s.text, said)) for s in sentences(ctx.prose(after=first), end)), least)


def _echoes(sentence: str, failure_text: str) -> bool:
    """The sentence mostly repeats the failures' own words: it quotes the symptom."""
    words = _WORDS.findall(sentence.lower())
    return len(words) >= 3 and sum(w in failure_text for w in words) >= 0.6 * len(words)


_WORDS = re.compile(r"[a-z_][a-z0-9_]{2,}")


def _overlap(sentence: str, facts: set[str]) -> int:
    """How many of the sentence's tokens are facts of the failure (or hold one)."""
    return sum(1 for m in _tokens(sentence)
               if m in facts or any(m in f or f in m for f in facts if len(f) >= 4 and len(m) >= 4))


def _facts(ctx: Context, episodes: Sequence[Episode], failures: Sequence[FailureVerdict]) -> set[str]:
    """Distinctive tokens of the failures' text and of what their fixes changed (lower-cased)."""
    text = " ".join(f.text for ep in episodes for f in ep.findings[:2])
    text += " " + " ".join(f"{c.subject} {c.text}" for f in failures for c in f.fix)
    # the versions the session establishes (`torch` 2.13.0+cpu): the stuff a root cause is made of
    text += " " + " ".join(f"{k} {v}" for k, v in ctx.facts.items())
    return {t for t in _tokens(text) if len(t) >= 3} - _STOP


_PIN = re.compile(r"\b([A-Za-z][\w.-]*)\s*(==|~=|<=|>=|<|>|!=)\s*([0-9][\w.*]*)")


def _from_fix(ctx: Context, ep: Episode, failures: Sequence[FailureVerdict]) -> tuple[str, str] | None:
    """For a symptom's category: the condition the fix removed — a requirement pinned too old
    (the edit raised its pin), a package at the wrong version (the fix installed another) — or,
    when the fix says no more, what it changed, stated as what the session shows."""
    fv = next((f for f in failures if f.id == ep.id), None)
    if fv is None or not fv.fix:
        return None
    line = telling_line(ep)
    for c in fv.fix:
        a = next((x for x in ctx.actions if x.seq == c.seq and x.subject == c.subject), None)
        raised = _raised_pin(a.removed, a.added) if a is not None and c.kind == "file" else None
        if raised is not None:
            name, old, new = raised
            return (f"The requirement `{name}{old}` in `{c.subject}` was too old for this environment: "
                    f"`{line}` stopped once it was raised to `{name}{new}`.", "requirement too old")
        if a is not None and c.kind == "package" and a.previous:
            return f"`{c.subject}` was at {a.previous}, the wrong version for this code: `{line}` stopped once {c.text}.", "version skew"
        setting = _changed_setting(a) if a is not None and c.kind == "file" and _BUILD_FILE.search(c.subject) else None
        if setting is not None:
            old, new = setting
            return (f"The build setting `{old}` in `{c.subject.rsplit('/', 1)[-1]}` did not suit this toolchain: "
                    f"`{line}` stopped once it became `{new}`.", "config error")
    # what the fix did, and no more: "not named in the session" was judged false on every held-out
    # session where it was said (the agent had named the cause in words no rule reads)
    return f"`{line}` went away with this change: {fv.fix[0].text}.", "unknown"


def _raised_pin(removed: str, added: str) -> tuple[str, str, str] | None:
    """(name, old spec, new spec) when an edit changed a requirement's version spec upwards."""
    old = {m.group(1).lower(): (m.group(2) + m.group(3)) for m in _PIN.finditer(removed or "")}
    for m in _PIN.finditer(added or ""):
        name = m.group(1).lower()
        if name in old and old[name] != m.group(2) + m.group(3) and not old[name].startswith("<"):
            return m.group(1), old[name], m.group(2) + m.group(3)
    return None


_BUILD_FILE = re.compile(r"(?:^|/)(?:Makefile|GNUmakefile|CMakeLists\.txt|[\w.-]+\.cmake|setup\.py|setup\.cfg|pyproject\.toml|meson\.build)$")
_WORD = re.compile(r"\S+")


def _changed_setting(a: Action) -> tuple[str, str] | None:
    """(old, new) when an edit of a build file changed one word of one line: a flag, a path, a pin."""
    old_lines = [ln.strip().removeprefix("^").removesuffix("$") for ln in (a.removed or "").splitlines() if ln.strip()]
    new_lines = [ln.strip() for ln in (a.added or "").splitlines() if ln.strip()]
    if len(old_lines) != 1 or len(new_lines) != 1:
        return None
    old_w, new_w = _WORD.findall(old_lines[0]), _WORD.findall(new_lines[0])
    gone = [w for w in old_w if w not in new_w]
    came = [w for w in new_w if w not in old_w]
    if len(gone) == 1 and len(came) == 1:
        return gone[0], came[0]
    if not gone and len(came) == 1:
        return old_lines[0].strip()[:60], came[0]
    return None
