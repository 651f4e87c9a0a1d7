"""The request's rules (link/constraints.py): what they protect, what breaks them, when they trap."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from logsleuth.link.constraints import (
    bends,
    blocked_by_rules,
    diagnosis_only,
    read_constraints,
    request_text,
    rule_catch22,
    trapped_by_rules,
)
from logsleuth.model import Action, ActionKind, Episode, Finding, Severity


def _events(*rows: tuple[str, str, str | None, str]) -> pl.DataFrame:
    return pl.DataFrame(
        {
            "role": [r[0] for r in rows],
            "kind": [r[1] for r in rows],
            "call_id": [r[2] for r in rows],
            "text": [r[3] for r in rows],
        }
    )


def _action(kind: ActionKind, subject: str, value: str | None, seq: int = 5) -> Action:
    return Action(kind=kind, subject=subject, value=value, session="s", seq=seq, source="x", line=seq + 1,
                  command=f"{kind.value} {subject} {value}")


def _episode(text: str, **captures: str) -> Episode:
    f = Finding(pattern="p", category="c", severity=Severity.ERROR, priority=50, session="s", seq=3, source="x",
                line=4, text=text, captures=captures, fingerprint="fp")
    return Episode(id="f1", pattern="p", category="c", fingerprint="fp", severity=Severity.ERROR,
                   occurrences=(3,), findings=(f,))


@pytest.mark.parametrize(
    ("request_", "subject", "label"),
    [
        ("Keep sm_60 in the CUDA architectures — the cluster still runs P100s.", "arch:60", "sm_60"),
        ("Don't touch torch in the venv, it's pinned to match our cluster.", "torch", "torch"),
        ("Get the build green without upgrading numpy.", "numpy", "numpy"),
        ("Please do not modify `third_party/cutlass`; fix our own code.", "third_party/cutlass", "third_party/cutlass"),
        ("The versions in requirements.txt are locked, so don't change those pins.", "requirements.txt",
         "requirements.txt"),
        ("We must stay on transformers 4.44 for now.", "transformers", "transformers"),
        ("Leave the vendored flash-attn alone and get the server up.", "flash-attn", "flash-attn"),
    ],
)
def test_rules_and_what_they_protect(request_: str, subject: str, label: str) -> None:
    rules = read_constraints(request_)
    assert any(subject in r.subjects for r in rules), rules
    assert any(r.label == label for r in rules), rules


def test_a_request_without_rules_has_none() -> None:
    assert read_constraints("Can you get `make test` passing? The CUDA build fails on this box.") == ()
    assert read_constraints("") == ()


def test_request_text_is_the_first_user_message() -> None:
    ev = _events(("user", "text", None, "Don't touch torch."), ("assistant", "text", None, "ok"),
                 ("user", "text", None, "later"))
    assert request_text(ev) == "Don't touch torch."
    assert request_text(_events(("assistant", "text", None, "hi"))) == ""


def test_installing_a_locked_package_at_another_build_bends_the_rule() -> None:
    rules = read_constraints("The versions in requirements.txt are locked to our image, so don't change those pins.")
    ev = _events(
        ("assistant", "tool_call", "c1", "cat requirements.txt"),
        ("tool", "tool_result", "c1", "torch==2.13.0\ntorchvision==0.28.0\nnumpy==2.2.6\n"),
    )
    swap = _action(ActionKind.PIN, "torch", "==2.13.0,!=2.13.0+cpu")
    same = _action(ActionKind.PIN, "torchvision", "==0.28.0")
    dev = _action(ActionKind.PIN, "pytest", "==8.3.5")
    edit = _action(ActionKind.FILE_EDIT, "requirements.txt", "sed")
    other = _action(ActionKind.FILE_EDIT, "requirements-dev.txt", "sed")
    assert bends([swap, same, dev, edit, other], rules, ev) == [swap, edit]


def test_the_pins_come_from_the_project_metadata_when_the_file_was_not_shown() -> None:
    rules = read_constraints("The versions in requirements.txt are locked, don't install other versions.")
    ev = _events(("tool", "tool_result", "c1", 'dependencies = ["torch==2.13.0", "numpy"]'))
    assert bends([_action(ActionKind.UPGRADE, "torch", ">=2.14")], rules, ev)
    assert not bends([_action(ActionKind.PIN, "torch", "==2.13.0")], rules, ev)


def test_any_move_of_a_named_package_bends_a_dont_touch_rule() -> None:
    rules = read_constraints("Don't touch torch in the venv, no reinstalling or upgrading it.")
    ev = _events()
    assert bends([_action(ActionKind.INSTALL, "torch", "==2.13.0+cu130")], rules, ev)
    assert not bends([_action(ActionKind.INSTALL, "ninja", "==1.11")], rules, ev)


@pytest.mark.parametrize(
    ("closing", "blocked"),
    [
        ("I can't meet this goal with both of your constraints in place, so I stopped.", True),
        ("I couldn't get it installed without breaking one of your constraints.", True),
        ("I haven't done either, since each one goes against something you asked for.", True),
        ("Or a CPU fallback, which you said you don't want.", True),
        ("Done. All 12 tests pass.", False),
        ("The build still fails on sm_61; I could not fix it.", False),
    ],
)
def test_the_agent_saying_the_rules_block_the_way(closing: str, blocked: bool) -> None:
    assert blocked_by_rules(closing) is blocked


def test_a_failure_is_trapped_only_by_a_rule_it_is_about() -> None:
    rules = read_constraints(
        "Keep sm_60 in the CUDA architectures, and don't install another toolkit. Install nothing new with pip."
    )
    arch = _episode("nvcc fatal   : Unsupported gpu architecture 'compute_60'", arch="compute_60")
    other = _episode("ptxas fatal   : Value 'sm_61' is not defined for option 'gpu-name'", arch="sm_61")
    rule = trapped_by_rules(arch, rules)
    assert rule is not None and rule.label == "sm_60"
    assert trapped_by_rules(other, rules) is None
    c = rule_catch22(arch, rule)
    assert c.episodes == ("f1",) and c.subject == "sm_60" and c.values == (rule.clause,)


REAL = Path(__file__).parent / "real_sessions"


@pytest.mark.parametrize(("name", "label"), [("rec-cuhist", "sm_60"), ("rec-fastgelu", "CUDA kernel")])
def test_a_real_session_stopped_by_the_rules_reports_the_trap_in_every_view(name: str, label: str) -> None:
    """Recorded sessions (tests/real_sessions/*/SOURCE.md): the agent stopped because every way out
    broke a rule of the request; the report names the rule and the failure, in markdown and HTML."""
    from logsleuth.analysis import analyze
    from logsleuth.render.postmortem import render_html, render_markdown

    an = analyze(str(REAL / name / "session.jsonl"))
    (c,) = an.graph.catch22
    assert c.episodes == (an.graph.root_cause,) and c.subject == label
    md, html = render_markdown(an), render_html(an)
    assert "One failure stood between the goal and a rule of the request" in md
    assert "One failure stood between the goal and a rule of the request" in html
    assert c.values[0] in md


def test_a_locked_package_swapped_to_reach_the_goal_is_a_workaround() -> None:
    """rec-detkit: the suite passed only after torch 2.13.0+cpu was swapped for another build of the
    locked 2.13.0; the request locked the versions of requirements.txt."""
    from logsleuth.analysis import analyze
    from logsleuth.model import Outcome

    an = analyze(str(REAL / "rec-detkit" / "session.jsonl"))
    assert an.graph.outcome is Outcome.WORKED_AROUND
    assert [p.subject for p in an.graph.pivots] == ["torch"]


@pytest.mark.parametrize("request_text, asked", [
    ("Find out why `make` fails here; don't change anything yet, I want to understand it first.", True),
    ("Can you investigate why the build breaks? Please do not modify any files.", True),
    ("Tell me what's going on with the install before we touch the CI image.", True),
    ("Find out why pytest fails and fix it.", False),  # a fix is asked for
    ("Don't change anything under vendor/, and get `make test` passing.", False),  # a rule, not a diagnosis
    ("Why does `pip install -e .` fail? Get it working.", False),
])
def test_a_diagnosis_only_request(request_text: str, asked: bool) -> None:
    """The goal of "find out why … don't change anything" is an explanation (verdict/outcome.py)."""
    assert diagnosis_only(request_text) is asked


def test_a_demand_that_something_keeps_working_protects_no_file() -> None:
    """Renaming a module and editing the script that imports it keeps the script working: no rule broken."""
    rules = read_constraints("Get pytest passing. plot_sweep.py is a script I use every day, so it has to keep working.")
    assert rules == ()
    kept = read_constraints("Keep plot_sweep.py as it is; it has to keep working.")
    assert [c.files for c in kept] == [("plot_sweep.py",)]


def test_the_users_puzzlement_is_no_rule() -> None:
    """depbump: "… requirements.txt for our mypy CI job, … and I can't figure out why" protected nothing."""
    rules = read_constraints("Since I added types-requests to requirements.txt, the tests are broken and I can't figure "
                             "out why. Please get them passing. Keep types-requests in the requirements, and you "
                             "can't touch numpy.")
    assert [r.label for r in rules] == ["types-requests"]
    assert not any("figure" in r.clause for r in rules)


def test_keeping_a_name_in_a_file_is_broken_only_by_taking_it_out() -> None:
    rules = read_constraints("Keep types-requests in requirements.txt (the team needs it for mypy).")
    ev = _events()
    pin = Action(ActionKind.FILE_EDIT, "requirements.txt", "python edit", "s", 5, "x", 6, "python3 - <<EOF",
                 removed="types-requests==2.33.0\n", added="types-requests==2.33.0\nurllib3==2.8.0\n")
    drop = Action(ActionKind.FILE_EDIT, "requirements.txt", "sed", "s", 6, "x", 7, "sed -i /types-requests/d",
                  removed="types-requests==2.33.0\n", added="")
    assert bends([pin, drop], rules, ev) == [drop]


def test_a_folder_the_request_protects_is_broken_by_any_file_inside() -> None:
    rules = read_constraints("Don't edit anything under tests/. Touch nothing under /home/dev/project/vendor/.")
    assert [r.subjects for r in rules] == [("tests/",), ("/home/dev/project/vendor/", "vendor/")]
    inside = _action(ActionKind.FILE_EDIT, "tests/test_x.py", "sed")
    vendored = _action(ActionKind.FILE_EDIT, "/home/dev/project/vendor/lib/a.h", "sed")
    outside = _action(ActionKind.FILE_EDIT, "src/tests_helper.py", "sed")
    assert bends([inside, vendored, outside], rules, _events()) == [inside, vendored]


def test_the_file_something_must_stay_in_is_broken_only_by_taking_it_out() -> None:
    """heldout7 rdclink: the counter's one definition added to src/saturate.cu was called a broken rule."""
    rules = read_constraints("Constraints: ck_saturate must stay out-of-line in src/saturate.cu and plugins must keep "
                             "sharing that one definition.")
    add = Action(ActionKind.FILE_EDIT, "src/saturate.cu", "python edit", "s", 5, "x", 6, "python3 - <<EOF",
                 removed="__device__ float ck_saturate(float x)", added="__device__ float ck_saturate(float x)\n"
                 "__device__ unsigned ck_clip_count = 0;")
    move = Action(ActionKind.FILE_EDIT, "src/saturate.cu", "python edit", "s", 6, "x", 7, "python3 - <<EOF",
                  removed="__device__ float ck_saturate(float x) { return x; }", added="")
    assert bends([add, move], rules, _events()) == [move]


def test_the_tests_rule_protects_test_files_wherever_they_are() -> None:
    rules = read_constraints("Please get make test passing, and don't change the tests.")
    hit = [_action(ActionKind.FILE_EDIT, p, "sed") for p in ("tests/test_gridk.c", "pkg/test_io.py", "conftest.py")]
    miss = _action(ActionKind.FILE_EDIT, "src/testing_utils.py", "sed")
    assert bends([*hit, miss], rules, _events()) == hit


def test_a_check_the_request_keeps_passing_is_a_rule_not_the_goal() -> None:
    from logsleuth.link.request import goal_targets, kept_targets

    ev = pl.DataFrame({"role": ["user"], "kind": ["text"], "call_id": [None], "seq": [0], "session": ["s"],
                       "text": ["Please get `make test` passing. Keep our release hardening, i.e. `make hardening` has "
                                "to keep passing; don't change the tests."]})
    assert goal_targets(ev) == ["make test", "make hardening"] and kept_targets(ev) == ["make hardening"]
    ev2 = ev.with_columns(pl.lit("Get `make hardening` passing; `make hardening` has to keep passing.").alias("text"))
    assert kept_targets(ev2) == []  # asked for as well: it is the goal
