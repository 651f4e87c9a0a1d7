"""Provoke real toolchain failures (and benign runs) on a developer machine without a GPU, for the corpus.

    python bench/local_harvest.py OUT.jsonl

The fallback of issue #34 point 5 when the device machine could not be started: nvcc/ptxas/nvlink of the
CUDA 13.0 toolkit (no GPU, no driver), gcc/g++ 12, ld, make, CMake 3.25, gdb, Python 3.11 and pip 23.2, each
case in its own process and its own empty directory. Each case is labelled by construction before it runs
(the category a reader should name; `none` for a benign run; `other:<what>` for a real failure outside the
taxonomy, right when it gets any failure finding). stdout and stderr are merged as printed. The working directory
is shown as `.` and home as `/home/user`. Writes one {"id", "label", "source", "text"} a line (bench/score_batch.py's
format); a failure case whose command exited 0 without a trailing `; true` (not provoked) is left out.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile

PY = "python3"
OK_CU = "#include <cstdio>\n__global__ void k(int *p) { p[threadIdx.x] = threadIdx.x; }\n" \
    "int main() { int *d; cudaMalloc(&d, 128); k<<<1, 32>>>(d); " \
    "printf(\"%s\\n\", cudaGetErrorString(cudaDeviceSynchronize())); return 0; }\n"
WGMMA_PTX = ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k() {\n  wgmma.fence.sync.aligned;\n  ret;\n}\n"
BAD_PTX = ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k() {\n  .reg .b32 %r<2>;\n" \
    "  mov.u32 %r1, undefined_sym;\n  ret;\n}\n"
SETUP_TORCH = "from setuptools import setup\nimport torch\nsetup(name='myext', version='0.1')\n"
SETUP_PYREQ = "from setuptools import setup\nsetup(name='newpy', version='0.1', python_requires='>=3.99')\n"
CMAKE_CUDA = "cmake_minimum_required(VERSION 3.18)\nproject(k LANGUAGES CXX CUDA)\nadd_executable(k k.cu)\n"


def w(name: str, text: str) -> str:
    """A shell step writing `text` to `name` (a heredoc)."""
    return f"cat > {name} <<'EOF'\n{text}EOF\n"


CASES: list[tuple[str, str, str]] = [
    # --- nvcc / ptxas / nvlink (CUDA 13.0)
    ("nvcc-shared-too-large", "compile_error", w("s.cu", "__global__ void k(char *o) { __shared__ char s[300000];"
     " s[threadIdx.x] = 1; o[0] = s[5]; }\n") + "nvcc -arch=sm_90 -c s.cu"),
    ("nvcc-unresolved-extern-no-rdc", "compile_error", w("a.cu", "extern __device__ int foo(int);\n"
     "__global__ void k(int *p) { p[0] = foo(1); }\n") + "nvcc -arch=sm_90 -c a.cu"),
    ("nvlink-undefined-rdc", "link_failed", w("a.cu", "extern __device__ int foo(int);\n"
     "__global__ void k(int *p) { p[0] = foo(1); }\nint main() { k<<<1,1>>>(nullptr); return 0; }\n")
     + "nvcc -arch=sm_90 -rdc=true -o a a.cu"),
    ("nvcc-unknown-option", "other:nvcc_option", "nvcc --fast-math-please -c x.cu"),
    ("nvcc-relaxed-constexpr", "compile_error", w("c.cu", "#include <cmath>\nconstexpr float sq(float x) "
     "{ return x * x; }\n__global__ void k(float *p) { p[0] = sq(p[1]); }\n") + "nvcc -arch=sm_90 -c c.cu"
     " -Werror all-warnings"),
    ("nvcc-no-template-instance", "compile_error", w("t.cu", "template <typename T> __device__ T twice(T a, T b)"
     " { return a + b; }\n__global__ void k(float *p, int i) { p[0] = twice(p[1], i); }\n")
     + "nvcc -arch=sm_90 -c t.cu"),
    ("nvcc-cublas-undefined-ref", "compile_error", w("b.cu", "extern \"C\" int cublasCreate_v2(void **h);\n"
     "int main() { void *h; return cublasCreate_v2(&h); }\n") + "nvcc -o b b.cu"),
    ("nvcc-werror-unused", "compile_error", w("u.cu", "__global__ void k(int *p) { int unused = 3; p[0] = 1; }\n")
     + "nvcc -arch=sm_90 -Werror all-warnings -Xcompiler -Wall -c u.cu"),
    ("ptxas-wgmma-sm80", "compile_error", w("g.ptx", WGMMA_PTX) + "ptxas -arch=sm_80 g.ptx -o g.cubin"),
    ("ptxas-unknown-symbol", "compile_error", w("u.ptx", BAD_PTX) + "ptxas -arch=sm_90 u.ptx -o u.cubin"),
    ("nvcc-arch-sm70-cuda13", "nvcc_unsupported_gpu_arch", w("k.cu", OK_CU) + "nvcc -arch=sm_70 -c k.cu"),
    ("nvcc-gencode-compute72", "nvcc_unsupported_gpu_arch", w("k.cu", OK_CU)
     + "nvcc -gencode arch=compute_72,code=sm_72 -c k.cu"),
    ("nvcc-arch-sm999", "nvcc_unsupported_gpu_arch", w("k.cu", OK_CU) + "nvcc -arch=sm_999 -c k.cu"),
    ("nvcc-missing-input", "other:nvcc_input", "nvcc -c nosuch_kernel.cu"),
    # --- gcc / g++ / ld
    ("gxx-no-member", "compile_error", w("v.cpp", "#include <vector>\nint main() { std::vector<int> v; "
     "v.push(1); return 0; }\n") + "g++ -c v.cpp"),
    ("gxx-multiple-definition", "link_failed", w("a.cpp", "int helper() { return 1; }\n")
     + w("b.cpp", "int helper() { return 2; }\nint main() { return helper(); }\n") + "g++ a.cpp b.cpp -o ab"),
    ("ld-needs-fpic", "link_failed", w("s.c", "int counter; int bump(void) { return ++counter; }\n")
     + "gcc -c -fno-pic -O2 s.c -o s.o && gcc -shared s.o -o libs.so"),
    ("ld-cannot-find-cudart", "link_failed", w("m.cpp", "extern \"C\" int cudaGetDeviceCount(int *);\n"
     "int main() { int n; return cudaGetDeviceCount(&n); }\n") + "g++ m.cpp -lcudart -o m"),
    ("gcc-bad-march", "other:gcc_option", w("x.c", "int main(void) { return 0; }\n") + "gcc -march=sm_90 x.c"),
    ("make-missing-separator", "build_script_error", "printf 'all:\\n    echo hi\\n' > Makefile && make"),
    ("make-gcc-error-recipe", "compile_error", w("m.c", "int main(void) { return undefined_thing; }\n")
     + "printf 'm: m.c\\n\\tgcc -o m m.c\\n' > Makefile && make"),
    # --- CMake with CUDA 13
    ("cmake-cuda-arch-70", "nvcc_unsupported_gpu_arch", w("CMakeLists.txt", CMAKE_CUDA) + w("k.cu", OK_CU)
     + "cmake -S . -B b -DCMAKE_CUDA_ARCHITECTURES=70 -G Ninja 2>&1 | tail -40; exit ${PIPESTATUS[0]}"),
    ("cmake-cudacxx-bogus", "nvcc_not_found", w("CMakeLists.txt", CMAKE_CUDA) + w("k.cu", OK_CU)
     + "CUDACXX=/opt/cuda-12.4/bin/nvcc cmake -S . -B b -G Ninja"),
    ("cmake-find-torch", "build_script_error", w("CMakeLists.txt", "cmake_minimum_required(VERSION 3.18)\n"
     "project(ext LANGUAGES CXX)\nfind_package(Torch REQUIRED)\n") + "cmake -S . -B b -G Ninja"),
    ("cmake-version-too-old", "build_script_error", w("CMakeLists.txt", "cmake_minimum_required(VERSION 3.30)\n"
     "project(x LANGUAGES CXX)\n") + "cmake -S . -B b"),
    ("ninja-compile-error", "compile_error", w("CMakeLists.txt", "cmake_minimum_required(VERSION 3.18)\n"
     "project(x LANGUAGES CXX)\nadd_executable(x x.cpp)\n") + w("x.cpp", "int main() { return missing_fn(); }\n")
     + "cmake -S . -B b -G Ninja >/dev/null && cmake --build b"),
    # --- native crashes, signals
    ("c-assert-abort", "process_signal", w("a.c", "#include <assert.h>\nint main(void) { int n = 3; "
     "assert(n == 4); return 0; }\n") + "gcc a.c -o a && ./a; true"),
    ("c-double-free", "process_signal", w("d.c", "#include <stdlib.h>\nint main(void) { char *p = malloc(8); "
     "free(p); free(p); return 0; }\n") + "gcc -O0 d.c -o d && ./d; true"),
    ("c-stack-smashing", "process_signal", w("s.c", "#include <string.h>\nvoid f(const char *s) { char b[8]; "
     "strcpy(b, s); }\nint main(void) { f(\"0123456789abcdefghijklmnop\"); return 0; }\n")
     + "gcc -O0 -fstack-protector-all -Wno-stringop-overflow s.c -o s && ./s; true"),
    ("c-segfault-null", "process_signal", w("n.c", "int main(void) { volatile int *p = 0; return *p; }\n")
     + "gcc n.c -o n && ./n; true"),
    ("gdb-sigsegv", "process_signal", w("n.c", "int main(void) { volatile int *p = 0; return *p; }\n")
     + "gcc -g n.c -o n && gdb -q -batch -ex run -ex bt ./n 2>&1 | grep -v '^\\[Thread\\|^Using host'; true"),
    ("cxx-uncaught-exception", "other:uncaught_exception", w("e.cpp", "#include <stdexcept>\nint main() { "
     "throw std::runtime_error(\"checkpoint shard 2 is truncated\"); }\n") + "g++ e.cpp -o e && ./e; true"),
    ("asan-heap-overflow", "other:asan", w("h.c", "#include <stdlib.h>\nint main(void) { int *p = malloc(4 * "
     "sizeof(int)); p[4] = 1; free(p); return 0; }\n") + "gcc -g -fsanitize=address h.c -o h && ./h 2>&1 | "
     "head -30; true"),
    ("bash-killed-sigkill", "process_signal", PY + " -c 'import os, signal; os.kill(os.getpid(), signal.SIGKILL)'"
     "; true"),
    ("bash-sigbus-python", "process_signal", PY + " -c 'import os, signal; os.kill(os.getpid(), signal.SIGBUS)'"
     "; true"),
    ("python-faulthandler-abort", "process_signal", PY + " -X faulthandler -c 'import os; os.abort()'"),
    # --- Python
    ("py-ctypes-cudart12", "missing_shared_library", PY + " -c \"import ctypes; ctypes.CDLL('libcudart.so.12')\""),
    ("py-ctypes-libcuda", "missing_shared_library", PY + " -c \"import ctypes; ctypes.CDLL('libcuda.so.1')\""),
    ("py-spawn-no-guard", "spawn_main_guard_missing", w("sp.py", "import multiprocessing as mp\n"
     "def f():\n    print('child')\np = mp.get_context('spawn').Process(target=f)\np.start()\np.join()\n")
     + "timeout 20 " + PY + " sp.py; true"),
    ("py-address-in-use", "other:address_in_use", PY + " -c \"import socket\na = socket.socket(); "
     "a.bind(('127.0.0.1', 29731)); a.listen()\nb = socket.socket(); b.bind(('127.0.0.1', 29731))\""),
    # --- pip (offline)
    ("pip-setup-imports-torch", "module_not_found", w("setup.py", SETUP_TORCH)
     + "pip install --no-build-isolation --no-index . 2>&1"),
    ("pip-no-wheel-package", "extension_build_failed", w("setup.py", SETUP_PYREQ)
     + "pip install --no-build-isolation --no-index --no-deps . 2>&1"),
    ("pip-requires-python", "package_install_failed", PY + " -c \"import zipfile; z = zipfile.ZipFile("
     "'newpy-0.1-py3-none-any.whl', 'w'); z.writestr('newpy-0.1.dist-info/METADATA', 'Metadata-Version: 2.1\\n"
     "Name: newpy\\nVersion: 0.1\\nRequires-Python: >=3.99\\n'); z.writestr('newpy-0.1.dist-info/WHEEL', "
     "'Wheel-Version: 1.0\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n'); z.writestr('newpy-0.1.dist-info/RECORD', "
     "'')\" && pip install --no-index --no-deps ./newpy-0.1-py3-none-any.whl"),
    ("pip-wheel-wrong-platform", "package_install_failed", "printf 'x' > flash_attn-2.7.4-cp311-cp311-"
     "linux_aarch64.whl && pip install --no-index ./flash_attn-2.7.4-cp311-cp311-linux_aarch64.whl"),
    ("pip-no-match-wildcard", "dependency_resolution_failed", "pip install --no-index 'torch==2.*.1'"),
    ("pip-not-a-project", "package_install_failed", "mkdir proj && pip install --no-index ./proj"),
    # --- benign
    ("benign-nvcc-list-arch", "none", "nvcc --list-gpu-arch | head -5; nvcc --list-gpu-code | tail -3"),
    ("benign-nvcc-build", "none", w("k.cu", OK_CU) + "nvcc -arch=sm_90a -o k k.cu && echo built k"),
    ("benign-cmake-cuda-configure", "none", w("CMakeLists.txt", CMAKE_CUDA) + w("k.cu", OK_CU)
     + "cmake -S . -B b -DCMAKE_CUDA_ARCHITECTURES=90 -G Ninja"),
    ("benign-make-warning", "none", w("m.c", "int main(void) { int unused; return 0; }\n")
     + "printf 'm: m.c\\n\\tgcc -Wall -o m m.c\\n' > Makefile && make && ./m && echo ok"),
    ("benign-gdb-normal-exit", "none", w("x.c", "int main(void) { return 0; }\n")
     + "gcc -g x.c -o x && gdb -q -batch -ex run ./x 2>&1 | grep -v '^\\[Thread\\|^Using host'"),
    ("benign-asan-clean", "none", w("h.c", "#include <stdlib.h>\nint main(void) { int *p = malloc(16); p[3] = 1; "
     "free(p); return 0; }\n") + "gcc -fsanitize=address h.c -o h && ./h && echo 'ASan: no errors'"),
    ("benign-ptxas-sm90", "none", w("ok.ptx", WGMMA_PTX.replace("sm_80", "sm_90a")) + "ptxas -arch=sm_90a -v "
     "ok.ptx -o ok.cubin"),
    ("benign-pip-check-local", "none", "pip check 2>&1 | head -3; pip --version"),
    ("benign-grep-error-strings", "none", w("log.py", "def report(err):\n    if err:\n        raise RuntimeError("
     "'CUDA error: out of memory')\n") + "grep -n 'CUDA error' log.py; echo 'found 1 reference'"),
    ("benign-python-ctypes-cudart13", "none", PY + " -c \"import ctypes; ctypes.CDLL('/usr/local/cuda/lib64/"
     "libcudart.so.13'); print('libcudart.so.13 loaded')\""),
]


def scrub(text: str, work: str) -> str:
    """The output with the run's own paths replaced."""
    text = text.replace(work + "/", "./").replace(work, ".")
    text = re.sub(r"/root/\.pyenv/versions/[\d.]+", "/home/user/.pyenv/versions/3.11.7", text)
    text = re.sub(r"/root\b", "/home/user", text)
    return re.sub(r"/tmp/pip-[\w-]+", "/tmp/pip-build", text)


def run(name: str, label: str, shell: str) -> dict[str, str] | None:
    """Run one case in an empty directory; its record, or None when the failure was not provoked."""
    work = tempfile.mkdtemp(prefix="lh-")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}  # no site pip settings
    env.update({"LC_ALL": "C.UTF-8", "PIP_CONFIG_FILE": os.devnull, "PIP_DISABLE_PIP_VERSION_CHECK": "1",
                "PYTHONDONTWRITEBYTECODE": "1"})
    try:
        p = subprocess.run(["bash", "-c", shell], cwd=work, env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, timeout=120)
        out, rc = p.stdout.decode(errors="replace"), p.returncode
    except subprocess.TimeoutExpired:
        print(f"left out: {name} (timed out)")
        return None
    text = scrub(out, os.path.realpath(work)).strip()
    if label != "none" and rc == 0 and not shell.rstrip().endswith("true"):
        print(f"left out: {name} (rc 0)")
        return None
    if not text:
        print(f"left out: {name} (no output)")
        return None
    shown = shell if len(shell) < 600 else shell[:600] + " ..."
    return {"id": f"lh5-{name}", "label": "benign" if label == "none" else label, "source": f"command: {shown}", "text": text, "rc": str(rc)}


def main(out: str) -> int:
    """Write the batch; print what was left out."""
    with open(out, "w", encoding="utf-8") as fh:
        for name, label, shell in CASES:
            rec = run(name, label, shell)
            if rec is not None:
                print(name, label, rec.pop("rc"))
                fh.write(json.dumps(rec, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
