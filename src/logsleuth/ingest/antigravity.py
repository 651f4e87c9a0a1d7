"""Google Antigravity's trajectory, exported as one step a line (format "antigravity").

Each line is a step `{step_index, source, type, status, created_at, content?, tool_calls?}`:

- `USER_EXPLICIT` / `USER_INPUT`: what the user typed, inside `<USER_REQUEST>…</USER_REQUEST>`, then
  the IDE's `<ADDITIONAL_METADATA>` (open files, cursor, browser) and settings notes: only the request
  is the user's turn;
- `MODEL` / `PLANNER_RESPONSE`: the model's reply (`content`) and its calls (`tool_calls`: `{name,
  args}`, each argument's value JSON-encoded a second time: `"\\"npm run build\\""`);
- other `MODEL` steps (`VIEW_FILE`, `LIST_DIRECTORY`, `RUN_COMMAND`, `CODE_ACTION`, `GREP_SEARCH`,
  `GENERIC`, …): the results of the planner's calls, in order; they carry no call id, so each answers
  the oldest call still waiting (a file cut at its head may open with a result whose call is gone);
- `USER_EXPLICIT` steps other than input (`CODE_ACTION`, `VIEW_FILE`): what the human did in the IDE,
  told to the agent: context, not a turn and not a result; `SYSTEM` steps: the harness.
"""

from __future__ import annotations

import re
from typing import Any

import orjson

from logsleuth.ingest.base import EventSink, Probe, ReaderSpec
from logsleuth.ingest.jsonscan import LineLedger, as_str, read_each_jsonl, shell_or_json
from logsleuth.model import Kind, Role, Transcript

FORMAT = "antigravity"
_KEYS = frozenset({"step_index", "source", "type"})
_REQUEST = re.compile(r"<USER_REQUEST>\s*(?P<text>.*?)\s*</USER_REQUEST>", re.S)
_STAMPS = re.compile(r"\A(?:(?:Created|Completed) At: \S+\n)+")  # the step's own times, before its output
_EXIT = re.compile(r"(?:exit code|exit status)[: ]+(?P<code>-?\d+)", re.I)
_SUCCESS = "The command completed successfully."


def is_step(rec: Any) -> bool:
    return isinstance(rec, dict) and rec.keys() >= _KEYS and rec.get("source") in ("USER_EXPLICIT", "MODEL", "SYSTEM")


def sniff(probe: Probe) -> bool:
    if probe.is_dir or not probe.head:
        return False
    for piece in probe.head.split(b"\n")[:5]:
        if piece.strip():
            try:
                return is_step(orjson.loads(piece))
            except ValueError:
                return False
    return False


class _Reader:
    def __init__(self, sink: EventSink, ledger: LineLedger, session: str):
        self.sink, self.ledger, self.session = sink, ledger, session
        self.waiting: list[tuple[str, str]] = []  # (call id, tool) of calls not yet answered, oldest first
        self.orphans = 0

    def feed(self, n: int, step: Any) -> None:
        if not is_step(step):
            self.ledger.skip(n, "not an Antigravity step")
            return
        self.ledger.use(n)
        source, stype, ts = step["source"], as_str(step.get("type")), step.get("created_at")
        content = as_str(step.get("content"))
        if source == "USER_EXPLICIT" and stype == "USER_INPUT":
            m = _REQUEST.search(content)
            self._add(n, Role.USER, Kind.TEXT, (m.group("text") if m else content).strip(), ts)
        elif source == "MODEL" and stype == "PLANNER_RESPONSE":
            self._add(n, Role.ASSISTANT, Kind.TEXT, content.strip(), ts)
            for i, call in enumerate(step.get("tool_calls") or []):
                self._call(n, i, call, ts)
        elif source == "MODEL":
            self._result(n, stype, content, ts)
        elif content.strip():  # the IDE's or the harness's note
            self._add(n, Role.SYSTEM, Kind.TEXT, content.strip(), ts)

    def _add(self, n: int, role: Role, kind: Kind, text: str, ts: Any, **extra: Any) -> None:
        if text or kind is Kind.TOOL_RESULT:
            self.sink.add(line=n, role=role, kind=kind, text=text, ts=ts, session=self.session, **extra)

    def _call(self, n: int, i: int, call: Any, ts: Any) -> None:
        if not isinstance(call, dict):
            return
        name = as_str(call.get("name")) or "unknown"
        args = {k: _decoded(v) for k, v in (call.get("args") or {}).items() if k not in ("toolAction", "toolSummary")}
        command = args.pop("CommandLine", None)
        text = shell_or_json(name, {"command": command} if isinstance(command, str) else args)
        call_id = f"antigravity:{n}:{i}"
        self.waiting.append((call_id, name))
        self._add(n, Role.ASSISTANT, Kind.TOOL_CALL, text, ts, tool=name, call_id=call_id)

    def _result(self, n: int, stype: str, content: str, ts: Any) -> None:
        call_id, tool = self.waiting.pop(0) if self.waiting else (None, stype.lower())
        self.orphans += call_id is None
        out = _STAMPS.sub("", content).strip()
        m = _EXIT.search(out) if stype == "RUN_COMMAND" else None
        code = int(m.group("code")) if m else (0 if stype == "RUN_COMMAND" and _SUCCESS in out else None)
        self._add(n, Role.TOOL, Kind.TOOL_RESULT, out, ts, tool=tool, call_id=call_id, exit_code=code,
                  is_error=None if code is None else code != 0)


def _decoded(value: Any) -> Any:
    """An argument as the planner meant it: its values are JSON strings of JSON values."""
    if isinstance(value, str):
        try:
            return orjson.loads(value)
        except ValueError:
            return value
    return value


def read(probe: Probe) -> Transcript:
    return read_each_jsonl(probe, FORMAT, lambda sink, ledger, sid: _Reader(sink, ledger, sid).feed)


READERS = [
    ReaderSpec(name=FORMAT, sniff=sniff, read=read,
               description="Google Antigravity trajectory steps, one JSON step a line (USER_INPUT, PLANNER_RESPONSE, tool steps)"),
]
