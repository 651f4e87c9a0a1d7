# ruff: noqa  -- the helper's counter, kept as it wrote it (its counts are the oracle)
#!/usr/bin/env python3
"""count_truth.py -- independent ground-truth counts for the transcripts in /work/readers4.

Standard library only.  For every sub-folder of this directory that holds one
transcript file (plus SOURCE.txt), the format is sniffed from the file's own
structure and the following numbers are computed:

  records            how many top-level records the file has (unit given per format)
  tool_calls         distinct tool calls the agent made (a call is counted once,
                     never once per begin/end or request/response event)
  tool_results       results of tool calls that are present in the file (every
                     result record present is counted, even if its call is not
                     in the file -- see "orphan" notes in SOURCES.md)
  paired             results that name a call by id and whose id matches a call
                     present in the file; 0 for formats that carry no ids
  results_with_text  results whose output holds non-whitespace text, wherever it
                     sits (string, list of parts, nested dict); the "output" field
                     of each format is named below
  user_turns         messages the human user typed (see per-format rule)

Text extraction ("has text"): strings are taken as-is; lists are walked; dicts are
walked over all values except keys that carry ids / metadata / binary
(type, id, *_id, call_id, tool_use_id, signature, data, media_type, mime_type,
source when it is an image source).  A result "has text" if any extracted
string contains a non-whitespace character.

PER-FORMAT RULES
================

claude_code_jsonl   (~/.claude/projects/<proj>/<session>.jsonl)
  records      = non-empty lines.
  tool_calls   = distinct `id`s of content blocks with type "tool_use" inside
                 records with top-level type "assistant" (Claude Code writes one
                 content block per line; ids are unique).
  tool_results = content blocks with type "tool_result" inside records with
                 top-level type "user".
  paired       = tool_result blocks whose `tool_use_id` equals a counted tool_use id.
  output field = the tool_result block's `content` (string or list of parts;
                 image parts are not text).  The record-level `toolUseResult`
                 duplicate is NOT consulted.
  user_turns   = (a) records with type "user" that are not isMeta / isSidechain /
                 isCompactSummary, whose message.content is a string or contains a
                 "text" block (and no tool_result block), excluding texts that are
                 CLI-injected markers: starting with "[Request interrupted by user",
                 "<local-command-stdout>", "<local-command-stderr>",
                 "<local-command-caveat>", "<system-reminder>";
               + (b) records with type "attachment" whose attachment.type is
                 "queued_command" and commandMode is "prompt" (a prompt the human
                 typed while the agent was busy, delivered mid-turn; there is no
                 separate "user" record for it).
                 queue-operation records (enqueue/dequeue/remove) are never counted.

codex_rollout_jsonl (~/.codex/sessions/.../rollout-*.jsonl; session_meta/response_item)
  records      = non-empty lines.
  tool_calls   = response_item payloads of type function_call, custom_tool_call,
                 local_shell_call, web_search_call, tool_search_call (distinct
                 call_id where present).  event_msg records (exec_command_begin/end,
                 patch_apply_begin/end, ...) are UI echoes and are not counted.
  tool_results = response_item payloads of type function_call_output,
                 custom_tool_call_output, local_shell_call_output.
  paired       = outputs whose call_id matches a counted call.
  output field = payload.output (string -- if it is a JSON object string with an
                 "output" key that inner value is used -- or list of
                 {type:input_text,text} parts).
  user_turns   = event_msg records with payload.type "user_message" (the prompts
                 the user submitted).  response_item messages with role "user"
                 that only carry injected context (<environment_context>,
                 <recommended_plugins>, <user_instructions>, AGENTS.md ...) and
                 role "developer" messages are not user turns.

gemini_content_json (Gemini CLI conversation history: JSON array of Gemini API
                     Content objects {role, parts[]})
  records      = top-level array items (Content objects).
  tool_calls   = parts with a "functionCall" key.
  tool_results = parts with a "functionResponse" key.
  paired       = functionResponse.id equal to some functionCall.id.
  output field = functionResponse.response (e.g. {"output": ...} or {"error": ...}).
  user_turns   = Content objects with role "user" holding at least one "text"
                 part, excluding CLI-injected context whose text starts with
                 "<session_context>" or "<state_snapshot>" (compression summary).

openhands_events_json (OpenHands trajectory: JSON array of events)
openhands_eval_jsonl  (OpenHands evaluation output.jsonl: one instance per line,
                       events in the "history" list; ids are per instance, so
                       pairing is done within each line)
  records      = array items (events) / lines (instances).
  tool_calls   = events with an "action" key, source "agent" and a
                 tool_call_metadata.tool_call_id (distinct per instance); this
                 includes think/finish tool calls.  The system-prompt action and
                 agent "message" actions without tool_call_metadata are not calls.
  tool_results = events with an "observation" key that carry tool_call_metadata.
                 ErrorObservations without tool_call_metadata (malformed call that
                 never became an action) are not counted.
  paired       = results whose tool_call_metadata.tool_call_id matches a call in
                 the same instance.
  output field = the observation's "content".
  user_turns   = events with source "user" and action "message" (in eval runs
                 this is the harness-written task instruction; "recall" actions
                 are not counted).

aider_md            (.aider.chat.history.md)
  records      = lines (split on "\\n"; a final line without newline counts).
  tool_calls   = lines starting with "> Run shell command" (singular or plural
                 prompt): aider asking to run a shell-command block the model
                 proposed.  File edits ("> Applied edit to ...") are text-based
                 SEARCH/REPLACE edits, not tool calls, and are not counted.
  tool_results = lines starting with "> Running " (a proposed command executed).
  paired       = 0 (no ids).
  output field = the "> " lines following "> Running ..." up to the next prompt.
  user_turns   = blocks of consecutive lines starting with "####"; a block is not
                 counted if all its non-blank lines are slash commands (e.g.
                 "/ask", "/code", "/model x"), nor if its text equals the text of
                 the immediately preceding block minus that block's leading
                 "/command" line (aider re-logs the message of "/code <msg>").

mini_swe_agent_traj_json (mini-swe-agent *.traj.json, trajectory_format mini-swe-agent-1.x)
  records      = entries of the top-level "messages" list.
  tool_calls   = sum of len(tool_calls) over role "assistant" messages (distinct ids).
  tool_results = messages with role "tool".
  paired       = tool messages whose tool_call_id matches a counted call id.
  output field = tool message "content".
  user_turns   = role "user" messages except harness-generated feedback
                 (content starting with "No tool calls found in the response",
                 "Please always provide", "<returncode>", "The last command",
                 "Format error", "Tool call error").  The task message (the PR
                 description written by the benchmark harness) is counted.

antigravity_steps_jsonl (Google Antigravity trajectory export: one step per line
                         with step_index/source/type/status)
  records      = non-empty lines (steps).
  tool_calls   = sum of len(tool_calls) over steps with source "MODEL" (only
                 PLANNER_RESPONSE steps carry tool_calls).
  tool_results = steps with source "MODEL" whose type is not PLANNER_RESPONSE
                 (VIEW_FILE, LIST_DIRECTORY, RUN_COMMAND, CODE_ACTION, GENERIC,
                 GREP_SEARCH, ... -- each is the execution step of one call).
                 USER_EXPLICIT CODE_ACTION/VIEW_FILE steps (edits/views the human
                 did in the IDE) are not tool results.
  paired       = 0 (no ids; pairing is positional only).
  output field = step "content".
  user_turns   = steps with source "USER_EXPLICIT" and type "USER_INPUT".
                 SYSTEM EPHEMERAL_MESSAGE / SYSTEM_MESSAGE steps are not counted.

copilot_events_jsonl (GitHub Copilot CLI session events, each wrapped as
                      {"role","content","timestamp","raw":{type,data,...}})
  records      = non-empty lines.
  tool_calls   = distinct toolCallId in raw assistant.message data.toolRequests
                 (tool.execution_start is the begin event of the same call).
  tool_results = raw tool.execution_complete events.
  paired       = execution_complete whose toolCallId matches a counted call.
  output field = data.result (content / detailedContent).
  user_turns   = raw user.message events.

replit_memory_jsonl (Replit Agent memory export: {"memory_id", "messages":[...]} per line)
  records      = non-empty lines.
  tool_calls   = sum of len(tool_calls) over role "assistant" messages.
  tool_results = messages with role "tool".
  paired       = 0 (neither calls nor results carry ids; pairing is positional).
  output field = tool message "content" (list of text parts).
  user_turns   = messages with role "user".
"""
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SKIP_KEYS = {"type", "id", "call_id", "tool_use_id", "toolCallId", "tool_call_id",
             "signature", "data", "media_type", "mime_type", "thoughtSignature"}


def texts(x, out=None):
    if out is None:
        out = []
    if isinstance(x, str):
        out.append(x)
    elif isinstance(x, list):
        for v in x:
            texts(v, out)
    elif isinstance(x, dict):
        if x.get("type") in ("image", "input_image"):
            return out
        for k, v in x.items():
            if k in SKIP_KEYS or k.endswith("_id"):
                continue
            texts(v, out)
    return out


def has_text(x):
    return any(s.strip() for s in texts(x))


def jsonl(path):
    with open(path, "rb") as f:
        raw = f.read().decode("utf-8")
    return [json.loads(l) for l in raw.split("\n") if l.strip()]


def result(fmt, records, calls, results, paired, wtext, users):
    return {"format": fmt, "records": records, "tool_calls": calls,
            "tool_results": results, "paired": paired,
            "results_with_text": wtext, "user_turns": users}


# ---------------------------------------------------------------- claude code
CC_INJECTED = ("[Request interrupted by user", "<local-command-stdout>",
               "<local-command-stderr>", "<local-command-caveat>",
               "<system-reminder>")


def claude_code(path):
    L = jsonl(path)
    call_ids = []
    res = []
    users = 0
    for o in L:
        t = o.get("type")
        msg = o.get("message") if isinstance(o.get("message"), dict) else None
        if t == "assistant" and msg and isinstance(msg.get("content"), list):
            for b in msg["content"]:
                if isinstance(b, dict) and b.get("type") == "tool_use":
                    if b.get("id") not in call_ids:
                        call_ids.append(b.get("id"))
        if t == "user" and msg:
            c = msg.get("content")
            blocks = c if isinstance(c, list) else []
            trs = [b for b in blocks if isinstance(b, dict) and b.get("type") == "tool_result"]
            res.extend(trs)
            if o.get("isMeta") or o.get("isSidechain") or o.get("isCompactSummary"):
                continue
            if trs:
                continue
            if isinstance(c, str):
                txt = c
            else:
                tb = [b.get("text", "") for b in blocks if isinstance(b, dict) and b.get("type") == "text"]
                if not tb:
                    continue
                txt = "\n".join(tb)
            if not txt.strip() or txt.lstrip().startswith(CC_INJECTED):
                continue
            users += 1
        if t == "attachment":
            a = o.get("attachment") or {}
            if a.get("type") == "queued_command" and a.get("commandMode", "prompt") == "prompt":
                users += 1
    ids = set(call_ids)
    paired = sum(1 for b in res if b.get("tool_use_id") in ids)
    wtext = sum(1 for b in res if has_text(b.get("content")))
    return result("claude_code_jsonl", len(L), len(call_ids), len(res), paired, wtext, users)


# ---------------------------------------------------------------- codex rollout
CODEX_CALLS = {"function_call", "custom_tool_call", "local_shell_call",
               "web_search_call", "tool_search_call"}
CODEX_OUTS = {"function_call_output", "custom_tool_call_output", "local_shell_call_output"}


def codex_output(out):
    if isinstance(out, str):
        try:
            j = json.loads(out)
            if isinstance(j, dict) and "output" in j:
                return j["output"]
        except ValueError:
            pass
    return out


def codex(path):
    L = jsonl(path)
    calls = []
    anon = 0
    outs = []
    users = 0
    for o in L:
        p = o.get("payload") or {}
        if o.get("type") == "response_item":
            pt = p.get("type")
            if pt in CODEX_CALLS:
                cid = p.get("call_id")
                if cid is None:
                    anon += 1
                elif cid not in calls:
                    calls.append(cid)
            elif pt in CODEX_OUTS:
                outs.append(p)
        elif o.get("type") == "event_msg" and p.get("type") == "user_message":
            users += 1
    ids = set(calls)
    paired = sum(1 for p in outs if p.get("call_id") in ids)
    wtext = sum(1 for p in outs if has_text(codex_output(p.get("output"))))
    return result("codex_rollout_jsonl", len(L), len(calls) + anon, len(outs), paired, wtext, users)


# ---------------------------------------------------------------- gemini content
def gemini_content(path):
    d = json.load(open(path, encoding="utf-8"))
    calls, resps, users = [], [], 0
    for m in d:
        parts = m.get("parts") or []
        for p in parts:
            if "functionCall" in p:
                calls.append(p["functionCall"])
            if "functionResponse" in p:
                resps.append(p["functionResponse"])
        if m.get("role") == "user":
            tx = [p.get("text", "") for p in parts if "text" in p and not p.get("thought")]
            if tx:
                s = "\n".join(tx).lstrip()
                if s and not s.startswith(("<session_context>", "<state_snapshot>")):
                    users += 1
    ids = {c.get("id") for c in calls if c.get("id")}
    paired = sum(1 for r in resps if r.get("id") in ids)
    wtext = sum(1 for r in resps if has_text(r.get("response")))
    return result("gemini_content_json", len(d), len(calls), len(resps), paired, wtext, users)


# ---------------------------------------------------------------- openhands
def oh_session(events):
    calls, res, users = [], [], 0
    for e in events:
        tcm = e.get("tool_call_metadata") or {}
        tcid = tcm.get("tool_call_id")
        if "action" in e:
            if e.get("source") == "agent" and tcid and tcid not in calls:
                calls.append(tcid)
            if e.get("source") == "user" and e.get("action") == "message":
                users += 1
        elif "observation" in e and tcid:
            res.append(e)
    ids = set(calls)
    paired = sum(1 for e in res if e["tool_call_metadata"]["tool_call_id"] in ids)
    wtext = sum(1 for e in res if has_text(e.get("content")))
    return len(calls), len(res), paired, wtext, users


def openhands_events(path):
    d = json.load(open(path, encoding="utf-8"))
    return result("openhands_events_json", len(d), *oh_session(d))


def openhands_eval(path):
    L = jsonl(path)
    tot = [0, 0, 0, 0, 0]
    for o in L:
        for i, v in enumerate(oh_session(o.get("history") or [])):
            tot[i] += v
    return result("openhands_eval_jsonl", len(L), *tot)


# ---------------------------------------------------------------- aider
def aider(path):
    raw = open(path, "rb").read().decode("utf-8")
    lines = raw.split("\n")
    if lines and lines[-1] == "":
        lines = lines[:-1]
    calls = sum(1 for l in lines if l.startswith("> Run shell command"))
    results = []
    for i, l in enumerate(lines):
        if l.startswith("> Running "):
            body = []
            for l2 in lines[i + 1:]:
                if l2.startswith("> Running ") or l2.startswith("####") or \
                   l2.startswith("> Add ") or l2.startswith("> Run shell"):
                    break
                body.append(l2[1:] if l2.startswith(">") else l2)
            results.append("\n".join(body))
    # user blocks
    blocks, cur = [], None
    for l in lines:
        if l.startswith("####"):
            if cur is None:
                cur = []
            cur.append(l[4:].strip())
        else:
            if cur is not None:
                blocks.append(cur)
            cur = None
    if cur is not None:
        blocks.append(cur)
    users, prev = 0, None
    for b in blocks:
        content = [x for x in b if x]
        only_cmds = bool(content) and all(x.startswith("/") for x in content)
        echo = False
        if prev is not None and prev and prev[0].startswith("/"):
            rest = [x for x in prev[1:]]
            if [x for x in rest if x] and [x for x in rest if x] == content:
                echo = True
        if content and not only_cmds and not echo:
            users += 1
        prev = content
    wtext = sum(1 for r in results if r.strip())
    return result("aider_md", len(lines), calls, len(results), 0, wtext, users)


# ---------------------------------------------------------------- mini-swe-agent
MSWE_HARNESS = ("No tool calls found in the response", "Please always provide",
                "<returncode>", "The last command", "Format error", "Tool call error")


def mini_swe(path):
    d = json.load(open(path, encoding="utf-8"))
    m = d["messages"]
    ids, res, users = [], [], 0
    for x in m:
        if x.get("role") == "assistant":
            for tc in x.get("tool_calls") or []:
                if tc.get("id") not in ids:
                    ids.append(tc.get("id"))
        elif x.get("role") == "tool":
            res.append(x)
        elif x.get("role") == "user":
            c = x.get("content")
            s = c if isinstance(c, str) else "\n".join(texts(c))
            if s.strip() and not s.lstrip().startswith(MSWE_HARNESS):
                users += 1
    idset = set(ids)
    paired = sum(1 for x in res if x.get("tool_call_id") in idset)
    wtext = sum(1 for x in res if has_text(x.get("content")))
    return result("mini_swe_agent_traj_json", len(m), len(ids), len(res), paired, wtext, users)


# ---------------------------------------------------------------- antigravity
def antigravity(path):
    L = jsonl(path)
    calls = sum(len(o.get("tool_calls") or []) for o in L if o.get("source") == "MODEL")
    res = [o for o in L if o.get("source") == "MODEL" and o.get("type") != "PLANNER_RESPONSE"]
    users = sum(1 for o in L if o.get("source") == "USER_EXPLICIT" and o.get("type") == "USER_INPUT")
    wtext = sum(1 for o in res if has_text(o.get("content")))
    return result("antigravity_steps_jsonl", len(L), calls, len(res), 0, wtext, users)


# ---------------------------------------------------------------- copilot
def copilot(path):
    L = jsonl(path)
    calls, done, users = [], [], 0
    for o in L:
        r = o.get("raw") if "raw" in o else o
        t, d = r.get("type"), r.get("data") or {}
        if t == "assistant.message":
            for q in d.get("toolRequests") or []:
                if q.get("toolCallId") not in calls:
                    calls.append(q.get("toolCallId"))
        elif t == "tool.execution_complete":
            done.append(d)
        elif t == "user.message":
            users += 1
    ids = set(calls)
    paired = sum(1 for d in done if d.get("toolCallId") in ids)
    wtext = sum(1 for d in done if has_text(d.get("result")))
    return result("copilot_events_jsonl", len(L), len(calls), len(done), paired, wtext, users)


# ---------------------------------------------------------------- replit
def replit(path):
    L = jsonl(path)
    calls, res, users = 0, [], 0
    for o in L:
        for m in o.get("messages") or []:
            if m.get("role") == "assistant":
                calls += len(m.get("tool_calls") or [])
            elif m.get("role") == "tool":
                res.append(m)
            elif m.get("role") == "user":
                users += 1
    wtext = sum(1 for m in res if has_text(m.get("content")))
    return result("replit_memory_jsonl", len(L), calls, len(res), 0, wtext, users)


# ---------------------------------------------------------------- sniffing
def sniff(path):
    name = os.path.basename(path)
    if name.endswith(".md"):
        return aider
    with open(path, "rb") as f:
        head = f.read(4096).decode("utf-8", "replace").lstrip()
    if head.startswith("["):
        d = json.load(open(path, encoding="utf-8"))
        if d and isinstance(d[0], dict) and "parts" in d[0]:
            return gemini_content
        if d and isinstance(d[0], dict) and ("observation" in d[0] or "action" in d[0]):
            return openhands_events
        raise ValueError("unknown JSON array format: " + path)
    if name.endswith(".traj.json"):
        return mini_swe
    with open(path, "rb") as f:
        first = json.loads(f.readline().decode("utf-8"))
    if "step_index" in first:
        return antigravity
    if "memory_id" in first:
        return replit
    if first.get("type") == "session_meta":
        return codex
    if "raw" in first and isinstance(first["raw"], dict) and "." in str(first["raw"].get("type")):
        return copilot
    if "history" in first and "instance_id" in first:
        return openhands_eval
    if "sessionId" in first or first.get("type") in ("queue-operation", "file-history-snapshot", "summary", "user"):
        return claude_code
    raise ValueError("unknown format: " + path)


def main():
    out = {}
    for name in sorted(os.listdir(HERE)):
        d = os.path.join(HERE, name)
        if not os.path.isdir(d):
            continue
        files = [f for f in os.listdir(d) if f != "SOURCE.txt"]
        if len(files) != 1:
            print("skip", name, files, file=sys.stderr)
            continue
        p = os.path.join(d, files[0])
        out[name] = sniff(p)(p)
    with open(os.path.join(HERE, "counts.json"), "w") as f:
        json.dump(out, f, indent=2, sort_keys=True)
        f.write("\n")
    w = max(len(k) for k in out)
    cols = ["records", "tool_calls", "tool_results", "paired", "results_with_text", "user_turns"]
    print("name".ljust(w), "format".ljust(26), *cols)
    for k, v in out.items():
        print(k.ljust(w), v["format"].ljust(26), *[str(v[c]).rjust(len(c)) for c in cols])


if __name__ == "__main__":
    main()
