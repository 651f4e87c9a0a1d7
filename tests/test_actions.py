"""actions: real command lines (the seeds' ssh/pct commands included) -> actions, versions from outputs."""

from __future__ import annotations

from typing import Any

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from logsleuth.actions import call_outcomes, commands, drafts_for_call, extract_actions
from logsleuth.actions.extract import shell_drafts
from logsleuth.ingest.base import EventSink
from logsleuth.model import Action, ActionKind

K = ActionKind

SEED_DOWNGRADE = (
    'ssh -o ConnectTimeout=10 root@10.1.2.6 "pct exec 200 -- bash -c \'export PATH=/root/.local/bin:\\$PATH && '
    'uv pip install --python /root/venv/bin/python3 \\"nvidia-cuda-nvcc<13.1\\" 2>&1 | tail -5\'" 2>&1'
)
SEED_FIND = (
    'ssh -o ConnectTimeout=10 root@10.1.2.6 "pct exec 200 -- bash -c \'ls '
    "/root/venv/lib/python3.12/site-packages/flashinfer_python*.dist-info/ 2>/dev/null; find "
    '/root/venv/lib/python3.12/site-packages/flashinfer* -name \\"*.cubin\\" 2>/dev/null | head -5; find '
    '/root/venv/lib/python3.12/site-packages/flashinfer* -name \\"*120*\\" 2>/dev/null | head -5\'"'
)
UV_DOWNGRADE_OUT = """Resolved 1 package in 312ms
Uninstalled 1 package in 4ms
Installed 1 package in 11ms
 - nvidia-cuda-nvcc==13.2.78
 + nvidia-cuda-nvcc==13.0.88
"""
UV_NO_SOLUTION = """  × No solution found when resolving dependencies:
  ╰─▶ Because there is no version of nvidia-cuda-nvcc==13.0.26 and you require nvidia-cuda-nvcc==13.0.26, we
      can conclude that your requirements are unsatisfiable.
"""


def wrap(cmd: str) -> str:
    """The seeds' wrapping: ssh -> pct exec -> bash -c, with the quoting an agent types."""
    inner = cmd.replace("\\", "\\\\").replace('"', '\\"').replace("$", "\\$").replace("'", "'\\\\''")
    return f"ssh -o ConnectTimeout=10 root@10.1.2.6 \"pct exec 200 -- bash -c '{inner}'\" 2>&1"


def frame(*calls: Any, session: str = "s1") -> pl.DataFrame:
    """Events for (tool, text[, result text[, is_error]]) calls, each call followed by its result."""
    sink = EventSink(session, "session.jsonl")
    sink.add(line=1, role="user", kind="text", text="bring up sglang")
    for i, call in enumerate(calls):
        tool, text, *rest = call
        sink.add(line=10 + 2 * i, role="assistant", kind="tool_call", tool=tool, call_id=f"c{i}", text=text,
                 ts="2026-01-02T03:04:05Z")
        if rest:
            err = rest[1] if len(rest) > 1 else None
            sink.add(line=11 + 2 * i, role="tool", kind="tool_result", call_id=f"c{i}", text=rest[0], is_error=err)
    return sink.frame()


def run(cmd: str, out: str | None = None, tool: str = "Bash") -> list[Action]:
    return extract_actions(frame((tool, cmd, out) if out is not None else (tool, cmd)))


def kinds(actions: list[Action]) -> list[tuple[str, str, str | None]]:
    return [(a.kind.value, a.subject, a.value) for a in actions]


# ---------------------------------------------------------------- the seeds


def test_seed_downgrade_command() -> None:
    acts = run(SEED_DOWNGRADE, UV_DOWNGRADE_OUT)
    assert kinds(acts) == [("env_set", "PATH", "/root/.local/bin:$PATH"), ("downgrade", "nvidia-cuda-nvcc", "<13.1")]
    nvcc = acts[1]
    assert (nvcc.resolved, nvcc.previous) == ("13.0.88", "13.2.78")
    assert nvcc.command == "uv pip install --python /root/venv/bin/python3 'nvidia-cuda-nvcc<13.1'"
    assert nvcc.raw == SEED_DOWNGRADE and nvcc.seq == 1 and nvcc.line == 10 and nvcc.source == "session.jsonl"
    assert nvcc.ts is not None and nvcc.session == "s1"


def test_seed_find_is_investigation_only() -> None:
    acts = run(SEED_FIND, "flashinfer/data/cubin/sm100f/x.cubin\n")
    assert [a.kind for a in acts] == [K.INVESTIGATE] * 3
    assert [a.subject for a in acts] == ["ls", "find", "find"]
    assert acts[1].value == "/root/venv/lib/python3.12/site-packages/flashinfer* -name *.cubin"


def test_seed_exact_pin_without_solution_stays_unresolved() -> None:
    cmd = wrap('export PATH=/root/.local/bin:$PATH && uv pip install --python /root/venv/bin/python3 "nvidia-cuda-nvcc==13.0.26"')
    acts = run(cmd, UV_NO_SOLUTION)
    assert kinds(acts)[1] == ("pin", "nvidia-cuda-nvcc", "==13.0.26")
    assert acts[1].resolved is None


def test_previous_version_from_earlier_actions() -> None:
    events = frame(
        ("Bash", wrap("/root/venv/bin/pip install nvidia-cuda-nvcc"), "Successfully installed nvidia-cuda-nvcc-13.2.78\n"),
        ("Bash", SEED_DOWNGRADE, "Installed 1 package in 11ms\n + nvidia-cuda-nvcc==13.0.88\n"),  # `- old` cut by tail
        ("Bash", wrap('uv pip install --python /root/venv/bin/python3 "nvidia-cuda-nvcc>=13.2"'),
         " - nvidia-cuda-nvcc==13.0.88\n + nvidia-cuda-nvcc==13.2.78\n"),
    )
    acts = [a for a in extract_actions(events) if a.subject == "nvidia-cuda-nvcc"]
    assert [(a.kind, a.resolved, a.previous) for a in acts] == [
        (K.INSTALL, "13.2.78", None),
        (K.DOWNGRADE, "13.0.88", "13.2.78"),
        (K.UPGRADE, "13.2.78", "13.0.88"),
    ]
    assert [a.seq for a in acts] == [1, 3, 5]


# ---------------------------------------------------------------- packages


PIP_OUT = """Collecting torch==2.5.1
  Attempting uninstall: torch
    Found existing installation: torch 2.6.0
    Uninstalling torch-2.6.0:
      Successfully uninstalled torch-2.6.0
Successfully installed flashinfer-python-0.2.5 sglang-0.4.6.post1 torch-2.5.1
"""


def test_pip_multi_package_with_output() -> None:
    acts = run('pip install -U torch==2.5.1 "sglang[all]>=0.4.6" flashinfer_python --extra-index-url https://x/whl', PIP_OUT)
    got = [(a.kind, a.subject, a.value, a.resolved, a.previous) for a in acts]
    assert got == [
        (K.DOWNGRADE, "torch", "==2.5.1", "2.5.1", "2.6.0"),
        (K.UPGRADE, "sglang", "[all]>=0.4.6", "0.4.6.post1", None),
        (K.UPGRADE, "flashinfer-python", None, "0.2.5", None),
    ]


@pytest.mark.parametrize(
    ("cmd", "expected"),
    [
        ("pip install nvidia-cuda-nvcc", [("install", "nvidia-cuda-nvcc", None)]),
        ("pip3 install 'numpy<2'", [("pin", "numpy", "<2")]),
        ("python -m pip install Flash_Attn==2.7.4.post1", [("pin", "flash-attn", "==2.7.4.post1")]),
        ("python3 -m pip install --upgrade pip", [("upgrade", "pip", None)]),
        ("/root/venv/bin/python -m pip install zope.interface~=6.0", [("pin", "zope-interface", "~=6.0")]),
        ("/root/venv/bin/python3.12 -u -m pip install 'triton!=3.2.0'", [("pin", "triton", "!=3.2.0")]),
        ("uv pip install --system -U vllm", [("upgrade", "vllm", None)]),
        ("uv pip install -p /root/venv/bin/python 'torch>=2.5' torchvision",
         [("install", "torch", ">=2.5"), ("install", "torchvision", None)]),
        ("uv add 'sglang[all]'", [("install", "sglang", "[all]")]),
        ("uv remove flashinfer-python", [("uninstall", "flashinfer-python", None)]),
        ("pip uninstall -y flash-attn flashinfer-python",
         [("uninstall", "flash-attn", None), ("uninstall", "flashinfer-python", None)]),
        ("conda install -c nvidia -y cuda-nvcc=12.4", [("pin", "cuda-nvcc", "=12.4")]),
        ("mamba install -y -c conda-forge 'nvidia/label/cuda-12.4.0::cuda-toolkit'", [("install", "cuda-toolkit", None)]),
        ("micromamba remove -y cudatoolkit", [("uninstall", "cudatoolkit", None)]),
        ("conda update -y pytorch", [("upgrade", "pytorch", None)]),
        ("apt-get install -y -qq ninja-build build-essential",
         [("install", "ninja-build", None), ("install", "build-essential", None)]),
        ("sudo apt install -y cuda-toolkit-12-8 libnccl2=2.21.5-1+cuda12.4",
         [("install", "cuda-toolkit-12-8", None), ("pin", "libnccl2", "=2.21.5-1+cuda12.4")]),
        ("apt-get remove -y --purge nvidia-cuda-toolkit", [("uninstall", "nvidia-cuda-toolkit", None)]),
        ("brew install cmake", [("install", "cmake", None)]),
        ("pip install -r requirements.txt", [("install", "requirements.txt", None)]),
        ("uv pip install -r /root/sglang/python/requirements-cu12.txt",
         [("install", "/root/sglang/python/requirements-cu12.txt", None)]),
        ("pip install git+https://github.com/flashinfer-ai/flashinfer.git@v0.2.5",
         [("install", "flashinfer", "git+https://github.com/flashinfer-ai/flashinfer.git@v0.2.5")]),
        ("pip install 'git+https://github.com/org/repo.git#egg=My_Pkg&subdirectory=python'",
         [("install", "my-pkg", "git+https://github.com/org/repo.git#egg=My_Pkg&subdirectory=python")]),
        ("pip install https://github.com/x/y/releases/download/v0.2.5/flashinfer_python-0.2.5-cp39-abi3-linux_x86_64.whl",
         [("install", "flashinfer-python",
           "https://github.com/x/y/releases/download/v0.2.5/flashinfer_python-0.2.5-cp39-abi3-linux_x86_64.whl")]),
        ("pip install 'flashinfer @ git+https://github.com/flashinfer-ai/flashinfer'",
         [("install", "flashinfer", "@ git+https://github.com/flashinfer-ai/flashinfer")]),
        ("cd /root/sglang && pip install -e 'python[all]'", [("install", "sglang/python", "python[all]")]),
        ("cd /root/flashinfer && pip install --no-build-isolation -e .", [("install", "flashinfer", ".")]),
        ("pip install -e /opt/vllm", [("install", "vllm", "/opt/vllm")]),
        ("pip install 'torch==2.5.1+cu124' --index-url https://download.pytorch.org/whl/cu124",
         [("pin", "torch", "==2.5.1+cu124")]),
        ("pip install 'numpy>=1.26; python_version>=\"3.10\"'", [("install", "numpy", ">=1.26")]),
    ],
)
def test_package_commands(cmd: str, expected: list[tuple[str, str, str | None]]) -> None:
    assert kinds(run(cmd)) == expected
    assert kinds(run(wrap(cmd))) == expected  # the same through ssh / pct exec / bash -c


@pytest.mark.parametrize(
    ("cmd", "out", "resolved", "previous", "kind"),
    [
        ("pip install torch", "Requirement already satisfied: torch in /root/venv/lib/python3.12/site-packages (2.5.1)\n",
         "2.5.1", "2.5.1", K.INSTALL),
        ("pip install nvidia-nccl-cu12==9.9", "ERROR: Could not find a version that satisfies the requirement "
         "nvidia-nccl-cu12==9.9\nERROR: No matching distribution found for nvidia-nccl-cu12==9.9\n", None, None, K.PIN),
        ("pip uninstall -y flash-attn", "Found existing installation: flash_attn 2.7.4\nUninstalling flash_attn-2.7.4:\n"
         "  Successfully uninstalled flash_attn-2.7.4\n", None, "2.7.4", K.UNINSTALL),
        ("conda install -y -c nvidia cuda-nvcc", "The following NEW packages will be INSTALLED:\n\n"
         "  cuda-nvcc          nvidia/linux-64::cuda-nvcc-12.4.131-0\n", "12.4.131", None, K.INSTALL),
        ("conda install -y cuda-nvcc=12.1", "The following packages will be DOWNGRADED:\n\n"
         "  cuda-nvcc                             12.4.131-0 --> 12.1.105-0\n", "12.1.105", "12.4.131", K.DOWNGRADE),
        ("apt-get install -y ninja-build", "Unpacking ninja-build (1.11.1-1) ...\nSetting up ninja-build (1.11.1-1) ...\n",
         "1.11.1-1", None, K.INSTALL),
        ("apt-get install -y ninja-build", "ninja-build is already the newest version (1.10.1-1).\n",
         "1.10.1-1", "1.10.1-1", K.INSTALL),
        ("uv pip install 'nvidia-cudnn-cu12==9.1.0.70'", "Resolved 1 package\n ~ nvidia-cudnn-cu12==9.1.0.70\n",
         "9.1.0.70", None, K.PIN),
        ("pip install ./dist/flash_attn-2.7.4.post1-cp312-cp312-linux_x86_64.whl", "Processing ./dist/x.whl\n",
         "2.7.4.post1", None, K.INSTALL),
    ],
)
def test_versions_from_output(cmd: str, out: str, resolved: str | None, previous: str | None, kind: ActionKind) -> None:
    (a,) = run(cmd, out)
    assert (a.resolved, a.previous, a.kind) == (resolved, previous, kind)


def test_failed_output_leaves_every_package_unresolved() -> None:
    out = UV_NO_SOLUTION + " + other==1.0\n"
    acts = run("uv pip install nvidia-cu13>=13.2 other", out)
    assert [a.resolved for a in acts] == [None, None]


# ---------------------------------------------------------------- environment


@pytest.mark.parametrize(
    ("cmd", "expected"),
    [
        ('export CUDA_HOME=/usr/local/cuda-13.0 LD_LIBRARY_PATH="/root/venv/lib/python3.12/site-packages/nvidia/cu13/lib:$LD_LIBRARY_PATH"',
         [("env_set", "CUDA_HOME", "/usr/local/cuda-13.0"),
          ("env_set", "LD_LIBRARY_PATH", "/root/venv/lib/python3.12/site-packages/nvidia/cu13/lib:$LD_LIBRARY_PATH")]),
        ("export PATH=/usr/local/cuda/bin:$PATH", [("env_set", "PATH", "/usr/local/cuda/bin:$PATH")]),
        ("export TORCH_CUDA_ARCH_LIST='12.0+PTX'", [("env_set", "TORCH_CUDA_ARCH_LIST", "12.0+PTX")]),
        ("unset CUDA_VISIBLE_DEVICES NCCL_P2P_DISABLE",
         [("env_unset", "CUDA_VISIBLE_DEVICES", None), ("env_unset", "NCCL_P2P_DISABLE", None)]),
        ("source /root/venv/bin/activate", [("env_activate", "/root/venv", None)]),
        (". .venv/bin/activate && which python", [("env_activate", ".venv", None), ("investigate", "which", "python")]),
        ("conda activate sgl", [("env_activate", "sgl", "conda")]),
        ("FLASHINFER_DISABLE_VERSION_CHECK=1 VLLM_USE_V1=0 python gen.py --n 10",
         [("env_set", "FLASHINFER_DISABLE_VERSION_CHECK", "1"), ("env_set", "VLLM_USE_V1", "0"),
          ("run", "gen.py", "--n 10")]),
        ("env NCCL_P2P_DISABLE=1 SGLANG_DISABLE_CUDNN_CHECK=1 python3 bench.py",
         [("env_set", "NCCL_P2P_DISABLE", "1"), ("env_set", "SGLANG_DISABLE_CUDNN_CHECK", "1"), ("run", "bench.py", None)]),
        ("sudo -E env CUDA_HOME=/usr/local/cuda make -j8",
         [("env_set", "CUDA_HOME", "/usr/local/cuda"), ("build", ".", "make")]),
        ("MAX_JOBS=4 pip install flash-attn --no-build-isolation",
         [("env_set", "MAX_JOBS", "4"), ("install", "flash-attn", None)]),
        ("x=1; export", [("investigate", "export", None)]),  # lower-case shell variable: not the environment
        ("\"CUDA_HOME=1\" ls", [("run", "CUDA_HOME=1", "ls")]),  # a quoted word is not an assignment
    ],
)
def test_environment(cmd: str, expected: list[tuple[str, str, str | None]]) -> None:
    assert kinds(run(cmd)) == expected


def test_docker_exec_env_and_wrappers() -> None:
    cmd = ("docker exec -it -e CUDA_HOME=/usr/local/cuda sglang bash -lc "
           "\"pip install 'flashinfer-python==0.2.5' -i https://flashinfer.ai/whl/cu124/torch2.5\"")
    assert kinds(run(cmd)) == [("env_set", "CUDA_HOME", "/usr/local/cuda"), ("pin", "flashinfer-python", "==0.2.5")]


@pytest.mark.parametrize(
    "cmd",
    [
        "kubectl exec -n infer sglang-0 -c server -- pip install -U sglang",
        "sudo -u ubuntu -H pip install -U sglang",
        "timeout 600 pip install -U sglang 2>&1 | tail -3",
        "timeout -s KILL 60 bash -c 'pip install -U sglang'",
        "ssh -p 2222 -i ~/.ssh/id_ed25519 -tt ubuntu@gpu-box 'cd /srv && pip install -U sglang'",
        "ssh gpu-box pip install -U sglang",
        "pct exec 200 -- pip install -U sglang",
        "docker run --rm --gpus all -v /models:/models -e HF_TOKEN=x lmsysorg/sglang:latest pip install -U sglang",
        "(cd /tmp && pip install -U sglang) > /tmp/pip.log 2>&1",
        "uv run --with sglang python -m pip install -U sglang",
        "set -euo pipefail; if ! pip install -U sglang; then echo failed; fi",
        "for i in 1; do pip install -U sglang; done",
        "nohup sh -c \"sudo bash -c 'pip install -U sglang'\" &",
        'bash -c "bash -c \\"pip install -U sglang\\""',
        "# install it\npip install -U sglang  # comment",
        "PIP=/root/venv/bin/pip; $PIP install -U sglang",
    ],
)
def test_wrappers_unwrap_to_the_install(cmd: str) -> None:
    acts = [a for a in run(cmd) if a.kind.is_fix and a.kind is not K.ENV_SET]
    assert [(a.kind, a.subject) for a in acts] == [(K.UPGRADE, "sglang")]


def test_heredoc_bodies_are_not_commands() -> None:
    cmd = "cat > /root/setup.sh <<'EOF'\npip install evil-package\nexport X=1\nEOF\nbash /root/setup.sh"
    assert kinds(run(cmd)) == [("file_edit", "/root/setup.sh", "write 2 lines"), ("run", "bash", "/root/setup.sh")]


# ---------------------------------------------------------------- launches


LAUNCH_1 = ("CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7 nohup python -m sglang.launch_server --model-path /models/Qwen3-32B "
            "--tp 8 --host 0.0.0.0 --port 30000 --attention-backend triton --mem-fraction-static 0.85 "
            "> /tmp/sglang.log 2>&1 &")
LAUNCH_2 = ("nohup python3 -m sglang.launch_server --model-path=/models/Qwen3-32B --tp-size 8 --port 30000 "
            "--attention-backend=flashinfer --mem_fraction_static 0.8 --disable-cuda-graph > /tmp/sglang.log 2>&1 &")
LAUNCH_3 = ("python3 -m sglang.launch_server --model-path /models/Qwen3-32B --tensor-parallel-size 8 --port 30000 "
            "--attention-backend flashinfer --mem-fraction-static 0.8")


def test_launch_flag_diffs() -> None:
    acts = extract_actions(frame(("Bash", wrap(LAUNCH_1)), ("Bash", wrap(LAUNCH_2)), ("Bash", LAUNCH_3)))
    by_seq: dict[int, list[tuple[str, str, str | None, str | None]]] = {}
    for a in acts:
        by_seq.setdefault(a.seq, []).append((a.kind.value, a.subject, a.value, a.previous))
    assert by_seq[1] == [
        ("env_set", "CUDA_VISIBLE_DEVICES", "0,1,2,3,4,5,6,7", None),
        ("launch", "sglang", "/models/Qwen3-32B", None),
        ("flag_added", "--tp-size", "8", None),  # the first launch records its configuration
        ("flag_added", "--attention-backend", "triton", None),
        ("flag_added", "--mem-fraction-static", "0.85", None),
    ]
    assert by_seq[2] == [
        ("launch", "sglang", "/models/Qwen3-32B", None),
        ("flag_changed", "--attention-backend", "flashinfer", "triton"),
        ("flag_changed", "--mem-fraction-static", "0.8", "0.85"),
        ("flag_added", "--disable-cuda-graph", None, None),
        ("flag_removed", "--host", None, "0.0.0.0"),
    ]
    assert by_seq[3] == [("launch", "sglang", "/models/Qwen3-32B", None), ("flag_removed", "--disable-cuda-graph", None, None)]


@pytest.mark.parametrize(
    ("cmd", "engine", "model"),
    [
        ("vllm serve Qwen/Qwen3-8B --tensor-parallel-size 2 --enforce-eager", "vllm", "Qwen/Qwen3-8B"),
        ("python -m vllm.entrypoints.openai.api_server --model /m/llama -tp 2", "vllm", "/m/llama"),
        ("sglang serve --model-path /m/q --port 30000", "sglang", "/m/q"),
        ("torchrun --nproc_per_node=8 train.py --lr 1e-4", "torchrun", "train.py"),
        ("python -m torch.distributed.run --nproc-per-node 8 train.py", "torchrun", "train.py"),
        ("deepspeed --num_gpus 8 train.py --deepspeed ds.json", "deepspeed", "train.py"),
        ("accelerate launch --num_processes 8 train.py", "accelerate", "train.py"),
        ("uv run python -m sglang.launch_server --model /m/q", "sglang", "/m/q"),
        ("docker run --gpus all --ipc=host lmsysorg/sglang:v0.4 python3 -m sglang.launch_server --model-path /m/q",
         "sglang", "/m/q"),
    ],
)
def test_launch_engines(cmd: str, engine: str, model: str) -> None:
    launch = next(a for a in run(cmd) if a.kind is K.LAUNCH)
    assert (launch.subject, launch.value) == (engine, model)


def test_vllm_flag_aliases_and_lists() -> None:
    acts = extract_actions(frame(
        ("Bash", "vllm serve /m --tensor-parallel-size 2 --cuda-graph-sizes 1 2 4"),
        ("Bash", "vllm serve /m -tp 2 --cuda-graph-sizes 1 2 4 8"),
    ))
    second = [(a.kind.value, a.subject, a.value) for a in acts if a.seq == 2]
    assert second == [("launch", "vllm", "/m"), ("flag_changed", "--cuda-graph-sizes", "1 2 4 8")]


# ---------------------------------------------------------------- edits, services, builds


@pytest.mark.parametrize(
    ("tool", "text", "expected"),
    [
        ("Edit", '{"file_path":"/root/sglang/python/sglang/srt/server_args.py","old_string":"a\\nb","new_string":"c\\nd\\ne"}',
         [("file_edit", "/root/sglang/python/sglang/srt/server_args.py", "edit +3 -2 lines")]),
        ("Write", '{"file_path":"/root/run.sh","content":"#!/bin/bash\\nset -e\\npython x.py\\n"}',
         [("file_edit", "/root/run.sh", "write 3 lines")]),
        ("MultiEdit", '{"file_path":"/a.py","edits":[{"old_string":"x","new_string":"y\\nz"},{"old_string":"p","new_string":"q"}]}',
         [("file_edit", "/a.py", "edit +3 -2 lines")]),
        ("edit", '{"filePath":"/b.py","oldString":"x","newString":"y"}', [("file_edit", "/b.py", "edit +1 -1 lines")]),
        ("write_file", '{"absolute_path":"/c.txt","content":"hi"}', [("file_edit", "/c.txt", "write 1 lines")]),
        ("str_replace_based_edit_tool", '{"command":"view","path":"/d.py"}', [("investigate", "str_replace_based_edit_tool", "/d.py")]),
        ("str_replace_based_edit_tool", '{"command":"str_replace","path":"/d.py","old_str":"a","new_str":"b"}',
         [("file_edit", "/d.py", "edit +1 -1 lines")]),
        ("apply_patch", "*** Begin Patch\n*** Update File: src/a.py\n@@\n-x = 1\n+x = 2\n+y = 3\n*** Add File: b.txt\n+hi\n"
         "*** Delete File: c.txt\n*** End Patch", [("file_edit", "src/a.py", "update +2 -1 lines"),
                                                   ("file_edit", "b.txt", "add +1 lines"), ("file_edit", "c.txt", "delete")]),
        ("patch", '{"patchText":"--- a/x.py\\n+++ b/x.py\\n@@ -1 +1 @@\\n-a\\n+b\\n"}', [("file_edit", "x.py", "update +1 -1 lines")]),
        ("Write", '{"file_path":"/truncated.py","content":"abc', [("file_edit", "/truncated.py", "write")]),
        ("Read", '{"file_path":"/root/venv/lib/python3.12/site-packages/flashinfer/jit/core.py"}',
         [("investigate", "read", "/root/venv/lib/python3.12/site-packages/flashinfer/jit/core.py")]),
        ("TodoWrite", '{"todos":[]}', []),
    ],
)
def test_tool_edits(tool: str, text: str, expected: list[tuple[str, str, str | None]]) -> None:
    assert kinds(run(text, tool=tool)) == expected


@pytest.mark.parametrize(
    ("cmd", "expected"),
    [
        ("sed -i 's/sm_100/sm_120/g' /root/flashinfer/setup.py",
         [("file_edit", "/root/flashinfer/setup.py", "sed s/sm_100/sm_120/g")]),
        ("sed -i.bak -e 's/a/b/' -e 's/c/d/' x.cfg y.cfg",
         [("file_edit", "x.cfg", "sed s/a/b/; s/c/d/"), ("file_edit", "y.cfg", "sed s/a/b/; s/c/d/")]),
        ("sed -n '1,20p' /tmp/sglang.log", [("investigate", "sed", "-n 1,20p /tmp/sglang.log")]),
        ("echo 'export CUDA_HOME=/usr/local/cuda' >> ~/.bashrc", [("file_edit", "~/.bashrc", "append")]),
        ("echo '/usr/local/cuda/lib64' | sudo tee /etc/ld.so.conf.d/cuda.conf && sudo ldconfig",
         [("investigate", "echo", "/usr/local/cuda/lib64"), ("file_edit", "/etc/ld.so.conf.d/cuda.conf", "write"),
          ("run", "ldconfig", None)]),
        ("python x.py 2>&1 | tee /tmp/run.log", [("run", "x.py", None)]),
        ("patch -p1 < /tmp/fix-sm120.diff", [("file_edit", "/tmp/fix-sm120.diff", "patch")]),
        ("patch -p1 <<'EOF'\n--- a/csrc/x.cu\n+++ b/csrc/x.cu\n@@ -1 +1 @@\n-a\n+b\nEOF",
         [("file_edit", "csrc/x.cu", "patch")]),
        ("perl -pi -e 's/foo/bar/' a.py", [("file_edit", "a.py", "perl -i")]),
        ("ln -sf /usr/local/cuda-13.0 /usr/local/cuda", [("file_edit", "/usr/local/cuda", "ln -s /usr/local/cuda-13.0")]),
        ("rm -rf ~/.cache/flashinfer", [("file_edit", "~/.cache/flashinfer", "rm")]),
        ("touch tests/__init__.py tests/unit/__init__.py",
         [("file_edit", "tests/__init__.py", "touch"), ("file_edit", "tests/unit/__init__.py", "touch")]),
        ("touch -r a.c b.c", [("run", "touch", "-r a.c b.c")]),
        ("cp /tmp/cuda_toolkit.h /root/venv/include/", [("file_edit", "/root/venv/include/", "cp /tmp/cuda_toolkit.h")]),
    ],
)
def test_shell_edits(cmd: str, expected: list[tuple[str, str, str | None]]) -> None:
    assert kinds(run(cmd)) == expected


@pytest.mark.parametrize(
    ("cmd", "expected"),
    [
        ("systemctl restart docker", [("service_restart", "docker", "restart")]),
        ("sudo systemctl stop nvidia-persistenced.service", [("service_restart", "nvidia-persistenced", "stop")]),
        ("systemctl status sglang", [("investigate", "systemctl", "status sglang")]),
        ("service nginx restart", [("service_restart", "nginx", "restart")]),
        ("pkill -9 -f 'sglang.launch_server'; sleep 3",
         [("service_restart", "sglang.launch_server", "pkill"), ("investigate", "sleep", "3")]),
        ("kill -9 $(pgrep -f vllm)", [("service_restart", "vllm", "kill")]),
        ("pgrep -f sglang | xargs kill -9", [("investigate", "pgrep", "-f sglang"), ("service_restart", "sglang", "kill")]),
        ("killall python3", [("service_restart", "python3", "killall")]),
        ("fuser -k 30000/tcp", [("service_restart", "30000/tcp", "fuser -k")]),
        ("docker restart sglang", [("service_restart", "sglang", "restart")]),
        ("docker compose up -d sglang", [("service_restart", "sglang", "compose up")]),
        ("docker-compose restart", [("service_restart", "compose", "compose restart")]),
        ("docker logs --tail 50 sglang", [("investigate", "docker", "logs --tail 50 sglang")]),
    ],
)
def test_services(cmd: str, expected: list[tuple[str, str, str | None]]) -> None:
    assert kinds(run(cmd)) == expected


@pytest.mark.parametrize(
    ("cmd", "expected"),
    [
        ("cd /root/flashinfer && python setup.py develop", [("build", "/root/flashinfer", "setup.py develop")]),
        ("python3 setup.py install", [("build", ".", "setup.py install")]),
        ("make -j$(nproc) install", [("build", ".", "make install")]),
        ("make -C /root/llama.cpp -j8", [("build", "/root/llama.cpp", "make")]),
        ("cmake -B build -DCMAKE_CUDA_ARCHITECTURES=120 && cmake --build build -j",
         [("build", "build", "cmake"), ("build", "build", "cmake")]),
        ("ninja -C build", [("build", "build", "ninja")]),
        ("nvcc -arch=sm_120 -o t test.cu", [("build", "test.cu", "nvcc")]),
        ("python -m build --wheel", [("build", ".", "python -m build")]),
    ],
)
def test_builds(cmd: str, expected: list[tuple[str, str, str | None]]) -> None:
    assert kinds(run(cmd)) == expected


# ---------------------------------------------------------------- investigation and the rest


@pytest.mark.parametrize(
    "cmd",
    [
        "nvidia-smi", "nvidia-smi --query-gpu=name,compute_cap --format=csv", "nvcc --version",
        "/root/venv/lib/python3.12/site-packages/nvidia/cu13/bin/nvcc --version", "pip show torch",
        "pip list | grep -i nvidia", "pip freeze", "uv pip list --python /root/venv/bin/python3",
        "pip index versions nvidia-cuda-nvcc", "conda list cuda", "python -c 'import torch; print(torch.__version__, torch.version.cuda)'",
        "python3 - <<'EOF'\nimport flashinfer\nprint(flashinfer.__version__)\nEOF", "echo $CUDA_HOME", "env | grep -i cuda",
        "printenv LD_LIBRARY_PATH", "ps aux | grep sglang", "df -h", "free -g", "lsof -i :30000",
        "ldd /root/venv/lib/python3.12/site-packages/sgl_kernel/common_ops.abi3.so", "ldconfig -p | grep nvrtc",
        "nm -D libcuda.so | grep cuGetProcAddress", "objdump -h x.so", "readelf -d x.so", "curl -s localhost:30000/health",
        "curl http://127.0.0.1:8000/v1/models", "tail -f /tmp/sglang.log", "tail -n 100 /tmp/sglang.log | grep -i error",
        "sleep 60", "git status", "git log --oneline -5", "git diff HEAD~1", "which nvcc ptxas", "whereis libnvrtc",
        "ls -la /usr/local/cuda*/bin", "find / -name 'libnvrtc.so*' 2>/dev/null", "grep -rn sm_120 /root/flashinfer",
        "rg -n 'Unsupported .version' /tmp", "cat /etc/os-release", "head -50 /tmp/sglang.log", "apt list --installed",
        "dpkg -l | grep cuda", "python -m torch.utils.collect_env", "cmake --version", "torchrun --help",
    ],
)
def test_investigations(cmd: str) -> None:
    acts = run(cmd)
    assert acts and all(a.kind is K.INVESTIGATE for a in acts), kinds(acts)


@pytest.mark.parametrize(
    ("cmd", "expected"),
    [
        ("python gen_prompts.py --n 193000", [("run", "gen_prompts.py", "--n 193000")]),
        ("git clone https://github.com/sgl-project/sglang.git", [("run", "git", "clone https://github.com/sgl-project/sglang.git")]),
        ("curl -LsSf https://astral.sh/uv/install.sh | sh", [("run", "curl", "-LsSf https://astral.sh/uv/install.sh")]),
        ("wget https://x/cuda.run", [("run", "wget", "https://x/cuda.run")]),
        ("python3 - <<'EOF'\nopen('/etc/x','w').write('y')\nEOF", [("file_edit", "/etc/x", "python edit")]),
        ("apt-get update", [("run", "apt-get", "update")]),
        ("pip download flash-attn", [("run", "pip", "download flash-attn")]),
    ],
)
def test_runs(cmd: str, expected: list[tuple[str, str, str | None]]) -> None:
    assert kinds(run(cmd)) == expected


@pytest.mark.parametrize(
    "cmd",
    [
        'ssh root@10.1.2.6 "pct exec 200 -- bash -c \'pip install \\"nvidia-cuda-nvcc<13.1',  # cut mid-command
        "echo 'unterminated",
        "bash -c 'pip install \"x",
        "$(",
        "cat <<EOF\nno end",
    ],
)
def test_unparseable_commands_do_not_raise(cmd: str) -> None:
    acts = run(cmd)
    assert all(a.kind in (K.RUN, K.INVESTIGATE, K.FILE_EDIT) for a in acts)
    assert acts  # something is recorded


def test_unparseable_is_a_run_of_the_program() -> None:
    (a,) = run('ssh root@10.1.2.6 "pct exec 200 -- bash -c \'pip install \\"x<2')
    assert (a.kind, a.subject) == (K.RUN, "ssh")


def test_nested_quoting_three_levels() -> None:
    cmd = ("ssh -o StrictHostKeyChecking=no root@h \"docker exec sgl bash -c 'python -c \\\"import torch; "
           "print(torch.cuda.get_device_capability())\\\"'\"")
    (a,) = run(cmd)
    assert a.kind is K.INVESTIGATE and a.value == "import torch; print(torch.cuda.get_device_capability())"
    (c,) = commands(cmd)
    assert c.via == ("ssh root@h", "docker exec sgl", "bash -c")


# ---------------------------------------------------------------- tools, payloads, ordering


@pytest.mark.parametrize(
    ("tool", "text"),
    [
        ("exec_command", '{"cmd":"pip install -U sglang","workdir":"/root"}'),
        ("shell", '{"command":["bash","-lc","pip install -U sglang"]}'),
        ("container.exec", '{"cmd":["bash","-lc","pip install -U sglang"]}'),
        ("run_shell_command", '{"command":"pip install -U sglang"}'),
        ("local_shell", '["bash", "-lc", "pip install -U sglang"]'),
        ("terminal", "pip install -U sglang"),
        ("mcp__ssh__exec", "pip install -U sglang"),
        ("SomethingNew", "pip install -U sglang"),  # unknown tool, but the text is a command
    ],
)
def test_shell_tools_and_payloads(tool: str, text: str) -> None:
    assert kinds(run(text, tool=tool)) == [("upgrade", "sglang", None)]


def test_unknown_tool_with_prose_is_ignored() -> None:
    assert run("Please summarise the log", tool="SomethingNew") == []


def test_order_sessions_and_outcomes() -> None:
    a = frame(("Bash", "pip install a && pip install b", "Successfully installed a-1 b-2\n", False), session="s2")
    b = frame(("Bash", "export X=1; pip install c", "ERROR: No matching distribution found for c\n"), session="s1")
    events = pl.concat([a, b])
    acts = extract_actions(events)
    assert [(x.session, x.seq, x.subject) for x in acts] == [("s1", 1, "X"), ("s1", 1, "c"), ("s2", 1, "a"), ("s2", 1, "b")]
    outcomes = call_outcomes(events)
    assert outcomes == {("s2", 1): True, ("s1", 1): False}


def test_result_without_call_id_pairs_by_position() -> None:
    sink = EventSink("s", "x.md")
    sink.add(line=1, role="assistant", kind="tool_call", tool="bash", text="pip install foo")
    sink.add(line=2, role="tool", kind="tool_result", text="Successfully installed foo-3.1\n")
    (a,) = extract_actions(sink.frame())
    assert a.resolved == "3.1"


def test_no_tool_calls_gives_no_actions() -> None:
    sink = EventSink("s", "x.log")
    sink.add(line=1, role="log", kind="log", text="pip install foo")
    assert extract_actions(sink.frame()) == []


# ---------------------------------------------------------------- robustness

_PIECES = [*"ab -=|&;<>()'\"\\$`#\n{}*~/.:09", "pip install ", "ssh h ", "bash -c ", "export ", "<<EOF\n", "EOF",
           "python -m sglang.launch_server ", "--tp ", "sudo ", "pct exec 1 -- ", "x==1 ", "2>&1 ", "$(", "\\\""]
_SHELLISH = st.lists(st.sampled_from(_PIECES), min_size=1, max_size=30).map("".join)


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=200))
def test_random_text_never_raises(text: str) -> None:
    for tool in ("Bash", "Edit", "apply_patch", "Read", "unknown"):
        assert all(isinstance(d.kind, ActionKind) for d in drafts_for_call(tool, text))
    run(text, "Successfully installed x-1\n + y==2")


@settings(max_examples=400, deadline=None)
@given(_SHELLISH)
def test_random_shell_never_raises(text: str) -> None:
    shell_drafts(text)
    shell_drafts(wrap(text))
    for c in commands(text):
        assert isinstance(c.display(), str)


@pytest.mark.parametrize(
    ("cmd", "expected"),
    [
        ("export CUDA_HOME=$(dirname $(dirname $(which nvcc)))",
         [("env_set", "CUDA_HOME", "$(dirname $(dirname $(which nvcc)))")]),
        ("until curl -sf localhost:30000/health; do sleep 5; done",
         [("investigate", "curl", "-sf localhost:30000/health"), ("investigate", "sleep", "5")]),
        ("[ -d /root/sglang ] || git clone https://github.com/sgl-project/sglang /root/sglang",
         [("run", "git", "clone https://github.com/sgl-project/sglang /root/sglang")]),
        ("apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y ninja-build",
         [("run", "apt-get", "update"), ("env_set", "DEBIAN_FRONTEND", "noninteractive"),
          ("install", "ninja-build", None)]),
        ("python -m sglang.launch_server --model-path /m 2>&1 | tee /tmp/server.log",
         [("launch", "sglang", "/m")]),
        ("time pip install 'nvidia-cuda-nvcc-cu12==12.8.*'", [("pin", "nvidia-cuda-nvcc-cu12", "==12.8.*")]),
        ("cd /root/flashinfer && bash -c 'pip install -e . -v'", [("install", "flashinfer", ".")]),
    ],
)
def test_more_shell_shapes(cmd: str, expected: list[tuple[str, str, str | None]]) -> None:
    assert kinds(run(cmd)) == expected


def test_commands_are_reparseable() -> None:
    acts = run(SEED_DOWNGRADE, UV_DOWNGRADE_OUT)
    assert acts[0].command == "export PATH='/root/.local/bin:$PATH'"
    assert kinds(run(acts[0].command)) == [("env_set", "PATH", "/root/.local/bin:$PATH")]
    assert kinds(run(acts[1].command)) == [("pin", "nvidia-cuda-nvcc", "<13.1")]  # no output: `<` is a pin


@pytest.mark.parametrize(
    "cmd",
    [
        "ssh root@10.1.2.6 <<'EOF'\nexport CUDA_HOME=/usr/local/cuda\npip install -U sglang\nEOF",
        "ssh -T root@10.1.2.6 bash -s <<'EOF'\nexport CUDA_HOME=/usr/local/cuda\npip install -U sglang\nEOF",
        "pct exec 200 -- bash -s <<'EOF'\n  export CUDA_HOME=/usr/local/cuda\n  pip install -U sglang\nEOF",
        "docker exec -i sgl bash <<-EOF\n\texport CUDA_HOME=/usr/local/cuda\n\tpip install -U sglang\n\tEOF\necho done",
    ],
)
def test_scripts_on_stdin(cmd: str) -> None:
    fixes = [(a.kind, a.subject) for a in run(cmd) if a.kind.is_fix]
    assert fixes == [(K.ENV_SET, "CUDA_HOME"), (K.UPGRADE, "sglang")]


@pytest.mark.parametrize(
    ("cmd", "expected"),
    [
        # spotter-a0y (real): the pre-commit hook said "[FORMAT] Code is not formatted", then `mix format`
        ("mix format 2>&1", [("file_edit", ".", "mix format")]),
        ("mix format --check-formatted", []),
        ("black src/pkg tests", [("file_edit", "src/pkg", "black"), ("file_edit", "tests", "black")]),
        ("black --check .", []),
        ("ruff check --fix src", [("file_edit", "src", "ruff check")]),
        ("ruff check src", []),
        ("prettier --write app.js", [("file_edit", "app.js", "prettier")]),
        ("clang-format -i src/k.cu", [("file_edit", "src/k.cu", "clang-format")]),
        ("cargo fmt", [("file_edit", ".", "cargo fmt")]),
    ],
)
def test_a_formatter_that_rewrites_files_is_an_edit(cmd: str, expected: list[tuple[str, str, str | None]]) -> None:
    assert [k for k in kinds(run(cmd)) if k[0] == "file_edit"] == expected
