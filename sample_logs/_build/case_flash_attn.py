"""flash-attn-abi: an aider session — flash-attn breaks after a torch upgrade (undefined symbol),
the rebuild is OOM-killed, MAX_JOBS=4 fixes it. One transcript plus the pip build log."""

from __future__ import annotations

from typing import Any

from casefile import dump, line_of
from fmt_aider import History

DIR = "flash-attn-abi"
SP = "/home/maya/venvs/train/lib/python3.11/site-packages"
SYM = "_ZN3c105ErrorC2ENS_14SourceLocationENSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE"
PIP_TMP = "/tmp/pip-install-k2j9x0qz/flash-attn_5b0a0b6c8f0e4f34a1b3f47d2a1c9e11"
BUILD = f"{PIP_TMP}/build/temp.linux-x86_64-cpython-311/csrc/flash_attn"

IMPORT_TB = f"""Traceback (most recent call last):
  File "/home/maya/tinyllm/train.py", line 14, in <module>
    from flash_attn import flash_attn_func
  File "{SP}/flash_attn/__init__.py", line 3, in <module>
    from flash_attn.flash_attn_interface import (
  File "{SP}/flash_attn/flash_attn_interface.py", line 15, in <module>
    import flash_attn_2_cuda as flash_attn_gpu
ImportError: {SP}/flash_attn_2_cuda.cpython-311-x86_64-linux-gnu.so: undefined symbol: {SYM}"""


def _nvcc(src: str) -> str:
    return (f"/usr/local/cuda/bin/nvcc  -I{PIP_TMP}/csrc/flash_attn -I{PIP_TMP}/csrc/flash_attn/src "
            f"-I{PIP_TMP}/csrc/cutlass/include -I{SP}/torch/include -I{SP}/torch/include/torch/csrc/api/include "
            f"-I/usr/local/cuda/include -I/home/maya/venvs/train/include -I/usr/include/python3.11 -c -c "
            f"{PIP_TMP}/csrc/flash_attn/src/{src}.cu -o {BUILD}/src/{src}.o -D__CUDA_NO_HALF_OPERATORS__ "
            "-D__CUDA_NO_HALF_CONVERSIONS__ -D__CUDA_NO_BFLOAT16_CONVERSIONS__ -D__CUDA_NO_HALF2_OPERATORS__ "
            "--expt-relaxed-constexpr --compiler-options ''\"'\"'-fPIC'\"'\"'' -O3 -std=c++17 -U__CUDA_NO_HALF_OPERATORS__ "
            "-U__CUDA_NO_HALF_CONVERSIONS__ -U__CUDA_NO_HALF2_OPERATORS__ -U__CUDA_NO_BFLOAT16_CONVERSIONS__ "
            "--expt-extended-lambda --use_fast_math -gencode arch=compute_80,code=sm_80 "
            "-gencode arch=compute_90,code=sm_90 --threads 4 -DTORCH_API_INCLUDE_EXTENSION_H "
            "-DTORCH_EXTENSION_NAME=flash_attn_2_cuda -D_GLIBCXX_USE_CXX11_ABI=1 -ccbin /usr/bin/gcc")


# The build failure: ninja -j 32 on a 64 GB box. The two "Killed" lines are the documented shapes:
# "c++: fatal error: Killed signal terminated program cc1plus" / "compilation terminated." were
# produced here by SIGKILLing cc1plus; the cicc line is the shape NVIDIA's nvcc prints (public issues).
BUILD_LOG = f"""Collecting flash-attn
  Downloading flash_attn-2.7.4.post1.tar.gz (6.0 MB)
     ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━ 6.0/6.0 MB 41.2 MB/s eta 0:00:00
  Preparing metadata (setup.py): started
  Preparing metadata (setup.py): finished with status 'done'
Requirement already satisfied: torch in {SP} (from flash-attn) (2.6.0+cu124)
Requirement already satisfied: einops in {SP} (from flash-attn) (0.8.1)
Building wheels for collected packages: flash-attn
  Building wheel for flash-attn (setup.py): started
  Building wheel for flash-attn (setup.py): still running...
  Building wheel for flash-attn (setup.py): still running...
  Building wheel for flash-attn (setup.py): finished with status 'error'
  error: subprocess-exited-with-error

  × python setup.py bdist_wheel did not run successfully.
  │ exit code: 1
  ╰─> [212 lines of output]

      torch.__version__  = 2.6.0+cu124


      running bdist_wheel
      Guessing wheel URL:  https://github.com/Dao-AILab/flash-attention/releases/download/v2.7.4.post1/flash_attn-2.7.4.post1+cu12torch2.6cxx11abiTRUE-cp311-cp311-linux_x86_64.whl
      Precompiled wheel not found. Building from source...
      running build
      running build_py
      copying flash_attn/__init__.py -> build/lib.linux-x86_64-cpython-311/flash_attn
      running build_ext
      building 'flash_attn_2_cuda' extension
      Emitting ninja build file {BUILD}/build.ninja...
      Compiling objects...
      Allowing ninja to set a default number of workers... (overridable by setting the environment variable MAX_JOBS=N)
      [1/73] {_nvcc("flash_bwd_hdim32_bf16_causal_sm80")}
      [2/73] {_nvcc("flash_bwd_hdim32_fp16_sm80")}
      [31/73] {_nvcc("flash_fwd_hdim160_bf16_sm80")}
      [32/73] c++ -MMD -MF {BUILD}/flash_api.o.d -pthread -B /home/maya/venvs/train/compiler_compat -fno-strict-overflow -Wsign-compare -DNDEBUG -g -O2 -Wall -fPIC -I{PIP_TMP}/csrc/flash_attn -I{PIP_TMP}/csrc/cutlass/include -I{SP}/torch/include -I/usr/local/cuda/include -I/usr/include/python3.11 -c -c {PIP_TMP}/csrc/flash_attn/flash_api.cpp -o {BUILD}/flash_api.o -O3 -std=c++17 -DTORCH_API_INCLUDE_EXTENSION_H -DTORCH_EXTENSION_NAME=flash_attn_2_cuda -D_GLIBCXX_USE_CXX11_ABI=1
      FAILED: {BUILD}/flash_api.o
      c++ -MMD -MF {BUILD}/flash_api.o.d -pthread -B /home/maya/venvs/train/compiler_compat -fno-strict-overflow -Wsign-compare -DNDEBUG -g -O2 -Wall -fPIC -I{PIP_TMP}/csrc/flash_attn -I{PIP_TMP}/csrc/cutlass/include -I{SP}/torch/include -I/usr/local/cuda/include -I/usr/include/python3.11 -c -c {PIP_TMP}/csrc/flash_attn/flash_api.cpp -o {BUILD}/flash_api.o -O3 -std=c++17 -DTORCH_API_INCLUDE_EXTENSION_H -DTORCH_EXTENSION_NAME=flash_attn_2_cuda -D_GLIBCXX_USE_CXX11_ABI=1
      c++: fatal error: Killed signal terminated program cc1plus
      compilation terminated.
      [33/73] {_nvcc("flash_bwd_hdim256_bf16_causal_sm80")}
      FAILED: {BUILD}/src/flash_bwd_hdim256_bf16_causal_sm80.o
      {_nvcc("flash_bwd_hdim256_bf16_causal_sm80")}
      nvcc error   : 'cicc' died due to signal 9 (Kill signal)
      ninja: build stopped: subcommand failed.
      Traceback (most recent call last):
        File "{SP}/torch/utils/cpp_extension.py", line 2480, in _run_ninja_build
          subprocess.run(
        File "/usr/lib/python3.11/subprocess.py", line 571, in run
          raise CalledProcessError(retcode, process.args,
      subprocess.CalledProcessError: Command '['ninja', '-v']' returned non-zero exit status 1.

      The above exception was the direct cause of the following exception:

      Traceback (most recent call last):
        File "<string>", line 2, in <module>
        File "<pip-setuptools-caller>", line 34, in <module>
        File "{PIP_TMP}/setup.py", line 526, in <module>
          setup(
        File "{SP}/torch/utils/cpp_extension.py", line 1046, in build_extensions
          _write_ninja_file_and_compile_objects(
        File "{SP}/torch/utils/cpp_extension.py", line 2160, in _write_ninja_file_and_compile_objects
          _run_ninja_build(
        File "{SP}/torch/utils/cpp_extension.py", line 2496, in _run_ninja_build
          raise RuntimeError(message) from e
      RuntimeError: Error compiling objects for extension
      [end of output]

  note: This error originates from a subprocess, and is likely not a problem with pip.
  ERROR: Failed building wheel for flash-attn
  Running setup.py clean for flash-attn
Failed to build flash-attn
ERROR: Failed to build installable wheels for some pyproject.toml based projects (flash-attn)
"""

OOM_PASTE = """ran it in tmux (`pip install flash-attn --no-build-isolation 2>&1 | tee pip-build.log`). the box froze for ~15 min, then:

      c++: fatal error: Killed signal terminated program cc1plus
      compilation terminated.
      [33/73] /usr/local/cuda/bin/nvcc ... flash_bwd_hdim256_bf16_causal_sm80.cu ...
      FAILED: .../csrc/flash_attn/src/flash_bwd_hdim256_bf16_causal_sm80.o
      nvcc error   : 'cicc' died due to signal 9 (Kill signal)
      ninja: build stopped: subcommand failed.
      ...
      RuntimeError: Error compiling objects for extension
  ERROR: Failed building wheel for flash-attn

dmesg: Out of memory: Killed process 211873 (cicc) total-vm:9126412kB, anon-rss:6143220kB, file-rss:0kB
it's a 32-core box with 64 GB"""

README_OLD = """## Setup

```bash
python -m venv ~/venvs/train && . ~/venvs/train/bin/activate
pip install -r requirements.txt
pip install flash-attn --no-build-isolation
```"""
README_NEW = """## Setup

```bash
python -m venv ~/venvs/train && . ~/venvs/train/bin/activate
pip install -r requirements.txt
MAX_JOBS=4 pip install flash-attn --no-build-isolation
```

flash-attn is a compiled extension tied to the exact torch build. After any torch upgrade,
rebuild it (`pip uninstall -y flash-attn && MAX_JOBS=4 pip install flash-attn --no-build-isolation`),
otherwise `import flash_attn` fails with `undefined symbol: _ZN3c10...`. Keep `MAX_JOBS` low:
each nvcc job can take 5-6 GB of RAM and the default (one per core) gets OOM-killed on 64 GB."""


def build() -> History:
    h = History()
    h.header("2026-02-27 16:41:09", ["/home/maya/.local/bin/aider --model anthropic/claude-sonnet-4-5",
                                     "Aider v0.86.1",
                                     "Main model: anthropic/claude-sonnet-4-5 with diff edit format, infinite output",
                                     "Weak model: anthropic/claude-haiku-4-5",
                                     "Git repo: .git with 86 files",
                                     "Repo-map: using 4096 tokens, auto refresh"])
    h.user("after bumping torch to 2.6 (`pip install -U torch torchvision`) training dies on import:\n\n"
           + IMPORT_TB, "paste_abi")
    h.assistant("That `undefined symbol` is a C++ ABI mismatch, not a bug in your code. `flash_attn_2_cuda` is a "
                "compiled extension built against the torch you had before (2.4); the mangled name demangles to "
                "`c10::Error::Error(c10::SourceLocation, std::string)`, whose signature in libc10 changed with "
                "torch 2.6, so the old binary can't find it.\n\n"
                "Rebuild flash-attn against the torch that is installed now. `--no-build-isolation` makes the "
                "build use your torch 2.6.0+cu124 instead of fetching some other torch into an isolated build env:\n\n"
                "```bash\npip uninstall -y flash-attn\npip install flash-attn --no-build-isolation\n```\n\n"
                "The build compiles ~70 CUDA files and can take a while.", "explain_abi")
    h.declined("pip uninstall -y flash-attn\npip install flash-attn --no-build-isolation", "declined")
    h.user(OOM_PASTE, "paste_oom")
    h.assistant("The compilers were killed by the kernel's OOM killer (`Killed signal terminated program "
                "cc1plus`, `'cicc' died due to signal 9`, and the dmesg line confirm it). torch's extension "
                "builder lets ninja run one job per core when `MAX_JOBS` is unset: 32 parallel nvcc jobs, each "
                "with `--threads 4` and 5-6 GB per cicc process, is far more than 64 GB.\n\n"
                "Limit the parallelism:\n\n```bash\nMAX_JOBS=4 pip install flash-attn --no-build-isolation\n```\n\n"
                "It will take longer (probably 30-45 minutes) but stays well under your RAM.", "explain_oom")
    h.approved("MAX_JOBS=4 pip install flash-attn --no-build-isolation",
               ["Add command output to the chat? (Y)es/(N)o/(D)on't ask again [Yes]: y",
                "Added 9 lines of output to the chat."], "rebuild")
    h.assistant("The build finished this time: `Successfully built flash-attn` and `Successfully installed "
                "flash-attn-2.7.4.post1` after about 38 minutes. Let's confirm the extension loads with the new "
                "torch:\n\n```bash\npython -c \"import torch, flash_attn, flash_attn_2_cuda; "
                "print(torch.__version__, flash_attn.__version__)\"\n```", "built")
    h.approved('python -c "import torch, flash_attn, flash_attn_2_cuda; print(torch.__version__, '
               'flash_attn.__version__)"',
               ["Add command output to the chat? (Y)es/(N)o/(D)on't ask again [Yes]: y",
                "Added 1 line of output to the chat."], "verify")
    h.assistant("`2.6.0+cu124 2.7.4.post1`: flash-attn now imports cleanly against torch 2.6, so `train.py` "
                "should start again.", "verified")
    h.user("works, training is running. add a note to the README so I don't hit this again next time torch "
           "changes", "ask_readme")
    h.assistant("README.md\n```markdown\n<<<<<<< SEARCH\n" + README_OLD + "\n=======\n" + README_NEW
                + "\n>>>>>>> REPLACE\n```", "edit_readme")
    h.quote(["Applied edit to README.md",
             "Commit 7d41c2e docs: Note to rebuild flash-attn with MAX_JOBS=4 after torch upgrades",
             "You can use /undo to undo and discard each aider commit."], "applied")
    return h


def files() -> dict[str, str]:
    h = build()
    md = h.text()
    return {f"{DIR}/.aider.chat.history.md": md, f"{DIR}/pip-build.log": BUILD_LOG,
            f"{DIR}/case.yaml": dump(case(h, md))}


def case(h: History, md: str) -> dict[str, Any]:
    def ev(key: str) -> Any:
        return next(e for e in h.evs if e.key == key)

    def at(key: str) -> dict[str, int]:
        return {"aider": ev(key).seq}

    def line(needle: str) -> dict[str, int]:
        return {"aider": line_of(md, needle), "pip-build-log": line_of(BUILD_LOG, needle)}

    return {
        "case": "flash-attn-abi",
        "description": "aider session: flash-attn fails to import after a torch 2.4 -> 2.6 upgrade (undefined "
                       "c10 symbol); rebuilding it from source is OOM-killed (cc1plus / cicc killed by signal 9) "
                       "until MAX_JOBS=4. The user runs the first build outside aider and pastes the errors.",
        "files": {"aider": ".aider.chat.history.md", "pip-build-log": "pip-build.log"},
        "events": {"aider": len(h.evs)},
        "tool_calls": {"aider": sum(1 for e in h.evs if e.kind == "tool_call")},
        "goal": "Get train.py running again after upgrading torch to 2.6 (flash-attn import fails).",
        "chain": [
            {"category": "undefined_symbol_abi_mismatch", "pattern_hint": f"undefined symbol: {SYM}",
             "first_seq": at("paste_abi"), "first_line": {"aider": line_of(md, "undefined symbol: _ZN3c10")},
             "revealed_by": {"kind": "upgrade", "subject": "torch", "value": "2.6.0+cu124", "seq": None,
                             "note": "done before the session; the user says so"},
             "resolved_by": {"kind": "build", "subject": "flash-attn", "value": "--no-build-isolation",
                             "seq": {"aider": ev("rebuild:call").seq}}},
            {"category": "build_oom_killed", "pattern_hint": "Killed signal terminated program cc1plus",
             "also": ["nvcc error   : 'cicc' died due to signal 9 (Kill signal)",
                      "extension_build_failed: Failed building wheel for flash-attn (the wrapper, not the cause)"],
             "first_seq": at("paste_oom"),
             "first_line": line("Killed signal terminated program cc1plus"),
             "revealed_by": {"kind": "build", "subject": "flash-attn", "value": "--no-build-isolation",
                             "seq": {"aider": ev("explain_abi").seq},
                             "note": "suggested in this reply, run by the user in tmux"},
             "resolved_by": {"kind": "env_set", "subject": "MAX_JOBS", "value": "4",
                             "seq": {"aider": ev("rebuild:call").seq}}},
        ],
        "success": {"pattern_hint": "Successfully installed flash-attn-2.7.4.post1", "first_seq": at("built")},
        "catch22": [],
        "pivots": [],
        "outcome": "resolved",
        "recipe": ["pip uninstall -y flash-attn", "MAX_JOBS=4 pip install flash-attn --no-build-isolation"],
        "facts": [
            "flash_attn_2_cuda built for torch 2.4 does not load under torch 2.6.0+cu124 (undefined c10::Error symbol)",
            "no prebuilt flash-attn 2.7.4.post1 wheel matched (cu12, torch2.6, cxx11abiTRUE): built from source",
            "with MAX_JOBS unset ninja ran one job per core (32) and the OOM killer killed cicc and cc1plus on 64 GB",
            "MAX_JOBS=4 builds flash-attn 2.7.4.post1 in about 38 minutes",
        ],
        "hedged_claims": [{"seq": {"aider": ev("explain_oom").seq},
                           "text": "It will take longer (probably 30-45 minutes)", "held": True}],
        "expected_text": {
            "paste_abi": {"seq": at("paste_abi"), "contains": "undefined symbol: _ZN3c105Error"},
            "paste_oom": {"seq": at("paste_oom"), "contains": "'cicc' died due to signal 9"},
            "rebuild": {"seq": {"aider": ev("rebuild:call").seq}, "contains": "MAX_JOBS=4 pip install flash-attn"},
        },
        "invented": "All of it: the project, paths, pids, build-log lines and timings are written for this sample.",
        "real": ["`c++: fatal error: Killed signal terminated program cc1plus` / `compilation terminated.`: produced "
                 "here by SIGKILLing cc1plus during a g++ 12 compile",
                 "`nvcc error   : 'cicc' died due to signal 9 (Kill signal)`: shape from public issue threads "
                 "(here nvcc 13.0 printed only `Killed` when cicc was killed)",
                 "the aider markdown shape follows a real aider v0.86.1 history (banner, `> ` and `#### ` lines "
                 "ending in two spaces)"],
    }
