"""actions.state: what is in force at a seq, launches and their flags, and the pasteable recipe."""

from __future__ import annotations

import pytest

from logsleuth.actions import extract_actions, launches, recipe_lines, server_flags_at, state_at
from logsleuth.model import Action, ActionKind
from test_actions import LAUNCH_1, LAUNCH_2, SEED_DOWNGRADE, UV_DOWNGRADE_OUT, UV_NO_SOLUTION, frame, wrap


@pytest.fixture(scope="module")
def seed_actions() -> list[Action]:
    """The seed session's shape: libs on the path, nvcc 13.2, ninja, a launch, the failed and the working
    nvcc downgrades, an edit of flashinfer, a rebuild, and the relaunch without CUDA graphs."""
    events = frame(
        ("Bash", wrap("export LD_LIBRARY_PATH=/root/venv/lib/python3.12/site-packages/nvidia/cu13/lib:$LD_LIBRARY_PATH")),
        ("Bash", wrap("/root/venv/bin/pip install nvidia-cuda-nvcc"), "Successfully installed nvidia-cuda-nvcc-13.2.78\n"),
        ("Bash", wrap("apt-get install -y ninja-build"), "Setting up ninja-build (1.11.1-1) ...\n"),
        ("Bash", wrap(LAUNCH_1)),
        ("Bash", wrap('export PATH=/root/.local/bin:$PATH && uv pip install --python /root/venv/bin/python3 '
                      '"nvidia-cuda-nvcc==13.0.26"'), UV_NO_SOLUTION),
        ("Bash", SEED_DOWNGRADE, UV_DOWNGRADE_OUT),
        ("Edit", '{"file_path":"/root/venv/lib/python3.12/site-packages/flashinfer/jit/cpp_ext.py",'
                 '"old_string":"a","new_string":"b"}'),
        ("Bash", wrap("sed -i 's/-O3/-O2/' /root/build.ninja")),
        ("Bash", wrap("cd /root/flashinfer && python setup.py develop")),
        ("Bash", "source /root/venv/bin/activate && unset CUDA_VISIBLE_DEVICES"),
        ("Bash", wrap(LAUNCH_2)),
    )
    return extract_actions(events)


def test_recipe_at_the_end(seed_actions: list[Action]) -> None:
    assert recipe_lines(state_at(seed_actions, 10_000)) == [
        "# run on: ssh root@10.1.2.6 → pct exec 200",
        "# environment",
        "source /root/venv/bin/activate",
        'export LD_LIBRARY_PATH="/root/venv/lib/python3.12/site-packages/nvidia/cu13/lib:$LD_LIBRARY_PATH"',
        'export PATH="/root/.local/bin:$PATH"',
        "unset CUDA_VISIBLE_DEVICES",
        "# packages",
        "apt-get install -y ninja-build",
        "uv pip install --python /root/venv/bin/python3 nvidia-cuda-nvcc==13.0.88",
        "# files",
        "# edited /root/venv/lib/python3.12/site-packages/flashinfer/jit/cpp_ext.py (edit +1 -1 lines)",
        "sed -i s/-O3/-O2/ /root/build.ninja",
        "# builds",
        "(cd /root/flashinfer && python setup.py develop)",
        "# launch",
        "python3 -m sglang.launch_server --model-path=/models/Qwen3-32B --tp-size 8 --port 30000 "
        "--attention-backend=flashinfer --mem_fraction_static 0.8 --disable-cuda-graph",
    ]


def test_state_before_the_downgrade(seed_actions: list[Action]) -> None:
    first_launch = next(a.seq for a in seed_actions if a.kind is ActionKind.LAUNCH)
    state = state_at(seed_actions, first_launch)
    nvcc = state["packages"]["nvidia-cuda-nvcc"]
    assert (nvcc["kind"], nvcc["resolved"]) == ("install", "13.2.78")
    assert nvcc["line"] == "/root/venv/bin/pip install nvidia-cuda-nvcc==13.2.78"
    assert state["env"]["CUDA_VISIBLE_DEVICES"] == "0,1,2,3,4,5,6,7"
    assert "PATH" not in state["env"] and state["builds"] == {} and state["files"] == {}
    assert state["launches"]["sglang"]["flags"]["--attention-backend"] == "triton"


def test_failed_attempt_is_superseded(seed_actions: list[Action]) -> None:
    pin = next(a for a in seed_actions if a.kind is ActionKind.PIN)
    state = state_at(seed_actions, pin.seq)
    assert state["packages"]["nvidia-cuda-nvcc"]["line"] == (
        "uv pip install --python /root/venv/bin/python3 nvidia-cuda-nvcc==13.0.26"
    )  # unresolved: repeated as written
    later = state_at(seed_actions, pin.seq + 2)["packages"]["nvidia-cuda-nvcc"]
    assert (later["kind"], later["resolved"], later["previous"]) == ("downgrade", "13.0.88", "13.2.78")


def test_launches_and_server_flags(seed_actions: list[Action]) -> None:
    runs = launches(seed_actions)
    assert [(x.engine, x.model) for x in runs] == [("sglang", "/models/Qwen3-32B")] * 2
    assert runs[0].env == (("CUDA_VISIBLE_DEVICES", "0,1,2,3,4,5,6,7"),)
    assert runs[0].command.startswith("CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7 nohup python -m sglang.launch_server") is False
    assert runs[0].command.startswith("CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7 python -m sglang.launch_server")
    assert server_flags_at(seed_actions, runs[0].seq) == {
        "--model-path": "/models/Qwen3-32B", "--tp-size": "8", "--host": "0.0.0.0", "--port": "30000",
        "--attention-backend": "triton", "--mem-fraction-static": "0.85",
    }
    late = server_flags_at(seed_actions, runs[1].seq, engine="sglang")
    assert late["--attention-backend"] == "flashinfer" and "--disable-cuda-graph" in late and "--host" not in late
    assert server_flags_at(seed_actions, runs[0].seq - 1) == {}
    assert server_flags_at(seed_actions, 10_000, engine="vllm") == {}


def test_state_needs_a_session_when_mixed() -> None:
    a = extract_actions(frame(("Bash", "export A=1"), session="x"))
    b = extract_actions(frame(("Bash", "export B=2"), session="y"))
    with pytest.raises(ValueError, match="sessions"):
        state_at(a + b, 10)
    assert state_at(a + b, 10, session="y")["env"] == {"B": "2"}
    assert recipe_lines(state_at([], 5)) == []


def test_recipe_quotes_and_reinstalls() -> None:
    acts = extract_actions(frame(
        ("Bash", "export NCCL_DEBUG=INFO FLASHINFER_NVCC_FLAGS='-O2 \"-DX=1\"'"),
        ("Bash", "pip install -U 'sglang[all]>=0.4.6' -q --no-cache-dir", "Successfully installed sglang-0.4.6.post1\n"),
        ("Bash", "pip install -r requirements.txt 'git+https://github.com/org/repo.git@v1'"),
        ("Bash", "pip uninstall -y flash-attn", "Successfully uninstalled flash-attn-2.7.4\n"),
        ("Bash", "vllm serve /m --enforce-eager"),
        ("Bash", "python -m sglang.launch_server --model-path /m --disable-cuda-graph"),
    ))
    lines = recipe_lines(state_at(acts, 100))
    assert lines == [
        "# environment",
        "export NCCL_DEBUG=INFO",
        'export FLASHINFER_NVCC_FLAGS="-O2 \\"-DX=1\\""',
        "# packages",
        "pip install 'sglang[all]==0.4.6.post1'",
        "pip install -r requirements.txt",
        "pip install git+https://github.com/org/repo.git@v1",
        "pip uninstall -y flash-attn",
        "# launch",
        "python -m sglang.launch_server --model-path /m --disable-cuda-graph",
    ]
    assert sorted(state_at(acts, 100)["launches"]) == ["sglang", "vllm"]


def test_where_lists_each_machine_once() -> None:
    acts = extract_actions(frame(
        ("Bash", "ssh gpu1 'export A=1'"),
        ("Bash", "docker exec -it sgl pip install x", "Successfully installed x-1.0\n"),
        ("Bash", "ssh gpu1 'export B=2' && export C=3"),
        ("Edit", '{"file_path":"/x.py","old_string":"a","new_string":"b"}'),
    ))
    state = state_at(acts, 100)
    assert state["where"] == ["docker exec sgl", "ssh gpu1"]
    assert recipe_lines(state)[:2] == ["# run on: docker exec sgl", "# run on: ssh gpu1"]
    assert state_at(acts, 1)["where"] == ["ssh gpu1"]
