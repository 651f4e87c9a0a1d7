"""Codex CLI rollout JSONL (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`).

Current layout: one `{timestamp, type, payload}` envelope per line. `session_meta` names the
session; `response_item` carries the conversation (messages, reasoning, function / custom /
local-shell calls and their outputs); `event_msg` mostly repeats it for the UI. Legacy layout
(before mid 2025): a bare `{id, timestamp, instructions}` header, `{"record_type": …}` markers,
then bare response items.

Which source wins: `response_item` whenever the file has any. Then `event_msg` repeats
(user_message, agent_message, agent_reasoning, exec_command_*, item_completed) are ignored,
except that an `exec_command_end` exit code fills in an output that states none, an `error`
event becomes a system error, and a completed `CommandExecution` item with no matching call
(code mode runs commands inside one `exec` call) becomes a call plus its result. The finished
tool events (`exec_command_end`, `mcp_tool_call_end`, `patch_apply_end`) whose call id no
`response_item` carries become a call plus its result (exit code, error flag); "mirrored" is
decided over the whole file (a pre-pass), since an end event may precede its call item, and a
mirrored end event's outcome (exit code, MCP `Err` / `isError`, patch `success`) fills in the
output item that states none, in either order. An end event whose call is still open (a begin
event) adds only its result; otherwise it is one call, even if a redacted file repeats its id.
MCP calls also arrive as `mcp_tool_call` / `mcp_tool_call_output` items, and deferred-tool
lookups as `tool_search_call` / `tool_search_output`. A file with no `response_item` at all is
read from its `event_msg` / `item_completed` records instead.
"""

from __future__ import annotations

import os
import re
import shlex
from typing import IO, Any

import orjson

from logsleuth.ingest.agent_jsonl import (
    BadRecord,
    block_text,
    compact_json,
    head_records,
    iter_raw_lines,
    iter_records,
    type_name,
)
from logsleuth.ingest.base import HEAD_BYTES, EventSink, Probe, ReaderSpec, ReportBuilder, session_from_path
from logsleuth.ingest.codex_cells import CELL_TOOL, NESTED_PREFIX, cell_call
from logsleuth.ingest.codex_exec import RunningCommands, poll_session, running_session
from logsleuth.ingest.codex_turns import as_context, is_user_item, is_user_message, logs_typed_turns
from logsleuth.ingest.tools import is_shell
from logsleuth.model import Kind, Role, Transcript

FORMAT = "codex"
_ENVELOPES = frozenset({"session_meta", "response_item", "event_msg", "turn_context", "compacted"})
_ITEMS = frozenset(
    {
        "message", "reasoning", "function_call", "function_call_output", "custom_tool_call",
        "custom_tool_call_output", "local_shell_call", "local_shell_call_output", "web_search_call",
        "mcp_tool_call", "mcp_tool_call_output", "tool_search_call", "tool_search_output",
    }
)
_CALL_ITEMS = frozenset({"function_call", "custom_tool_call", "local_shell_call", "mcp_tool_call", "tool_search_call"})
_OUTPUT_ITEMS = frozenset(
    {"function_call_output", "custom_tool_call_output", "local_shell_call_output", "mcp_tool_call_output",
     "tool_search_output"}
)
_SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh", "fish", "pwsh", "powershell", "powershell.exe"})
# user-role messages the harness writes (environment, AGENTS.md), not the person typing
_INJECTED = ("<environment_context>", "<user_instructions>", "# AGENTS.md instructions", "<permissions instructions>")
_EXIT_RE = re.compile(r"^(?:Exit code:|Process exited with code)\s*(-?\d{1,20})\s*$")  # bounded: int() of 4300+ digits raises
_HEADER_RE = re.compile(
    r"^(?:Chunk ID|Wall time|Exit code|Process exited with code|Process running with session ID"
    r"|Original token count|Total output lines|Command)\b"
)
_CALL_ID_RE = re.compile(rb'"call_id"\s*:\s*"([^"\\]{1,512})"')
# finished tools as event_msg records (codex-rs/protocol/src/protocol.rs: ExecCommandEndEvent,
# McpToolCallEndEvent, PatchApplyEndEvent)
_END_EVENTS = frozenset({"exec_command_end", "mcp_tool_call_end", "patch_apply_end"})
_FAILED = frozenset({"failed", "declined", "error"})  # exec status when no exit code says
_UUID_RE = re.compile(r"([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$")

Event = dict[str, Any]


class _Reader:
    def __init__(self, probe: Probe, report: ReportBuilder, sink: EventSink, mode: str):
        self.report = report
        self.sink = sink
        self.mode = mode  # "response" | "events" | "items"
        self.session: str | None = None
        self.fallback = _session_from_name(probe.display)
        self._calls: set[str] = set()  # call ids seen in response items (or events)
        self._open: set[str] = set()  # calls read whose result has not come yet
        self._tools: dict[str, str] = {}
        self.mirrored: frozenset[str] = frozenset()  # call ids some response_item carries (see read)
        # (exit code, is_error) of mirrored end events, for output items that state none (see read)
        self.outcomes: dict[str, tuple[int | None, bool | None]] = {}
        self._from_events: set[str] = set()  # call ids read from an end event: items repeating them are dropped
        self._running = RunningCommands()  # unified-exec commands still running, and their polls
        self._absorbed = False  # the record just read went into a held event (used, nothing to emit yet)
        # the file logs each typed prompt as an event_msg user_message right after its response item:
        # a user item with no such twin is context the CLI injected (AGENTS.md, environment), even
        # where redaction hides the `<environment_context>` prefix that would tell it
        self.typed_turns = False

    def read(self, f: IO[bytes]) -> None:
        n = 0
        pending: tuple[int, list[Event]] | None = None  # a user item waiting for its user_message twin
        for n, _raw, value in iter_records(f, self.report):
            self._absorbed = False
            if pending is not None:
                self._emit(pending[0], pending[1] if is_user_message(value) else as_context(pending[1]))
                pending = None
            try:
                events = self._record(value)
            except BadRecord as exc:
                self.report.skip(n, str(exc))
                continue
            except Exception as exc:  # a record shape nobody foresaw must not end the read
                self.report.skip(n, f"unusable record ({type(exc).__name__}: {exc})")
                continue
            if not events and not self._absorbed:
                self.report.ignored += 1
                continue
            self.report.used += 1
            if self.typed_turns and is_user_item(value) and any(ev.get("role") == Role.USER for ev in events):
                pending = (n, events)
                continue
            self._emit(n, events)
        if pending is not None:
            self._emit(pending[0], as_context(pending[1]))
        self._emit(n, self._running.release())

    def _emit(self, line: int, events: list[Event]) -> None:
        sess = self.session or self.fallback
        for ev in events:
            self.sink.add(line=line, session=sess, **ev)

    def _record(self, rec: Any) -> list[Event]:
        if not isinstance(rec, dict):
            raise BadRecord(f"not a JSON object ({type_name(rec)})")
        typ = rec.get("type")
        ts = rec.get("timestamp")
        if typ in _ENVELOPES:
            payload = rec.get("payload")
            if not isinstance(payload, dict):
                raise BadRecord(f"{typ} record without a payload object (payload is {type_name(payload)})")
            if typ == "session_meta":
                self._name_session(payload.get("id"))
                return []
            if typ == "response_item":
                return self._item(payload, ts)
            if typ == "event_msg":
                return self._event(payload, ts)
            return []  # turn_context, compacted
        if typ is None and "record_type" in rec:
            return []  # legacy state marker
        if typ is None and self.session is None and isinstance(rec.get("id"), str) and "timestamp" in rec:
            self._name_session(rec.get("id"))  # legacy header
            return []
        if isinstance(typ, str):
            return self._item(rec, ts) if typ in _ITEMS else []
        raise BadRecord("record without a type")

    def _name_session(self, sid: Any) -> None:
        # forked threads replay their parent's session_meta: the first one is this file's
        if self.session is None and isinstance(sid, str) and sid:
            self.session = sid

    # -- response items ---------------------------------------------------------------------

    def _item(self, p: dict[str, Any], ts: Any) -> list[Event]:
        t = p.get("type")
        base: Event = {"ts": ts}
        if t == "message":
            return self._message(p, base)
        if t == "reasoning":
            text = _reasoning_text(p)
            return [_ev(base, Role.ASSISTANT, Kind.REASONING, text)] if text else []
        if (t in _CALL_ITEMS or t in _OUTPUT_ITEMS) and self._from_events:
            call_id = _str(p.get("call_id")) or _str(p.get("id"))
            if call_id in self._from_events:
                return []  # missed by the pre-pass: already read from its end event
        if t in _CALL_ITEMS:
            return self._call_or_poll(p, base)
        if t in _OUTPUT_ITEMS:
            return self._output_or_poll(p, base)
        if t == "web_search_call":
            action = p.get("action")
            query = action.get("query") if isinstance(action, dict) else None
            if not isinstance(query, str) or not query:  # a search the file keeps no query of is still one
                query = f"[web search {_str(p.get('status')) or 'call'}]"
            return [_ev(base, Role.ASSISTANT, Kind.TOOL_CALL, query, tool="web_search")]
        return []

    def _message(self, p: dict[str, Any], base: Event) -> list[Event]:
        role = p.get("role")
        if not isinstance(role, str):
            raise BadRecord(f"message without a role (role is {type_name(role)})")
        content = p.get("content")
        if not isinstance(content, (str, list)):
            raise BadRecord(f"message content is {type_name(content)}, expected a string or a list")
        text = block_text(content)
        if not text.strip():
            return []
        return [_ev(base, _role(role, text), Kind.TEXT, text)]

    def _call_or_poll(self, p: dict[str, Any], base: Event) -> list[Event]:
        """A call, after any held command it ends the wait for; nothing for a poll of a held command."""
        call_id = _str(p.get("call_id")) or _str(p.get("id"))
        if p.get("type") == "function_call" and self._running.absorb_call(
                call_id, poll_session(_str(p.get("name")) or "", p.get("arguments"))):
            self._absorbed = True
            return []
        return [*self._running.release(), self._call(p, base)]

    def _output_or_poll(self, p: dict[str, Any], base: Event) -> list[Event]:
        """An output; a still-running command's is held, a poll's goes into its command's (codex_exec)."""
        result = self._output(p, base)
        body = p.get("output")
        running = running_session(body)
        done = self._running.absorb_output(result.get("call_id"), result, running is not None)
        if done is None and running is not None and p.get("type") == "function_call_output":
            self._running.hold(running, result)
            done = []
        self._absorbed = done == []
        return [result] if done is None else done

    def _call(self, p: dict[str, Any], base: Event) -> Event:
        call_id = _str(p.get("call_id")) or _str(p.get("id"))
        if p.get("type") == "local_shell_call":
            name = "local_shell"
            action = p.get("action")
            command = action.get("command") if isinstance(action, dict) else None
            text = unwrap_shell(command) if command is not None else compact_json(action)
        elif p.get("type") == "mcp_tool_call":
            server = _str(p.get("server")) or _str(p.get("server_label")) or "mcp"
            name = f"mcp__{server}__{_str(p.get('tool')) or _str(p.get('tool_name')) or _str(p.get('name')) or 'tool'}"
            args = p.get("arguments")
            text = args if isinstance(args, str) else compact_json(args) if args is not None else ""
        elif p.get("type") == "tool_search_call":
            name = "tool_search"
            args = p.get("arguments")
            query = args.get("query") if isinstance(args, dict) else None
            text = query if isinstance(query, str) else compact_json(args) if args is not None else ""
        else:
            name = _str(p.get("name")) or ""
            space = _str(p.get("namespace"))
            if space and space.startswith("mcp__") and not name.startswith("mcp__"):
                name = space + name if space.endswith("__") else f"{space}__{name}"
            raw = p.get("arguments") if p.get("type") == "function_call" else p.get("input")
            cell = cell_call(raw) if name == CELL_TOOL and p.get("type") == "custom_tool_call" and isinstance(raw, str) else None
            if cell is not None:  # a code-mode cell: read as the tool it calls
                name, raw = cell
            elif name == CELL_TOOL and p.get("type") == "custom_tool_call":
                name = "exec_cell"  # JavaScript, not a command line (`exec` is a shell tool's name elsewhere)
            text = call_text(name, raw)
        if call_id:
            self._calls.add(call_id)
            self._open.add(call_id)
            self._tools[call_id] = name
        return _ev(base, Role.ASSISTANT, Kind.TOOL_CALL, text, tool=name or None, call_id=call_id)

    def _output(self, p: dict[str, Any], base: Event) -> Event:
        call_id = _str(p.get("call_id")) or _str(p.get("id"))
        body = p.get("output", p.get("result"))
        if p.get("type") == "tool_search_output":
            text, exit_code, is_error = _tool_names(p.get("tools")), None, None
        elif isinstance(body, dict) and ("Ok" in body or "Err" in body):  # an MCP result, as in end events
            (text, is_error), exit_code = mcp_result(body), None
        else:
            text, exit_code, is_error = parse_output(body)
        code, failed = self.outcomes.get(call_id or "", (None, None))
        if exit_code is None and code is not None:
            exit_code = code
            is_error = code != 0 if is_error is None else is_error
        if failed and not is_error:
            is_error = True  # the end event knows the tool failed (MCP Err / isError, patch not applied)
        elif is_error is None and failed is False:
            is_error = False
        if call_id:
            self._open.discard(call_id)
        tool = self._tools.get(call_id) if call_id else None
        return _ev(base, Role.TOOL, Kind.TOOL_RESULT, text, tool=tool, call_id=call_id, is_error=is_error,
                   exit_code=exit_code)

    # -- event messages ---------------------------------------------------------------------

    def _event(self, p: dict[str, Any], ts: Any) -> list[Event]:
        t = p.get("type")
        base: Event = {"ts": ts}
        if t == "error":
            message = p.get("message")
            text = message if isinstance(message, str) and message else "error"
            return [_ev(base, Role.SYSTEM, Kind.TEXT, text, is_error=True)]
        if t == "item_completed":
            return self._completed_item(p.get("item"), base)
        if self.mode == "response":
            if t not in _END_EVENTS:
                return []
            call_id = _str(p.get("call_id"))
            if call_id is not None and (call_id in self.mirrored or call_id.startswith(NESTED_PREFIX)):
                return []  # its outcome reached the output item through the pre-pass; or a cell's own tool
            return self._end_event(t, p, base, call_id)
        if self.mode == "items":
            return []  # item_completed records carry this session's conversation
        if t in ("user_message", "agent_message", "agent_reasoning"):
            said = p.get("message") if t != "agent_reasoning" else p.get("text")
            if not isinstance(said, str) or not said.strip():
                return []
            if t == "user_message":
                return [_ev(base, _role("user", said), Kind.TEXT, said)]
            kind = Kind.TEXT if t == "agent_message" else Kind.REASONING
            return [_ev(base, Role.ASSISTANT, kind, said)]
        if t == "exec_command_begin":
            call_id = _str(p.get("call_id"))
            if call_id:
                self._calls.add(call_id)
                self._open.add(call_id)
            return [_ev(base, Role.ASSISTANT, Kind.TOOL_CALL, unwrap_shell(p.get("command")), tool="shell",
                        call_id=call_id)]
        if t in _END_EVENTS:
            return self._end_event(t, p, base, _str(p.get("call_id")))
        return []

    def _end_event(self, t: str, p: dict[str, Any], base: Event, call_id: str | None) -> list[Event]:
        """A finished exec / MCP / patch tool that no response item records: its call and result."""
        if call_id:
            self._from_events.add(call_id)
        if t == "exec_command_end":
            return self._command_pair(p, base, call_id)
        if t == "mcp_tool_call_end":
            return self._mcp_pair(p, base, call_id)
        return self._patch_pair(p, base, call_id)

    def _call_unless_seen(self, out: list[Event], base: Event, call_id: str | None, text: str, tool: str) -> None:
        """The call of a finished-tool record, unless a call still open (a begin event) holds it."""
        if call_id is not None and call_id in self._open:
            self._open.discard(call_id)
            return
        if call_id:
            self._calls.add(call_id)
        out.append(_ev(base, Role.ASSISTANT, Kind.TOOL_CALL, text, tool=tool, call_id=call_id))

    def _mcp_pair(self, p: dict[str, Any], base: Event, call_id: str | None) -> list[Event]:
        inv = p.get("invocation")
        inv = inv if isinstance(inv, dict) else {}
        server, name = _str(inv.get("server")) or "mcp", _str(inv.get("tool")) or "tool"
        tool = f"mcp__{server}__{name}"  # the Claude Code spelling of an MCP tool
        args = inv.get("arguments")
        out: list[Event] = []
        self._call_unless_seen(out, base, call_id, compact_json(args) if args is not None else "", tool)
        text, is_error = mcp_result(p.get("result"))
        out.append(_ev(base, Role.TOOL, Kind.TOOL_RESULT, text, tool=tool, call_id=call_id, is_error=is_error))
        return out

    def _patch_pair(self, p: dict[str, Any], base: Event, call_id: str | None) -> list[Event]:
        changes = p.get("changes")
        files = sorted(str(k) for k in changes) if isinstance(changes, dict) else []
        out: list[Event] = []
        self._call_unless_seen(out, base, call_id, "apply_patch " + " ".join(files) if files else "apply_patch",
                               "apply_patch")
        text = "\n".join(s for s in (p.get("stdout"), p.get("stderr")) if isinstance(s, str) and s)
        ok = p.get("success")
        is_error = (not ok) if isinstance(ok, bool) else None
        out.append(_ev(base, Role.TOOL, Kind.TOOL_RESULT, text, tool="apply_patch", call_id=call_id,
                       is_error=is_error))
        return out

    def _completed_item(self, item: Any, base: Event) -> list[Event]:
        if not isinstance(item, dict):
            return []
        t = item.get("type")
        if t == "CommandExecution":
            call_id = _str(item.get("id")) or _str(item.get("call_id"))
            if self.mode == "response" and call_id in self._calls:
                return []  # the response items already hold this command
            return self._command_pair(item, base, call_id)
        if self.mode != "items":
            return []
        if t in ("UserMessage", "AgentMessage"):
            text = block_text(item.get("content")) or _str(item.get("text")) or ""
            if not text.strip():
                return []
            role = _role("user", text) if t == "UserMessage" else Role.ASSISTANT
            return [_ev(base, role, Kind.TEXT, text)]
        if t == "Reasoning":
            parts = [s for key in ("summary_text", "raw_content", "content") for s in _strings(item.get(key))]
            text = "\n\n".join(dict.fromkeys(parts))
            return [_ev(base, Role.ASSISTANT, Kind.REASONING, text)] if text else []
        return []

    def _command_pair(self, p: dict[str, Any], base: Event, call_id: str | None) -> list[Event]:
        """A finished command recorded in one record: emit its call (unless seen) and result."""
        out: list[Event] = []
        self._call_unless_seen(out, base, call_id, unwrap_shell(p.get("command")), "shell")
        code = p.get("exit_code", p.get("exitCode"))
        code = code if isinstance(code, int) and not isinstance(code, bool) else None
        text = ""
        for key in ("aggregated_output", "aggregatedOutput", "formatted_output"):
            if isinstance(p.get(key), str) and p[key]:
                text = p[key]
                break
        else:
            text = "\n".join(s for s in (p.get("stdout"), p.get("stderr")) if isinstance(s, str) and s)
        is_error = code != 0 if code is not None else (True if p.get("status") in _FAILED else None)
        out.append(_ev(base, Role.TOOL, Kind.TOOL_RESULT, text, tool="shell", call_id=call_id, is_error=is_error,
                       exit_code=code))
        return out


# -- pieces -------------------------------------------------------------------------------------


def _ev(base: Event, role: Role, kind: Kind, text: str, **extra: Any) -> Event:
    return {**base, "role": role, "kind": kind, "text": text, **extra}


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value] if value.strip() else []
    if isinstance(value, list):
        out = []
        for v in value:
            if isinstance(v, str) and v.strip():
                out.append(v)
            elif isinstance(v, dict) and isinstance(v.get("text"), str) and v["text"].strip():
                out.append(v["text"])
        return out
    return []


def _role(role: str, text: str) -> Role:
    if role == "assistant":
        return Role.ASSISTANT
    if role == "user":
        return Role.SYSTEM if text.lstrip().startswith(_INJECTED) else Role.USER
    return Role.SYSTEM  # developer, system


def _reasoning_text(p: dict[str, Any]) -> str:
    parts = _strings(p.get("summary")) + _strings(p.get("content"))
    return "\n\n".join(dict.fromkeys(parts))  # raw content may repeat the summary


def unwrap_shell(command: Any) -> str:
    """The command line a shell call ran: `["bash", "-lc", "make"]` -> `make`."""
    if isinstance(command, list) and command and all(isinstance(c, str) for c in command):
        inner = _script_of(command)
        return inner if inner is not None else shlex.join(command)
    if isinstance(command, str):
        try:
            parts = shlex.split(command)
        except ValueError:
            return command
        inner = _script_of(parts)
        return inner if inner is not None else command
    return "" if command is None else compact_json(command)


def _script_of(argv: list[str]) -> str | None:
    """The script of `<shell> [flags] -c SCRIPT` (exactly one argument after the flag), else None."""
    if len(argv) < 3 or os.path.basename(argv[0]).lower() not in _SHELLS:
        return None
    for i in range(1, len(argv) - 1):
        flag = argv[i]
        if not flag.startswith(("-", "/")):
            return None
        if flag.lower() in ("-command", "/c") or (flag.startswith("-") and not flag.startswith("--") and "c" in flag):
            return argv[i + 1] if i + 2 == len(argv) else None
    return None


def call_text(name: str, raw: Any) -> str:
    """A call's text: the command line for shell tools, else the arguments as compact JSON."""
    shell = is_shell(name)
    args = raw
    if isinstance(raw, str):
        if not raw.lstrip().startswith(("{", "[")):
            # apply_patch input, a free-form command, or a redacted argument string
            return unwrap_shell(raw) if shell else raw
        try:
            args = orjson.loads(raw)
        except orjson.JSONDecodeError:
            return raw
    if shell and isinstance(args, dict):
        command = args.get("command", args.get("cmd"))
        if command is not None:
            text = unwrap_shell(command)
            if text:
                return text
    return compact_json(args)


def mcp_result(result: Any) -> tuple[str, bool | None]:
    """(text, is_error) of an McpToolCallEnd `result`: serde's `{"Ok": CallToolResult}` or
    `{"Err": "message"}` (a bare CallToolResult tolerated)."""
    if isinstance(result, dict) and "Err" in result:
        err = result["Err"]
        return (err if isinstance(err, str) else compact_json(err)), True
    ok = result.get("Ok", result) if isinstance(result, dict) else None
    if not isinstance(ok, dict):
        return "", None
    text = block_text(ok.get("content")) if isinstance(ok.get("content"), (str, list)) else ""
    if not text and ok.get("structuredContent", ok.get("structured_content")) is not None:
        text = compact_json(ok.get("structuredContent", ok.get("structured_content")))
    flag = ok.get("isError", ok.get("is_error"))
    return text, (flag if isinstance(flag, bool) else False)


def _tool_names(tools: Any) -> str:
    """What a tool search found: the names of the tools (and groups) it loaded, one a line."""
    names: list[str] = []
    stack = list(tools) if isinstance(tools, list) else []
    while stack:
        t = stack.pop(0)
        if isinstance(t, dict):
            if isinstance(t.get("name"), str):
                names.append(t["name"])
            if isinstance(t.get("tools"), list):
                stack[:0] = t["tools"]
    return "\n".join(names)


def parse_output(output: Any) -> tuple[str, int | None, bool | None]:
    """(text, exit code, is_error) of a tool output in any of its shapes."""
    if output is None:
        return "", None, None
    if isinstance(output, str):
        if output.lstrip().startswith("{"):
            try:
                value = orjson.loads(output)
            except orjson.JSONDecodeError:
                value = None
            if isinstance(value, dict) and ({"output", "metadata", "exit_code"} & value.keys()):
                return _from_dict(value)
        return _from_text(output)
    if isinstance(output, dict):
        return _from_dict(output)
    if isinstance(output, list):
        return _from_text(block_text(output))
    raise BadRecord(f"tool output is {type_name(output)}, expected a string, object or list")


def _from_dict(d: dict[str, Any]) -> tuple[str, int | None, bool | None]:
    body = next((d[k] for k in ("output", "content", "aggregated_output", "text") if k in d), "")
    text, code, _ = _from_text(block_text(body) if not isinstance(body, str) else body)
    meta = d.get("metadata")
    for v in (d.get("exit_code"), d.get("exitCode"), meta.get("exit_code") if isinstance(meta, dict) else None):
        if isinstance(v, int) and not isinstance(v, bool):
            code = v
            break
    flag = d.get("isError", d.get("is_error"))
    is_error = flag if isinstance(flag, bool) else None
    if code is not None and not is_error:
        is_error = code != 0
    return text, code, is_error


def _from_text(s: str) -> tuple[str, int | None, bool | None]:
    """Read and drop Codex's header (`Exit code:` / `Process exited with code`, … `Output:`)."""
    lines = s.split("\n", 12)
    end = None
    for i, line in enumerate(lines[:12]):
        if line.strip() == "Output:":
            end = i
            break
        if not _HEADER_RE.match(line):
            break
    header = lines[:end] if end is not None else lines[:1]
    code = None
    for h in header:
        m = _EXIT_RE.match(h.strip())
        if m:
            code = int(m.group(1))
    if end is not None:
        rest = s.split("\n", end + 1)
        s = rest[end + 1] if len(rest) > end + 1 else ""
    return s, code, (code != 0 if code is not None else None)


def _session_from_name(display: str) -> str:
    stem = session_from_path(display)
    m = _UUID_RE.search(stem)
    return m.group(1) if m else stem


# -- reading and detection ----------------------------------------------------------------------


def _mode(probe: Probe) -> str:
    """Which records carry the conversation: response items unless the file has none."""
    if b'"response_item"' in probe.head:
        return "response"
    has_items = b'"item_completed"' in probe.head
    has_events = b'"event_msg"' in probe.head
    if len(probe.head) >= HEAD_BYTES:  # look further, only for this rare shape
        with probe.open() as f:
            for _n, raw, _t, _e in iter_raw_lines(f):
                if raw is None:
                    continue
                if b'"response_item"' in raw:
                    return "response"
                has_items = has_items or b'"item_completed"' in raw
                has_events = has_events or b'"event_msg"' in raw
    if not has_events:
        return "response"  # legacy bare items
    return "items" if has_items else "events"


def _prepass(probe: Probe) -> tuple[frozenset[str], dict[str, tuple[int | None, bool | None]]]:
    """Call ids carried by response items, from a byte scan (no JSON parse): which end events are
    mirrored (an item whose id the scan missed and that repeats an end event is dropped later);
    and the outcome of each end event, parsed (few lines), for the output item it mirrors."""
    ids: set[str] = set()
    outcomes: dict[str, tuple[int | None, bool | None]] = {}
    with probe.open() as f:
        for _n, raw, _t, _e in iter_raw_lines(f):
            if raw is None or b'"call_id"' not in raw:
                continue
            if b'"response_item"' in raw:
                ids.update(m.decode("utf-8", "replace") for m in _CALL_ID_RE.findall(raw))
            elif b'"event_msg"' in raw and b'_end"' in raw:
                try:
                    rec = orjson.loads(raw)
                except orjson.JSONDecodeError:
                    continue  # the read proper reports it
                p = rec.get("payload") if isinstance(rec, dict) else None
                if isinstance(p, dict) and p.get("type") in _END_EVENTS and _str(p.get("call_id")):
                    outcomes[p["call_id"]] = end_outcome(p)
    return frozenset(ids), outcomes


def end_outcome(p: dict[str, Any]) -> tuple[int | None, bool | None]:
    """(exit code, is_error) an end event states: exec exit code / status, MCP result, patch success."""
    t = p.get("type")
    if t == "mcp_tool_call_end":
        return None, mcp_result(p.get("result"))[1]
    if t == "patch_apply_end":
        ok = p.get("success")
        return None, (not ok) if isinstance(ok, bool) else None
    code = p.get("exit_code", p.get("exitCode"))
    if isinstance(code, int) and not isinstance(code, bool):
        return code, code != 0
    return None, True if p.get("status") in _FAILED else None


def read(probe: Probe) -> Transcript:
    report = ReportBuilder(probe.display, FORMAT)
    sink = EventSink(_session_from_name(probe.display), probe.display)
    reader = _Reader(probe, report, sink, _mode(probe))
    if reader.mode == "response":
        reader.mirrored, reader.outcomes = _prepass(probe)
        reader.typed_turns = logs_typed_turns(probe)
    with probe.open() as f:
        reader.read(f)
    frame = sink.frame()
    return Transcript(frame, report.finish(frame.height))


_ENVELOPE_PREFIX = re.compile(
    rb'^\s*\{"timestamp":"[^"]{0,64}","type":"(?:session_meta|response_item|event_msg|turn_context)","payload":'
)


def sniff(probe: Probe) -> bool:
    if probe.is_dir:
        return False
    records = head_records(probe.head, 3)
    if not records:
        return bool(_ENVELOPE_PREFIX.match(probe.head[:256]))
    for r in records:
        if r.get("type") in _ENVELOPES and isinstance(r.get("payload"), dict):
            return True
    first = records[0]
    if "type" not in first and isinstance(first.get("id"), str) and "timestamp" in first:
        # legacy header: {id, timestamp, instructions?} then {"record_type": "state"} markers
        return "instructions" in first or any("record_type" in r for r in records[1:])
    return False


READERS = [
    ReaderSpec(
        name=FORMAT,
        sniff=sniff,
        read=read,
        description="Codex CLI rollout JSONL (~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl), current and legacy",
    )
]
