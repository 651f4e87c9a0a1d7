"""The user's constraints, read from the request, against what the session did.

"Don't touch torch", "keep sm_60 in the architectures", "the versions in requirements.txt are
locked … don't install other versions of those packages": a goal reached by bending such a rule is
worked around, not resolved (the change that bent it is a change of approach), and a failure whose
only ways out break one is a catch-22 of one member, the trap between the goal and the rules.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import polars as pl

from logsleuth.enums import PACKAGE_CHANGES
from logsleuth.model import Action, ActionKind, Catch22, Episode

# A clause that keeps something as it is, or rules something out.
# "I can't figure out why", "I don't know what changed": the user's puzzlement, not a rule
# (heldout5 depbump: the request's history sentence was read as protecting requirements.txt)
_PUZZLED = r"(?!\s+(?:figure|know|understand|see|tell|work out|find|explain|think|remember|believe|seem|reproduce)\b)"
_RULE = re.compile(
    rf"\b(don'?t{_PUZZLED}|do not{_PUZZLED}|never|must not|mustn'?t|should ?n[o']t|can'?t{_PUZZLED}|cannot{_PUZZLED}|"
    r"without|no (re)?install\w*|"
    r"no (upgrad|downgrad|chang|touch|modif|edit|remov)\w*|keep|leave|preserve|retain|locked|frozen|"
    r"(must|has to|have to|needs? to) (stay|remain)|not allowed|off[- ]limits|(touch|chang|modif|edit)\w* nothing)\b",
    re.I,
)
_CLAUSE_SPLIT = re.compile(r"(?<=[.;!?])\s+|\s+[—–]\s+|\s+-\s+|,\s+(?=(?:and |but |so |or )?(?:don|do not|keep|no |never|"
                           r"without|leave|i don|we don|it'?s )\b)", re.I)
_FILE = re.compile(r"(?<![\w/.-])((?:[\w.-]+/)*(?:[\w.-]+\.(?:txt|toml|cfg|ini|json|ya?ml|lock|py|cu|cuh|h|hpp|cpp|cc|c|in)|"
                   r"(?:GNU)?[Mm]akefile|Dockerfile))\b")
_FOLDER = re.compile(r"(?<![\w/.-])(/?(?:[A-Za-z_][\w.-]*/)+)(?=[\s,.;:)`'\"]|$)")  # `vendor/`, `third_party/nvq/`
_ARCH = re.compile(r"\b(?:sm|compute|lto)_(\d{2,3}[af]?)\b", re.I)
# The object of a verb of change: `touch torch`, `reinstall numpy`, `upgrade the driver`.
_OBJECT = re.compile(
    r"\b(?:touch|chang|modif|edit|upgrad|downgrad|reinstall|install|remov|delet|bump|updat|drop|replac|keep|leav|"
    r"preserv|retain)\w*\s+(?:(?:the|any|our|my|those|these|that|this|its|in|of)\s+)*`?([A-Za-z][\w./+-]*"
    r"(?:\s+[A-Za-z][\w/+-]*)?)|\b(?:stay|remain|stick)\s+(?:on|with|to)\s+(?:the\s+)?`?([A-Za-z][\w./+-]*)",
    re.I,
)
# Words that say nothing about what is protected.
_VAGUE = frozenset(
    ["a", "an", "the", "any", "other", "another", "new", "it", "its", "them", "that", "this", "those", "these", "one", "ones", "anything", "something", "everything", "thing", "things", "version", "versions", "pin", "pins", "package", "packages", "dependency", "dependencies", "file", "files", "code", "setup", "here", "there", "and", "or", "to", "of", "in", "on", "for", "with", "so", "in", "venv", "machine", "system", "way", "from", "as", "at", "by", "into", "onto", "exactly", "alone", "is", "are", "be", "was",
     "were", "get", "gets", "just", "only", "all", "same", "else", "under", "inside", "within", "below"]
)


def _object_word(w: str) -> bool:
    """A word of what a rule protects: not a function word, not a verb form (`modified or replaced`)."""
    return w not in _VAGUE and not re.fullmatch(r"[a-z]+(ed|ing)", w)
_PIN = re.compile(r"^\s*(?:\d+\s*[→:\t|]\s*)?([A-Za-z0-9][A-Za-z0-9._-]*)\s*+(?:\[[^\]]*\])?\s*(===?|~=|>=|<=)\s*([^\s;#,]+)",
                  re.M)
_PINNED_LIST = re.compile(r"""["']([A-Za-z0-9][A-Za-z0-9._-]*)\s*+(?:\[[^\]]*\])?\s*(===?)\s*([^\s"';,]+)["']""")
# The agent saying that the way out goes against the request.
_BLOCKED = re.compile(
    r"\b((without|would mean|would require|requires?|means?) (breaking|violating|going against|giving up|dropping|"
    r"changing) (one of |either of |both of |any of )?(your|the|those) (constraints?|rules|requirements|conditions)|"
    r"(goes|go|going) against (something|what|one of the things) you (asked|said|wanted|required)|"
    r"(both|either|all|one) of (your|the) (constraints|rules|requirements|conditions)|"
    r"with (both of )?(your|the|these) (constraints|rules|requirements) in place|"
    r"(you said|you asked|you've said|you told me) (you )?(don'?t|do not|not to|to keep|to leave|that)|"
    r"(ruled out|excluded|forbidden|not allowed|off[- ]limits) by (your|the) (request|constraints?|rules|requirements))",
    re.I,
)


@dataclass(frozen=True, slots=True)
class Constraint:
    """One rule of the request: its clause as written and what it protects (lower-cased names:
    packages, files, arches as `arch:NN`, other nouns)."""

    clause: str
    subjects: tuple[str, ...]
    files: tuple[str, ...]
    label: str = ""  # what it protects, as the user wrote it (`sm_60`, `CUDA kernel`)
    # files named only as the place that must keep the protected names ("keep types-requests in
    # requirements.txt"): an edit there breaks the rule only by taking one of them out
    holders: tuple[str, ...] = ()


def request_text(events: pl.DataFrame) -> str:
    """The user's first message (the harness's own text is not the user's)."""
    users = events.filter((pl.col("role").cast(pl.Utf8) == "user") & (pl.col("kind").cast(pl.Utf8) == "text"))
    return str(users["text"][0] or "")[:4000] if users.height else ""


_ASKS_WHY = re.compile(r"\b(?:find out|figure out|work out|tell me|explain|diagnose|investigate|understand|look into)\b[^.?!\n]{0,40}?"
                       r"\b(?:why|what(?:'s| is)? (?:going on|wrong|happening)|the cause|the reason)\b", re.I)
_NO_CHANGE = re.compile(r"\b(?:don'?t|do not|no need to|without) (?:change|edit|fix|modify|touch)(?:ing)? (?:anything|any\b|the code|it yet)|"
                        r"\b(?:change|edit|fix|touch) nothing\b|\bno (?:edits|changes)\b|\bdon'?t (?:change|fix|edit) anything yet\b|"
                        r"\bbefore (?:we|I) (?:touch|change|fix)\b", re.I)


def diagnosis_only(request: str) -> bool:
    """The request asks why something fails and that nothing be changed ("find out why … — don't
    change anything yet"): its goal is an explanation, not a pass."""
    return bool(_ASKS_WHY.search(request)) and bool(_NO_CHANGE.search(request))


# "it has to keep working", "must still pass": a demand on behaviour (a goal), not a file kept as it is
_BEHAVIOUR = re.compile(r"\b(?:keep|kept) (?:on )?(?:working|running|passing|building|importing)\b|"
                        r"\b(?:must|has to|have to|needs? to|should) (?:still )?(?:work|run|pass|build|import)\b", re.I)


def read_constraints(request: str) -> tuple[Constraint, ...]:
    """The rules of a request, clause by clause (a clause that only asks that something keeps
    working is a goal: the held-out statshadow's edit of the script "it has to keep working" was
    called a broken rule)."""
    out = []
    for clause in _CLAUSE_SPLIT.split(request):
        if not clause or not _RULE.search(_BEHAVIOUR.sub(" ", clause)):
            continue
        files = tuple(dict.fromkeys(m.lower() for m in _FILE.findall(clause)))
        subjects: list[str] = []
        labels: list[str] = [f"sm_{n.lower()}" for n in _ARCH.findall(clause)]
        for m in _OBJECT.finditer(clause):
            phrase = m.group(1) or m.group(2)
            words = [w for w in _words(phrase) if _object_word(w)]
            subjects.extend(words)
            if words:
                labels.append(" ".join(w.rstrip(".") for w in phrase.split() if _object_word(w.lower().rstrip("."))))
        subjects.extend(f"arch:{n.lower()}" for n in _ARCH.findall(clause))
        subjects.extend(files)
        folders = [m.lower() for m in _FOLDER.findall(clause)]
        subjects.extend(folders + [f"{f.rstrip('/').rsplit('/', 1)[-1]}/" for f in folders if f.startswith("/")])
        if subjects:
            text = re.sub(r"^(and|but|so|or)\s+", "", clause.strip(), flags=re.I)
            label = (labels or [*files, *folders, ""])[0]
            holders = _holders(clause, files)
            subjects.extend(m.group(1).lower() for m in _MUST_STAY.finditer(clause) if holders)
            out.append(Constraint(text, tuple(dict.fromkeys(subjects)), files, label, holders))
    return tuple(out)


# "keep X in the requirements", "ck_saturate must stay out-of-line in src/saturate.cu": the file is where X lives
_KEEP_IN = re.compile(r"\b(?:keep|stay|remain|live|lives|be defined)\w*+\s++[^,;]*?\bin\s+(?:the\s+|our\s+|its\s+)?`?([\w./-]{4,})", re.I)


_MUST_STAY = re.compile(r"(?<![\w.:`])`?([A-Za-z_][\w.:]{2,}+)`?\s++(?:must|has to|should|needs? to)\s+(?:stay|remain|live)\b")


def _holders(clause: str, files: tuple[str, ...]) -> tuple[str, ...]:
    """The files a clause keeps names in ("keeping types-requests in the requirements": the
    requirements file holds them; heldout5 depbump's urllib3 pin added there was called a break)."""
    places = [m.group(1).lower().rstrip(".") for m in _KEEP_IN.finditer(clause)]
    return tuple(f for f in files if any(f.rsplit("/", 1)[-1].startswith(p.rsplit("/", 1)[-1]) for p in places))


def _words(text: str) -> list[str]:
    arches = [f"arch:{n.lower()}" for n in _ARCH.findall(text)]
    rest = _ARCH.sub(" ", text)
    words = (w.rstrip(".").lower() for w in re.findall(r"[A-Za-z][\w./+-]*", rest))
    return arches + [w for w in words if len(w) > 1 and w not in _VAGUE]


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name.lower())


def pinned_in_files(files: Iterable[str], events: pl.DataFrame) -> dict[str, str]:
    """package -> its pin, from what the session showed of the protected files: the output of a
    command that read one (`cat requirements.txt`), else the project's `==` pins in its metadata
    (pyproject `dependencies`), which a requirements file locks in practice."""
    names = [f.rsplit("/", 1)[-1] for f in files]
    if not names or not events.height:
        return {}
    calls = events.filter(pl.col("kind").cast(pl.Utf8) == "tool_call").select("call_id", "text")
    results = events.filter(pl.col("kind").cast(pl.Utf8) == "tool_result").select("call_id", "text")
    pins: dict[str, str] = {}
    read_ids = {cid for cid, text in calls.iter_rows() if cid and text and any(n in text for n in names)}
    metadata: dict[str, str] = {}
    for cid, text in results.iter_rows():
        text = text or ""
        if cid in read_ids:
            for name, op, ver in _PIN.findall(text):
                pins.setdefault(_norm(name), op + ver)
        if "dependencies" in text or "install_requires" in text:
            for name, op, ver in _PINNED_LIST.findall(text):
                metadata.setdefault(_norm(name), op + ver)
    return pins or metadata


def bends(actions: Sequence[Action], constraints: Sequence[Constraint], events: pl.DataFrame) -> list[Action]:
    """The changes that break a rule: a package the request protects installed at another version
    or build than its pin (any move of it where no pin is known), a protected file edited."""
    if not constraints:
        return []
    named = {_norm(s) for c in constraints for s in c.subjects if not s.startswith("arch:")}
    files = {f.rsplit("/", 1)[-1] for c in constraints for f in c.files if f not in c.holders}
    holders = {f.rsplit("/", 1)[-1]: c for c in constraints for f in c.holders}
    folders = {s for c in constraints for s in c.subjects if s.endswith("/") and len(s) > 2}
    if any(s in ("tests", "test", "tests/") for c in constraints for s in c.subjects):
        folders |= {"tests/", "test/"}  # "don't change the tests": the test files, wherever they are named
    pins = pinned_in_files([f for c in constraints for f in c.files], events)
    out = []
    for a in actions:
        if a.kind in PACKAGE_CHANGES and a.value:
            name = _norm(a.subject)
            pin = pins.get(name)
            if (name in named or pin is not None) and (pin is None or _spec(a.value) != _spec(pin)):
                out.append(a)
        elif a.kind is ActionKind.FILE_EDIT and _breaks(a, files, folders, holders):
            out.append(a)
    return out


def _breaks(a: Action, files: set[str], folders: set[str], holders: dict[str, Constraint]) -> bool:
    """A file edit of a protected file, of a file inside a protected folder, or one that takes a kept
    name out of the file that must hold it."""
    name = a.subject.rsplit("/", 1)[-1].lower()
    if name in files or _under(a.subject.lower(), folders):
        return True
    c = holders.get(name)
    return c is not None and _takes_out(a, c)


def _under(path: str, folders: set[str]) -> bool:
    """A file inside a folder the request protects ("don't edit anything under tests/"); a test
    file (`test_x.py`, `x_test.go`) under "the tests"."""
    path = path.removeprefix("./")
    name = path.rsplit("/", 1)[-1]
    if "tests/" in folders and re.match(r"^(?:test_\w+|\w+_test|conftest)\.\w+$", name):
        return True
    return any(path.startswith(f) or f"/{f}" in path for f in folders)


def _takes_out(a: Action, c: Constraint) -> bool:
    """An edit of a file that must keep some names takes one out (or says nothing of what it wrote)."""
    if not a.added and not a.removed:
        return True
    kept = [s for s in c.subjects if s not in c.files and not s.startswith("arch:")]
    return any(s in a.removed.lower() and s not in a.added.lower() for s in kept) or a.value == "rm"


def _spec(value: str) -> str:
    return value.replace(" ", "").lstrip("=")


def blocked_by_rules(closing: str) -> bool:
    """The agent's conclusion says that every way out goes against the request."""
    return bool(closing and _BLOCKED.search(closing))


def trapped_by_rules(ep: Episode, constraints: Sequence[Constraint]) -> Constraint | None:
    """The rule a failure is about: its text or captures name what the rule protects (`compute_60`
    under "keep sm_60", CUDA under "keep the CUDA kernel")."""
    text = " ".join(f.text + " " + " ".join(str(v) for v in f.captures.values() if v) for f in ep.findings[:3])
    mine = set(_words(text)) | {w.lower() for w in re.findall(r"[A-Za-z]{3,}", text)}
    for c in constraints:
        hit = [s for s in c.subjects if s in mine and s not in c.files]
        if hit:
            return c
    return None


def rule_catch22(ep: Episode, rule: Constraint) -> Catch22:
    """A catch-22 of one member: the failure against the rule that keeps its fix out of reach."""
    return Catch22(episodes=(ep.id,), subject=rule.label or "request", values=(rule.clause,), alternated=False)
