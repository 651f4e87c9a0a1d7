"""aider's .aider.chat.history.md, built from blocks whose events are known as they are written.

Shapes (aider v0.86): `# aider chat started at …`; `> ` lines (aider's own output, each ending in
two spaces); `#### ` lines (what the user typed); the model's reply as plain markdown. A shell
command the model proposed and the user approved shows as `> Running cmd`; its output goes to the
terminal, not to this file, so users paste errors into their messages.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Ev:
    seq: int
    role: str
    kind: str
    key: str
    text: str
    line: int


class History:
    def __init__(self) -> None:
        self.lines: list[str] = []
        self.evs: list[Ev] = []

    def _ev(self, role: str, kind: str, key: str, text: str, line: int) -> None:
        self.evs.append(Ev(len(self.evs), role, kind, key, text, line))

    def _blank(self) -> None:
        self.lines.append("")

    def header(self, stamp: str, tool_lines: list[str]) -> None:
        self._blank()  # aider writes "\n# aider chat started at …"
        self.lines.append(f"# aider chat started at {stamp}")
        self._ev("system", "text", "header", f"aider chat started at {stamp}", len(self.lines))
        self._blank()
        self.quote(tool_lines, "banner")

    def quote(self, tool_lines: list[str], key: str) -> None:
        first = len(self.lines) + 1
        self.lines += [f"> {t}  " if t else ">  " for t in tool_lines]
        self._ev("system", "text", key, "\n".join(tool_lines).strip(), first)
        self._blank()

    def user(self, text: str, key: str) -> None:
        first = len(self.lines) + 1
        self.lines += [f"#### {t}  " if t else "####   " for t in text.split("\n")]
        self._ev("user", "text", key, text.strip(), first)
        self._blank()

    def run(self, command: str, tool_lines: list[str], key: str) -> None:
        """`/run cmd` typed by the user, then aider's `>` lines about it."""
        first = len(self.lines) + 1
        self.lines.append(f"#### /run {command}  ")
        self._ev("user", "tool_call", f"{key}:call", command, first)
        self.lines += [f"> {t}  " for t in tool_lines]
        self._ev("tool", "tool_result", f"{key}:result", "\n".join(tool_lines), first + 1)
        self._blank()

    def assistant(self, text: str, key: str) -> None:
        first = len(self.lines) + 1
        self.lines += text.split("\n")
        self._ev("assistant", "text", key, text.strip(), first)
        self._blank()

    def approved(self, command: str, after: list[str], key: str, prompt: str = "Run shell command?") -> None:
        """The user says yes to a suggested command: `> Running cmd` and aider's lines after it."""
        first = len(self.lines) + 1
        ask = f"{prompt} (Y)es/(N)o/(D)on't ask again [Yes]: y"
        self.lines += [f"> {ask}  ", f"> Running {command}  "] + [f"> {t}  " for t in after]
        self._ev("system", "text", f"{key}:ask", ask, first)
        self._ev("assistant", "tool_call", f"{key}:call", command, first + 1)
        if after:
            self._ev("tool", "tool_result", f"{key}:result", "\n".join(after), first + 2)
        self._blank()

    def declined(self, command: str, key: str, prompt: str = "Run shell commands?") -> None:
        """The user says no to the commands the model suggested: a call that never ran, answered by the `n`."""
        first = len(self.lines) + 1
        ask = f"{prompt} (Y)es/(N)o/(D)on't ask again [Yes]: n"
        self.lines.append(f"> {ask}  ")
        self._ev("assistant", "tool_call", f"{key}:call", command, first)
        self._ev("tool", "tool_result", f"{key}:result", ask, first)
        self._blank()

    def text(self) -> str:
        while self.lines and not self.lines[-1]:
            self.lines.pop()
        return "\n".join(self.lines) + "\n"
