# ruff: noqa  -- the helper's counter, kept as it wrote it (its counts are the oracle)
#!/usr/bin/env python3
"""count_truth.py -- independent ground-truth counts for the transcripts in /work/readers5.

Standard library only.  The counting logic for the formats already used in
/work/readers4 (claude_code_jsonl, codex_rollout_jsonl, gemini_content_json,
openhands_events_json, openhands_eval_jsonl, aider_md, mini_swe_agent_traj_json,
antigravity_steps_jsonl, copilot_events_jsonl, replit_memory_jsonl) is copied
unchanged from /work/readers4/count_truth.py so that numbers are comparable.
New formats found in this batch are added below with their own rules.

For every sub-folder of this directory that holds one transcript file (plus
SOURCE.txt), the format is sniffed from the file's own structure and these
numbers are computed:

  records            how many top-level records the file has (unit given per format)
  tool_calls         distinct tool calls the agent made (a call is counted once,
                     never once per begin/end or request/response event, never
                     once per re-logged copy of the same message)
  tool_results       results of tool calls present in the file (every result
                     record present is counted, even if its call is not in the file)
  paired             results that name a call by id and whose id matches a call
                     present in the file; 0 for formats that carry no ids
  results_with_text  results whose output holds non-whitespace text, wherever it
                     sits (string, list of parts, nested dict); the "output" field
                     of each format is named below
  user_turns         messages the human user typed (see per-format rule); never
                     tool results, never CLI/harness-injected context

Text extraction ("has text"): strings are taken as-is; lists are walked; dicts are
walked over all values except keys that carry ids / metadata / binary
(type, id, *_id, call_id, tool_use_id, toolCallId, tool_call_id, signature, data,
media_type, mime_type, thoughtSignature; image parts are skipped).  A result "has
text" if any extracted string contains a non-whitespace character.  (Terminal
escape sequences such as "\\x1b[?2004l" count as text: they are not whitespace.)

PER-FORMAT RULES -- formats carried over from readers4 (unchanged)
==================================================================

claude_code_jsonl   (~/.claude/projects/<proj>/<session>.jsonl)
  records      = non-empty lines.
  tool_calls   = distinct `id`s of content blocks with type "tool_use" inside
                 records with top-level type "assistant".  Blocks nested inside
                 other record types (e.g. "progress" records with
                 data.type "agent_progress", which embed a subagent's messages)
                 are NOT counted.
  tool_results = content blocks with type "tool_result" inside records with
                 top-level type "user" (again: not inside "progress" records).
  paired       = tool_result blocks whose `tool_use_id` equals a counted tool_use id.
  output field = the tool_result block's `content`; `toolUseResult` not consulted.
  user_turns   = (a) records with type "user" that are not isMeta / isSidechain /
                 isCompactSummary, whose message.content is a string or contains a
                 "text" block (and no tool_result block), excluding texts that
                 start with "[Request interrupted by user", "<local-command-stdout>",
                 "<local-command-stderr>", "<local-command-caveat>",
                 "<system-reminder>";
               + (b) records with type "attachment" whose attachment.type is
                 "queued_command" and commandMode is "prompt".
                 A typed slash command ("<command-name>/ide</command-name>...")
                 is a string user record and IS counted by this rule.

codex_rollout_jsonl (~/.codex/sessions/.../rollout-*.jsonl; session_meta/response_item)
  records      = non-empty lines.
  tool_calls   = response_item payloads of type function_call, custom_tool_call,
                 local_shell_call, web_search_call, tool_search_call (distinct
                 call_id; a payload without call_id -- web_search_call -- counts 1).
                 A custom_tool_call "exec" (code-mode JS cell) is ONE call however
                 many tools.* calls its source makes.  event_msg records
                 (exec_command_end, patch_apply_end, web_search_end, ...) are UI
                 echoes and are not counted.
  tool_results = response_item payloads of type function_call_output,
                 custom_tool_call_output, local_shell_call_output.
  paired       = outputs whose call_id matches a counted call.
  output field = payload.output (string -- if it is a JSON object string with an
                 "output" key that inner value is used -- or list of parts).
  user_turns   = event_msg records with payload.type "user_message".

gemini_content_json (JSON array of Gemini API Content objects {role, parts[]})
  records = items; tool_calls = parts with "functionCall"; tool_results = parts
  with "functionResponse"; paired by id; output = functionResponse.response;
  user_turns = role "user" Content with a text part, excluding texts starting
  "<session_context>" or "<state_snapshot>".

openhands_events_json / openhands_eval_jsonl (OpenHands V0 event stream; eval
  output.jsonl has one instance per line with events in "history"; pairing is
  done within each line because ids restart per instance)
  records      = array items (events) / lines (instances).
  tool_calls   = events with an "action" key, source "agent" and a
                 tool_call_metadata.tool_call_id (distinct per instance); includes
                 think/finish/task_tracking tool calls.
  tool_results = events with an "observation" key that carry tool_call_metadata.
  paired       = results whose tool_call_metadata.tool_call_id matches a call in
                 the same instance.
  output field = the observation's "content".
  user_turns   = events with source "user" and action "message" (in eval runs:
                 the harness-written task instruction; "recall" not counted).

aider_md            (.aider.chat.history.md)
  records      = lines (split on "\\n"; a final line without newline counts).
  tool_calls   = lines starting with "> Run shell command".
  tool_results = lines starting with "> Running ".
  paired       = 0.
  output field = the "> " lines following "> Running ..." up to the next prompt.
  user_turns   = blocks of consecutive "####" lines that carry typed message
                 text.  Bare slash commands ("/add f", "/drop", "/model x",
                 "/run cmd", "/code") carry none; "/code <msg>", "/ask <msg>",
                 "/architect <msg>" carry <msg>.  A block whose text equals the
                 message of the immediately preceding "/code <msg>" block is
                 aider's re-log of that message and is not counted again.
                 (readers5 note: readers4's code applied the echo test only after
                 dropping the whole first line of the previous block, so a
                 multi-line "/code <msg>..." block and its echo were both counted;
                 the rule as written in readers4 is implemented here.  For a
                 one-line "/code <msg>" the result is the same as readers4's.)

(copied verbatim from readers4; no file of the first, third or fourth kind is in
this batch, the code is kept so the script still reads them)

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

PER-FORMAT RULES -- formats new in readers5
===========================================

openhands_v1_eval_jsonl (OpenHands V1 / software-agent-sdk evaluation output.jsonl:
                         one instance per line, "history" holds events with "kind")
  records      = lines (instances).
  tool_calls   = events with kind "ActionEvent" and a tool_call_id (distinct per
                 instance); FinishAction included.
  tool_results = events with kind "ObservationEvent", "AgentErrorEvent" or
                 "UserRejectObservation" that carry a tool_call_id.
  paired       = results whose tool_call_id matches a call in the same instance.
  output field = observation.output if that key exists, else observation.content,
                 else observation.message (FinishObservation.message; AgentErrorEvent
                 uses its "error" field).  metadata/command/exit_code not consulted.
  user_turns   = events with kind "MessageEvent" and source "user".  The task text
                 sits in the line's "instruction" field, outside "history", and is
                 NOT counted (see SOURCES.md for the alternative).

gemini_chat_json    (Gemini CLI chat recording ~/.gemini/tmp/<proj>/chats/session-*.json:
                     one JSON object {sessionId, projectHash, ..., messages[]})
gemini_chat_jsonl   (newer Gemini CLI chat recording as JSONL: a header line
                     {sessionId, projectHash, startTime, ...}, message lines
                     {id, type, content, ...} and "$set" metadata lines.  A message
                     is re-written under the same id when it gains toolCalls; the
                     LAST line for each id is the message, earlier copies are
                     superseded and ignored.)
  records      = messages[] items (json) / non-empty lines (jsonl).
  tool_calls   = distinct toolCalls[].id over the (deduplicated) messages of
                 type "gemini".
  tool_results = toolCalls[] entries whose "result" is a non-empty list (the
                 recorded functionResponse of that call).  In gemini_chat_json the
                 CLI also stores the same functionResponse parts a second time in a
                 following message of type "user" -- those copies are NOT counted
                 again (they are the same result sent back to the model).
  paired       = results whose first functionResponse.id equals the toolCall id.
  output field = the result's functionResponse.response ({output} or {error});
                 resultDisplay is not consulted.
  user_turns   = messages of type "user" that hold a text part (and no
                 functionResponse part), excluding CLI-injected texts that start
                 with "<session_context>", "<state_snapshot>",
                 "User has manually exited Plan Mode", "System: Please continue".
                 Messages of type info / error / gemini are not turns.

pi_session_jsonl    (pi coding agent session file, header {"type":"session","version":3})
  records      = non-empty lines.
  tool_calls   = distinct ids of content blocks with type "toolCall" inside
                 "message" lines whose message.role is "assistant".
  tool_results = "message" lines whose message.role is "toolResult".
  paired       = toolResult messages whose toolCallId matches a counted call.
  output field = the toolResult message "content" (list of text parts);
                 "details" not consulted.
  user_turns   = "message" lines with message.role "user".  "custom_message"
                 lines (extension-injected prompts/summaries) and "custom" lines
                 are not turns.

cline_ui_messages_json (Cline task ui_messages.json: array of {ts, type:"say"|"ask", say|ask, text, partial})
  records      = array items.
  tool_calls   = items with say or ask equal to "tool", "command",
                 "use_mcp_server" or "browser_action_launch", excluding items with
                 partial == true (streaming placeholders).  Conversation-control
                 tools shown as completion_result / followup / plan_mode_respond /
                 task_progress are not counted.
  tool_results = items with say "api_req_started" whose JSON "request" starts with
                 "[<tool_name> for ...] Result:" or "[<tool_name>] Result:" where
                 tool_name is not attempt_completion, ask_followup_question,
                 plan_mode_respond, new_task, condense, summarize_task (Cline puts
                 each tool result into the next API request; ui_messages has no
                 result record of its own).
  paired       = 0 (no ids; pairing is positional).
  output field = the request text after "Result:".
  user_turns   = the first item if it is say "text" (the task the user typed)
               + items with say "user_feedback".

cursor_transcript_jsonl (Cursor agent transcript lines {"role", "message":{"content":[...]}})
  records      = non-empty lines.
  tool_calls   = content blocks of type "tool_use" in role "assistant" lines
                 (there are none in this export).
  tool_results = content blocks of type "tool_result" (none).
  paired       = tool_result blocks whose tool_use_id matches a call.
  output field = tool_result content.
  user_turns   = role "user" lines whose text contains "<user_query>" (the
                 typed query; lines made only of injected context such as
                 <agent_transcripts>/<agent_skills> are not turns).
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
AIDER_MSG_CMDS = ("/code", "/ask", "/architect", "/context", "/help")


def aider_message(content):
    """Typed message text of a #### block: bare commands ("/add x", "/model y",
    "/run z") carry none; "/code <msg>" (and /ask, /architect, ...) carry <msg>."""
    out = []
    for i, x in enumerate(content):
        if i == 0 and x.startswith("/"):
            cmd, _, rest = x.partition(" ")
            if cmd in AIDER_MSG_CMDS and rest.strip():
                out.append(rest.strip())
            continue
        out.append(x)
    if out and all(x.startswith("/") for x in out):
        return []
    return out


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
    # readers5: the echo test also strips a "/code|/ask|/architect <msg>" prefix
    # from the previous block's first line (readers4's implementation missed the
    # echo when the message started on the /code line of a multi-line block).
    users, prev = 0, None
    for b in blocks:
        content = [x for x in b if x]
        msg = aider_message(content)
        echo = prev is not None and bool(msg) and bool(prev) and prev[0].startswith("/") \
            and aider_message(prev) == msg and msg == content
        if msg and not echo:
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




# ================================================================ new in readers5
# ---------------------------------------------------------------- openhands v1
def oh_v1_output(e):
    if e.get("kind") == "AgentErrorEvent":
        return e.get("error")
    ob = e.get("observation") or {}
    for k in ("output", "content", "message"):
        if k in ob:
            return ob[k]
    return None


def oh_v1_session(events):
    calls, res, users = [], [], 0
    for e in events:
        k = e.get("kind")
        tcid = e.get("tool_call_id")
        if k == "ActionEvent" and tcid and tcid not in calls:
            calls.append(tcid)
        elif k in ("ObservationEvent", "AgentErrorEvent", "UserRejectObservation") and tcid:
            res.append(e)
        elif k == "MessageEvent" and e.get("source") == "user":
            users += 1
    ids = set(calls)
    paired = sum(1 for e in res if e.get("tool_call_id") in ids)
    wtext = sum(1 for e in res if has_text(oh_v1_output(e)))
    return len(calls), len(res), paired, wtext, users


def openhands_v1_eval(path):
    L = jsonl(path)
    tot = [0, 0, 0, 0, 0]
    for o in L:
        for i, v in enumerate(oh_v1_session(o.get("history") or [])):
            tot[i] += v
    return result("openhands_v1_eval_jsonl", len(L), *tot)


# ---------------------------------------------------------------- gemini chat recording
GEM_INJECTED = ("<session_context>", "<state_snapshot>",
                "User has manually exited Plan Mode", "System: Please continue")


def gemini_chat_count(fmt, records, messages):
    calls, res, users = [], [], 0
    for m in messages:
        if m.get("type") == "gemini":
            for t in m.get("toolCalls") or []:
                if t.get("id") not in [c.get("id") for c in calls]:
                    calls.append(t)
        elif m.get("type") == "user":
            c = m.get("content")
            parts = c if isinstance(c, list) else [{"text": c}] if isinstance(c, str) else []
            if any(isinstance(p, dict) and "functionResponse" in p for p in parts):
                continue
            tx = [p.get("text", "") for p in parts if isinstance(p, dict) and "text" in p]
            s = "\n".join(tx).lstrip()
            if s and not s.startswith(GEM_INJECTED):
                users += 1
    for t in calls:
        r = t.get("result")
        if isinstance(r, list) and r:
            res.append((t, r))
    paired = 0
    wtext = 0
    for t, r in res:
        fr = (r[0] or {}).get("functionResponse") or {}
        if fr.get("id") == t.get("id"):
            paired += 1
        if has_text([(x or {}).get("functionResponse", {}).get("response") for x in r]):
            wtext += 1
    return result(fmt, records, len(calls), len(res), paired, wtext, users)


def gemini_chat_json(path):
    d = json.load(open(path, encoding="utf-8"))
    return gemini_chat_count("gemini_chat_json", len(d["messages"]), d["messages"])


def gemini_chat_jsonl(path):
    L = jsonl(path)
    order, last = [], {}
    for o in L:
        if "id" in o and "type" in o:
            if o["id"] not in last:
                order.append(o["id"])
            last[o["id"]] = o
    return gemini_chat_count("gemini_chat_jsonl", len(L), [last[i] for i in order])


# ---------------------------------------------------------------- pi
def pi_session(path):
    L = jsonl(path)
    calls, res, users = [], [], 0
    for o in L:
        if o.get("type") != "message":
            continue
        m = o.get("message") or {}
        role = m.get("role")
        if role == "assistant":
            for b in m.get("content") or []:
                if isinstance(b, dict) and b.get("type") == "toolCall" and b.get("id") not in calls:
                    calls.append(b.get("id"))
        elif role == "toolResult":
            res.append(m)
        elif role == "user":
            users += 1
    ids = set(calls)
    paired = sum(1 for m in res if m.get("toolCallId") in ids)
    wtext = sum(1 for m in res if has_text(m.get("content")))
    return result("pi_session_jsonl", len(L), len(calls), len(res), paired, wtext, users)


# ---------------------------------------------------------------- cline ui_messages
CLINE_CALL_KINDS = {"tool", "command", "use_mcp_server", "browser_action_launch"}
CLINE_NOT_TOOLS = {"attempt_completion", "ask_followup_question", "plan_mode_respond",
                   "new_task", "condense", "summarize_task"}
CLINE_RES = re.compile(r"^\[([a-z_]+)(?: for [^\n]*?)?\] Result:")


def cline_ui(path):
    d = json.load(open(path, encoding="utf-8"))
    calls, results, users = 0, [], 0
    for i, m in enumerate(d):
        kind = m.get("say") if m.get("type") == "say" else m.get("ask")
        if kind in CLINE_CALL_KINDS and m.get("partial") is not True:
            calls += 1
        if m.get("type") == "say" and kind == "api_req_started":
            try:
                req = json.loads(m.get("text") or "{}").get("request", "")
            except ValueError:
                req = ""
            mt = CLINE_RES.match(req)
            if mt and mt.group(1) not in CLINE_NOT_TOOLS:
                results.append(req.split("Result:", 1)[1])
        if m.get("type") == "say" and (kind == "user_feedback" or (i == 0 and kind == "text")):
            users += 1
    wtext = sum(1 for r in results if r.strip())
    return result("cline_ui_messages_json", len(d), calls, len(results), 0, wtext, users)


# ---------------------------------------------------------------- cursor
def cursor_transcript(path):
    L = jsonl(path)
    ids, res, users = [], [], 0
    for o in L:
        c = (o.get("message") or {}).get("content")
        blocks = c if isinstance(c, list) else []
        if o.get("role") == "assistant":
            for b in blocks:
                if isinstance(b, dict) and b.get("type") == "tool_use" and b.get("id") not in ids:
                    ids.append(b.get("id"))
        for b in blocks:
            if isinstance(b, dict) and b.get("type") == "tool_result":
                res.append(b)
        if o.get("role") == "user":
            t = c if isinstance(c, str) else "\n".join(
                b.get("text", "") for b in blocks if isinstance(b, dict) and b.get("type") == "text")
            if "<user_query>" in t:
                users += 1
    idset = set(ids)
    paired = sum(1 for b in res if b.get("tool_use_id") in idset)
    wtext = sum(1 for b in res if has_text(b.get("content")))
    return result("cursor_transcript_jsonl", len(L), len(ids), len(res), paired, wtext, users)


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
        if d and isinstance(d[0], dict) and "ts" in d[0] and d[0].get("type") in ("say", "ask"):
            return cline_ui
        raise ValueError("unknown JSON array format: " + path)
    if name.endswith(".traj.json"):
        return mini_swe
    with open(path, "rb") as f:
        firstline = f.readline().decode("utf-8")
    try:
        first = json.loads(firstline)
    except ValueError:
        d = json.load(open(path, encoding="utf-8"))   # one pretty-printed JSON object
        if isinstance(d, dict) and "projectHash" in d and "messages" in d:
            return gemini_chat_json
        raise ValueError("unknown JSON object format: " + path)
    if "step_index" in first:
        return antigravity
    if "memory_id" in first:
        return replit
    if first.get("type") == "session_meta":
        return codex
    if first.get("type") == "session" and "version" in first:
        return pi_session
    if "projectHash" in first and "sessionId" in first:
        return gemini_chat_jsonl
    if "raw" in first and isinstance(first["raw"], dict) and "." in str(first["raw"].get("type")):
        return copilot
    if "history" in first and "instance_id" in first:
        h = first.get("history") or []
        if h and isinstance(h[0], dict) and "kind" in h[0]:
            return openhands_v1_eval
        return openhands_eval
    if set(first) == {"role", "message"}:
        return cursor_transcript
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
