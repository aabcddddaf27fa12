"""What the worker sends back: plain data, bounded output, trimmed errors."""

from __future__ import annotations

import collections
import sys
from dataclasses import replace

from failuremap_edu.runner._session import OutputCapture
from failuremap_edu._values import Opaque, error_payload, safe_repr
from failuremap_edu._portable import portable


def test_plain_values_pass_through_with_their_types():
    value = {"a": (1, 2.5, None, True), "b": [b"x", {1, 2}, frozenset({3})], "c": 1 + 2j, ("k", 1): "tuple key"}
    assert portable(value) == value
    assert type(portable(value)["a"]) is tuple


def test_non_plain_values_become_opaque_with_a_plain_equivalent():
    Point = collections.namedtuple("Point", "x y")
    out = portable([Point(1, 2), collections.OrderedDict(a=1)])
    assert isinstance(out[0], Opaque) and out[0].type_name.endswith("Point") and out[0].plain == (1, 2)
    assert out[0].repr == "Point(x=1, y=2)"
    assert out[1].plain == {"a": 1}


def test_cycles_depth_and_size_are_bounded():
    loop = []
    loop.append(loop)
    assert portable(loop)[0].reason == "contains itself"
    deep = current = []
    for _ in range(500):
        current.append([])
        current = current[0]
    out = portable(deep)
    for _ in range(201):
        out = out[0]
    assert isinstance(out, Opaque) and "nested more than 200 levels" in out.reason


def test_hostile_repr_is_contained():
    class Hostile:
        def __repr__(self):
            raise RuntimeError("no")

    assert safe_repr(Hostile()) == "<Hostile object; repr() raised RuntimeError>"
    assert portable(Hostile()).repr == "<Hostile object; repr() raised RuntimeError>"


def test_output_capture_keeps_a_head_and_counts_the_rest():
    capture = OutputCapture(10)
    capture.stream.write("héllo wörld, more text\n")
    text, dropped = capture.take()
    assert text == "héllo wö" and dropped == len("héllo wörld, more text\n".encode()) - 10
    assert capture.take() == ("", 0)


def test_output_capture_survives_a_closed_stream():
    capture = OutputCapture(100)
    saved = sys.stdout, sys.stderr
    try:
        capture.install()
        sys.stdout.close()
        capture.take()
        print("still here")
        text, _ = capture.take()
    finally:
        sys.stdout, sys.stderr = saved
    assert text == "still here\n"


def test_error_payload_names_the_exception_like_a_traceback():
    import json

    try:
        json.loads("{")
    except ValueError as exc:
        payload = error_payload(exc)
    assert payload["type"] == "json.decoder.JSONDecodeError"
    assert payload["traceback"].startswith("Traceback (most recent call last):")
    assert "failuremap_edu" not in payload["traceback"]


# ------------------------------------------------------------ a session's messages


def _session(record, solve, *, replay=False, not_run=None, skip=0, interrupted=frozenset()):
    from failuremap_edu._fixtures import read_fixtures
    from failuremap_edu.runner._api import _plan
    from failuremap_edu.runner._session import Session

    fixtures = read_fixtures(record, "attempt")
    plan = _plan(fixtures.program(replay=replay), record, None if replay else solve, 1, 2.0, 100, 8000, fixtures.sites)
    sent = []
    session = Session(sent.append, replace(plan, interrupted=interrupted), OutputCapture(8000), skip=skip)
    session.not_run = not_run
    saved = sys.stdout, sys.stderr
    try:
        session.run(plan.solve)
    finally:
        sys.stdout, sys.stderr = saved
    return sent


def test_a_check_reports_its_start_each_call_as_it_is_entered_and_its_end(stopping):
    sent = _session(stopping, lambda text, stops: (text, ""))
    assert [m[0] for m in sent[:4]] == ["begin", "call", "judged", "result"] and sent[-1] == ("done", 6)
    begin, call, _, result = sent[:4]
    assert begin == ("begin", 0, 0, "partial marker held", ("hello", "<st"))  # the expected, ahead of solve
    assert call == ("call", 0, "solve('hello<st', ['<stop>'])")
    assert result[1]["expected"] == ("hello", "<st") and result[1]["call"] == call[2]


def test_in_a_replay_the_expected_waits_for_solve(stopping):
    """The record's own solve shares the fixture's variables, so nothing is computed ahead of it."""
    begin = _session(stopping, None, replay=True)[0]
    assert begin[4].type_name == "not computed" and "after solve returns" in begin[4].reason


def test_listing_only_never_calls_solve(stopping):
    called = []
    sent = _session(stopping, lambda text, stops: called.append(text), not_run="not now")
    results = [m[1] for m in sent if m[0] == "result"]
    assert called == [] and len(results) == 6
    assert {(r["status"], r["error"]["type"], r["error"]["message"]) for r in results} == {("error", "NotRun", "not now")}
    assert results[0]["call"] == "solve('hello<st', ['<stop>'])" and results[0]["expected"] == ("hello", "<st")


def test_what_an_expected_may_read_ahead_of_solve():
    from failuremap_edu.runner._session import _reads_plain_data

    data, helper = [1, 2], (lambda: None)
    g = {"data": data, "helper": helper, "n": 3, "sorted": sorted}
    assert _reads_plain_data(eval("lambda: [n, data[0], len(data), sorted(data)]", {"sorted": sorted}), {"data": data, "n": 3})
    assert not _reads_plain_data(eval("lambda: helper()", g), g)  # the record's code: may have effects
    assert not _reads_plain_data(eval("lambda: data.pop()", g), g)  # a method: may have effects
    assert not _reads_plain_data(eval("lambda: sorted(data)", g), g)  # `sorted` rebound by the script
    assert _reads_plain_data(eval("lambda: [i * n for i in range(n)]", g), g)


def test_a_fresh_worker_runs_the_checks_before_skip_again_unreported():
    """TR-001919 after its check 2 was stopped: check 1 runs again (res bound, data emptied), 2 does not, 3 on are reported."""
    from conftest import record_path
    from failuremap_edu import load_record

    record = load_record(record_path("TR-001919"))
    sent = _session(record, None, replay=True, skip=2, interrupted=frozenset({1}))
    assert [m for m in sent if m[0] == "again"] == [("again", 0)]
    results = [m[1] for m in sent if m[0] == "result"]
    assert [(r["index"], r["status"], r["actual"]) for r in results] == [(2, "pass", [5]), (3, "fail", []), (4, "pass", 1)]
