#!/usr/bin/env bash
# setup.sh DEST -- creates the "ledgerline" project (pyproject/PEP 639 vs offline wheelhouse).
set -euo pipefail
DEST=${1:?usage: setup.sh DEST}
mkdir -p "$DEST"
DEST=$(cd "$DEST" && pwd)
PY=${PYTHON:-python3}

# ---------------------------------------------------------------------------
# 1. The offline wheelhouse (what CI's artifact-store mirror contains).
#    Fetched once here, with network; afterwards the project builds offline.
# ---------------------------------------------------------------------------
mkdir -p "$DEST/vendor/wheelhouse"
"$PY" -m pip download --quiet --no-deps --only-binary=:all: -d "$DEST/vendor/wheelhouse" \
    setuptools==68.2.2 wheel==0.41.2 \
    pytest==8.3.3 iniconfig==2.0.0 packaging==24.1 pluggy==1.5.0 2>&1 | grep -v '^WARNING: Location' || true
cat > "$DEST/vendor/wheelhouse/MIRROR.txt" <<'EOF'
Mirror of artifact-store repository "py-ci-approved" (snapshot 2024-09-30).
Synced by the infra team; do not edit by hand.
EOF

# ---------------------------------------------------------------------------
# 2. Dev venv, populated offline from the wheelhouse (setuptools stays the one
#    bundled with the interpreter's ensurepip).
# ---------------------------------------------------------------------------
"$PY" -m venv "$DEST/.venv"
PIP_NO_INDEX=1 PIP_FIND_LINKS="$DEST/vendor/wheelhouse" PIP_CONSTRAINT= \
    "$DEST/.venv/bin/python" -m pip install --quiet pytest==8.3.3

# ---------------------------------------------------------------------------
# 3. The project.
# ---------------------------------------------------------------------------
mkdir -p "$DEST/src/ledgerline" "$DEST/tests"
cat > "$DEST/pyproject.toml" <<'EOF'
[build-system]
requires = ["setuptools>=64", "wheel"]
build-backend = "setuptools.build_meta"

[project]
name = "ledgerline"
version = "1.4.0"
description = "Parse and balance plain-text double-entry ledger lines"
readme = "README.md"
requires-python = ">=3.9"
license = "Apache-2.0"
license-files = ["LICENSE", "NOTICE"]
authors = [{ name = "Finance Platform Team" }]
classifiers = [
    "Programming Language :: Python :: 3",
    "Operating System :: OS Independent",
]

[project.scripts]
ledgerline = "ledgerline.cli:main"

[tool.setuptools.packages.find]
where = ["src"]

[tool.pytest.ini_options]
testpaths = ["tests"]
timeout = 60
EOF
# What the file looked like before the PEP 639 metadata change.
cat > "$DEST/pyproject.toml.bak" <<'EOF'
[build-system]
requires = ["setuptools>=64", "wheel"]
build-backend = "setuptools.build_meta"

[project]
name = "ledgerline"
version = "1.3.2"
description = "Parse and balance plain-text double-entry ledger lines"
readme = "README.md"
requires-python = ">=3.9"
license = { file = "LICENSE" }
authors = [{ name = "Finance Platform Team" }]
classifiers = [
    "Programming Language :: Python :: 3",
    "License :: OSI Approved :: Apache Software License",
    "Operating System :: OS Independent",
]

[project.scripts]
ledgerline = "ledgerline.cli:main"

[tool.setuptools.packages.find]
where = ["src"]
EOF
cat > "$DEST/LICENSE" <<'EOF'
                                 Apache License
                           Version 2.0, January 2004
                        http://www.apache.org/licenses/

   TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION
   (full text elided in this internal mirror; see the URL above)
EOF
cat > "$DEST/NOTICE" <<'EOF'
ledgerline
Copyright 2021-2024 Finance Platform Team

This product includes software developed under the Apache License 2.0.
EOF
cat > "$DEST/src/ledgerline/__init__.py" <<'EOF'
"""Parse and balance plain-text double-entry ledger lines."""
from .core import Posting, parse_line, balance

__all__ = ["Posting", "parse_line", "balance"]
__version__ = "1.4.0"
EOF
cat > "$DEST/src/ledgerline/core.py" <<'EOF'
from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal, InvalidOperation


@dataclass(frozen=True)
class Posting:
    account: str
    amount: Decimal
    currency: str


def parse_line(line: str) -> Posting:
    """Parse ``"Assets:Bank  -12.50 EUR"`` into a Posting."""
    parts = line.split()
    if len(parts) != 3:
        raise ValueError(f"expected 'ACCOUNT AMOUNT CURRENCY', got {line!r}")
    account, amount, currency = parts
    try:
        value = Decimal(amount)
    except InvalidOperation as exc:
        raise ValueError(f"bad amount {amount!r}") from exc
    return Posting(account, value, currency.upper())


def balance(postings: list[Posting]) -> dict[str, Decimal]:
    """Sum of postings per currency; a balanced transaction sums to zero."""
    totals: dict[str, Decimal] = {}
    for p in postings:
        totals[p.currency] = totals.get(p.currency, Decimal(0)) + p.amount
    return totals
EOF
cat > "$DEST/src/ledgerline/cli.py" <<'EOF'
import sys

from .core import balance, parse_line


def main(argv=None) -> int:
    lines = [l for l in sys.stdin.read().splitlines() if l.strip()]
    totals = balance([parse_line(l) for l in lines])
    for cur, amt in sorted(totals.items()):
        print(f"{cur} {amt}")
    return 0 if all(v == 0 for v in totals.values()) else 1
EOF
cat > "$DEST/tests/test_core.py" <<'EOF'
from decimal import Decimal

import pytest

from ledgerline import balance, parse_line


def test_parse_line():
    p = parse_line("Assets:Bank  -12.50 eur")
    assert p.account == "Assets:Bank"
    assert p.amount == Decimal("-12.50")
    assert p.currency == "EUR"


def test_parse_line_rejects_garbage():
    with pytest.raises(ValueError):
        parse_line("Assets:Bank twelve EUR")


def test_balance():
    lines = ["Expenses:Food 12.50 EUR", "Assets:Bank -12.50 EUR", "Assets:Cash 3 USD"]
    assert balance([parse_line(l) for l in lines]) == {"EUR": Decimal("0.00"), "USD": Decimal(3)}
EOF
cat > "$DEST/tests/test_metadata.py" <<'EOF'
"""Release compliance: legal's scanner reads these fields from the installed metadata."""
from importlib.metadata import metadata


def test_spdx_license_expression():
    md = metadata("ledgerline")
    assert md["License-Expression"] == "Apache-2.0", (
        f"License-Expression is {md['License-Expression']!r} "
        f"(Metadata-Version {md['Metadata-Version']}, License {md['License']!r})"
    )


def test_license_files_recorded():
    files = metadata("ledgerline").get_all("License-File") or []
    assert {"LICENSE", "NOTICE"} <= {f.rsplit("/", 1)[-1] for f in files}, files
EOF
cat > "$DEST/Makefile" <<'EOF'
PY := .venv/bin/python

# CI is offline: pip may only use the vendored wheelhouse (artifact-store mirror).
export PIP_NO_INDEX := 1
export PIP_FIND_LINKS := $(CURDIR)/vendor/wheelhouse
export PIP_DISABLE_PIP_VERSION_CHECK := 1

.PHONY: install test clean

install:
	$(PY) -m pip install --no-deps -e .

test: install
	$(PY) -m pytest -q

clean:
	rm -rf build dist src/*.egg-info .pytest_cache
EOF
cat > "$DEST/README.md" <<'EOF'
# ledgerline

Parse and balance plain-text double-entry ledger lines.

    make test      # editable install + pytest (offline, from vendor/wheelhouse)

Packaging notes
- Build backend: setuptools (>= 64 for PEP 660 editable installs).
- 1.4.0 switched the license metadata to an SPDX expression for legal's
  scanner (ticket LEGAL-88).
- If pip complains about pyproject.toml, your venv's setuptools is probably
  too old: `.venv/bin/pip install -U setuptools`.
- The "Unknown config option: timeout" pytest warning is harmless (the option
  is for the nightly runner, which adds pytest-timeout itself).
EOF
echo "ledgerline project created in $DEST"
