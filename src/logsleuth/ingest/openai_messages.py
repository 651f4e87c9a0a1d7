"""Generic OpenAI-style chat messages (format "openai-messages").

Accepted containers: a JSON array of messages, a JSON object `{"messages": [...]}` (other top-level
members such as `id` may name the session), JSONL with one message per line, or JSONL with one
`{"messages": [...]}` conversation per line (each line its own session). One message's events come
from ingest/chat.py; a sequence of messages goes through ingest/fenced.py, so commands a model wrote
as fenced blocks and that the next message answers with `<returncode>` (mini-swe-agent and the
datasets made from it) are tool calls here too, read by the same pass as the swe-agent reader's.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import Any

import polars as pl

from logsleuth.ingest.base import EventSink, Probe, ReaderSpec
from logsleuth.ingest.chat import ROLES, call_text, content_text, emit_message, is_message
from logsleuth.ingest.fenced import emit_messages
from logsleuth.ingest.jsonscan import (
    Element,
    LineLedger,
    first_element,
    first_record,
    iter_jsonl,
    looks_like_jsonl,
    read_json_or_jsonl,
    scan_document,
)
from logsleuth.model import Transcript

FORMAT = "openai-messages"
_SESSION_KEYS = ("session_id", "sessionId", "conversation_id", "id")
# the vocabulary of one message, long imported from here
__all__ = ["FORMAT", "READERS", "ROLES", "call_text", "content_text", "emit_message", "is_message"]


# ---------------------------------------------------------------------------------------------
# detection


def sniff(probe: Probe) -> bool:
    if probe.is_dir or not probe.head:
        return False
    head = probe.head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if head[:1] == b"[":
        _, _, first = first_element(head, None)
        return is_message(first)
    if head[:1] != b"{":
        return False
    rec = first_record(head)
    if isinstance(rec, dict):
        return is_message(rec) or (_is_conversation(rec))
    _, members, first = first_element(head, "messages")
    return is_message(first) and not _foreign(members)


def _is_conversation(rec: dict[str, Any]) -> bool:
    msgs = rec.get("messages")
    return isinstance(msgs, list) and bool(msgs) and is_message(msgs[0]) and not _foreign(rec)


def _foreign(members: dict[str, Any]) -> bool:
    # gemini ConversationRecord (projectHash) and opencode exports (info) also hold `messages`
    return "projectHash" in members or "info" in members


# ---------------------------------------------------------------------------------------------
# reading


def read(probe: Probe) -> Transcript:
    t = read_json_or_jsonl(probe, FORMAT, _is_jsonl, read_lines, read_document)
    return Transcript(pair_by_position(t.events), t.report)


def pair_by_position(events: pl.DataFrame) -> pl.DataFrame:
    """Calls and results that carry no id (a Replit Agent memory export: tool_calls and `role: "tool"`
    messages without ids) paired by position: each id-less result answers the oldest id-less call of
    its session still unanswered; both get the id `pos:<call's seq>`. Events with ids are untouched."""
    kinds = events.get_column("kind").cast(pl.Utf8).to_list() if events.height else []
    ids = events.get_column("call_id").to_list() if events.height else []
    if not any(k in ("tool_call", "tool_result") and i is None for k, i in zip(kinds, ids, strict=True)):
        return events
    sessions, seqs = events.get_column("session").to_list(), events.get_column("seq").to_list()
    waiting: dict[str, list[str]] = {}
    out = list(ids)
    for i, (kind, call_id) in enumerate(zip(kinds, ids, strict=True)):
        if call_id is not None:
            continue
        if kind == "tool_call":
            out[i] = f"pos:{seqs[i]}"
            waiting.setdefault(sessions[i], []).append(out[i])
        elif kind == "tool_result" and waiting.get(sessions[i]):
            out[i] = waiting[sessions[i]].pop(0)
    return events.with_columns(pl.Series("call_id", out, dtype=pl.Utf8))


def read_lines(raw: bytes, sink: EventSink, ledger: LineLedger) -> None:
    """JSONL of messages, or of `{"messages": [...]}` conversations (also the swe-agent reader's)."""
    _read_jsonl(raw, sink.session, sink, ledger)


def _is_jsonl(text: str) -> bool:
    return looks_like_jsonl(text, is_message)


def _read_jsonl(raw: bytes, base: str, sink: EventSink, ledger: LineLedger) -> None:
    run: list[Element] = []  # consecutive message lines: one sequence, read in one pass
    for n, rec in iter_jsonl(io.BytesIO(raw), ledger):
        if isinstance(rec, dict) and isinstance(rec.get("messages"), list):
            emit_messages(sink, ledger, run, None)
            run = []
            _read_conversation(sink, ledger, n, rec["messages"], _session_of(rec) or f"{base}:{n}")
        elif isinstance(rec, dict):
            run.append(Element(rec, n, n))
        else:
            ledger.skip(n, "message is not a JSON object")
    emit_messages(sink, ledger, run, None)


def _read_conversation(sink: EventSink, ledger: LineLedger, n: int, messages: list[Any], session: str) -> None:
    """One `{"messages": [...]}` line: used when any of its messages gives an event (a bad message
    inside it is left out, not the whole line)."""
    before = len(sink)
    els = [Element(m, n, n) for m in messages if isinstance(m, dict)]
    emit_messages(sink, LineLedger(), els, session)
    if len(sink) > before:
        ledger.use(n)


def read_document(text: str, bad_lines: list[int], sink: EventSink, ledger: LineLedger,
                  prepare: Callable[[list[Element]], list[Element]] = list) -> None:
    """A JSON document of messages; `prepare` may reshape the good messages before they are read
    (the cline reader turns its result texts into result blocks)."""
    doc = scan_document(text, "messages")
    session = _session_of(doc.members)
    for line, reason in doc.errors:
        ledger.skip(line, reason)
    if doc.kind == "object" and not doc.found_array and not doc.errors:
        ledger.skip(1, "JSON object without a messages array")
    bad = set(bad_lines)
    good: list[Element] = []
    for el in doc.elements:
        if el.error:
            ledger.skip(el.first, el.error)
            continue
        hit = [b for b in range(el.first, el.last + 1) if b in bad]
        if hit:
            ledger.skip(hit[0], "invalid UTF-8")
            bad.difference_update(hit)
        elif isinstance(el.value, dict):
            good.append(el)
        else:
            ledger.skip(el.first, "message is not a JSON object")
    emit_messages(sink, ledger, prepare(good), session)
    for b in sorted(bad):
        if not ledger.is_skipped(b):
            ledger.skip(b, "invalid UTF-8")


def _session_of(members: dict[str, Any]) -> str | None:
    for key in _SESSION_KEYS:
        if isinstance(members.get(key), str) and members[key]:
            return str(members[key])
    return None


READERS = [
    ReaderSpec(
        name=FORMAT,
        sniff=sniff,
        read=read,
        description="OpenAI-style chat messages: JSON array, {messages: [...]}, or JSONL",
    )
]
