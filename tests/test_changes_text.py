"""What an edit is said to have changed (verdict.changes.edit_text): each class the held-out
sessions showed told wrongly, as an example."""

from __future__ import annotations

from logsleuth.model import Action, ActionKind
from logsleuth.verdict.changes import edit_text, scratch_file


def _edit(subject: str, value: str | None = None, removed: str = "", added: str = "", command: str = "") -> Action:
    return Action(ActionKind.FILE_EDIT, subject, value, "s", 5, "t", 1, command or f"edit {subject}",
                  added=added, removed=removed)


def test_a_long_line_edit_is_told_by_the_words_it_changed() -> None:
    old = "CXXFLAGS := -O2 -Wall -std=c++17 -Isrc -I$(CUDA_HOME)/include -DNDEBUG"
    new = "CXXFLAGS := -O2 -Wall -std=c++17 -Isrc -I$(CUDA_HOME)/include -I$(CUDA_HOME)/include/cccl -DNDEBUG"
    assert "added `-I$(CUDA_HOME)/include/cccl` to `CXXFLAGS" in edit_text(_edit("Makefile", removed=old, added=new))


def test_a_multi_line_edit_names_the_call_it_brings_not_the_declaration_before_it() -> None:
    added = "int clock_khz = 0;\ncudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0);\nreturn clock_khz / 1000.0;"
    text = edit_text(_edit("src/device_info.cu", removed="prop.clockRate / 1000.0", added=added))
    assert "cudaDeviceGetAttribute(&clock_khz" in text


def test_a_deletion_is_a_change_and_says_so() -> None:
    a = _edit("pkg/_stats.cpython-311-x86_64-linux-gnu.so", "rm", command="rm -v pkg/_stats.cpython-311-x86_64-linux-gnu.so")
    assert not scratch_file(a)
    assert edit_text(a) == "deleted `pkg/_stats.cpython-311-x86_64-linux-gnu.so`"
    made_here = _edit("probe.c", "rm", command="cat > probe.c <<EOF\nint main(){}\nEOF\ncc probe.c && rm probe.c")
    assert scratch_file(made_here)


def test_touch_and_mv_are_told_as_what_they_did() -> None:
    assert edit_text(_edit("tests/__init__.py", "touch")) == "created `tests/__init__.py` (touch)"
    assert edit_text(_edit("sweepstats.py", "mv statistics.py")) == "moved `statistics.py` to `sweepstats.py`"


def test_a_rewrite_names_what_it_took_out_and_brought_in_beyond_its_first_line() -> None:
    """depbump: one shown line and "+29 more lines" hid the API the rewrite moved to."""
    removed = '"""Retry policy.\n\nPOST is safe to retry.\n"""\nMETHODS = Retry.DEFAULT_METHOD_WHITELIST\n' \
              "class _Capped(Retry):\n    DEFAULT_BACKOFF_MAX = 10\nr = _Capped(method_whitelist=METHODS)\n"
    added = '"""Retry policy.\n\nRequires urllib3 >= 2 (allowed_methods / backoff_max).\n"""\n' \
            "METHODS = Retry.DEFAULT_ALLOWED_METHODS\nr = Retry(backoff_max=10, allowed_methods=METHODS)\n"
    text = edit_text(_edit("statuspoll/retrying.py", "write", removed=removed, added=added))
    assert text.startswith("rewrote `statuspoll/retrying.py`: `"), text
    for name in ("DEFAULT_METHOD_WHITELIST", "method_whitelist", "DEFAULT_ALLOWED_METHODS", "backoff_max"):
        assert name in text, (name, text)
    assert "Requires" not in text and "safe to retry" not in text


def test_a_docstring_the_edit_starts_inside_is_not_the_change() -> None:
    """ccclstd: the edit's text began inside setup.py's docstring; its prose was named as the fix."""
    removed = 'the host sources stay C++14.\n"""\nCXXSTD = "-std=c++14"\nFLAGS = [CXXSTD, "-O2"]\n'
    added = ('the host sources stay C++14.\n\nThe CUDA sources are compiled separately by nvcc with C++17 since CCCL '
             'needs it.\n"""\nHOST_CXXSTD = "-std=c++14"\nCUDA_CXXSTD = "-std=c++17"\nFLAGS = [HOST_CXXSTD, "-O2"]\n')
    text = edit_text(_edit("setup.py", "python edit", removed=removed, added=added))
    assert "`CXXSTD = \"-std=c++14\"` → `HOST_CXXSTD = \"-std=c++14\"`" in text and "CUDA_CXXSTD" in text, text
    assert "The CUDA sources" not in text


def test_a_bare_shell_variable_is_no_change_but_a_command_prefix_is() -> None:
    from logsleuth.verdict.changes import is_change

    bare = Action(ActionKind.ENV_SET, "H", "inc/x.h", "s", 5, "t", 1, "H=inc/x.h", scoped=True)
    prefix = Action(ActionKind.ENV_SET, "CUDA_HOME", "/usr/local/cuda", "s", 5, "t", 1,
                    "CUDA_HOME=/usr/local/cuda make", scoped=True)
    assert not is_change(bare) and is_change(prefix)


def test_a_file_made_in_a_folder_the_same_command_removes_is_scratch() -> None:
    cmd = "mkdir -p build/pathtest && ln -sf /usr/local/cuda/bin/nvcc build/pathtest/nvcc && make; rm -rf build/pathtest"
    assert scratch_file(_edit("build/pathtest/nvcc", "ln -s", command=cmd))
    assert not scratch_file(_edit("build/nvcc", "ln -s", command=cmd))


def test_pip_download_into_a_folder_writes_files_there() -> None:
    """heldout7 licensor: a wheel fetched from PyPI into vendor/build-wheels was a RUN, absent from the
    recipe and from the bends, while a README beside it was named as the vendor artefact replaced."""
    from logsleuth.actions.extract import shell_drafts

    cmd = ".venv/bin/python -m pip download --no-deps --index-url https://pypi.org/simple setuptools==80.9.0 -d vendor/w"
    d = shell_drafts(cmd)[0]
    assert (d.kind, d.subject, d.value) == (ActionKind.FILE_EDIT, "vendor/w", "pip download")
    assert edit_text(_edit("vendor/w", "pip download", command=cmd)).startswith("files fetched into `vendor/w`")
    assert shell_drafts("pip download requests")[0].kind is ActionKind.RUN  # into the current folder: no project folder named


def test_a_config_file_written_whole_is_told_by_its_settings() -> None:
    """heldout7 eclipse: pytest.ini was told as `testpaths = tests` (code: `pytest`, `addopts`)."""
    text = edit_text(_edit("pytest.ini", "write 4 lines", added="[pytest]\ntestpaths = tests\n# ledger first\naddopts = -p ledger\n"))
    assert text == "rewrote `pytest.ini` (write 4 lines): `testpaths = tests`, `addopts = -p ledger`"
