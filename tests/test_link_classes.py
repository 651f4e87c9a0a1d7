"""Classes of linking mistakes found on real sessions (tests/real_sessions), each as a small case.

The session each class came from is named in its test; the cases are cut down to the lines that
decide it, so that the rule, not the session, is what the test holds."""

from __future__ import annotations

import dataclasses

import pytest

from logsleuth.actions.extract import shell_edit_texts
from logsleuth.ingest.base import EventSink
from logsleuth.link import link
from logsleuth.link.causes import cause_line
from logsleuth.link.resolution import _announces_pivot, _expected, outcome_from_goal
from logsleuth.model import (
    Action,
    ActionKind,
    Episode,
    Finding,
    Outcome,
    Run,
    RunRole,
    RunStatus,
    Severity,
    Target,
)

S = "s"


def _finding(seq: int, text: str, category: str = "compile_error", prio: int = 30, **captures: str) -> Finding:
    return Finding(pattern=category, category=category, severity=Severity.ERROR, priority=prio, session=S, seq=seq,
                   source="s.jsonl", line=seq + 1, text=text, captures=captures, fingerprint=text[:40])


def test_cmake_s_message_is_below_where_it_stopped() -> None:
    """rec-int8cal: the project's own version gate; the cuBLAS status line above it is noise."""
    out = ('-- Unable to find cublas_v2.h in either "/usr/local/cuda/include"\n'
           "CMake Error at CMakeLists.txt:14 (message):\n"
           "  int8cal supports CUDA 11.8 to 12.x; found CUDA 13.0.88\n\n\n-- Configuring incomplete, errors occurred!\n")
    assert cause_line(out, "CMake Error at CMakeLists.txt:14 (message):") == (
        "int8cal supports CUDA 11.8 to 12.x; found CUDA 13.0.88")
    make = "src/a.cu(3): error: identifier \"x\" is undefined\nmake: *** [Makefile:9: a.o] Error 2\n"
    assert cause_line(make, "make: *** [Makefile:9: a.o] Error 2") == 'src/a.cu(3): error: identifier "x" is undefined'


def _session(*steps: tuple[str, str, int]) -> object:
    sink = EventSink(S, "s.jsonl")
    sink.add(line=1, role="user", kind="text", text="get `make` passing")
    for i, (command, output, code) in enumerate(steps):
        sink.add(line=2 * i + 2, role="assistant", kind="tool_call", text=command, tool="Bash", call_id=f"c{i}")
        sink.add(line=2 * i + 3, role="tool", kind="tool_result", text=output, call_id=f"c{i}", exit_code=code,
                 is_error=bool(code))
    return sink.frame()


def _edit(seq: int, path: str, command: str) -> Action:
    added, removed = shell_edit_texts(command)  # as the actions stage reads a shell edit
    return Action(ActionKind.FILE_EDIT, path, "sed", S, seq, "s.jsonl", seq + 1, command, raw=command, added=added,
                  removed=removed)


@pytest.mark.parametrize(
    ("second_edit", "slip"),
    [
        # rec-cuhist: the next edit removes what the project always had (CUDA::cublas): a failure of the story
        ("sed -i 's/PUBLIC CUDA::cudart CUDA::cublas)/PUBLIC CUDA::cudart)/' CMakeLists.txt", False),
        # the next edit takes back what the first one wrote: the agent's own slip
        ("sed -i 's/set(ARCHS 75 80,)/set(ARCHS 75 80)/' CMakeLists.txt", True),
    ],
)
def test_a_slip_is_what_the_agent_wrote_taken_back(second_edit: str, slip: bool) -> None:
    ev = _session(
        ("make", "CMake Error at CMakeLists.txt:3 (project):\n  bad compiler\n", 2),
        ("sed -i 's/set(ARCHS 60 70 80)/set(ARCHS 75 80,)/' CMakeLists.txt", "", 0),
        ("make", "CMake Error at CMakeLists.txt:17 (target_link_libraries):\n  Target links to CUDA::cublas\n", 2),
        (second_edit, "", 0),
        ("make", "ok", 0),
    )
    first = _finding(2, "CMake Error at CMakeLists.txt:3 (project):\n  bad compiler", "x_failed", 80)
    second = _finding(6, "CMake Error at CMakeLists.txt:17 (target_link_libraries):\n  Target links", "y_failed", 80)
    acts = [_edit(3, "CMakeLists.txt", "sed -i 's/set(ARCHS 60 70 80)/set(ARCHS 75 80,)/' CMakeLists.txt"),
            _edit(7, "CMakeLists.txt", second_edit)]
    g = link(ev, [first, second], acts)  # type: ignore[arg-type]
    assert ("y_failed" not in [e.category for e in g.episodes]) is slip


def test_an_assertion_failing_in_the_test_just_written_is_not_a_slip() -> None:
    """spotter-fum: the new LiveView test's assertion failed on a real product bug."""
    ev = _session(
        ("mix test", "** (RuntimeError) boom\n1 test, 1 failure\n", 2),
        ("cat > test/live_test.exs <<'EOF'\nassert html =~ \"is-subagent\"\nEOF", "", 0),
        ("mix test test/live_test.exs", 'test/live_test.exs:40\nAssertion with =~ failed\ncode: assert html =~ "is-subagent"\n', 2),
        ("cat > test/live_test.exs <<'EOF'\nassert html =~ \"agent\"\nEOF", "", 0),
        ("mix test test/live_test.exs", "1 test, 0 failures", 0),
    )
    first = _finding(2, "** (RuntimeError) boom", "x_failed", 80)
    verdict = _finding(6, 'test/live_test.exs:40\nAssertion with =~ failed', "tests_failed", 80)
    acts = [_edit(3, "test/live_test.exs", 'cat > test/live_test.exs <<EOF\nassert html =~ "is-subagent"'),
            _edit(7, "test/live_test.exs", 'cat > test/live_test.exs <<EOF\nassert html =~ "agent"')]
    g = link(ev, [first, verdict], acts)  # type: ignore[arg-type]
    assert [e.category for e in g.episodes] == ["x_failed", "tests_failed"]


def test_a_diagnosis_of_why_tests_fail_is_not_an_expected_failure() -> None:
    run = Run(1, 2, RunRole.GOAL, RunStatus.FAILED, (Target("mix-test", "mix test", ()),), (), None, False, "mix test")
    f = _finding(2, "2 failures", "tests_failed")
    said = [(3, "The subagent tests fail because the `agent_id` field is lost in the mapping.")]
    assert not _expected(f, run, said)
    assert _expected(f, run, [(3, "Both tests fail as expected: the function is not implemented yet.")])
    assert _expected(f, run, [(3, "The new test fails because parse_args is not implemented yet.")])


@pytest.mark.parametrize(
    ("closing", "outcome"),
    [
        ("Done. Ask the vendor for a new-ABI build, which would make the split-ABI workaround unnecessary.",
         Outcome.WORKED_AROUND),  # rec-int8cal
        ("Done: 5 passed. As a stopgap the kernel runs on the CPU path.", Outcome.WORKED_AROUND),
        ("Done: 5 passed. No workaround was needed; the Makefile now finds g++.", Outcome.RESOLVED),
        ("Done: 5 passed.", Outcome.RESOLVED),
    ],
)
def test_the_agent_calling_its_fix_a_workaround_lowers_the_verdict(closing: str, outcome: Outcome) -> None:
    ep = Episode("f1", "p", "c", "fp", Severity.ERROR, (2,), (_finding(2, "x"),))
    assert outcome_from_goal(True, [ep], False, closing) is outcome
    assert outcome_from_goal(False, [ep], False, closing) is Outcome.UNRESOLVED  # never raises


@pytest.mark.parametrize(
    ("said", "pivot"),
    [
        ("This is a real bug, not something I should fix in a test task. Let me adjust the subagent tests to test "
         "what actually works.", True),  # spotter-fum
        ("I'll skip the flaky GPU test for now.", True),
        ("Let me fix the test setup so the sandbox is shared.", False),
        ("The gate looks conservative rather than reflecting a real incompatibility; I will widen it to 13.x.",
         False),  # rec-int8cal: 'rather than' describes the gate, the plan is a plain fix
    ],
)
def test_announced_changes_of_approach(said: str, pivot: bool) -> None:
    assert _announces_pivot(said) is pivot


def test_an_edit_that_writes_the_source_file_a_link_error_names_bears_on_it() -> None:
    """rec-int8cal: `set_source_files_properties(src/engine_io.cpp …)` in CMakeLists.txt fixed
    `engine_io.cpp:(.text+0x14): undefined reference to trtlite::version[abi:cxx11]()`."""
    from logsleuth.link.resolution import _bears

    text = "engine_io.cpp:(.text+0x14): undefined reference to `trtlite::version[abi:cxx11]()'"
    cmake = Action(ActionKind.FILE_EDIT, "CMakeLists.txt", "python edit", S, 9, "s", 10, "python3 - <<EOF",
                   raw="python3 - <<'EOF'\nadd='set_source_files_properties(src/engine_io.cpp PROPERTIES "
                       "COMPILE_DEFINITIONS _GLIBCXX_USE_CXX11_ABI=0)'\nEOF")
    other = Action(ActionKind.FILE_EDIT, "README.md", "python edit", S, 9, "s", 10, "python3 - <<EOF",
                   raw="python3 - <<'EOF'\nadd='see docs/engine.md'\nEOF")
    assert _bears(cmake, text.lower(), text)
    assert not _bears(other, text.lower(), text)


def test_a_run_whose_echoed_status_is_not_zero_failed() -> None:
    """rec-rowsoftmax: `make smoke; echo EXIT=$?` exits 0 (echo's) and printed EXIT=2."""
    from logsleuth.link.runs import extract_runs

    ev = _session(("make smoke; echo EXIT=$?", "Makefile:32: *** missing separator.  Stop.\nEXIT=2\n", 0),
                  ("make smoke; echo EXIT=$?", "SMOKE OK\nEXIT=0\n", 0))
    assert [r.status for r in extract_runs(ev, [])] == [RunStatus.FAILED, RunStatus.PASSED]  # type: ignore[arg-type]


def test_a_passing_run_that_still_prints_the_failure_did_not_clear_it() -> None:
    """rec-shardprep: `pytest 2>&1 | head -30; pip list` exited 0 and still showed the import error."""
    ev = _session(
        (".venv/bin/pytest 2>&1 | tail -40", "E   AttributeError: _ARRAY_API not found in module cv2\n2 errors in 0.3s\n", 1),
        (".venv/bin/pytest 2>&1 | head -30; .venv/bin/pip list",
         "ERROR collecting tests\nE   AttributeError: _ARRAY_API not found in module cv2\nnumpy 2.2.6\n", 0),
        ("sed -i 's/^opencv==4.9$/opencv==4.10/' requirements.txt", "", 0),
        (".venv/bin/pip install -r requirements.txt", "Successfully installed opencv-4.10", 0),
        (".venv/bin/pytest", "6 passed in 0.2s", 0),
    )
    f = _finding(2, "E   AttributeError: _ARRAY_API not found in module cv2\n2 errors in 0.3s", "x_failed", 80)
    edit = _edit(5, "requirements.txt", "sed -i 's/^opencv==4.9$/opencv==4.10/' requirements.txt")
    install = Action(ActionKind.INSTALL, "requirements.txt", None, S, 7, "s", 8, ".venv/bin/pip install -r requirements.txt")
    g = link(ev, [f], [edit, install])  # type: ignore[arg-type]
    res = g.resolutions["f1"]
    assert res.at == 9  # the plain pytest run, not the 'passing' head -30 one
    assert {a.kind for a in res.fixed_by} == {ActionKind.FILE_EDIT, ActionKind.INSTALL}  # the pin edit with its install


def test_a_way_out_refused_is_not_a_pivot() -> None:
    """rec-rowsoftmax: 'I will not fake it (no CPU fallback, no skip)'."""
    assert not _announces_pivot("I will not fake it (no CPU fallback, no skip, no loosened check).")
    assert _announces_pivot("No GPU here, so I'll fall back to the CPU path for the test.")


def test_the_success_shown_is_the_asked_for_target_passing() -> None:
    """rec-shardprep: `pip install -r requirements.txt` ("Successfully installed …") came before the
    `pytest` run the user asked for; the story's success is pytest's."""
    sink = EventSink(S, "s.jsonl")
    sink.add(line=1, role="user", kind="text", text="Can you get the tests (`.venv/bin/pytest`) passing?")
    steps = [(".venv/bin/pytest", "E   ImportError: numpy.core.multiarray failed to import\n1 error in 0.2s", 1),
             ("sed -i 's/^opencv==4.9$/opencv==4.10/' requirements.txt", "", 0),
             (".venv/bin/pip install -r requirements.txt", "Successfully installed opencv-4.10", 0),
             (".venv/bin/pytest", "6 passed in 0.6s", 0)]
    for i, (command, output, code) in enumerate(steps):
        sink.add(line=2 * i + 2, role="assistant", kind="tool_call", text=command, tool="Bash", call_id=f"c{i}")
        sink.add(line=2 * i + 3, role="tool", kind="tool_result", text=output, call_id=f"c{i}", exit_code=code)
    f = _finding(2, "E   ImportError: numpy.core.multiarray failed to import", "numpy_abi_mismatch", 86)
    ok = [dataclasses.replace(_finding(6, "Successfully installed opencv-4.10", "package_installed", 30),
                              severity=Severity.SUCCESS),
          dataclasses.replace(_finding(8, "6 passed in 0.6s", "tests_passed", 30), severity=Severity.SUCCESS)]
    g = link(sink.frame(), [f, *ok], [_edit(3, "requirements.txt", steps[1][0])])
    assert g.first_success is not None and g.first_success.seq == 8


def test_a_failure_in_words_the_agent_wrote_as_an_error_is_its_own_check() -> None:
    """held-out cudahome2: the agent's new `$(error …)` in the Makefile, exercised on purpose."""
    from logsleuth.link.resolution import _own_message
    from logsleuth.model import Finding, Severity

    line = "Makefile:14: *** nvcc not found on PATH; put the CUDA toolkit's bin/ on PATH or set CUDA_HOME.  Stop."
    f = Finding(pattern="make-stopped", category="build_script_error", severity=Severity.ERROR, priority=5,
                session="s", seq=30, source="", line=0, text=line, captures={}, fingerprint="x")
    wrote = "ifeq ($(NVCC_ON_PATH),)\n    $(error nvcc not found on PATH; put the CUDA toolkit's bin/ on PATH or set CUDA_HOME)\nendif"
    assert _own_message(f, [(20, wrote)])
    assert not _own_message(f, [(40, wrote)])  # written after it showed
    assert not _own_message(f, [(20, "nvcc not found on PATH; put the CUDA toolkit's bin/ on PATH")])  # not raised
