"""Every command that prints a result takes `-o FILE` (the extension names the format; a name
that says another format than -O, or none of the command's, is exit 2), `explain -O json`, a
search that finds nothing says so on stderr only (stdout empty, exit 1, as ripgrep) with the
pattern library's advice, and a bare `logsleuth` prints its help laid out (exit 2)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from logsleuth.cli import main

ROOT = Path(__file__).resolve().parent.parent
SESSION = ROOT / "sample_logs" / "sglang-sm120" / "session.jsonl"
LOG = ROOT / "sample_logs" / "vllm-arch" / "vllm-serve.log"


@pytest.mark.parametrize("argv", [
    ["analyze", str(SESSION), "-o", "{d}/x.html", "-O", "md"],
    ["explain", str(SESSION), "-m", "46", "-o", "{d}/x.html"],
    ["graph", str(SESSION), "-o", "{d}/g.md"],
    ["graph", str(SESSION), "-o", "{d}/g.dot", "-O", "mermaid"],
    ["events", str(LOG), "-o", "{d}/e.json", "-O", "jsonl"],
    ["classify", str(LOG), "-o", "{d}/c.html"],
    ["sessions", str(LOG), "-o", "{d}/s.md"],
])
def test_a_name_that_says_another_format_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                   argv: list[str]) -> None:
    argv = [a.format(d=tmp_path) for a in argv]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("logsleuth: error: -o ") and "-O" in err and len(err.splitlines()) == 1
    assert list(tmp_path.iterdir()) == []  # refused before anything was written


@pytest.mark.parametrize("name", ["x.txt", "run.out"])
def test_a_name_that_says_no_format_gets_the_default_and_a_note(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                               name: str) -> None:
    """`-o run.out` wrote markdown before `-o` read extensions: it still does, and says so (never silently)."""
    assert main(["analyze", str(SESSION), "-o", str(tmp_path / name)]) == 0
    assert "writing md" in capsys.readouterr().err
    assert (tmp_path / name).read_text().startswith("# ")


@pytest.mark.parametrize(("argv", "name", "check"), [
    (["graph", str(SESSION)], "g.dot", lambda t: t.startswith("digraph")),
    (["graph", str(SESSION)], "g.mmd", lambda t: t.startswith(("flowchart", "graph"))),
    (["graph", str(SESSION)], "g.json", lambda t: "chain" in json.loads(t)),
    (["events", str(LOG)], "e.jsonl", lambda t: all(json.loads(ln)["seq"] >= 0 for ln in t.splitlines())),
    (["events", str(LOG)], "e.txt", lambda t: "seq" in t.splitlines()[0] or "│" in t),
    (["classify", str(LOG)], "c.json", lambda t: "findings" in json.loads(t)),
    (["sessions", str(LOG)], "s.json", lambda t: len(json.loads(t)["sessions"]) == 1),
    (["explain", str(SESSION), "-m", "46"], "x.json", lambda t: json.loads(t)["message"]["seq"] == 46),
    (["analyze", str(SESSION)], "x.txt", None),  # with -O md below: a .txt name may hold markdown
])
def test_o_writes_what_stdout_would_show_in_the_format_the_name_says(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], name: str, check: object) -> None:
    out = tmp_path / name
    extra = ["-O", "md"] if check is None else []
    assert main(["--color", "always", *argv, *extra, "-o", str(out)]) == 0
    assert capsys.readouterr().out == ""
    text = out.read_text(encoding="utf-8")
    assert "\x1b[" not in text  # a file gets no colour, even with --color always
    if check is None:
        assert text.startswith("# ")
    else:
        assert check(text), text[:300]  # type: ignore[operator]
    assert [p.name for p in tmp_path.iterdir()] == [name]  # no temporary file left beside it


def test_explain_json_is_the_story_the_markdown_tells(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", str(SESSION), "-m", "46", "-O", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert set(doc) == {"session", "message", "redactions"}
    msg = doc["message"]
    assert msg["seq"] == 46 and msg["kind"] == "tool_call" and "ninja" in msg["text"]
    assert any("ninja-build" in a for a in msg["actions"])
    assert main(["explain", str(SESSION), "-m", "46"]) == 0
    md = capsys.readouterr().out
    assert msg["title"] in md


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    where = tmp_path_factory.mktemp("db") / "db"
    assert main(["index", "--db", str(where), str(LOG), "-o", str(where.parent / "summary.json")]) == 0
    assert json.loads((where.parent / "summary.json").read_text())["files"] == 1
    return where


def test_a_search_that_finds_nothing_says_so_on_stderr_with_the_librarys_advice(
        db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["search", "CUDA out of memory. Tried to allocate 2.00 GiB", "--db", str(db), "--category", "cuda_oom"]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("logsleuth: no prior occurrences of torch-cuda-oom (cuda_oom)")
    assert "usual fix:" in err and "PYTORCH_CUDA_ALLOC_CONF" in err  # what `classify` would print
    assert main(["search", "zzqx nothing like this", "--db", str(db)]) == 1
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("logsleuth: no prior occurrences")
    assert main(["search", "zzqx nothing like this", "--db", str(db), "-O", "json"]) == 1
    assert json.loads(capsys.readouterr().out)["results"] == []  # a document for scripts


def test_the_lean_search_path_says_the_same(db: Path) -> None:
    """The console script answers plain searches without typer: the same empty stdout and stderr."""
    code = "import sys\nfrom logsleuth.search import cli\nsys.exit(cli.main(sys.argv[1:]))\n"
    for query in ("CUDA out of memory. Tried to allocate 2.00 GiB", "zzqx nothing like this"):
        lean = subprocess.run([sys.executable, "-c", code, "search", query, "--db", str(db)],
                              capture_output=True, text=True, timeout=120)
        assert lean.returncode == 1 and lean.stdout == "", lean.stderr
        assert lean.stderr.startswith("logsleuth: no prior occurrences")
    assert "usual fix:" in subprocess.run([sys.executable, "-c", code, "search", "CUDA out of memory. Tried to allocate "
                                           "2.00 GiB", "--db", str(db)], capture_output=True, text=True,
                                          timeout=120).stderr


def test_search_o_writes_the_hits(db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "hits.json"
    assert main(["search", "no kernel image is available for execution on the device", "--db", str(db), "-o", str(out)]) == 0
    assert capsys.readouterr().out == "" and json.loads(out.read_text())["results"]


def test_bare_logsleuth_prints_its_help_laid_out(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("Usage: ")
    assert "\nCommands:\n" in err and "\n  analyze " in err  # one command a line, not one flattened error line
    assert main(["patterns"]) == 2
    assert "\nCommands:\n" in capsys.readouterr().err


@pytest.mark.parametrize(("words", "want"), [
    ("logsleuth analyze x --format op", {"opencode-export", "opencode-storage", "opencode-db"}),
    ("logsleuth events x --format cl", {"claude-code"}),
    ("logsleuth search x --category cuda_o", {"cuda_oom"}),
])
def test_completion_offers_readers_and_categories(words: str, want: set[str]) -> None:
    code = "from logsleuth.cli import app\napp(prog_name='logsleuth')\n"
    env = {**os.environ, "_LOGSLEUTH_COMPLETE": "complete_bash", "COMP_WORDS": words,
           "COMP_CWORD": str(len(words.split()) - 1)}
    got = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    offered = set(got.stdout.split())
    assert want <= offered, got.stdout + got.stderr
    prefix = words.split()[-1]
    assert all(o.startswith(prefix) for o in offered)


def test_sessions_of_a_folder_are_its_files_as_the_index_lists_them(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    folder = ROOT / "sample_logs" / "flash-attn-abi"  # an aider history and a pip build log side by side
    assert main(["sessions", str(folder), "-O", "json"]) == 0
    files = json.loads(capsys.readouterr().out)["sessions"]
    assert all(r["format"] != "folder" and Path(r["source"]).is_file() for r in files)  # each file, its reader
    db = tmp_path / "db"
    assert main(["index", str(folder), "--db", str(db)]) == 0
    capsys.readouterr()
    assert main(["sessions", "--db", str(db), "-O", "json"]) == 0
    indexed = json.loads(capsys.readouterr().out)["sessions"]
    key = ("session", "source", "format", "start", "minutes", "events", "failures", "outcome", "root_cause", "title",
           "summary")
    assert [[r[k] for k in key] for r in files] == [[r[k] for k in key] for r in indexed]


def test_the_index_counts_the_failures_the_verdict_tells(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A failure no pattern named (a goal run that failed) is counted by the index as by files."""
    session = ROOT / "tests" / "real_sessions" / "aider-worktree-syntax-loop" / "session.md"
    assert main(["sessions", str(session), "-O", "json"]) == 0
    files = json.loads(capsys.readouterr().out)["sessions"]
    assert main(["index", str(session), "--db", str(tmp_path / "db")]) == 0
    capsys.readouterr()
    assert main(["sessions", "--db", str(tmp_path / "db"), "-O", "json"]) == 0
    indexed = json.loads(capsys.readouterr().out)["sessions"]
    assert [r["failures"] for r in indexed] == [r["failures"] for r in files] == [2]


def test_patterns_commands_take_o(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rg = tmp_path / "lib.rg"
    assert main(["patterns", "export", "--rg", "-o", str(rg)]) == 0
    assert capsys.readouterr().out == "" and len(rg.read_text().splitlines()) > 100  # one regex a line: rg -f lib.rg
    listed = tmp_path / "list.json"
    assert main(["patterns", "list", "-o", str(listed)]) == 0
    assert {"id", "category"} <= set(json.loads(listed.read_text())[0])
    assert main(["patterns", "show", "torch-cuda-oom", "-o", str(tmp_path / "p.txt")]) == 0
    assert "torch-cuda-oom" in (tmp_path / "p.txt").read_text()
    assert main(["patterns", "lint", "-o", str(tmp_path / "lint.html")]) == 2  # a name that says no format of lint's
