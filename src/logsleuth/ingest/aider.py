"""aider chat history (format "aider"): `.aider.chat.history.md`.

aider appends markdown as the session goes:

- `# aider chat started at 2025-10-20 21:49:17` opens a session (each header a new one);
- `#### text` lines are what the user typed (a multi-line input is several `####` lines);
- `> text` lines are aider's own output (tool output, warnings, prompts); an empty one is `>`;
- anything else is the model's reply, written raw (markdown, code fences, edit blocks).

User commands that run something (`/run cmd`, `!cmd`, `/test cmd`, `/git …`, `/lint`) become
tool calls and the `>` block right after them their result. When a failing command's output is
sent to the model, aider logs it as a user message "I ran this command: … And got this output: …":
that becomes a tool call plus its result. `> Running cmd` inside a `>` block (a shell command the
model suggested and the user approved) becomes a tool call, and the quoted lines after it its result.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime

from logsleuth.ingest.base import (
    EventSink,
    Probe,
    ReaderSpec,
    ReportBuilder,
    iter_lines,
    parse_ts,
    session_from_path,
    transcript,
)
from logsleuth.ingest.jsonscan import exit_code_in
from logsleuth.model import Kind, Role, Transcript

FORMAT = "aider"
MAX_LINE_BYTES = 16 * 1024 * 1024
_HEADER = re.compile(r"^# aider chat started at (?P<ts>\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d)")
_HEADER_BYTES = re.compile(rb"\A\s*# aider chat started at \d{4}-\d\d-\d\d")
_RAN = re.compile(r"\AI ran this command:\s*\n\s*\n(?P<cmd>.*?)\n\s*\nAnd got this output:[ \t]*\n(?P<out>.*)\Z", re.S)
_RUN_CMD = re.compile(r"^(?:/(?P<name>run|test|git|lint)\b\s*|!)(?P<cmd>.*)\Z", re.S)
_RUNNING = "Running "
_LINT_RUN = "## Running: "
# a fence line: its character and length (CommonMark: a fence closes with at least as many of the
# same character and nothing after them; ```` opens an edit block that may hold ``` lines)
_SLASH = re.compile(r"#### /(?:undo|git|run|test|lint|add|drop|clear|reset|chat-mode|model|ask|code|architect|"
                    r"exit|quit|tokens|diff|commit|read-only|web|paste|voice|help|settings|context|edit|load|save)\b")
# a mode switch with its message (`/code make it faster`): aider then logs the message again as a turn
_MODE_MESSAGE = re.compile(r"\A/(?:code|ask|architect|context|help)\b[ \t]*\n?(?P<msg>\S.*)\Z", re.S)
# aider asks before it runs the commands the model suggested; `n` declines (the commands never ran)
_DECLINED = re.compile(r"^Run shell commands?\? \(Y\)es/\(N\)o.*\]: n$")
_SHELL_FENCE = re.compile(r"^ {0,3}```(?:bash|sh|shell|console|zsh)?[ \t]*\n(?P<body>.*?)\n {0,3}```", re.S | re.M)
_TOKENS = re.compile(r"> Tokens: [\d.,]+k? sent, [\d.,]+k? received")
_FENCE = re.compile(r"^ {0,3}(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
# aider's own lines (prompts, hints, accounting): never part of a command's output
_AIDER_UI = re.compile(
    r"^(?:Tokens: [\d.,]+k? sent|Applied edit to |Commit [0-9a-f]{7,} |You can use /undo to undo"
    r"|Add (?:file|command output|URL) to the chat\?|Add [\d.,]+k? tokens of command output to the chat\?"
    r"|Please answer with one of: |Added \d+ lines? of output to the chat"
    r"|Run shell commands?\?|Attempt to fix (?:lint|test) errors\?|Fix any errors below, if possible"
    r"|Only \d+ reflections allowed|\^C again to exit|Added .* to the chat|Did not apply edit to "
    r"|Create new file\?|Allow edits to file|Edit the files\?|Cost: \$|Undid |Removed .* from the chat"
    r"|https://aider\.chat/"
    # the SEARCH/REPLACE feedback aider writes (and reflects to the model): its words, not the agent's
    r"|(?:#+ )?\d+ SEARCH/REPLACE blocks? failed to match|(?:#+ )?SearchReplaceNoExactMatch"
    r"|Did you mean to match some of these actual lines|The SEARCH section must exactly match"
    r"|Are you sure you need this SEARCH/REPLACE block|The REPLACE lines are already in "
    r"|(?:#+ )?The other \d+ SEARCH/REPLACE blocks? w(?:ere|as) applied)"
)


def sniff(probe: Probe) -> bool:
    if probe.is_dir:
        return False
    if probe.name.endswith("aider.chat.history.md"):
        return True
    return bool(_HEADER_BYTES.match(probe.head))


@dataclass
class _Block:
    kind: str  # user | tool | assistant
    lines: list[tuple[int, str]] = field(default_factory=list)

    @property
    def first(self) -> int:
        return self.lines[0][0]

    def text(self) -> str:
        return "\n".join(t for _, t in self.lines).strip("\n").rstrip()


class _Reader:
    def __init__(self, probe: Probe):
        self.base = session_from_path(probe.display)
        self.sink = EventSink(self.base, probe.display)
        self.report = ReportBuilder(probe.display, FORMAT)
        self.session: str | None = None
        self.seen_sessions: set[str] = set()
        self.block: _Block | None = None
        self.trailing_blank = 0  # blank lines held back at the end of an assistant block
        self.fences: list[str] = []  # the open fences of the model's reply (``` or ```` or ~~~), nested
        self.pending: tuple[str, str] | None = None  # (tool, call_id) awaiting its `>` output
        self.last_shell = ""  # the last shell block of the model's last reply (what aider offers to run)
        self.relog = ""  # the message of a `/code msg` / `/ask msg`, which aider logs again on its own
        # aider's input history beside the chat history: when each user input was typed
        self.inputs = input_history(probe)
        self.next_input = 0
        self.started: datetime | None = None  # the current session's header time
        self.typed: datetime | None = None  # when the user block being read was typed

    # -- line loop ------------------------------------------------------------------------------

    def feed(self, n: int, raw: bytes) -> None:
        self.report.lines += 1
        if len(raw) > MAX_LINE_BYTES:
            self.report.skip(n, f"line too long ({len(raw)} bytes)")
            return
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            self.report.skip(n, f"invalid UTF-8 at byte {exc.start}")
            return
        if self.fences and (_TOKENS.match(line) or _SLASH.match(line)
                            or (line.startswith("#### ") and self.trailing_blank >= 2)):
            # aider's token count follows a reply, and a typed aider command starts a turn: a reply
            # cut off inside a fence (^C) has ended; so has one where aider logged the next input after
            # two blank lines (a heading inside a code block has no such gap: readers4 aider-metrics)
            self.fences.clear()
        if line.startswith("# aider chat started at "):
            self._flush()
            self._header(n, line)
        elif line.startswith("####") and not self._in_reply_fence():
            self._add("user", n, line[5:] if line.startswith("#### ") else line[4:])
        elif (line == ">" or line.startswith("> ") or line.startswith(">\t") or _only_gt(line)) and not (
            self._in_reply_fence()
        ):
            self._add("tool", n, line[2:] if len(line) > 1 else "")
        elif not line.strip():
            if self.block is not None and self.block.kind == "assistant":
                self.trailing_blank += 1
            else:
                self._flush()
                self.report.ignored += 1
        elif self.block is not None and self.block.kind == "tool" and self.trailing_blank == 0:
            self._add("tool", n, line)  # a multi-line tool message: only its first line is quoted
        else:
            self._add("assistant", n, line)
            self._track_fence(line)

    def _track_fence(self, line: str) -> None:
        """Fences nest as the model writes them: inside a fence, a fence line with an info string
        (```bash inside ```markdown) opens an inner block; a bare fence at least as long as the
        innermost one closes it; a shorter bare one is text (``` inside a ```` edit block)."""
        m = _FENCE.match(line)
        if m is None:
            return
        fence, info = m.group("fence"), m.group("info").strip()
        if not self.fences or info:
            if not self.fences or fence[0] == self.fences[-1][0]:
                self.fences.append(fence)
        elif fence[0] == self.fences[-1][0] and len(fence) >= len(self.fences[-1]):
            self.fences.pop()

    def _in_reply_fence(self) -> bool:
        """Inside a fenced block of the model's reply (an edit block): `####` and `>` are file text."""
        return bool(self.fences) and self.block is not None and self.block.kind == "assistant"

    def _add(self, kind: str, n: int, text: str) -> None:
        if self.block is None or self.block.kind != kind:
            self._flush()
            self.block = _Block(kind)
            self.fences = []
        elif self.trailing_blank:  # blank lines inside an assistant reply belong to it
            self.block.lines.extend((0, "") for _ in range(self.trailing_blank))
            self.trailing_blank = 0
        self.block.lines.append((n, text.rstrip()))

    def _header(self, n: int, line: str) -> None:
        m = _HEADER.match(line)
        stamp = m.group("ts").replace(" ", "T") if m else str(n)
        session = f"{self.base}@{stamp}"
        if session in self.seen_sessions:
            session = f"{session}#{n}"
        self.seen_sessions.add(session)
        self.session = session
        self.pending = None
        self.started = parse_ts(m.group("ts")) if m else None
        self.sink.add(line=n, role=Role.SYSTEM, kind=Kind.TEXT, text=line[2:].strip(), ts=self.started,
                      session=session)
        self.report.used += 1

    # -- blocks -> events -----------------------------------------------------------------------

    def _flush(self) -> None:
        block, self.block = self.block, None
        held, self.trailing_blank = self.trailing_blank, 0
        self.report.ignored += held
        if block is None:
            return
        pending, self.pending = self.pending, None
        before = len(self.sink)
        if block.kind == "user":
            self._user(block)
        elif block.kind == "tool":
            self._tool(block, pending)
        else:
            text = block.text()
            self._emit(block.first, Role.ASSISTANT, Kind.TEXT, text)
            shells = _SHELL_FENCE.findall(text)
            self.last_shell = shells[-1].strip() if shells else ""
        counted = len(block.lines)  # interior blank lines of a reply were added as (0, "")
        if len(self.sink) > before:
            self.report.used += counted
        else:
            self.report.ignored += counted

    def _emit(
        self,
        line: int,
        role: Role,
        kind: Kind,
        text: str,
        tool: str | None = None,
        call_id: str | None = None,
        exit_code: int | None = None,
        is_error: bool | None = None,
    ) -> None:
        if text or kind is Kind.TOOL_RESULT:  # a command that printed nothing still answered its call
            ts = self.typed if role is Role.USER else None
            self.sink.add(line=line, role=role, kind=kind, text=text, session=self.session, tool=tool,
                          call_id=call_id, exit_code=exit_code, is_error=is_error, ts=ts)

    def _typed_at(self, text: str) -> datetime | None:
        """When this user input was typed, from the input history: the next entry, in order, with
        the same words, not before the session's start (the history file spans every session)."""
        want = " ".join(text.split())
        for i in range(self.next_input, len(self.inputs)):
            ts, typed = self.inputs[i]
            if typed == want and (self.started is None or ts >= self.started):
                self.next_input = i + 1
                return ts
        return None

    def _user(self, block: _Block) -> None:
        text = block.text()
        self.typed = self._typed_at(text) if self.inputs else None
        if not text or text == "<blank>":
            return
        ran = _RAN.match(text)
        if ran:
            call_id = f"aider:{block.first}"
            self._emit(block.first, Role.USER, Kind.TOOL_CALL, ran.group("cmd").strip(), tool="run", call_id=call_id)
            out_line = next((n for n, t in block.lines if t.startswith("And got this output")), block.first)
            out = ran.group("out").strip()
            self._emit(out_line, Role.TOOL, Kind.TOOL_RESULT, out, tool="run", call_id=call_id,
                       exit_code=exit_code_in(out))
            return
        cmd = _RUN_CMD.match(text)
        if cmd:
            tool = cmd.group("name") or "run"
            call_id = f"aider:{block.first}"
            self._emit(block.first, Role.USER, Kind.TOOL_CALL, cmd.group("cmd").strip() or text, tool=tool,
                       call_id=call_id)
            self.pending = (tool, call_id)
            return
        relog, self.relog = self.relog, ""
        if relog and " ".join(text.split()) == relog:
            return  # aider logging again the message of the `/code msg` just above: one turn
        lines = [ln for ln in text.splitlines() if ln.strip()]
        if lines and all(ln.lstrip().startswith("/") for ln in lines):
            self._emit(block.first, Role.SYSTEM, Kind.TEXT, text)  # `/model x`, `/ask`: aider's settings, no turn
            return
        mode = _MODE_MESSAGE.match(text)
        if mode is not None:
            self.relog = " ".join(mode.group("msg").split())
        self._emit(block.first, Role.USER, Kind.TEXT, text)

    def _tool(self, block: _Block, pending: tuple[str, str] | None) -> None:
        if pending is not None:
            tool, call_id = pending
            cut = next((i for i, (_, t) in enumerate(block.lines) if _AIDER_UI.match(t.strip())), len(block.lines))
            text = "\n".join(t for _, t in block.lines[:cut]).strip("\n").rstrip()
            self._emit(block.first, Role.TOOL, Kind.TOOL_RESULT, text, tool=tool, call_id=call_id,
                       exit_code=exit_code_in(text))
            rest = [(n, t) for n, t in block.lines[cut:]]
            body = "\n".join(t for _, t in rest).strip()
            if body:
                self._emit(next(n for n, t in rest if t.strip()), Role.SYSTEM, Kind.TEXT, body)
            return
        lines = list(block.lines)
        while True:
            found = next((i for i, (_, t) in enumerate(lines) if _DECLINED.match(t.strip())), None)
            if found is None:
                break
            cut = asked = found
            while asked > 0 and lines[asked - 1][1].strip() and not _AIDER_UI.match(lines[asked - 1][1].strip()):
                asked -= 1  # the command lines aider quoted above its question
            self._tool_lines(lines[:asked])
            command = "\n".join(t.strip() for _, t in lines[asked:cut]) or self.last_shell
            if command:  # a suggested command the user declined: a call that never ran; the `n` answers it
                call_id = f"aider:{lines[cut][0]}"
                self._emit(lines[cut][0], Role.ASSISTANT, Kind.TOOL_CALL, command, tool="shell", call_id=call_id)
                self._emit(lines[cut][0], Role.TOOL, Kind.TOOL_RESULT, lines[cut][1].strip(), tool="shell",
                           call_id=call_id)
            lines = lines[cut + 1:]
        self._tool_lines(lines)

    def _tool_lines(self, lines: list[tuple[int, str]]) -> None:
        """aider's quoted lines: its own talk, and the `Running cmd` calls with their output."""
        if not lines:
            return
        # split at `Running cmd` lines: what precedes is aider talking, what follows is output
        segment: list[tuple[int, str]] = []
        call: tuple[int, str] | None = None
        call_lint = False
        for n, t in [*lines, (0, _RUNNING)]:
            lint = t.startswith(_LINT_RUN)  # `## Running: pylint f.py`: aider's lint/test run after an edit
            if lint:
                t = _RUNNING + t[len(_LINT_RUN):]
            ui = call is not None and bool(_AIDER_UI.match(t.strip()))  # aider talking again: output over
            if ui or (t.startswith(_RUNNING) and (n == 0 or len(t) > len(_RUNNING))):
                body = "\n".join(x for _, x in segment).strip()
                if call is None:
                    if body:
                        first = next(m for m, x in segment if x.strip())
                        self._emit(first, Role.SYSTEM, Kind.TEXT, body)
                else:
                    call_id = f"aider:{call[0]}"
                    command, segment = self._whole_command(call[1], segment)
                    body = "\n".join(x for _, x in segment).strip()
                    self._emit(call[0], Role.ASSISTANT, Kind.TOOL_CALL, command, tool="shell", call_id=call_id)
                    if body:
                        first = next(m for m, x in segment if x.strip())
                        # aider prints a lint run's output only when it failed ("Fix any errors below")
                        self._emit(first, Role.TOOL, Kind.TOOL_RESULT, body, tool="shell", call_id=call_id,
                                   exit_code=exit_code_in(body), is_error=True if call_lint else None)
                call = (n, t[len(_RUNNING):].strip()) if n and not ui else None
                call_lint = lint
                segment = [(n, t)] if ui else []
            else:
                segment.append((n, t))

    def _whole_command(self, first: str, segment: list[tuple[int, str]]) -> tuple[str, list[tuple[int, str]]]:
        """`Running cat > f <<'EOF'` echoes a multi-line command of the reply's shell block: its next
        lines are the command's (a heredoc's body), not its output (heldout5 depbump: the rewrite
        of retrying.py was read as a bare `cat >` line). aider itself runs a block line by line, each
        with its own `Running`, so this only joins what the reply's block holds verbatim."""
        block = [ln.strip() for ln in self.last_shell.splitlines()]
        if len(block) < 2 or block[0] != first.strip():
            return first, segment
        lines = [t.strip() for _, t in segment]
        if lines[: len(block) - 1] != block[1:]:
            return first, segment
        return self.last_shell, segment[len(block) - 1:]

    def finish(self) -> Transcript:
        self._flush()
        return transcript(self.sink, self.report)


def _only_gt(line: str) -> bool:
    return line.startswith(">") and not line[1:].strip()


_INPUT_STAMP = re.compile(r"^# (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)?)\s*$")
INPUT_HISTORY = ".aider.input.history"
_MAX_INPUT_HISTORY = 64 << 20


def input_history(probe: Probe) -> list[tuple[datetime, str]]:
    """(time, words) of each entry of the `.aider.input.history` beside the chat history, if any:
    prompt_toolkit's FileHistory, `# 2025-03-18 12:49:01.123456` then the input as `+line`s.
    aider writes both files in the project folder; its chat history itself stamps only the start
    of each session, so this is where a session's duration comes from."""
    if probe.path is None:
        return []
    path = probe.path.parent / INPUT_HISTORY
    try:
        if not path.is_file() or path.stat().st_size > _MAX_INPUT_HISTORY:
            return []
        text = path.read_text("utf-8", errors="replace")
    except OSError:
        return []
    out: list[tuple[datetime, str]] = []
    ts: datetime | None = None
    lines: list[str] = []
    for line in [*text.splitlines(), "# end"]:
        m = _INPUT_STAMP.match(line)
        if m or line == "# end":
            if ts is not None and lines:
                out.append((ts, " ".join(" ".join(lines).split())))
            ts, lines = (parse_ts(m.group(1)) if m else None), []
        elif line.startswith("+"):
            lines.append(line[1:])
    return out


def read(probe: Probe) -> Transcript:
    reader = _Reader(probe)
    with probe.open() as f:
        for n, raw in iter_lines(f):
            reader.feed(n, raw)
    return reader.finish()


READERS = [
    ReaderSpec(
        name=FORMAT,
        sniff=sniff,
        read=read,
        description="aider chat history markdown (.aider.chat.history.md)",
    )
]
