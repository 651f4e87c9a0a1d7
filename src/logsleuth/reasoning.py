"""What the assistant thought: its text and reasoning, split into sentences and classified by rules.

Each sentence is a `diagnosis` (explains a cause), a `hypothesis` (hedged, `hedged=True`), a
`decision` (what it will do; hedged when it says "I think I'll …") or an `observation` (anything
factual), with the technical entities it names (packages, versions, GPU architectures, CUDA
libraries, paths, environment variables, flags, and FEATUREs such as "CUDA graph").

Rules only (no model, no randomness), run by `logsleuth.sentences` in plain Python: a regex tokenizer
that keeps technical tokens whole (`nvidia-cuda-nvcc`, `libnvrtc.so.13`, `/root/venv/…`,
`--disable-cuda-graph`, `2.11+cu130`), spaCy's sentencizer rules, entity phrases over the tokenizer's
labels and cue phrases on lower-cased tokens. These ran in spaCy's `blank("en")` until importing it and
building the pipeline were measured at 0.83 s CPU of the sample's ~1.9 s analyze (the rules' work:
36 ms); the outputs are the same.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import polars as pl
import regex

from logsleuth.model import Kind, Role, Sentence
from logsleuth.sentences import Doc, Phrases, rule_entities, sentencize

MAX_CHARS = 20_000  # longer messages are truncated: pasted logs, not reasoning
MAX_SENTENCE_CHARS = 600

DIAGNOSIS, HYPOTHESIS, DECISION, OBSERVATION = "diagnosis", "hypothesis", "decision", "observation"

# --- markdown ------------------------------------------------------------------------------------

_FENCE = regex.compile(r"^[ \t]*(`{3,}|~{3,})[^\n]*\n.*?(?:^[ \t]*\1[ \t]*$|\Z)", regex.M | regex.S)
_BLOCK_START = regex.compile(r"^\s*(?:[-*+•]\s+(?:\[[ xX]\]\s+)?|\d{1,3}[.)]\s+|>\s?)")
_HEADING = regex.compile(r"^\s*#{1,6}\s")
_TABLE = regex.compile(r"^\s*\|.*\|\s*$")
_LINK = regex.compile(r"!?\[([^\[\]\n]*)\]\([^)\s]*\)")  # no `[` inside: a run of `[` was quadratic
_EMPHASIS = regex.compile(r"\*\*|__|(?<![\w*])\*(?=\S)|(?<=\S)\*(?![\w*])")


def markdown_blocks(text: str) -> list[str]:
    """Paragraphs, list items and quotes of a markdown text, with code blocks and markup removed.

    Inline code keeps its text (it names the packages and flags); fenced code is dropped; each bullet
    is its own block so that a list without full stops does not become one long sentence.
    """
    return [b for b, _ in code_blocks(text)]


Spans = tuple[tuple[int, int], ...]


def code_blocks(text: str) -> list[tuple[str, Spans]]:
    """`markdown_blocks`, each with the character spans its inline code held: code is never split
    into sentences (`CUDA_HOME ?= /usr/local/cuda` is not a question)."""
    text = _FENCE.sub("\n", text[:MAX_CHARS])
    blocks: list[tuple[str, Spans]] = []
    current: list[tuple[str, Spans]] = []

    def flush() -> None:
        if current:
            parts: list[str] = []
            spans: list[tuple[int, int]] = []
            at = 0
            for piece, sp in current:
                spans.extend((at + a, at + b) for a, b in sp)
                parts.append(piece)
                at += len(piece) + 1
            joined = " ".join(parts)
            lead = len(joined) - len(joined.lstrip())
            joined = joined.strip()
            if joined:
                blocks.append((joined, tuple((a - lead, b - lead) for a, b in spans if b - lead > 0)))
            current.clear()

    in_item = False
    for raw in text.split("\n"):
        line = raw.rstrip()
        if not line.strip() or _HEADING.match(line) or _TABLE.match(line):
            flush()
            in_item = False
            continue
        item = _BLOCK_START.match(line)
        if item:
            flush()
            in_item = True
            line = line[item.end():]
        elif in_item and not line[:1].isspace():
            flush()  # an unindented line after a list item starts a new paragraph
            in_item = False
        current.append(_inline(line.strip()))
    flush()
    return blocks


_CODE = regex.compile(r"`([^`\n]+)`")


def _inline(line: str) -> tuple[str, Spans]:
    """The line without links' targets, emphasis and backticks; where its inline code now lies."""
    line = _LINK.sub(r"\1", line)
    out: list[str] = []
    spans: list[tuple[int, int]] = []
    at = 0
    for m in _CODE.finditer(line):
        out.append(_EMPHASIS.sub("", line[at : m.start()]))
        start = sum(len(x) for x in out)
        out.append(m.group(1))
        spans.append((start, start + len(m.group(1))))
        at = m.end()
    out.append(_EMPHASIS.sub("", line[at:]))
    return "".join(out).replace("`", ""), tuple(spans)


def _code_is_one_clause(idx: Sequence[int], spans: Spans) -> list[bool]:
    """Tokens no sentence may start at: inside inline code or right after it."""
    return [bool(i) and any(a < at <= b for a, b in spans) for i, at in enumerate(idx)]


# --- tokenizer -----------------------------------------------------------------------------------

_TOKEN = regex.compile(
    r"""
      (?P<url>[A-Za-z][\w+.\-]*://[^\s<>"'`)\]]*[^\s<>"'`)\].,;:!?])
    | (?P<path>(?<![\w.])(?:~|\.{1,2})?/[\w.*+@%\-]+(?:/[\w.*+@%\-]*)*(?<![.:])
              | [A-Za-z]:\\[^\s"'<>|]*[^\s"'<>|.,;:]
              | [\w.\-]+(?:/[\w.*+@%\-]+){2,}/? | [\w.\-]+(?:/[\w.*+@%\-]+)+/)
    | (?P<abbr>(?i:e\.g\.|i\.e\.|etc\.|vs\.|approx\.|cf\.))
    | (?P<flag>(?<![\w\-])--[A-Za-z0-9][\w\-]*)
    | (?P<stem>(?i:[a-z]+(?=n['’]t\b)))
    | (?P<contraction>(?i:n['’]t|(?<=\w)['’](?:s|ll|re|ve|d|m))(?!\w))
    | (?P<word>\w+(?:[.+\-]\w+)*)
    | (?P<op>==|>=|<=|~=|!=|->|=>|\.\.\.|…)
    | (?P<char>\S)
    """,
    regex.X,
)


# Entities come from two places. Words whose shape says what they are (`13.0.88`, `sm_120`,
# `libnvrtc.so.13`, `LD_LIBRARY_PATH`, paths, `--flags`) are labelled by the tokenizer, once per token;
# names (torch, ptxas, Blackwell, "CUDA graph") are phrase patterns of the EntityRuler, which wins
# where the two overlap ("compute capability 12.0" over "12.0"). Token patterns with REGEX or IN
# predicates in the ruler made it the slowest stage (measured ~4× slower on a 1000-message session).
_TECH = regex.compile(
    r"""
      (?P<VERSION>v?\d+(?:\.\d+)+(?:[.\-]?(?:post|dev|rc|a|b)\d*)?(?:\+[A-Za-z0-9.]+)?
                | (?i:cu\d{2,3}|cuda\d+(?:\.\d+)*|cp3\d{1,2}))
    | (?P<GPU_ARCH>(?:sm|SM|compute|COMPUTE)_?\d{2,3}[a-z]? | gfx\d{3,4}[a-z]?
                 | Blackwell|Hopper|Ampere|Ada|Lovelace|Turing|Volta|Pascal|Rubin)
    | (?P<CUDA_LIB>lib[\w+.\-]*\.so(?:\.\d+)* | [\w.\-]+\.(?:dll|dylib)
                 | (?i:cuda|cuda_runtime|cuda_toolkit|cooperative_groups|cuda_fp8|cuda_bf16)\w*\.(?:h|hpp|cuh))
    | (?P<ENV_VAR>[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)
    | (?P<PACKAGE>nvidia-[a-z0-9][a-z0-9\-]*|(?:torch|flash|sgl|vllm|triton)[\-_][a-z0-9_\-]+)
    """,
    regex.X,
)
_MAYBE_TECH = regex.compile(r"[\d_.\-A-Z]")
_GROUP_LABEL = {"path": "PATH", "flag": "FLAG"}
_ENV_PLAIN = frozenset({"PATH", "HOME", "CC", "CXX", "CFLAGS", "CXXFLAGS", "LDFLAGS", "CPATH", "PYTHONPATH"})


def _tech_label(kind: str | None, word: str, nxt: str) -> str | None:
    if kind in _GROUP_LABEL:
        return _GROUP_LABEL[kind]
    if kind == "word" and _MAYBE_TECH.search(word):
        m = _TECH.fullmatch(word)
        if m is not None:
            group: str | None = m.lastgroup
            return group
        if word in _ENV_PLAIN and nxt == "=":
            return "ENV_VAR"
    return None


def _make_doc(text: str) -> Doc:
    """Regex tokenizer: technical tokens stay whole (and get their entity label), punctuation and
    contractions split off."""
    matches = list(_TOKEN.finditer(text))
    words = [m.group() for m in matches]
    n = len(text)
    spaces = [m.end() < n and text[m.end()].isspace() for m in matches]
    labels = [_tech_label(m.lastgroup, words[i], text[m.end() : m.end() + 1]) for i, m in enumerate(matches)]
    return Doc(words, spaces, labels)


_PACKAGES = (
    "torch", "pytorch", "torchvision", "torchaudio", "flashinfer", "flashinfer-python", "flashinfer-cubin",
    "flashinfer-jit-cache", "flashinfer_python", "sglang", "sgl-kernel", "sgl_kernel", "vllm", "flash-attn",
    "flash_attn", "flash-attention", "flashattention", "xformers", "triton", "nvidia-cuda-nvcc", "nvidia-cu13",
    "nvidia-cu12", "nvidia-cuda-runtime", "nvidia-cuda-nvrtc", "nvidia-cublas", "nvidia-cudnn", "nvidia-nccl",
    "transformers", "deepspeed", "bitsandbytes", "numpy", "ninja", "ninja-build", "cmake", "uv", "pip",
    "conda", "tensorrt", "tensorrt-llm", "tensorrt_llm", "onnxruntime", "jax", "jaxlib", "safetensors",
    "huggingface_hub", "huggingface-hub", "peft", "trl", "llama.cpp", "ollama", "cuda-python", "cupy",
    "megatron-core", "apex", "sentencepiece", "tokenizers", "pydantic", "fastapi", "uvicorn", "openai",
)
_CUDA_LIBS = (
    "cccl", "libcudacxx", "ptxas", "nvcc", "nvrtc", "nvjitlink", "cubin", "cubins", "cudart", "cublas",
    "cublaslt", "cudnn", "nccl", "cutlass", "cute", "thrust", "cub", "nvlink", "fatbinary", "fatbin",
    "cuobjdump", "nvdisasm", "ptx", "cusparse", "cufft", "curand", "cusolver", "nvml", "cupti", "nvshmem",
)
# not in the brief's list of labels, but what most hedged claims are about
_FEATURES = (
    "cuda graph", "cuda graphs", "graph capture", "jit", "jit compilation", "jit compile", "jit compiling",
    "attention backend",
)


def _expand(*parts: Sequence[str]) -> list[str]:
    """All phrases made of one choice per part; apostrophes also in their typographic form."""
    phrases = [""]
    for choices in parts:
        # a contraction joins its word: "i'll" tokenizes as i + 'll, "i 'll" would not
        phrases = [(p + c if c[:1] in "'’" else f"{p} {c}").strip() for p in phrases for c in choices]
    return sorted({q for p in phrases for q in (p, p.replace("'", "’"))})


def _entity_patterns() -> list[dict[str, Any]]:
    lexicon = [("PACKAGE", _PACKAGES), ("CUDA_LIB", _CUDA_LIBS), ("FEATURE", _FEATURES)]
    out: list[dict[str, Any]] = [{"label": label, "pattern": w} for label, words in lexicon for w in words]
    for v in ("12.0", "10.0", "10.3", "9.0", "8.9", "8.6", "8.0", "7.5", "7.0", "11.0", "12.1"):
        out.append({"label": "GPU_ARCH", "pattern": f"compute capability {v}"})
    return out


# --- cue phrases (one PhraseMatcher on lower-cased tokens) ---------------------------------------

_IS = ("is", "was", "'s")
_CUES: dict[str, list[str]] = {
    "DIAG": [
        *_expand(("because",)),
        *_expand(("due to", "caused by", "triggered by", "root cause")),
        *_expand(("issue", "problem", "culprit", "cause", "reason"), _IS),
        *_expand(("this", "that", "it"), _IS, ("from",)),
        *_expand(("comes", "stems", "originates"), ("from",)),
        *_expand(("this", "that", "which"), ("is", "'s", "explains"), ("why",)),
        *_expand(("this", "that", "which"), ("means",)),
        *_expand(("what",), ("is", "'s"), ("failing", "causing", "breaking", "wrong")),
        *_expand(("incompatible", "mismatch", "conflicts", "conflict"), ("with", "between")),
    ],
    "HEDGE": [
        *_expand((
            "probably", "might", "may", "could", "likely", "unlikely", "perhaps", "possibly", "presumably",
            "maybe", "seems", "seem", "seemed", "appears", "apparently", "hopefully", "should", "suspect",
        )),
        *_expand(("i", "we"), ("think", "believe", "suspect", "guess", "assume", "expect")),
        *_expand(("it", "that"), ("is", "'s"), ("possible",)),
        "not sure", "looks like",
    ],
    "DECIDE": [
        *_expand(("i", "we"), ("'ll", "will", "should")),
        *_expand(("i",), ("'m", "am"), ("going to",)),
        *_expand(("let",), ("me", "us", "'s")),
        *_expand(("i", "we"), ("need to",)),
        *_expand(("switching", "switch"), ("to",)),
        "instead",
        *_expand(("the",), ("fix", "plan", "solution", "workaround"), ("is", "will")),
    ],
    # "X generates PTX 9.2, but Y only supports up to 9.0": BUT followed by ONLY_SUPPORTS, checked in
    # code (a `{0,12}` wildcard in a token Matcher costs more than every other pattern together)
    "BUT": ["but"],
    "ONLY_SUPPORTS": _expand(
        ("only", "n't", "not", "never"),
        ("supports", "support", "supported", "accepts", "accept", "handles", "recognizes"),
    ),
    # pip-style names the lexicon does not know: `name==1.2`, `name<13.1`, `pip install a b-c`
    "PIP_SPEC": ["==", ">=", "<=", "<", ">", "~=", "!="],
    "INSTALL": ["install", "uninstall", "add", "remove"],
}


@dataclass(frozen=True)
class _Pipeline:
    ruler: Phrases
    matcher: Phrases


def _phrases(entries: Iterable[tuple[str, str]]) -> Phrases:
    return Phrases((key, _make_doc(text).lowers) for key, text in entries)


@functools.lru_cache(maxsize=1)
def _pipeline() -> _Pipeline:
    """The entity and cue phrase tables, once per process (~5 ms)."""
    ruler = _phrases((p["label"], p["pattern"]) for p in _entity_patterns())
    matcher = _phrases((key, p) for key, phrases in _CUES.items() for p in phrases)
    return _Pipeline(ruler, matcher)


# --- classification ------------------------------------------------------------------------------

_COMPARATORS = {"==", ">=", "<=", "<", ">", "~=", "!="}
_PIP_NAME = regex.compile(r"^[A-Za-z0-9][A-Za-z0-9._\-]*[A-Za-z0-9]$")
_INSTALL = {"install", "uninstall", "add", "remove"}
_NAMEISH = regex.compile(r"[\-_.\d]")  # `flash-attn`, `nvidia_cudnn`, `cu13`; not "and", "set"
_UNITS = {
    "s", "ms", "us", "sec", "secs", "second", "seconds", "min", "mins", "minutes", "h", "hours", "gb", "mb",
    "kb", "tb", "gib", "mib", "kib", "%", "x", "tokens", "tok/s", "it/s", "gbps", "tflops", "w",
}
_FIRST_PERSON = {"i", "we", "you"}
_BUT_REACH = 14  # tokens between "but" and "only supports"
_LEAD = 2  # a decision cue this close to the sentence start is the main clause ("Now let me …")


def _entities(doc: Doc, start: int, end: int, cues: set[str]) -> tuple[tuple[str, str], ...]:
    ents = doc.sent_ents(start, end)
    found: dict[int, tuple[str, str]] = {}
    for a, b, label in ents:
        if label == "VERSION" and _not_a_version(doc, a, b):
            continue
        found[a] = (label, doc.span_text(a, b))
    if "PIP_SPEC" in cues or "INSTALL" in cues:
        found.update(_pip_names(doc, start, end, ents))
    seen: set[tuple[str, str]] = set()
    out: list[tuple[str, str]] = []
    for _, ent in sorted(found.items()):
        if ent not in seen:
            seen.add(ent)
            out.append(ent)
    return tuple(out)


def _pip_names(doc: Doc, start: int, end: int, ents: Sequence[tuple[int, int, str]]) -> dict[int, tuple[str, str]]:
    """Package names the lexicon does not know, recognised by pip syntax."""
    words = doc.words
    found: dict[int, tuple[str, str]] = {}
    taken = {i for a, b, _ in ents for i in range(a, b)}
    installing = False  # inside `pip install a b-c …`: names until the first plain word
    for i in range(start, end):
        text = words[i]
        if doc.lowers[i] in _INSTALL:
            installing = True
            continue
        if text in {'"', "'"} or text in _COMPARATORS or i in taken or text.startswith("-"):
            continue
        nxt = words[i + 1] if i + 1 < len(words) else ""
        if _PIP_NAME.match(text) and (nxt in _COMPARATORS or (installing and _NAMEISH.search(text))):
            found[i] = ("PACKAGE", text)
        elif installing and nxt not in _COMPARATORS:
            installing = False
    return found


def _not_a_version(doc: Doc, start: int, end: int) -> bool:
    """Durations, sizes and addresses look like versions: `1.5 s`, `3.2 GB`, `root@10.1.2.6`."""
    nxt = doc.lowers[end] if end < len(doc) else ""
    prev = doc.words[start - 1] if start > 0 else ""
    return nxt in _UNITS or prev == "@"


def _cues(doc: Doc, start: int, end: int, matches: Iterable[tuple[str, int, int]]) -> set[str]:
    cues: set[str] = set()
    buts: list[int] = []
    for key, at, _end in sorted(matches, key=lambda m: m[1]):
        if key == "HEDGE" and not _real_hedge(doc, start, end, at):
            continue
        if key == "DECIDE" and at - start <= _LEAD:
            cues.add("DECIDE_LEAD")
        if key == "BUT":
            buts.append(at)
        elif key == "ONLY_SUPPORTS":
            if any(0 < at - b <= _BUT_REACH for b in buts):
                cues.add("DIAG")
        else:
            cues.add(key)
    return cues


def _real_hedge(doc: Doc, start: int, end: int, i: int) -> bool:
    low = doc.lowers[i]
    nxt = doc.lowers[i + 1] if i + 1 < end else ""
    prev = doc.lowers[i - 1] if i > start else ""
    if low == "could" and nxt in {"not", "n't"}:
        return False  # "couldn't find" reports a fact
    if low == "should" and prev in _FIRST_PERSON:
        return False  # "I should try" is a decision; "this should work" is an expectation
    return not (low == "may" and doc.words[i] == "May" and i > start)  # the month


def _label_of(cues: set[str], question: bool) -> tuple[str, bool]:
    hedged = "HEDGE" in cues or question
    if "DECIDE_LEAD" in cues and not question:
        # the main clause decides ("Let me check whether it might …", "I think I'll pin …")
        return DECISION, hedged
    if hedged:
        return HYPOTHESIS, True
    if "DIAG" in cues:
        return DIAGNOSIS, False
    if "DECIDE" in cues:
        return DECISION, False
    return OBSERVATION, False


def _keep(doc: Doc, start: int, end: int) -> bool:
    words = sum(1 for w in doc.words[start:end] if w.isalpha() and len(w) > 1)
    return words >= 2


def _sentence_text(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MAX_SENTENCE_CHARS else text[: MAX_SENTENCE_CHARS - 1].rstrip() + "…"


def _doc(pipe: _Pipeline, block: str, spans: Spans) -> Doc:
    """One block tokenized, split into sentences (never inside inline code), its entities ruled."""
    doc = _make_doc(block)
    sentencize(doc, _code_is_one_clause(doc.idx, spans))
    rule_entities(doc, pipe.ruler)
    return doc


def classify_texts(items: Sequence[tuple[int, str]]) -> list[Sentence]:
    """Classify (seq, text) pairs of assistant prose; the text may be markdown."""
    blocks = [(seq, b, sp) for seq, text in items if text for b, sp in code_blocks(text)]
    if not blocks:
        return []
    pipe = _pipeline()
    out: list[Sentence] = []
    for seq, block, spans in blocks:
        doc = _doc(pipe, block, spans)
        matches = pipe.matcher.matches(doc.lowers)
        for start, end in doc.sents():
            if not _keep(doc, start, end):
                continue
            in_sent = [m for m in matches if start <= m[1] < end]
            question = doc.words[end - 1] == "?"
            cues = _cues(doc, start, end, in_sent)
            label, hedged = _label_of(cues, question)
            text = _sentence_text(doc.span_text(start, end))
            out.append(Sentence(seq, text, label, hedged, _entities(doc, start, end, cues)))
    return out


def extract(events: pl.DataFrame) -> list[Sentence]:
    """Sentences of one session's assistant `text` and `reasoning` events, in event order."""
    if events.is_empty():
        return []
    rows = events.filter(
        (pl.col("role") == Role.ASSISTANT.value)
        & pl.col("kind").cast(pl.Utf8).is_in([Kind.TEXT.value, Kind.REASONING.value])
    ).select("seq", "text")
    items = [(int(seq), text or "") for seq, text in rows.iter_rows()]
    return classify_texts(items)


# --- selections for the narrative ----------------------------------------------------------------

_CATCH22 = regex.compile(
    r"catch[\s\-]?22|\bstuck\b|chicken[\s\-]and[\s\-]egg|vicious (?:circle|cycle)|going (?:around )?in circles"
    r"|back and forth|circular dependenc|dead[\s\-]?end|\bneither\b|either way|whichever (?:way|version|option)"
    r"|no matter (?:which|what)|every (?:option|fix|attempt) (?:breaks|fails|brings)",
    regex.I,
)
_INFORMATIVE = regex.compile(
    r"catch[\s\-]?22|\bstuck\b|incompatib|mismatch|\binstead\b|root cause|workaround|conflict"
    r"|\bonly supports?\b|the (?:issue|problem) is|\bpivot",
    regex.I,
)
_WEIGHT = {DIAGNOSIS: 3.0, HYPOTHESIS: 2.0, DECISION: 1.5, OBSERVATION: 0.5}


def catch22_statements(sentences: Sequence[Sentence]) -> list[Sentence]:
    """Sentences that say the session is trapped: a catch-22, stuck, neither option works…"""
    return list(_unique(s for s in sentences if _CATCH22.search(s.text)))


def _score(s: Sentence) -> float:
    score = _WEIGHT.get(s.label, 0.0)
    score += 0.5 * min(len({e for _, e in s.entities}), 4)
    score += 1.5 * min(len(_INFORMATIVE.findall(s.text)), 2)
    if _CATCH22.search(s.text):
        score += 2.0
    if not 40 <= len(s.text) <= 400:  # fragments and walls of text quote badly
        score -= 1.0
    return score


def key_quotes(sentences: Sequence[Sentence], limit: int = 5) -> list[Sentence]:
    """The `limit` most informative sentences (diagnoses and hedged claims naming things, traps,
    mismatches, pivots), returned in session order for quoting in the narrative."""
    unique = list(_unique(sentences))
    ranked = sorted(range(len(unique)), key=lambda i: (-_score(unique[i]), unique[i].seq, i))
    chosen = sorted(ranked[: max(limit, 0)])
    return [unique[i] for i in chosen]


def _unique(sentences: Iterable[Sentence]) -> Iterator[Sentence]:
    """Drop repeats of the same text (agents often restate their reasoning in the reply)."""
    seen: set[str] = set()
    for s in sentences:
        if s.text not in seen:
            seen.add(s.text)
            yield s


# a plan or an option list ("I could disable …, or switch …") is not a claim about the world
_PLAN = regex.compile(r"^\W*(?:I|we)\s+(?:could|can|will|'ll|need to|should try|might try|want to)\b|^\W*(?:let me|let's|next|now)\b", regex.I)


def is_plan(text: str) -> bool:
    """A sentence that says what the agent may do, not what it believes is so."""
    return _PLAN.match(text) is not None
