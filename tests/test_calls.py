"""What a check did with solve: every call recorded in the worker, exceptions as exceptions, the record's helpers, objects by their fields.

Records TR-003434 (a helper ``raises`` that catches solve's exception; a check that
calls solve 1,000 times) and TR-003535 (a ``Stream`` without a repr, read through a
helper ``first_batch_reads``). PYTEST_DONT_REWRITE: the learner's ``assert`` in `_asserting` keeps its own message.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from failuremap_edu import load_record, run_checks
from failuremap_edu._call_claims import CallRaised, RaisedNothing, call_claims, exception_name, verify
from failuremap_edu._results import FAIL, Call, ErrorInfo, Observation
from failuremap_edu._values import fields_repr, portable, safe_repr
from failuremap_edu.render._html import observation_html
from failuremap_edu.render._text import first_reason, render_observation
from failuremap_edu.runner._calls import CALLS_KEPT
from failuremap_edu.runner import replay

from conftest import record_path


def _asserting(stop, step):
    assert step > 0, f"step must be positive, got {step}"
    return list(range(0, stop, step))


def _silent(stop, step):
    return [i for i in range(0, stop, step)] if step > 0 else []


def _eager(items, size):
    items = list(items)
    for i in range(0, len(items), size):
        yield items[i:i + size]


@pytest.fixture(scope="module")
def raises_record():
    return load_record(record_path("TR-003434"))


@pytest.fixture(scope="module")
def asserting_run(raises_record):
    return run_checks(raises_record, _asserting)


def _by_label(run, label):
    return next(o for o in run.observations if o.check == label)


def test_a_call_whose_exception_the_helper_caught_is_recorded_with_its_exception_and_line(asserting_run):
    o = _by_label(asserting_run, "a negative step raises")
    assert o.status == FAIL and o.actual == "AssertionError"
    [call] = o.calls
    assert call.call == "solve(3, -1)" and call.returned is None and call.caught
    assert call.raised == ErrorInfo("AssertionError", "step must be positive, got -1")
    assert call.line == _asserting.__code__.co_firstlineno + 1  # the assert, in solve's own file
    assert call.seconds > 0 and o.calls_omitted == 0


def test_a_call_that_returned_is_recorded_with_its_value(asserting_run):
    o = _by_label(asserting_run, "steps of 2")
    assert [(c.call, c.returned, c.raised, c.caught) for c in o.calls] == [("solve(7, 2)", [0, 2, 4, 6], None, False)]


def test_a_check_that_calls_solve_a_thousand_times_keeps_the_first_few_and_a_count(asserting_run):
    o = _by_label(asserting_run, "every stop below 1000")
    assert [c.call for c in o.calls] == [f"solve({n}, 1)" for n in range(CALLS_KEPT)]
    assert [c.returned for c in o.calls] == [list(range(n)) for n in range(CALLS_KEPT)]
    assert o.calls_omitted == 1000 - CALLS_KEPT
    assert o.to_json()["calls_omitted"] == 1000 - CALLS_KEPT and len(o.to_json()["calls"]) == CALLS_KEPT


def test_the_exception_is_said_as_an_exception_never_as_a_character_diff(asserting_run):
    o = _by_label(asserting_run, "a negative step raises")
    [claim] = call_claims(o)
    assert claim == CallRaised("solve(3, -1)", "AssertionError", "step must be positive, got -1", o.calls[0].line, "ValueError")
    assert verify(claim, o)
    text = render_observation(o)
    assert f"solve(3, -1) raised AssertionError: step must be positive, got -1 (line {o.calls[0].line}), where the check expects ValueError" in text
    assert "index 0" not in text and "'Assertion'" not in text
    assert first_reason(o) == str(claim)
    html = observation_html(o, css=False)
    assert "raised AssertionError" in html and "fm-textdiff" not in html and "index 0" not in html


def test_a_missing_exception_reads_returned_and_raised_nothing(raises_record):
    o = _by_label(run_checks(raises_record, _silent), "a negative step raises")
    assert o.actual == "no error" and [(c.call, c.returned, c.raised) for c in o.calls] == [("solve(3, -1)", [], None)]
    [claim] = call_claims(o)
    assert claim == RaisedNothing("solve(3, -1)", [], "ValueError") and verify(claim, o)
    assert "solve(3, -1) returned [] and raised nothing, where the check expects ValueError" in render_observation(o)


def test_calls_inside_the_records_helpers_are_recorded_in_a_replay_too(raises_record):
    o = _by_label(replay(raises_record, "broken"), "a negative step raises")
    assert [(c.call, c.returned) for c in o.calls] == [("solve(3, -1)", [])]
    assert o.calls[0].line == 0 and not o.calls[0].caught


def test_the_helpers_a_check_uses_come_with_their_source(asserting_run):
    o = _by_label(asserting_run, "a negative step raises")
    assert [(h.name, h.kind) for h in o.helpers] == [("raises", "function")]
    assert o.helpers[0].source.startswith("def raises(f, *args):") and "return 'no error'" in o.helpers[0].source
    assert _by_label(asserting_run, "steps of 2").helpers == ()
    assert "def raises(f, *args):" in observation_html(o) and "uses:     function raises" in render_observation(o)


def test_a_helper_that_uses_a_class_brings_the_class_along_and_objects_show_by_their_fields():
    record = load_record(record_path("TR-003535"))
    run = run_checks(record, _eager)
    o = _by_label(run, "first batch reads 3")
    assert [h.name for h in o.helpers] == ["Stream", "first_batch_reads"] and o.helpers[0].kind == "class"
    assert o.actual == 50 and o.call == "solve(Stream(n=50, read=0), 3)"
    assert [c.call for c in o.calls] == ["solve(Stream(n=50, read=0), 3)"] and "object at 0x" not in render_observation(o)
    direct = _by_label(run, "the first batch of a stream")
    assert [h.name for h in direct.helpers] == ["Stream"]


def test_fields_repr_reads_attributes_without_running_the_class_code():
    class Probe:
        def __init__(self):
            self.n, self.read = 50, 3

        def __getattr__(self, name):  # never asked: only the instance's own attributes are read
            raise AssertionError(name)

    class Slots:
        __slots__ = ("a", "b")

        def __init__(self):
            self.a = [1]

    class Loop:
        def __init__(self):
            self.me = self

    assert safe_repr(Probe()) == "Probe(n=50, read=3)" and repr(portable(Probe())) == "Probe(n=50, read=3)"
    assert fields_repr(Slots()) == "Slots(a=[1])"
    assert fields_repr(Loop()) == "Loop(me=Loop(me=Loop(me=Loop(…))))"
    assert fields_repr(object()) is None and fields_repr([1]) is None and fields_repr(ValueError("x")) is None


def _observation(calls, expected, actual, omitted=0):
    return Observation(0, "c", FAIL, False, actual, expected, "; ".join(c.call for c in calls), compared="f(solve)", calls=tuple(calls), calls_omitted=omitted)


_names = st.sampled_from(["ValueError", "TypeError", "AssertionError", "KeyError", "ZeroDivisionError", "mylib.ParseError"])


@settings(max_examples=150, deadline=None)
@given(expected=_names, raised=_names, message=st.text(max_size=20), line=st.integers(0, 99), caught=st.booleans())
def test_a_raised_claim_verifies_and_any_change_to_it_does_not(expected, raised, message, line, caught):
    call = Call("solve(1)", None, ErrorInfo(raised, message), line, 0.001, caught)
    o = _observation([Call("solve(0)", 0), call], expected, raised.rsplit(".", 1)[-1])
    claims = call_claims(o)
    assert len(claims) == 1 and verify(claims[0], o)
    claim = claims[0]
    assert not verify(CallRaised("solve(0)", claim.raised, claim.message, claim.line, claim.expected), o)
    assert not verify(CallRaised(claim.call, claim.raised, claim.message + "!", claim.line, claim.expected), o)
    assert not verify(CallRaised(claim.call, claim.raised, claim.message, claim.line + 1, claim.expected), o)
    assert not verify(RaisedNothing(claim.call, None, claim.expected), o)


@settings(max_examples=100, deadline=None)
@given(expected=_names, returned=st.lists(st.integers(), max_size=3), got=st.sampled_from(["no error", None, False, "ok"]))
def test_a_raised_nothing_claim_holds_only_when_no_call_raised(expected, returned, got):
    o = _observation([Call("solve(3, -1)", returned)], expected, got)
    [claim] = call_claims(o)
    assert claim == RaisedNothing("solve(3, -1)", returned, expected) and verify(claim, o)
    raising = _observation([Call("solve(3, -1)", returned), Call("solve(4)", None, ErrorInfo("KeyError", "k"))], expected, got)
    assert call_claims(raising) == () and not verify(claim, raising)
    assert call_claims(_observation([Call("solve(3, -1)", returned)], expected, got, omitted=5)) == ()  # an uncounted call may have raised


def test_exception_name_reads_names_and_classes_only():
    assert exception_name("ValueError") == "ValueError" and exception_name("json.JSONDecodeError") == "json.JSONDecodeError"
    assert exception_name(portable(ValueError)) == "ValueError"
    assert exception_name("no error") is None and exception_name("Value") is None and exception_name(3) is None


def test_the_calls_render_in_order_with_outcome_and_time():
    calls = [Call("solve(1)", [1], seconds=0.000004), Call("solve(2)", None, ErrorInfo("KeyError", "'k'"), 7, 0.34, True)]
    o = Observation(0, "two calls", "pass", True, 2, 2, "solve(1); solve(2)", compared="g(solve)", calls=tuple(calls), calls_omitted=3)
    lines = render_observation(o).splitlines()
    assert lines[2:5] == [
        "  calls:    solve(1) returned [1]",
        "            solve(2) raised KeyError: 'k' (line 7), caught by the check's code · 0.3 s",
        "            … and 3 more calls of solve (5 in all)",
    ]
    html = observation_html(o, css=False)
    assert '<li class="fm-call">solve(1) returned [1]</li>' in html and "… and 3 more calls of solve (5 in all)" in html


def test_one_call_that_returned_is_not_listed_twice():
    o = Observation(0, "one", "pass", True, [1], [1], "solve(1)", calls=(Call("solve(1)", [1]),))
    assert "calls:" not in render_observation(o) and "fm-calls" not in observation_html(o)


_LABELS: dict = {}


def _one_map(labels):
    """TR-005004's attempt, as a learner's cell: one module-level dict, returned by every call."""
    for label in sorted(set(labels)):
        _LABELS.setdefault(label, len(_LABELS))
    return _LABELS


@pytest.mark.parametrize("isolation", ["process", "inprocess"])
def test_a_call_is_shown_with_what_it_returned_when_it_returned_and_a_later_change_of_the_same_object_is_said(isolation):
    _LABELS.clear()
    o = _by_label(run_checks(load_record(record_path("TR-005004")), _one_map, isolation=isolation), "the first map, kept")
    first, second = o.calls
    assert "c" not in first.returned and first.returned == {**{k: v for k, v in second.returned.items() if k != "c"}}
    assert first.changed.by == "solve(['c'])" and first.changed.value == second.returned and second.changed is None
    text = render_observation(o)
    assert (f"solve(['b', 'a']) returned {safe_repr(first.returned)} when it returned; a later call, solve(['c']), returned this same"
            f" dict object, changed to {safe_repr(second.returned)}") in text
    assert "changed to" in observation_html(o) and o.actual == second.returned  # the check's value is the object at check time


def test_a_result_the_check_itself_changes_is_said_changed_by_the_checks_end():
    from failuremap_edu.runner._calls import CallLog, at_return

    log, value = CallLog(), [1]
    log.returned("solve(1)", value, 0.0)
    value.append(2)
    [entry], _ = log.payload(None)
    assert entry["returned"] == [1] and entry["later"] == {"value": [1, 2], "by": None}
    assert Call("solve(1)", [1], changed=__import__("failuremap_edu._results", fromlist=["ChangedAfter"]).ChangedAfter([1, 2])).changed_text() == (
        "by the check's end this same list object had changed to [1, 2]")
    big = [[0] * 2000] * 500
    assert at_return(big) is at_return((1, 2)) is at_return(_Opaque()) is at_return([[0] * 2000])  # too big, unchangeable, a class: no copy
    assert at_return([{"a": [1]}]) == [{"a": [1]}]


class _Opaque:
    pass
