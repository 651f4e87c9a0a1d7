#!/usr/bin/env python3
"""Codex rollout JSONL -> aider chat history markdown (.aider.chat.history.md).

Shape (from real aider histories, see SOURCES.txt):
  # aider chat started at YYYY-MM-DD HH:MM:SS
  > banner lines (two trailing spaces, like aider's io writes them)
  #### user input line  (each input line prefixed '#### ', two trailing spaces)
  model reply, raw markdown
  a shell command the model suggests is shown as a ```bash fence, then
  > cmd  / > Run shell command? (Y)es/(N)o/(D)on't ask again [Yes]: y / > Running cmd
  > <each output line>  (empty line -> '>')
  > Add command output to the chat? (Y)es/(N)o/(D)on't ask again [Yes]: y
  > Added N lines of output to the chat.
Command text and output are copied verbatim.

usage: to_aider.py ROLLOUT.jsonl OUT.md
"""
from __future__ import annotations

import hashlib
import os
import sys
from datetime import datetime

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _rollout import read_any as read


def quote(lines: list[str]) -> list[str]:
    return [f"> {ln}  " if ln else ">" for ln in lines]


def main() -> None:
    src, dst = sys.argv[1], sys.argv[2]
    meta, turns = read(src)
    start = meta.get("timestamp") or (turns[0][2] if turns else "1970-01-01T00:00:00Z")
    t = datetime.fromisoformat(start.replace("Z", "+00:00"))
    out: list[str] = [f"\n# aider chat started at {t.strftime('%Y-%m-%d %H:%M:%S')}", ""]
    out += quote(["Aider v0.86.1",
                  "Main model: openai/gpt-5.3-codex with diff edit format",
                  "Git repo: .git with 0 files", "Repo-map: using 4096 tokens, auto refresh"])
    out.append("")
    pending_text: list[str] = []

    def flush_text() -> None:
        if pending_text:
            out.extend(pending_text)
            out.append("")
            pending_text.clear()

    for kind, body, _ts in turns:
        if kind == "user":
            flush_text()
            out.extend(f"#### {ln}  " for ln in body.split("\n"))
            out.append("")
        elif kind == "assistant":
            pending_text.append(body)
            pending_text.append("")
        elif kind == "reasoning":
            # aider writes a reasoning model's thinking as a <thinking-content-HEX> block in the reply
            tag = "thinking-content-" + hashlib.md5(body.encode()).hexdigest()
            pending_text += [f"<{tag}>", "", body, "", f"</{tag}>", ""]
        elif kind == "cmd":
            flush_text()
            cmd = body["cmd"]
            out += ["```bash", cmd, "```", ""]
            cmd_lines = cmd.split("\n")
            out += quote(cmd_lines)
            out.append("> Run shell command? (Y)es/(N)o/(D)on't ask again [Yes]: y  ")
            out += quote(["Running " + cmd_lines[0], *cmd_lines[1:]])
            text = body["output"]
            olines = text.split("\n")
            if olines and olines[-1] == "":
                olines.pop()
            out += quote(olines)
            out.append("> Add command output to the chat? (Y)es/(N)o/(D)on't ask again [Yes]: y  ")
            n = len(olines)
            out.append(f"> Added {n} line{'s' if n != 1 else ''} of output to the chat.  ")
            out.append("")
    flush_text()
    with open(dst, "w", encoding="utf-8") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
