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
from ._display import Shown
from ._records import Record
from ._results import ERROR, FAIL, PASS, TIMEOUT, Observation, RunResult
from ._values import safe_repr

__all__ = ["Hint", "hint_ladder"]


@dataclass(frozen=True)
class Hint:
    """One step of the ladder."""

    title: str
    text: str


@dataclass(frozen=True)
class HintLadder(Shown):
    """Every hint at once, for an instructor's screen: HTML (it reflows, and keeps whitespace) with a text form."""

    _text_renderer = "render._text:hint_ladder_text"
    _html_renderer = "render._html:hint_ladder_html"

    hints: tuple[Hint, ...]


def hint_ladder(record: Record, attempt: RunResult | None, broken: RunResult | None = None, yours: RunResult | None = None) -> tuple[Hint, ...]:
    """The hints for `record`, given runs of its attempt (and broken) when there are any.

    Where to look first is the first check the attempt fails that broken passes:
    that check isolates the attempt's own mistake, which the next hint
    (``failed_approach``) explains. Without such a check, the first one the attempt
    fails. Without a run, the recorded observations stand in (they have no call).
    A record whose attempt passes every check gets only the prose hints.

    With the learner's own run (`yours`), only checks they still fail are pointed
    at: a hint about a check they already pass sends them the wrong way (a learner
    trial found exactly that). When their remaining failures are all checks the
    attempt passes, the first two hints are about their own first failing check.
    """
    hints: list[Hint] = []
    still_failing = None if yours is None else {o.index for o in yours.observations if o.status != PASS}
    if still_failing == set() and not yours.passed:
        still_failing = None  # nothing failed, but the run stopped (with no check, or some never reached): it says nothing yet
    own = None
    if attempt is not None and still_failing:
        own = next((o for o in yours.observations if o.status != PASS), None)
        if any(o.index in still_failing for o in attempt.observations if o.status != PASS):
            own = None  # the attempt's mistake is still theirs: the ladder below fits
    if own is not None:
        call = f"{own.call} should return" if own.call else "it should return"
        hints.append(Hint("Where to look first", f"Start with the check '{own.check}', the first one you still fail: {call} {safe_repr(own.expected, 300)}."))
        hints.append(Hint("What your solve does there", _what_it_does(own, "your solve") + _TRACE_YOURS))
    elif attempt is not None:
        first, isolates = _where_to_look(attempt, broken, still_failing or None)
        if first is not None:
            call = f"{first.call} should return" if first.call else "it should return"
            why = " (broken passes it, so it shows the attempt's own mistake)" if isolates else ""
            if still_failing == set():  # you pass everything: the ladder is for comparison, not a place to look
                hints.append(Hint("Where the attempt fails", f"You pass every check. For comparison, the attempt fails '{first.check}'{why}: {call} {safe_repr(first.expected, 300)}."))
            else:
                hints.append(Hint("Where to look first", f"Start with the check '{first.check}'{why}: {call} {safe_repr(first.expected, 300)}."))
            mine = None if yours is None else next((o for o in yours.observations if o.index == first.index), None)
            if mine is not None and mine.status != PASS and (mine.status, safe_repr(mine.actual)) != (first.status, safe_repr(first.actual)):
                # Yours fails it differently from the attempt: say what yours does, the attempt's answer beside it.
                attempt_did = f"returns {safe_repr(first.actual, 300)}" if first.status == FAIL else "fails it too"
                hints.append(Hint("What your solve does there", f"{_what_it_does(mine, 'your solve')} (The attempt {attempt_did}.){_TRACE_YOURS}"))
            else:
                hints.append(Hint("What the attempt does there", _what_it_does(first) + _TRACE))
    else:
        recorded = record.verification.get("attempt")
        failing = next((o for o in recorded.observations if not o.passed), None) if recorded else None
        if failing is not None:
            hints.append(Hint("Where to look first", f"Start with the check '{failing.check}': it should return {safe_repr(failing.expected, 300)}."))
            hints.append(Hint("What the attempt does there", f"There the attempt returns {safe_repr(failing.actual, 300)}. {_reason(failing.expected, failing.actual)}{_TRACE}"))
    hints.append(Hint("The plausible attempt, and why it fails", record.failed_approach))
    hints.append(Hint("Root cause", record.root_cause))
    return tuple(hints)


_TRACE = " Work through that call by hand with the attempt's code (shown in watch it fail) and find the step where it goes wrong."
_TRACE_YOURS = " Work through that call by hand with your code and find the step where it goes wrong."


def _where_to_look(attempt: RunResult, broken: RunResult | None, still_failing: set[int] | None = None) -> tuple[Observation | None, bool]:
    failing = [o for o in attempt.observations if o.status != PASS and (still_failing is None or o.index in still_failing)]
    if broken is not None:
        passed_by_broken = {o.index for o in broken.observations if o.status == PASS}
        isolating = next((o for o in failing if o.index in passed_by_broken), None)
        if isolating is not None:
            return isolating, True
    return (failing[0] if failing else None), False


def _what_it_does(o: Observation, who: str = "the attempt") -> str:
    if o.status == FAIL:
        return f"There {who} returns {safe_repr(o.actual, 300)}. {_reason(o.expected, o.actual)}"
    if o.status == TIMEOUT:
        return f"There {who} never returns: the check ran out of time."
    if o.status == ERROR and o.error is not None:
        return f"There {who} raises {o.error}."
    return f"There {who} does not return the expected value."


def _reason(expected, actual) -> str:
    explained = diff(expected, actual)
    if not explained.differences:
        return ""
    d = explained.differences[0]
    where = f"At {d.path}: " if d.path else "Why: "
    return f"{where}{d.message}."
