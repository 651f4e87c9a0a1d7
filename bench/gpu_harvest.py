"""Provoke real failures (and benign runs) of the GPU stack, one process each, for the held-out corpus.

    python3 bench/gpu_harvest.py OUTDIR

Runs on a machine with one NVIDIA GPU, torch, Triton, CuPy, JAX, nvcc and compute-sanitizer (the
device lent for issue #34). Each case is labelled by construction (the category a reader should
name) before it runs; stdout and stderr are merged as printed. Writes OUTDIR/harvest.tar.gz holding
`<case>.out` for each case and `manifest.json` (name, label, command, rc, seconds). It changes no
setting of the GPU (no MIG or ECC mode change): MIG cases only query.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tarfile
import tempfile
import textwrap
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

PY = sys.executable
TIMEOUT = 60
DEADLINE = 330.0  # seconds after start: later cases are skipped, so the tarball is always written
START = time.monotonic()


@dataclass(frozen=True)
class Case:
    """One provoked run: its name, its label, and a Python body or a shell line."""

    name: str
    label: str
    python: str = ""
    shell: str = ""
    env: tuple[tuple[str, str], ...] = ()
    serial: bool = False  # holds much GPU memory: run alone


TRITON_HEAD = "import torch, triton, triton.language as tl\n"
DIST_HEAD = "import os, torch, torch.distributed as dist\nos.environ.setdefault('MASTER_ADDR','127.0.0.1')\n"

CU_OOB = r"""
#include <cstdio>
__global__ void k(int *p, int n) { p[threadIdx.x + n] = 1; }
int main() { int *d; cudaMalloc(&d, 16 * sizeof(int)); k<<<1, 64>>>(d, 1 << 20);
  cudaError_t e = cudaDeviceSynchronize(); printf("status: %s\n", cudaGetErrorString(e)); return e != 0; }
"""
CU_SYNTAX = "__global__ void k(float *x) { x[threadIdx.x] = undefined_name * 2.0f }\n"
CU_LINK = "void helper();\n__global__ void k() {}\nint main() { helper(); k<<<1,1>>>(); return 0; }\n"
CU_OK = r"""
#include <cstdio>
__global__ void k(int *p) { p[threadIdx.x] = threadIdx.x; }
int main() { int *d; cudaMalloc(&d, 32 * sizeof(int)); k<<<1, 32>>>(d);
  printf("status: %s\n", cudaGetErrorString(cudaDeviceSynchronize())); return 0; }
"""
PTX_NEW = ".version 99.0\n.target sm_90\n.address_size 64\n.visible .entry k() { ret; }\n"

CASES: list[Case] = [
    # --- memory
    Case("torch-oom-huge", "cuda_oom", "import torch\nx = torch.empty(300 * 2**30, dtype=torch.uint8, device='cuda')"),
    Case("torch-oom-fraction", "cuda_oom", "import torch\ntorch.cuda.set_per_process_memory_fraction(0.01)\n"
         "xs = [torch.empty(256 * 2**20, dtype=torch.uint8, device='cuda') for _ in range(20)]"),
    Case("torch-oom-matmul", "cuda_oom", "import torch\na = torch.randn(400000, 400000, device='cuda')"),
    Case("cupy-oom", "cuda_oom", "import cupy\nx = cupy.empty(2**40, dtype=cupy.uint8)"),
    Case("jax-oom", "cuda_oom", "import jax.numpy as jnp\nx = jnp.ones((2**38,), dtype=jnp.float32)\nx.block_until_ready()"),
    # --- kernel faults
    Case("triton-illegal-address", "illegal_memory_access", TRITON_HEAD + textwrap.dedent("""
        @triton.jit
        def k(p):
            tl.store(p + (1 << 40) + tl.arange(0, 16), tl.zeros((16,), tl.float32))
        x = torch.zeros(16, device='cuda')
        k[(1,)](x)
        torch.cuda.synchronize()
        """)),
    Case("cupy-illegal-address", "illegal_memory_access", textwrap.dedent("""
        import cupy
        k = cupy.RawKernel(r'extern "C" __global__ void k(int *p) { p[threadIdx.x + (1LL << 38)] = 1; }', 'k')
        x = cupy.zeros(16, dtype=cupy.int32)
        k((1,), (32,), (x,))
        cupy.cuda.Device().synchronize()
        """)),
    Case("torch-index-assert", "device_side_assert",
         "import torch\nx = torch.zeros(10, device='cuda')\ni = torch.tensor([20], device='cuda')\n"
         "print(x[i])\ntorch.cuda.synchronize()"),
    Case("torch-nll-assert", "device_side_assert",
         "import torch\nlogits = torch.randn(4, 5, device='cuda')\nt = torch.tensor([0, 1, 7, 2], device='cuda')\n"
         "print(torch.nn.functional.cross_entropy(logits, t).item())"),
    Case("torch-embedding-assert", "device_side_assert",
         "import torch\ne = torch.nn.Embedding(10, 4).cuda()\nprint(e(torch.tensor([3, 12], device='cuda')).sum().item())"),
    Case("sanitizer-oob", "illegal_memory_access", shell="cd $W && cat > oob.cu <<'EOF'\n" + CU_OOB
         + "EOF\nnvcc -o oob oob.cu && compute-sanitizer --tool memcheck ./oob"),
    Case("cuda-oob-plain", "illegal_memory_access", shell="cd $W && cat > oob2.cu <<'EOF'\n" + CU_OOB
         + "EOF\nnvcc -o oob2 oob2.cu && ./oob2"),
    # --- devices
    Case("device-mismatch-mm", "device_mismatch",
         "import torch\na = torch.randn(4, 4, device='cuda')\nb = torch.randn(4, 4)\nprint(torch.mm(a, b))"),
    Case("device-mismatch-linear", "device_mismatch",
         "import torch\nm = torch.nn.Linear(8, 2).cuda()\nprint(m(torch.randn(3, 8)))"),
    Case("device-mismatch-cat", "device_mismatch",
         "import torch\nprint(torch.cat([torch.ones(2, device='cuda'), torch.ones(2)]))"),
    Case("triton-cpu-tensor", "device_mismatch", TRITON_HEAD + textwrap.dedent("""
        @triton.jit
        def k(p):
            tl.store(p + tl.arange(0, 16), tl.zeros((16,), tl.float32))
        k[(1,)](torch.zeros(16))
        """)),
    Case("invalid-device-ordinal", "no_gpu_visible", "import torch\nx = torch.zeros(1, device='cuda:3')"),
    Case("no-gpu-visible", "no_gpu_visible", "import torch\nx = torch.zeros(1, device='cuda')",
         env=(("CUDA_VISIBLE_DEVICES", ""),)),
    Case("bad-mig-uuid-visible", "no_gpu_visible", "import torch\nx = torch.zeros(1, device='cuda')",
         env=(("CUDA_VISIBLE_DEVICES", "MIG-00000000-0000-0000-0000-000000000000"),)),
    Case("torch-load-no-cuda", "cuda_checkpoint_without_gpu", shell="cd $W && " + PY + " -c \"import torch; "
         "torch.save(torch.ones(2, device='cuda'), 'ck.pt')\" && CUDA_VISIBLE_DEVICES= " + PY
         + " -c \"import torch; print(torch.load('ck.pt'))\""),
    Case("fork-reinit", "cuda_fork_reinit", textwrap.dedent("""
        import torch, multiprocessing as mp
        torch.zeros(1, device='cuda')
        def child():
            torch.zeros(1, device='cuda')
        if __name__ == '__main__':
            mp.set_start_method('fork')
            p = mp.Process(target=child); p.start(); p.join()
            raise SystemExit(p.exitcode)
        """)),
    Case("fork-reinit-dataloader", "cuda_fork_reinit", textwrap.dedent("""
        import torch
        from torch.utils.data import DataLoader, Dataset
        class D(Dataset):
            def __len__(self): return 8
            def __getitem__(self, i): return torch.ones(2, device='cuda') * i
        torch.zeros(1, device='cuda')
        if __name__ == '__main__':
            for b in DataLoader(D(), batch_size=2, num_workers=2, multiprocessing_context='fork'):
                print(b)
        """)),
    Case("spawn-no-main-guard", "spawn_main_guard_missing", textwrap.dedent("""
        import multiprocessing as mp
        mp.set_start_method('spawn', force=True)
        def f(): pass
        p = mp.Process(target=f); p.start(); p.join()
        """)),
    # --- distributed
    Case("nccl-duplicate-gpu", "nccl_error", shell=PY + " -m torch.distributed.run --nproc_per_node=2 $W/dup.py"),
    Case("rendezvous-timeout", "rendezvous_failed", DIST_HEAD + textwrap.dedent("""
        import datetime
        os.environ['MASTER_PORT'] = '29611'
        dist.init_process_group('nccl', rank=0, world_size=2, timeout=datetime.timedelta(seconds=8))
        """)),
    Case("store-port-in-use", "rendezvous_failed", DIST_HEAD + textwrap.dedent("""
        from torch.distributed import TCPStore
        a = TCPStore('127.0.0.1', 29622, 1, True)
        b = TCPStore('127.0.0.1', 29622, 1, True)
        """)),
    Case("torchrun-port-in-use", "rendezvous_failed", shell="cd $W && (" + PY + " -c \"import socket,time; "
         "s=socket.socket(); s.bind(('127.0.0.1',29633)); s.listen(); time.sleep(40)\" >/dev/null 2>&1 &) ; sleep 3; "
         + PY + " -m torch.distributed.run --nproc_per_node=1 --master_addr=127.0.0.1 --master_port=29633 ok_dist.py"),
    Case("rendezvous-connect-refused", "rendezvous_failed", DIST_HEAD + textwrap.dedent("""
        import datetime
        os.environ['MASTER_PORT'] = '29644'
        dist.init_process_group('gloo', rank=1, world_size=2, timeout=datetime.timedelta(seconds=8))
        """)),
    Case("nccl-bad-ifname", "nccl_error", DIST_HEAD + textwrap.dedent("""
        os.environ['MASTER_PORT'] = '29655'
        dist.init_process_group('nccl', rank=0, world_size=1, device_id=torch.device('cuda:0'))
        x = torch.ones(4, device='cuda'); dist.all_reduce(x); torch.cuda.synchronize(); print(x)
        """), env=(("NCCL_SOCKET_IFNAME", "nosuchif0"), ("NCCL_DEBUG", "WARN"))),
    Case("nccl-bad-proto", "nccl_error", DIST_HEAD + textwrap.dedent("""
        os.environ['MASTER_PORT'] = '29666'
        dist.init_process_group('nccl', rank=0, world_size=1, device_id=torch.device('cuda:0'))
        x = torch.ones(4, device='cuda'); dist.all_reduce(x); torch.cuda.synchronize(); print(x)
        """), env=(("NCCL_PROTO", "bogus"), ("NCCL_ALGO", "bogus"), ("NCCL_DEBUG", "WARN"))),
    Case("torchrun-child-segv", "process_signal", shell="cd $W && " + PY
         + " -m torch.distributed.run --nproc_per_node=1 --master_port=29677 segv.py"),
    Case("torchrun-child-raises", "python_traceback", shell="cd $W && " + PY
         + " -m torch.distributed.run --nproc_per_node=1 --master_port=29688 raises.py"),
    Case("mp-spawn-child-segv", "process_signal", textwrap.dedent("""
        import ctypes, torch.multiprocessing as mp
        def f(i): ctypes.string_at(0)
        if __name__ == '__main__':
            mp.spawn(f, nprocs=1)
        """)),
    # --- signals
    Case("bash-segfault", "process_signal", shell=PY + " -c 'import ctypes; ctypes.string_at(0)'; true"),
    Case("faulthandler-segfault", "process_signal", "import faulthandler, ctypes\nfaulthandler.enable()\n"
         "import torch\nctypes.string_at(0)"),
    Case("bash-abort", "process_signal", shell=PY + " -c 'import os; os.abort()'; true"),
    Case("bash-sigterm", "process_signal", shell="timeout -s TERM 2 " + PY + " -c 'import time; time.sleep(30)'; "
         "echo exit=$?; bash -c 'kill -TERM $$; true'; true"),
    Case("bash-sigill", "process_signal", shell=PY + " -c 'import os, signal; os.kill(os.getpid(), signal.SIGILL)'; true"),
    # --- MIG (queries only)
    Case("mig-list-gi", "mig_config_error", shell="nvidia-smi mig -lgi"),
    Case("mig-list-gip", "mig_config_error", shell="nvidia-smi mig -lgip"),
    # --- Triton compilation
    Case("triton-undefined-name", "triton_compilation_error", TRITON_HEAD + textwrap.dedent("""
        @triton.jit
        def k(p, BLOCK: tl.constexpr):
            offs = tl.arange(0, BLOCK)
            tl.store(p + offs, not_defined_anywhere(offs))
        k[(1,)](torch.zeros(16, device='cuda'), BLOCK=16)
        """)),
    Case("triton-arange-pow2", "triton_compilation_error", TRITON_HEAD + textwrap.dedent("""
        @triton.jit
        def k(p, BLOCK: tl.constexpr):
            offs = tl.arange(0, BLOCK)
            tl.store(p + offs, offs.to(tl.float32))
        k[(1,)](torch.zeros(16, device='cuda'), BLOCK=12)
        """)),
    Case("triton-dot-small", "triton_compilation_error", TRITON_HEAD + textwrap.dedent("""
        @triton.jit
        def k(a, c):
            o = tl.arange(0, 8)
            x = tl.load(a + o[:, None] * 8 + o[None, :])
            tl.store(c + o[:, None] * 8 + o[None, :], tl.dot(x, x))
        a = torch.randn(8, 8, device='cuda', dtype=torch.float16)
        k[(1,)](a, torch.empty(8, 8, device='cuda', dtype=torch.float32))
        """)),
    Case("triton-shape-mismatch", "triton_compilation_error", TRITON_HEAD + textwrap.dedent("""
        @triton.jit
        def k(p):
            a = tl.arange(0, 16)
            b = tl.arange(0, 32)
            tl.store(p + a, (a + b).to(tl.float32))
        k[(1,)](torch.zeros(32, device='cuda'))
        """)),
    Case("triton-out-of-shared-memory", "triton_out_of_resources", TRITON_HEAD + textwrap.dedent("""
        @triton.jit
        def k(a, c, B: tl.constexpr):
            o = tl.arange(0, B)
            x = tl.load(a + o[:, None] * B + o[None, :])
            tl.store(c + o[:, None] * B + o[None, :], tl.dot(x, x))
        B = 512
        a = torch.randn(B, B, device='cuda', dtype=torch.float32)
        k[(1,)](a, torch.empty(B, B, device='cuda'), B=B, num_stages=4)
        """)),
    Case("torch-compile-fullgraph", "python_traceback", textwrap.dedent("""
        import torch
        @torch.compile(fullgraph=True)
        def f(x):
            if x.sum().item() > 0:
                return x * 2
            return x
        print(f(torch.ones(4, device='cuda')))
        """)),
    Case("torch-compile-triton-ok", "none", textwrap.dedent("""
        import torch
        f = torch.compile(lambda x: torch.nn.functional.gelu(x) * 2)
        print(f(torch.randn(1024, device='cuda')).sum().item())
        """)),
    # --- CUDA graphs
    Case("graph-capture-sync", "cuda_graph_capture_failed", textwrap.dedent("""
        import torch
        x = torch.ones(4, device='cuda')
        g = torch.cuda.CUDAGraph()
        s = torch.cuda.Stream()
        with torch.cuda.stream(s):
            with torch.cuda.graph(g):
                y = x * 2
                print(y.sum().item())
        """)),
    # --- toolchain
    Case("nvcc-syntax", "compile_error", shell="cd $W && printf '%s' '" + CU_SYNTAX + "' > bad.cu && nvcc -c bad.cu"),
    Case("nvcc-undefined-ref", "compile_error", shell="cd $W && printf '%s' '" + CU_LINK + "' > link.cu && nvcc -o link link.cu"),
    Case("nvcc-missing-lib", "link_failed", shell="cd $W && printf '%s' '" + CU_OK.replace("'", "") + "' > okl.cu && nvcc -o okl okl.cu -lnosuchlib_cuda"),
    Case("nvcc-sm35", "nvcc_unsupported_gpu_arch", shell="cd $W && printf '%s' '" + CU_OK.replace("'", "") + "' > ok35.cu && nvcc -arch=sm_35 -c ok35.cu"),
    Case("ptxas-new-ptx", "ptxas_unsupported_ptx_version", shell="cd $W && printf '%s' '" + PTX_NEW + "' > new.ptx && ptxas -arch=sm_90 new.ptx -o new.cubin"),
    Case("ptxas-bad-arch", "nvcc_unsupported_gpu_arch", shell="cd $W && printf '%s' '" + PTX_NEW.replace("99.0", "8.0") + "' > k.ptx && ptxas -arch=sm_999 k.ptx -o k.cubin"),
    Case("nvcc-missing-header", "compile_error", shell="cd $W && printf '#include <cutlass/cutlass.h>\\n__global__ void k(){}\\n' > h.cu && nvcc -c h.cu"),
    Case("cupy-compile-error", "compile_error", textwrap.dedent("""
        import cupy
        k = cupy.RawKernel(r'extern "C" __global__ void k(float *p) { p[0] = nope; }', 'k')
        k((1,), (1,), (cupy.zeros(1, dtype=cupy.float32),))
        """)),
    Case("cpp-ext-syntax", "compile_error", textwrap.dedent("""
        import torch.utils.cpp_extension as ce
        ce.load_inline('bad_ext', cpp_sources='int f( { return 1; }', functions=['f'], verbose=False)
        """), env=(("TORCH_EXTENSIONS_DIR", "/tmp/harvest-ext1"),)),
    Case("cpp-ext-cuda-syntax", "compile_error", textwrap.dedent("""
        import torch.utils.cpp_extension as ce
        ce.load_inline('bad_cuda_ext', cpp_sources='torch::Tensor g(torch::Tensor x);',
                       cuda_sources='__global__ void k(float* x) { x[0] = y; }\\n'
                                    'torch::Tensor g(torch::Tensor x) { return x; }', functions=['g'])
        """), env=(("TORCH_EXTENSIONS_DIR", "/tmp/harvest-ext2"),)),
    Case("cpp-ext-bad-cuda-home", "cuda_home_not_set", textwrap.dedent("""
        import torch.utils.cpp_extension as ce
        ce.load_inline('ext_home', cpp_sources='torch::Tensor g(torch::Tensor x);',
                       cuda_sources='torch::Tensor g(torch::Tensor x) { return x; }', functions=['g'])
        """), env=(("CUDA_HOME", "/nonexistent/cuda"), ("TORCH_EXTENSIONS_DIR", "/tmp/harvest-ext3"))),
    Case("missing-shared-lib", "missing_shared_library", "import ctypes\nctypes.CDLL('libcudnn_adv_nosuch.so.9')"),
    # --- benign runs
    Case("benign-versions", "none", shell=PY + " -c 'import torch, triton, jax, cupy; print(torch.__version__, "
         "torch.version.cuda, triton.__version__, jax.__version__, cupy.__version__)'; nvcc --version; "
         "nvidia-smi --query-gpu=name,driver_version --format=csv"),
    Case("benign-matmul", "none", "import torch\na = torch.randn(2048, 2048, device='cuda')\n"
         "print('ok', (a @ a).float().mean().item(), torch.cuda.get_device_name())"),
    Case("benign-nvidia-smi-ecc", "none", shell="nvidia-smi -q -d ECC,PAGE_RETIREMENT,ROW_REMAPPER"),
    Case("benign-nvidia-smi", "none", shell="nvidia-smi"),
    Case("benign-triton", "none", TRITON_HEAD + textwrap.dedent("""
        @triton.jit
        def k(p, BLOCK: tl.constexpr):
            o = tl.arange(0, BLOCK)
            tl.store(p + o, o.to(tl.float32))
        x = torch.zeros(64, device='cuda'); k[(1,)](x, BLOCK=64); torch.cuda.synchronize(); print(x.sum().item())
        """)),
    Case("benign-nccl-info", "none", DIST_HEAD + textwrap.dedent("""
        os.environ['MASTER_PORT'] = '29699'
        dist.init_process_group('nccl', rank=0, world_size=1, device_id=torch.device('cuda:0'))
        x = torch.ones(4, device='cuda'); dist.all_reduce(x); torch.cuda.synchronize(); print(x)
        dist.destroy_process_group()
        """), env=(("NCCL_DEBUG", "INFO"),)),
    Case("benign-sanitizer-clean", "none", shell="cd $W && cat > okc.cu <<'EOF'\n" + CU_OK
         + "EOF\nnvcc -o okc okc.cu && compute-sanitizer ./okc"),
    Case("benign-jax", "none", "import jax, jax.numpy as jnp\nprint(jax.devices(), jnp.ones(1024).sum())"),
    Case("benign-torchrun", "none", shell="cd $W && " + PY + " -m torch.distributed.run --nproc_per_node=1 "
         "--master_port=29700 ok_dist.py"),
    # --- added for the first run (2026-12): more distinct failures and benign near-misses
    Case("no-kernel-image-sm80", "no_kernel_image_arch_mismatch", shell="cd $W && cat > k80.cu <<'EOF'\n" + CU_OK
         + "EOF\nnvcc -gencode arch=compute_80,code=sm_80 -o k80 k80.cu && ./k80"),
    Case("cupy-bad-launch-config", "cuda_launch_failure", textwrap.dedent("""
        import cupy
        k = cupy.RawKernel(r'extern "C" __global__ void k(int *p) { p[threadIdx.x] = 1; }', 'k')
        x = cupy.zeros(4096, dtype=cupy.int32)
        k((1,), (4096,), (x,))
        cupy.cuda.Device().synchronize()
        """)),
    Case("cupy-misaligned", "illegal_memory_access", textwrap.dedent("""
        import cupy
        k = cupy.RawKernel(r'extern "C" __global__ void k(char *p) { *(double *)(p + 3) = 1.0; }', 'k')
        x = cupy.zeros(64, dtype=cupy.int8)
        k((1,), (1,), (x,))
        cupy.cuda.Device().synchronize()
        """)),
    Case("cupy-invalid-device", "no_gpu_visible", "import cupy\ncupy.cuda.Device(5).use()\nx = cupy.zeros(4)"),
    Case("jax-no-cuda-backend", "no_gpu_visible", "import jax\nprint(jax.devices('cuda'))",
         env=(("CUDA_VISIBLE_DEVICES", ""), ("JAX_PLATFORMS", "cuda"))),
    Case("triton-device-assert", "device_side_assert", TRITON_HEAD + textwrap.dedent("""
        @triton.jit
        def k(p):
            o = tl.arange(0, 16)
            v = tl.load(p + o)
            tl.device_assert(v > 100, "value out of range")
        x = torch.zeros(16, device='cuda'); k[(1,)](x); torch.cuda.synchronize()
        """), env=(("TRITON_DEBUG", "1"),)),
    Case("triton-no-ptxas", "triton_cuda_version_unsupported", TRITON_HEAD + textwrap.dedent("""
        @triton.jit
        def k(p):
            tl.store(p + tl.arange(0, 16), tl.zeros((16,), tl.float32))
        k[(1,)](torch.zeros(16, device='cuda'))
        """), env=(("TRITON_PTXAS_PATH", "/nonexistent/bin/ptxas"), ("TRITON_CACHE_DIR", "/tmp/harvest-tc1"))),
    Case("cpp-ext-no-ninja", "ninja_not_found", textwrap.dedent("""
        import torch.utils.cpp_extension as ce
        ce.load_inline('ext_nn', cpp_sources='int f() { return 1; }', functions=['f'])
        """), env=(("PATH", "/nonexistent/bin"), ("TORCH_EXTENSIONS_DIR", "/tmp/harvest-ext4"))),
    Case("cpp-ext-arch-35", "nvcc_unsupported_gpu_arch", textwrap.dedent("""
        import torch.utils.cpp_extension as ce
        ce.load_inline('ext_a35', cpp_sources='torch::Tensor g(torch::Tensor x);',
                       cuda_sources='torch::Tensor g(torch::Tensor x) { return x; }', functions=['g'])
        """), env=(("TORCH_CUDA_ARCH_LIST", "3.5"), ("TORCH_EXTENSIONS_DIR", "/tmp/harvest-ext5"))),
    Case("module-not-found-flash-attn", "module_not_found", "import torch\nfrom flash_attn import flash_attn_func"),
    Case("torch-deterministic-cublas", "python_traceback", "import torch\ntorch.use_deterministic_algorithms(True)\n"
         "a = torch.randn(64, 64, device='cuda')\nprint((a @ a).sum().item())"),
    Case("torch-dtype-mismatch", "python_traceback", "import torch\na = torch.randn(8, 8, device='cuda', "
         "dtype=torch.float16)\nb = torch.randn(8, 8, device='cuda')\nprint(a @ b)"),
    Case("torch-compile-inductor-error", "python_traceback", textwrap.dedent("""
        import torch
        @torch.compile(fullgraph=True)
        def f(x):
            return torch.nonzero(x).sum() + x.numpy().sum()
        print(f(torch.ones(4, device='cuda')))
        """)),
    Case("nvcc-bad-ccbin", "tool_error", shell="cd $W && printf '__global__ void k(){}\\n' > cc.cu && "
         "nvcc -ccbin /nonexistent/bin/g++ -c cc.cu"),
    Case("sanitizer-racecheck", "tool_error", shell="cd $W && cat > race.cu <<'EOF'\n"
         "__global__ void k(int *o) { __shared__ int s; s = threadIdx.x; o[0] = s; }\n"
         "int main() { int *d; cudaMalloc(&d, 4); k<<<1, 64>>>(d); cudaDeviceSynchronize(); return 0; }\n"
         "EOF\nnvcc -o race race.cu && compute-sanitizer --tool racecheck --error-exitcode 3 ./race"),
    Case("sanitizer-initcheck", "tool_error", shell="cd $W && cat > init.cu <<'EOF'\n"
         "__global__ void k(int *p, int *o) { o[threadIdx.x] = p[threadIdx.x] + 1; }\n"
         "int main() { int *d, *o; cudaMalloc(&d, 128); cudaMalloc(&o, 128); k<<<1, 32>>>(d, o);\n"
         "  cudaDeviceSynchronize(); return 0; }\nEOF\n"
         "nvcc -o init init.cu && compute-sanitizer --tool initcheck --error-exitcode 3 ./init"),
    Case("benign-memory-summary", "none", "import torch\nx = torch.ones(1024, device='cuda')\n"
         "print(torch.cuda.memory_summary())"),
    Case("benign-ptxas-verbose", "none", shell="cd $W && cat > pv.cu <<'EOF'\n" + CU_OK
         + "EOF\nnvcc -arch=sm_90a -Xptxas -v -o pv pv.cu && ./pv"),
    Case("benign-cupy", "none", "import cupy\nx = cupy.arange(10**6, dtype=cupy.float32)\n"
         "print('sum', float(x.sum()), cupy.cuda.runtime.getDeviceProperties(0)['name'])"),
    Case("benign-collect-env", "none", shell=PY + " -m torch.utils.collect_env"),
    Case("benign-cpp-ext", "none", textwrap.dedent("""
        import torch, torch.utils.cpp_extension as ce
        m = ce.load_inline('ok_ext', cpp_sources='torch::Tensor g(torch::Tensor x) { return x * 2; }',
                           functions=['g'], verbose=True)
        print(m.g(torch.ones(3)))
        """), env=(("TORCH_EXTENSIONS_DIR", "/tmp/harvest-ext6"),)),
    Case("benign-triton-autotune", "none", TRITON_HEAD + textwrap.dedent("""
        @triton.autotune(configs=[triton.Config({'B': 64}), triton.Config({'B': 128})], key=['n'])
        @triton.jit
        def k(p, n, B: tl.constexpr):
            o = tl.program_id(0) * B + tl.arange(0, B)
            tl.store(p + o, o.to(tl.float32), mask=o < n)
        x = torch.zeros(1000, device='cuda')
        k[lambda m: (triton.cdiv(1000, m['B']),)](x, 1000); torch.cuda.synchronize(); print('ok', x.sum().item())
        """), env=(("TRITON_PRINT_AUTOTUNING", "1"),)),
    Case("benign-gloo-2proc", "none", shell="cd $W && " + PY + " -m torch.distributed.run --nproc_per_node=2 "
         "--master_port=29711 ok_dist.py"),
]

HELPERS = {
    "dup.py": "import os, torch, torch.distributed as dist\ndist.init_process_group('nccl')\n"
    "torch.cuda.set_device(0)\nx = torch.ones(4, device='cuda')\ndist.all_reduce(x)\ntorch.cuda.synchronize()\n"
    "print(x)\n",
    "ok_dist.py": "import torch, torch.distributed as dist\ndist.init_process_group('gloo')\n"
    "x = torch.ones(2); dist.all_reduce(x); print('rank', dist.get_rank(), x)\n",
    "segv.py": "import ctypes, torch\nctypes.string_at(0)\n",
    "raises.py": "import torch\nraise ValueError('checkpoint shard 3 has 7 tensors, expected 8')\n",
}


def run_case(case: Case, work: Path, out: Path) -> dict[str, object]:
    """Run one case in its own process; write its merged output; return its manifest row."""
    if time.monotonic() - START > DEADLINE:
        return {"name": case.name, "label": case.label, "command": "", "rc": None, "seconds": 0.0}
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "XLA_PYTHON_CLIENT_PREALLOCATE": "false", "W": str(work)}
    env.update(dict(case.env))
    if case.python:
        script = work / f"{case.name}.py"
        script.write_text(case.python)
        argv = [PY, script.name]
        command = f"python3 {script.name}"
    else:
        argv = ["bash", "-c", case.shell]
        command = case.shell
    t0 = time.monotonic()
    try:
        p = subprocess.run(argv, cwd=work, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=TIMEOUT, stdin=subprocess.DEVNULL)
        text, rc = p.stdout, p.returncode
    except subprocess.TimeoutExpired as e:
        text, rc = (e.stdout or b"") + b"\n[harvest: timed out]\n", -999
    if len(text) > 200_000:  # a runaway output keeps its head and tail
        text = text[:100_000] + b"\n[harvest: cut]\n" + text[-100_000:]
    (out / f"{case.name}.out").write_bytes(text)
    envs = " ".join(f"{k}={v}" for k, v in case.env)
    return {"name": case.name, "label": case.label, "command": (envs + " " + command).strip(), "rc": rc,
            "seconds": round(time.monotonic() - t0, 1)}


def main(outdir: str) -> None:
    """Run every case (eight at a time, memory-heavy ones alone) and pack the outputs."""
    work = Path(tempfile.mkdtemp(prefix="harvest-"))
    out = Path(tempfile.mkdtemp(prefix="harvest-out-"))
    for name, text in HELPERS.items():
        (work / name).write_text(text)
    rows = []
    probe = "nvidia-smi -L; uname -r; nvcc --version | tail -2; which compute-sanitizer ninja; " + PY + " -c " \
        "'import torch, triton; print(torch.__version__, torch.version.cuda, triton.__version__)'"
    print(subprocess.run(["bash", "-c", probe], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         text=True, timeout=120).stdout, flush=True)
    with ThreadPoolExecutor(8) as pool:
        rows += list(pool.map(lambda c: run_case(c, work, out), [c for c in CASES if not c.serial]))
    rows += [run_case(c, work, out) for c in CASES if c.serial]
    (out / "manifest.json").write_text(json.dumps(rows, indent=1))
    with tarfile.open(Path(outdir) / "harvest.tar.gz", "w:gz") as tar:
        tar.add(out, arcname="harvest")
    for r in rows:
        print(r["name"], r["rc"], r["seconds"], flush=True)
    print(f"{len(rows)} cases in {time.monotonic() - START:.0f} s")


if __name__ == "__main__":
    main(sys.argv[1])
