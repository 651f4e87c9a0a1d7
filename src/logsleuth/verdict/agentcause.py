"""The cause the agent states in its own words, read as a careful reader does: every sentence of
its prose weighed, not the first that fits a phrase.

A sentence counts for what it says (a condition: "X was compiled with the old ABI", "Y has no
AVX-512", "Z only became public in 3.13"), where it stands (under "Why it fails:", not under
"What I changed:" or "Ways forward:"), what it names of the session's failures and fixes, and
against what it only narrates (a fix, a result, advice, a plan, a guess). Measured on the 55
labelled sessions of tests/: the phrase rules this replaces named a right cause in 24; the
misses were sentences of the fix or option sections and causes said under a heading no phrase
rule knew ("**Why ptxas failed:**", "What's wrong:", "The conflict:")."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace

from logsleuth.clip import short

# a heading of the agent's own: `## Why`, a bold line, `What's going on:` alone on its line
_BLOCK_HEAD = re.compile(r"^(?:#{1,6}[ \t]++(?P<h>[^\n]{2,80})|\*\*(?P<b>[^*\n]{2,80})\*\*:?|(?P<p>[A-Z][\w '’/-]{2,40}):)[ \t]*+$")
# an inline heading that opens a line: `**Cause:** …`, `1. **Why ptxas failed:** …`, `Cause: …`
_INLINE_HEAD = re.compile(r"^(?:\d{1,2}[.)][ \t]++|[-*•][ \t]++)?(?:\*\*(?P<b>[^*\n]{2,80}?)(?::\*\*|\*\*:)|"
                          r"(?P<p>[A-Z][^:\n`]{2,40}):(?!\S))[ \t]*+")
_CAUSE_HEAD = re.compile(r"\b(?:why|cause[sd]?|wrong|broke|breaking|broken|fail\w*|problems?|issues?|conflicts?|diagnos\w*|root|blockers?|"
                         r"explanation|found|findings|going on|happen\w*|errors?|breakages?|the real|real one)\b", re.I)
_OTHER_HEAD = re.compile(r"\b(?:fix(?:ed|es)?|chang\w*|tried|didn'?t|did not|next|to (?:get|unblock|verify|finish|fix|make|run)|"
                         r"ways?|options?|ask|checks?|checked|verif\w*|caveat|not checked|steps?|workarounds?|recommend\w*|"
                         r"one more|note|forcing|forward|approach|what i did|plan|in place|from earlier)\b", re.I)
# a plain "Xxx:" opening a line is a heading only when it names a part a reader knows (else it is prose)
_NEUTRAL_HEAD = re.compile(r"\b(?:result|summary|status|tests?|done|caveat|short version|context|background|details?)\b", re.I)
_CAUSE_TITLE = re.compile(r"^(?:the )?(?:root[- ])?(?:cause|problem|issue|diagnosis|culprit)$", re.I)
_MARKED = re.compile(r"^(?:the )?(?:root[- ]cause|(?:underlying|real|actual|core|bigger|main|deeper) (?:cause|problem|issue|culprit)"
                     r"(?: here)?(?: (?:is|was)(?: that)?)?|"
                     r"(?:the )?(?:issue|problem|cause) (?:is|was)(?: that)?|this (?:is|was) the real (?:one|problem|issue|cause))\b[ \t:—-]*+", re.I)
# words that state a condition: a removal, a need, a lack, a clash
_CAUSAL = re.compile(
    r"\b(?:because|since|so|which|removed|moved|dropped|deprecated|requires?|required|needs?|doesn'?t|don'?t|isn'?t|aren'?t|"
    r"wasn'?t|weren'?t|can'?t|cannot|couldn'?t|won'?t|no longer|only (?:became|exists?|works?|has|had|included|declared|"
    r"available|accepts?|supports?)|too (?:old|new|large|big|much)|predates|shadow\w*|stale|lacks?|lacking|missing|"
    r"(?:has|have|had|with) no|without|not (?:declared|installed|included|supported|available|present|exported|public|"
    r"defined|found|a|an|the|in|on)|never|instead of|rather than|inconsisten\w*|contradict\w*|conflicts?|mismatch\w*|"
    r"incompatible|clash\w*|collid\w*|capped|limit|exceeds?|(?:built|compiled|linked) (?:with|for|against|by)|"
    r"expects?|but only|still (?:in|there|present|points?)|points? (?:at|to)|differ\w*|only (?:had|has|have))\b|\w-only\b", re.I)
_FIX = re.compile(r"^(?:I|I'?ve|I'?d|We|We'?ve)\b|\b(?:I|we) (?:\w+ed|ran|built|made|put|set|got|went|took|kept|left|wrote|"
                  r"did|saw|split|rewrote)\b|\b(?:it'?s|is|are|was|were) now\b|^(?:It|This) also\b|(?:→|->|=>)[ \t]*+(?![\d.+-])", re.I)  # "X missing → installed Y"; "5.005 -> 5.00" is a value
_NOW = re.compile(r"\bnow\b", re.I)
# a sentence to the user about an option's price or gain ("You lose 2.4's fix") weighs an option, not the cause
_ADVICE = re.compile(r"\b(?:if you|you'?d|you'?ll|you (?:can|could|should|need|may|might|want|lose|get|gain|keep|end up)|"
                     r"should|would|could|worth|consider|"
                     r"longer[- ]term|ask (?:the|for|them)|to unblock|recommend\w*|suggest\w*|please|once (?:we|you))\b|"
                     r"^\(?[a-z0-9]\)[ \t]|^(?:don'?t|do not|make sure|be sure|avoid|keep|run|use|try)\b", re.I)
_GUESS = re.compile(r"\b(?:might|may|maybe|probably|likely|perhaps|seems?|suspect|guess|possibly|appears? to)\b", re.I)
_STATUS = re.compile(r"\b(?:pass(?:es|ed)|succeed(?:s|ed)|now works|builds (?:cleanly|fine|again)|fails? with|stops? (?:at|with)|"
                     r"(?:has|have|was)(?: not|n'?t)? been (?:run|compiled|built|tested))\b", re.I)
_PLAN = re.compile(r"^(?:Now|Next|Then|So I)\b|\b(?:I'?ll|I'?m going to|let me|let's|we'?ll)\b", re.I)
# "I couldn't get X passing within your rules, because …" / "… fails: …": the clause is the cause
_FAILED_BECAUSE = re.compile(r"\b(?:fail(?:s|ed)?|broke|(?:couldn'?t|can'?t|cannot|could not|can not) get)\b[^.;:]{0,120}?"
                             r"(?:,?[ \t]++because[ \t]++|:[ \t]++)(?P<rest>\S.{14,})", re.I)
_FIRST_ITEM = re.compile(r"^(?:1[.)]|\(1\))[ \t]")  # the first of a numbered list: agents list causes in order
_ANAPHOR = re.compile(r"^(?:That|This|Those|These|It|Which|So|Hence|Thus)\b")
_BREAK = re.compile(r"(?<=[.!?])[ \t]++(?=[\w`*(])")
_ABBREV = re.compile(r"(?:\b(?:e\.g|i\.e|etc|vs|cf|approx|incl|no)\.|\b[A-Z]\.|^[ \t]*+\(?\d{1,2}[.)])$", re.I)  # "1." opens a list item
_FENCE = re.compile(r"^[ \t]*(?:```|~~~)")
_THINKING = re.compile(r"^</?thinking-content-[0-9a-f]+>$")


@dataclass(frozen=True, slots=True)
class Said:
    """One sentence of the agent's prose, with where it stands."""

    seq: int
    text: str
    section: str  # the heading it sits under ("" none)
    closing: bool  # in the agent's words after its last command
    marked: bool  # "Root cause: …", "The issue is …", "**Cause:** …"
    clause: bool  # the cause clause of "X failed because …"
    before: str  # the sentence before it in its paragraph ("" none)
    lead: bool = False  # the first sentence under its heading
    after: tuple[str, ...] = ()  # the sentences after it in its paragraph


def sentences(messages: Iterable[tuple[int, str]], closing_after: int) -> Iterator[Said]:
    """Every sentence of the agent's messages (code blocks left out), with its heading and the
    sentences after it in its paragraph."""
    for seq, text in messages:
        said = list(_message(seq, text, seq > closing_after))
        follows: tuple[str, ...] = ()
        out = []
        for s, nxt in zip(reversed(said), [None, *reversed(said)], strict=False):
            same = nxt is not None and nxt.before == _plain(s.text) and not nxt.clause
            follows = (nxt.text, *follows) if same and nxt is not None else ()
            out.append(replace(s, after=follows) if follows else s)
        yield from reversed(out)


def _message(seq: int, text: str, closing: bool) -> Iterator[Said]:
    section, before, fenced, lead = "", "", False, False
    lines = [ln.strip() for ln in text.splitlines()]
    for i, line in enumerate(lines):
        if _FENCE.match(line):
            fenced = not fenced
            continue
        if fenced or not line or _THINKING.match(line) or _echo_of_next(line, lines[i + 1:i + 3]):
            before = "" if not line else before
            continue
        head = _heading(line)
        if head is not None:
            section, before, lead = head, "", True
            continue
        body, marked = line, False
        inline = _INLINE_HEAD.match(line)
        title = (inline.group("b") or inline.group("p") or "").strip() if inline is not None else ""
        if inline is not None and inline.end() < len(line) and (inline.group("b") or _known_head(title)):
            section, body, before, lead = title, line[inline.end():], "", True
            marked = _CAUSE_TITLE.match(title) is not None
        lead = lead or (_FIRST_ITEM.match(line) is not None and bool(section))
        for part in split_sentences(body):
            said = _said(seq, part, section, closing, marked, before, lead)
            yield from said
            # a marker over a quoted symptom: the cause is often the next sentence
            marked = any(x.marked for x in said) and not any(x.marked and _CAUSAL.search(x.text) for x in said)
            before, lead = _plain(part), False


def _heading(line: str) -> str | None:
    """The heading a line is, alone on its line (a plain "Xxx:" only when it names a known part),
    or the lead-in of a list ("I fixed three build errors:", "There were two problems:")."""
    head = _BLOCK_HEAD.match(line)
    if head is None or (head.group("p") is not None and not _known_head(head.group("p"))):
        lead_in = line.endswith(":") and not line.startswith(("-", "*", "•")) and len(line.split()) <= 12
        return line.rstrip(":").strip() if lead_in and _FIRST_ITEM.match(line) is None else None
    return (head.group("h") or head.group("b") or head.group("p") or "").strip()


def _known_head(title: str) -> bool:
    """A plain title names a part a reader knows, and is no clause ("The tests pass now:")."""
    if len(title.split()) > 6 or not any(r.search(title) for r in (_CAUSE_HEAD, _OTHER_HEAD, _NEUTRAL_HEAD)):
        return False
    return _ASKS.match(title) is not None or _FINITE.search(title) is None


_ASKS = re.compile(r"^(?:why|what|how|where)\b", re.I)
_FINITE = re.compile(r"\b(?:is|are|was|were|now|pass(?:es|ed)?|works?|worked|fails?|failed|builds?|ran|runs)\b", re.I)


def split_sentences(text: str) -> list[str]:
    """Sentences of one line: a break after `.`/`!`/`?` and a space, never inside a code span or
    after an abbreviation ("e.g.")."""
    out, start = [], 0
    for m in _BREAK.finditer(text):
        head = text[start:m.start()]
        if head.count("`") % 2 or _ABBREV.search(head):
            continue
        out.append(head)
        start = m.end()
    out.append(text[start:])
    return [x for x in out if x.strip()]


def _echo_of_next(line: str, after: list[str]) -> bool:
    """A reasoning summary's bold title that repeats the start of the line after it."""
    bare = line.strip("*").strip()
    return line.startswith("**") and any(a.startswith(bare) and a != line for a in after if a)


def _said(seq: int, raw: str, section: str, closing: bool, marked: bool, before: str, lead: bool) -> list[Said]:
    s = _plain(raw)
    m = _MARKED.match(s)
    if m is not None and len(s) - m.end() >= 20:
        s, marked = s[m.end():], True
    if len(s) < 25 or s.endswith("?"):
        return []
    out = [Said(seq, s, section, closing, marked, False, before, lead)]
    b = _FAILED_BECAUSE.search(s)
    if b is not None and len(_plain(b.group("rest"))) >= 15:
        out.append(Said(seq, _plain(b.group("rest")), section, closing, marked, True, "", lead))
    return out


def _plain(s: str) -> str:
    """The sentence without list marks and emphasis."""
    s = re.sub(r"^(?:\d{1,2}[.)]|[-*•])[ \t]+", "", s.strip())
    return s.replace("**", "").strip().rstrip(":").strip()


def score(s: Said, overlap: int, echo: bool = False) -> int:
    """How surely the sentence states the cause (≥ 4: it does); `echo`: it mostly repeats the
    failure's own text (a symptom quoted, not a cause)."""
    if _PLAN.search(s.text) and not s.clause:
        return -9
    # overlap counts to 2: a sentence dense with the error's own names is nearer the symptom than the cause
    points = 3 * s.marked + 2 * s.clause + 2 * bool(_CAUSAL.search(s.text)) + min(overlap, 2) + s.closing
    if s.section:
        cause = _CAUSE_HEAD.search(s.section) and not _OTHER_HEAD.search(s.section)
        points += (2 + s.lead) if cause else -3 * bool(_OTHER_HEAD.search(s.section))
    if not s.clause and _FIX.search(s.text):
        points -= 4
    points -= 4 * bool(_ADVICE.search(s.text)) + 2 * bool(_GUESS.search(s.text)) + 2 * bool(_NOW.search(s.text))
    points -= 3 * echo
    if _STATUS.search(s.text) and not s.clause:
        points -= 2
    return points


def best(candidates: Iterable[tuple[Said, int, bool]], least: int = 4) -> tuple[int, str] | None:
    """(seq, sentence) of the surest cause, when it scores at least `least`: ties go to the closing
    words, then the latest message (the agent knows more by then), then the first sentence."""
    top: tuple[tuple[int, int, int, int], Said] | None = None
    for i, (s, overlap, echo) in enumerate(candidates):
        key = (score(s, overlap, echo), s.closing, s.seq, -i)
        if key[0] >= least and (top is None or key > top[0]):
            top = key, s
    if top is None:
        return None
    s = top[1]
    text = f"{s.before} {s.text}" if s.before and _ANAPHOR.match(s.text) and len(s.before) + len(s.text) < 300 else s.text
    for nxt in s.after:  # a cause is often said over a few sentences (eclipse-quick: which copy, then why it wins)
        if not _continues(nxt) or len(text) + len(nxt) >= 300:
            break
        text = f"{text} {nxt}"
    return s.seq, clean(text)


def _continues(nxt: str) -> bool:
    """The next sentence goes on stating the condition ("It needs strlcpy@GLIBC_2.38; Debian 12 has
    2.36."), not a fix, a plan, advice or a guess: a cause is often said over two sentences and
    the labels' misses named only the first (glibcpin, segscan, smemtile, cudart12)."""
    bad = (_FIX, _PLAN, _ADVICE, _GUESS, _STATUS, _NOW, _REMEDY)
    return _CAUSAL.search(nxt) is not None and not any(r.search(nxt) for r in bad)


_REMEDY = re.compile(r"\b(?:fix(?:es|ed)?|solutions?|remed(?:y|ies)|workarounds?|way out)\b", re.I)


def clean(s: str) -> str:
    """One line; a first word of plain English capitalised, a name (`kvcompat's`, `test_gridk`,
    `vendor/x`) left as written (heldout7: "Kvcompat's `_kvc.so`", "Vendor/probe-2.1/…")."""
    s = re.sub(r"\s+", " ", s).strip(" :—-")
    first = s.split(" ", 1)[0].lower() if s else ""
    return short(s[:1].upper() + s[1:] if first in _ENGLISH else s, 300)


_ENGLISH = frozenset(["the", "a", "an", "this", "that", "these", "those", "it", "its", "there", "both", "each", "every", "no", "your", "our", "my", "one", "two", "all", "some", "when", "because", "since", "with", "without", "only", "neither", "nothing", "none", "here"])
