"""An in-place sed/perl substitution's fix is told as the text the file lost and gained, not as
the regex that did it (#33: `glob("csrc/\\*.cc")`, `testpaths = \\["tests"\\]`, `sed 32s/^ /\\t/`
shown raw on the team page)."""

from __future__ import annotations

import pytest

from logsleuth.actions import extract_actions
from logsleuth.actions.sed import blank_name, substitutions
from logsleuth.ingest.base import EventSink
from logsleuth.model import Action, ActionKind
from logsleuth.verdict.changes import edit_text


def edit_of(cmd: str) -> Action:
    sink = EventSink("s1", "session.jsonl")
    sink.add(line=1, role="assistant", kind="tool_call", tool="Bash", call_id="c0", text=cmd)
    acts = [a for a in extract_actions(sink.frame()) if a.kind is ActionKind.FILE_EDIT]
    assert acts, cmd
    return acts[0]


@pytest.mark.parametrize(
    ("script", "extended", "expected"),
    [
        (r"s/foo\(bar\)/baz\1/", False, ("foobar", "bazbar")),  # a BRE group and its back-reference
        (r's/glob("csrc\/\*.cc")/glob("csrc\/*.cpp")/', False, ('glob("csrc/*.cc")', 'glob("csrc/*.cpp")')),
        (r's/testpaths = \["tests"\]/&\npythonpath = ["src"]/', False,
         ('testpaths = ["tests"]', 'testpaths = ["tests"]\npythonpath = ["src"]')),  # `&` and `\n`
        (r"s/^\(.*\)old_name(/\1new_name(/g", False, ("…old_name(", "…new_name(")),  # `.*`: some text
        (r"s/(\w+)\.cuda\(\)/\1.to(dev)/", True, ("….cuda()", "….to(dev)")),  # ERE: `(` groups, `\(` literal
        (r"s/np\.int\b/np.int64/g", False, ("np.int", "np.int64")),  # a word boundary is no text
        (r'''s/version="[^"]*"/version="2.0"/''', False, ('version="…"', 'version="2.0"')),
        (r"s/sm_[0-9]\+/sm_120/g", False, ("sm_…", "sm_120")),
        (r"s|/usr/local/cuda-12\.4|/usr/local/cuda-13.0|", False, ("/usr/local/cuda-12.4", "/usr/local/cuda-13.0")),
        (r"32s/^        /\t/", False, ("        ", "\t")),  # a line address before the `s`
        (r"s/a\/b/a\\b/", False, ("a/b", "a\\b")),
    ],
)
def test_a_substitution_as_the_text_it_changes(script: str, extended: bool, expected: tuple[str, str]) -> None:
    assert substitutions([script], extended=extended) == [expected]


def test_perl_groups_are_dollar_numbers() -> None:
    assert substitutions([r"s/max_len = (\d+)/max_len = 4096 # was $1/"], perl=True) == [
        ("max_len = …", "max_len = 4096 # was …")]


@pytest.mark.parametrize(
    ("cmd", "text"),
    [
        ("sed -i 's/glob(\"csrc\\/\\*.cc\")/glob(\"csrc\\/*.cpp\")/' setup.py",
         'edited `setup.py`: `glob("csrc/*.cc")` → `glob("csrc/*.cpp")`'),
        ("sed -i 's/testpaths = \\[\"tests\"\\]/testpaths = [\"tests\"]\\npythonpath = [\"src\"]/' pyproject.toml",
         'edited `pyproject.toml`: added `pythonpath = ["src"]`'),
        ("sed -i 's/const void\\* b) nogil/const void* b) noexcept nogil/' boxnms/_nms.pyx",
         "edited `boxnms/_nms.pyx`: `const void* b) nogil` → `const void* b) noexcept nogil`"),
        ("sed -i '32s/^        /\\t/' Makefile", "edited `Makefile`: 8 spaces → a tab on line 32"),
        ("sed -E -i 's/(\\w+)\\.cuda\\(\\)/\\1.to(dev)/' train.py", "edited `train.py`: `….cuda()` → `….to(dev)`"),
        ("perl -pi -e 's/np\\.float\\b/np.float64/g' a.py", "edited `a.py`: `np.float` → `np.float64`"),
    ],
)
def test_the_fix_text_of_an_in_place_edit_has_no_regex_escapes(cmd: str, text: str) -> None:
    assert edit_text(edit_of(cmd)) == text


def test_blank_names() -> None:
    assert blank_name("        ") == "8 spaces"
    assert blank_name("\t") == "a tab"
    assert blank_name("\t\t ") == "a space and 2 tabs"
