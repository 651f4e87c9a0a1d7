"""The query parameters of serve's pages and API, checked: a bad value is a 400 naming the
parameter and the values it takes (as the command line's exit 2 does), never a silent empty answer.
Pages are lenient (a form field left odd shows what matches); the API is strict."""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from typing import Any

from logsleuth.enums import Outcome

FILTERS = ("text", "category", "outcome", "since", "until")
MAX_LIMIT = 100
_DATE = re.compile(r"\A\d{4}-\d{2}-\d{2}\Z")


class BadParam(ValueError):
    def __init__(self, name: str, message: str, valid: Any = None) -> None:
        super().__init__(message)
        self.name, self.valid = name, valid


def page_filters(params: Mapping[str, str]) -> dict[str, str]:
    return {k: params.get(k, "")[:200] for k in FILTERS}


def api_filters(params: Mapping[str, str], categories: Collection[str]) -> dict[str, str]:
    f = page_filters(params)
    if f["category"] and f["category"] not in categories:
        raise BadParam("category", f"unknown category {f['category']!r}", sorted(categories))
    outcomes = [o.value for o in Outcome]
    if f["outcome"] and f["outcome"] not in outcomes:
        raise BadParam("outcome", f"unknown outcome {f['outcome']!r}", outcomes)
    for k in ("since", "until"):
        if f[k] and not _valid_date(f[k]):
            raise BadParam(k, f"{k}={f[k]!r} is not a date", "YYYY-MM-DD")
    return f


def limit_of(params: Mapping[str, str], default: int = 10) -> int:
    value = params.get("limit")
    if value is None or value == "":
        return default
    if not value.isdigit() or not 1 <= int(value) <= MAX_LIMIT:
        raise BadParam("limit", f"limit={value!r} is not a number from 1 to {MAX_LIMIT}", f"1..{MAX_LIMIT}")
    return int(value)


def _valid_date(value: str) -> bool:
    from datetime import date

    if not _DATE.match(value):
        return False
    try:
        date.fromisoformat(value)
    except ValueError:
        return False
    return True
