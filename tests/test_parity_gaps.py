"""The gaps between the harness and the replay that issue 32 found, each on a test record of its own."""

from __future__ import annotations

import pytest

from conftest import record_path
from failuremap_edu import load_record, replay, verify_record
from failuremap_edu._parity import harness_observations

MODES = ["process", "inprocess"]


def _recorded(record, name):
    return [(o.check, o.actual, o.expected, o.passed) for o in record.verification[name].observations]


def _replayed(record, name, result):
    return [(o.check, (o.final or (o.actual,))[0], (o.final or (None, o.expected))[1], o.passed) for o in harness_observations(record, name, result)]


@pytest.mark.parametrize("isolation", MODES)
def test_an_exception_in_a_check_reaches_the_fixtures_except_clause(isolation):
    record = load_record(record_path("TR-001818"))
    broken = replay(record, "broken", isolation=isolation)
    assert [(o.check, o.status) for o in broken.observations] == [
        ("mean of three", "fail"), ("one item", "pass"), ("empty batch", "error"), ("empty batch raises", "pass"), ("N items", "pass")]
    raised = broken.observations[2]
    assert raised.error.type == "ZeroDivisionError" and raised.caught  # the line still says what solve raised
    assert _replayed(record, "broken", broken) == _recorded(record, "broken")
    assert verify_record(record, isolation=isolation).ok


def test_a_caught_exception_does_not_fail_the_run(tmp_path):
    record = load_record(record_path("TR-001818"))

    def solve(xs):
        return sum(xs) / len(xs)

    from failuremap_edu import run_checks

    result = run_checks(record, solve, isolation="inprocess")
    assert result.passed and [o.caught for o in result.observations] == [False, False, True, False, False]
    assert result.summary().startswith("4/4 checks pass; 1 raised")


def test_a_fresh_worker_reaches_the_state_the_earlier_checks_left():
    """After check 2 times out, the fresh worker runs check 1 again (unreported): `res` is bound, `data` emptied."""
    record = load_record(record_path("TR-001919"))
    result = replay(record, "attempt", timeout=0.05)
    statuses = [o.status for o in result.observations]
    assert statuses == ["pass", "timeout", "pass", "fail", "pass"], [(o.check, o.status, o.error) for o in result.observations]
    recorded = _recorded(record, "attempt")
    replayed = _replayed(record, "attempt", result)
    assert [r for i, r in enumerate(replayed) if i != 1] == [r for i, r in enumerate(recorded) if i != 1]


def test_a_check_that_cannot_run_again_is_named_on_what_it_leaves_missing():
    """A := binding made by the check that timed out: the later NameError says so instead of blaming solve."""
    from failuremap_edu import run_checks

    record = load_record(record_path("TR-001919"))

    def solve(xs, size):
        if len(xs) == 5:
            while True:
                pass
        return [xs[i:i + size] for i in range(0, len(xs), size)]

    result = run_checks(record, solve, timeout=2.0, isolation="process")
    assert [o.status for o in result.observations] == ["timeout", "pass", "error", "pass", "pass"]
    error = result.observations[2].error
    assert error.type == "NameError" and "check 1 was stopped" in error.message


@pytest.mark.parametrize("isolation", MODES)
def test_a_value_that_changes_after_its_check_is_compared_in_its_final_state(isolation):
    record = load_record(record_path("TR-002020"))
    attempt = replay(record, "attempt", isolation=isolation)
    first = attempt.observations[0]
    assert (first.actual, first.passed, first.final) == (["a"], True, (["a", "b", "d"], ["a"]))  # shown at check time, recorded at the end
    assert _replayed(record, "attempt", attempt) == _recorded(record, "attempt")
    assert verify_record(record, isolation=isolation).ok


@pytest.mark.parametrize("isolation", MODES)
def test_a_big_result_returned_at_once_is_judged_not_timed_out(isolation):
    """The limit covers solve and the check's expression, not our conversion of 10^6 items to plain data (about a second)."""
    from failuremap_edu import run_checks

    record = load_record(record_path("TR-000909"))

    def solve(n, pad=0):
        return [[0] * 2000] * 500  # one row, 500 times: built at once, 10^6 items to convert

    result = run_checks(record, solve, timeout=0.3, isolation=isolation)
    assert [o.status for o in result.observations] == ["fail"] * 5, [(o.status, o.error) for o in result.observations]


def test_a_changed_value_is_noted_beside_its_check_time_value():
    record = load_record(record_path("TR-002020"))
    first = replay(record, "attempt", isolation="inprocess").observations[0]
    assert "['a', 'b', 'd']" in first.changed_note and "['a', 'b', 'd']" in str(first) and "[&#x27;a&#x27;, &#x27;b&#x27;, &#x27;d&#x27;]" in first._repr_html_()
    assert replay(record, "broken", isolation="inprocess").observations[0].changed_note is None


ONE_LINE_LOOP = """
import sys
sys.path.insert(0, {root!r})
from failuremap_edu import load_record, run_checks
namespace = {{}}
exec("def solve(xs, size):\\n    while True: pass\\n", namespace)
result = run_checks(load_record({record!r}), namespace["solve"], timeout=0.2, isolation="inprocess")
print(" ".join(o.status for o in result.observations))
"""


def _pythons() -> list[str]:
    """This interpreter (3.11 here), and the newest CPython installed beside it, if any."""
    import glob
    import sys

    newest = sorted(glob.glob("/root/.pyenv/versions/3.1[2-9]*/bin/python"))[-1:]
    return [sys.executable, *newest]


@pytest.mark.parametrize("python", _pythons())
def test_in_process_a_loop_on_one_line_is_stopped_at_the_limit(python):
    """CPython 3.11 sends no line event per pass of `while True: pass` on one line: the limit must not need one."""
    import subprocess
    from pathlib import Path

    root = str(Path(__file__).resolve().parents[1])
    script = ONE_LINE_LOOP.format(root=root, record=str(record_path("TR-001919")))
    try:
        run = subprocess.run([python, "-c", script], capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail("the in-process run never stopped the one-line loop")
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.split()[:2] == ["timeout", "timeout"]


@pytest.mark.parametrize("declared, ok", [(6, True), (7, False), (5, False)])
def test_a_declared_checks_count_that_no_run_makes_breaks_parity(write_record, declared, ok):
    import json

    data = json.loads(record_path("TR-000101").read_text(encoding="utf-8"))
    data["checks"] = declared
    report = verify_record(load_record(write_record(data)))
    assert report.ok is ok and all(p.ok for p in report.implementations)  # the implementations replay as recorded either way
    assert bool(report.problems) is not ok and (ok or f"declares {declared} checks" in str(report))


def test_a_crashed_record_s_declared_count_is_compared_with_its_script(write_record):
    import json

    data = json.loads(record_path("TR-000303").read_text(encoding="utf-8"))
    assert data["checks"] == 5
    data["checks"] = 6
    data["verification"]["broken"] = dict(data["verification"]["attempt"])  # both crashed: no printed count to go by
    assert "its script has 5" in verify_record(load_record(write_record(data))).problems[0]


@pytest.mark.parametrize("isolation", MODES)
def test_a_check_that_reads_what_a_stopped_check_left_says_so(isolation):
    """Check 1 loops on `data` and is stopped: checks 3 and 4 read `res` and `data`, which it binds and reads; 2 and 5 neither."""
    from failuremap_edu import run_checks

    record = load_record(record_path("TR-001919"))

    def solve(xs, size):
        if len(xs) == 5:
            while True:
                pass
        return [xs[i:i + size] for i in range(0, len(xs), size)]

    result = run_checks(record, solve, timeout=2.0, isolation=isolation)
    stale = [o.stale is not None for o in result.observations]
    assert stale == [False, False, True, True, False]
    assert "check 1 ('first')" in result.observations[2].stale and "check 1 ('first')" in str(result.observations[3])


def test_nan_and_infinities_are_compared_as_the_harness_printed_them(tmp_path):
    """Found by the generator: json.dumps prints NaN and Infinity, and parity compared them with null."""
    import json
    import sys

    sys.path.insert(0, str(record_path("x").parent))
    try:
        import build
    finally:
        sys.path.pop(0)
    spec = dict(build.RECORDS["TR-001818"], fixtures="check('nan', solve([float('nan')]), 0.0)\ncheck('inf', [solve([float('inf')])], [1.0])\n")
    data = build.build("TR-NAN", spec)
    assert '"actual": NaN' in data["verification"]["attempt"]["stdout"] and "Infinity" in data["verification"]["attempt"]["stdout"]
    path = tmp_path / "TR-NAN.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    assert verify_record(load_record(path)).ok


def test_a_recorded_run_that_exited_without_a_word_is_matched_by_a_dead_process(tmp_path):
    """Found by the generator: os._exit(3) in solve leaves no output and no traceback; the replay's worker must die so."""
    import json
    import sys

    sys.path.insert(0, str(record_path("x").parent))
    try:
        import build
    finally:
        sys.path.pop(0)
    exits = "import os\n\ndef solve(xs):\n    if not xs:\n        os._exit(3)\n    return sum(xs) / len(xs)\n"
    data = build.build("TR-EXIT", dict(build.RECORDS["TR-001818"], broken=exits))
    assert (data["verification"]["broken"]["exit_code"], data["verification"]["broken"]["stdout"]) == (3, "")
    data["checks"] = len(data["verification"]["attempt"]["observations"])  # build.py counts broken's, which printed none
    path = tmp_path / "TR-EXIT.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    report = verify_record(load_record(path), isolation="process")
    assert report.ok, str(report)
    data["verification"]["broken"]["exit_code"] = 4
    path.write_text(json.dumps(data), encoding="utf-8")
    assert not verify_record(load_record(path), isolation="process").ok


def test_in_process_a_loop_of_fast_events_reads_the_clock_once_per_stride(monkeypatch):
    """The time limit's clock is read about once per `_MAX_STRIDE` trace events, not at each (it costs more than the event under Pyodide)."""
    import time

    from failuremap_edu import run_checks
    from failuremap_edu.runner import _inprocess

    record = load_record(record_path("TR-003434"))
    reads, real = [0], time.monotonic

    def counted():
        reads[0] += 1
        return real()

    def solve(stop, step):
        if step <= 0:
            raise ValueError("step must be positive")
        out = []
        for i in range(0, stop, step):
            out.append(i)
        return out

    events = sum(len(range(0, n, 1)) for n in range(1000))  # the loop's passes in the check of 1,000 calls: one line event each at least
    monkeypatch.setattr(time, "monotonic", counted)
    result = run_checks(record, solve, isolation="inprocess", timeout=60)
    assert result.passed
    assert reads[0] < 2 * events / _inprocess._MAX_STRIDE + 10_000  # calls and returns add events of their own
    assert reads[0] < events / 2


@pytest.mark.parametrize("isolation", MODES)
def test_a_long_argument_is_judged_not_timed_out(isolation):
    """40,000 rows passed to solve: in-process, copying them before the call was traced line by line (seconds, not 0.1 s)."""
    record = load_record(record_path("TR-004343"))
    for name in ("attempt", "broken"):
        result = replay(record, name, timeout=3.0, isolation=isolation)
        assert [o.status for o in result.observations] == ["pass" if p else "fail" for p in (o.passed for o in record.verification[name].observations)], [
            (o.check, o.status, o.error) for o in result.observations]
        assert _replayed(record, name, result) == _recorded(record, name)


def test_in_process_the_session_s_own_work_inside_a_check_is_not_traced(monkeypatch):
    """Copying solve's arguments, noting what it returned, describing a change: no trace function (the deadline's) runs them."""
    import sys

    from failuremap_edu.runner import _session, _state

    seen = []

    def watched(function):
        def run(*args, **kwargs):
            seen.append((function.__name__, sys.gettrace()))
            return function(*args, **kwargs)
        return run

    monkeypatch.setattr(_session, "copy", type("copy", (), {"deepcopy": staticmethod(watched(_session.copy.deepcopy))}))
    monkeypatch.setattr(_state, "describe_change", watched(_state.describe_change))
    monkeypatch.setattr(_state.Tracker, "returned", watched(_state.Tracker.returned))
    result = replay(load_record(record_path("TR-002020")), "attempt", isolation="inprocess")
    assert [o.status for o in result.observations] == ["pass", "fail", "pass", "fail"]
    assert {name for name, _ in seen} == {"deepcopy", "describe_change", "returned"}
    assert [name for name, trace in seen if trace is not None] == []
