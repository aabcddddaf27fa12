"""The hint ladder, from the record and a run of its attempt."""

from __future__ import annotations

from failuremap_edu import load_record, replay, run_checks
from failuremap_edu._hints import hint_ladder
from failuremap_edu._results import ErrorInfo, Observation, RunResult


TRACE = " Work through that call by hand with the attempt's code (shown in watch it fail) and find the step where it goes wrong."


def test_ladder_points_at_the_check_that_isolates_the_attempts_own_mistake(pairs):
    hints = hint_ladder(pairs, replay(pairs, "attempt"), replay(pairs, "broken"))
    assert [(h.title, h.text) for h in hints[:2]] == [
        ("Where to look first",
         "Start with the check 'same text distinct IDs' (the broken version gets this one right, so here only the attempt's own mistake shows): "
         "solve([['a1', 'same', 1], ['b1', 'same', 0]]) should return ['a1', 'b1']."),
        ("What the attempt does there", "There the attempt returns None. Why: expected a list, got None." + TRACE),
    ]
    assert [h.text for h in hints[2:]] == [pairs.failed_approach, pairs.root_cause]


def test_without_broken_the_first_failing_check_comes_first(pairs):
    hints = hint_ladder(pairs, replay(pairs, "attempt", variant=2))
    assert hints[0].text == "Start with the check 'replay same id': solve([['a2', 'one', 7], ['a2', 'changed', -2], ['b2', 'two', 0]]) should return ['a2', 'b2']."
    assert hints[1].text == "There the attempt returns ['a2', 'a2']. At [1]: expected 'b2', got 'a2'." + TRACE


def test_ladder_without_a_run_uses_the_recorded_observations(pairs):
    hints = hint_ladder(pairs, None)
    assert hints[0].text == "Start with the check 'replay same id': the expected value is ['a1', 'b1']."
    assert hints[1].text == "There the attempt gives ['a1', 'a1']. At [1]: expected 'b1', got 'a1'." + TRACE


def test_errors_and_timeouts_say_what_happened(pairs):
    def run(o):
        return RunResult(pairs.id, "attempt", 1, (o,), 2.0, "process")

    raised = Observation(0, "x", "error", False, call="solve([])", expected=None, error=ErrorInfo("KeyError", "'a'"))
    looped = Observation(0, "x", "timeout", False, call="solve([])", expected=None)
    assert hint_ladder(pairs, run(raised))[1].text == "There the attempt raises KeyError: 'a'." + TRACE
    assert hint_ladder(pairs, run(looped))[1].text == "There the attempt never returns: the check ran out of time." + TRACE


def test_an_attempt_that_passes_gets_only_the_prose_hints(pairs):
    passing = RunResult(pairs.id, "attempt", 1, (Observation(0, "x", "pass", True),), 2.0, "process")
    assert [h.title for h in hint_ladder(pairs, passing)] == ["The plausible attempt, and why it fails", "Root cause"]


def test_no_hint_repeats_the_title_or_the_contract():
    for record_id in ("FA-100061", "FA-100786"):
        record = load_record(record_id)
        for hint in hint_ladder(record, replay(record, "attempt")):
            assert record.contract not in hint.text and record.title not in hint.text and record.abstract not in hint.text


def _yours(record_id: str, failing: dict[int, tuple]) -> RunResult:
    """A learner's run of `record_id`: every check passes except `failing` (index -> what solve returned)."""
    record = load_record(record_id)
    base = replay(record, "attempt")
    observations = tuple(
        Observation(o.index, o.check, "fail" if o.index in failing else "pass", o.index not in failing,
                    failing.get(o.index, o.expected), o.expected, o.call)
        for o in base.observations
    )
    return RunResult(record.id, "yours", 1, observations, 2.0, "process")


def test_no_hint_points_at_a_check_you_already_pass():
    """A learner trial: at 5/6 (only 'whole marker prefix' left) hint 1 still named 'partial marker held'."""
    stopping = load_record("FA-100786")
    attempt, broken = replay(stopping, "attempt"), replay(stopping, "broken")
    assert hint_ladder(stopping, attempt, broken)[0].text.startswith("Start with the check 'partial marker held'")
    yours = _yours("FA-100786", {4: ("<", "stop>")})
    first, second = hint_ladder(stopping, attempt, broken, yours)[:2]
    assert first.text == "Start with the check 'whole marker prefix', the first one you still fail: solve('<stop>', ['<stop>']) should return ('<stop>', '')."
    assert (second.title, second.text.startswith("There the attempt returns ('<', 'stop>').")) == ("What the attempt does there, and yours too", True)


def test_when_only_checks_the_attempt_passes_are_left_the_hints_are_about_yours():
    stopping = load_record("FA-100786")
    attempt, broken = replay(stopping, "attempt"), replay(stopping, "broken")
    yours = _yours("FA-100786", {3: ("ab", "c")})  # 'empty stop list', which the attempt passes
    first, second, *prose = hint_ladder(stopping, attempt, broken, yours)
    assert (first.title, first.text) == (
        "Where to look first",
        "Start with the check 'empty stop list', the first one you still fail: solve('abc', []) should return ('abc', '').",
    )
    assert (second.title, second.text) == (
        "What your solve does there",
        "There your solve returns ('ab', 'c'). At [0]: expected 'abc', got 'ab'."
        " Work through that call by hand with your code and find the step where it goes wrong.",
    )
    assert prose == []  # yours matches the attempt on no check: its story is not about yours


def test_when_you_pass_everything_no_hint_says_where_to_look():
    stopping = load_record("FA-100786")
    attempt, broken = replay(stopping, "attempt"), replay(stopping, "broken")
    passing, without = hint_ladder(stopping, attempt, broken, _yours("FA-100786", {})), hint_ladder(stopping, attempt, broken)
    assert (passing[0].title, passing[0].text) == (
        "Where the attempt fails",
        "You pass every check. For comparison, the attempt fails 'partial marker held': solve('hello<st', ['<stop>']) should return ('hello', '<st').",
    )
    assert passing[1:] == without[1:]


def test_where_yours_fails_differently_the_second_hint_is_about_yours():
    """A learner trial: hint 2 said the attempt returns ('a', 'baba') where theirs returned ('abab', 'a')."""
    stopping = load_record("FA-100786")
    attempt, broken = replay(stopping, "attempt"), replay(stopping, "broken")
    yours = _yours("FA-100786", {2: ("abab", "a"), 4: ("", "<stop>")})
    first, second = hint_ladder(stopping, attempt, broken, yours)[:2]
    assert first.text == "Start with the check 'longest suffix prefix', the first one you still fail: solve('ababa', ['ababx', 'baq']) should return ('ab', 'aba')."
    assert (second.title, second.text) == (
        "What your solve does there",
        "There your solve returns ('abab', 'a'). At [0]: expected 'ab', got 'abab'. (The attempt returns ('a', 'baba').)"
        " Work through that call by hand with your code and find the step where it goes wrong.",
    )


def test_a_run_that_stopped_with_no_observation_is_not_a_pass():
    """'You pass every check' was said for a run that stopped before any check (a solution file that failed to load)."""
    stopping = load_record("FA-100786")
    attempt, broken = replay(stopping, "attempt"), replay(stopping, "broken")
    stopped = RunResult(stopping.id, "yours", 1, (), 2.0, "process", ErrorInfo("Timeout", "importing the solution file took too long"))
    first = hint_ladder(stopping, attempt, broken, stopped)[0]
    assert first.title == "Where to look first" and "You pass every check" not in first.text
    # What stopped it comes first; the rest is the attempt's ladder (nothing of yours ran to point at).
    assert first.text == ("Your solve did not run: importing the solution file took too long. Fix that first; "
                          "the other hints are about the record's attempt until your solve runs.")
    assert hint_ladder(stopping, attempt, broken, stopped)[1:] == hint_ladder(stopping, attempt, broken)
    reached = tuple(o for o in attempt.observations if o.status == "pass")[:1]  # one check passed, then the run stopped
    partial = RunResult(stopping.id, "yours", 1, reached, 2.0, "process", ErrorInfo("RuntimeError", "the fixture code stopped"))
    assert reached and "You pass every check" not in hint_ladder(stopping, attempt, broken, partial)[0].text
# --------------------------------------------- expressions of the result, and your mistake (issue 21 §1, §6)


def _own(record_id):
    from conftest import record_path

    return load_record(record_path(record_id))


def test_a_hint_about_a_predicate_says_should_be_never_should_return():
    """A learner trial: 'solve(1, peak=0.01, warmup=4) should return True', although solve returns [0.0]."""
    warmup = _own("TR-001010")
    first, second, *_ = hint_ladder(warmup, replay(warmup, "attempt"), replay(warmup, "broken"))
    assert first.text == (
        "Start with the check 'first step nonzero' (the broken version gets this one right, so here only the attempt's own "
        "mistake shows): solve(1, peak=0.01, warmup=4)[0] > 0 should be True."
    )
    assert second.text.startswith(
        "There, with the attempt, solve(1, peak=0.01, warmup=4)[0] > 0 is False (solve(1, peak=0.01, warmup=4) returned [0.0]). "
    )
    assert "should return" not in first.text + second.text and "returns False" not in second.text
    assert first.code == ("solve(1, peak=0.01, warmup=4)[0] > 0", "True")  # shown as code, whitespace kept


def test_your_solve_makes_the_attempts_mistake():
    warmup = _own("TR-001010")
    attempt, broken = replay(warmup, "attempt"), replay(warmup, "broken")
    replays = {(1, "attempt"): attempt, (1, "broken"): broken}
    from failuremap_edu._evidence import match_claim, run_mutants, verify_match
    from failuremap_edu._hints import mistake_note

    def yours(solve):
        from failuremap_edu import run_checks

        return (run_checks(warmup, solve, 1),)

    def like_the_attempt(steps, *, peak, warmup):
        return [min(peak * t / warmup, peak) for t in range(steps)]

    def own_mistake(steps, *, peak, warmup):
        return [peak * 3] * steps

    def half(steps, *, peak, warmup):  # the attempt's ramp, and a wrong length of its own
        return [min(peak * t / warmup, peak) for t in range(steps)] + ([0.0] if steps == 6 else [])

    def right(steps, *, peak, warmup):
        return [min(peak * (t + 1) / warmup, peak) for t in range(steps)]

    assert mistake_note(warmup, yours(like_the_attempt), replays) == (
        "Your solve gets the same wrong results as the plausible attempt on 2 of 2 failing checks. The plausible attempt's mistake was: "
        + warmup.failed_approach
    )
    assert mistake_note(warmup, yours(own_mistake), replays) == (
        "Your solve fails differently from the record's attempt and broken version on both failing checks: a mistake of its own."
    )
    # Without mutants to weigh it, the match on the predicate check counts; with them, many other mistakes give its
    # False too, and a half fix that matches only there is not told the attempt's story.
    assert mistake_note(warmup, yours(half), replays) == (
        "Your solve gets the same wrong results as the plausible attempt on 'first step nonzero' (1 of 2 failing checks); "
        f"on 'warmup ramp' the wrong results are your own. The plausible attempt's mistake was: {warmup.failed_approach}"
    )
    tallies = {1: run_mutants(warmup, 1, 2.0)}
    assert mistake_note(warmup, yours(half), replays, tallies) == (
        "Your solve gets the same wrong results as the plausible attempt on 1 check ('first step nonzero'), which many mistakes fail "
        "the same way: by itself no sign of the plausible attempt's mistake; on 'warmup ramp' the wrong results are your own."
    )
    claim = match_claim(yours(half), replays, tallies)
    assert (claim.which, claim.checks, claim.informative, claim.own, claim.strength) == ("attempt", ((1, 1),), (), ((1, 0),), "uninformative")
    assert verify_match(claim, yours(half), replays, tallies)
    full = match_claim(yours(like_the_attempt), replays, tallies)
    assert (full.checks, full.informative, full.own) == (((1, 0), (1, 1)), ((1, 0),), ())
    assert verify_match(full, yours(like_the_attempt), replays, tallies)
    assert not verify_match(full, yours(half), replays, tallies)
    assert mistake_note(warmup, yours(right), replays) is None


def test_the_same_mistake_is_decided_on_values_with_their_types():
    """[(0, 2)] and [[0, 2]] print alike in JSON; a list of lists is not the attempt's mistake when the attempt returns tuples."""
    from failuremap_edu._hints import same_outcome

    a = Observation(0, "x", "fail", False, [[0, 2]], [(0, 2)])
    assert same_outcome(a, Observation(0, "x", "fail", False, [[0, 2]], [(0, 2)]))
    assert not same_outcome(a, Observation(0, "x", "fail", False, [(0, 3)], [(0, 2)]))
    assert not same_outcome(Observation(0, "x", "fail", False, [(0, 2), [1]], None), Observation(0, "x", "fail", False, [[0, 2], [1]], None))
    assert not same_outcome(Observation(0, "x", "fail", False, [1], None), Observation(0, "x", "fail", False, [1.0], None))


def test_when_yours_fails_differently_the_attempts_hints_say_they_are_the_attempts():
    """A learner read 'Root cause: ... must be strict' about a mistake they did not make (two learner trials)."""
    record = load_record("FA-100786")
    attempt, broken = replay(record, "attempt"), replay(record, "broken")
    mine = run_checks(record, lambda text, stops: ("nothing like it", "at all"))
    texts = [h.text for h in hint_ladder(record, attempt, broken, mine)]
    assert record.failed_approach not in texts and record.root_cause not in texts  # no match: the attempt's story is not told
    same = replay(record, "attempt")
    assert [(h.title, h.text) for h in hint_ladder(record, attempt, broken, same)][-2:] == [
        ("The plausible attempt's mistake, where your results match it ('partial marker held', 'no prefix emits all', 'longest suffix prefix', …)",
         record.failed_approach), ("Root cause of the attempt's failure", record.root_cause)]


def test_a_half_fix_that_keeps_part_of_the_attempts_mistake_is_told_so():
    """A trial's max(s, 1) / warmup fixed the first step only: wrong exactly where the attempt is, with its values, at
    every other step. The panel said "a mistake of its own" and hint 3 "(not yours)": both pushed it away from the cause."""
    from failuremap_edu._hints import mistake_note, partly_same
    from failuremap_edu._results import Observation

    expected, attempt_gives = [0.25, 0.5, 0.75, 1.0], [0.0, 0.25, 0.5, 0.75]

    def fail(actual):
        return Observation(0, "warmup ramp", "fail", False, expected=expected, actual=actual)

    assert partly_same(fail([0.25, 0.25, 0.5, 0.75]), fail(attempt_gives))  # one step fixed, the rest the attempt's
    assert not partly_same(fail(attempt_gives), fail(attempt_gives))  # the same values: that is the attempt's whole mistake
    assert not partly_same(fail([0.25, 0.25, 0.5, 0.7]), fail(attempt_gives))  # another value where it is wrong
    assert not partly_same(fail([0.2, 0.5, 0.75, 0.75]), fail([0.25, 0.5, 0.75, 0.75]))  # wrong where the attempt is right
    assert not partly_same(fail([0.25, 0.25]), fail(attempt_gives))  # another length: not compared item by item
    assert partly_same(Observation(0, "d", "fail", False, expected={"a": 1, "b": [1, 2]}, actual={"a": 1, "b": [1, 0]}),
                       Observation(0, "d", "fail", False, expected={"a": 1, "b": [1, 2]}, actual={"a": 0, "b": [1, 0]}))

    record = load_record("FA-100786")
    replays = {(1, "attempt"): RunResult(record.id, "attempt", 1, (fail(attempt_gives),), 2.0, "process")}
    note = mistake_note(record, (RunResult(record.id, "yours", 1, (fail([0.25, 0.25, 0.5, 0.75]),), 2.0, "process"),), replays)
    assert note == ("On 'warmup ramp', your solve is wrong only where the plausible attempt is, and there it gives the attempt's "
                    f"values: part of the attempt's mistake is still in it. The plausible attempt's mistake was: {record.failed_approach}")
    other = mistake_note(record, (RunResult(record.id, "yours", 1, (fail([9, 9, 9, 9]),), 2.0, "process"),), replays)
    assert other.endswith("a mistake of its own.")
    half = RunResult(record.id, "yours", 1, (fail([0.25, 0.25, 0.5, 0.75]),), 2.0, "process")
    titles = [h.title for h in hint_ladder(record, replays[(1, "attempt")], None, half)]
    assert "The plausible attempt's mistake (part of it is still in yours: where yours is wrong, it gives the attempt's values)" in titles


def test_your_own_failure_on_a_call_with_keywords_suggests_varying_them():
    """A trial's solve ignored temperature=0.25; nothing suggested trying other values of it."""
    from failuremap_edu._hints import _trace_yours
    from failuremap_edu._results import Observation

    keyed = Observation(0, "c", "fail", False, actual=False, expected=True, call="solve([[0.0, 1.0]], temperature=0.25)")
    assert _trace_yours(keyed).endswith("The call passes temperature=0.25: in the playground, try it with other values of temperature "
                                        "and see whether what your solve returns changes as the contract says it should.")
    two = Observation(0, "c", "fail", False, call="solve(6, peak=1.0, warmup=4)")
    assert "try it with other values of peak or warmup, one at a time, and see" in _trace_yours(two)
    assert _trace_yours(Observation(0, "c", "fail", False, call="solve([1, 2])")) == (
        " Work through that call by hand with your code and find the step where it goes wrong.")


def test_the_why_of_a_hint_is_the_pattern_line_when_one_holds():
    """The TT-500001 trial (TR-005001), run 4: every window one reading late. Hint 2's 'Why' said 'expected 4 items,
    got 3' while the panel's pattern line said got = expected + 1: the hint takes the pattern claim."""
    from collections import deque

    windows = _own("TR-005001")

    def solve(stream, window, stride):
        buf = deque(maxlen=window)
        for i, item in enumerate(stream):
            buf.append(item)
            if len(buf) == window and i % stride == 0:
                yield list(buf)

    mine = run_checks(windows, solve)
    second = hint_ladder(windows, replay(windows, "attempt"), replay(windows, "broken"), mine)[1].text
    assert "Why: In the 3 items both have, every value is off by the same amount: got = expected + 1" in second
    assert "Why: expected 4 items, got 3" not in second


class _Ambiguous:
    """A result whose == raises, as a numpy array's truth value does."""

    def __eq__(self, other):
        raise ValueError("The truth value of an array with more than one element is ambiguous")

    __hash__ = None


def _returns_ambiguous(candidates):
    return _Ambiguous()


def test_an_error_the_comparison_raised_is_never_said_to_be_solves_and_the_row_shows_what_solve_returned():
    from failuremap_edu import Exercise
    from failuremap_edu.render._text import render_run

    e = Exercise("FA-100061", log_progress=False, timeout=2)
    e.solve = _returns_ambiguous
    e.run()
    run = e.runs[0]
    first = next(o for o in run.observations if o.status == "error")
    assert first.calls and all(c.raised is None for c in first.calls)  # solve returned: the check's comparison raised
    told = next(h.text for h in e.hints if h.title.startswith("What your solve does"))
    assert "raises nothing" in told and "the check raises ValueError" in told and "There your solve raises" not in told
    row = render_run(run).split(f"error: {first.check}")[1].split("\n\n")[0]
    assert "returned _Ambiguous" in row or "returned <" in row, row
