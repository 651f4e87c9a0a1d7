"""The verdict stage: one judgement of each session (logsleuth.verdict.decide), read by every surface."""

from logsleuth.verdict.decide import decide
from logsleuth.verdict.model import Bend, Change, FailureVerdict, OpenItem, RootCause, Verdict

__all__ = ["Bend", "Change", "FailureVerdict", "OpenItem", "RootCause", "Verdict", "decide"]
