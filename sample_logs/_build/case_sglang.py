"""sglang-sm120: the seed session in three transcript formats plus the server log."""

from __future__ import annotations

from typing import Any

import fmt_claude
import fmt_codex
import fmt_opencode
import sglang_story as S
import sglang_texts as X
from casefile import dump, line_of, seqs
from story import events

DIR = "sglang-sm120"
SESSION = "7c1e4b2a-5d93-4f0e-9a61-2b8d04c6e5f3"
CODEX_ID = fmt_codex.session_id("sglang-sm120", "codex")
CWD = "/home/dev/ddtree"

# The messages the seeds cite, and the story event each one is about.
SEED_MSGS = {
    9489: ("fail_nvrtc:result", "sgl_kernel fails to load: libnvrtc.so.13 missing"),
    9496: ("install_nvcc:result", "pip resolves nvidia-cuda-nvcc to 13.2.78"),
    9506: ("m9506:reasoning", "reasoning on the CUDA compiler/toolkit header mismatch"),
    9507: ("m9507:call", "uv pip install nvidia-cuda-nvcc==13.0.26 (no such version)"),
    9508: ("m9508:call", 'uv pip install "nvidia-cuda-nvcc<13.1" (13.2.78 -> 13.0.88)'),
    9509: ("m9509:result", "nvcc --version: Build cuda_13.0.r13.0/compiler.36424714_0"),
    9510: ("m9510:call", "relaunch with nvcc 13.0.88"),
    9511: ("m9511:result", "ptxas: Unsupported .version 9.2; current version is '9.0'"),
    9512: ("m9512:reasoning", "the catch-22 reasoning and the cubin check"),
    9518: ("m9518:result", 'uv pip install "nvidia-cu13>=13.2": No solution found'),
}
SEED_MSG_PARTS = {9506: ["m9506:reasoning", "m9506:call", "m9506:result"],
                  9512: ["m9512:reasoning", "m9512:call", "m9512:result"],
                  9518: ["m9518:reasoning", "m9518:call", "m9518:result"]}


def files() -> dict[str, str]:
    items, log, expect = S.build()
    evs = events(items, S.START)
    out = {
        f"{DIR}/session.jsonl": fmt_claude.render(items, S.START, session=SESSION, cwd=CWD, branch="ddtree-v3",
                                                  slug="steady-copper-lantern"),
        f"{DIR}/opencode-export.json": fmt_opencode.render(items, S.START, cwd=CWD, session_seed=SESSION,
                                                           title="Repurpose CT200 GPUs: SGLang prompt generation"),
        f"{DIR}/{fmt_codex.rollout_name(S.START, CODEX_ID)}": fmt_codex.render(items, S.START, session=CODEX_ID,
                                                                               cwd=CWD, branch="ddtree-v3"),
        f"{DIR}/server.log": log.text(),
    }
    # Claude Code, opencode and Codex list the same events in the same order for this story.
    per = {"claude-code": evs, "opencode-export": evs, "codex": evs}
    out[f"{DIR}/case.yaml"] = dump(case(per, log.text(), expect))
    return out


def _act(per: dict[str, Any], key: str, kind: str, subject: str, value: str | None, **extra: Any) -> dict[str, Any]:
    return {"kind": kind, "subject": subject, "value": value, **extra, "seq": seqs(per, key + ":call")}


def case(per: dict[str, Any], server_log: str, expect: dict[str, str]) -> dict[str, Any]:
    ld = S.VENV_LIB + ":$LD_LIBRARY_PATH"

    def f(key: str) -> dict[str, int]:
        return seqs(per, key + ":result")

    def ln(needle: str) -> dict[str, int]:
        return {"sglang-server-log": line_of(server_log, needle)}

    chain = [
        {"category": "missing_shared_library", "pattern_hint": "libnvrtc.so.13: cannot open shared object file",
         "also": ["sgl_kernel CRITICAL: Could not load any common_ops library! (the wrapper)"],
         "first_seq": f("fail_nvrtc"), "first_line": ln("libnvrtc.so.13: cannot open shared object file"),
         "revealed_by": _act(per, "launch1", "launch", "sglang.launch_server", None),
         "resolved_by": _act(per, "launch2", "env_set", "LD_LIBRARY_PATH", ld)},
        {"category": "nvcc_not_found", "pattern_hint": "RuntimeError: Could not find nvcc",
         "also": ["cuda_graph_capture_failed: Capture cuda graph failed: Could not find nvcc"],
         "first_seq": f("fail_nvcc"), "first_line": ln("RuntimeError: Could not find nvcc"),
         "revealed_by": _act(per, "launch2", "env_set", "LD_LIBRARY_PATH", ld),
         "resolved_by": _act(per, "install_nvcc", "install", "nvidia-cuda-nvcc", None, resolved="13.2.78")},
        {"category": "ninja_not_found", "pattern_hint": "FileNotFoundError: [Errno 2] No such file or directory: 'ninja'",
         "also": ["cuda_graph_capture_failed"],
         "first_seq": f("fail_ninja"), "first_line": ln("No such file or directory: 'ninja'"),
         "revealed_by": _act(per, "launch3", "env_set", "CUDA_HOME",
                             "/root/venv/lib/python3.12/site-packages/nvidia/cu13"),
         "resolved_by": _act(per, "install_ninja", "install", "ninja-build", None, resolved="1.11.1-2")},
        {"category": "cuda_toolkit_header_mismatch",
         "pattern_hint": "CUDA compiler and CUDA toolkit headers are incompatible, please check your include paths",
         "also": ["cuda_graph_capture_failed", "the line reads `cuda_toolkit.h:41:6: error: #error \"CUDA compiler …\"` "
                  "(gcc preprocessor inside nvcc)"],
         "first_seq": f("fail_header"), "first_line": ln("CUDA compiler and CUDA toolkit headers are incompatible"),
         "revealed_by": _act(per, "install_ninja", "install", "ninja-build", None),
         "attempts": [_act(per, "m9507", "pin", "nvidia-cuda-nvcc", "==13.0.26", held=False)],
         "resolved_by": _act(per, "m9508", "downgrade", "nvidia-cuda-nvcc", "<13.1", resolved="13.0.88",
                             previous="13.2.78")},
        {"category": "dependency_resolution_failed",
         "pattern_hint": "Because there is no version of nvidia-cuda-nvcc==13.0.26",
         "first_seq": f("m9507"),
         "revealed_by": _act(per, "m9507", "pin", "nvidia-cuda-nvcc", "==13.0.26"),
         "resolved_by": _act(per, "m9508", "downgrade", "nvidia-cuda-nvcc", "<13.1", resolved="13.0.88")},
        {"category": "ptxas_unsupported_ptx_version",
         "pattern_hint": "Unsupported .version 9.2; current version is '9.0'",
         "also": ["cuda_graph_capture_failed"],
         "first_seq": f("m9511"), "first_line": ln("Unsupported .version 9.2; current version is '9.0'"),
         "revealed_by": _act(per, "m9508", "downgrade", "nvidia-cuda-nvcc", "<13.1", resolved="13.0.88"),
         "worked_around_by": _act(per, "launch6", "flag_added", "--disable-cuda-graph", None)},
        {"category": "dependency_resolution_failed", "pattern_hint": "nvidia-cu13>=13.2",
         "first_seq": f("m9518"),
         "revealed_by": _act(per, "m9518", "install", "nvidia-cu13", ">=13.2"),
         "worked_around_by": _act(per, "launch6", "flag_added", "--disable-cuda-graph", None)},
    ]
    success = {"pattern_hint": "The server is fired up and ready to roll!", "first_seq": f("ready"),
               "first_line": ln("The server is fired up and ready to roll!")}
    return {
        "case": "sglang-sm120",
        "description": "The seed session (../shared/seeds): an agent brings up SGLang on 8x RTX PRO 6000 Blackwell "
                       "(SM120) inside Proxmox container CT200 over ssh + pct exec, through a chain of CUDA "
                       "toolchain failures, a catch-22 between nvcc 13.2 and nvcc 13.0, and a pivot to "
                       "--disable-cuda-graph. One story, three transcript formats, plus the server log.",
        "files": {"claude-code": "session.jsonl", "opencode-export": "opencode-export.json",
                  "codex": fmt_codex.rollout_name(S.START, CODEX_ID), "sglang-server-log": "server.log"},
        "events": {fmt: len(evs) for fmt, evs in per.items()},
        "tool_calls": {fmt: sum(1 for e in evs if e.kind == "tool_call") for fmt, evs in per.items()},
        "goal": "Repurpose the 8 GPUs of CT200 (DDTree training halted) to serve Qwen3-235B-A22B-Instruct-2507 "
                "with SGLang (TP=8) and generate 193K diverse prompts for the drafter dataset.",
        "chain": chain,
        "success": success,
        "catch22": [["cuda_toolkit_header_mismatch", "ptxas_unsupported_ptx_version"]],
        "catch22_subject": "nvidia-cuda-nvcc: 13.2.78 trips the CCCL compiler/header check; 13.0.88's ptxas "
                           "rejects PTX 9.2",
        "pivots": [
            {"kind": "flag_added", "subject": "--disable-cuda-graph", "value": None, "seq": seqs(per, "launch6:call")},
            {"kind": "flag_added", "subject": "--attention-backend", "value": "flashinfer",
             "seq": seqs(per, "launch6:call")},
            {"kind": "env_set", "subject": "CPATH",
             "value": "/root/venv/lib/python3.12/site-packages/flashinfer/data/cccl/libcudacxx/include:"
                      "/root/venv/lib/python3.12/site-packages/flashinfer/data/cccl/cub:"
                      "/root/venv/lib/python3.12/site-packages/flashinfer/data/cccl/thrust:$CUDA_HOME/include",
             "seq": seqs(per, "launch6:call")},
        ],
        "considered_not_taken": ["switch to vLLM", "triton attention backend (shared-memory limits on SM120)"],
        "outcome": "worked around",
        "recipe": [
            f"export LD_LIBRARY_PATH={ld}",
            "export CUDA_HOME=/root/venv/lib/python3.12/site-packages/nvidia/cu13",
            "export PATH=$CUDA_HOME/bin:$PATH",
            "export CPATH=/root/venv/lib/python3.12/site-packages/flashinfer/data/cccl/libcudacxx/include:"
            "/root/venv/lib/python3.12/site-packages/flashinfer/data/cccl/cub:"
            "/root/venv/lib/python3.12/site-packages/flashinfer/data/cccl/thrust:$CUDA_HOME/include",
            "apt-get install -y ninja-build",
            'uv pip install --python /root/venv/bin/python3 "nvidia-cuda-nvcc<13.1"',
            "python -m sglang.launch_server --model-path /root/models/Qwen3-235B-A22B-Instruct-2507 --tp 8 "
            "--attention-backend flashinfer --disable-cuda-graph --mem-fraction-static 0.85 --context-length 8192 "
            "--port 30000",
        ],
        "facts": [
            "8x NVIDIA RTX PRO 6000 Blackwell Workstation Edition (SM120), driver 580.95.05, CUDA Version 13.0",
            "torch 2.11.0+cu130, sgl-kernel 0.3.21, flashinfer-python 0.6.11.post1 in /root/venv",
            "libnvrtc.so.13 is in /root/venv/lib/python3.12/site-packages/nvidia/cu13/lib but not on the loader path",
            "the pip CUDA wheels ship no nvcc; pip resolves nvidia-cuda-nvcc to 13.2.78",
            "the pip CUDA headers are 13.0 (CUDART_VERSION 13000)",
            "nvidia-cuda-nvcc==13.0.26 does not exist; nvidia-cuda-nvcc<13.1 resolves to 13.0.88",
            "ptxas 13.0.88 accepts PTX ISA up to 9.0; the JIT-generated PTX declares .version 9.2 (CUDA 13.2)",
            "no sm120 cubins in flashinfer 0.6.11.post1 (only sm100f cubins, from flashinfer-cubin)",
            "flashinfer bundles CCCL 3.2; the pip CUDA 13.0 headers carry CCCL 3.0",
            "the index has no nvidia-cu13>=13.2",
            "with --attention-backend flashinfer --disable-cuda-graph and flashinfer's CCCL first on CPATH the "
            "server starts and the JIT build succeeds",
        ],
        "hedged_claims": [
            {"seq": seqs(per, "m9507:reasoning"), "text": "I think the 13.0 GA compiler wheel is 13.0.26, but I'm "
             "not certain of the patch number.", "held": False},
            {"seq": seqs(per, "m9512:reasoning"), "text": "The CCCL headers are from a newer CUDA toolkit "
             "(probably 13.2) bundled with the flashinfer package.", "held": "unverified (CCCL 3.2 confirmed "
             "later; that it is what emits PTX 9.2 is never shown)"},
            {"seq": seqs(per, "m9512:reasoning"), "text": "during normal inference it might use pre-compiled cubins "
             "instead.", "held": False},
            {"seq": seqs(per, "summary:text"), "text": "\"flashinfer's bundled CCCL\" is my best explanation, not a "
             "confirmed one.", "held": "unverified"},
        ],
        "seed_msg": {m: seqs(per, k)["claude-code"] for m, (k, _) in SEED_MSGS.items()},
        "seed_msg_about": {m: about for m, (_, about) in SEED_MSGS.items()},
        "seed_msg_events": {m: [seqs(per, k)["claude-code"] for k in keys] for m, keys in SEED_MSG_PARTS.items()},
        "expected_text": {k: {"seq": seqs(per, k + ":result"), "contains": v} for k, v in expect.items()},
        "invented": "The whole session is a reconstruction from the two seeds: prompts, reasoning (except the "
                    "seed quotes), timings, pids, paths beyond those the seeds name, the ServerArgs line, the "
                    "Python tracebacks (frames and line numbers are plausible, not copied), pip/uv/apt output, "
                    "nvidia-smi, the nvcc 13.2 banner, cubin file names, CCCL version numbers and the generation "
                    "script's output.",
        "real": [
            "ptxas text: produced here by /usr/local/bin/ptxas (CUDA 13.0.88) on a PTX file declaring "
            "`.version 9.2` at line 9, saved as /tmp/tmpxft_00012f4c_00000000-6_batch_prefill.ptx (exit 255): "
            + X.PTXAS_REAL.replace("\n", " | "),
            "nvcc 13.0.88 `--version` banner: produced here by /usr/local/bin/nvcc",
            "the `#error \"CUDA compiler and CUDA toolkit headers are incompatible…\"` block: format produced here "
            "by nvcc 13.0.88 compiling against headers whose CUDART_VERSION disagrees (the real line was "
            "cuda_toolkit.h:39:6 in CCCL 3.0; path and line 41 adapted to flashinfer's bundled CCCL as the seeds say)",
            "the seed reasoning quotes (msgs 9506 and 9512) are verbatim from the seeds",
        ],
        "not_established": [
            "which component emits PTX 9.2 (the agent blames flashinfer's bundled CCCL; a 13.2 nvvm/cicc left "
            "installed alongside nvcc 13.0.88 would produce the same error)",
            "whether --disable-cuda-graph or the CPATH change is what made the JIT build pass",
        ],
        "first_event": {"seq": 0, "role": "user", "contains": "193K"},
    }
