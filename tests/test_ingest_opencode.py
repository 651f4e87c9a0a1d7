"""opencode readers: export JSON, run --format json streams, storage folders and opencode.db."""

from __future__ import annotations

import copy
import gzip
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from logsleuth import ingest
from logsleuth.cli import main
from logsleuth.errors import InputError
from logsleuth.ingest.base import make_probe
from logsleuth.ingest.detect import by_name, detect
from logsleuth.ingest.opencode import sniff_db, sniff_export, sniff_run, sniff_storage
from logsleuth.model import CALL_SCHEMA, EVENT_COLUMNS, Transcript

FIX = Path(__file__).resolve().parent / "fixtures" / "ingest" / "opencode"
EXPORT = FIX / "export.json"
RUN = FIX / "run.jsonl"
SESSION = "ses_3a7c1e5d0ffeQk2vN8rT4bYw1z"

# opencode's drizzle schema (packages/opencode/src/session/session.sql.ts, project.sql.ts) as the
# generated migration creates it; `data` holds the message info / part JSON without its ids.
SCHEMA = """
CREATE TABLE `project` (
  `id` text PRIMARY KEY, `worktree` text NOT NULL, `vcs` text, `name` text,
  `time_created` integer NOT NULL, `time_updated` integer NOT NULL, `time_initialized` integer
);
CREATE TABLE `session` (
  `id` text PRIMARY KEY, `project_id` text NOT NULL, `parent_id` text, `slug` text NOT NULL,
  `directory` text NOT NULL, `title` text NOT NULL, `version` text NOT NULL, `share_url` text,
  `summary_additions` integer, `summary_deletions` integer, `summary_files` integer, `summary_diffs` text,
  `revert` text, `permission` text, `time_created` integer NOT NULL, `time_updated` integer NOT NULL,
  `time_compacting` integer, `time_archived` integer,
  CONSTRAINT `fk_session_project_id_project_id_fk` FOREIGN KEY (`project_id`) REFERENCES `project`(`id`) ON DELETE CASCADE
);
CREATE TABLE `message` (
  `id` text PRIMARY KEY, `session_id` text NOT NULL, `time_created` integer NOT NULL,
  `time_updated` integer NOT NULL, `data` text NOT NULL,
  CONSTRAINT `fk_message_session_id_session_id_fk` FOREIGN KEY (`session_id`) REFERENCES `session`(`id`) ON DELETE CASCADE
);
CREATE TABLE `part` (
  `id` text PRIMARY KEY, `message_id` text NOT NULL, `session_id` text NOT NULL,
  `time_created` integer NOT NULL, `time_updated` integer NOT NULL, `data` text NOT NULL,
  CONSTRAINT `fk_part_message_id_message_id_fk` FOREIGN KEY (`message_id`) REFERENCES `message`(`id`) ON DELETE CASCADE
);
CREATE TABLE `todo` (
  `session_id` text NOT NULL, `content` text NOT NULL, `status` text NOT NULL, `priority` text NOT NULL,
  `position` integer NOT NULL, `time_created` integer NOT NULL, `time_updated` integer NOT NULL,
  CONSTRAINT `todo_pk` PRIMARY KEY(`session_id`, `position`)
);
CREATE INDEX `message_session_time_created_id_idx` ON `message` (`session_id`,`time_created`,`id`);
CREATE INDEX `part_message_id_id_idx` ON `part` (`message_id`,`id`);
CREATE INDEX `part_session_idx` ON `part` (`session_id`);
CREATE INDEX `session_project_idx` ON `session` (`project_id`);
"""


def export_doc() -> dict[str, Any]:
    return json.loads(EXPORT.read_text())


def second_session(doc: dict[str, Any]) -> dict[str, Any]:
    """A copy of the fixture session, one hour later, under another session id."""
    other = copy.deepcopy(doc)
    sid = "ses_3a7c1e5d1ffeOther0Session0"
    other["info"]["id"] = sid
    other["info"]["time"]["created"] += 3_600_000
    for m in other["messages"]:
        m["info"]["id"] = m["info"]["id"].replace("msg_c5e2a", "msg_c5e2b")
        m["info"]["sessionID"] = sid
        m["info"]["time"]["created"] += 3_600_000
        for p in m["parts"]:
            p["id"] = p["id"].replace("prt_c5e2a", "prt_c5e2b")
            p["messageID"] = m["info"]["id"]
            p["sessionID"] = sid
    return other


def build_storage(root: Path, docs: list[dict[str, Any]]) -> Path:
    """The legacy layout: storage/{session/<project>,message/<session>,part/<message>}/<id>.json."""
    st = root / "storage"
    for doc in docs:
        info = doc["info"]
        (st / "session" / info["projectID"]).mkdir(parents=True, exist_ok=True)
        (st / "session" / info["projectID"] / f"{info['id']}.json").write_text(json.dumps(info, indent=2))
        for m in doc["messages"]:
            mdir = st / "message" / info["id"]
            mdir.mkdir(parents=True, exist_ok=True)
            (mdir / f"{m['info']['id']}.json").write_text(json.dumps(m["info"], indent=2))
            pdir = st / "part" / m["info"]["id"]
            pdir.mkdir(parents=True, exist_ok=True)
            for p in m["parts"]:
                (pdir / f"{p['id']}.json").write_text(json.dumps(p, indent=2))
    return st


def build_db(path: Path, docs: list[dict[str, Any]]) -> Path:
    """An opencode.db with the real schema; rows as opencode's json-migration writes them."""
    con = sqlite3.connect(path)
    con.executescript(SCHEMA)
    for doc in docs:
        info = doc["info"]
        con.execute("INSERT OR IGNORE INTO project VALUES (?, ?, 'git', NULL, ?, ?, NULL)",
                    (info["projectID"], info["directory"], info["time"]["created"], info["time"]["updated"]))
        con.execute(
            "INSERT INTO session (id, project_id, slug, directory, title, version, time_created, time_updated) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (info["id"], info["projectID"], info["slug"], info["directory"], info["title"], info["version"],
             info["time"]["created"], info["time"]["updated"]),
        )
        for m in doc["messages"]:
            mi = m["info"]
            data = {k: v for k, v in mi.items() if k not in ("id", "sessionID")}
            created = mi["time"]["created"]
            con.execute("INSERT INTO message VALUES (?, ?, ?, ?, ?)",
                        (mi["id"], info["id"], created, created, json.dumps(data)))
            for p in m["parts"]:
                pdata = {k: v for k, v in p.items() if k not in ("id", "sessionID", "messageID")}
                con.execute("INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)",
                            (p["id"], mi["id"], info["id"], created, created, json.dumps(pdata)))
    con.commit()
    con.close()
    return path


def rows(t: Transcript, drop: tuple[str, ...] = ("line", "source")) -> list[dict[str, Any]]:
    return t.events.drop(list(drop)).to_dicts()


def line_of(text: str, needle: str) -> int:
    return text[: text.index(needle)].count("\n") + 1


# --- export -------------------------------------------------------------------------------------


def test_export_events_roles_and_tool_pairs() -> None:
    t = ingest.read(str(EXPORT))
    ev = t.events
    assert t.report.format == "opencode-export"
    assert set(ev["session"]) == {SESSION}
    assert ev["seq"].to_list() == list(range(ev.height))
    got = list(zip(ev["role"], ev["kind"], ev["tool"], strict=True))
    assert got == [
        ("user", "text", None),
        ("assistant", "reasoning", None),
        ("assistant", "tool_call", "bash"),
        ("tool", "tool_result", "bash"),
        ("assistant", "tool_call", "bash"),
        ("tool", "tool_result", "bash"),
        ("assistant", "tool_call", "read"),
        ("tool", "tool_result", "read"),
        ("assistant", "tool_call", "edit"),  # pending: no result yet
        ("assistant", "text", None),
        ("system", "text", None),  # the message's APIError
    ]
    calls = ev.filter(ev["kind"] == "tool_call")
    assert calls["text"][0] == "nvidia-smi"  # bash: the command itself
    assert calls["text"][2] == '{"filePath":"/home/dev/llm-serve/requirements.txt","offset":0}'  # sorted, compact
    results = ev.filter(ev["kind"] == "tool_result")
    assert results["call_id"].to_list() == ["toolu_01A", "toolu_01B", "toolu_01C"]
    assert results["is_error"].to_list() == [False, True, True]  # exit 1, then status error
    assert results["exit_code"].to_list() == [0, 1, None]
    assert results["text"][2].startswith("Error: File not found")
    assert ev["text"][-1] == "APIError: Overloaded" and ev["is_error"][-1] is True


def test_export_line_numbers_and_accounting() -> None:
    text = EXPORT.read_text()
    t = ingest.read(str(EXPORT))
    ev = t.events
    # each event points at the line of its part's "id" in the pretty-printed file
    assert ev["line"][0] == line_of(text, '"id": "prt_c5e2a0100002Ij5Kl4Mn3Op2"')
    assert ev["line"][2] == ev["line"][3] == line_of(text, '"id": "prt_c5e2a0220002Ij5Kl4Mn3Op2"')
    assert ev["line"][-1] == line_of(text, '"id": "msg_c5e2a0040001Ab9Cd8Ef7Gh6"')  # the message error
    assert ev["ts"][0].isoformat() == "2026-01-02T03:00:00+00:00"
    doc = export_doc()
    r = t.report
    assert r.lines == 1 + len(doc["messages"]) + sum(len(m["parts"]) for m in doc["messages"])
    assert r.balanced and not r.skipped
    # used: 4 messages + text, reasoning, 2 bash, read, edit, text = 11; the rest are step markers & co.
    assert r.used == 11 and r.ignored == r.lines - 11


def test_export_orders_messages_by_time_then_id(tmp_path: Path) -> None:
    doc = export_doc()
    doc["messages"].reverse()
    for m in doc["messages"]:
        m["parts"].reverse()
    path = tmp_path / "rev.json"
    path.write_text(json.dumps(doc, indent=2))
    assert rows(ingest.read(str(path))) == rows(ingest.read(str(EXPORT)))


def test_minified_export_locations_are_lines_of_the_file(tmp_path: Path) -> None:
    path = tmp_path / "min.json"
    path.write_text(json.dumps(export_doc(), separators=(",", ":")))
    t = ingest.read(str(path))
    # record indexes (3 = the first message's part) clamped to the file's one line (issue 20)
    assert set(t.events["line"].to_list()) == {1}
    assert rows(t) == rows(ingest.read(str(EXPORT)))


def test_export_bad_records_are_skipped(tmp_path: Path) -> None:
    doc = export_doc()
    doc["messages"][0]["parts"] = {"not": "a list"}
    parts = doc["messages"][1]["parts"]
    del parts[2]["state"]  # nvidia-smi: state missing
    parts[3]["state"]["output"] = 42  # output a number
    doc["messages"][2]["info"]["role"] = 7  # unusable message: its tool parts still count
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(doc, indent=2))
    t = ingest.read(str(path))
    r = t.report
    assert r.balanced
    reasons = sorted(s.reason for s in r.skipped)
    assert len(reasons) == 4
    assert any("parts` is not a list" in x for x in reasons)
    assert any("without a state" in x for x in reasons)
    assert any("output is not a string (int)" in x for x in reasons)
    assert any("no usable role" in x for x in reasons)
    assert "read" in t.events["tool"].to_list()  # from the message whose role was unusable
    assert "nvidia-smi" not in t.events["text"].to_list()


def test_truncated_export_keeps_leading_messages(tmp_path: Path) -> None:
    text = EXPORT.read_text()
    cut = text.index('"id": "msg_c5e2a0030001Ab9Cd8Ef7Gh6"')
    path = tmp_path / "cut.json"
    path.write_text(text[:cut])
    t = ingest.read(str(path))
    assert t.report.balanced and len(t.report.skipped) == 1
    assert "truncated" in t.report.skipped[0].reason
    assert t.events["tool"].drop_nulls().unique().to_list() == ["bash"]  # messages 1 and 2 survive
    assert t.events.height == 6


def test_export_invalid_utf8_does_not_crash(tmp_path: Path) -> None:
    raw = EXPORT.read_bytes().replace(b"please fix", b"please \xff\xfe fix")
    path = tmp_path / "utf.json"
    path.write_bytes(raw)
    t = ingest.read(str(path))
    assert t.report.balanced and t.events.height == 11
    assert "\ufffd" in t.events["text"][0]


# --- run --format json --------------------------------------------------------------------------


def test_run_stream_fixture() -> None:
    t = ingest.read(str(RUN))
    ev = t.events
    assert t.report.format == "opencode-run"
    assert set(ev["session"]) == {"ses_3b0d2f6e1ffeWx9yZ8aB7cD6eF"}
    assert ev["kind"].to_list() == ["reasoning", "tool_call", "tool_result", "tool_call", "tool_result", "text", "text"]
    assert ev["line"].to_list() == [2, 3, 3, 4, 4, 6, 7]
    assert ev["exit_code"][2] == 127 and ev["is_error"][2] is True
    assert ev["text"][3] == '{"format":"text","url":"https://example.invalid/cuda"}'
    assert ev["is_error"][4] is True and ev["text"][4] == "Request failed with status code: 404"
    assert ev["role"][-1] == "system" and ev["text"][-1] == "ProviderAuthError: invalid x-api-key"
    r = t.report
    assert (r.lines, r.used, r.ignored, r.skipped) == (7, 5, 2, ())


def test_run_stream_bad_lines(tmp_path: Path) -> None:
    good = RUN.read_bytes().splitlines()
    tool = json.loads(good[2])
    no_state = dict(tool, part={k: v for k, v in tool["part"].items() if k != "state"})
    num_out = json.loads(good[2])
    num_out["part"]["state"]["output"] = 3.5
    bad = [
        good[1],
        b"{not json",
        b'{"type":"text","sessionID":"s","part":{"type":"text","text":"caf\xe9"}}',
        b"[1, 2]",
        b"",
        json.dumps(no_state).encode(),
        json.dumps(num_out).encode(),
        b'{"type":"text","sessionID":"s","part":"oops"}',
        b'{"type":"session.idle","sessionID":"s"}',
        good[5],
        good[2][:40],  # truncated last line
    ]
    path = tmp_path / "bad.jsonl"
    path.write_bytes(b"\n".join(bad))
    t = ingest.read(str(path), "opencode-run")
    r = t.report
    assert r.balanced and r.lines == len(bad)
    assert [s.line for s in r.skipped] == [2, 3, 4, 6, 7, 8, 11]
    assert r.skipped[1].reason == "invalid UTF-8"
    assert "without a state" in r.skipped[3].reason and "not a string (float)" in r.skipped[4].reason
    assert t.events["kind"].to_list() == ["reasoning", "text"]


def test_truncated_gzip_stream_is_a_skip(tmp_path: Path) -> None:
    data = gzip.compress(RUN.read_bytes() * 200)
    path = tmp_path / "run.jsonl.gz"
    path.write_bytes(data[: len(data) // 2])
    t = ingest.read(str(path), "opencode-run")
    assert t.report.balanced and t.events.height > 0
    assert "truncated" in t.report.skipped[-1].reason


# --- storage folder ------------------------------------------------------------------------------


def test_storage_folder_matches_export(tmp_path: Path) -> None:
    doc = export_doc()
    st = build_storage(tmp_path, [doc])
    t = ingest.read(str(st))
    assert t.report.format == "opencode-storage"
    assert rows(t) == rows(ingest.read(str(EXPORT)))
    r = t.report
    assert r.balanced and r.lines == 1 + 4 + sum(len(m["parts"]) for m in doc["messages"])
    assert t.events["line"][0] == 3  # session file, message file, then its part file


def test_storage_parent_and_several_sessions(tmp_path: Path) -> None:
    doc = export_doc()
    build_storage(tmp_path, [second_session(doc), doc])
    t = ingest.read(str(tmp_path))  # the folder holding storage/
    ev = t.events
    assert ev["session"].unique(maintain_order=True).to_list() == [SESSION, "ses_3a7c1e5d1ffeOther0Session0"]
    for sid in (SESSION, "ses_3a7c1e5d1ffeOther0Session0"):
        assert ev.filter(ev["session"] == sid)["seq"].to_list() == list(range(11))
    assert t.report.balanced and t.report.source == str(tmp_path)


def test_storage_corrupt_files_are_skipped(tmp_path: Path) -> None:
    st = build_storage(tmp_path, [export_doc()])
    bad_part = st / "part" / "msg_c5e2a0020001Ab9Cd8Ef7Gh6" / "prt_c5e2a0220002Ij5Kl4Mn3Op2.json"
    bad_part.write_bytes(b'{"id": "prt_c5e2a0220002Ij5Kl4Mn3Op2", "type": "tool", "st')
    bad_msg = st / "message" / SESSION / "msg_c5e2a0010001Ab9Cd8Ef7Gh6.json"
    bad_msg.write_bytes(b'{"role": "user", "text": "\xff"}')
    orphan = st / "part" / "msg_gone" / "prt_x.json"
    orphan.parent.mkdir()
    orphan.write_text('{"type": "text", "text": "orphan"}')
    t = ingest.read(str(st))
    r = t.report
    assert r.balanced
    by_source = {s.source: s.reason for s in r.skipped}
    assert by_source[str(bad_part)].startswith("malformed JSON")
    assert by_source[str(bad_msg)] == "invalid UTF-8"
    # the user text part of the unreadable message has no role: skipped; the rest is kept
    assert any("role is unknown" in s.reason for s in r.skipped)
    assert "nvidia-smi" not in t.events["text"].to_list() and t.events.height == 8


# --- opencode.db ---------------------------------------------------------------------------------


def test_db_matches_export(tmp_path: Path) -> None:
    db = build_db(tmp_path / "opencode.db", [export_doc()])
    probe = make_probe(str(db))
    assert sniff_db(probe) and detect(probe).name == "opencode-db"
    t = ingest.read(str(db))
    assert t.report.format == "opencode-db" and t.report.source == str(db)
    assert rows(t) == rows(ingest.read(str(EXPORT)))
    assert t.events["line"][0] == 3
    assert t.report.balanced and t.report.lines == 1 + 4 + 15


def test_db_two_sessions_orphans_and_bad_rows(tmp_path: Path) -> None:
    doc = export_doc()
    db = build_db(tmp_path / "x.db", [doc, second_session(doc)])
    con = sqlite3.connect(db)
    con.execute("UPDATE part SET data = '{\"type\": \"tool\", ' WHERE id = 'prt_c5e2a0220002Ij5Kl4Mn3Op2'")
    con.execute("UPDATE part SET data = CAST(X'7B2274797065223A2274657874222C2274657874223A22FF227D' AS TEXT) "
                "WHERE id = 'prt_c5e2a0100002Ij5Kl4Mn3Op2'")
    con.execute("INSERT INTO part VALUES ('prt_zz', 'msg_missing', 's', 1, 1, '{}')")
    con.commit()
    con.close()
    t = ingest.read(str(db))
    r = t.report
    assert r.balanced and r.lines == 2 * (1 + 4 + 15) + 1
    assert sorted(s.reason.split(" (")[0] for s in r.skipped) == ["invalid UTF-8 in data", "malformed JSON in data: Expecting property name enclosed in double quotes"]
    ev = t.events
    assert ev.filter(ev["session"] == SESSION).height == 8
    assert ev.filter(ev["session"] == "ses_3a7c1e5d1ffeOther0Session0").height == 11


def test_data_folder_prefers_db(tmp_path: Path) -> None:
    build_storage(tmp_path, [export_doc()])
    build_db(tmp_path / "opencode.db", [export_doc()])
    probe = make_probe(str(tmp_path))
    assert sniff_storage(probe)
    t = ingest.read(str(tmp_path))
    assert t.report.format == "opencode-db" and t.events.height == 11


def test_db_errors_are_input_errors(tmp_path: Path) -> None:
    fake = tmp_path / "opencode.db"
    fake.write_bytes(b"SQLite format 3\x00" + b"\x00" * 100)
    with pytest.raises(InputError) as exc:
        ingest.read(str(fake))
    assert str(fake) in str(exc.value)
    other = tmp_path / "other.sqlite"
    con = sqlite3.connect(other)
    con.execute("CREATE TABLE message (id text, body text)")
    con.commit()
    con.close()
    with pytest.raises(InputError, match="not an opencode database"):
        ingest.read(str(other), "opencode-db")
    assert not sniff_db(make_probe(str(other)))
    text = tmp_path / "notes.db"
    text.write_text("hello")
    with pytest.raises(InputError):
        by_name("opencode-db").read(make_probe(str(text)))


# --- sniffing ------------------------------------------------------------------------------------


def _probe(tmp_path: Path, name: str, content: str) -> Any:
    p = tmp_path / name
    p.write_text(content)
    return make_probe(str(p))


def test_sniffers_claim_only_opencode(tmp_path: Path) -> None:
    assert sniff_export(make_probe(str(EXPORT))) and not sniff_run(make_probe(str(EXPORT)))
    assert sniff_run(make_probe(str(RUN))) and not sniff_export(make_probe(str(RUN)))
    others = {
        "claude.jsonl": '{"parentUuid":null,"sessionId":"abc","type":"user","message":{"role":"user","content":"hi"}}\n',
        "codex.jsonl": '{"timestamp":"2026-01-01T00:00:00Z","type":"session_meta","payload":{"id":"x"}}\n',
        "openai.json": '{"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":"yo"}]}',
        "gemini.json": '{"sessionId":"s","projectHash":"h","startTime":"t","messages":[{"type":"user","content":"hi"}]}',
        "text_type.jsonl": '{"type":"text","text":"no session here"}\n',
    }
    for name, content in others.items():
        p = _probe(tmp_path, name, content)
        assert not any(s(p) for s in (sniff_export, sniff_run, sniff_db, sniff_storage)), name
    assert not sniff_storage(make_probe(str(tmp_path)))


# --- the shared real sample and the CLI ------------------------------------------------------------


def test_shared_run_sample(shared: Path) -> None:
    sample = shared / "samples" / "opencode" / "opencode-run-format-json.jsonl"
    if not sample.is_file():
        pytest.skip("opencode sample absent")
    probe = make_probe(str(sample))
    assert detect(probe).name == "opencode-run"
    t = ingest.read(str(sample))
    r = t.report
    assert (r.lines, r.used, r.ignored, len(r.skipped)) == (24, 8, 16, 0)
    ev = t.events
    assert ev.filter(ev["kind"] == "tool_call").height == 7
    assert ev.filter(ev["kind"] == "tool_result")["exit_code"].to_list() == [0, 0, 0, 0, None, None, None]
    assert ev.filter(ev["tool"] == "bash")["text"][0] == "ls -F"
    assert set(ev["session"]) == {"ses_41c989669ffeOegf7BiLgoe4ym"}


def test_cli_events_json(capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    assert main(["events", str(EXPORT), "--output-format", "json"]) == 0
    out = json.loads(capsysbinary.readouterr().out)
    assert set(out) == {"report", "events"}
    rep = out["report"]
    assert rep["format"] == "opencode-export" and rep["source"] == str(EXPORT)
    assert rep["lines"] == rep["used"] + rep["ignored"] + len(rep["skipped"])
    assert rep["events"] == len(out["events"]) == 11
    first = out["events"][0]
    assert list(first) == [c for c in EVENT_COLUMNS if c not in CALL_SCHEMA]  # the call's columns: tool calls only
    call = next(e for e in out["events"] if e["kind"] == "tool_call")
    assert list(call) == [c for c in EVENT_COLUMNS if c not in CALL_SCHEMA] + list(CALL_SCHEMA)
    assert first["ts"] == "2026-01-02T03:00:00Z" and first["role"] == "user"


def test_export_with_stderr_banner(tmp_path: Path) -> None:
    path = tmp_path / "both.json"
    path.write_text(f"Exporting session: {SESSION}\n" + EXPORT.read_text())
    probe = make_probe(str(path))
    assert detect(probe).name == "opencode-export"
    t = ingest.read(str(path))
    assert not t.report.skipped and rows(t) == rows(ingest.read(str(EXPORT)))
    assert t.events["line"].to_list() == [x + 1 for x in ingest.read(str(EXPORT)).events["line"]]


@pytest.mark.parametrize("banner", [b"", b"Exporting session: ses_1\n"])
def test_export_parsed_from_bytes_equals_the_tolerant_path(
    tmp_path: Path, banner: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    """orjson parses the raw bytes when it can; the decoded, tolerant path must give the same events."""
    import orjson

    path = tmp_path / "export.json"
    path.write_bytes(banner + (FIX / "export.json").read_bytes())
    fast = ingest.read(str(path))
    monkeypatch.setattr(orjson, "loads", lambda *_a, **_k: (_ for _ in ()).throw(orjson.JSONDecodeError("x", "", 0)))
    slow = ingest.read(str(path))
    assert fast.events.equals(slow.events)
    assert fast.report.to_dict() == slow.report.to_dict()
    assert fast.events.height > 5
