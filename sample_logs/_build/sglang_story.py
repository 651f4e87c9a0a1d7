"""The seed session: SGLang on 8x RTX PRO 6000 Blackwell (SM120) in Proxmox container CT200.

Seeds: ../shared/seeds/000_47efc0fdcee55ad2.txt and 004_a12437a81a054231.txt (msgs 9489…9518).
Reasoning the seeds quote is reproduced verbatim (see QUOTED_* below).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import sglang_log as L
import sglang_texts as X
from story import Call, Item, Script, Turn, User, turn_times

START = datetime(2026, 3, 14, 10, 2, 11, 384000, tzinfo=UTC)
VENV_LIB = "/root/venv/lib/python3.12/site-packages/nvidia/cu13/lib"


def ct(inner: str, suffix: str = "") -> str:
    """The agent's way into the container: ssh to the Proxmox host, pct exec into CT200."""
    return f"ssh -o ConnectTimeout=10 root@10.1.2.6 \"pct exec 200 -- bash -c '{inner}'\"{suffix}"


ENV_LD = rf"export LD_LIBRARY_PATH={VENV_LIB}:\$LD_LIBRARY_PATH"
ENV_NVCC = r"export CUDA_HOME=/root/venv/lib/python3.12/site-packages/nvidia/cu13 && export PATH=\$CUDA_HOME/bin:\$PATH"
ENV_CPATH = (r"export CPATH=/root/venv/lib/python3.12/site-packages/flashinfer/data/cccl/libcudacxx/include:"
             r"/root/venv/lib/python3.12/site-packages/flashinfer/data/cccl/cub:"
             r"/root/venv/lib/python3.12/site-packages/flashinfer/data/cccl/thrust:\$CUDA_HOME/include")
LAUNCH = ("cd /root && nohup /root/venv/bin/python -m sglang.launch_server --model-path "
          "/root/models/Qwen3-235B-A22B-Instruct-2507 --tp 8 --host 0.0.0.0 --port 30000 "
          "--mem-fraction-static 0.85 --context-length 8192{flags} >> /root/sglang_server.log 2>&1 & "
          r"echo launched pid \$!")


def launch(envs: list[str], flags: str = "") -> str:
    return ct(" && ".join([*envs, LAUNCH.format(flags=flags)]))


def wait_tail(secs: int, n: int) -> str:
    return ct(f"sleep {secs}; tail -{n} /root/sglang_server.log")


GOAL = (
    "Change of plan: I've halted the DDTree training run on CT200 (it's stopped, checkpoint saved at step "
    "41k). Repurpose all 8 GPUs in there for batch inference instead: bring up SGLang and generate the 193K "
    "diverse prompts (math / coding / instruction-following / function calling) we need to expand the "
    "drafter dataset. Seeds are in /root/ddtree/data/prompt_seeds_193k.jsonl, the generation script is "
    "/root/ddtree/scripts/gen_prompts.py, and the venv is /root/venv. CT200 is container 200 on the Proxmox "
    "host 10.1.2.6 (ssh root@10.1.2.6, then pct exec 200). Use Qwen3-235B-A22B-Instruct-2507 with TP=8; "
    "throughput matters, this is a few hundred million output tokens."
)

QUOTED_9506 = (
    'The error is: error: "CUDA compiler and CUDA toolkit headers are incompatible, please check your include '
    'paths". This is from cuda_toolkit.h line 41, where it checks if the nvcc version matches the toolkit '
    "header version."
)
QUOTED_9506_B = (
    "I'm running into too many compatibility issues with this SM120 and flashinfer JIT approach, so I should "
    "try a different strategy. I could disable CUDA graphs to skip the JIT compilation entirely, switch to the "
    "triton backend"
)
QUOTED_9512 = [
    "The CCCL/libcudacxx headers bundled with flashinfer generate PTX version 9.2, but nvcc 13.0's ptxas only "
    "supports up to version 9.0. The CCCL headers are from a newer CUDA toolkit (probably 13.2) bundled with "
    "the flashinfer package.",
    "So the issue is: flashinfer's bundled CCCL headers generate PTX 9.2, but our nvcc 13.0 only supports PTX 9.0.",
    "We're stuck in a catch-22 — upgrading to nvcc 13.2 would support PTX 9.2, but then the CCCL header version "
    "check fails because the system CUDA toolkit headers conflict with the bundled ones.",
    "Looking at the error traceback, the failure happens specifically during CUDA graph capture in the "
    "cuda_graph_runner, so disabling graphs should avoid hitting this code path. The flashinfer JIT compilation "
    "during graph capture is what's failing, though during normal inference it might use pre-compiled cubins "
    "instead.",
]


def build() -> tuple[list[Item], L.ServerLog, dict[str, str]]:
    """The story items, the server log they produced, and the texts tests look for per key."""
    log = L.ServerLog()
    script = Script(START, User(0, GOAL, key="goal"))
    items, turn = script.items, script.turn

    def wait_for(gap: float, key: str, until: datetime, n: int, desc: str, thinking: str | None = None) -> Turn:
        """A `sleep S; tail -n` poll whose sleep (rounded up to 5 s) covers `until`."""
        probe = Turn(at=script.clock + gap, thinking=thinking, calls=[Call("")])
        secs = (until - turn_times(START, probe)["call0"]).total_seconds() + 3
        secs = max(30, int(-(-secs // 5) * 5))
        t = turn(gap, key, [Call(wait_tail(secs, n), "", duration=secs + 1.3, timeout_ms=300000,
                                 description=desc)], thinking=thinking)
        t.calls[0].output = log.tail(n, call_time(t) + _td(secs))
        return t

    def call_time(t: Turn, i: int = 0) -> datetime:
        return turn_times(START, t)[f"call{i}"]

    def tail_out(t: Turn, secs: int, n: int) -> str:
        at = call_time(t) + _td(secs)
        return log.tail(n, at)

    # -- survey ---------------------------------------------------------------------------
    turn(8, "gpus", [Call(ct(r"nvidia-smi; echo ---; nvidia-smi --query-gpu=index,name,driver_version,memory.total "
                             r"--format=csv,noheader; echo ---; ps aux | grep -E \"torchrun|train_ddtree\" | "
                             r"grep -v grep"),
                          X.NVIDIA_SMI, exit_code=1, duration=2.4, description="Check GPUs and training processes on CT200")],
         thinking="The user halted DDTree training on CT200 and wants the 8 GPUs for SGLang batch inference to "
                  "generate 193K prompts. First confirm the GPUs are actually free and nothing from the training "
                  "run is still holding memory.",
         text="I'll start by checking the GPU state on CT200 and confirming the training run is gone.")
    turn(22, "stack", [Call(ct(r"/root/venv/bin/pip list 2>/dev/null | grep -iE \"^(sglang|sgl-kernel|flashinfer|torch|"
                               r"transformers|triton|nvidia-cuda|nvidia-nccl) \"; echo ---; ls -d "
                               r"/root/venv/lib/python3.12/site-packages/flashinfer* "
                               r"/root/venv/lib/python3.12/site-packages/sgl_kernel*"),
                            X.PIP_LIST, duration=3.1, description="List the inference stack in /root/venv")],
         thinking="All 8 GPUs idle, 97887 MiB each, driver 580.95.05 (CUDA 13.0). The grep for torchrun found "
                  "nothing, so exit 1 is just grep. Now the software side: what's in /root/venv.")
    turn(19, "data", [Call(ct("ls /root/models/; echo ---; ls -lh /root/ddtree/data/; wc -l "
                              "/root/ddtree/data/prompt_seeds_193k.jsonl; head -1 /root/ddtree/data/prompt_seeds_193k.jsonl"),
                           X.DATA_LS, duration=1.8, description="Check model and seed files")],
         thinking="torch 2.11.0+cu130, sglang nightly, sgl-kernel 0.3.21, flashinfer 0.6.11.post1 with the cubin "
                  "package. CUDA 13 wheels, so libraries live under site-packages/nvidia/cu13. Check the model "
                  "and the seed file before launching.")
    l1 = turn(28, "launch1", [Call(launch([]), "launched pid 48213", duration=1.3,
                                    description="Launch SGLang server (TP=8)")],
              thinking="Model is local, 193000 seeds confirmed. Launch with TP=8, context 8192 is plenty for "
                       "prompt generation. Log to /root/sglang_server.log.",
              text="Everything is in place: 193,000 seeds and the model on local disk. Launching SGLang with TP=8.")
    L.import_failure(log, call_time(l1))
    t = turn(12, "fail_nvrtc", [Call(wait_tail(20, 60), "", duration=21.5, description="Check server log")])
    t.calls[0].output = tail_out(t, 20, 60)
    turn(25, "nvrtc_look", [Call(ct(f"ls {VENV_LIB}/; echo ---; ldconfig -p | grep -c nvrtc"), X.CU13_LIB,
                                  duration=1.9, description="Look for libnvrtc.so.13 in the venv")],
         thinking="sgl_kernel can't load: the real cause is beneath the CRITICAL wrapper — "
                  "\"ImportError: libnvrtc.so.13: cannot open shared object file\". torch cu130 pulls the CUDA 13 "
                  "runtime as pip wheels into site-packages/nvidia/cu13/lib, which is not on the loader path "
                  "inside the container. Check that the library is there.")
    l2 = turn(21, "launch2", [Call(launch([ENV_LD]), "launched pid 48677", duration=1.2,
                                    description="Relaunch with the venv CUDA libs on LD_LIBRARY_PATH")],
              text="libnvrtc.so.13 is in the venv (nvidia/cu13/lib) but the loader doesn't know about it "
                   "(ldconfig has no nvrtc at all). Relaunching with that directory on LD_LIBRARY_PATH.")
    nvcc_fail = L.nvcc_failure(log, call_time(l2))
    t = turn(14, "wait_timeout", [Call(wait_tail(240, 30), "", duration=120.0, status="timeout",
                                        description="Wait for weights to load")])
    t.calls[0].output = ""
    t = turn(18, "loading", [Call(ct("tail -4 /root/sglang_server.log"), "", duration=1.6,
                                   description="Check loading progress")],
             thinking="The shell tool caps a call at 2 minutes; the 240 s sleep was killed. Poll with shorter "
                      "sleeps and an explicit timeout.")
    t.calls[0].output = tail_out(t, 1, 4)
    wait_for(15, "fail_nvcc", nvcc_fail + _td(1), 60, "Wait and read the server log")
    turn(38, "nvcc_look", [Call(ct("ls /root/venv/lib/python3.12/site-packages/nvidia/cu13/; which nvcc; echo ---; "
                                    r"echo CUDA_HOME=\$CUDA_HOME"), X.NVCC_MISSING_LS, duration=1.7,
                                 description="Look for nvcc")],
         thinking="Progress: sgl_kernel loads, weights load (55 GB per GPU), KV cache allocated. Now it dies in "
                  "CUDA graph capture: cuda_graph_runner -> flashinfer_backend -> flashinfer.jit builds the "
                  "batch_prefill kernel for SM120 and get_cuda_path() raises \"Could not find nvcc\". flashinfer "
                  "JIT-compiles kernels it has no cubin for, and the pip CUDA wheels don't include the compiler.")
    turn(24, "install_nvcc", [Call(ct("/root/venv/bin/pip install nvidia-cuda-nvcc 2>&1 | tail -6"), X.PIP_NVCC,
                                    duration=14.2, description="Install nvcc from pip")],
         thinking="No nvcc anywhere and CUDA_HOME unset. The cleanest source of a CUDA 13 nvcc matching the "
                  "venv layout is the nvidia-cuda-nvcc wheel, which installs into nvidia/cu13/bin.")
    turn(17, "nvcc_where", [Call(ct("ls /root/venv/lib/python3.12/site-packages/nvidia/cu13/bin/; echo ---; "
                                     "/root/venv/lib/python3.12/site-packages/nvidia/cu13/bin/nvcc --version"),
                                  X.NVCC_132, duration=1.4, description="Check the installed nvcc")])
    l3 = turn(19, "launch3", [Call(launch([ENV_LD, ENV_NVCC]), "launched pid 49102", duration=1.2,
                                    description="Relaunch with CUDA_HOME and nvcc on PATH")],
              text="nvcc 13.2.78 is installed under nvidia/cu13/bin. Relaunching with CUDA_HOME pointing at "
                   "nvidia/cu13 and its bin on PATH so flashinfer's JIT can find it.")
    ninja_fail = L.ninja_failure(log, call_time(l3))
    t = turn(13, "loading3", [Call(wait_tail(110, 4), "", duration=111.2, timeout_ms=300000,
                                    description="Wait for weights to load")])
    t.calls[0].output = tail_out(t, 110, 4)
    wait_for(12, "fail_ninja", ninja_fail + _td(1), 60, "Wait and read the server log")
    turn(41, "install_ninja", [Call(ct("apt-get install -y ninja-build 2>&1 | tail -5 && which ninja && ninja --version"),
                                     X.APT_NINJA, duration=9.8, description="Install ninja")],
         thinking="nvcc is found now; next layer: flashinfer's run_ninja spawns `ninja` and it isn't installed "
                  "(FileNotFoundError: [Errno 2] No such file or directory: 'ninja'). The container has apt, "
                  "install ninja-build system-wide.")
    l4 = turn(16, "launch4", [Call(launch([ENV_LD, ENV_NVCC]), "launched pid 49530", duration=1.2,
                                    description="Relaunch SGLang")],
              text="ninja 1.11.1 installed. Relaunching with the same environment.")
    header_fail = L.header_failure(log, call_time(l4))
    t = turn(12, "loading4", [Call(wait_tail(110, 4), "", duration=111.3, timeout_ms=300000,
                                    description="Wait for weights to load")])
    t.calls[0].output = tail_out(t, 110, 4)
    wait_for(14, "fail_header", header_fail + _td(1), 60, "Wait and read the server log")
    turn(150, "m9506", [Call(ct(r"grep -m1 \"define CUDART_VERSION\" /root/venv/lib/python3.12/site-packages/"
                                 r"nvidia/cu13/include/cuda_runtime_api.h; echo ---; /root/venv/bin/pip list "
                                 r"2>/dev/null | grep -i \"^nvidia-cuda\""), X.HEADER_CHECK, duration=2.6,
                              description="Compare header and compiler versions")],
         thinking=QUOTED_9506 + "\n\n" + QUOTED_9506_B + " (which has its own shared-memory limits on SM120), "
                  "or fix the version mismatch. Fixing the mismatch is the most principled option: the JIT now "
                  "gets as far as compiling, and the only complaint is that nvcc 13.2.78 doesn't match the 13.0 "
                  "headers from the pip CUDA runtime. Let me confirm the header version.")
    turn(28, "m9507", [Call(ct(r"export PATH=/root/.local/bin:\$PATH && uv pip install --python "
                                 r"/root/venv/bin/python3 nvidia-cuda-nvcc==13.0.26 2>&1 | tail -5", " 2>&1"),
                              X.UV_NO_1326, duration=1.9, description="Pin nvcc to a 13.0 release")],
         thinking="CUDART_VERSION 13000 in the pip headers, nvcc 13.2.78 from the wheel: pin nvcc to 13.0. I "
                  "think the 13.0 GA compiler wheel is 13.0.26, but I'm not certain of the patch number.")
    turn(19, "m9508", [Call(ct(r"export PATH=/root/.local/bin:\$PATH && uv pip install --python "
                                 r"/root/venv/bin/python3 \"nvidia-cuda-nvcc<13.1\" 2>&1 | tail -5", " 2>&1"),
                              X.UV_LT_131, duration=3.4, description="Install the newest nvcc below 13.1")],
         thinking="No 13.0.26 on the index. Let the resolver pick the newest 13.0.x with <13.1.")
    turn(14, "m9509", [Call(ct("/root/venv/lib/python3.12/site-packages/nvidia/cu13/bin/nvcc --version"),
                              X.NVCC_130_REAL, duration=1.3, description="Confirm nvcc version")])
    l5 = turn(18, "m9510", [Call(launch([ENV_LD, ENV_NVCC]), "launched pid 50011", duration=1.2,
                                   description="Relaunch with nvcc 13.0.88")],
              text="nvcc is now 13.0.88 (Build cuda_13.0.r13.0/compiler.36424714_0), matching the 13.0 headers. "
                   "Relaunching.")
    ptxas_fail = L.ptxas_failure(log, call_time(l5))
    t = turn(12, "loading5", [Call(wait_tail(110, 4), "", duration=111.4, timeout_ms=300000,
                                     description="Wait for weights to load")])
    t.calls[0].output = tail_out(t, 110, 4)
    wait_for(13, "m9511", ptxas_fail + _td(1), 60, "Wait and read the server log")
    find_cmd = ct(r"ls /root/venv/lib/python3.12/site-packages/flashinfer_python*.dist-info/ 2>/dev/null; "
                  r"find /root/venv/lib/python3.12/site-packages/flashinfer* -name \"*.cubin\" 2>/dev/null | head -5; "
                  r"find /root/venv/lib/python3.12/site-packages/flashinfer* -name \"*120*\" 2>/dev/null | head -5")
    turn(175, "m9512", [Call(find_cmd, X.FIND_CUBINS, duration=2.2, description="Look for prebuilt SM120 cubins")],
         thinking="New error: `" + X.PTXAS_REAL.split("\n")[0] + "`.\n\n" + "\n\n".join(QUOTED_9512)
                  + "\n\nSM120 + flashinfer JIT compilation requires a carefully matched CUDA toolkit. Options: "
                  "--disable-cuda-graph, or switching to vLLM. First check whether flashinfer ships prebuilt "
                  "SM120 cubins at all.")
    turn(96, "cccl", [Call(ct(r"grep -E \"define CCCL_(MAJOR|MINOR|PATCH)_VERSION\" /root/venv/lib/python3.12/"
                                r"site-packages/flashinfer/data/cccl/libcudacxx/include/cuda/std/__cccl/version.h; "
                                r"echo ---; grep -E \"define CCCL_(MAJOR|MINOR|PATCH)_VERSION\" /root/venv/lib/"
                                r"python3.12/site-packages/nvidia/cu13/include/cccl/cuda/std/__cccl/version.h; echo ---; "
                                r"ls -d /root/venv/lib/python3.12/site-packages/flashinfer/data/cccl/*"),
                             X.CCCL_VERSION, duration=1.5, description="Compare CCCL versions")],
         thinking="Only sm100f cubins (flashinfer-cubin ships trtllm-gen kernels for datacenter Blackwell) and "
                  "nothing matching 120. So on SM120 every attention kernel is JIT-compiled. Check which CCCL "
                  "flashinfer bundles versus the one in the pip CUDA headers.",
         text="flashinfer 0.6.11.post1 has no prebuilt SM120 cubins (only sm100f), so every attention kernel is "
              "JIT-compiled here, and the JIT hits a toolchain mismatch either way: nvcc 13.2 trips CCCL's "
              "compiler/header check, nvcc 13.0's ptxas can't assemble the PTX 9.2 it gets.")
    script.clock += 420
    items.append(User(script.clock, "how close are we? if SGLang on SM120 keeps fighting us I'm fine with vLLM, I just "
                            "need the generation running today", key="nudge"))
    turn(35, "m9518", [Call(ct(r"export PATH=/root/.local/bin:\$PATH && uv pip install --python "
                                 r"/root/venv/bin/python3 \"nvidia-cu13>=13.2\" 2>&1 | tail -5", " 2>&1"),
                              X.UV_NO_CU13, duration=2.1, description="Try CUDA 13.2 headers from pip")],
         thinking="Bundled CCCL is 3.2 (CUDA 13.2 era) while the pip CUDA headers carry CCCL 3.0 (13.0). The "
                  "clean fix would be a coherent 13.2 toolkit: nvcc 13.2 plus 13.2 headers. Check whether pip "
                  "has 13.2 headers at all.")
    l6 = turn(118, "launch6", [Call(launch([ENV_LD, ENV_NVCC, ENV_CPATH],
                                            " --attention-backend flashinfer --disable-cuda-graph"),
                                     "launched pid 51877", duration=1.3,
                                     description="Relaunch: no CUDA graphs, bundled CCCL first")],
              thinking="No 13.2 headers on pip, so a coherent 13.2 toolkit is out. Switching engines costs a "
                       "reinstall and more SM120 risk. Pivot: keep nvcc 13.0.88 (it matches the runtime headers), "
                       "disable CUDA graphs so the capture path that failed is never taken, and put flashinfer's "
                       "bundled CCCL first on CPATH so the JIT compiles against one consistent set of CCCL "
                       "headers. Decode throughput drops without graphs, but batch generation at high concurrency "
                       "is mostly prefill/throughput bound.",
              text="pip has no CUDA 13.2 headers (\"No solution found\" for nvidia-cu13>=13.2), so I can't make "
                   "the whole toolkit 13.2. Working around it instead: nvcc stays at 13.0.88, CUDA graphs off "
                   "(--disable-cuda-graph), explicit --attention-backend flashinfer, and flashinfer's bundled "
                   "CCCL first on CPATH. vLLM stays the fallback if this fails.")
    ready = L.success(log, call_time(l6))
    t = turn(13, "loading6", [Call(wait_tail(110, 4), "", duration=111.3, timeout_ms=300000,
                                     description="Wait for weights to load")])
    t.calls[0].output = tail_out(t, 110, 4)
    t = turn(12, "loading6b", [Call(wait_tail(115, 4), "", duration=116.1, timeout_ms=300000,
                                      description="Wait for the JIT build")],
             thinking="About 40% of the weights loaded and nothing alarming yet; every earlier failure came "
                      "after loading, at CUDA graph capture / first JIT build. Keep polling.")
    t.calls[0].output = tail_out(t, 115, 4)
    wait_for(12, "ready", ready, 12, "Wait for the server to be ready")
    turn(31, "smoke", [Call(ct("curl -s http://127.0.0.1:30000/get_model_info; echo; echo ---; cd /root/ddtree && "
                                 "/root/venv/bin/python scripts/gen_prompts.py --seeds data/prompt_seeds_193k.jsonl "
                                 "--endpoint http://127.0.0.1:30000/v1 --limit 16 --out data/gen/smoke_16.jsonl"),
                              X.MODEL_INFO, duration=13.1, description="Smoke test the server")],
         thinking="\"The server is fired up and ready to roll!\" and the JIT build finished without the ptxas "
                  "error. Smoke test the API and the generation script on 16 seeds.")
    turn(22, "gen", [Call(ct("cd /root/ddtree && nohup /root/venv/bin/python scripts/gen_prompts.py --seeds "
                               "data/prompt_seeds_193k.jsonl --endpoint http://127.0.0.1:30000/v1 --concurrency 512 "
                               r"--out data/gen/prompts_193k.jsonl > /root/gen_prompts.log 2>&1 & echo started \$!"),
                            "started 52410", duration=1.5, description="Start the full generation run")],
         text="Smoke test passed (16/16, ~612 output tokens each). Starting the full 193K run with concurrency 512.")
    turn(14, "gen_progress", [Call(ct("sleep 100; tail -4 /root/gen_prompts.log"), X.GEN_PROGRESS, duration=101.0,
                                     timeout_ms=300000, description="Check generation progress")])
    turn(40, "summary", [], text=SUMMARY)
    expect = {
        "fail_nvrtc": "libnvrtc.so.13: cannot open shared object file",
        "fail_nvcc": "Could not find nvcc",
        "install_nvcc": "Successfully installed nvidia-cuda-nvcc-13.2.78",
        "fail_ninja": "No such file or directory: 'ninja'",
        "fail_header": "CUDA compiler and CUDA toolkit headers are incompatible, please check your include paths",
        "m9507": "No solution found",
        "m9508": "+ nvidia-cuda-nvcc==13.0.88",
        "m9509": "Build cuda_13.0.r13.0/compiler.36424714_0",
        "m9511": "Unsupported .version 9.2; current version is '9.0'",
        "m9512": "sm100f",
        "m9518": "No solution found",
        "ready": "The server is fired up and ready to roll!",
    }
    return items, log, expect


def _td(secs: float) -> timedelta:
    return timedelta(seconds=secs)


SUMMARY = """SGLang is up on CT200 and the 193K prompt generation is running.

**Status**
- Server: Qwen3-235B-A22B-Instruct-2507, TP=8 across the 8× RTX PRO 6000 Blackwell, port 30000, log in /root/sglang_server.log
- Generation: `scripts/gen_prompts.py` at concurrency 512, ~39 prompts/s (~24k output tok/s), ETA about 1h20m; output in /root/ddtree/data/gen/prompts_193k.jsonl, log in /root/gen_prompts.log

**What it took** (each fix exposed the next failure)
1. `libnvrtc.so.13` not found by sgl_kernel → put the venv's `nvidia/cu13/lib` on `LD_LIBRARY_PATH`
2. CUDA graph capture → flashinfer JIT: `Could not find nvcc` → `pip install nvidia-cuda-nvcc` (got 13.2.78)
3. `ninja` missing → `apt-get install -y ninja-build`
4. nvcc 13.2 vs the 13.0 pip headers: `CUDA compiler and CUDA toolkit headers are incompatible` → `uv pip install "nvidia-cuda-nvcc<13.1"` (13.0.88; 13.0.26 doesn't exist)
5. nvcc 13.0's ptxas: `Unsupported .version 9.2; current version is '9.0'` — flashinfer's bundled CCCL is 3.2 (CUDA 13.2 era). 13.2 breaks the header check, 13.0 can't assemble the PTX: a catch-22. pip has no CUDA 13.2 headers (`nvidia-cu13>=13.2`: no solution).
6. Worked around it: `--attention-backend flashinfer --disable-cuda-graph`, `CUDA_HOME` = venv `nvidia/cu13`, flashinfer's bundled CCCL first on `CPATH`.

**Launch recipe**
```
export LD_LIBRARY_PATH=/root/venv/lib/python3.12/site-packages/nvidia/cu13/lib:$LD_LIBRARY_PATH
export CUDA_HOME=/root/venv/lib/python3.12/site-packages/nvidia/cu13
export PATH=$CUDA_HOME/bin:$PATH
export CPATH=/root/venv/lib/python3.12/site-packages/flashinfer/data/cccl/libcudacxx/include:/root/venv/lib/python3.12/site-packages/flashinfer/data/cccl/cub:/root/venv/lib/python3.12/site-packages/flashinfer/data/cccl/thrust:$CUDA_HOME/include
python -m sglang.launch_server --model-path /root/models/Qwen3-235B-A22B-Instruct-2507 --tp 8 --attention-backend flashinfer --disable-cuda-graph --mem-fraction-static 0.85 --context-length 8192 --port 30000
```

**Caveats**
- CUDA graphs are off, so decode is slower than it could be; fine for this batch job, but worth revisiting when flashinfer ships SM120 cubins or a pip CUDA 13.2 toolkit exists.
- nvcc is pinned to 13.0.88 in /root/venv; don't let a later `pip install` pull 13.2 back in.
- I haven't verified which component actually emits the PTX 9.2; "flashinfer's bundled CCCL" is my best explanation, not a confirmed one."""
