"""no-cuda: a Claude Code session with no GPU in it at all — pytest failures fixed by edits, with
the usual agent noise (a missing file and its sibling cascade, grep exit 1, a rejected edit)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import fmt_claude
from casefile import dump, seqs
from story import Call, Item, Script, User, events

DIR = "no-cuda"
START = datetime(2026, 2, 19, 9, 14, 3, 507000, tzinfo=UTC)
SESSION = "3a9d5e71-0c4b-4f6a-b2e8-91c7d0a4f5e2"
ROOT = "/home/sam/code/invoicer"
MONEY = f"{ROOT}/src/invoicer/money.py"

PYTEST_FAIL = """..F.......F.                                                             [100%]
=================================== FAILURES ===================================
______________________________ test_invoice_total ______________________________

    def test_invoice_total():
        inv = Invoice(lines=[Line("widget", 3, Decimal("19.99")), Line("gadget", 1, Decimal("5.005"))])
>       assert inv.total() == Decimal("64.98")
E       AssertionError: assert Decimal('64.97') == Decimal('64.98')
E        +  where Decimal('64.97') = total()
E        +    where total = Invoice(lines=[Line(name='widget', qty=3, unit=Decimal('19.99')), Line(name='gadget', qty=1, unit=Decimal('5.005'))]).total

tests/test_invoice.py:14: AssertionError
______________________________ test_tax_rounding _______________________________

    def test_tax_rounding():
>       assert tax_for(Decimal("12.25"), rate=Decimal("0.10")) == Decimal("1.23")
E       AssertionError: assert Decimal('1.22') == Decimal('1.23')
E        +  where Decimal('1.22') = tax_for(Decimal('12.25'), rate=Decimal('0.10'))

tests/test_tax.py:22: AssertionError
=========================== short test summary info ============================
FAILED tests/test_invoice.py::test_invoice_total - AssertionError: assert Decimal('64.97') == Decimal('64.98')
FAILED tests/test_tax.py::test_tax_rounding - AssertionError: assert Decimal('1.22') == Decimal('1.23')
2 failed, 10 passed in 0.38s"""

MONEY_SRC = '''"""Money helpers: every amount the app stores or prints goes through round_money."""

from decimal import Decimal

ZERO = Decimal("0")


def round_money(value: Decimal) -> Decimal:
    """Round an amount to cents."""
    return Decimal(round(value, 2))


def sum_money(values: list[Decimal]) -> Decimal:
    return round_money(sum(values, ZERO))'''

EDIT_REJECTED = {
    "file_path": MONEY,
    "old_string": 'def round_money(value: Decimal) -> Decimal:\n    """Round an amount to cents."""\n'
                  "    return Decimal(round(value, 2))",
    "new_string": 'def round_money(value: Decimal, rounding: str = ROUND_HALF_UP) -> Decimal:\n'
                  '    """Round an amount to cents (half-up by default)."""\n'
                  '    return value.quantize(Decimal("0.01"), rounding=rounding)',
    "original": MONEY_SRC,
}
EDIT_IMPORT = {"file_path": MONEY, "old_string": 'from decimal import Decimal\n\nZERO = Decimal("0")',
               "new_string": 'from decimal import ROUND_HALF_UP, Decimal\n\nZERO = Decimal("0")\nCENT = Decimal("0.01")',
               "original": MONEY_SRC}
MONEY_SRC_2 = MONEY_SRC.replace(EDIT_IMPORT["old_string"], EDIT_IMPORT["new_string"])
EDIT_BODY = {"file_path": MONEY, "old_string": '    """Round an amount to cents."""\n    return Decimal(round(value, 2))',
             "new_string": '    """Round an amount to cents, half-up (round() would round half-even)."""\n'
                           "    return value.quantize(CENT, rounding=ROUND_HALF_UP)",
             "original": MONEY_SRC_2}


def build() -> list[Item]:
    script = Script(START, User(0, "pytest is red on main since the money refactor. can you fix it?", key="goal"))
    items, turn = script.items, script.turn

    turn(4, "pytest1", [Call("python -m pytest -q", PYTEST_FAIL, exit_code=1, duration=2.9,
                             description="Run the test suite")],
         thinking="Run the tests first to see what is failing.",
         text="Let me run the test suite to see the failures.")
    turn(6, "reads", [Call(f"{ROOT}/src/invoicer/rounding.py", "File does not exist.", tool="read",
                           status="tool_error", key="reads.0"),
                      Call(MONEY, "", tool="read", status="sibling_error", key="reads.1"),
                      Call(f"{ROOT}/tests/test_tax.py", "", tool="read", status="sibling_error", key="reads.2")],
         thinking="Both failures are off by one cent on a half-cent amount (5.005 -> 5.00, 1.225 -> 1.22): "
                  "half-even rounding where the tests expect half-up. The refactor probably moved rounding into a "
                  "rounding module; read it with the money module and the tax test.")
    turn(5, "grep1", [Call("grep -rn \"quantize\" src/", "", exit_code=1, duration=0.1,
                           description="Look for Decimal.quantize calls")],
         thinking="No rounding.py. Look for where rounding happens instead.")
    turn(4, "grep2", [Call("grep -rn \"round(\" src/invoicer/", "src/invoicer/money.py:10:    return "
                           "Decimal(round(value, 2))",
                           duration=0.1, description="Look for round() calls")],
         thinking="Nothing uses quantize anymore. The refactor must have switched to round().")
    turn(3, "read_money", [Call(MONEY, MONEY_SRC, tool="read", duration=0.1)])
    turn(9, "edit_rejected", [Call(MONEY, "", tool="edit", status="rejected", edit=EDIT_REJECTED)],
         thinking="round(Decimal, 2) rounds half-even (banker's rounding): 5.005 -> 5.00 and 1.225 -> 1.22. "
                  "The old code used quantize with ROUND_HALF_UP. Make the rounding mode explicit.",
         text="`round_money` uses `round(value, 2)`, which rounds half-to-even. I'll switch it to "
              "`Decimal.quantize` with half-up rounding.")
    items.append(User(script.clock + 2.5, "[Request interrupted by user for tool use]", key="interrupted",
                      interrupt=True))
    script.clock += 2.5
    items.append(User(script.clock + 19, "don't add a parameter to round_money, it's public API and other services "
                                     "import it. just make it round half-up internally", key="redirect"))
    script.clock += 19
    turn(5, "edits", [Call(MONEY, "", tool="edit", edit=EDIT_IMPORT, key="edits.0"),
                      Call(MONEY, "", tool="edit", edit=EDIT_BODY, key="edits.1")],
         thinking="Keep the signature; quantize to a CENT constant with ROUND_HALF_UP inside the function.")
    turn(3, "pytest2", [Call("python -m pytest -q", "............                                          "
                             "                   [100%]\n12 passed in 0.35s", duration=2.7,
                             description="Run the test suite again")])
    turn(4, "summary", [], text="Fixed. `round_money` in `src/invoicer/money.py` used `round(value, 2)`, which "
                               "rounds half-to-even, so half-cent amounts went down (5.005 -> 5.00, 1.225 -> 1.22). "
                               "It now uses `value.quantize(CENT, rounding=ROUND_HALF_UP)` with the same signature. "
                               "All 12 tests pass.")
    return items


def files() -> dict[str, str]:
    items = build()
    return {f"{DIR}/session.jsonl": fmt_claude.render(items, START, session=SESSION, cwd=ROOT, branch="main",
                                                      slug="quiet-amber-ledger", model="claude-sonnet-4-5"),
            f"{DIR}/case.yaml": dump(case(items))}


def case(items: list[Item]) -> dict[str, Any]:
    evs = events(items, START)
    per = {"claude-code": evs}

    def s(key: str) -> dict[str, int]:
        return seqs(per, key)

    return {
        "case": "no-cuda",
        "description": "A Claude Code session with no CUDA problem: two pytest failures from half-even rounding, "
                       "fixed by editing round_money. Includes a Read of a missing file with a 'Sibling tool call "
                       "errored' cascade, a grep that exits 1 with no output, and an edit the user rejects. A "
                       "postmortem of it must not mention CUDA, GPUs or toolchains.",
        "files": {"claude-code": "session.jsonl"},
        "events": {"claude-code": len(evs)},
        "tool_calls": {"claude-code": sum(1 for e in evs if e.kind == "tool_call")},
        "goal": "Make the invoicer test suite pass again after the money refactor.",
        "chain": [
            {"category": "tests_failed", "pattern_hint": "2 failed, 10 passed",
             "first_seq": s("pytest1:result"),
             "revealed_by": None,
             "resolved_by": {"kind": "file_edit", "subject": "src/invoicer/money.py", "value": None,
                             "seq": s("edits.1:call")}},
        ],
        "noise": [
            {"category": "tool_use_error", "seq": s("reads.0:result"), "contains": "File does not exist."},
            {"category": "sibling_tool_call_errored", "seq": s("reads.1:result"), "contains": "Sibling tool call errored"},
            {"category": "sibling_tool_call_errored", "seq": s("reads.2:result"), "contains": "Sibling tool call errored"},
            {"category": "routine_nonzero_exit", "seq": s("grep1:result"), "contains": "Exit code 1"},
            {"category": "user_rejected_tool_call", "seq": s("edit_rejected:result"),
             "contains": "The user doesn't want to proceed with this tool use"},
        ],
        "success": {"pattern_hint": "12 passed", "first_seq": s("pytest2:result")},
        "catch22": [],
        "pivots": [],
        "outcome": "resolved",
        "recipe": [],
        "facts": ["round(Decimal, 2) rounds half-to-even", "round_money is public API; its signature stays",
                  "quantize(CENT, rounding=ROUND_HALF_UP) restores the expected amounts"],
        "hedged_claims": [{"seq": s("reads:reasoning"), "text": "The refactor probably moved rounding into a "
                           "rounding module", "held": False}],
        "must_not_mention": ["CUDA", "nvcc", "GPU", "NCCL", "ptxas", "driver"],
        "cuda_categories": [],
        "expected_text": {
            "pytest1": {"seq": s("pytest1:result"), "contains": "2 failed, 10 passed"},
            "reads.0": {"seq": s("reads.0:result"), "contains": "File does not exist."},
            "edit_rejected": {"seq": s("edit_rejected:result"), "contains": "doesn't want to proceed"},
            "pytest2": {"seq": s("pytest2:result"), "contains": "12 passed"},
        },
        "invented": "All of it (project, code, test output); written for this sample.",
        "real": ["record shapes follow real Claude Code 2.1 transcripts: tool_result is_error with 'Exit code N', "
                 "'<tool_use_error>File does not exist.</tool_use_error>', 'Sibling tool call errored', the "
                 "rejection text and '[Request interrupted by user for tool use]'"],
    }
