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

from ._call_claims import call_claims, carried_over
from ._diff import diff
from ._display import Shown
from ._evidence import MatchesImplementation, MutantTally, compared_same, match_claim
from ._records import Record
from ._results import ERROR, FAIL, PASS, TIMEOUT, Observation, RunResult
from ._same import same_value
from ._values import Opaque, clip, safe_repr

__all__ = ["Hint", "hint_ladder", "mistake_note"]

_UNSET: object = object()
"""No match claim given: `hint_ladder` computes one from its runs."""


@dataclass(frozen=True)
class Hint:
    """One step of the ladder."""

    title: str
    text: str
    code: tuple[str, ...] = ()
    """Parts of `text` that are code (a call, an expression, a value): renderers show them as code, whitespace kept."""


def _should(o: Observation) -> tuple[str, tuple[str, ...]]:
    """"solve(x) should return V", or for an expression of the result "solve(x)[0] > 0 should be V"; and its code parts."""
    expected = safe_repr(o.expected, 300)
    if o.compared:
        return f"{o.compared} should be {expected}", (o.compared, expected)
    if o.call:
        return f"{o.call} should return {expected}", (o.call, expected)
    return f"the expected value is {expected}", (expected,)


@dataclass(frozen=True)
class HintLadder(Shown):
    """Every hint at once, for an instructor's screen: HTML (it reflows, and keeps whitespace) with a text form."""

    _text_renderer = "render._text:hint_ladder_text"
    _html_renderer = "render._html:hint_ladder_html"

    hints: tuple[Hint, ...]


def hint_ladder(record: Record, attempt: RunResult | None, broken: RunResult | None = None, yours: RunResult | None = None,
                match: "MatchesImplementation | None" = _UNSET, fresh_call=None) -> tuple[Hint, ...]:
    """The hints for `record`, given runs of its attempt (and broken) when there are any.

    Before a run of yours, where to look first is the first check the attempt fails
    that broken passes (it isolates the attempt's own mistake), else the first one the
    attempt fails; without a run of the attempt, the recorded observations stand in.

    With your run (`yours`), where to look first is the first check you still fail, in
    record order, and the next hint says what yours does there (the attempt's code when
    yours gives the attempt's value). The record's ``failed_approach`` and ``root_cause``
    are the attempt's story: shown, labelled as the attempt's with the checks on which
    your results match it, only when `match` (the summary line's claim; computed from
    these runs when not given) has informative checks, or part of the attempt's mistake
    is item by item in yours. Before a run, or when you pass, they are shown for comparison.

    `fresh_call(who, variant, call_text)` (``who``: ``yours``, ``attempt`` or ``broken``) makes one call of solve
    afresh, as the playground does, and gives ``(True, value)`` or ``(False, None)``: where the check's call returned
    another value (`CarriedOver`), the hint says so instead of sending you to work the call through by hand.
    """
    hints: list[Hint] = []

    def trace(o: Observation, who: str, default: str) -> str:
        claim = None if fresh_call is None or o is None else carried_over(o, lambda text: fresh_call(who, variant_of[who], text))
        return f" {claim}" if claim is not None else default

    variant_of = {"yours": yours.variant if yours is not None else 1, "attempt": attempt.variant if attempt is not None else 1,
                  "broken": broken.variant if broken is not None else 1}
    if yours is not None and yours.problem is not None and all(did_not_run(o) for o in yours.observations):
        # Nothing of yours ran (solve could not be sent, the worker died): "your solve raises NotRun" was false.
        hints.append(Hint("Where to look first", f"Your solve did not run: {yours.problem.message or yours.problem}. Fix that "
                          "first; the other hints are about the record's attempt until your solve runs."))
        yours = None
    looping = next((o for o in yours.observations if o.status == TIMEOUT), None) if yours is not None else None
    if looping is not None:  # a solve that never ends: nothing else can be read until that is fixed
        call = looping.compared or looping.call or "solve"
        hints.append(Hint("Where to look first", f"Your solve does not finish on the check '{looping.check}' ({call}): look for a loop "
                          "whose condition never changes, or a recursion without an end. The other hints are about the values, once it ends.", (call,)))
    still_failing = None if yours is None else {o.index for o in yours.observations if o.status != PASS}
    if still_failing == set() and not yours.passed:
        still_failing = None  # nothing failed, but the run stopped (with no check, or some never reached): it says nothing yet
    if match is _UNSET:
        replays = {} if yours is None else {(yours.variant, n): r for n, r in (("attempt", attempt), ("broken", broken)) if r is not None}
        match = None if yours is None else match_claim((yours,), replays)
    first_mine = next((o for o in yours.observations if o.status != PASS and o.status != TIMEOUT and not did_not_run(o)), None) if still_failing else None
    if first_mine is not None:  # the first check you still fail, in record order: where to look is where you are
        should, code = _should(first_mine)
        hints.append(Hint("Where to look first", f"Start with the check '{first_mine.check}', the first one you still fail: {should}.", code))
        theirs = _at(attempt, first_mine.index)
        which = match.which if match is not None and (yours.variant, first_mine.index) in match.checks else None
        if which is not None:  # the summary line's claim names this check: say it of the same implementation
            shown = theirs if which == "attempt" else _at(broken, first_mine.index)
            who = "the attempt" if which == "attempt" else "the broken version"
            text, code = _what_it_does(shown, who)
            default = _TRACE.replace("the attempt's code", f"{who}'s code")
            # Your call first: the same wrong value, made for another reason (state left by earlier calls), is yours to know.
            mine = trace(first_mine, "yours", "")
            hints.append(Hint(f"What {who} does there, and yours too", text + (mine or trace(shown, which, default)), code))
        else:
            text, code = _what_it_does(first_mine, "your solve")
            if theirs is not None and theirs.status == FAIL:  # the attempt's answer beside it
                verb = "gives" if theirs.compared else "returns"
                text += f" (The attempt {verb} {safe_repr(theirs.actual, 300)}.)"
            elif theirs is not None and theirs.status != PASS:
                text += " (The attempt fails it too.)"
            hints.append(Hint("What your solve does there", text + trace(first_mine, "yours", _trace_yours(first_mine)), code))
    elif attempt is not None and not still_failing:
        first, isolates = _where_to_look(attempt, broken)
        if first is not None:
            should, code = _should(first)
            why = " (the broken version gets this one right, so here only the attempt's own mistake shows)" if isolates else ""
            if still_failing == set():  # you pass everything: the ladder is for comparison, not a place to look
                hints.append(Hint("Where the attempt fails", f"You pass every check. For comparison, the attempt fails '{first.check}'{why}: {should}.", code))
            else:
                hints.append(Hint("Where to look first", f"Start with the check '{first.check}'{why}: {should}.", code))
            text, code = _what_it_does(first)
            hints.append(Hint("What the attempt does there", text + trace(first, "attempt", _TRACE), code))
    elif attempt is None:
        recorded = record.verification.get("attempt")
        failing = next((o for o in recorded.observations if not o.passed), None) if recorded else None
        if failing is not None:  # a recorded run has no call: say "expected", which is true of any check
            expected, actual = safe_repr(failing.expected, 300), safe_repr(failing.actual, 300)
            hints.append(Hint("Where to look first", f"Start with the check '{failing.check}': the expected value is {expected}.", (expected,)))
            hints.append(Hint("What the attempt does there", f"There the attempt gives {actual}. {_reason(failing.expected, failing.actual)}{_TRACE}", (actual,)))
    hints += _story_hints(record, yours, attempt, match, bool(still_failing))
    return tuple(hints)


def _story_hints(record: Record, yours: RunResult | None, attempt: RunResult | None, match, failing: bool) -> list[Hint]:
    """Hints 3 and 4: the record's prose, as the attempt's story; only where your results are evidence of its mistake."""
    if not failing:  # no run of yours, or you pass: the attempt's story, for comparison
        return [Hint("The plausible attempt, and why it fails", record.failed_approach), Hint("Root cause", record.root_cause)]
    if match is not None and match.which == "attempt" and match.informative:
        here = [c for c in match.informative if yours is None or c[0] == yours.variant] or list(match.informative)
        named = _named(match.label(c) for c in here)
        return [Hint(f"The plausible attempt's mistake, where your results match it ({named})", record.failed_approach),
                Hint("Root cause of the attempt's failure", record.root_cause)]
    if _keeps_part_of_the_attempt(yours, attempt):
        return [Hint("The plausible attempt's mistake (part of it is still in yours: where yours is wrong, it gives the attempt's values)",
                     record.failed_approach), Hint("Root cause of the attempt's failure", record.root_cause)]
    return []  # your results are no evidence of the attempt's mistake: its story would be about someone else's code


def _named(labels) -> str:
    """Check labels, each once, quoted: "'a', 'b', …" past three."""
    seen = list(dict.fromkeys(labels))
    return ", ".join(repr(label) for label in seen[:3]) + (", …" if len(seen) > 3 else "")


def _at(run: RunResult | None, index: int) -> Observation | None:
    return run.observations[index] if run is not None and index < len(run.observations) else None


def _keeps_part_of_the_attempt(yours: RunResult | None, attempt: RunResult | None) -> bool:
    if yours is None or attempt is None:
        return False
    by_index = {o.index: o for o in attempt.observations}
    return any(o.index in by_index and partly_same(o, by_index[o.index]) for o in yours.observations)


_TRACE = " Work through that call by hand with the attempt's code (shown in watch it fail) and find the step where it goes wrong."
_TRACE_YOURS = " Work through that call by hand with your code and find the step where it goes wrong."


def _trace_yours(o: Observation) -> str:
    """How to look into your own failure. A call with keyword arguments gets one more way: vary each keyword
    (a solve that ignores temperature=0.25 shows it: in the playground the result does not change)."""
    import ast

    try:
        call = ast.parse(o.call, mode="eval").body
        passed = [(k.arg, ast.unparse(k.value)) for k in call.keywords if k.arg] if isinstance(call, ast.Call) else []
    except (SyntaxError, ValueError, RecursionError):
        passed = []
    keywords = [name for name, _ in passed]
    if not keywords:
        return _TRACE_YOURS
    named = ", ".join(f"{name}={clip(value, 40, one_line=True)}" for name, value in passed)  # never "passes size=:"
    # Each of them, not the first only: "other values of peak" points away from a bug in warmup.
    which = keywords[0] if len(keywords) == 1 else f"{', '.join(keywords[:-1])} or {keywords[-1]}, one at a time,"
    return (f"{_TRACE_YOURS} The call passes {named}: in the playground, try it with other values of {which} and see "
            "whether what your solve returns changes as the contract says it should.")


def did_not_run(o: Observation) -> bool:
    """A check that never called solve: the run stopped before it (its error says why), so it shows no mistake."""
    return o.status == ERROR and o.error is not None and o.error.type == "NotRun"


def _where_to_look(attempt: RunResult, broken: RunResult | None) -> tuple[Observation | None, bool]:
    failing = [o for o in attempt.observations if o.status != PASS]
    if broken is not None:
        passed_by_broken = {o.index for o in broken.observations if o.status == PASS}
        isolating = next((o for o in failing if o.index in passed_by_broken), None)
        if isolating is not None:
            return isolating, True
    return (failing[0] if failing else None), False


def _what_it_does(o: Observation, who: str = "the attempt") -> tuple[str, tuple[str, ...]]:
    """What `who` does on the check, in a sentence, and its code parts. "returns" only for a return value."""
    if o.status == FAIL:
        actual = safe_repr(o.actual, 300)
        if call_claims(o):  # a value that names an exception: what solve raised, never a diff of the names
            return f"There, with {who}, {call_claims(o)[0]}.", (o.calls[0].call,)
        if o.compared:
            returned = o.shown_returns()
            also = "".join(f" ({call} returned {safe_repr(value, 200)})" for call, value in returned[:1])
            code = (o.compared, actual, *(c for pair in returned[:1] for c in (pair[0], safe_repr(pair[1], 200))))
            return f"There, with {who}, {o.compared} is {actual}{also}. {_reason(o.expected, o.actual)}", code
        return f"There {who} returns {actual}. {_reason(o.expected, o.actual)}", (actual,)
    if o.status == TIMEOUT:
        return f"There {who} never returns: the check ran out of time.", ()
    if o.status == ERROR and o.error is not None:
        returned = o.shown_returns()
        if returned:  # not solve: the check's expression of what it returned raised
            call, value = returned[0]
            shown = safe_repr(value, 200)
            ask = ("is it of the type the contract asks for?" if o.error.type in ("AttributeError", "TypeError")
                   else "compare it with what the contract asks for.")
            return f"There {who} returns {shown} from {call}, and the check's {o.compared} raises {o.error} on it: {ask}", (call, shown, o.compared)
        returned_calls = [c for c in o.calls if c.raised is None]
        if returned_calls and all(c.raised is None or c.caught for c in o.calls):  # solve raised nothing: the check's code did
            last = returned_calls[-1]
            shown = safe_repr(last.returned, 200)
            return (f"There {who} returns {shown} from {last.call} and raises nothing; the check raises {o.error} on what it returned: "
                    f"is it of the type the contract asks for? The check expects {safe_repr(o.expected, 120)}."), (last.call, shown)
        return f"There {who} raises {o.error}.", ()
    return f"There {who} does not give the expected value.", ()


def same_outcome(mine: Observation, theirs: Observation) -> bool:
    """Whether two runs did the same on a check: the same status and, for a failure, the same value (decided on values)."""
    if mine.status != theirs.status or mine.check != theirs.check:
        return False
    if mine.status == FAIL:
        try:
            if not same_value(mine.actual, theirs.actual):
                return False
            # A check of an expression (`solve(x)['b']['r'] > solve(x)['b']['p']`) gives False for many different
            # results: the same only if solve returned the same too (else a half fix would count as the attempt's).
            if mine.returned and theirs.returned:
                return len(mine.returned) == len(theirs.returned) and all(same_value(a, b) for (_, a), (_, b) in zip(mine.returned, theirs.returned))
            return True
        except BaseException:  # noqa: BLE001 - a hostile __eq__: not the same
            return False
    if mine.status == ERROR:
        return mine.error is not None and theirs.error is not None and mine.error.type == theirs.error.type
    return True


def partly_same(mine: Observation, theirs: Observation) -> bool:
    """Whether yours is wrong only where theirs is wrong, giving their values there, and right somewhere they are not.

    A half fix (``max(s, 1) / warmup``) still has the attempt's ramp, one step late, at every other
    step: its values differ from the attempt's as a whole, yet it is not a mistake of its own.
    Decided on values, item by item, in lists and tuples of one length and in dicts of the same keys.
    """
    return mine.status == FAIL and theirs.status == FAIL and _subset_of_mistake(mine.expected, mine.actual, theirs.actual)


def _subset_of_mistake(expected, mine, theirs, depth: int = 0) -> bool:
    if depth > 50:
        return False
    try:
        if type(mine) in (list, tuple) and type(theirs) is type(mine) and type(expected) in (list, tuple) and len(mine) == len(theirs) == len(expected):
            keys = range(len(mine))
        elif type(mine) is dict and type(theirs) is dict and type(expected) is dict and mine.keys() == theirs.keys() == expected.keys():
            keys = list(mine)
        else:
            return False
        wrong = [k for k in keys if not same_value(mine[k], expected[k])]
        fixed = [k for k in keys if same_value(mine[k], expected[k]) and not same_value(theirs[k], expected[k])]
        return bool(wrong) and (bool(fixed) or any(not same_value(mine[k], theirs[k]) for k in wrong)) and all(
            same_value(mine[k], theirs[k]) or _subset_of_mistake(expected[k], mine[k], theirs[k], depth + 1) for k in wrong
        )
    except BaseException:  # noqa: BLE001 - a hostile value: not decided
        return False


def mistake_note(record: Record, yours: tuple[RunResult, ...], replays: dict[tuple[int, str], RunResult],
                 tallies: dict[int, MutantTally] | None = None) -> str | None:
    """The summary line about your failing checks: the `match_claim` (with the attempt or broken) in words, and how strong it is.

    `yours` are your runs (one per variant), `replays` the record's runs by (variant,
    implementation), `tallies` the mutants' runs by variant (`_evidence.run_mutants`).
    The record's ``failed_approach`` is quoted, as the attempt's, only when some matched
    check is informative. A partial match names the checks that match and the ones that
    are your own. None when nothing fails.
    """
    failing = [(run.variant, o) for run in yours for o in run.observations if o.status != PASS and not did_not_run(o)]
    if not failing:  # nothing failed, or nothing of yours ran (solve could not be sent): no mistake to name
        return None
    looping = [o for _, o in failing if o.status == TIMEOUT]
    if len(looping) == len(failing):
        return f"Your solve does not finish: {'every one' if len(looping) > 1 else 'the one'} of the {len(looping)} failing check{'s' if len(looping) != 1 else ''} timed out (a loop that never ends?)."
    n = len(failing)
    checks = f"{n} failing check{'s' if n != 1 else ''}"
    if len({variant for variant, _ in failing}) > 1:  # all variants: one check failing in five variants is not "5 failing checks"
        distinct = len({o.check for _, o in failing})
        checks = f"{n} failures ({distinct} check{'s' if distinct != 1 else ''}, in {len({v for v, _ in failing})} variants)"
    match = match_claim(yours, replays, tallies)
    if match is not None:
        return _match_sentence(record, match, checks, n, replays)
    partly = []  # checks where yours keeps part of the attempt's mistake: wrong only where it is, with its values
    for variant, o in failing:
        theirs = _their_observation(replays, variant, "attempt", o)
        if theirs is not None and partly_same(o, theirs) and o.check not in partly:
            partly.append(o.check)
    if partly:
        named = ", ".join(repr(label) for label in partly[:3]) + (", …" if len(partly) > 3 else "")
        return (f"On {named}, your solve is wrong only where the plausible attempt is, and there it gives the attempt's "
                f"values: part of the attempt's mistake is still in it. The plausible attempt's mistake was: {record.failed_approach}")
    # never "on all 1 failing check": the one, both, all N.
    every = f"the {checks[2:]}" if n == 1 else f"both {checks[2:]}" if n == 2 else f"all {checks}"
    return f"Your solve fails differently from the record's attempt and broken version on {every}: a mistake of its own."


def _match_sentence(record: Record, match: MatchesImplementation, checks: str, n: int, replays) -> str:
    """The match claim in words: on which checks, how strong, which are your own, and the attempt's story when it is evidence."""
    name = "the plausible attempt" if match.which == "attempt" else "the broken version"
    same = len(match.checks)
    weak = [c for c in match.checks if c not in match.informative]
    # No prose for broken: the record's summary is about the whole failure, and quoted here it sent a learner whose
    # bug was broken's (text.index without a start) back to the attempt's mistake. Broken's code shows what it does.
    story = (f" The plausible attempt's mistake was: {record.failed_approach}" if match.which == "attempt"
             else " Its code is in watch it fail above: compare it with yours.")
    if not match.informative:  # "on 1 check, which many mistakes fail the same way"
        k = len({match.label(c) for c in match.checks})
        return (f"Your solve gets the same wrong results as {name} on {k} check{'s' if k != 1 else ''} ({_named(match.label(c) for c in match.checks)}), "
                f"which many mistakes fail the same way: by itself no sign of {name}'s mistake"
                + (f"; on {_named(match.label(c) for c in match.own)} the wrong results are your own." if match.own else "."))
    strength = _strength(match, weak)
    if match.own:  # a partial match: which part
        return (f"Your solve gets the same wrong results as {name} on {_named(match.label(c) for c in match.checks)} "
                f"({same} of {checks}); on {_named(match.label(c) for c in match.own)} the wrong results "
                f"are your own.{strength}" + story)
    mine = set(match.checks)
    passes = []  # checks that it fails and yours passes: then its teaching text describes more than your mistake
    for variant in sorted({v for v, _ in match.checks}):
        run = replays.get((variant, match.which))
        for o in (run.observations if run is not None else ()):
            if o.status != PASS and (variant, o.index) not in mine and o.check not in passes:
                passes.append(o.check)
    if passes:
        # Part of the mistake: the attempt's own description ("merges the top level only") may not hold of this solve.
        return (f"Your solve gets the same wrong results as {name} on {same} of {checks}, but passes what it fails "
                f"on {_named(passes)}: part of its mistake, not all of it (its code is in watch it fail above).{strength}")
    return f"Your solve gets the same wrong results as {name} on {same} of {checks}.{strength}" + story


def _strength(match: MatchesImplementation, weak: list) -> str:
    """Which matched checks are evidence and which are not, each named: "" when every one is evidence.

    One sentence names both groups in full, so that no list of matched checks reads as all of them (a list of the
    weak ones in brackets after "on 4 of 4 failing checks" was read as the four)."""
    if not weak:
        return ""
    strong = [match.label(c) for c in match.checks if c not in weak]
    weak_labels = [match.label(c) for c in weak]
    strong_part = f" {_listed(strong)} {'is a sign' if len(set(strong)) == 1 else 'are signs'} of its mistake;" if strong else ""
    return (f"{strong_part} {_listed(weak_labels)} {'is' if len(set(weak_labels)) == 1 else 'are'} failed the same way "
            "by many mistakes.")


def _listed(labels) -> str:
    """Check labels, each once, quoted, in a sentence: "'a', 'b' and 'c'", or "'a', 'b', 'c' and 2 more"."""
    seen = [repr(label) for label in dict.fromkeys(labels)]
    if len(seen) > 4:
        return f"{', '.join(seen[:3])} and {len(seen) - 3} more"
    return seen[0] if len(seen) == 1 else f"{', '.join(seen[:-1])} and {seen[-1]}"


def _their_observation(replays: dict[tuple[int, str], RunResult], variant: int, implementation: str, o: Observation) -> Observation | None:
    """The record's implementation on the same check of the same variant (None when it did not get there)."""
    run = replays.get((variant, implementation))
    return run.observations[o.index] if run is not None and o.index < len(run.observations) else None


def _reason(expected, actual) -> str:
    """Why the check fails, in one sentence: the diff's pattern claim when one holds (it explains every difference,
    and is what the panel's pattern line says), else its first difference."""
    explained = diff(expected, actual)
    if not explained.differences:
        return ""
    if explained.pattern is not None:
        return f"Why: {explained.pattern}"
    d = explained.differences[0]
    where = f"At {d.path}: " if d.path else "Why: "
    return f"{where}{d.message}."
