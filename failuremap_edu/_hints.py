"""The hint ladder: each step adds something the learner has not been shown yet.

Built from the record *and* its fixtures, not only from its prose: first where to
look (the first check the attempt fails, with its call and expected value), then
what the attempt does there and why that is wrong (the diff's reason), then the
record's ``failed_approach``, then its ``root_cause``. The contract and the title
are already on the page, so no hint repeats them. Pure data: the panel and the
notebooks render it.
"""

from __future__ import annotations

from dataclasses import dataclass

from ._diff import diff
from ._records import Record
from ._results import ERROR, FAIL, PASS, TIMEOUT, Observation, RunResult
from ._values import safe_repr

__all__ = ["Hint", "hint_ladder"]


@dataclass(frozen=True)
class Hint:
    """One step of the ladder."""

    title: str
    text: str


def hint_ladder(record: Record, attempt: RunResult | None) -> tuple[Hint, ...]:
    """The hints for `record`, given a run of its attempt (a replay) when there is one.

    Without a run, the recorded observations stand in (they have no call). A
    record whose attempt passes every check gets only the prose hints.
    """
    hints: list[Hint] = []
    first = _first_failure(attempt) if attempt is not None else None
    if first is not None:
        call = f"{first.call} should return" if first.call else "it should return"
        hints.append(Hint("Where to look first", f"The attempt first fails the check '{first.check}': {call} {safe_repr(first.expected, 300)}."))
        hints.append(Hint("What the attempt does there", _what_it_does(first)))
    elif attempt is None:
        recorded = record.verification.get("attempt")
        failing = next((o for o in recorded.observations if not o.passed), None) if recorded else None
        if failing is not None:
            hints.append(Hint("Where to look first", f"The attempt first fails the check '{failing.check}': it should return {safe_repr(failing.expected, 300)}."))
            hints.append(Hint("What the attempt does there", f"It returns {safe_repr(failing.actual, 300)} instead. {_reason(failing.expected, failing.actual)}"))
    hints.append(Hint("The plausible attempt, and why it fails", record.failed_approach))
    hints.append(Hint("Root cause", record.root_cause))
    return tuple(hints)


def _first_failure(run: RunResult) -> Observation | None:
    return next((o for o in run.observations if o.status != PASS), None)


def _what_it_does(o: Observation) -> str:
    if o.status == FAIL:
        return f"It returns {safe_repr(o.actual, 300)} instead. {_reason(o.expected, o.actual)}"
    if o.status == TIMEOUT:
        return "It never returns there: the check ran out of time."
    if o.status == ERROR and o.error is not None:
        return f"It raises {o.error} there."
    return "It does not return the expected value there."


def _reason(expected, actual) -> str:
    explained = diff(expected, actual)
    if not explained.differences:
        return ""
    d = explained.differences[0]
    where = f"At {d.path}: " if d.path else "Why: "
    return f"{where}{d.message}."
