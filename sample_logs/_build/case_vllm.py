"""vllm-arch: Gemini CLI session. vLLM on an RTX 5090 (sm_120) with a torch wheel that lacks sm_120,
fixed with a cu128 torch; then KV-cache sizing errors fixed with --max-model-len and
--gpu-memory-utilization; ends with the server up. Transcript plus the vLLM server log."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import fmt_gemini
from casefile import dump, line_of, seqs
from story import Call, Item, Turn, User, events, turn_times

DIR = "vllm-arch"
START = datetime(2026, 3, 2, 14, 11, 40, 221000, tzinfo=UTC)
SESSION = "5f3c2a1b-9e47-4d2a-8b6c-0d1e2f3a4b5c"
VENV = "/home/lena/venvs/vllm"
SP = f"{VENV}/lib/python3.11/site-packages"
MODEL = "mistralai/Mistral-Small-24B-Instruct-2501"
LOG = "/home/lena/serve/vllm-serve.log"


def _v(t: datetime, lvl: str, src: str, msg: str) -> str:
    return f"{lvl} {t.strftime('%m-%d %H:%M:%S')} [{src}] {msg}"


class VLog:
    def __init__(self) -> None:
        self.lines: list[tuple[datetime, str]] = []

    def add(self, t: datetime, text: str) -> None:
        self.lines += [(t, x) for x in text.split("\n")]

    def tail(self, n: int, at: datetime) -> str:
        return "\n".join([x for t, x in self.lines if t <= at][-n:])

    def text(self) -> str:
        return "\n".join(x for _, x in self.lines) + "\n"


def run_old(log: VLog, t0: datetime) -> datetime:
    """vLLM 0.7.3 on torch 2.5.1+cu124: no sm_120 kernels."""
    t = t0 + timedelta(seconds=6)
    log.add(t, _v(t, "INFO", "__init__.py:207", "Automatically detected platform cuda."))
    log.add(t, _v(t, "INFO", "api_server.py:912", "vLLM API server version 0.7.3"))
    log.add(t, f"{SP}/torch/cuda/__init__.py:235: UserWarning: \n"
               "NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current PyTorch "
               "installation.\nThe current PyTorch install supports CUDA capabilities sm_50 sm_60 sm_70 sm_75 "
               "sm_80 sm_86 sm_90.\nIf you want to use the NVIDIA GeForce RTX 5090 GPU with PyTorch, please check "
               "the instructions at https://pytorch.org/get-started/locally/\n\n  warnings.warn(")
    t += timedelta(seconds=9)
    log.add(t, _v(t, "INFO", "model_runner.py:1110", f"Starting to load model {MODEL}..."))
    t += timedelta(seconds=14)
    log.add(t, _v(t, "INFO", "model_runner.py:1115", "Loading model weights took 24.12 GB"))
    t += timedelta(seconds=2)
    log.add(t, f"""Traceback (most recent call last):
  File "{VENV}/bin/vllm", line 8, in <module>
    sys.exit(main())
             ^^^^^^
  File "{SP}/vllm/worker/worker.py", line 229, in determine_num_available_blocks
    self.model_runner.profile_run()
  File "{SP}/vllm/worker/model_runner.py", line 1243, in profile_run
    self._dummy_run(max_num_batched_tokens, max_num_seqs)
  File "{SP}/vllm/model_executor/models/llama.py", line 201, in forward
    q, k = self.rotary_emb(positions, q, k)
           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "{SP}/vllm/model_executor/layers/rotary_embedding.py", line 127, in forward_cuda
    ops.rotary_embedding(positions, query, key, self.head_size,
  File "{SP}/vllm/_custom_ops.py", line 153, in rotary_embedding
    torch.ops._C.rotary_embedding(positions, query, key, head_size,
  File "{SP}/torch/_ops.py", line 1116, in __call__
    return self._op(*args, **(kwargs or {{}}))
           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
RuntimeError: CUDA error: no kernel image is available for execution on the device
CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.
For debugging consider passing CUDA_LAUNCH_BLOCKING=1
Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.
""")
    return t


def _boot_new(log: VLog, t0: datetime, args: str) -> datetime:
    t = t0 + timedelta(seconds=7)
    log.add(t, _v(t, "INFO", "__init__.py:244", "Automatically detected platform cuda."))
    log.add(t, _v(t, "INFO", "api_server.py:1287", "vLLM API server version 0.9.0"))
    log.add(t, _v(t, "INFO", "cli_args.py:309", f"non-default args: {args}"))
    t += timedelta(seconds=5)
    log.add(t, _v(t, "INFO", "config.py:2118", "Chunked prefill is enabled with max_num_batched_tokens=8192."))
    log.add(t, _v(t, "INFO", "core.py:455", "Waiting for init message from front-end."))
    t += timedelta(seconds=3)
    log.add(t, _v(t, "INFO", "gpu_model_runner.py:1595", f"Starting to load model {MODEL}..."))
    log.add(t, _v(t, "INFO", "cuda.py:252", "Using Flash Attention backend on V1 engine."))
    t += timedelta(seconds=11)
    log.add(t, _v(t, "INFO", "default_loader.py:272", "Loading weights took 9.82 seconds"))
    log.add(t, _v(t, "INFO", "gpu_model_runner.py:1624", "Model loading took 24.1 GiB and 10.37 seconds"))
    t += timedelta(seconds=31)
    log.add(t, _v(t, "INFO", "monitor.py:34", "torch.compile takes 28.41 s in total"))
    return t + timedelta(seconds=2)


def _engine_fail(log: VLog, t: datetime, msg: str) -> None:
    frames = [f'  File "{SP}/vllm/v1/engine/core.py", line 506, in run_engine_core',
              "    engine_core = EngineCoreProc(*args, **kwargs)",
              f'  File "{SP}/vllm/v1/engine/core.py", line 390, in __init__',
              "    super().__init__(vllm_config, executor_class, log_stats,",
              f'  File "{SP}/vllm/v1/engine/core.py", line 83, in __init__',
              "    self._initialize_kv_caches(vllm_config)",
              f'  File "{SP}/vllm/v1/engine/core.py", line 150, in _initialize_kv_caches',
              "    get_kv_cache_config(vllm_config, kv_cache_spec_one_worker,",
              f'  File "{SP}/vllm/v1/core/kv_cache_utils.py", line 960, in get_kv_cache_config',
              "    check_enough_kv_cache_memory(vllm_config, kv_cache_spec, available_memory)",
              f'  File "{SP}/vllm/v1/core/kv_cache_utils.py", line 588, in check_enough_kv_cache_memory',
              "    raise ValueError(", f"ValueError: {msg}"]
    lines = ["EngineCore failed to start.", "Traceback (most recent call last):", *frames]
    log.add(t, "\n".join(_v(t, "ERROR", "core.py:515", x) for x in lines))
    log.add(t, f"""Process EngineCore_0:
Traceback (most recent call last):
  File "/usr/lib/python3.11/multiprocessing/process.py", line 314, in _bootstrap
    self.run()
  File "{SP}/vllm/v1/engine/core.py", line 519, in run_engine_core
    raise e
ValueError: {msg}
Traceback (most recent call last):
  File "{VENV}/bin/vllm", line 8, in <module>
    sys.exit(main())
             ^^^^^^
  File "{SP}/vllm/v1/engine/core_client.py", line 421, in __init__
    self._wait_for_engine_startup()
  File "{SP}/vllm/v1/engine/core_client.py", line 480, in _wait_for_engine_startup
    raise RuntimeError("Engine core initialization failed. "
RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {{}}""")


KV_BIG = ("To serve at least one request with the models's max seq len (32768), (5.00 GiB KV cache is needed, "
          "which is larger than the available KV cache memory (1.91 GiB). Based on the available memory, the "
          "estimated maximum model length is 12512. Try increasing `gpu_memory_utilization` or decreasing "
          "`max_model_len` when initializing the engine.")
KV_NONE = ("No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when initializing "
           "the engine.")


def run_kv(log: VLog, t0: datetime, args: str, msg: str) -> datetime:
    t = _boot_new(log, t0, args)
    log.add(t, _v(t, "INFO", "gpu_worker.py:232", "Available KV cache memory: " +
                  ("1.91 GiB" if "32768" in msg else "-0.74 GiB")))
    _engine_fail(log, t, msg)
    return t


def run_ok(log: VLog, t0: datetime, args: str) -> datetime:
    t = _boot_new(log, t0, args)
    log.add(t, _v(t, "INFO", "gpu_worker.py:232", "Available KV cache memory: 1.97 GiB"))
    log.add(t, _v(t, "INFO", "kv_cache_utils.py:716", "GPU KV cache size: 12,896 tokens"))
    log.add(t, _v(t, "INFO", "kv_cache_utils.py:720", "Maximum concurrency for 8,192 tokens per request: 1.57x"))
    t += timedelta(seconds=18)
    log.add(t, _v(t, "INFO", "gpu_model_runner.py:2048", "Graph capturing finished in 17 secs, took 0.61 GiB"))
    log.add(t, _v(t, "INFO", "core.py:171", "init engine (profile, create kv cache, warmup model) took 51.02 seconds"))
    t += timedelta(seconds=1)
    log.add(t, _v(t, "INFO", "api_server.py:1349", "Starting vLLM API server 0 on http://0.0.0.0:8000"))
    log.add(t, "INFO:     Started server process [73312]\nINFO:     Waiting for application startup.\n"
               "INFO:     Application startup complete.")
    return t


def _serve(flags: str) -> str:
    return (f"cd ~/serve && source {VENV}/bin/activate && nohup vllm serve {MODEL} --quantization fp8{flags} "
            f">> {LOG} 2>&1 & echo started $!")


def build() -> tuple[list[Item], VLog]:
    log = VLog()
    items: list[Item] = [User(0, "vllm serve dies on my new 5090 box with some CUDA error. the venv is "
                                 f"{VENV}, log goes to ~/serve/vllm-serve.log. I want Mistral-Small-24B "
                                 "(fp8) served on :8000 for the team, context can be whatever fits", key="goal")]
    clock = [0.0]

    def turn(gap: float, key: str, call: Call | None, subject: str, thinking: str | None = None,
             text: str | None = None) -> Turn:
        if call is not None:
            call.key = key
        t = Turn(at=clock[0] + gap, thinking=thinking, text=text, calls=[call] if call else [], key=key,
                 thought_subject=subject)
        items.append(t)
        clock[0] = (turn_times(START, t)["end"] - START).total_seconds()
        return t

    def t_call(t: Turn) -> datetime:
        return turn_times(START, t)["call0"]

    def poll(gap: float, key: str, secs: int, n: int, subject: str, thinking: str) -> Turn:
        t = turn(gap, key, Call(f"sleep {secs} && tail -n {n} {LOG}", "", duration=secs + 0.4,
                                description="Read the end of the vLLM log"), subject, thinking)
        t.calls[0].output = log.tail(n, t_call(t) + timedelta(seconds=secs))
        return t

    # the user's earlier attempt, already in the log when the session starts
    run_old(log, START - timedelta(minutes=7))
    t = turn(6, "log1", Call(f"tail -n 40 {LOG}", "", duration=0.3, description="Show the last vLLM run"),
             "Reading the log", "The user says vllm serve crashes with a CUDA error on an RTX 5090. I'll look at "
             "the log they mention before anything else.")
    t.calls[0].output = log.tail(40, t_call(t))
    turn(9, "arch", Call(f"nvidia-smi --query-gpu=name,compute_cap,driver_version,memory.total --format=csv; "
                         f"{VENV}/bin/python -c \"import torch, vllm; print(torch.__version__, torch.version.cuda, "
                         "torch.cuda.get_arch_list(), vllm.__version__)\"",
                         "name, compute_cap, driver_version, memory.total [MiB]\n"
                         "NVIDIA GeForce RTX 5090, 12.0, 575.64.03, 32607 MiB\n"
                         "2.5.1+cu124 12.4 ['sm_50', 'sm_60', 'sm_70', 'sm_75', 'sm_80', 'sm_86', 'sm_90'] 0.7.3",
                         duration=4.1, description="Compare the GPU's compute capability with torch's arch list"),
         "Checking architecture support",
         "torch warns that sm_120 is not supported and the profile run dies with 'no kernel image is available'. "
         "The wheel was compiled for sm_50..sm_90 only. Confirm the GPU's compute capability and the torch build.")
    turn(12, "upgrade", Call(f"source {VENV}/bin/activate && pip install -U vllm==0.9.0 torch==2.7.0 torchvision==0.22.0 "
                             "torchaudio==2.7.0 --extra-index-url https://download.pytorch.org/whl/cu128 2>&1 | tail -3",
                             "  Attempting uninstall: vllm\n    Found existing installation: vllm 0.7.3\n"
                             "Successfully installed torch-2.7.0+cu128 torchaudio-2.7.0+cu128 torchvision-0.22.0+cu128 "
                             "triton-3.3.0 vllm-0.9.0 xformers-0.0.30", duration=96.0,
                             description="Install vLLM 0.9.0 with the CUDA 12.8 torch build"),
         "Installing a torch build with sm_120",
         "torch 2.5.1+cu124 has no sm_120 kernels; Blackwell consumer GPUs need a cu128 build (torch 2.7+). vLLM 0.7.3 "
         "is pinned to torch 2.5.1, so upgrade vLLM to 0.9.0 (torch 2.7.0) and take torch from the cu128 index.")
    turn(8, "arch2", Call(f"{VENV}/bin/python -c \"import torch; print(torch.__version__, torch.version.cuda, "
                          "torch.cuda.get_arch_list()); x = torch.ones(4, device='cuda'); print((x * 2).sum().item())\"",
                          "2.7.0+cu128 12.8 ['sm_75', 'sm_80', 'sm_86', 'sm_90', 'sm_100', 'sm_120', 'compute_120']\n8.0",
                          duration=6.2, description="Check that torch now runs kernels on the GPU"),
         "Verifying the new torch")
    t = turn(10, "serve1", Call(_serve(""), "started 71840", duration=0.6, description="Start vLLM in the background"),
             "Starting the server", "sm_120 is in the arch list and a kernel ran. Start the server again.")
    run_kv(log, t_call(t), f"{{'model': '{MODEL}', 'quantization': 'fp8'}}", KV_BIG)
    poll(3, "kv1", 75, 30, "Waiting for startup", "Model load plus torch.compile takes about a minute.")
    t = turn(16, "serve2", Call(_serve(" --max-model-len 16384 --gpu-memory-utilization 0.85"), "started 72455",
                                duration=0.6, description="Restart with a shorter context"),
             "Sizing the KV cache",
             "The arch problem is gone; now the V1 engine refuses to start: a 32768-token request needs 5.00 GiB of "
             "KV cache but only 1.91 GiB is left after 24.1 GiB of FP8 weights. Cut max_model_len to 16384. This "
             "is a desktop, the display server holds some memory too, so I'll lower gpu_memory_utilization to 0.85 "
             "to leave headroom.")
    run_kv(log, t_call(t), f"{{'model': '{MODEL}', 'quantization': 'fp8', 'max_model_len': 16384, "
                           "'gpu_memory_utilization': 0.85}", KV_NONE)
    poll(3, "kv2", 75, 30, "Waiting for startup", "Same wait as before.")
    t = turn(14, "serve3", Call(_serve(" --max-model-len 8192 --gpu-memory-utilization 0.95"), "started 73312",
                                duration=0.6, description="Restart with more memory for vLLM and 8k context"),
             "Correcting the memory budget",
             "Wrong direction: gpu_memory_utilization is the share vLLM may use, so 0.85 left nothing for the KV "
             "cache after the weights ('No available memory for the cache blocks'). Raise it to 0.95 and use "
             "max_model_len 8192, which the earlier estimate (12512 tokens at 1.91 GiB) says fits.")
    ok = run_ok(log, t_call(t), f"{{'model': '{MODEL}', 'quantization': 'fp8', 'max_model_len': 8192, "
                                "'gpu_memory_utilization': 0.95}")
    p = poll(3, "up", 90, 12, "Waiting for startup", "Wait for startup again.")
    assert t_call(p) + timedelta(seconds=90) >= ok
    turn(5, "curl", Call("curl -s localhost:8000/v1/models | python -m json.tool | head -8",
                         '{\n    "object": "list",\n    "data": [\n        {\n'
                         f'            "id": "{MODEL}",\n            "object": "model",\n'
                         '            "created": 1772461385,\n            "owned_by": "vllm",', duration=0.4,
                         description="Check the API"), "Checking the API")
    turn(6, "summary", None, "Summarizing", None,
         "vLLM is serving Mistral-Small-24B-Instruct-2501 (FP8) on http://0.0.0.0:8000.\n\n"
         "1. `no kernel image is available for execution on the device`: torch 2.5.1+cu124 has no sm_120 "
         "(RTX 5090) kernels. Fixed by installing vLLM 0.9.0 with torch 2.7.0+cu128 from the PyTorch cu128 index.\n"
         "2. KV cache too small for the default 32768-token context (5.00 GiB needed, 1.91 GiB available).\n"
         "3. My first fix lowered `--gpu-memory-utilization` to 0.85, which left no memory for the cache at all; "
         "0.95 with `--max-model-len 8192` works (12,896 tokens of KV cache, 1.57x concurrency at 8k).\n\n"
         f"Command: `vllm serve {MODEL} --quantization fp8 --max-model-len 8192 --gpu-memory-utilization 0.95`")
    return items, log


def files() -> dict[str, str]:
    items, log = build()
    name = fmt_gemini.file_name(START, SESSION)
    return {f"{DIR}/{name}": fmt_gemini.render(items, START, session=SESSION, project_root="/home/lena/serve"),
            f"{DIR}/vllm-serve.log": log.text(),
            f"{DIR}/case.yaml": dump(case(items, log.text(), name))}


def case(items: list[Item], log: str, name: str) -> dict[str, Any]:
    evs = events(items, START)
    per = {"gemini": evs}

    def s(key: str) -> dict[str, int]:
        return seqs(per, key)

    def act(key: str, kind: str, subject: str, value: str | None, **kw: Any) -> dict[str, Any]:
        return {"kind": kind, "subject": subject, "value": value, **kw, "seq": s(key + ":call")}

    return {
        "case": "vllm-arch",
        "description": "Gemini CLI session: vLLM 0.7.3 on an RTX 5090 (sm_120) with torch 2.5.1+cu124 dies with "
                       "'no kernel image is available'; vLLM 0.9.0 + torch 2.7.0+cu128 fixes it; then two KV-cache "
                       "sizing errors (the second caused by the agent lowering gpu_memory_utilization) before the "
                       "server comes up with --max-model-len 8192 --gpu-memory-utilization 0.95.",
        "files": {"gemini": name, "vllm-log": "vllm-serve.log"},
        "events": {"gemini": len(evs)},
        "tool_calls": {"gemini": sum(1 for e in evs if e.kind == "tool_call")},
        "goal": "Serve mistralai/Mistral-Small-24B-Instruct-2501 (FP8) with vLLM on port 8000 on an RTX 5090.",
        "chain": [
            {"category": "no_kernel_image_arch_mismatch",
             "pattern_hint": "CUDA error: no kernel image is available for execution on the device",
             "also": ["torch UserWarning: NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible "
                      "with the current PyTorch installation."],
             "first_seq": s("log1:result"),
             "first_line": {"vllm-log": line_of(log, "no kernel image is available")},
             "revealed_by": {"kind": "launch", "subject": "vllm serve", "value": None, "seq": None,
                             "note": "the user's run before the session"},
             "resolved_by": act("upgrade", "install", "torch", "==2.7.0", resolved="2.7.0+cu128",
                                index="https://download.pytorch.org/whl/cu128")},
            {"category": "kv_cache_insufficient",
             "pattern_hint": "is larger than the available KV cache memory",
             "first_seq": s("kv1:result"), "first_line": {"vllm-log": line_of(log, "larger than the available KV")},
             "revealed_by": act("upgrade", "install", "torch", "==2.7.0", resolved="2.7.0+cu128"),
             "resolved_by": act("serve2", "flag_added", "--max-model-len", "16384")},
            {"category": "kv_cache_insufficient",
             "pattern_hint": "No available memory for the cache blocks",
             "first_seq": s("kv2:result"),
             "first_line": {"vllm-log": line_of(log, "No available memory for the cache blocks")},
             "revealed_by": act("serve2", "flag_added", "--gpu-memory-utilization", "0.85"),
             "resolved_by": act("serve3", "flag_changed", "--gpu-memory-utilization", "0.95")},
        ],
        "success": {"pattern_hint": "Application startup complete.", "first_seq": s("up:result"),
                    "first_line": {"vllm-log": line_of(log, "Application startup complete.")}},
        "catch22": [],
        "pivots": [],
        "outcome": "resolved",
        "recipe": [
            "pip install -U vllm==0.9.0 torch==2.7.0 torchvision==0.22.0 torchaudio==2.7.0 "
            "--extra-index-url https://download.pytorch.org/whl/cu128",
            f"vllm serve {MODEL} --quantization fp8 --max-model-len 8192 --gpu-memory-utilization 0.95",
        ],
        "facts": [
            "NVIDIA GeForce RTX 5090 is compute capability 12.0 (sm_120), 32607 MiB, driver 575.64.03",
            "torch 2.5.1+cu124 supports sm_50..sm_90 only; torch 2.7.0+cu128 includes sm_120",
            "Mistral-Small-24B FP8 weights take 24.1 GiB, leaving 1.91 GiB of KV cache at the default utilization",
            "a 32768-token context needs 5.00 GiB of KV cache; 8192 tokens fit (12,896-token cache)",
            "lowering gpu_memory_utilization shrinks the KV cache (0.85 left none)",
        ],
        "hedged_claims": [],
        "mistakes": [{"seq": s("serve2:reasoning"), "text": "lower gpu_memory_utilization to 0.85 to leave headroom",
                      "why": "gpu_memory_utilization is vLLM's share; lowering it removed the KV cache budget"}],
        "expected_text": {
            "log1": {"seq": s("log1:result"), "contains": "no kernel image is available for execution on the device"},
            "kv1": {"seq": s("kv1:result"), "contains": "larger than the available KV cache memory (1.91 GiB)"},
            "kv2": {"seq": s("kv2:result"), "contains": "No available memory for the cache blocks"},
            "up": {"seq": s("up:result"), "contains": "Application startup complete."},
        },
        "invented": "All of it: machine, versions, timings, log lines and numbers are written for this sample, "
                    "following vLLM 0.7/0.9 and torch message shapes.",
        "real": ["the torch sm_120 UserWarning and the 'no kernel image' lines follow texts seen in public issue "
                 "threads (see ../shared/corpus); the KV-cache ValueError texts follow vLLM V1's messages",
                 "the chat file follows gemini-cli's ConversationRecord (sessionId, projectHash, startTime, "
                 "lastUpdated, messages with thoughts and toolCalls)"],
    }
