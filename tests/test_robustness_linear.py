"""Reproducers of a second red-team pass (issue 20): inputs that cost more than linear time or
memory, names that are not text, outputs that are not regular files. Each class is fixed where it
arose; the scaling tests count work (calls), not seconds, so that they cannot flake."""

from __future__ import annotations

import itertools
import json
import os
import random
import resource
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from logsleuth import ingest
from logsleuth.cli import main
from logsleuth.model import Target

BUILD_LOG = Path(__file__).parent / "fixtures" / "ingest" / "text" / "build.log"

sys.path.insert(0, str(Path(__file__).parents[1] / "bench"))
from adversarial_scaling import distinct_failures as _distinct_failures  # noqa: E402  (the bench's inputs)
from adversarial_scaling import reused_ids as _reused_ids  # noqa: E402


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


# -- a tool-call id used by more than one call ---------------------------------------------------


def test_a_reused_call_id_pairs_each_call_with_its_own_result(tmp_path: Path) -> None:
    from logsleuth.actions import extract_actions

    path = tmp_path / "reuse.jsonl"
    _reused_ids(path, 3)
    ev = ingest.read(str(path)).events
    calls = ev.filter(ev["kind"] == "tool_call")["call_id"].to_list()
    results = ev.filter(ev["kind"] == "tool_result")["call_id"].to_list()
    assert calls == results == ["call_0", "call_0~2", "call_0~3"]
    # each install resolves to its own version: no result is joined to every call
    assert [a.resolved for a in extract_actions(ev)] == ["0.0", "1.0", "2.0"]  # torch=={i % 50}.0


def test_a_reused_call_id_costs_linear_work(tmp_path: Path) -> None:
    from logsleuth.actions.extract import _Results

    path = tmp_path / "reuse.jsonl"
    _reused_ids(path, 5000)
    res = _Results(ingest.read(str(path)).events)
    assert max(len(rows) for rows, _, _ in res._index.values()) == 1  # was: one key, 5,000 texts joined per call


# -- YAML aliases in a user's pattern folder -----------------------------------------------------


def test_a_yaml_alias_bomb_is_refused_with_its_line(tmp_path: Path) -> None:
    lines = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    lines += [f"a{i}: &a{i} [" + ",".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, 10)]
    (tmp_path / "bomb.yaml").write_text("\n".join(lines) + "\n")
    (tmp_path / "self.yaml").write_text("id: x\nlist: &l [1, *l]\n")
    # in a child capped at 1 GB and 120 s: unbounded, the bomb expands to 10^9 nodes (the machine's memory)
    code = ("import sys; from logsleuth.library import load_library; "
            "print('\\n'.join(sorted(str(p) for p in load_library([sys.argv[1]], cache=False).errors)))")

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))

    done = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, timeout=120,
                          preexec_fn=cap, check=False)
    problems = done.stdout.splitlines()
    assert done.returncode == 0, done.stderr[-500:]
    assert any("bomb.yaml:" in p and "aliases expand" in p for p in problems), problems
    assert any("self.yaml:2" in p and "refers to itself" in p for p in problems), problems


def test_a_yaml_alias_used_a_few_times_still_loads() -> None:
    from logsleuth.library.loader import parse_yaml

    data, lines = parse_yaml("base: &b {a: 1}\nx: *b\ny: *b\n")
    assert data == {"base": {"a": 1}, "x": {"a": 1}, "y": {"a": 1}} and lines[("y",)] == 3


# -- -o that is not a regular file ---------------------------------------------------------------


def test_output_to_a_pipe_keeps_the_pipe(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`-o /dev/null`, `-o /dev/stdout`, `-o fifo`: written in place (a named pipe here, so that a
    regression cannot replace the machine's /dev/null with a regular file, as it once did)."""
    fifo = tmp_path / "pipe.md"
    os.mkfifo(fifo)
    for argv in (["analyze", str(BUILD_LOG), "-o", str(fifo)], ["explain", str(BUILD_LOG), "-m", "2", "-o", str(fifo)]):
        got: list[bytes] = []
        reader = threading.Thread(target=lambda into=got: into.append(fifo.read_bytes()), daemon=True)
        reader.start()
        code, _, err = run(argv, capsys)
        reader.join(30)
        assert code == 0, err
        assert stat.S_ISFIFO(os.stat(fifo).st_mode) and got and got[0].strip(), argv


def test_output_through_a_link_writes_the_file_it_names(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    real = tmp_path / "real.md"
    real.write_text("old")
    link = tmp_path / "link.md"
    link.symlink_to(real)
    assert run(["analyze", str(BUILD_LOG), "-o", str(link)], capsys)[0] == 0
    assert link.is_symlink() and real.read_text().startswith("# ")


# -- file names that are not UTF-8 ---------------------------------------------------------------


def _odd_name(tmp_path: Path) -> str:
    name = os.path.join(os.fsdecode(bytes(tmp_path)), os.fsdecode(b"caf\xe9.log"))
    try:
        Path(name).write_bytes(BUILD_LOG.read_bytes())
    except (OSError, UnicodeEncodeError):
        pytest.skip("this file system refuses a name that is not UTF-8")
    return name


@pytest.mark.parametrize("argv", [["events"], ["analyze"], ["classify"], ["sessions"], ["search", "nvcc", "--in"]])
def test_a_file_name_that_is_not_utf8(tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    name = _odd_name(tmp_path)
    code, out, err = run([*argv, name], capsys)
    assert code in (0, 1) and "internal error" not in err
    if argv[0] != "search":
        assert "caf\\xe9" in out  # the odd byte shown, not dropped and not a crash


def test_indexing_a_file_name_that_is_not_utf8(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    name = _odd_name(tmp_path)
    db = str(tmp_path / "db")
    assert run(["index", "--db", db, name], capsys)[0] == 0
    code, out, _ = run(["index", "--db", db, name], capsys)
    assert code == 0 and "1 unchanged" in out  # the same key on the second run
    code, _, err = run(["index", "--db", os.path.join(str(tmp_path), os.fsdecode(b"db\xff")), name], capsys)
    assert code == 3 and "not valid UTF-8" in err


def test_messages_on_stderr_are_inert(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(["events", str(tmp_path / "nosuch\x1b]0;pwned\x07\x1b[2J.log")], capsys)
    assert code == 3 and "\x1b" not in err and "\x07" not in err and err.count("\n") == 1


# -- search arguments past the ranges of SQLite and datetime -------------------------------------


@pytest.mark.parametrize("args,code", [
    (["--limit", str(2**63)], 0), (["--since", "9999-12-31T23:59:59-23:59"], 2), (["--since", "0001-01-01T00:00:00+23:59"], 2),
])
def test_search_arguments_out_of_range(tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], code: int) -> None:
    db = str(tmp_path / "db")
    assert run(["index", "--db", db, str(BUILD_LOG)], capsys)[0] == 0
    got, _, err = run(["search", "nvcc fatal", "--db", db, *args], capsys)
    assert got in ((0, 1) if code == 0 else (code,)) and "internal error" not in err, err


# -- linear work in the link stage ---------------------------------------------------------------


def test_transition_cycles_are_networkx_simple_cycles() -> None:
    import networkx as nx

    from logsleuth.link.catch22 import _transition_cycles

    def reference(seq: list[str]) -> list[list[str]]:
        t = nx.DiGraph()
        t.add_edges_from(itertools.pairwise(seq))
        rank = {e: i for i, e in reversed(list(enumerate(seq)))}
        cycles = []
        for cycle in nx.simple_cycles(t, length_bound=3):
            if len(cycle) >= 2:
                start = min(range(len(cycle)), key=lambda i: rank[cycle[i]])
                cycles.append(cycle[start:] + cycle[:start])
        return sorted(cycles, key=lambda c: (len(c), [rank[e] for e in c]))

    rng = random.Random(7)
    for _ in range(1500):
        seq = [f"e{rng.randint(0, rng.randint(1, 8))}" for _ in range(rng.randint(0, 30))]
        assert _transition_cycles(seq) == reference(seq), seq


def test_cover_keys_find_every_covering_target() -> None:
    rng = random.Random(11)
    words = ["tests", "tests/", "tests/a.py", "tests/a.py::t1", "a", "a/b", "a/b/c.py", "check", "all", "x::y", "/", "run"]

    def target() -> Target:
        args = tuple(rng.choice(words) for _ in range(rng.randint(0, 2)))
        prog = rng.choice(["pytest", "make", "python"])
        name = rng.choice([" ".join((prog, *args)), prog])
        return Target(prog, name, args, host=rng.choice(["", "h"]), scratch=rng.choice(["", "/tmp/x"]))

    pairs = 0
    for _ in range(20_000):
        a, b = target(), target()
        if a.covers(b):
            pairs += 1
            assert set(a.cover_keys()) & set(b.coverer_keys()), (a, b)
    assert pairs > 500


def test_many_distinct_failures_cost_linear_work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from logsleuth.analysis import analyze
    from logsleuth.link.resolution import MAX_ATTEMPTS

    calls = {"n": 0}
    covers = Target.covers

    def counted(self: Target, other: Target) -> bool:
        calls["n"] += 1
        return covers(self, other)

    monkeypatch.setattr(Target, "covers", counted)
    work = []
    for n in (150, 600):
        path = tmp_path / f"s{n}.jsonl"
        _distinct_failures(path, n)
        calls["n"] = 0
        an = analyze(str(path))
        work.append(calls["n"])
        assert all(len(r.attempts) <= MAX_ATTEMPTS for r in an.graph.resolutions.values())
    assert work[1] < 6 * max(work[0], 1), work  # 4x the failures: was 16x the comparisons


# -- text the readers misread in silence ---------------------------------------------------------

OOM = "RuntimeError: CUDA error: out of memory"


def test_lines_ended_by_a_carriage_return_alone(tmp_path: Path) -> None:
    path = tmp_path / "mac.log"
    path.write_bytes(f"step 1\r{OOM}\rstep 3\r".encode())
    assert ingest.read(str(path)).events["text"].to_list() == ["step 1", OOM, "step 3"]
    redraw = tmp_path / "bar.log"  # with newlines, a CR still redraws its line (a progress bar)
    redraw.write_bytes(f"Downloading 10%\rDownloading 100%\n{OOM}\n".encode())
    assert ingest.read(str(redraw)).events["text"].to_list() == ["Downloading 100%", OOM]


@pytest.mark.parametrize("encoding", ["utf-16", "utf-32", "utf-16-be-bom"])
@pytest.mark.parametrize("compress", [False, True])
def test_a_utf16_or_utf32_log_is_text(tmp_path: Path, encoding: str, compress: bool) -> None:
    import gzip

    text = f"step 1\r\n{OOM}\r\ncafé done\r\n"
    data = ("\ufeff" + text).encode("utf-16-be") if encoding == "utf-16-be-bom" else text.encode(encoding)
    path = tmp_path / ("w.log.gz" if compress else "w.log")
    path.write_bytes(gzip.compress(data) if compress else data)
    t = ingest.read(str(path))
    assert t.events["text"].to_list() == ["step 1", OOM, "café done"] and t.events["line"].to_list() == [1, 2, 3]


def test_a_forced_reader_that_reads_nothing_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    cc = Path(__file__).parent / "fixtures" / "ingest" / "claude_code" / "session.jsonl"
    code, _, err = run(["analyze", str(cc), "--format", "codex", "--strict"], capsys)
    assert code == 3 and "none of its" in err and "try --format claude-code" in err
    code, out, err = run(["analyze", str(cc), "--format", "codex"], capsys)
    assert code == 0 and "warning" in err and "Nothing in the record was read" in out


def test_explain_and_analyze_agree_on_bad_arguments(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    meta = tmp_path / "meta.jsonl"
    meta.write_text('{"type":"summary","summary":"x","leafUuid":"a"}\n')
    code, _, err = run(["explain", str(meta), "-m", "0"], capsys)
    assert code == 2 and "0..-1" not in err and "nothing in this session" in err
    for cmd in (["analyze", str(BUILD_LOG)], ["explain", str(BUILD_LOG), "-m", "2"]):
        code, _, err = run([*cmd, "-o", str(tmp_path / "missing" / "x.md")], capsys)
        assert code == 2 and "no such directory" in err, cmd
    code, _, err = run(["analyze", ""], capsys)  # not the current folder
    assert code == 3 and "empty path" in err


def test_two_files_of_a_folder_with_one_session_id(tmp_path: Path) -> None:
    run_jsonl = Path(__file__).parent / "fixtures" / "ingest" / "opencode" / "run.jsonl"
    for name in ("a.jsonl", "b.jsonl"):  # a copy beside the original
        (tmp_path / name).write_bytes(run_jsonl.read_bytes())
    ev = ingest.read(str(tmp_path)).events
    one = ev.filter(ev["source"].str.ends_with("a.jsonl"))
    two = ev.filter(ev["source"].str.ends_with("b.jsonl"))
    sid = one["session"][0]
    assert set(two["session"]) == {f"{sid}~2"}  # not one session whose message numbers repeat
    assert ev.select("session", "seq").is_unique().all()


def test_opencode_db_rows_whose_session_id_is_a_blob(tmp_path: Path) -> None:
    import sqlite3

    from test_ingest_opencode import build_db, export_doc

    db = build_db(tmp_path / "opencode.db", [export_doc()])
    con = sqlite3.connect(db)
    total = con.execute("SELECT count(*) FROM session").fetchone()[0] + con.execute("SELECT count(*) FROM message").fetchone()[0] \
        + con.execute("SELECT count(*) FROM part").fetchone()[0]
    first = con.execute("SELECT id FROM message ORDER BY id LIMIT 1").fetchone()[0]
    con.execute("UPDATE message SET session_id = CAST(session_id AS BLOB) WHERE id = ?", (first,))
    con.commit()
    con.close()
    r = ingest.read(str(db)).report
    assert r.balanced and r.lines == total  # every row read or counted: none lost in silence


def test_learned_secrets_sharing_a_head_are_found_by_lookup() -> None:
    """Thousands of learned keys with one head (`sk-ant-…`): each text was searched for every one
    of them (4,000 keys: 5.3 s, quadratic); now the slices at a head's positions are looked up.
    The candidates are exactly the learned values the text holds."""
    import string

    from logsleuth.redact import Redactor

    rng = random.Random(5)
    r = Redactor()
    values = ["sk-ant-" + "".join(rng.choice(string.ascii_letters) for _ in range(rng.randint(3, 30))) for _ in range(3000)]
    for v in values:
        r.remember(v, "anthropic-key")
    known = r.known_values()  # the values worth remembering (`_memorable`)
    assert len(known) > 1500
    for _ in range(300):
        text = " ".join(rng.choice([*rng.sample(values, 3), "sk-ant-", "sk-ant-x", "plain words"]) for _ in range(4))
        assert set(r._candidates_known(text)) == {v for v in known if v in text}, text


def test_parallel_calls_sharing_an_id_pair_in_order(tmp_path: Path) -> None:
    """A local server that gives each of a turn's parallel calls `call_0`: the first result goes to
    the first call, the second to the second."""
    path = tmp_path / "parallel.jsonl"
    calls = [{"id": "call_0", "type": "function", "function": {"name": "bash", "arguments": json.dumps({"command": c})}}
             for c in ("pip install torch==2.1.0", "pip install numpy==1.26.4")]
    with path.open("w") as f:
        f.write(json.dumps({"role": "user", "content": "install"}) + "\n")
        f.write(json.dumps({"role": "assistant", "content": None, "tool_calls": calls}) + "\n")
        for out in ("Successfully installed torch-2.1.0", "Successfully installed numpy-1.26.4"):
            f.write(json.dumps({"role": "tool", "tool_call_id": "call_0", "content": out}) + "\n")
    ev = ingest.read(str(path)).events
    assert ev.filter(ev["kind"] == "tool_result")["call_id"].to_list() == ["call_0", "call_0~2"]


def test_renamed_sessions_do_not_collide(tmp_path: Path) -> None:
    def session(sid: str) -> str:
        return json.dumps({"type": "text", "timestamp": 1767322800060, "sessionID": sid, "part": {
            "id": f"prt_{sid}", "sessionID": sid, "messageID": "msg_1", "type": "text", "text": "hello",
            "time": {"start": 1767322800055, "end": 1767322800060}}}) + "\n"

    (tmp_path / "a.jsonl").write_text(session("ses_x"))
    (tmp_path / "b.jsonl").write_text(session("ses_x") + session("ses_x~2"))
    ev = ingest.read(str(tmp_path)).events
    assert sorted(set(ev["session"])) == ["ses_x", "ses_x~2", "ses_x~3"]


def test_output_to_dev_stdout_when_it_is_a_pipe_or_a_file(tmp_path: Path) -> None:
    """`-o /dev/stdout`: a link to /proc/self/fd/1. The test makes its own link of that kind, so
    that a regression replaces the link in tmp_path, not the machine's /dev/stdout (as a rename
    once did while this test was checked against the old code)."""
    if not os.path.exists("/proc/self/fd/1"):
        pytest.skip("no /proc/self/fd")
    stdout = tmp_path / "stdout"
    stdout.symlink_to("/proc/self/fd/1")
    argv = [sys.executable, "-m", "logsleuth", "analyze", str(BUILD_LOG), "-o", str(stdout)]
    piped = subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)
    assert piped.returncode == 0 and piped.stdout.startswith("# "), piped.stderr
    out = tmp_path / "out.md"
    with out.open("w") as fh:  # the file behind the fd is written, not replaced by a rename
        fh.write("")
        fh.flush()
        done = subprocess.run(argv, stdout=fh, stderr=subprocess.PIPE, timeout=120, check=False)
    assert done.returncode == 0 and out.read_text().startswith("# ") and stdout.is_symlink()


def test_a_carriage_return_in_a_name_cannot_rewrite_the_line(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(["events", "nosuch\r\nlogsleuth: all good.log"], capsys)
    assert code == 3 and "\r" not in err and err.count("\n") == 1


def test_a_claude_session_folder_whose_name_is_not_utf8(tmp_path: Path) -> None:
    import shutil

    proj = Path(__file__).parent / "fixtures" / "ingest" / "claude_code" / "proj"
    odd = os.fsdecode(b"sess\xff")
    root = os.path.join(os.fsdecode(bytes(tmp_path)), "proj")
    try:
        os.mkdir(root)
        shutil.copytree(proj / "sess-sub", os.path.join(root, odd))
        shutil.copy(proj / "sess-sub.jsonl", os.path.join(root, odd + ".jsonl"))
    except (OSError, UnicodeEncodeError):
        pytest.skip("this file system refuses a name that is not UTF-8")
    want = ingest.read(str(proj / "sess-sub")).events.height
    t = ingest.read(os.path.join(root, odd))  # the session folder: its .jsonl and its subagents
    assert t.events.height == want and not t.report.skipped


def test_attempts_kept_are_the_first_and_the_last() -> None:
    from logsleuth.link.resolution import MAX_ATTEMPTS, _first_and_last

    for n in (0, 5, MAX_ATTEMPTS // 2, MAX_ATTEMPTS, MAX_ATTEMPTS + 1, 1000):
        items = list(range(n))
        kept = list(_first_and_last(iter(items), reversed(items), items))  # type: ignore[arg-type]
        half = MAX_ATTEMPTS // 2
        assert kept == (items if n <= MAX_ATTEMPTS else items[:half] + items[-half:]), n


# -- a third red-team pass -----------------------------------------------------------------------


def test_a_command_that_looks_like_deep_json_is_a_command(tmp_path: Path) -> None:
    base = {"sessionId": "s1", "timestamp": "2026-01-01T00:00:00Z"}
    path = tmp_path / "deep.jsonl"
    with path.open("w") as f:
        f.write(json.dumps({**base, "type": "assistant", "uuid": "a1", "message": {"role": "assistant", "content": [
            {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "[" * 5000}}]}}) + "\n")
        f.write(json.dumps({**base, "type": "assistant", "uuid": "a2", "message": {"role": "assistant", "content": [
            {"type": "text", "text": OOM}]}}) + "\n")
    t = ingest.read(str(path))  # was: the whole file refused as "JSON nested too deeply"
    assert t.events.height == 2 and t.report.balanced


@pytest.mark.parametrize("argv", [["classify"], ["sessions"], ["analyze"]])
def test_coloured_output_is_inert_too(tmp_path: Path, capfdbinary: pytest.CaptureFixture[bytes], argv: list[str],
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAGER", "cat")
    sid = "s\x1b]0;PWNED\x07\x1b[2J"
    path = tmp_path / "inject.jsonl"
    path.write_text(json.dumps({"sessionId": sid, "type": "user", "uuid": "u1", "timestamp": "2026-01-01T00:00:00Z",
                                "message": {"role": "user", "content": f"go \u009b31m {OOM} \x1b]0;PWNED\x07"}}) + "\n")
    assert main(["--color", "always", *argv, str(path)]) == 0
    out = capfdbinary.readouterr().out
    # rich's own colours are ESC [ … m; the transcript's title (OSC), clear screen and C1 CSI are gone
    assert b"\x1b]" not in out and b"\x1b[2J" not in out and b"\xc2\x9b" not in out and b"\x07" not in out, argv


def test_quoting_checks_read_a_long_text_once() -> None:
    from logsleuth.quoting import _table_rows, in_markdown_table, is_quoted

    table = "| code | meaning |\n|---|---|\n| CUDA_ERROR_X | bad |\n"
    text = table + "\n".join(f"{OOM} {i}" for i in range(5000))
    _table_rows.cache_clear()
    assert in_markdown_table(text, text.index("CUDA_ERROR_X")) and not in_markdown_table(text, text.index(OOM))
    for i in range(0, 5000, 7):
        pos = text.index(f"{OOM} {i}\n")
        is_quoted(text, pos, pos + len(OOM))
    assert _table_rows.cache_info().misses == 1  # the text split once, not once per match


def test_a_claude_tool_use_id_reused_with_another_command(tmp_path: Path) -> None:
    def rec(i: int, typ: str, content: list[dict[str, object]]) -> str:
        return json.dumps({"type": typ, "uuid": f"u{i}", "sessionId": "s1", "timestamp": f"2026-01-01T00:00:0{i}Z",
                           "message": {"role": typ, "content": content}}) + "\n"

    path = tmp_path / "reuse.jsonl"
    path.write_text(
        rec(1, "assistant", [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "python a.py"}}])
        + rec(2, "user", [{"type": "tool_result", "tool_use_id": "t1", "content": "ImportError: libfoo.so.1", "is_error": True}])
        + rec(3, "assistant", [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "python b.py"}}])
        + rec(4, "user", [{"type": "tool_result", "tool_use_id": "t1", "content": OOM, "is_error": True}])
        + rec(5, "assistant", [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "python b.py"}}])  # a replay
    )
    ev = ingest.read(str(path)).events
    assert ev["call_id"].to_list() == ["t1", "t1", "t1~2", "t1~2"]  # the replay read once, the reuse kept
    assert OOM in ev["text"].to_list()


def test_opencode_db_parts_stay_with_their_session(tmp_path: Path) -> None:
    import sqlite3

    from test_ingest_opencode import build_db, export_doc

    db = build_db(tmp_path / "opencode.db", [export_doc()])
    con = sqlite3.connect(db)  # a second session whose messages reuse the first's ids (no parts of its own)
    sid = con.execute("SELECT id FROM session").fetchone()[0]
    con.execute("INSERT INTO session (id, project_id, slug, directory, title, version, time_created, time_updated) "
                "SELECT id || 'B', project_id, slug, directory, title, version, time_created, time_updated FROM session")
    con.execute("CREATE TABLE m2 AS SELECT * FROM message")
    con.execute("DROP TABLE message")
    con.execute("CREATE TABLE message AS SELECT * FROM m2 UNION ALL SELECT id, session_id || 'B', time_created, time_updated, data FROM m2")
    con.commit()
    con.close()
    t = ingest.read(str(db))
    ev = t.events
    calls = ev.filter(ev["kind"].cast(str) == "tool_call")
    assert calls.height > 0 and set(calls["session"]) == {sid}  # none lent to the other session
    assert t.report.balanced


def test_markdown_reports_make_no_link_or_image_from_a_transcript(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from logsleuth.render.mdchunks import LINKS, html_lines
    from logsleuth.render.mdsafe import _parser

    payload = "[clk](javascript:alert(1)) ![t](http://evil.example/p.png) [ref][r]\n\n[r]: http://evil.example/x"
    base = {"sessionId": "s\n# HEAD\n", "timestamp": "2026-01-01T00:00:00Z"}
    path = tmp_path / "inject.jsonl"
    path.write_text(
        json.dumps({**base, "type": "user", "uuid": "u1", "message": {"role": "user", "content": f"fix {payload}"}}) + "\n"
        + json.dumps({**base, "type": "assistant", "uuid": "a1", "message": {"role": "assistant", "content": [
            {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "python x.py"}}]}}) + "\n"
        + json.dumps({**base, "type": "user", "uuid": "u2", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": f"{OOM} {payload}", "is_error": True}]}}) + "\n")
    for argv in (["analyze", str(path)], ["explain", str(path), "-m", "2"]):
        code, out, _ = run(argv, capsys)
        assert code == 0 and html_lines(out, _parser(), kinds=LINKS) == set(), argv
        assert "\n# HEAD" not in out  # a session id is one line
