"""The agent's stated cause, weighed sentence by sentence (verdict.agentcause): each class of
mistake the phrase rules made on the labelled sessions, as an example."""

from __future__ import annotations

from logsleuth.verdict.agentcause import best, sentences, split_sentences


def _pick(text: str, closing_after: int = 0, overlap: dict[str, int] | None = None) -> str | None:
    said = list(sentences([(5, text)], closing_after))
    got = best((s, next((n for k, n in (overlap or {}).items() if k in s.text), 0), False) for s in said)
    return got[1] if got else None


def test_the_cause_under_a_why_heading_beats_the_fix_under_its_own() -> None:
    text = ("`make` builds again.\n\n**Why ptxas failed:** the kernel declared a static tile. Shared memory declared "
            "statically is capped at 48 KB per block, so ptxas rejects it.\n\n**What I changed:** the kernel now "
            "uses dynamic shared memory, which removes the limit.")
    assert _pick(text, overlap={"ptxas": 1}) == "Shared memory declared statically is capped at 48 KB per block, so ptxas rejects it."


def test_advice_and_options_are_no_cause() -> None:
    text = ("**Why it fails:** the venv's torch is the CPU-only build 2.13.0+cpu, which has no CUDA.\n"
            "If your image runs CPU builds, you'll want torch 2.13.0+cpu from the CPU index, which is unreachable.\n"
            "**Ways forward:**\n1. Install a CUDA build of torch, since the kernel needs one.")
    assert _pick(text, overlap={"2.13.0": 1}) == "The venv's torch is the CPU-only build 2.13.0+cpu, which has no CUDA."


def test_the_because_clause_of_a_failed_goal_is_the_cause() -> None:
    text = "I could NOT get `make smoke` to print SMOKE OK, because this machine has no GPU.\n\nI fixed three build errors."
    assert _pick(text) == "This machine has no GPU."


def test_a_sentence_that_leans_on_the_one_before_keeps_it() -> None:
    text = ("(1) pyproject.toml pinned the build backend to setuptools==40.8.0. That version can't import on "
            "Python 3.11, which removed HTMLParser.unescape.")
    got = _pick(text, overlap={"3.11": 1})
    assert got is not None and got.startswith("(1) pyproject.toml pinned") and "can't import" in got


def test_a_plan_is_no_cause() -> None:
    assert _pick("Understood: P100s are retired, so I'll take sm_60 out of the Makefile, since CUDA 13 lacks it.") is None


def test_sentences_do_not_break_inside_code_or_after_a_list_number() -> None:
    assert split_sentences("It failed with `AttributeError: 'NoneType'. Bad` here. Next one.") == [
        "It failed with `AttributeError: 'NoneType'. Bad` here.", "Next one."]
    assert split_sentences("1. C++ standard: CUDA 13 requires C++17, e.g. for CUB. Fine.") == [
        "1. C++ standard: CUDA 13 requires C++17, e.g. for CUB.", "Fine."]


def test_a_list_lead_in_is_a_heading_and_a_fix_list_is_no_cause() -> None:
    text = ("I fixed three build errors:\n1) Makefile line 32 was indented with spaces instead of a tab.\n"
            "There were two problems:\n1. CUDA 13 removed cudaDeviceProp::clockRate, which the code reads.")
    assert _pick(text) == "CUDA 13 removed cudaDeviceProp::clockRate, which the code reads."


def test_a_marker_over_a_quoted_symptom_passes_to_the_next_sentence() -> None:
    text = ("3. This is the real one: 'import torchvision' failed with 'operator torchvision::nms does not exist'. "
            "The venv had the CPU-only torch 2.13.0+cpu next to torchvision 0.28.0+cu130.")
    assert _pick(text, overlap={"2.13.0": 1}) == "The venv had the CPU-only torch 2.13.0+cpu next to torchvision 0.28.0+cu130."


def test_a_cause_said_over_two_sentences_keeps_the_second_but_not_a_remedy() -> None:
    """rec-cuhist, segscan: the first sentence named the toolkit, the next what it no longer does."""
    text = ("**Root cause:** The only CUDA toolkit on this machine is CUDA 13.0 (/usr/local/cuda points to cuda-13.0). "
            "CUDA 13 dropped offline compilation for Pascal and Volta.")
    got = _pick(text, overlap={"13.0": 1})
    assert got is not None and got.endswith("CUDA 13 dropped offline compilation for Pascal and Volta."), got
    remedy = ("**Root cause:** Both errors are in the vendored ringbuf header, which newer GCC flags. The standard fix "
              "that keeps -Werror for our code is to include vendored headers with -isystem.")
    got = _pick(remedy, overlap={"ringbuf": 1})
    assert got is not None and "isystem" not in got, got


def test_a_cause_that_starts_with_a_name_keeps_its_case() -> None:
    from logsleuth.verdict.agentcause import clean

    assert clean("kvcompat's `_kvc.so` carries its own libkv") == "kvcompat's `_kvc.so` carries its own libkv"
    assert clean("vendor/probe-2.1/lib/libprobe.so is a 32-bit build").startswith("vendor/")
    assert clean("the venv's torch is the CPU build") == "The venv's torch is the CPU build"


def test_a_cause_goes_on_over_every_sentence_that_still_states_the_condition() -> None:
    """heldout7 eclipse-quick: which copy lacks KV_1.2, then why that copy wins; judged false without the second."""
    text = ("**Cause:** kvcompat's `_kvc.so` carries its own older `libkv.so.1`. That copy only has symbol version "
            "KV_1.0. pytest loads the kvcompat plugin before it collects any tests, so that old library is loaded "
            "first. I added `-p ledger` to pytest.ini.")
    got = _pick(text, overlap={"libkv": 1})
    assert got is not None and got.endswith("so that old library is loaded first."), got
