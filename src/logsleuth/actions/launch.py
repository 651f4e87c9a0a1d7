"""Server and job launches: which engine, which model, and a normalised flag dict to diff launches by.

`--flag=v` and `--flag v` are the same flag; `--mem_fraction_static` is `--mem-fraction-static`;
engine aliases (`--tp`, `--tensor-parallel-size` → `--tp-size` for SGLang) collapse to one name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from logsleuth.actions.shellparse import basename

Flags = tuple[tuple[str, str | None], ...]


@dataclass(frozen=True, slots=True)
class LaunchInfo:
    engine: str  # sglang | vllm | torchrun | deepspeed | accelerate | …
    model: str | None  # model path for servers, the script for job launchers
    flags: Flags  # in the order written, normalised names, last value wins

    def flag_dict(self) -> dict[str, str | None]:
        return dict(self.flags)


_MODULES = {
    "sglang.launch_server": "sglang",
    "sglang.srt.server": "sglang",
    "sglang_router.launch_server": "sglang-router",
    "sglang_router.launch_router": "sglang-router",
    "vllm.entrypoints.openai.api_server": "vllm",
    "vllm.entrypoints.api_server": "vllm",
    "torch.distributed.run": "torchrun",
    "torch.distributed.launch": "torchrun",
    "deepspeed.launcher.runner": "deepspeed",
    "accelerate.commands.launch": "accelerate",
    "lmdeploy": "lmdeploy",
    "tensorrt_llm.commands.serve": "tensorrt-llm",
    "llama_cpp.server": "llama.cpp",
}
_PROGRAMS = {
    "torchrun": "torchrun",
    "deepspeed": "deepspeed",
    "trtllm-serve": "tensorrt-llm",
    "text-generation-launcher": "tgi",
    "llama-server": "llama.cpp",
    "tritonserver": "triton",
}
_SUBCOMMANDS = {("sglang", "serve"), ("sglang", "launch_server"), ("vllm", "serve"), ("ollama", "serve"),
                ("accelerate", "launch"), ("lmdeploy", "serve")}
_MODEL_FLAGS = ("--model-path", "--model", "--model-id", "-m", "--model-repository")
_ALIASES = {
    "sglang": {"--tp": "--tp-size", "--tensor-parallel-size": "--tp-size", "--dp": "--dp-size",
               "--data-parallel-size": "--dp-size", "--model": "--model-path", "--pp": "--pp-size",
               "--ep": "--ep-size", "--mem-fraction": "--mem-fraction-static"},
    "vllm": {"-tp": "--tensor-parallel-size", "--tp": "--tensor-parallel-size", "-pp": "--pipeline-parallel-size",
             "-dp": "--data-parallel-size", "-q": "--quantization"},
}
# Switch flags that never take a value: their next word is the next argument, not their value.
_SWITCH = re.compile(r"^--(disable|enable|no|skip|use|enforce|trust-remote-code|allow|standalone|log-requests|"
                     r"show|debug|verbose|async|reasoning-parser-off)")
_PYTHON = re.compile(r"^(python|python\d(\.\d+)?|pypy3?)$")


def launch_info(argv: tuple[str, ...] | list[str]) -> LaunchInfo | None:
    """The launch `argv` performs, or None."""
    argv = list(argv)
    if not argv:
        return None
    prog = basename(argv[0])
    if _PYTHON.match(prog):
        j = 1
        while j < len(argv) and argv[j].startswith("-") and argv[j] != "-m":
            j += 2 if argv[j] in ("-X", "-W") else 1
        if j + 1 < len(argv) and argv[j] == "-m" and (engine := _MODULES.get(argv[j + 1])):
            return _build(engine, argv[j + 2 :])
        return None
    if prog in _PROGRAMS:
        return _build(_PROGRAMS[prog], argv[1:])
    if len(argv) > 1 and (prog, argv[1]) in _SUBCOMMANDS:
        return _build(prog, argv[2:])
    return None


def _build(engine: str, args: list[str]) -> LaunchInfo:
    flags, positional = parse_flags(args, engine)
    model: str | None = None
    if engine in ("torchrun", "deepspeed", "accelerate"):
        model = positional[0] if positional else None
    else:
        d = dict(flags)
        model = next((d[f] for f in _MODEL_FLAGS if d.get(f)), None) or (positional[0] if positional else None)
    return LaunchInfo(engine, model, flags)


def normalise_flag(name: str, engine: str = "") -> str:
    if name.startswith("--"):
        name = "--" + name[2:].replace("_", "-")
    return _ALIASES.get(engine, {}).get(name, name)


def parse_flags(args: list[str], engine: str = "") -> tuple[Flags, list[str]]:
    """(flags in order with the last value winning, positional arguments)."""
    found: dict[str, str | None] = {}
    positional: list[str] = []
    j = 0
    while j < len(args):
        a = args[j]
        if a == "--":
            positional.extend(args[j + 1 :])
            break
        if not a.startswith("-") or a == "-" or _is_number(a):
            positional.append(a)
            j += 1
            continue
        name, eq, value = a.partition("=")
        name = normalise_flag(name, engine)
        if eq:
            found.pop(name, None)
            found[name] = value
            j += 1
            continue
        values: list[str] = []
        k = j + 1
        if not _SWITCH.match(name):
            while k < len(args) and (not args[k].startswith("-") or _is_number(args[k])):
                if values and not (_is_number(values[0]) and _is_number(args[k])):
                    break  # `--cuda-graph-bs 1 2 4` takes a list; `--nproc 8 train.py` does not
                values.append(args[k])
                k += 1
        found.pop(name, None)
        found[name] = " ".join(values) if values else None
        j = k
    return tuple(found.items()), positional


def _is_number(s: str) -> bool:
    return bool(re.fullmatch(r"-?\d+(\.\d+)?", s))


# Flags that identify the server rather than configure it: not worth a flag_added on a first launch.
_QUIET = frozenset({"--host", "--port", "--model-path", "--model", "--model-id", "-m", "--served-model-name",
                    "--log-level", "--api-key", "--uvicorn-log-level", "--disable-log-requests", "--log-requests",
                    "--disable-log-stats", "--log-requests-level", "--tokenizer-path", "--chat-template"})


def diff_flags(prev: Flags | None, cur: Flags) -> list[tuple[str, str, str | None, str | None]]:
    """(kind, flag, new value, old value) moves from `prev` to `cur`: added and changed in the order
    of `cur`, then removed in the order of `prev`. For a first launch (`prev` None) every flag except
    the identifying ones (host, port, model, logging) counts as added, so the recipe and the pivot
    detector know the starting configuration.
    """
    moves: list[tuple[str, str, str | None, str | None]] = []
    if prev is None:
        return [("flag_added", f, v, None) for f, v in cur if f not in _QUIET]
    old = dict(prev)
    new = dict(cur)
    for f, v in cur:
        if f not in old:
            moves.append(("flag_added", f, v, None))
        elif old[f] != v:
            moves.append(("flag_changed", f, v, old[f]))
    for f, v in prev:
        if f not in new:
            moves.append(("flag_removed", f, None, v))
    return moves
