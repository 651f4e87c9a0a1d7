"""The SGLang server log of CT200 (/root/sglang_server.log, appended by every launch).

Each launch is a list of (time, line); `tail(n, at)` is what `tail -n` printed at that moment,
so the transcripts and server.log can never disagree.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from sglang_texts import (
    CAPTURE_HINTS,
    HEADER_ERROR_BLOCK,
    IMPORT_ERROR,
    NINJA_CMD,
    OP_NAME,
    PTXAS_ERROR_BLOCK,
    SP,
)

MODEL = "/root/models/Qwen3-235B-A22B-Instruct-2507"


class ServerLog:
    def __init__(self) -> None:
        self.lines: list[tuple[datetime, str]] = []
        self.marks: dict[str, datetime] = {}

    def add(self, t: datetime, line: str) -> None:
        for piece in line.split("\n"):
            self.lines.append((t, piece))

    def tail(self, n: int, at: datetime) -> str:
        seen = [ln for t, ln in self.lines if t <= at]
        return "\n".join(seen[-n:])

    def text(self) -> str:
        return "\n".join(ln for _, ln in self.lines) + "\n"


def _s(t: datetime) -> str:
    return t.strftime("%Y-%m-%d %H:%M:%S")


def server_args(attention_backend: str | None, disable_cuda_graph: bool, seed: int) -> str:
    ab = repr(attention_backend)
    return (
        f"server_args=ServerArgs(model_path='{MODEL}', tokenizer_path='{MODEL}', tokenizer_mode='auto', "
        "tokenizer_worker_num=1, skip_tokenizer_init=False, load_format='auto', model_loader_extra_config='{}', "
        "trust_remote_code=False, context_length=8192, is_embedding=False, enable_multimodal=None, revision=None, "
        "model_impl='auto', host='0.0.0.0', port=30000, skip_server_warmup=False, warmups=None, nccl_port=None, "
        "dtype='auto', quantization=None, quantization_param_path=None, kv_cache_dtype='auto', "
        "mem_fraction_static=0.85, max_running_requests=None, max_queued_requests=None, max_total_tokens=None, "
        "chunked_prefill_size=8192, max_prefill_tokens=16384, schedule_policy='fcfs', "
        "schedule_conservativeness=1.0, page_size=1, hybrid_kvcache_ratio=None, swa_full_tokens_ratio=0.8, "
        "disable_hybrid_swa_memory=False, device='cuda', tp_size=8, pp_size=1, pp_max_micro_batch_size=None, "
        f"stream_interval=1, stream_output=False, random_seed={seed}, constrained_json_whitespace_pattern=None, "
        "watchdog_timeout=300, dist_timeout=None, download_dir=None, base_gpu_id=0, gpu_id_step=1, "
        "sleep_on_idle=False, log_level='info', log_level_http=None, log_requests=False, log_requests_level=2, "
        "crash_dump_folder=None, show_time_cost=False, enable_metrics=False, enable_metrics_for_all_schedulers=False, "
        "bucket_time_to_first_token=None, bucket_inter_token_latency=None, bucket_e2e_request_latency=None, "
        "collect_tokens_histogram=False, decode_log_interval=40, enable_request_time_stats_logging=False, "
        f"kv_events_config=None, gc_warning_threshold_secs=0.0, api_key=None, served_model_name='{MODEL}', "
        "weight_version='default', chat_template=None, completion_template=None, file_storage_path='sglang_storage', "
        "enable_cache_report=False, reasoning_parser=None, tool_call_parser=None, tool_server=None, dp_size=1, "
        "load_balance_method='round_robin', dist_init_addr=None, nnodes=1, node_rank=0, "
        "json_model_override_args='{}', preferred_sampling_params=None, enable_lora=None, max_lora_rank=None, "
        f"lora_backend='triton', attention_backend={ab}, decode_attention_backend=None, "
        "prefill_attention_backend=None, sampling_backend='flashinfer', grammar_backend='xgrammar', "
        "mm_attention_backend=None, speculative_algorithm=None, ep_size=1, moe_a2a_backend='none', "
        "moe_runner_backend='auto', enable_eplb=False, disable_radix_cache=False, cuda_graph_max_bs=256, "
        f"cuda_graph_bs=None, disable_cuda_graph={disable_cuda_graph}, disable_cuda_graph_padding=False, "
        "enable_profile_cuda_graph=False, enable_cudagraph_gc=False, enable_nccl_nvls=False, "
        "enable_symm_mem=False, disable_flashinfer_cutlass_moe_fp4_allgather=False, enable_tokenizer_batch_encode=False, "
        "disable_outlines_disk_cache=False, disable_custom_all_reduce=False, enable_mscclpp=False, "
        "disable_overlap_schedule=False, enable_mixed_chunk=False, enable_dp_attention=False, "
        "enable_two_batch_overlap=False, enable_torch_compile=False, torch_compile_max_bs=32, "
        "torchao_config='', enable_nan_detection=False, enable_p2p_check=False, triton_attention_reduce_in_fp32=False, "
        "triton_attention_num_kv_splits=8, num_continuous_decode_steps=1, delete_ckpt_after_loading=False, "
        "enable_memory_saver=False, allow_auto_truncate=False, enable_custom_logit_processor=False, "
        "flashinfer_mla_disable_ragged=False, disable_shared_experts_fusion=False, disable_chunked_prefix_cache=False, "
        "disable_fast_image_processor=False, enable_return_hidden_states=False, warmup_dtype=None)"
    )


def import_failure(log: ServerLog, t0: datetime) -> None:
    """Launch 1: sgl_kernel cannot load (no timestamps: it dies while importing)."""
    log.add(t0 + timedelta(seconds=9), IMPORT_ERROR)
    log.marks["L1_fail"] = t0 + timedelta(seconds=9)


def _boot(log: ServerLog, t0: datetime, backend: str | None, no_graph: bool, seed: int, load_s: float) -> datetime:
    """Common start of a launch up to the end of the KV-cache allocation; returns that time."""
    t = t0 + timedelta(seconds=8)
    log.add(t, f"[{_s(t)}] {server_args(backend, no_graph, seed)}")
    log.add(t + timedelta(seconds=1), f"[{_s(t + timedelta(seconds=1))}] Using default HuggingFace chat template "
                                      "with detected content format: string")
    t = t + timedelta(seconds=11)
    if backend is None:
        log.add(t, f"[{_s(t)} TP0] Attention backend not explicitly specified. Use flashinfer backend by default.")
    for r in range(8):
        log.add(t, f"[{_s(t)} TP{r}] Init torch distributed begin.")
    t += timedelta(seconds=5)
    log.add(t, f"[{_s(t)} TP0] sglang is using nccl==2.28.3")
    t += timedelta(seconds=2)
    for r in range(8):
        log.add(t, f"[{_s(t)} TP{r}] Init torch distributed ends. mem usage=1.0{4 + r % 3} GB")
    t += timedelta(seconds=1)
    for r in range(8):
        log.add(t, f"[{_s(t)} TP{r}] Load weight begin. avail mem=93.6{8 - r % 4} GB")
    log.add(t, "Loading safetensors checkpoint shards:   0% Completed | 0/118 [00:00<?, ?it/s]")
    per = load_s / 118
    for done in (12, 24, 36, 48, 59, 71, 83, 95, 107, 118):
        el = per * done
        rem = per * (118 - done)
        stamp = f"[{int(el // 60):02d}:{int(el % 60):02d}<{int(rem // 60):02d}:{int(rem % 60):02d}, {per:5.2f}s/it]"
        log.add(t + timedelta(seconds=el),
                f"Loading safetensors checkpoint shards: {round(done * 100 / 118):3d}% Completed | {done}/118 {stamp}")
    t += timedelta(seconds=load_s + 1)
    log.add(t, "")
    for r in range(8):
        log.add(t, f"[{_s(t)} TP{r}] Load weight end. type=Qwen3MoeForCausalLM, dtype=torch.bfloat16, "
                   f"avail mem=38.{47 - r} GB, mem usage=55.2{r % 3} GB.")
    t += timedelta(seconds=1)
    log.add(t, f"[{_s(t)} TP0] KV Cache is allocated. #tokens: 547008, K size: 13.16 GB, V size: 13.16 GB")
    log.add(t, f"[{_s(t)} TP0] Memory pool end. avail mem=11.32 GB")
    return t


def _capture_begin(log: ServerLog, t: datetime) -> None:
    log.add(t, f"[{_s(t)} TP0] Capture cuda graph begin. This can take up to several minutes. avail mem=11.05 GB")
    log.add(t, f"[{_s(t)} TP0] Capture cuda graph bs [1, 2, 4, 8, 12, 16, 24, 32, 40, 48, 56, 64, 72, 80, 88, 96, "
               "104, 112, 120, 128, 136, 144, 152, 160, 168, 176, 184, 192, 200, 208, 216, 224, 232, 240, 248, 256]")
    log.add(t, "\r  0%|          | 0/36 [00:00<?, ?it/s]\rCapturing batches (bs=256 avail_mem=11.01 GB):   0%|"
               "          | 0/36 [00:00<?, ?it/s]")


def _jit_loading(log: ServerLog, t: datetime) -> None:
    log.add(t, f"{t.strftime('%Y-%m-%d %H:%M:%S')},{412:03d} - INFO - flashinfer.jit: Loading JIT ops: {OP_NAME}")


FRAMES_CAPTURE = f"""  File "{SP}/sglang/srt/model_executor/cuda_graph_runner.py", line 395, in __init__
    self.capture()
  File "{SP}/sglang/srt/model_executor/cuda_graph_runner.py", line 517, in capture
    ) = self.capture_one_batch_size(bs, forward)
        ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "{SP}/sglang/srt/model_executor/cuda_graph_runner.py", line 662, in capture_one_batch_size
    attn_backend.init_forward_metadata_capture_cuda_graph(
  File "{SP}/sglang/srt/layers/attention/flashinfer_backend.py", line 443, in init_forward_metadata_capture_cuda_graph
    self.indices_updater_decode.update(
  File "{SP}/sglang/srt/layers/attention/flashinfer_backend.py", line 873, in update_single_wrapper
    self.call_begin_forward(
  File "{SP}/sglang/srt/layers/attention/flashinfer_backend.py", line 1037, in call_begin_forward
    wrapper.begin_forward(
  File "{SP}/flashinfer/decode.py", line 1032, in plan
    self._cached_module = get_batch_prefill_module(
                          ^^^^^^^^^^^^^^^^^^^^^^^^^
  File "{SP}/flashinfer/prefill.py", line 364, in get_batch_prefill_module
    module = gen_batch_prefill_module(backend, *args).build_and_load()
             ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "{SP}/flashinfer/jit/core.py", line 301, in build_and_load
    self.build(verbose, need_lock=False)"""

FRAMES_SCHEDULER = f"""Traceback (most recent call last):
  File "{SP}/sglang/srt/managers/scheduler.py", line 3024, in run_scheduler_process
    scheduler = Scheduler(
                ^^^^^^^^^^
  File "{SP}/sglang/srt/managers/scheduler.py", line 333, in __init__
    self.tp_worker = TpWorkerClass(
                     ^^^^^^^^^^^^^^
  File "{SP}/sglang/srt/managers/tp_worker_overlap_thread.py", line 67, in __init__
    self.worker = TpModelWorker(
                  ^^^^^^^^^^^^^^
  File "{SP}/sglang/srt/managers/tp_worker.py", line 95, in __init__
    self.model_runner = ModelRunner(
                        ^^^^^^^^^^^^
  File "{SP}/sglang/srt/model_executor/model_runner.py", line 263, in __init__
    self.initialize(min_per_gpu_memory)
  File "{SP}/sglang/srt/model_executor/model_runner.py", line 402, in initialize
    self.init_device_graphs()
  File "{SP}/sglang/srt/model_executor/model_runner.py", line 2050, in init_device_graphs
    self.graph_runner = graph_runners[self.device](self)
                        ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "{SP}/sglang/srt/model_executor/cuda_graph_runner.py", line 397, in __init__
    raise Exception("""


def _capture_failure(log: ServerLog, t: datetime, inner_frames: str, inner_exc: str, summary: str) -> None:
    tb = (f"[{_s(t)} TP0] Scheduler hit an exception: Traceback (most recent call last):\n"
          f"{FRAMES_CAPTURE}\n{inner_frames}\n{inner_exc}\n\n"
          "During handling of the above exception, another exception occurred:\n\n"
          f"{FRAMES_SCHEDULER}\n"
          f"Exception: Capture cuda graph failed: {summary}\n{CAPTURE_HINTS}")
    log.add(t, tb)
    t2 = t + timedelta(seconds=1)
    log.add(t2, f"[{_s(t2)}] Received sigquit from a child process. It usually means the child failed.")
    log.add(t2, "Killed")


def nvcc_failure(log: ServerLog, t0: datetime) -> datetime:
    t = _boot(log, t0, None, False, 715694123, 301.0)
    t += timedelta(seconds=1)
    _capture_begin(log, t)
    frames = f"""  File "{SP}/flashinfer/jit/core.py", line 283, in build
    self.write_ninja()
  File "{SP}/flashinfer/jit/core.py", line 270, in write_ninja
    content = generate_ninja_build_for_op(
              ^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "{SP}/flashinfer/jit/cpp_ext.py", line 163, in generate_ninja_build_for_op
    cuda_home = get_cuda_path()
                ^^^^^^^^^^^^^^^
  File "{SP}/flashinfer/jit/cpp_ext.py", line 74, in get_cuda_path
    raise RuntimeError("Could not find nvcc")"""
    t += timedelta(seconds=1)
    _jit_loading(log, t)
    _capture_failure(log, t, frames, "RuntimeError: Could not find nvcc", "Could not find nvcc")
    return t


def ninja_failure(log: ServerLog, t0: datetime) -> datetime:
    t = _boot(log, t0, None, False, 293014458, 296.0)
    t += timedelta(seconds=1)
    _capture_begin(log, t)
    frames = f"""  File "{SP}/flashinfer/jit/core.py", line 286, in build
    run_ninja(jit_env.FLASHINFER_JIT_DIR, self.ninja_path, verbose)
  File "{SP}/flashinfer/jit/cpp_ext.py", line 283, in run_ninja
    subprocess.run(
  File "/usr/lib/python3.12/subprocess.py", line 548, in run
    with Popen(*popenargs, **kwargs) as process:
         ^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/usr/lib/python3.12/subprocess.py", line 1026, in __init__
    self._execute_child(args, executable, preexec_fn, close_fds,
  File "/usr/lib/python3.12/subprocess.py", line 1955, in _execute_child
    raise child_exception_type(errno_num, err_msg, err_filename)"""
    t += timedelta(seconds=1)
    _jit_loading(log, t)
    _capture_failure(log, t, frames, "FileNotFoundError: [Errno 2] No such file or directory: 'ninja'",
                     "[Errno 2] No such file or directory: 'ninja'")
    return t


def _ninja_frames() -> str:
    return f"""  File "{SP}/flashinfer/jit/core.py", line 286, in build
    run_ninja(jit_env.FLASHINFER_JIT_DIR, self.ninja_path, verbose)
  File "{SP}/flashinfer/jit/cpp_ext.py", line 296, in run_ninja
    raise RuntimeError(msg) from e"""


def header_failure(log: ServerLog, t0: datetime) -> datetime:
    t = _boot(log, t0, None, False, 88123907, 305.0)
    t += timedelta(seconds=1)
    _capture_begin(log, t)
    _jit_loading(log, t + timedelta(seconds=1))
    t += timedelta(seconds=29)
    msg = f"RuntimeError: Ninja build failed. Ninja output:\n{HEADER_ERROR_BLOCK}"
    _capture_failure(log, t, _ninja_frames(), msg, "Ninja build failed. Ninja output:\n" + HEADER_ERROR_BLOCK)
    return t


def ptxas_failure(log: ServerLog, t0: datetime) -> datetime:
    t = _boot(log, t0, None, False, 402215876, 298.0)
    t += timedelta(seconds=1)
    _capture_begin(log, t)
    _jit_loading(log, t + timedelta(seconds=1))
    t += timedelta(seconds=41)
    msg = f"RuntimeError: Ninja build failed. Ninja output:\n{PTXAS_ERROR_BLOCK}"
    _capture_failure(log, t, _ninja_frames(), msg, "Ninja build failed. Ninja output:\n" + PTXAS_ERROR_BLOCK)
    return t


def success(log: ServerLog, t0: datetime) -> datetime:
    """Launch 6: flashinfer backend, no CUDA graphs, bundled CCCL first on CPATH: the server comes up."""
    t = _boot(log, t0, "flashinfer", True, 520311977, 293.0)
    t += timedelta(seconds=1)
    log.add(t, f"[{_s(t)} TP0] max_total_num_tokens=547008, chunked_prefill_size=8192, max_prefill_tokens=16384, "
               "max_running_requests=4096, context_len=8192, available_gpu_mem=11.32 GB")
    t += timedelta(seconds=2)
    log.add(t, f"[{_s(t)}] INFO:     Started server process [51877]")
    log.add(t, f"[{_s(t)}] INFO:     Waiting for application startup.")
    log.add(t, f"[{_s(t)}] INFO:     Application startup complete.")
    log.add(t, f"[{_s(t)}] INFO:     Uvicorn running on http://0.0.0.0:30000 (Press CTRL+C to quit)")
    t += timedelta(seconds=1)
    log.add(t, f"[{_s(t)}] INFO:     127.0.0.1:40612 - \"GET /get_model_info HTTP/1.1\" 200 OK")
    t += timedelta(seconds=1)
    log.add(t, f"[{_s(t)} TP0] Prefill batch. #new-seq: 1, #new-token: 6, #cached-token: 0, token usage: 0.00, "
               "#running-req: 0, #queue-req: 0,")
    _jit_loading(log, t)
    jit_done = t + timedelta(seconds=118)
    log.add(jit_done, f"{jit_done.strftime('%Y-%m-%d %H:%M:%S')},907 - INFO - flashinfer.jit: Finished loading "
                      f"JIT ops: {OP_NAME}")
    t = jit_done + timedelta(seconds=2)
    log.add(t, f"[{_s(t)}] INFO:     127.0.0.1:40626 - \"POST /generate HTTP/1.1\" 200 OK")
    log.add(t, f"[{_s(t)}] The server is fired up and ready to roll!")
    log.marks["ready"] = t
    return t


def tail_cmd_note(n: int) -> str:
    return f"tail -{n} /root/sglang_server.log"


__all__ = ["NINJA_CMD", "ServerLog", "header_failure", "import_failure", "ninja_failure", "nvcc_failure",
           "ptxas_failure", "success"]
