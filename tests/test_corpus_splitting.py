"""Where the plain-text reader cuts records, for two tool outputs of the real corpus (tests/corpus/).

yarn's `error ...` line and its `info Visit https://yarnpkg.com/...` trailer were two records, so the yarn
pattern (which needs both) never saw them together; unittest's `Ran N tests in Xs`, a blank line and `OK` were
two records too, so a passing run was not recognised. Texts below are real tool output (see the corpus README).
"""

from __future__ import annotations

from pathlib import Path

from logsleuth import ingest
from logsleuth.classify import classify, primary_of
from logsleuth.library import load_library

# command: printf '{"name":"app","version":"1.0.0"}' > package.json && yarn add left-pad@99.0.0   (yarn 1.22)
YARN = (
    "yarn add v1.22.22\n"
    "warning package.json: No license field\n"
    "info No lockfile found.\n"
    "warning app@1.0.0: No license field\n"
    "[1/4] Resolving packages...\n"
    'error Couldn\'t find any versions for "left-pad" that matches "99.0.0"\n'
    "info Visit https://yarnpkg.com/en/docs/cli/add for documentation about this command.\n"
)
# command: python3 -m unittest test_s   (one test passes, one is skipped; Python 3.11)
UNITTEST_OK = ".s\n" + "-" * 70 + "\nRan 2 tests in 0.005s\n\nOK (skipped=1)\n"
# command: python3 -m unittest test_f   (one test passes, one fails)
UNITTEST_FAILED = (
    ".F\n" + "=" * 70 + "\nFAIL: test_b (test_f.T.test_b)\n" + "-" * 70 + "\n"
    "Traceback (most recent call last):\n"
    '  File "./test_f.py", line 8, in test_b\n'
    "    self.assertEqual(1, 2)\n"
    "AssertionError: 1 != 2\n\n" + "-" * 70 + "\nRan 2 tests in 0.001s\n\nFAILED (failures=1)\n"
)


def log_texts(tmp_path: Path, content: str) -> list[str]:
    """The event texts of `content` read as a log (every line accounted for)."""
    p = tmp_path / "x.log"
    p.write_text(content, encoding="utf-8")
    t = ingest.read(str(p))
    assert t.report.balanced, t.report
    return [str(e) for e in t.events["text"].to_list()]


def _primary(tmp_path: Path, content: str) -> tuple[str | None, str | None]:
    p = tmp_path / "x.log"
    p.write_text(content, encoding="utf-8")
    found = classify(ingest.read(str(p)).events, load_library()).findings
    top = primary_of(found)
    if top is not None:
        return top.category, top.severity.value
    rest = sorted(found, key=lambda f: -f.priority)
    return (rest[0].category, rest[0].severity.value) if rest else (None, None)


def test_yarn_trailer_joins_the_error_line(tmp_path: Path) -> None:
    texts = log_texts(tmp_path, YARN)
    joined = [t for t in texts if t.startswith("error Couldn't find")]
    assert joined == [
        'error Couldn\'t find any versions for "left-pad" that matches "99.0.0"\n'
        "info Visit https://yarnpkg.com/en/docs/cli/add for documentation about this command."
    ]
    assert not any(t.startswith("info Visit") for t in texts)
    assert _primary(tmp_path, YARN) == ("package_install_failed", "error")


def test_other_info_lines_stay_records_of_their_own(tmp_path: Path) -> None:
    texts = log_texts(tmp_path, "error Something\ninfo No lockfile found.\ninfo Visit https://example.com/docs\n")
    assert texts == ["error Something", "info No lockfile found.", "info Visit https://example.com/docs"]


def test_unittest_verdict_joins_its_summary_over_the_blank_line(tmp_path: Path) -> None:
    texts = log_texts(tmp_path, UNITTEST_OK)
    assert any(t.endswith("Ran 2 tests in 0.005s\n\nOK (skipped=1)") for t in texts), texts
    assert _primary(tmp_path, UNITTEST_OK) == ("tests_passed", "success")


def test_unittest_failure_stays_a_failure(tmp_path: Path) -> None:
    texts = log_texts(tmp_path, UNITTEST_FAILED)
    assert "FAILED (failures=1)" in texts  # the verdict opens its own record (it is a marker line)
    assert _primary(tmp_path, UNITTEST_FAILED)[0] == "tests_failed"


def test_a_blank_line_after_the_verdict_closes_the_record(tmp_path: Path) -> None:
    texts = log_texts(tmp_path, "Ran 1 test in 0.003s\n\nOK\n\nsomething else\n")
    assert texts == ["Ran 1 test in 0.003s\n\nOK", "something else"]
