"""The link stage on hand-built findings and actions shaped like the seed session and the other stories."""

from __future__ import annotations

import dataclasses

import pytest

from logsleuth.actions.extract import shell_edit_texts
from logsleuth.ingest.base import EventSink
from logsleuth.ingest.tools import edit_texts
from logsleuth.link import find_pivots, link
from logsleuth.model import Action, ActionKind, Finding, Outcome, Relation, Severity

S = "sess"


def finding(seq: int, category: str, *, prio: int = 80, sev: Severity = Severity.ERROR, fp: str = "") -> Finding:
    return Finding(
        pattern=category.replace("_", "-"),
        category=category,
        severity=sev,
        priority=prio,
        session=S,
        seq=seq,
        source="s.jsonl",
        line=seq + 1,
        text=f"{category} happened",
        captures={},
        fingerprint=fp or category,
    )


def action(seq: int, kind: ActionKind, subject: str, value: str | None = None, resolved: str | None = None) -> Action:
    return Action(
        kind=kind, subject=subject, value=value, session=S, seq=seq, source="s.jsonl", line=seq + 1,
        command=f"{kind} {subject}", resolved=resolved,
    )


def events(n: int, results: dict[int, int]) -> object:
    """n events; `results` maps tool_result seq -> tool_call seq (same call_id)."""
    sink = EventSink(S, "s.jsonl")
    calls = {c: r for r, c in results.items()}
    for i in range(n):
        if i in calls:
            sink.add(line=i + 1, role="assistant", kind="tool_call", text="cmd", tool="Bash", call_id=f"c{i}")
        elif i in results:
            sink.add(line=i + 1, role="tool", kind="tool_result", text="out", call_id=f"c{results[i]}")
        else:
            sink.add(line=i + 1, role="assistant", kind="text", text="t")
    return sink.frame()


def seed_like() -> tuple[object, list[Finding], list[Action]]:
    results = {r: r - 1 for r in (2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24)}
    ev = events(26, results)
    findings = [
        finding(2, "missing_shared_library", prio=90),
        finding(2, "python_traceback", prio=5),
        finding(2, "sgl_kernel_wrapper", prio=10),
        finding(4, "nvcc_not_found"),
        finding(6, "package_installed", sev=Severity.SUCCESS),
        finding(8, "ninja_not_found"),
        finding(12, "cuda_toolkit_header_mismatch"),
        finding(14, "dependency_resolution_failed"),
        finding(18, "ptxas_unsupported_ptx_version"),
        finding(22, "dependency_resolution_failed"),
        finding(24, "server_ready", sev=Severity.SUCCESS),
    ]
    acts = [
        action(1, ActionKind.LAUNCH, "sglang", "/models/q"),
        action(1, ActionKind.FLAG_ADDED, "--tp", "8"),
        action(3, ActionKind.ENV_SET, "LD_LIBRARY_PATH", "/root/venv/nvidia/cu13/lib"),
        action(3, ActionKind.LAUNCH, "sglang", "/models/q"),
        action(5, ActionKind.INSTALL, "nvidia-cuda-nvcc", None, resolved="13.2.78"),
        action(7, ActionKind.LAUNCH, "sglang", "/models/q"),
        action(9, ActionKind.INSTALL, "ninja-build"),
        action(11, ActionKind.LAUNCH, "sglang", "/models/q"),
        action(13, ActionKind.PIN, "nvidia-cuda-nvcc", "==13.0.26"),
        action(15, ActionKind.PIN, "nvidia-cuda-nvcc", "<13.1", resolved="13.0.88"),
        action(17, ActionKind.LAUNCH, "sglang", "/models/q"),
        action(19, ActionKind.INVESTIGATE, "find"),
        action(21, ActionKind.PIN, "nvidia-cu13", ">=13.2"),
        action(23, ActionKind.ENV_SET, "CUDA_HOME", "/root/venv/nvidia/cu13"),
        action(23, ActionKind.LAUNCH, "sglang", "/models/q"),
        action(23, ActionKind.FLAG_ADDED, "--disable-cuda-graph"),
        action(23, ActionKind.FLAG_CHANGED, "--attention-backend", "flashinfer"),
    ]
    return ev, findings, acts


@pytest.fixture
def recipe_stub(monkeypatch: pytest.MonkeyPatch) -> None:
    """The recipe comes from actions.state_at/recipe_lines; here only linking is under test."""
    import logsleuth.link.chain as link_mod

    monkeypatch.setattr(link_mod, "_recipe", lambda actions, failed, success: ("# recipe",) if success else ())


def test_seed_chain_catch22_pivot_outcome(recipe_stub: None) -> None:
    ev, findings, acts = seed_like()
    g = link(ev, findings, acts)  # type: ignore[arg-type]
    failures = g.failure_ids()
    assert failures == {ep.id for ep in g.episodes} and "s1" not in failures
    cats = [g.node(n).category for n in g.chain if n in failures]
    assert cats == [
        "missing_shared_library",
        "nvcc_not_found",
        "ninja_not_found",
        "cuda_toolkit_header_mismatch",
        "ptxas_unsupported_ptx_version",
    ]
    assert g.chain[-1] == "s1"
    # each fix sits between the failure it was tried against and the one it revealed
    labels = [g.node(n).label for n in g.chain]
    assert labels.index("set LD_LIBRARY_PATH") == 1
    assert "install nvidia-cuda-nvcc → 13.2.78" in labels
    assert "pin nvidia-cuda-nvcc<13.1 → 13.0.88" in labels
    # the failed pins are attempt failures, not steps of the story
    assert sorted(a.value or "" for a, _ in g.failed_attempts) == ["==13.0.26", ">=13.2"]
    assert len(g.catch22) == 1
    c = g.catch22[0]
    assert [g.node(e).category for e in c.episodes] == ["cuda_toolkit_header_mismatch", "ptxas_unsupported_ptx_version"]
    assert c.subject == "nvidia-cuda-nvcc" and c.values == ("13.2.78", "13.0.88") and not c.alternated
    assert [p.subject for p in g.pivots] == ["--disable-cuda-graph", "--attention-backend"]
    assert g.outcome is Outcome.WORKED_AROUND
    assert g.first_success is not None and g.first_success.seq == 24
    rels = {(e.source, e.target, e.relation) for e in g.edges}
    ld = g.chain[1]
    assert (ld, "f1", Relation.RESOLVED) in rels and (ld, "f2", Relation.REVEALED) in rels
    d = g.to_dict()
    assert set(d) == {"nodes", "edges", "chain", "catch22", "pivots", "outcome", "recipe", "root_cause", "resolutions",
                      "notes"}
    assert d["outcome"] == "worked around" and d["recipe"] == ["# recipe"]
    assert all(p.startswith("a") for p in d["pivots"])


def test_first_launch_flags_are_not_pivots() -> None:
    acts = [
        action(1, ActionKind.LAUNCH, "vllm", "m"),
        action(1, ActionKind.FLAG_ADDED, "--enforce-eager"),
        action(5, ActionKind.LAUNCH, "vllm", "m"),
        action(5, ActionKind.FLAG_CHANGED, "--max-model-len", "8192"),
        action(9, ActionKind.LAUNCH, "sglang", "m"),
    ]
    assert [(p.kind, p.subject) for p in find_pivots(acts)] == [(ActionKind.LAUNCH, "sglang")]


def test_did_not_fix_and_unresolved(recipe_stub: None) -> None:
    results = {r: r - 1 for r in (2, 4, 6, 8)}
    ev = events(9, results)
    findings = [finding(s, "nccl_timeout", fp="allreduce") for s in (2, 4, 6, 8)]
    acts = [
        action(3, ActionKind.ENV_SET, "NCCL_SOCKET_IFNAME", "eth0"),
        action(5, ActionKind.ENV_SET, "NCCL_IB_DISABLE", "1"),
        action(7, ActionKind.ENV_SET, "NCCL_P2P_DISABLE", "1"),
    ]
    g = link(ev, findings, acts)  # type: ignore[arg-type]
    assert len(g.episodes) == 1 and g.episodes[0].occurrences == (2, 4, 6, 8)
    assert g.outcome is Outcome.UNRESOLVED and g.recipe == ()
    assert [e.relation for e in g.edges if e.relation is Relation.DID_NOT_FIX] == [Relation.DID_NOT_FIX] * 3
    assert g.chain[0] == "f1" and len(g.chain) == 4 and not g.catch22


def test_ordinary_fix_chain_is_resolved_not_catch22(recipe_stub: None) -> None:
    results = {r: r - 1 for r in (2, 4, 6, 8)}
    ev = events(9, results)
    findings = [
        finding(2, "no_kernel_image_arch_mismatch"),
        finding(6, "kv_cache_insufficient"),
        finding(8, "server_ready", sev=Severity.SUCCESS),
    ]
    acts = [
        action(0, ActionKind.INSTALL, "torch", "==2.6.0", resolved="2.6.0"),
        action(3, ActionKind.INSTALL, "torch", None, resolved="2.7.0+cu128"),
        action(5, ActionKind.LAUNCH, "vllm", "m"),
        action(7, ActionKind.LAUNCH, "vllm", "m"),
        action(7, ActionKind.FLAG_CHANGED, "--max-model-len", "8192"),
    ]
    g = link(ev, findings, acts)  # type: ignore[arg-type]
    assert not g.catch22 and not g.pivots
    assert g.outcome is Outcome.RESOLVED


def test_alternation_is_a_catch22(recipe_stub: None) -> None:
    results = {r: r - 1 for r in (2, 4, 6)}
    ev = events(7, results)
    findings = [
        finding(2, "cuda_toolkit_header_mismatch"),
        finding(4, "ptxas_unsupported_ptx_version"),
        finding(6, "cuda_toolkit_header_mismatch"),
    ]
    acts = [
        action(3, ActionKind.PIN, "nvidia-cuda-nvcc", "<13.1", resolved="13.0.88"),
        action(5, ActionKind.UPGRADE, "nvidia-cuda-nvcc", None, resolved="13.2.78"),
    ]
    g = link(ev, findings, acts)  # type: ignore[arg-type]
    assert len(g.catch22) == 1 and g.catch22[0].alternated
    assert g.catch22[0].subject == "nvidia-cuda-nvcc"
    assert [n for n in g.chain if n.startswith("f")] == ["f1", "f2", "f1"]
    assert any(e.relation is Relation.RECURRED and e.target == "f1" for e in g.edges)


def test_generic_failures_only_when_nothing_specific(recipe_stub: None) -> None:
    results = {2: 1, 4: 3}
    ev = events(5, results)
    fix = [action(3, ActionKind.ENV_SET, "X", "1")]
    g = link(ev, [finding(2, "python_traceback", prio=5), finding(4, "nonzero_exit", prio=1)], fix)  # type: ignore[arg-type]
    assert [e.category for e in g.episodes] == ["python_traceback", "nonzero_exit"]
    g2 = link(ev, [finding(2, "python_traceback", prio=5), finding(4, "cuda_oom")], [])  # type: ignore[arg-type]
    assert [e.category for e in g2.episodes] == ["cuda_oom"]


def test_a_burst_of_failures_without_a_change_between_is_one_incident(recipe_stub: None) -> None:
    sink = EventSink(S, "server.log")
    for i in range(80):
        sink.add(line=i + 1, role="log", kind="log", text="x")
    ev = sink.frame()
    findings = [
        finding(0, "sgl_kernel_wrapper", prio=10),
        finding(11, "missing_shared_library", prio=90),
        finding(14, "python_traceback", prio=5),
        finding(60, "nvcc_not_found", prio=80),  # far from the first burst: a relaunch in between
        finding(62, "build_oom_killed", prio=12),
    ]
    g = link(ev, findings, [])
    assert [e.category for e in g.episodes] == ["missing_shared_library", "nvcc_not_found"]


def test_to_networkx_carries_nodes_relations_and_catch22(recipe_stub: None) -> None:
    from logsleuth.link import to_networkx

    ev, findings, acts = seed_like()
    g = link(ev, findings, acts)  # type: ignore[arg-type]
    d = to_networkx(g)
    assert set(d.nodes) == {n.id for n in g.nodes}
    assert d.nodes["f5"]["category"] == "ptxas_unsupported_ptx_version"
    assert d.edges["f4", "f5"]["relation"] == "catch22" and d.edges["f5", "f4"]["relation"] == "catch22"
    assert {d.edges[e]["relation"] for e in d.edges} >= {"attempted", "resolved", "revealed", "succeeded"}
    assert d.graph["outcome"] == "worked around"


def test_a_three_way_cycle_on_one_subject_is_a_catch22(recipe_stub: None) -> None:
    results = {r: r - 1 for r in (2, 4, 6, 8)}
    ev = events(9, results)
    findings = [
        finding(2, "cuda_toolkit_header_mismatch"),
        finding(4, "ptxas_unsupported_ptx_version"),
        finding(6, "undefined_symbol_abi_mismatch"),
        finding(8, "cuda_toolkit_header_mismatch"),
    ]
    acts = [
        action(3, ActionKind.PIN, "nvidia-cuda-nvcc", "<13.1", resolved="13.0.88"),
        action(5, ActionKind.PIN, "nvidia-cuda-nvcc", "<13.0", resolved="12.9.86"),
        action(7, ActionKind.UPGRADE, "nvidia-cuda-nvcc", None, resolved="13.2.78"),
    ]
    g = link(ev, findings, acts)  # type: ignore[arg-type]
    assert [(c.episodes, c.subject, c.alternated) for c in g.catch22] == [
        (("f1", "f2", "f3"), "nvidia-cuda-nvcc", True)
    ]


def test_bypassing_a_check_is_a_pivot() -> None:
    """spotter-4te (real): `git commit --no-verify` and a `.dialyzerignore` written are ways past
    the pre-commit check, not fixes of what it found; `git push -n` is only a dry run."""
    from logsleuth.model import Action, ActionKind

    def act(kind: ActionKind, subject: str, value: str | None, seq: int) -> Action:
        return Action(kind, subject, value, "s", seq, "", 0, f"{subject} {value or ''}")

    acts = [act(ActionKind.RUN, "git", "commit --no-verify -m wip", 1),
            act(ActionKind.FILE_EDIT, "/repo/.dialyzerignore", "write 1 lines", 2),
            act(ActionKind.RUN, "git", "push -n origin main", 3),
            act(ActionKind.FILE_EDIT, "/repo/.gitignore", "write 1 lines", 4),
            act(ActionKind.RUN, "git", "commit -m fix", 5)]
    assert [p.seq for p in find_pivots(acts)] == [1, 2]


def test_one_output_with_failures_in_two_areas_is_two_failures_in_print_order(recipe_stub: None) -> None:
    """A probe where ptxas rejects both the arch (build) and the PTX version (cuda): two failures,
    the first printed first. An NCCL error and the watchdog timeout it caused (one group) stay one."""
    sink = EventSink(S, "s.jsonl")
    sink.add(line=1, role="user", kind="text", text="make it build")
    sink.add(line=2, role="assistant", kind="tool_call", text="for a in sm_61 sm_80; do ptxas -arch=$a k.ptx; done",
             tool="Bash", call_id="c1")
    sink.add(line=3, role="tool", kind="tool_result", call_id="c1",
             text="nvcc_unsupported_gpu_arch happened\nptxas_unsupported_ptx_version happened\nnccl_timeout happened")
    ev = sink.frame()
    two = [finding(2, "ptxas_unsupported_ptx_version", prio=90), finding(2, "nvcc_unsupported_gpu_arch", prio=88)]
    g = link(ev, two, [])  # type: ignore[arg-type]
    assert [e.category for e in g.episodes] == ["nvcc_unsupported_gpu_arch", "ptxas_unsupported_ptx_version"]
    one = [finding(2, "nccl_error", prio=87), finding(2, "nccl_timeout", prio=85)]
    g = link(ev, one, [])  # type: ignore[arg-type]
    assert [e.category for e in g.episodes] == ["nccl_error"]
    weak = [finding(2, "ptxas_unsupported_ptx_version", prio=90), finding(2, "cuda_oom", prio=40)]
    g = link(ev, weak, [])  # type: ignore[arg-type]
    assert [e.category for e in g.episodes] == ["ptxas_unsupported_ptx_version"]


@pytest.mark.parametrize(
    ("raw", "pivot"),
    [
        ('{"file_path": "lib/a.ex", "old_string": "  Tmux.ok?(p)", '
         '"new_string": "  # credo:disable-for-next-line Credo.Check.Design.AliasUsage\\n  X.Tmux.ok?(p)"}', True),
        ('{"file_path": "a.py", "old_string": "import os  # noqa: F401", "new_string": "import os  # noqa: F401\\nx = 1"}',
         False),  # the suppression was there already
        ('{"file_path": "t.py", "content": "import pytest\\n\\n@pytest.mark.skip(reason=\\"flaky\\")\\ndef test_x(): ..."}',
         True),
        ("*** Begin Patch\n*** Update File: src/a.ts\n@@\n-const x: number = f()\n+// @ts-ignore\n+const x: number = f()\n"
         "*** End Patch", True),
        ("sed -i 's/^def test_gpu/@unittest.skip(\"no gpu\")\\ndef test_gpu/' tests/test_k.py", True),
        ('{"file_path": "a.py", "old_string": "x = 1", "new_string": "x = 2"}', False),
    ],
)
def test_an_inline_suppression_written_is_a_pivot(raw: str, pivot: bool) -> None:
    """A linter, type checker or test told to look away from one place (spotter-a0y, real: a
    `credo:disable-for-next-line` written instead of the alias credo asked for)."""
    # what ingest reads of an edit tool or a patch, or the actions stage of a shell edit
    added, removed = edit_texts(raw) if raw.startswith(("{", "***")) else shell_edit_texts(raw)
    a = Action(ActionKind.FILE_EDIT, "f", "edit", "s", 3, "", 0, "edit f", raw=raw, added=added, removed=removed)
    assert bool(find_pivots([a])) is pivot


def _call(sink: EventSink, line: int, command: str, output: str, code: int | None = 0) -> None:
    sink.add(line=line, role="assistant", kind="tool_call", text=command, tool="Bash", call_id=f"c{line}")
    sink.add(line=line + 1, role="tool", kind="tool_result", text=output, call_id=f"c{line}", exit_code=code,
             is_error=bool(code))


@pytest.mark.parametrize(
    ("command", "output", "status"),
    [
        # rec-raggedops (real): the exit 1 is grep -c's, the run echoed its own 0
        ("make clean && make -j4 test > ci.log 2>&1; echo MAKE_EXIT=$?; grep -ci warning ci.log",
         "Exit code 1\nMAKE_EXIT=0\n5 passed in 0.03s\n0\n", "passed"),
        ("make test > ci.log 2>&1; echo EXIT=$?; tail -3 ci.log", "EXIT=2\n", "failed"),
        ("make test > ci.log 2>&1; grep -c warning ci.log", "0\n", "unknown"),  # nothing says how make ended
        ("make test", "", "failed"),
    ],
)
def test_a_call_ending_in_a_look_has_the_look_s_exit_status(command: str, output: str, status: str) -> None:
    from logsleuth.link.runs import extract_runs

    sink = EventSink(S, "s.jsonl")
    sink.add(line=1, role="user", kind="text", text="make test should pass")
    _call(sink, 2, command, output, code=1)
    wins = [finding(2, "tests_passed", sev=Severity.SUCCESS)] if "passed" in output else []
    (run,) = extract_runs(sink.frame(), wins)
    assert run.status.value == status


def test_two_files_failing_in_one_parallel_build_are_two_failures(recipe_stub: None) -> None:
    """rec-raggedops (real): `make -j4` stops in staging.cu and in segreduce.cu, two errors of one
    kind in two of the project's files; rec-tilestat (real): three CCCL headers refusing C++14 in one
    compile are one failure."""
    def compile_error(seq: int, file: str, message: str) -> Finding:
        return dataclasses.replace(finding(seq, "compile_error", prio=30, fp=f"{file}:{message}"),
                                   text=f"{file}(1): error: {message}", captures={"file": file, "message": message})

    sink = EventSink(S, "s.jsonl")
    sink.add(line=1, role="user", kind="text", text="get `make -j4 test` passing")
    _call(sink, 2, "make -j4 test", "src/staging.cu(1): error: no suitable constructor\n"
                                    "src/segreduce.cu(1): error: identifier \"__shfl_down\" is undefined\n", code=2)
    ev = sink.frame()
    two = [compile_error(2, "src/staging.cu", "no suitable constructor"),
           compile_error(2, "src/segreduce.cu", 'identifier "__shfl_down" is undefined')]
    assert [e.first.captures["file"] for e in link(ev, two, []).episodes] == ["src/staging.cu", "src/segreduce.cu"]  # type: ignore[arg-type]
    headers = [compile_error(2, "/usr/local/cuda/include/cccl/cub/util_cpp_dialect.cuh", "CUB requires C++17"),
               compile_error(2, "/usr/local/cuda/include/cccl/thrust/cpp_dialect.h", "Thrust requires C++17")]
    assert len(link(ev, headers, []).episodes) == 1  # type: ignore[arg-type]


def test_a_rerun_that_leaves_out_the_refused_operand_did_not_clear_it(recipe_stub: None) -> None:
    """spotter-dov (real): `git add a b c.css` refused the ignored folder of c.css; `git add a b`
    passed without it; `git add -f c.css` is what got it in."""
    sink = EventSink(S, "s.jsonl")
    sink.add(line=1, role="user", kind="text", text="commit and push the work")
    _call(sink, 2, "git add lib/a.ex lib/b.ex priv/static/assets/app.css",
          "The following paths are ignored by one of your .gitignore files:\npriv/static/assets\n", code=1)
    _call(sink, 4, "git add lib/a.ex lib/b.ex", "")
    _call(sink, 6, "git add -f priv/static/assets/app.css", "")
    ev = sink.frame()
    refused = dataclasses.replace(finding(2, "goal_failed", prio=20),
                                  text="The following paths are ignored by one of your .gitignore files:\npriv/static/assets")
    g = link(ev, [refused], [])  # type: ignore[arg-type]
    res = g.resolutions["f1"]
    assert res.at == 5 and [a.subject for a in res.fixed_by] == ["-f"]  # the `git add -f` call


def test_a_purpose_clause_is_not_an_announced_change_of_approach() -> None:
    from logsleuth.link.resolution import _announces_pivot

    assert _announces_pivot("I'll regenerate the PTX from source instead of upgrading the toolkit.")
    assert _announces_pivot("Let's switch to the triton backend.")
    assert not _announces_pivot("I'll also add -Wl,--no-undefined so a missing symbol fails the link instead of the tests.")
    assert not _announces_pivot("The library falls back to the CPU path when no device is found.")
