"""Failures named by their telling line (link/causes.py). The outputs are real: make/nvcc/ld output
recorded in tests/real_sessions/rec-vecops and rec-jitkern, pylint's from aider-worktree-syntax-loop."""

from __future__ import annotations

from logsleuth.link.causes import cause_key, cause_line, named_by_cause
from logsleuth.link.roles import builtin_roles
from logsleuth.model import Finding, Severity
from logsleuth.telling import telling_lines

MISSING_NVCC = """mkdir -p build
/bin/nvcc -O2 -Xcompiler -fPIC -gencode arch=compute_60,code=sm_60 -c src/vecops.cu -o build/vecops.o
make: /bin/nvcc: No such file or directory
make: *** [Makefile:25: build/vecops.o] Error 127
rc=2"""
MISSING_HEADER = """mkdir -p build-diag
/usr/local/cuda/bin/nvcc -O2 -Xcompiler -fPIC -gencode arch=compute_80,code=sm_80 -c src/vecops.cu -o build-diag/vecops.o
src/vecops.cu:2:10: fatal error: vecops.h: No such file or directory
    2 | #include "vecops.h"
      |          ^~~~~~~~~~
compilation terminated.
make: *** [Makefile:25: build-diag/vecops.o] Error 1
rc=2"""
UNDEFINED = """cc -O2 -Wall -Werror -Iinclude src/vecbench.c build-diag/libvecops.a -lcudart -o build-diag/vecbench
/usr/bin/ld: /tmp/cctA3bGw.o: in function `main':
vecbench.c:(.text.startup+0x6e): undefined reference to `vec_saxpy'
/usr/bin/ld: vecbench.c:(.text.startup+0x84): undefined reference to `vecops_version'
collect2: error: ld returned 1 exit status
make: *** [Makefile:31: build-diag/vecbench] Error 1"""


def _wrapper(text: str) -> Finding:
    line = next(ln for ln in text.splitlines() if ln.startswith("make: ***"))
    return Finding(pattern="make-cmake-error", category="extension_build_failed", severity=Severity.ERROR,
                   priority=8, session="s", seq=1, source="", line=0, text=line, captures={}, fingerprint="c00ffb8692b5")


def test_the_cause_is_the_first_telling_line_above_the_wrapper_not_a_summary_or_a_flag() -> None:
    assert cause_line(MISSING_NVCC, _wrapper(MISSING_NVCC).text) == "make: /bin/nvcc: No such file or directory"
    assert cause_line(MISSING_HEADER, _wrapper(MISSING_HEADER).text) == (
        "src/vecops.cu:2:10: fatal error: vecops.h: No such file or directory")
    # `-Werror` in the command echo is not an error; collect2's summary is not the cause
    assert cause_line(UNDEFINED, _wrapper(UNDEFINED).text) == (
        "vecbench.c:(.text.startup+0x6e): undefined reference to `vec_saxpy'")
    assert cause_line("make: *** [all] Error 2", "make: *** [all] Error 2") is None


def test_one_wrapper_line_failing_three_ways_is_three_failures() -> None:
    found = [named_by_cause(_wrapper(t), t) for t in (MISSING_NVCC, MISSING_HEADER, UNDEFINED)]
    assert len({f.fingerprint for f in found}) == 3
    assert found[0].text.splitlines()[0] == "make: /bin/nvcc: No such file or directory"
    # the same failure in another build directory, another line number: the same failure
    again = MISSING_HEADER.replace("build-diag", "build").replace(":2:10:", ":3:10:")
    assert named_by_cause(_wrapper(again), again).fingerprint == found[1].fingerprint


def test_a_moving_syntax_error_keeps_its_identity_and_a_different_error_does_not() -> None:
    a = "agent-aider-worktree.py:427:0: E0001: Parsing failed: 'expected an indented block after function' (syntax-error)"
    b = "agent-aider-worktree.py:431:1: E0001: Parsing failed: 'invalid syntax (agent-aider-worktree, line 431)' (syntax-error)"
    c = "agent-aider-worktree.py:1:0: C0103: Module name doesn't conform to snake_case naming style (invalid-name)"
    assert cause_key(a) == cause_key(b) != cause_key(c)


def test_a_traceback_is_told_by_its_exception_and_escaped_output_by_its_headline() -> None:
    tb = ('Exit code 1\nTraceback (most recent call last):\n  File "/home/dev/jitkern/run.py", line 24, in <module>\n'
          "    sys.exit(main())\njitkern.nvrtc.NvrtcError: nvrtcCompileProgram failed: NVRTC_ERROR_INVALID_OPTION (5)\n"
          "nvrtc: error: invalid value for --gpu-architecture (-arch)")
    assert telling_lines(tb).splitlines()[0].startswith("jitkern.nvrtc.NvrtcError: nvrtcCompileProgram failed")
    hook = "Pre-commit validation failed:\\n\\n[CREDO]\\nChecking 114 source files"
    assert telling_lines(hook).splitlines()[0] == "Pre-commit validation failed:"


def test_the_linker_reads_roles_from_the_library() -> None:
    roles = builtin_roles()
    assert "extension_build_failed" in roles.wrapper
    assert "python_traceback" in roles.generic and "tool_use_error" in roles.not_run
    assert "package_installed" in roles.progress and "dependency_resolution_failed" in roles.attempt


def test_a_script_that_writes_a_file_through_a_name_is_an_edit_of_that_file() -> None:
    from logsleuth.actions.commands import _written_paths

    # rec-vecops, the agent's edit of its Makefile
    code = "p='Makefile'\ns=open(p).read()\ns=s.replace(old, new)\nopen(p,'w').write(s)\n"
    assert _written_paths(code) == ["Makefile"]
    assert _written_paths("from pathlib import Path\np = Path('jitkern/nvrtc.py')\np.write_text(s)") == ["jitkern/nvrtc.py"]
    assert _written_paths("p = 'Makefile'\nprint(open(p).read())") == []  # read only
    assert _written_paths("open('/tmp/x', 'w').write('1')") == []  # scratch


def test_a_heredoc_that_drives_the_projects_own_code_is_a_scratch_run_of_it() -> None:
    from logsleuth.link.runs import _drives, project_modules

    calls = [("Bash", "python3 - <<'EOF'\nfrom pathlib import Path\np = Path('jitkern/nvrtc.py')\np.write_text(s)\nEOF"),
             ("Bash", "cat .venv/lib/python3.11/site-packages/nvidia/__init__.py")]
    from logsleuth.link.runs import classify_call

    project = project_modules((classify_call(tool, text)[0], text) for tool, text in calls)
    assert "jitkern" in project and "nvidia" not in project
    probe = ".venv/bin/python - <<'EOF'\nfrom jitkern import compile as c, config\nconfig.ARCH = 'compute_75'\nc.compile_all()\nEOF"
    t = _drives(probe, project)
    assert t is not None and t.scratch and t.args == ("jitkern",)
    assert _drives("python3 -c 'import json; print(json.load(open(\"x\")))'", project) is None


def test_a_run_that_reported_a_condition_and_ended_well_passed() -> None:
    """rec-tilestat: the test binary printed "no device (CUDA driver version is insufficient …)",
    fell back to the CPU and printed "9 checks passed", rc=0: the run passed."""
    from logsleuth.link.runs import _exited_zero, _status
    from logsleuth.model import RunStatus

    f = Finding(pattern="cuda-driver-insufficient", category="driver_too_old", severity=Severity.ERROR, priority=50,
                session="s", seq=5, source="", line=0, text="no device", captures={}, fingerprint="x")
    out = "tilestat 0.4.2, backend cpu\nCUDA runtime 13.0: no device (CUDA driver version is insufficient)\n9 checks passed\nOK\nrc=0\n"
    assert _exited_zero(False, None, out)
    assert not _exited_zero(False, None, out.replace("rc=0", "rc=2"))
    assert _status((5, False, None), {5: [f]}, {5}, "make test; echo rc=$?", out) is RunStatus.PASSED
    assert _status((5, False, None), {5: [f]}, set(), "make test; echo rc=$?", out) is RunStatus.FAILED  # no success
    assert _status((5, True, 2), {5: [f]}, {5}, "make test", "9 checks passed") is RunStatus.FAILED


def test_a_shell_variable_that_only_names_a_path_is_not_a_fix() -> None:
    from logsleuth.link.runs import classify_call
    from logsleuth.model import RunRole

    look = "F=.venv/lib/python3.11/site-packages/torch/utils/cpp_extension.py; grep -n 'CUDA_HOME' $F | head"
    assert classify_call("Bash", look)[0] is RunRole.INVESTIGATION
    assert classify_call("Bash", "export CUDA_HOME=/usr/local/cuda; ls $CUDA_HOME")[0] is RunRole.FIX
    assert classify_call("Bash", "LD_LIBRARY_PATH=/opt/lib")[0] is RunRole.FIX  # nothing reads it back here


def test_a_probe_failure_the_agent_then_fixed_in_the_project_is_a_step() -> None:
    """rec-detkit: `pip install --dry-run pytest==8.3.6` (a probe) fails, and the next change
    edits that pin in requirements-dev.txt: the probe found a failure of the project."""
    from logsleuth.link.resolution import acted_on
    from logsleuth.link.runindex import RunIndex
    from logsleuth.model import Action, ActionKind, Run, RunRole, RunStatus

    f = Finding(pattern="pip-no-matching-version", category="dependency_resolution_failed",
                severity=Severity.ERROR, priority=80, session="s", seq=12, source="", line=0,
                text="ERROR: No matching distribution found for pytest==8.3.6", captures={}, fingerprint="x")
    probe = Run(11, 12, RunRole.INVESTIGATION, RunStatus.FAILED, (), (), None, False, "pip install --dry-run pytest==8.3.6")
    idx = RunIndex.of([probe])
    pin = Action(ActionKind.FILE_EDIT, "requirements-dev.txt", "sed", "s", 14, "", 0,
                 "sed -i 's/^pytest==8.3.6$/pytest==8.3.5/' requirements-dev.txt")
    other = Action(ActionKind.FILE_EDIT, "README.md", "sed", "s", 14, "", 0, "sed -i 's/old/new/' README.md")
    assert acted_on([f], [pin], idx) == [f]
    assert acted_on([f], [other], idx) == []
