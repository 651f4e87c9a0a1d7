"""Classes of verdict mistakes read on the held-out sessions after their one scoring (tests/heldout*_sessions:
spent as held-out, kept as real cases), each fixed where it arose."""

from __future__ import annotations

from pathlib import Path

import pytest

from logsleuth.analysis import analyze
from logsleuth.enums import Outcome
from logsleuth.link.resolution import is_diagnostic
from logsleuth.model import Action, ActionKind

ROOT = Path(__file__).parent


def _verdict(rel: str):  # type: ignore[no-untyped-def]
    return analyze(str(ROOT / rel)).verdict


@pytest.mark.parametrize("rel", ["heldout2_sessions/warpsum/session.jsonl", "heldout2_sessions/smemtile/session.jsonl"])
def test_a_missing_look_tool_does_not_fail_the_goal_run_it_shares(rel: str) -> None:
    """`make test && cuobjdump …; nvidia-smi` on a box without them: the build passed, the looks had no tool."""
    v = _verdict(rel)
    assert v.outcome is Outcome.RESOLVED, v.reason


def test_editing_the_script_that_has_to_keep_working_is_no_bend() -> None:
    v = _verdict("heldout2_sessions/statshadow/session.json")
    assert v.outcome is Outcome.RESOLVED and not v.bends, v.reason


def test_the_failing_import_the_request_quotes_is_a_step_and_its_fix_is_the_edit() -> None:
    v = _verdict("heldout_sessions/fastjoin/session.json")
    assert v.outcome is Outcome.RESOLVED
    assert "runtime_library_dirs" in v.failures[0].fix_text()


def test_a_resolved_reason_names_every_goal_target_as_run() -> None:
    v = _verdict("heldout_sessions/oldtools/session.jsonl")
    assert "`pip install -e .`" in v.reason and "pytest" in v.reason
    assert not v.recipe[0].startswith(".venv/bin/pip install -e .")  # the failing install opened the session
    assert "Py_SIZE(out) = o;" in v.failures[1].fix_text()  # the code line, not the comment above it


def test_a_ctest_failure_after_a_built_target_fails_the_piped_run() -> None:
    v = _verdict("heldout_sessions/nativearch/session.json")
    assert v.outcome is Outcome.UNRESOLVED, v.reason


@pytest.mark.parametrize("name", ["SETUPTOOLS_SCM_DEBUG", "PIP_VERBOSE", "CMAKE_VERBOSE_MAKEFILE", "NCCL_DEBUG"])
def test_a_tools_own_verbosity_switch_is_diagnostic(name: str) -> None:
    a = Action(ActionKind.ENV_SET, name, "1", "s", 3, "f", 1, f"{name}=1 make")
    assert is_diagnostic(a)
    assert not is_diagnostic(Action(ActionKind.ENV_SET, "CUDA_HOME", "/usr/local/cuda", "s", 3, "f", 1, "x"))


def test_the_recipe_ends_with_the_goal_commands_alone_and_holds_no_dry_run() -> None:
    """nvflags: `make -pn` (a dry run) was a recipe step, and the passing line carried the looks chained to it."""
    v = _verdict("heldout2_sessions/nvflags/session.json")
    assert v.recipe[-1] == "make clean && make && make test  # passed"
    assert not any("-pn" in line for line in v.recipe)


def test_an_echoed_status_in_the_agents_own_words_is_the_runs() -> None:
    """noisylog: `make test; echo "make test exit: $?"` passed; the echo's 0 was read as masking it."""
    v = _verdict("heldout3_sessions/noisylog/session.jsonl")
    assert v.outcome is Outcome.RESOLVED, v.reason


def test_a_version_probe_is_no_goal_run() -> None:
    """dupbase: `pytest --version` was taken as the goal run, its pass as the outcome's reason and a recipe line."""
    v = _verdict("heldout3_sessions/dupbase/session.json")
    assert "--version" not in v.reason and not any("--version" in line for line in v.recipe), v.reason


def test_a_look_after_the_final_pass_and_a_probes_variable_do_not_decide_the_outcome() -> None:
    """tlsprof: `GLIBC_TUNABLES=… pytest` (a probe), then a pytest plugin, then the bare command
    passed; a deliberate `python -c 'import stepprof'` outside pytest failed last, and the closing
    words say "you can't fix the .so without modifying the vendor drop" (a rule, not giving up)."""
    v = _verdict("heldout4_sessions/tlsprof/session.jsonl")
    assert v.outcome is Outcome.RESOLVED and not v.bends, v.reason
    assert "GLIBC_TUNABLES" not in v.reason


def test_a_build_the_same_call_cleans_away_is_no_fix_and_its_probe_no_step() -> None:
    """nvlinkarch: `make GPU_ARCH=sm_90 && ./bin/x --selftest; make clean` was a diagnostic build."""
    v = _verdict("heldout5_sessions/nvlinkarch/session.jsonl")
    assert v.outcome is Outcome.UNRESOLVED
    assert [f.title for f in v.failures] == ["Compiler error", "Link failed"]
    assert not v.failures[1].fix and "sm_90 cubin" in (v.root_cause.text or "")


def test_a_program_saying_it_skipped_its_gpu_checks_is_no_step() -> None:
    v = _verdict("heldout5_sessions/cmakecuda/session.json")
    assert not any("driver" in f.title.lower() for f in v.failures)


def test_a_noqa_comment_is_no_bend_when_no_linter_is_the_goal() -> None:
    v = _verdict("heldout5_sessions/isobuild/session.jsonl")
    assert v.outcome is Outcome.RESOLVED and not v.bends, v.reason


def test_an_echoed_zero_status_is_a_pass_where_the_format_keeps_none() -> None:
    """stalegen, an aider history: `make clean && make test; echo make_test_rc=$?` printed 0."""
    v = _verdict("heldout6_sessions/stalegen/session.md")
    assert v.outcome is Outcome.RESOLVED
    assert all(f.fixed for f in v.failures)


def test_the_agents_own_error_message_exercised_on_purpose_is_no_step() -> None:
    v = _verdict("heldout6_sessions/cudahome2/session.jsonl")
    assert len(v.failures) == 1 and v.outcome is Outcome.RESOLVED


def test_a_failure_only_seen_in_a_throwaway_copy_does_not_end_the_story() -> None:
    """abiwheel-quick: after `make test` passed, an ASan copy under /tmp failed on the agent's own
    assert bug; that run is an experiment, not the user's goal."""
    an = analyze(str(ROOT / "heldout6_sessions/abiwheel-quick/session.md"), "aider")
    assert "goal_failed" not in {ep.category for ep in an.graph.episodes}
    assert an.verdict.outcome is not Outcome.UNRESOLVED, an.verdict.reason


def test_a_late_in_memory_probe_is_no_failure_but_an_early_one_is() -> None:
    """tlsprof: `python -c 'import stepprof'` after the last pass, run to show the new error message;
    rec-jitkern: NVRTC's missing include path first seen under `config.ARCH = …` in memory."""
    late = analyze(str(ROOT / "heldout4_sessions/tlsprof/session.jsonl"))
    assert "goal_failed" not in {ep.category for ep in late.graph.episodes}
    early = analyze(str(next((ROOT / "real_sessions/rec-jitkern").glob("session*"))))
    assert any("cuda_fp16.h" in ep.first.text for ep in early.graph.episodes)


def test_files_written_after_cd_into_a_temp_folder_are_scratch() -> None:
    """glibcpin: `cd /tmp/nvqprobe && printf … > v.map` was told as an edit of the project's v.map."""
    an = analyze(str(ROOT / "heldout4_sessions/glibcpin/session.json"))
    subjects = {a.subject for a in an.actions if a.kind is ActionKind.FILE_EDIT}
    assert "/tmp/nvqprobe/v.map" in subjects and "v.map" not in subjects
    assert not any(c.subject.endswith("v.map") for f in an.verdict.failures for c in f.fix)


@pytest.mark.parametrize("rel, gone", [
    ("heldout6_sessions/abiwheel-quick/session.md", "make build"),  # built, then `make clean` before the pass
    ("heldout6_sessions/cudahome2/session.jsonl", "make -s -f Makefile -f - print"),  # a stdin rule printing variables
    ("heldout6_sessions/cudahome2-quick/session.json", "build/pathtest"),  # a probe folder made and removed
    ("heldout3_sessions/mypygate/session.json", "make check\n"),  # the failing reproduction
])
def test_the_recipe_holds_no_build_undone_no_look_and_no_tidying(rel: str, gone: str) -> None:
    fmt = "aider" if rel.endswith(".md") else None
    v = analyze(str(ROOT / rel), fmt).verdict
    assert v.recipe and not any(gone.strip() in line and "# passed" not in line for line in v.recipe), v.recipe


def test_a_probe_in_a_temp_folder_adds_no_step_but_a_new_condition_it_finds_in_the_project_does() -> None:
    """glibcpin: /tmp/nvqprobe/test_pack met the loader's form of the known GLIBC error (noise);
    rec-ptxpack: `cd /tmp && ptxas kernels/ptx/saxpy.ptx` first showed the project's PTX too new."""
    probe = analyze(str(ROOT / "heldout4_sessions/glibcpin/session.json"))
    assert [ep.occurrences[0] for ep in probe.graph.episodes] == [6]
    found = analyze(str(next((ROOT / "real_sessions/rec-ptxpack").glob("session*"))))
    assert any("Unsupported .version 9.1" in ep.first.text for ep in found.graph.episodes)


def test_a_line_that_says_the_program_went_on_without_it_fails_no_run() -> None:
    """heldout7 rdclink: every passing run printed "CUDA driver not available …; plugin linked, launch
    skipped" and ended rc=0; soshadow-bend: an XFAIL line is an expected failure."""
    from logsleuth.link.runs import carried_on
    from logsleuth.model import Finding, Severity

    def f(text: str) -> Finding:
        return Finding(pattern="p", category="driver_too_old", severity=Severity.ERROR, priority=50, session="s",
                       seq=3, source="x", line=4, text=text, captures={}, fingerprint="f")

    assert carried_on(f("warning: CUDA driver not available (CUDA driver version is insufficient); launch skipped"))
    assert carried_on(f("gridk: CUDA driver not available (…); using host path"))
    assert carried_on(f("XFAIL tests/test_gridk.c:30: plugin requires removed gridk_legacy_init"))
    assert not carried_on(f("RuntimeError: CUDA driver version is insufficient for CUDA runtime version"))
    v = analyze(str(ROOT / "heldout7_sessions/rdclink/session.jsonl"), "codex").verdict
    assert v.outcome is Outcome.RESOLVED, v.reason


def test_an_error_the_user_pasted_is_the_failure_the_build_then_shows() -> None:
    """heldout7 tessera: the request's quoted nvcc error and the build's own were two failures."""
    an = analyze(str(ROOT / "heldout7_sessions/tessera/session.json"), "opencode-export")
    conv = [ep for ep in an.graph.episodes if "__nv_bfloat162" in ep.first.text]
    assert len(conv) == 1 and conv[0].occurrences[0] == 0, [(e.id, e.occurrences) for e in conv]


def test_in_a_reached_goal_the_root_is_the_failure_whose_fix_revealed_the_rest() -> None:
    """heldout7 rdclink: the missing -rdc=true, not the duplicate symbols its fix revealed (which took
    more attempts); headerskew: the vendored 12.2 headers, not the removed fields behind them."""
    an = analyze(str(ROOT / "heldout7_sessions/rdclink/session.jsonl"), "codex")
    first = an.graph.episodes[0]
    assert an.graph.root_cause == first.id and "Unresolved extern function" in first.first.text


def test_the_agent_saying_it_bent_a_rule_makes_the_pass_a_workaround_unless_it_says_it_did_not() -> None:
    """heldout7 rdclink-bend: a GNUmakefile shim beside the protected Makefile, and "The rule I bent is
    the spirit of the Makefile ownership" in the agent's conclusion."""
    from logsleuth.verdict.outcome import _NOT_A_WORKAROUND, _WORKAROUND_SAID

    assert _WORKAROUND_SAID.search("The rule I bent is the spirit of the Makefile ownership.")
    assert _WORKAROUND_SAID.search("I'm bending (d), as narrowly as possible")
    said = "No rules were bent, and I didn't bend any rule"
    assert not any(_WORKAROUND_SAID.search(said[m.start():]) and not _NOT_A_WORKAROUND.search(said)
                   for m in _WORKAROUND_SAID.finditer(said))
    v = analyze(str(ROOT / "heldout7_sessions/rdclink-bend/session.json"), "gemini").verdict
    assert v.outcome is Outcome.WORKED_AROUND and "bent" in v.reason, v.reason


def test_a_call_ending_in_git_status_takes_not_its_status_from_it() -> None:
    """heldout7 eclipse-quick: `pytest … | grep passed; …; git status --short` exited 128 (no repository)
    after "3 passed", and the report told a second failure, "`pytest` failed", still unresolved."""
    an = analyze(str(ROOT / "heldout7_sessions/eclipse-quick/session.jsonl"), "codex")
    assert [ep.category for ep in an.graph.episodes] == ["tests_failed"], [e.category for e in an.graph.episodes]
    assert not an.verdict.still_open
