"""What a check that measures exceptions says, as claims about solve's calls, each with a verifier.

A check whose value is an exception's name or class (``raises(solve, 3, -1)`` gives
``'AssertionError'`` or ``'no error'``, and the check expects ``'ValueError'``) is not
a difference of characters: it is what solve raised, or that it raised nothing. The
claims here are read from the check's recorded calls (`Observation.calls`), and
`verify` decides from the observation alone whether one holds: the call is among
the recorded ones, with that outcome, and the check's values name those exceptions.
"""

from __future__ import annotations

import builtins
import re
from dataclasses import dataclass
from typing import Any

from ._results import FAIL, Observation
from ._same import same_value
from ._values import Opaque, safe_repr

__all__ = ["CallRaised", "CarriedOver", "RaisedNothing", "call_claims", "carried_over", "exception_name", "verify"]

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*\Z")
_CLASS_REPR = re.compile(r"<class '([A-Za-z_][A-Za-z0-9_.]*)'>\Z")
_SUFFIXES = ("Error", "Exception", "Exit", "Interrupt", "Warning", "Iteration")


@dataclass(frozen=True)
class CallRaised:
    """`call` raised `raised` (with `message`, at solve's `line`) where the check expects `expected`."""

    call: str
    raised: str
    message: str
    line: int
    expected: str
    """The exception the check expects, by name, or the expected value's repr when it names none (``'no error'``)."""

    def __str__(self) -> str:
        message = f": {self.message}" if self.message else ""
        line = f" (line {self.line})" if self.line else ""
        return f"{self.call} raised {self.raised}{message}{line}, where the check expects {self.expected}"


@dataclass(frozen=True)
class RaisedNothing:
    """`call` returned `returned` and raised nothing, where the check expects the exception `expected`."""

    call: str
    returned: Any
    expected: str

    def __str__(self) -> str:
        return f"{self.call} returned {safe_repr(self.returned, 120)} and raised nothing, where the check expects {self.expected}"


def exception_name(value: Any) -> str | None:
    """The exception a check's value names (``'ValueError'``, the class ValueError as it travels), or None."""
    if type(value) is Opaque and value.type_name == "type":
        found = _CLASS_REPR.match(value.repr)
        value = found.group(1) if found else None
    if type(value) is not str or not _NAME.match(value):
        return None
    kind = getattr(builtins, value, None)
    if isinstance(kind, type) and issubclass(kind, BaseException):
        return value
    return value if value.rsplit(".", 1)[-1].endswith(_SUFFIXES) else None


def _local(name: str) -> str:
    return name.rsplit(".", 1)[-1]


def call_claims(o: Observation) -> tuple:
    """What a failed check that measures exceptions says about solve's calls; () for any other check."""
    if o.status != FAIL or not o.calls:
        return ()
    expected, got = exception_name(o.expected), exception_name(o.actual)
    if got is not None:  # the check's value names what was raised: the call that raised it
        raising = next((c for c in o.calls if c.raised is not None and _local(c.raised.type) == _local(got)), None)
        if raising is None:
            return ()
        wanted = expected if expected is not None else safe_repr(o.expected, 120)
        return (CallRaised(raising.call, raising.raised.type, raising.raised.message, raising.line, wanted),)
    if expected is not None and o.calls_omitted == 0 and all(c.raised is None for c in o.calls):
        first = o.calls[0]
        return (RaisedNothing(first.call, first.returned, expected),)
    return ()


def verify(claim: Any, o: Observation) -> bool:
    """True exactly when `claim` holds of the observation: its call is recorded with that outcome, and the values name those exceptions."""
    if o.status != FAIL:
        return False
    if isinstance(claim, CallRaised):
        got = exception_name(o.actual)
        wanted = exception_name(o.expected) or safe_repr(o.expected, 120)
        return (got is not None and _local(got) == _local(claim.raised) and wanted == claim.expected
                and any(c.call == claim.call and c.raised is not None and (c.raised.type, c.raised.message, c.line) == (claim.raised, claim.message, claim.line)
                        for c in o.calls))
    if isinstance(claim, RaisedNothing):
        return (exception_name(o.expected) == claim.expected and exception_name(o.actual) is None and o.calls_omitted == 0
                and all(c.raised is None for c in o.calls)
                and any(c.call == claim.call and safe_repr(c.returned, 10_000) == safe_repr(claim.returned, 10_000) for c in o.calls))
    return False


@dataclass(frozen=True)
class CarriedOver:
    """`call` returned `here` in the check, and `fresh` when made afresh (a new process, as the playground makes it):
    the check's result depends on what earlier calls left behind. Said only when the two differ (`verify`)."""

    call: str
    here: Any
    fresh: Any

    def __str__(self) -> str:
        return (f"Made afresh, as the playground makes it, {self.call} returns {safe_repr(self.fresh, 120)}, not "
                f"{safe_repr(self.here, 120)}: here its result depends on what the earlier checks' calls left behind (a "
                "module-level variable, a mutable default argument or a cache), since the checks run one after another "
                "in one process, as the record's harness runs them. Look for what stays between calls.")

    def verify(self) -> bool:
        return not same_value(self.here, self.fresh)


def carried_over(o: Observation, fresh_call) -> CarriedOver | None:
    """The claim for a check whose one call of solve returned another value than the same call made afresh.

    `fresh_call(call_text)` makes the call afresh and gives ``(True, value)``, or ``(False, None)`` when it could not
    (it raised, timed out, or the call cannot be typed again); it is called only for a check with exactly one call of
    solve, which returned. None when the values are the same, or nothing could be compared."""
    if not o.calls or len(o.calls) != 1 or o.calls[0].raised is not None or not o.calls[0].call.startswith("solve("):
        return None
    call = o.calls[0]
    made, value = fresh_call(call.call)
    claim = CarriedOver(call.call, call.returned, value) if made else None
    return claim if claim is not None and claim.verify() else None
