"""Verbatim tool output of the seed session (CT200, 8x RTX PRO 6000 Blackwell, SM120).

Texts marked REAL were produced on this machine with the NVIDIA CUDA 13.0.88 toolchain
(/usr/local/bin/ptxas, nvcc); the rest follow the shapes of the tools that print them.
"""

from __future__ import annotations

SPACE = " "  # trailing spaces the tools print, kept explicit
SP = "/root/venv/lib/python3.12/site-packages"
CU13 = f"{SP}/nvidia/cu13"
FI_CCCL = f"{SP}/flashinfer/data/cccl/libcudacxx/include"

OP_NAME = ("batch_prefill_with_kv_cache_dtype_q_bf16_dtype_kv_bf16_dtype_o_bf16_dtype_idx_i32_head_dim_qk_128_"
           "head_dim_vo_128_posenc_0_use_swa_False_use_logits_cap_False_f16qk_False")
JIT_DIR = "/root/.cache/flashinfer/0.6.11.post1/120a"

NINJA_CMD = (
    f"{CU13}/bin/nvcc --generate-dependencies-with-compile --dependency-output {OP_NAME}/batch_prefill.cuda.o.d "
    f"-DTORCH_EXTENSION_NAME={OP_NAME} -DTORCH_API_INCLUDE_EXTENSION_H -DPy_LIMITED_API=0x03090000 "
    f"-D_GLIBCXX_USE_CXX11_ABI=1 -isystem /usr/include/python3.12 -isystem {FI_CCCL} "
    f"-isystem {CU13}/include -isystem {CU13}/include/cccl -isystem {SP}/torch/include "
    f"-isystem {SP}/torch/include/torch/csrc/api/include -isystem {SP}/flashinfer/data/include "
    f"-isystem {SP}/flashinfer/data/csrc -isystem {SP}/flashinfer/data/cutlass/include "
    f"-isystem {SP}/flashinfer/data/cutlass/tools/util/include -isystem {SP}/flashinfer/data/spdlog/include "
    "--compiler-options=-fPIC --expt-relaxed-constexpr -gencode=arch=compute_120a,code=sm_120a -O3 "
    "-std=c++17 --threads=4 -use_fast_math -DFLASHINFER_ENABLE_F16 -DFLASHINFER_ENABLE_BF16 "
    "-DFLASHINFER_ENABLE_FP8_E4M3 -DFLASHINFER_ENABLE_FP8_E5M2 -DNDEBUG "
    f"-c {JIT_DIR}/generated/{OP_NAME}/batch_prefill.cu -o {OP_NAME}/batch_prefill.cuda.o"
)

# REAL: gcc's rendering of CCCL's #error as printed through nvcc 13.0.88 on this machine
# (headers whose CUDART_VERSION disagrees with the compiler). Path and line number (41, as in
# the seeds) are those of flashinfer's bundled CCCL.
HEADER_INCLUDE_CHAIN = f"""In file included from {FI_CCCL}/cuda/std/__cccl/extended_data_types.h:26,
                 from {FI_CCCL}/cuda/std/__cccl/builtin.h:25,
                 from {FI_CCCL}/cuda/std/__cccl/assert.h:26,
                 from {FI_CCCL}/cuda/__cccl_config:15,
                 from {FI_CCCL}/cuda/std/detail/libcxx/include/__config:14,
                 from {FI_CCCL}/cuda/std/detail/__config:43,
                 from {FI_CCCL}/cuda/std/cstdint:14,
                 from {SP}/flashinfer/data/include/flashinfer/attention/prefill.cuh:19,
                 from {JIT_DIR}/generated/{OP_NAME}/batch_prefill.cu:16:
{FI_CCCL}/cuda/std/__cccl/cuda_toolkit.h:41:6: error: #error "CUDA compiler and CUDA toolkit headers are incompatible, please check your include paths"
   41 | #    error "CUDA compiler and CUDA toolkit headers are incompatible, please check your include paths"
      |      ^~~~~"""

HEADER_ERROR_BLOCK = f"""ninja: Entering directory `{JIT_DIR}/cached_ops'
[1/4] {NINJA_CMD}
FAILED: {OP_NAME}/batch_prefill.cuda.o
{NINJA_CMD}
{HEADER_INCLUDE_CHAIN}
ninja: build stopped: subcommand failed.
"""

# REAL: ptxas 13.0.88 (/usr/local/bin/ptxas) on a PTX file declaring `.version 9.2` at line 9,
# saved under the nvcc temporary name; exit status 255.
PTXAS_REAL = """ptxas /tmp/tmpxft_00012f4c_00000000-6_batch_prefill.ptx, line 9; fatal   : Unsupported .version 9.2; current version is '9.0'
ptxas fatal   : Ptx assembly aborted due to errors"""

PTXAS_ERROR_BLOCK = f"""ninja: Entering directory `{JIT_DIR}/cached_ops'
[1/4] {NINJA_CMD}
FAILED: {OP_NAME}/batch_prefill.cuda.o
{NINJA_CMD}
{PTXAS_REAL}
ninja: build stopped: subcommand failed.
"""

CAPTURE_HINTS = f"""Possible solutions:
1. set --mem-fraction-static to a smaller value (e.g., 0.8 or 0.7)
2. set --cuda-graph-max-bs to a smaller value (e.g., 16)
3. disable torch compile by not using --enable-torch-compile
4. disable CUDA graph by --disable-cuda-graph. (Not recommended. Huge performance loss)
Open an issue on GitHub https://github.com/sgl-project/sglang/issues/new/choose{SPACE}
"""

IMPORT_ERROR = f"""Traceback (most recent call last):
  File "<frozen runpy>", line 198, in _run_module_as_main
  File "<frozen runpy>", line 88, in _run_code
  File "{SP}/sglang/launch_server.py", line 7, in <module>
    from sglang.srt.entrypoints.http_server import launch_server
  File "{SP}/sglang/srt/entrypoints/http_server.py", line 54, in <module>
    from sglang.srt.entrypoints.engine import _launch_subprocesses
  File "{SP}/sglang/srt/entrypoints/engine.py", line 39, in <module>
    from sglang.srt.managers.data_parallel_controller import (
  File "{SP}/sglang/srt/managers/data_parallel_controller.py", line 30, in <module>
    from sglang.srt.managers.io_struct import (
  File "{SP}/sglang/srt/managers/io_struct.py", line 29, in <module>
    from sglang.srt.managers.schedule_batch import BaseFinishReason
  File "{SP}/sglang/srt/managers/schedule_batch.py", line 47, in <module>
    from sglang.srt.mem_cache.allocator import (
  File "{SP}/sglang/srt/mem_cache/allocator.py", line 29, in <module>
    from sglang.srt.mem_cache.memory_pool import SWAKVPool
  File "{SP}/sglang/srt/mem_cache/memory_pool.py", line 41, in <module>
    from sglang.srt.layers.radix_attention import RadixAttention
  File "{SP}/sglang/srt/layers/radix_attention.py", line 23, in <module>
    from sglang.srt.layers.quantization.base_config import QuantizationConfig
  File "{SP}/sglang/srt/layers/quantization/__init__.py", line 53, in <module>
    from sglang.srt.layers.quantization.fp8 import Fp8Config
  File "{SP}/sglang/srt/layers/quantization/fp8.py", line 33, in <module>
    from sglang.srt.layers.quantization.fp8_kernel import (
  File "{SP}/sglang/srt/layers/quantization/fp8_kernel.py", line 45, in <module>
    from sgl_kernel import (
  File "{SP}/sgl_kernel/__init__.py", line 5, in <module>
    common_ops = _load_architecture_specific_ops()
                 ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "{SP}/sgl_kernel/load_utils.py", line 188, in _load_architecture_specific_ops
    raise ImportError(error_msg)
ImportError:{SPACE}
[sgl_kernel] CRITICAL: Could not load any common_ops library!

Attempted locations:
1. Architecture-specific pattern: {SP}/sgl_kernel/sm100/common_ops.* - found files: ['{SP}/sgl_kernel/sm100/common_ops.abi3.so']
2. Fallback pattern: {SP}/sgl_kernel/common_ops.* - found files: []
3. Standard Python import: common_ops - failed

GPU Info:
- Compute capability: 120
- Expected variant: SM120 (precise math for compatibility)

Please ensure sgl_kernel is properly installed with:
pip install --upgrade sgl_kernel

Error details from previous import attempts:
- ImportError: libnvrtc.so.13: cannot open shared object file: No such file or directory
- ModuleNotFoundError: No module named 'common_ops'
"""

_GPU_ROW = """|  {i:>2}  NVIDIA RTX PRO 6000 Blac...    On  |   00000000:{bus}:00.0 Off |                  Off |
| 30%   {temp}C    P8             {pw:>2}W /  600W |       0MiB /  97887MiB |      0%      Default |
|                                         |                        |                  N/A |
+-----------------------------------------+------------------------+----------------------+"""

NVIDIA_SMI = "\n".join(
    ["Sat Mar 14 10:02:22 2026       ",
     "+-----------------------------------------------------------------------------------------+",
     "| NVIDIA-SMI 580.95.05              Driver Version: 580.95.05      CUDA Version: 13.0     |",
     "+-----------------------------------------+------------------------+----------------------+",
     "| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |",
     "| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |",
     "|                                         |                        |               MIG M. |",
     "|=========================================+========================+======================|"]
    + [_GPU_ROW.format(i=i, bus=bus, temp=31 + (i * 3) % 7, pw=14 + (i * 5) % 9)
       for i, bus in enumerate(["01", "21", "41", "61", "81", "A1", "C1", "E1"])]
    + ["                                                                                         ",
       "+-----------------------------------------------------------------------------------------+",
       "| Processes:                                                                              |",
       "|  GPU   GI   CI              PID   Type   Process name                        GPU Memory |",
       "|        ID   ID                                                               Usage      |",
       "|=========================================================================================|",
       "|  No running processes found                                                             |",
       "+-----------------------------------------------------------------------------------------+",
       "---"]
    + [f"{i}, NVIDIA RTX PRO 6000 Blackwell Workstation Edition, 580.95.05, 97887 MiB" for i in range(8)]
    + ["---"]
)

PIP_LIST = """flashinfer-cubin                         0.6.11.post1
flashinfer-python                        0.6.11.post1
nvidia-cuda-cupti                        13.0.85
nvidia-cuda-nvrtc                        13.0.88
nvidia-cuda-runtime                      13.0.96
nvidia-nccl-cu13                         2.28.3
sgl-kernel                               0.3.21
sglang                                   0.5.10.dev14+g3f2a9c1
torch                                    2.11.0+cu130
transformers                             4.57.1
triton                                   3.6.0
---
/root/venv/lib/python3.12/site-packages/flashinfer
/root/venv/lib/python3.12/site-packages/flashinfer_cubin
/root/venv/lib/python3.12/site-packages/flashinfer_cubin-0.6.11.post1.dist-info
/root/venv/lib/python3.12/site-packages/flashinfer_python-0.6.11.post1.dist-info
/root/venv/lib/python3.12/site-packages/sgl_kernel
/root/venv/lib/python3.12/site-packages/sgl_kernel-0.3.21.dist-info"""

DATA_LS = """Qwen3-235B-A22B-Instruct-2507
Qwen3-8B
ddtree-drafter-v2
---
total 1.9G
drwxr-xr-x 2 root root 4.0K Mar 12 21:40 gen
-rw-r--r-- 1 root root 1.2G Mar 11 18:02 ddtree_train_v2.jsonl
-rw-r--r-- 1 root root 611M Mar 13 23:15 prompt_seeds_193k.jsonl
-rw-r--r-- 1 root root  88M Mar 11 18:02 val_v2.jsonl
193000 /root/ddtree/data/prompt_seeds_193k.jsonl
{"id": "seed-000001", "domain": "math", "source": "numina", "instruction": "Write a new competition-style problem about modular inverses; do not solve it."}"""

CU13_LIB = """libcublas.so.13
libcublasLt.so.13
libcudart.so.13
libcufft.so.12
libcufile.so.0
libcurand.so.10
libcusolver.so.12
libcusparse.so.12
libnvJitLink.so.13
libnvrtc-builtins.so.13.0
libnvrtc.so.13
libnvtx3interop.so.1
---
0"""

LOADING_NOTE = "Loading safetensors checkpoint shards"

NVCC_MISSING_LS = """include
lib
---
CUDA_HOME="""

PIP_NVCC = """Collecting nvidia-cuda-nvcc
  Downloading nvidia_cuda_nvcc-13.2.78-py3-none-manylinux_2_27_x86_64.whl.metadata (1.6 kB)
Downloading nvidia_cuda_nvcc-13.2.78-py3-none-manylinux_2_27_x86_64.whl (40.9 MB)
   ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━ 40.9/40.9 MB 91.4 MB/s  0:00:00
Installing collected packages: nvidia-cuda-nvcc
Successfully installed nvidia-cuda-nvcc-13.2.78"""

# Invented (no CUDA 13.2 toolchain here); shaped like the real 13.0.88 banner below.
NVCC_132 = """bin2c
crt
cudafe++
fatbinary
nvcc
nvcc.profile
nvlink
ptxas
---
nvcc: NVIDIA (R) Cuda compiler driver
Copyright (c) 2005-2026 NVIDIA Corporation
Built on Tue_Feb_24_08:12:41_PM_PST_2026
Cuda compilation tools, release 13.2, V13.2.78
Build cuda_13.2.r13.2/compiler.37285219_0"""

# REAL: `nvcc --version` of NVIDIA CUDA 13.0.88 (the nvidia-cuda-nvcc 13.0.88 wheel's compiler).
NVCC_130_REAL = """nvcc: NVIDIA (R) Cuda compiler driver
Copyright (c) 2005-2025 NVIDIA Corporation
Built on Wed_Aug_20_01:58:59_PM_PDT_2025
Cuda compilation tools, release 13.0, V13.0.88
Build cuda_13.0.r13.0/compiler.36424714_0"""

APT_NINJA = """Selecting previously unselected package ninja-build.
(Reading database ... 41388 files and directories currently installed.)
Preparing to unpack .../ninja-build_1.11.1-2_amd64.deb ...
Unpacking ninja-build (1.11.1-2) ...
Setting up ninja-build (1.11.1-2) ...
/usr/bin/ninja
1.11.1"""

HEADER_CHECK = """#define CUDART_VERSION  13000
---
nvidia-cuda-cupti                        13.0.85
nvidia-cuda-nvcc                         13.2.78
nvidia-cuda-nvrtc                        13.0.88
nvidia-cuda-runtime                      13.0.96"""

UV_NO_1326 = """Using Python 3.12.3 environment at: /root/venv
  × No solution found when resolving dependencies:
  ╰─▶ Because there is no version of nvidia-cuda-nvcc==13.0.26 and you
      require nvidia-cuda-nvcc==13.0.26, we can conclude that your
      requirements are unsatisfiable."""

UV_LT_131 = """Prepared 1 package in 2.31s
Uninstalled 1 package in 18ms
Installed 1 package in 41ms
 - nvidia-cuda-nvcc==13.2.78
 + nvidia-cuda-nvcc==13.0.88"""

FIND_CUBINS = f"""INSTALLER
METADATA
RECORD
REQUESTED
WHEEL
entry_points.txt
licenses
top_level.txt
{SP}/flashinfer_cubin/cubins/37f1d2a9c04b6e5f8a1c3d7e9b0f2a46/fmha/trtllm-gen/fmhaSm100fKernel_QkvBfloat16OBfloat16H128PagedKvCausalP32VarSeqQ128Kv128PersistentContext.cubin
{SP}/flashinfer_cubin/cubins/37f1d2a9c04b6e5f8a1c3d7e9b0f2a46/fmha/trtllm-gen/fmhaSm100fKernel_QkvBfloat16OBfloat16H128PagedKvDenseP32MultiCtasKvVarSeqQ8Kv128StaticSwapsAbForGen.cubin
{SP}/flashinfer_cubin/cubins/37f1d2a9c04b6e5f8a1c3d7e9b0f2a46/fmha/trtllm-gen/fmhaSm100fKernel_QE4m3KvE4m3OBfloat16H128PagedKvCausalP32VarSeqQ128Kv128PersistentContext.cubin
{SP}/flashinfer_cubin/cubins/8c0e4f1b7a2d9e3c5f6a0b1d2e3f4a5b/batched_gemm-0d28a41-1a02d5e/BatchedGemmKernel_Bfloat16_E4m3_Fp32_tile128x8x512_epilogueTile128x8_mma128x8x32_cluster1x1x1_transposeMmaOutput_DsFp8_schedS_sm100f.cubin
{SP}/flashinfer_cubin/cubins/8c0e4f1b7a2d9e3c5f6a0b1d2e3f4a5b/batched_gemm-0d28a41-1a02d5e/BatchedGemmKernel_Bfloat16_E2m1_Fp32_tile128x16x256_epilogueTile128x16_mma128x16x64_cluster1x1x1_transposeMmaOutput_sm100f.cubin"""

CCCL_VERSION = f"""#define CCCL_MAJOR_VERSION 3
#define CCCL_MINOR_VERSION 2
#define CCCL_PATCH_VERSION 0
---
#define CCCL_MAJOR_VERSION 3
#define CCCL_MINOR_VERSION 0
#define CCCL_PATCH_VERSION 1
---
{SP}/flashinfer/data/cccl/cub
{SP}/flashinfer/data/cccl/libcudacxx
{SP}/flashinfer/data/cccl/thrust"""

UV_NO_CU13 = """Using Python 3.12.3 environment at: /root/venv
  × No solution found when resolving dependencies:
  ╰─▶ Because only nvidia-cu13<13.2 is available and you require
      nvidia-cu13>=13.2, we can conclude that your requirements are
      unsatisfiable."""

MODEL_INFO = ('{"model_path":"/root/models/Qwen3-235B-A22B-Instruct-2507","tokenizer_path":'
              '"/root/models/Qwen3-235B-A22B-Instruct-2507","is_generation":true,"preferred_sampling_params":null,'
              '"weight_version":"default","has_image_understanding":false,"has_audio_understanding":false,'
              '"model_type":"qwen3_moe","architectures":["Qwen3MoeForCausalLM"]}\n'
              "---\n"
              "[gen] endpoint http://127.0.0.1:30000/v1 model=/root/models/Qwen3-235B-A22B-Instruct-2507\n"
              "[gen] 16/16 ok, 0 errors, 0 rejected (empty/duplicate), 11.4 s, mean 612 output tokens\n"
              "[gen] wrote /root/ddtree/data/gen/smoke_16.jsonl")

GEN_PROGRESS = """[gen] seeds=193000 domains={math: 52110, code: 61760, instruct: 48250, function_call: 30880} concurrency=512
[gen] resume: 0 already done
[gen] 3072/193000 (1.6%) ok=3061 err=0 rejected=11 | 37.9 prompts/s | out 23.4k tok/s | eta 1:23:31
[gen] 6656/193000 (3.4%) ok=6630 err=0 rejected=26 | 39.4 prompts/s | out 24.1k tok/s | eta 1:18:49"""
