"""Sentences, rule entities and cue phrases of prose, in plain Python: the rules reasoning.py ran in spaCy.

reasoning.py used spaCy's blank English with its own regex tokenizer, the `sentencizer`, an
`EntityRuler` of phrase patterns (on lower-cased tokens, overwriting the tokenizer's labels) and a
`PhraseMatcher` of cue phrases: no model, only rules. Importing spaCy and building that pipeline
cost 0.83 s CPU of the sample's ~1.9 s `analyze` (measured here), its work on the sample 36 ms. This
module does the same work with the same semantics (spaCy 3.8's, kept where they are odd: a ruler
match is taken when its first and last tokens are free), so every Sentence is the same.
"""

from __future__ import annotations

import itertools
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

# spaCy's Sentencizer.default_punct_chars
PUNCT_CHARS = frozenset('!.?\u0589\u061f\u06d4\u0700\u0701\u0702\u07f9\u0964\u0965\u104a\u104b\u1362\u1367\u1368\u166e\u1735\u1736\u1803\u1809\u1944\u1945\u1aa8\u1aa9\u1aaa\u1aab\u1b5a\u1b5b\u1b5e\u1b5f\u1c3b\u1c3c\u1c7e\u1c7f\u203c\u203d\u2047\u2048\u2049\u2e2e\u2e3c\ua4ff\ua60e\ua60f\ua6f3\ua6f7\ua876\ua877\ua8ce\ua8cf\ua92f\ua9c8\ua9c9\uaa5d\uaa5e\uaa5f\uaaf0\uaaf1\uabeb\ufe52\ufe56\ufe57\uff01\uff0e\uff1f\U00010a56\U00010a57\U00011047\U00011048\U000110be\U000110bf\U000110c0\U000110c1\U00011141\U00011142\U00011143\U000111c5\U000111c6\U000111cd\U000111de\U000111df\U00011238\U00011239\U0001123b\U0001123c\U000112a9\U0001144b\U0001144c\U000115c2\U000115c3\U000115c9\U000115ca\U000115cb\U000115cc\U000115cd\U000115ce\U000115cf\U000115d0\U000115d1\U000115d2\U000115d3\U000115d4\U000115d5\U000115d6\U000115d7\U00011641\U00011642\U0001173c\U0001173d\U0001173e\U00011a42\U00011a43\U00011a9b\U00011a9c\U00011c41\U00011c42\U00016a6e\U00016a6f\U00016af5\U00016b37\U00016b38\U00016b44\U0001bc9f\U0001da88\uff61\u3002')

Ent = tuple[int, int, str]  # (start token, end token, label)


@dataclass(slots=True)
class Doc:
    """Tokens of one text block; its text is the tokens joined by single spaces where the text had space."""

    words: list[str]
    spaces: list[bool]
    labels: list[str | None]  # the tokenizer's entity label of each token
    lowers: list[str] = field(init=False)
    idx: list[int] = field(init=False)  # character offset of each token in `text`
    text: str = field(init=False)
    ents: list[Ent] = field(default_factory=list)
    starts: list[int] = field(default_factory=list)  # first token of each sentence

    def __post_init__(self) -> None:
        self.lowers = [w.lower() for w in self.words]
        self.idx = []
        at = 0
        for w, sp in zip(self.words, self.spaces, strict=True):
            self.idx.append(at)
            at += len(w) + sp
        self.text = "".join(w + " " * sp for w, sp in zip(self.words, self.spaces, strict=True))

    def __len__(self) -> int:
        return len(self.words)

    def span_text(self, start: int, end: int) -> str:
        """The text of tokens [start, end), without the last token's trailing space."""
        return self.text[self.idx[start] : self.idx[end - 1] + len(self.words[end - 1])]

    def sents(self) -> list[tuple[int, int]]:
        """(start, end) token ranges of the sentences."""
        bounds = [*self.starts, len(self.words)]
        return [(a, b) for a, b in itertools.pairwise(bounds) if a < b]

    def sent_ents(self, start: int, end: int) -> list[Ent]:
        """Entities wholly inside [start, end): spaCy's Span.ents, which stops at one crossing the end."""
        out = []
        for ent in self.ents:
            if ent[0] >= start:
                if ent[1] <= end:
                    out.append(ent)
                else:
                    break
        return out


def _is_punct(text: str) -> bool:
    return all(unicodedata.category(c).startswith("P") for c in text)


def sentencize(doc: Doc, blocked: Sequence[bool]) -> None:
    """spaCy's Sentencizer: a sentence ends at a run of terminal punctuation, before the next
    non-punctuation token; no sentence starts at a `blocked` token (set before it ran)."""
    n = len(doc.words)
    guess = [False] * n
    if n:
        start, seen = 0, False
        guess[0] = True
        for i, w in enumerate(doc.words):
            terminal = w in PUNCT_CHARS
            if seen and not terminal and not _is_punct(w):
                guess[start] = True
                start, seen = i, False
            elif terminal:
                seen = True
        guess[start] = True
    doc.starts = [i for i in range(n) if guess[i] and not (i and blocked[i])]


class Phrases:
    """Phrase patterns (token sequences, lower-cased) under keys: spaCy's PhraseMatcher on LOWER."""

    def __init__(self, entries: Iterable[tuple[str, Sequence[str]]]):
        self._first: dict[str, list[tuple[str, tuple[str, ...]]]] = {}
        seen: set[tuple[str, tuple[str, ...]]] = set()
        for key, tokens in entries:
            seq = tuple(tokens)
            if seq and (key, seq) not in seen:
                seen.add((key, seq))
                self._first.setdefault(seq[0], []).append((key, seq))

    def matches(self, lowers: Sequence[str]) -> list[tuple[str, int, int]]:
        """Every (key, start, end) where a phrase occurs, overlapping ones included, by start."""
        out: list[tuple[str, int, int]] = []
        n = len(lowers)
        for i, low in enumerate(lowers):
            for key, seq in self._first.get(low, ()):
                end = i + len(seq)
                if end <= n and (len(seq) == 1 or tuple(lowers[i + 1 : end]) == seq[1:]):
                    out.append((key, i, end))
        return out


def rule_entities(doc: Doc, ruler: Phrases) -> None:
    """The tokenizer's one-token entities, overwritten by the ruler's phrase matches (spaCy's
    EntityRuler with overwrite_ents: longest first, then earliest)."""
    entities: list[Ent] = [(i, i + 1, lab) for i, lab in enumerate(doc.labels) if lab is not None]
    found = sorted(set(ruler.matches(doc.lowers)), key=lambda m: (m[2] - m[1], -m[1]), reverse=True)
    new: list[Ent] = []
    taken: set[int] = set()
    for label, start, end in found:
        if start not in taken and end - 1 not in taken:
            new.append((start, end, label))
            entities = [e for e in entities if not (e[0] < end and e[1] > start)]
            taken.update(range(start, end))
    doc.ents = sorted(entities + new)
