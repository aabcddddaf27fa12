"""The runner: verdicts like the harness, and nothing solve does can hurt the caller."""

from __future__ import annotations

import dataclasses
import os
import re
import sys
import threading
import time
import urllib.parse
import warnings

import psutil
import pytest

from conftest import record_path, reference_solve, solution_path
from failuremap_edu import SolutionError, load_record, load_solution, replay, run_checks

reference_stopping = reference_solve("FA-100786")


def test_reference_solution_passes_every_variant(stopping):
    for variant in range(1, 6):
        result = run_checks(stopping, reference_stopping, variant=variant)
        assert result.passed, result.summary()
        assert result.summary() == "6/6 checks pass"
        assert {o.status for o in result.observations} == {"pass"}


def test_observation_fields(stopping):
    def solve(text, stops):
        print("looking at", text)
        return text, ""

    result = run_checks(stopping, solve)
    first = result.observations[0]
    assert (first.index, first.check, first.status, first.passed) == (0, "partial marker held", "fail", False)
    assert first.actual == ("hello<st", "") and first.expected == ("hello", "<st")
    assert first.call == "solve('hello<st', ['<stop>'])"
    assert first.stdout == "looking at hello<st\n" and first.stdout_dropped == 0
    assert first.lineno == 11 and first.site == 0
    assert first.error is None and first.mutation is None
    assert 0 <= first.elapsed_ms < 1_000
    assert result.isolation == "process" and result.solver == "yours"


def test_tuple_versus_list_fails_like_the_harness(stopping):
    result = run_checks(stopping, lambda text, stops: [text, ""])
    assert result.observations[5].actual == ["x", ""] and result.observations[5].status == "fail"


# ---------------------------------------------------------------- misbehaviour corpus


def _loop(text, stops):
    while True:
        pass


def _bare_except_loop(text, stops):
    while True:
        try:
            while True:
                pass
        except:  # noqa: E722 - the point of the test
            pass


def _sleep(text, stops):
    time.sleep(60)


def _sys_exit(text, stops):
    sys.exit(3)


def _os_exit(text, stops):
    os._exit(4)


def _recursion(text, stops):
    return _recursion(text, stops)


def _huge_allocation(text, stops):
    return [0] * 4_000_000_000


def _print_a_million_lines(text, stops):
    for i in range(10**6):
        print(i)
    return reference_stopping(text, stops)


def _generator(text, stops):
    return (c for c in text)


class _Unpicklable:
    def __reduce__(self):
        raise TypeError("no pickling")

    def __repr__(self):
        return "<Unpicklable>"


def _unpicklable(text, stops):
    return _Unpicklable()


def _hostile_eq(text, stops):
    class Weird:
        def __eq__(self, other):
            raise RuntimeError("no comparing")

    return Weird()


def _input(text, stops):
    return input("your answer? ")


def _keyboard_interrupt(text, stops):
    raise KeyboardInterrupt


CORPUS = {
    # name: (solve, expected status of every check, error type, words in the message)
    "infinite loop": (_loop, "timeout", "Timeout", "infinite loop"),
    "bare except around a loop": (_bare_except_loop, "timeout", "Timeout", "infinite loop"),
    "sleep in C": (_sleep, "timeout", "Timeout", "no result after"),
    "sys.exit()": (_sys_exit, "error", "SystemExit", "3"),
    "os._exit()": (_os_exit, "error", "ProcessDied", "exited with code 4 (does solve call os._exit(4)?)"),
    "deep recursion": (_recursion, "error", "RecursionError", "maximum recursion depth"),
    "huge allocation": (_huge_allocation, "error", "MemoryError", ""),
    "generator": (_generator, "fail", None, ""),
    "unpicklable object": (_unpicklable, "fail", None, ""),
    "hostile __eq__": (_hostile_eq, "error", "RuntimeError", "comparing the result with the expected value raised: no comparing"),
    "input()": (_input, "error", "EOFError", "input() is not available"),
    "KeyboardInterrupt": (_keyboard_interrupt, "error", "KeyboardInterrupt", ""),
}


CALLS = [
    "solve('hello<st', ['<stop>'])", "solve('hello', ['<stop>'])", "solve('ababa', ['ababx', 'baq'])",
    "solve('abc', [])", "solve('<stop>', ['<stop>'])", "solve('x', ['long'])",
]
EXPECTED = [("hello", "<st"), ("hello", ""), ("ab", "aba"), ("abc", ""), ("<stop>", ""), ("x", "")]


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_misbehaving_solve_is_reported_per_check(name, stopping):
    solve, status, error_type, words = CORPUS[name]
    timeout = 0.5
    started = time.monotonic()
    result = run_checks(stopping, solve, timeout=timeout)
    elapsed = time.monotonic() - started
    assert len(result.observations) == 6, "every check is reported"
    assert [o.status for o in result.observations] == [status] * 6
    assert [o.check for o in result.observations][-1] == "short input"
    # Even a check that timed out or whose process died says which call it was, and what was expected.
    assert [o.call for o in result.observations] == CALLS
    assert [o.expected for o in result.observations] == EXPECTED
    for o in result.observations:
        if error_type is None:
            assert o.error is None
        elif status == "timeout" and o.index > 0:  # after the first timeout, one short line that points back to it
            assert o.error.type == error_type and "timed out)" in o.error.message
        else:
            assert o.error.type == error_type and words in o.error.message
    # The whole run is bounded: six limits plus start-up, never more.
    assert elapsed < 6 * timeout + 5
    # And the calling process is fine: the next run works normally.
    assert run_checks(stopping, reference_stopping).passed


def test_generator_is_described_not_lost(stopping):
    o = run_checks(stopping, _generator).observations[0]
    assert o.actual.type_name == "generator" and o.actual.repr.startswith("<generator object")
    assert o.actual.reason == "not a plain value"


def test_printing_a_million_lines_keeps_a_bounded_head(stopping):
    result = run_checks(stopping, _print_a_million_lines, timeout=10)
    assert result.passed, result.summary()
    o = result.observations[0]
    assert len(o.stdout) == 8_000 and o.stdout.startswith("0\n1\n2\n")
    assert o.stdout_dropped == len("".join(f"{i}\n" for i in range(10**6))) - 8_000


def test_one_bad_check_does_not_spoil_the_others(stopping):
    def solve(text, stops):
        if text == "ababa":
            while True:
                pass
        if text == "abc":
            os._exit(1)
        if text == "x":
            raise ValueError("bad <x>")
        return reference_stopping(text, stops)

    result = run_checks(stopping, solve, timeout=0.5)
    assert [o.status for o in result.observations] == ["pass", "pass", "timeout", "error", "pass", "error"]
    assert result.summary() == "3/6 checks pass (2 error, 1 timeout)"
    assert [o.check for o in result.observations] == [
        "partial marker held", "no prefix emits all", "longest suffix prefix",
        "empty stop list", "whole marker prefix", "short input",
    ]
    assert not result.passed


def test_traceback_is_trimmed_to_the_learners_frames(stopping):
    def helper(text):
        raise ValueError(f"cannot handle {text!r}")

    def solve(text, stops):
        return helper(text)

    error = run_checks(stopping, solve).observations[0].error
    assert (error.type, error.message) == ("ValueError", "cannot handle 'hello<st'")
    assert "in solve" in error.traceback and "in helper" in error.traceback
    assert "failuremap_edu" not in error.traceback and "__fm_check__" not in error.traceback


def test_mutation_is_noted_against_a_snapshot_taken_before_the_call(pairs):
    def solve(candidates):
        candidates.sort(key=lambda r: r[2])
        candidates.append(["zz", "x", 0])
        return None

    result = run_checks(pairs, solve)
    notes = [o.mutation for o in result.observations]
    assert notes[0].startswith("solve modified its argument 'candidates': it was [['a1', 'one', 6]")
    assert notes[2] is not None  # solve([]) grew the empty list
    assert all("as the record's own harness does" in n for n in notes)


def test_a_shared_preamble_value_changes_as_under_the_harness(raw_record, write_record):
    """solve gets the fixture's own arguments, as `python script.py` passes them (no copy)."""
    from conftest import reseal

    fixture = "check('short input',solve('x',['long']),('x',''))"
    for impl in raw_record["implementations"].values():
        impl["source"] = impl["source"].replace(fixture, "shared = ['long']\n" + fixture.replace("['long']", "shared") + "\n" + fixture.replace("'short input'", "'again'").replace("['long']", "shared"))
    record = load_record(write_record(reseal(raw_record)))

    def solve(text, stops):
        stops.clear()
        return text, ""

    last_two = run_checks(record, solve).observations[-2:]
    assert [o.call for o in last_two] == ["solve('x', ['long'])", "solve('x', [])"]
    assert last_two[0].mutation.startswith("solve modified its argument 'stops': it was ['long'] and became [] (emptied).")


def test_variants_override_n(pairs):
    calls = [run_checks(pairs, lambda c: None, variant=v).observations[0].call for v in (1, 3)]
    assert calls == [
        "solve([['a1', 'one', 6], ['a1', 'changed', -1], ['b1', 'two', 0]])",
        "solve([['a3', 'one', 8], ['a3', 'changed', -3], ['b3', 'two', 0]])",
    ]


@pytest.mark.parametrize("variant", [0, 6, "1", True, 1.0])
def test_bad_variant(stopping, variant):
    with pytest.raises(ValueError, match="variant must be one of 1, 2, 3, 4, 5"):
        run_checks(stopping, reference_stopping, variant=variant)


def test_signature_mismatch_is_refused_before_running(stopping):
    ran = []

    def solve(text):
        ran.append(text)

    with pytest.raises(SolutionError, match=r"solve\(text\) does not fit the contract solve\(text, stops\): takes 1 positional"):
        run_checks(stopping, solve)
    assert not ran
    with pytest.raises(SolutionError, match="solve must be a function, got str"):
        run_checks(stopping, "solve")


def test_keyword_fixtures_need_the_keyword_names():
    record = load_record(record_path("TR-000101"))

    def solve(tokens, count=2, *, normalize=False):
        return {}

    with pytest.raises(SolutionError, match="has no parameter 'k'"):
        run_checks(record, solve)


def test_solution_file_runs_only_in_the_worker(stopping, tmp_path):
    path = tmp_path / "mine.py"
    path.write_text("import os\nPID = os.getpid()\ndef solve(text, stops):\n    return (str(PID), '')\n")
    result = run_checks(stopping, load_solution(path))
    assert result.observations[0].actual[0] != str(os.getpid())


@pytest.mark.parametrize("isolation", ["process", "inprocess"])
def test_solution_file_that_loops_at_import(stopping, tmp_path, isolation):
    """It was reported as 'the fixture code outside the checks took longer than 10 s', the timeout ignored."""
    path = tmp_path / "loops.py"
    path.write_text("while True:\n    pass\ndef solve(text, stops):\n    return text, ''\n")
    result = run_checks(stopping, load_solution(path), timeout=0.5, isolation=isolation)
    assert not result.passed
    assert result.problem.type == "Timeout"
    assert result.problem.message == f"importing the solution file {path} took longer than 0.5 s, the time limit: does its code outside solve loop?"
    assert [o.status for o in result.observations] == ["error"] * 6
    assert result.observations[0].error.type == "NotRun"


def test_solution_file_that_raises_at_import(stopping, tmp_path):
    path = tmp_path / "broken.py"
    path.write_text("import does_not_exist\ndef solve(text, stops):\n    return text, ''\n")
    result = run_checks(stopping, load_solution(path))
    assert "failed while loading: No module named 'does_not_exist'" in str(result.problem)
    assert result.summary().startswith("0/6 checks pass (6 error); the run stopped early")


@pytest.mark.parametrize(
    "content, message",
    [
        (None, "no such file"),
        (b"\xff\xfe", "not UTF-8 text"),
        ("def solve(:\n", "syntax error at line 1"),
        ("def answer(text, stops):\n    pass\n", "defines no top-level function 'solve'"),
        ("async def solve(text, stops):\n    pass\n", "'solve' is async"),
    ],
)
def test_load_solution_errors(tmp_path, content, message):
    path = tmp_path / "solution.py"
    if isinstance(content, bytes):
        path.write_bytes(content)
    elif content is not None:
        path.write_text(content)
    with pytest.raises(SolutionError, match=message) as info:
        load_solution(path)
    assert str(info.value).startswith(str(path)) and "\n" not in str(info.value)


def test_the_caller_is_never_forked_even_with_threads(stopping, monkeypatch):
    """Workers come from the server: the caller (a notebook kernel has threads) never forks, so never warns."""
    forked = []
    os.register_at_fork(before=lambda: forked.append(os.getpid()))
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait, daemon=True)
    thread.start()
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = run_checks(stopping, reference_stopping)
            wrong = run_checks(stopping, _os_exit, timeout=0.5)  # restarts after each death
    finally:
        stop.set()
    assert result.passed and result.isolation == "process"
    assert [o.error.type for o in wrong.observations] == ["ProcessDied"] * 6
    assert [str(w.message) for w in caught] == []
    assert [pid for pid in forked if pid == os.getpid()] == []


def test_no_worker_outlives_its_run(stopping):
    """After any number of runs, whatever ended them, the server keeps at most the next run's standby."""
    from failuremap_edu.runner import _warm

    for _ in range(10):
        run_checks(stopping, reference_stopping)
    run_checks(stopping, _os_exit, timeout=0.5)
    run_checks(stopping, _loop, timeout=0.2)  # six workers killed at their limits
    pool = _warm.pool()
    server = pool.server._forkserver_pid
    deadline = time.monotonic() + 5
    while True:
        children = {p.pid for p in psutil.Process(server).children()}
        standby = {pool.standby.wait_pid()} if pool.standby is not None else set()
        if children <= standby or time.monotonic() > deadline:
            break
        time.sleep(0.01)
    assert children <= standby, f"the server still has {children - standby}"
    assert len(standby) <= 1
    assert server in {p.pid for p in psutil.Process().children()}


# ----------------------------------------------------------------- in-process mode


def test_in_process_mode_survives_loops_exits_and_errors(stopping):
    def solve(text, stops):
        if text == "hello<st":
            while True:
                pass
        if text == "hello":
            sys.exit(2)
        if text == "x":
            raise ValueError("bad")
        print("fine")
        return reference_stopping(text, stops)

    result = run_checks(stopping, solve, timeout=0.5, isolation="inprocess")
    assert result.isolation == "inprocess"
    assert [o.status for o in result.observations] == ["timeout", "error", "pass", "pass", "pass", "error"]
    assert result.observations[1].error.type == "SystemExit"
    assert result.observations[2].stdout == "fine\n"
    assert sys.gettrace() is None or "coverage" in type(sys.gettrace()).__module__


def test_isolation_is_chosen_by_platform_and_by_the_caller_never_by_the_environment(monkeypatch):
    from failuremap_edu.runner import chosen_isolation, isolation_default
    from failuremap_edu.runner._api import isolation_available

    monkeypatch.setenv("FAILUREMAP_ISOLATION", "inprocess")  # a name nothing reads
    assert isolation_available() == chosen_isolation() == "process"
    assert chosen_isolation("fork") == "process"  # the old name of the same thing
    assert chosen_isolation("inprocess") == "inprocess"
    with isolation_default("sandbox"):
        assert chosen_isolation() == "sandbox" and chosen_isolation("inprocess") == "inprocess"  # a parameter wins
        seen = []
        worker = threading.Thread(target=lambda: seen.append(chosen_isolation()))
        worker.start()
        worker.join()
        assert seen == ["process"], "a thread started inside does not inherit the scope"
    assert chosen_isolation() == "process"
    with pytest.raises(ValueError, match="isolation must be"):
        chosen_isolation("docker")
    monkeypatch.delattr(os, "fork")
    assert isolation_available() == chosen_isolation() == "inprocess"


@pytest.mark.parametrize("record_id", ["TR-000101", "TR-000202", "TR-000303", "TR-000404"])
def test_reference_solutions_of_own_records_pass_all_variants(record_id):
    record = load_record(record_path(record_id))
    solution = load_solution(solution_path(record_id))
    for variant in range(1, 6):
        assert run_checks(record, solution, variant=variant).passed


def test_loop_fixtures_report_every_iteration_even_after_a_timeout():
    record = load_record(record_path("TR-000202"))

    def solve(text, size):
        if size == 2:
            while True:
                pass
        return [[i, text[i * size:(i + 1) * size]] for i in range(-(-len(text) // size))]

    result = run_checks(record, solve, variant=3, timeout=0.5)
    labels = [o.check for o in result.observations]
    assert labels[3:] == ["size 1 of ñandú", "size 2 of ñandú", "size 3 of ñandú", "size 4 of ñandú"]
    assert [o.status for o in result.observations][3:] == ["pass", "timeout", "pass", "pass"]


def test_replay_reports_the_scripts_own_solve(stopping):
    result = replay(stopping, "broken")
    assert result.solver == "broken" and result.observations[0].actual == ("hello<st",)


# ------------------------------------------------------------------- playground calls


def test_try_call_yours_attempt_and_broken(stopping):
    from failuremap_edu import try_call

    args = ("hello<st", ["<stop>"])
    yours = try_call(stopping, reference_stopping, args)
    assert (yours.status, yours.value, yours.call) == ("returned", ("hello", "<st"), "solve('hello<st', ['<stop>'])")
    assert try_call(stopping, None, args, implementation="attempt").value == ("hel", "lo<st")
    assert try_call(stopping, None, args, implementation="broken").value == ("hello<st",)
    ran = try_call(stopping, lambda text, stops: 1 / 0, args, implementation="broken")
    assert ran.solver == "broken" and "your solve was not called" in ran._repr_html_()  # a trial read broken's crash as their own
    assert repr(yours) == "solve('hello<st', ['<stop>']) -> returned: ('hello', '<st')"

    def sorted_windows(text, stops):  # not the exercise's solve: the display must not say "your solve" (a trial)
        return text, ""

    other = try_call(stopping, sorted_windows, args)
    assert other.whose == "your function sorted_windows (in the place of solve)" and "ran: your function sorted_windows" in repr(other)
    assert "sorted_windows" in other._repr_html_()


def test_try_call_is_as_safe_as_the_checks(stopping):
    from failuremap_edu import try_call

    looping = try_call(stopping, _loop, ("x", []), timeout=0.5)
    assert looping.status == "timeout" and looping.value is None
    assert str(looping.error).endswith("no result after 0.5 s (the time limit of each call), so this call was stopped. Is there an infinite loop,"
                                    " a loop whose condition never changes, or an endless input read to its end?"), looping.error
    assert "check" not in str(looping.error)
    exiting = try_call(stopping, _os_exit, ("x", []))
    assert exiting.status == "error" and exiting.error.type == "ProcessDied"
    with pytest.raises(SolutionError):
        try_call(stopping, lambda text: text, ("x",))


@pytest.mark.parametrize(
    "text, expected",
    [
        ("'hello<st', ['<stop>']", (("hello<st", ["<stop>"]), {})),
        ("[1, (2, 3)], k=2", (([1, (2, 3)],), {"k": 2})),
        ("", ((), {})),
        ("{'a': {1, 2}}, None, True", (({"a": {1, 2}}, None, True), {})),
    ],
)
def test_parse_call_arguments(text, expected):
    from failuremap_edu.runner._api import parse_call_arguments

    assert parse_call_arguments(text) == expected


@pytest.mark.parametrize(
    "text, message",
    [
        ("'hello', ['x'", "a bracket or quote is not closed"),
        ("'hello", "a bracket or quote is not closed"),
        ("__import__('os')", "only literal values"),
        ("x", "only literal values"),
        ("*xs", "type the arguments only"),
        ("1 +", "could not read the inputs"),
        ("3, warmup=", "could not read the inputs (the text ends too early: invalid syntax at the end)"),  # not "column 1" (a trial)
        ("x=1, 2", "could not read the inputs (positional argument follows keyword argument)"),
        (",,", "could not read the inputs (near column 1: invalid syntax)"),
    ],
)
def test_parse_call_arguments_explains_typos(text, message):
    from failuremap_edu.runner._api import parse_call_arguments

    with pytest.raises(ValueError, match=re.escape(message)):
        parse_call_arguments(text)


def test_unknown_isolation_mode_is_refused_everywhere(stopping):
    from failuremap_edu import try_call

    with pytest.raises(ValueError, match="isolation must be 'process', 'inprocess' or 'sandbox', got 'frok'"):
        run_checks(stopping, reference_stopping, isolation="frok")
    with pytest.raises(ValueError, match="isolation must be 'process', 'inprocess' or 'sandbox', got 'frok'"):
        try_call(stopping, reference_stopping, ("x", []), isolation="frok")


# ------------------------------------------------------- what a worker sends, and when it stops


def _writes_garbage(text, stops):
    import struct

    for fd in sorted(int(name) for name in os.listdir("/proc/self/fd")):
        try:
            os.write(fd, struct.pack("!I", 9) + b"\xffgarbage")  # a well-formed frame, an undecodable payload
        except OSError:
            pass
    return reference_stopping(text, stops)


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="lists descriptors through /proc")
def test_garbage_from_solve_counts_as_the_workers_death_per_check(stopping):
    result = run_checks(stopping, _writes_garbage)
    assert [o.status for o in result.observations] == ["error"] * 6
    assert all(o.error.type == "ProcessDied" and "not a message of ours" in o.error.message for o in result.observations)
    assert [o.call for o in result.observations] == CALLS and [o.expected for o in result.observations] == EXPECTED
    assert result.problem is None
    assert run_checks(stopping, reference_stopping).passed


def test_a_timed_out_check_shows_its_call_and_expected(pairs):
    o = run_checks(pairs, lambda candidates: _loop(None, None), timeout=0.3).observations[0]
    assert o.status == "timeout"
    assert o.call == "solve([['a1', 'one', 6], ['a1', 'changed', -1], ['b1', 'two', 0]])"
    assert o.expected == ["a1", "b1"]


def _record_with(raw_record, write_record, extra: str):
    """FA-100786 with `extra` fixture lines after its last check."""
    from conftest import reseal

    last = "check('short input',solve('x',['long']),('x',''))"
    for impl in raw_record["implementations"].values():
        impl["source"] = impl["source"].replace(last, last + "\n" + extra)
    return load_record(write_record(reseal(raw_record)))


def test_after_a_timeout_later_checks_get_a_short_limit_and_say_so(stopping):
    result = run_checks(stopping, _sleep, timeout=0.4)
    first, *rest = [o.error.message for o in result.observations]
    assert first.startswith("no result after 0.4 s, so this check was stopped.") and "cut" not in first
    assert rest == ["no result after 0.05 s either (limit cut from 0.4 s after check 1 ('partial marker held') timed out)"] * 5


def test_after_too_many_timeouts_the_rest_is_listed_not_run(raw_record, write_record):
    from failuremap_edu.runner._api import MAX_TIMEOUTS

    extra = "\n".join(f"check('again {i}',solve('x',['long']),('x',''))" for i in range(4))
    record = _record_with(raw_record, write_record, extra)
    seen = []
    result = run_checks(record, _loop, timeout=0.4, progress=seen.append)
    assert MAX_TIMEOUTS == 7 and len(result.observations) == 10
    assert [o.status for o in result.observations] == ["timeout"] * 7 + ["error"] * 3
    for o in result.observations[7:]:
        assert o.error.type == "NotRun" and "7 checks had already timed out in this run" in o.error.message
        assert o.call == "solve('x', ['long'])" and o.expected == ("x", "")
    assert [(o.index, o.check, o.status) for o in seen] == [(o.index, o.check, o.status) for o in result.observations]


def test_an_expected_is_computed_ahead_only_when_nothing_can_tell(raw_record, write_record):
    """Ahead of solve, plain data is read; code with side effects, and := bindings, wait for solve."""
    extra = (
        "calls = []\n"
        "check('side effect',solve('x',['long']),(calls.append(1), ('x', str(len(calls))))[1])\n"
        "check('walrus',(res := solve('x',['long'])),res)"
    )
    record = _record_with(raw_record, write_record, extra)
    fine = run_checks(record, reference_stopping).observations
    assert fine[6].expected == ("x", "1"), "evaluated once, in the harness's order"
    looping = run_checks(record, _loop, timeout=0.3).observations
    assert looping[0].expected == ("hello", "<st")
    side, walrus = looping[6].expected, looping[7].expected
    assert (side.type_name, side.repr) == ("not computed", "(not computed)") and "after solve returns" in side.reason
    assert walrus.type_name == "not computed" and "(:=)" in walrus.reason


def _dynamic(text, stops):
    return eval("text, ''")


def test_a_call_whose_solve_cannot_travel_says_why_in_a_calls_words(stopping):
    from failuremap_edu import try_call

    result = try_call(stopping, _dynamic, ("abc", []))
    assert result.status == "error" and result.error.type == "CannotSend" and "this check" not in str(result.error)
    assert "looks names up dynamically (eval)" in result.error.message and "inside solve" in result.error.message


def test_a_solve_that_cannot_travel_is_a_problem_of_the_run(stopping):
    result = run_checks(stopping, _dynamic)
    assert result.problem.type == "CannotSend" and "looks names up dynamically (eval)" in result.problem.message
    assert [o.error.type for o in result.observations] == ["NotRun"] * 6
    assert [o.call for o in result.observations] == CALLS and [o.expected for o in result.observations] == EXPECTED
    assert result.summary().startswith("0/6 checks pass (6 error); the run stopped early: CannotSend")


# ----------------------------------------------------------------------- containment

PIDS = ""


def _note(pid: int) -> None:
    with open(PIDS, "a") as fh:
        fh.write(f"{pid}\n")


def _forks_and_loops(text, stops):
    pid = os.fork()
    if pid == 0:
        while True:
            pass
    _note(pid)
    return reference_stopping(text, stops)


def _starts_a_program(text, stops):
    import subprocess

    _note(subprocess.Popen(["sleep", "600"]).pid)
    _note(subprocess.Popen(["sleep", "600"], start_new_session=True).pid)
    return reference_stopping(text, stops)


def _detaches(text, stops):
    r, w = os.pipe()
    if os.fork() == 0:  # the classic daemon: fork, setsid, fork again, and the middle one exits
        os.setsid()
        pid = os.fork()
        if pid == 0:
            time.sleep(600)
        os.write(w, str(pid).encode())
        os._exit(0)
    os.close(w)
    _note(int(os.read(r, 32)))
    return reference_stopping(text, stops)


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except OSError:
        return False


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="checks processes through /proc")
@pytest.mark.parametrize("solve", [_forks_and_loops, _starts_a_program, _detaches, _loop], ids=lambda f: f.__name__)
def test_nothing_solve_started_outlives_the_run(stopping, solve, tmp_path, monkeypatch):
    monkeypatch.setattr(sys.modules[__name__], "PIDS", str(tmp_path / "pids"))
    if solve is _loop:  # started, then stopped at its limit while a child of it still runs

        def solve(text, stops):
            _forks_and_loops(text, stops)
            _loop(text, stops)

    result = run_checks(stopping, solve, timeout=0.5)
    ended = time.monotonic()
    started = [int(line) for line in (tmp_path / "pids").read_text().split()]
    assert len(started) >= 6 and len(result.observations) == 6
    while time.monotonic() < ended + 1 and any(map(_alive, started)):
        time.sleep(0.02)
    assert [pid for pid in started if _alive(pid)] == [], "one second after the run"


def test_the_heartbeat_beats_while_the_first_check_still_runs(stopping):
    """A display can appear while check 1 loops, before any observation exists."""
    from failuremap_edu.runner._api import HEARTBEAT

    events: list[str] = []

    def slow_first(text, stops):
        import time as _time

        if text == "hello<st":
            _time.sleep(4 * HEARTBEAT)
        return reference_stopping(text, stops)

    result = run_checks(stopping, slow_first, progress=lambda o: events.append("observation"), heartbeat=lambda: events.append("beat"))
    assert result.passed
    first = events.index("observation")
    assert events[:first].count("beat") >= 2, events


def test_try_call_refuses_args_that_are_not_a_tuple_with_a_result_not_an_exception(stopping):
    """``(x)`` is just x: refused with a message that shows the one-argument tuple to write."""
    from failuremap_edu import try_call

    result = try_call(stopping, lambda text, stops: (text, ""), ["hello", ["<stop>"]])
    assert result.status == "error" and result.error.type == "TypeError"
    assert "args must be a tuple of arguments, got list" in result.error.message and "(['hello', ['<stop>']],)" in result.error.message
    assert result.call == "solve(['hello', ['<stop>']])"
@pytest.mark.parametrize("isolation", ["process", "inprocess"])
def test_a_correct_in_place_solve_passes_with_a_note(isolation):
    """TR-000606: solve(xs) dedupes xs in place and returns None; the checks read xs afterwards."""
    record = load_record(record_path("TR-000606"))

    def solve(xs):
        xs[:] = list(dict.fromkeys(xs))

    result = run_checks(record, solve, isolation=isolation)
    assert result.summary() == "4/4 checks pass"
    assert result.observations[0].mutation.startswith("solve modified its argument 'xs': it was [3, 1, 3, 2, 1] and became [3, 1, 2].")
    assert result.observations[3].mutation is None  # nothing to remove: nothing changed
    replayed = replay(record, "attempt", isolation=isolation)  # rebinds xs: the caller's list stays as it was
    assert [o.status for o in replayed.observations] == ["pass", "fail", "fail", "pass"]


def test_in_process_an_expected_that_calls_solve_has_the_checks_limit(raw_record, write_record, tmp_path):
    """The fallback (Pyodide, Windows) evaluated the expected with no limit: a looping solve there hung the kernel."""
    import subprocess

    from conftest import reseal

    fixture = "check('short input',solve('x',['long']),('x',''))"
    for impl in raw_record["implementations"].values():
        impl["source"] = impl["source"].replace(fixture, fixture + "\ncheck('expected calls solve', ('x', ''), solve('x', ['long']))")
    path = write_record(reseal(raw_record))
    script = (
        "import sys\nfrom failuremap_edu import run_checks\n"
        "def solve(text, stops):\n    while text == 'x':\n        pass\n    return text, ''\n"
        f"result = run_checks({str(path)!r}, solve, timeout=0.3, isolation='inprocess')\n"
        "print([o.status for o in result.observations]); print(result.observations[-1].error.message)\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, env=env)
    statuses, message = done.stdout.splitlines()
    assert statuses == str(["fail", "pass", "fail", "pass", "pass", "timeout", "timeout"]), done.stderr
    assert message.startswith("computing the expected value ran out of time: no result after 0.0375 s either")


def test_a_solution_file_with_a_dataclass_runs_as_under_python(tmp_path):
    path = tmp_path / "spans.py"
    path.write_text("from dataclasses import dataclass\n@dataclass\nclass Pair:\n    a: int\n    b: int\n"
                    "def solve(spans):\n    out = []\n    for s in sorted(spans, key=lambda s: (s.start, s.end)):\n"
                    "        p = Pair(s.start, s.end)\n        if out and p.a <= out[-1][1]:\n            out[-1][1] = max(out[-1][1], p.b)\n"
                    "        else:\n            out.append([p.a, p.b])\n    return out\n")
    assert run_checks(load_record(record_path("TR-000505")), load_solution(path)).summary() == "6/6 checks pass"


@pytest.mark.parametrize("isolation", ["process", "inprocess"])
def test_tracebacks_from_record_code_quote_its_lines(isolation):
    """In a worker process the record's script was not in linecache: its frames had no source lines."""
    record = load_record(record_path("TR-000303"))
    error = replay(record, "attempt", isolation=isolation).observations[2].error
    assert error.type == "KeyError"
    assert error.traceback.splitlines()[1:3] == ['  File "<failuremap TR-000303 attempt>", line 9, in solve', "    if isinstance(defaults[key], dict):"]
@dataclasses.dataclass
class _Split:
    emit: str
    held: str


def _dataclass(text, stops):
    return _Split(text, "")


def _named_tuple(text, stops):
    # an importable named tuple: one defined in a notebook cannot travel to the worker yet (__slots__)
    return urllib.parse.DefragResult(text, "")


def test_a_dataclass_and_a_named_tuple_come_back_with_their_fields(stopping):
    from failuremap_edu._diff import diff

    o = run_checks(stopping, _dataclass).observations[0]
    assert o.actual.type_name.endswith("_Split") and [name for name, _ in o.actual.fields] == ["emit", "held"]
    o = next(o for o in run_checks(stopping, _named_tuple).observations if o.status == "fail")
    assert dict(o.actual.fields) == {"url": o.actual.plain[0], "fragment": ""}
    from failuremap_edu._claims import TypeDiffers

    result = diff(o.expected, o.actual)  # == compares a named tuple as a tuple: no type is named, only the items
    assert result.differences and not any(isinstance(c, TypeDiffers) for c in result.claims)
    assert result.differences[0].path.startswith("[")


# ------------------------------------------------------------ run_script (record build)


def test_run_script_runs_a_whole_script_in_a_fresh_interpreter_not_the_caller():
    from failuremap_edu.runner import run_script

    run = run_script("import os, sys\nprint(os.getpid(), os.getcwd())\nprint('oops', file=sys.stderr)\nraise SystemExit(3)\n")
    pid, cwd = run.stdout.split()
    assert int(pid) != os.getpid() and cwd != os.getcwd() and not os.path.exists(cwd)  # its own empty folder, removed after
    assert (run.exit_code, run.stderr, run.timed_out, run.output_exceeded) == (3, "oops\n", False, False)


def test_run_script_tracebacks_look_like_python_c():
    from failuremap_edu.runner import run_script

    run = run_script("def f():\n    return {}['k']\nf()\n")
    assert run.exit_code == 1
    assert run.stderr == 'Traceback (most recent call last):\n  File "<string>", line 3, in <module>\n  File "<string>", line 2, in f\nKeyError: \'k\'\n'


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_run_script_interrupts_at_the_limit_so_the_traceback_says_where_and_kills_what_it_started(tmp_path):
    from failuremap_edu.runner import run_script

    marker = tmp_path / "child.pid"
    source = (
        "import subprocess, sys\n"
        f"child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
        f"open({str(marker)!r}, 'w').write(str(child.pid))\n"
        "def spin():\n"
        "    while True: pass\n"
        "spin()\n"
    )
    run = run_script(source, timeout=1.0)
    assert run.timed_out and run.exit_code != 0
    assert 'File "<string>", line 6, in <module>' in run.stderr and 'line 5, in spin' in run.stderr
    child = int(marker.read_text())
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and _alive(child):
        time.sleep(0.05)
    assert not _alive(child)


def test_run_script_stops_a_script_that_writes_without_end():
    from failuremap_edu.runner import run_script

    run = run_script("while True:\n    print('x' * 1000)\n", timeout=20, output_bytes=100_000)
    assert run.output_exceeded and not run.timed_out and run.exit_code != 0
    assert len(run.stdout) == 100_000
@pytest.mark.parametrize("tree", ["kernel lists", "psutil alone"])
def test_a_fork_loop_is_stopped_with_a_bounded_number_of_processes(stopping, tmp_path, monkeypatch, tree):
    """RLIMIT_NPROC never binds root (tests and CI run as root): the supervisor counts a run's processes.

    Also as on macOS, where the kernel lists no children in /proc and psutil finds them."""
    from failuremap_edu.runner import _procs
    from failuremap_edu.runner._worker import MAX_PROCESSES

    if tree == "psutil alone":
        monkeypatch.setattr(_procs, "_kernel_lists_children", lambda: False)

    tally = tmp_path / "started"

    def forks_forever(text, stops):
        import os
        import time

        while True:  # linear, not exponential: should containment fail, this test must not take the machine down
            if os.fork() == 0:
                fd = os.open(str(tally), os.O_WRONLY | os.O_CREAT | os.O_APPEND)
                os.write(fd, b"x")
                time.sleep(30)
                os._exit(0)

    result = run_checks(stopping, forks_forever, timeout=5)
    first = result.observations[0]
    assert first.status == "error" and first.error.type == "TooManyProcesses", first.error
    assert all(o.error.type == "TooManyProcesses" for o in result.observations)
    assert tally.stat().st_size <= len(result.observations) * MAX_PROCESSES * 2, "processes started before each check was stopped"


def _forges_its_verdict(text, stops):
    """Replaces the record's harness with one that passes everything, then returns a wrong answer."""
    import sys

    frame = sys._getframe(1)
    while frame is not None and "observations" not in frame.f_globals:
        frame = frame.f_back
    record_globals = frame.f_globals

    def check(label, actual, expected):
        record_globals["observations"].append({"check": label, "actual": actual, "expected": expected, "passed": True})

    record_globals["check"] = check
    return "not it", ""


@pytest.mark.parametrize("isolation", ["process", "inprocess"])
def test_a_forged_verdict_is_reported_as_unconfirmed(stopping, isolation):
    """The caller recomputes the verdict from the plain values it received; a patched harness cannot hide."""
    result = run_checks(stopping, _forges_its_verdict, isolation=isolation)
    assert [o.status for o in result.observations] == ["unconfirmed"] * 6 and all(o.unconfirmed and not o.passed for o in result.observations)
    assert result.passed_count == 0 and not result.passed and result.counts()["unconfirmed"] == 6
    assert result.summary() == "0/6 checks pass (6 unconfirmed)"
    assert [o["status"] for o in result.to_json()["observations"]] == ["unconfirmed"] * 6
    assert "the verdict could not be confirmed: the check process reported pass" in str(result)
    assert "could not be confirmed" in result._repr_html_() and "fm-unconfirmed" in result._repr_html_()
    assert all(o.verdict_note is None for o in run_checks(stopping, reference_solve("FA-100786")).observations)


class _EqualsAnything:
    def __eq__(self, other):
        return True

    def __repr__(self):
        return "('hello', '<st')"


class _Pair(tuple):
    pass


class _LoosePair(tuple):
    def __eq__(self, other):
        return True

    __hash__ = tuple.__hash__


def test_a_value_compared_by_its_own_eq_is_labelled(stopping):
    """Its repr is what is shown: the note says that a class's __eq__ decided, and that the repr is only its repr."""
    result = run_checks(stopping, lambda text, stops: _EqualsAnything())
    assert all(o.status == "pass" for o in result.observations)
    assert all(o.verdict_note.startswith("compared by") and "_EqualsAnything" in o.verdict_note for o in result.observations)
    assert "own == (__eq__)" in str(result.observations[0])
    # The text of the run, which lists only the checks that did not pass, says so too (as --json's verdict_note does).
    assert "note: 6 checks pass, compared by test_runner._EqualsAnything's own == (__eq__)" in str(result)
    result = run_checks(stopping, lambda text, stops: _LoosePair((text, "")))
    assert all("_LoosePair" in o.verdict_note for o in result.observations)
    assert "checks pass, compared by test_runner._LoosePair's own ==" in str(result)
    # A subclass that keeps tuple's == (a named tuple) is compared as the tuple it shows: no note.
    result = run_checks(stopping, lambda text, stops: _Pair((text, "")))
    assert [o.verdict_note for o in result.observations] == [None] * 6


def test_a_sandboxed_run_ends_everything_it_started(stopping, tmp_path, bwrap):
    """In the sandbox a run has its own PID namespace: killing bwrap ends all of it, detached or not."""
    import subprocess
    import uuid

    marker = f"fm-sandboxed-{uuid.uuid4().hex}"

    def detaches(text, stops):
        import subprocess
        import sys

        subprocess.Popen([sys.executable, "-c", "import os\nif os.fork() == 0:\n    os.setsid()\nwhile True:\n    pass\n", marker])
        return text, ""

    result = run_checks(stopping, detaches, isolation="sandbox")
    assert result.isolation == "sandbox" and result.summary() == "4/6 checks pass (2 fail)"
    deadline = time.monotonic() + 5
    while marker in subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout and time.monotonic() < deadline:
        time.sleep(0.05)
    assert marker not in subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout


# ------------------------------------------- what a check compares, and what solve returned (issue 21 §1)


def test_a_check_on_an_expression_of_the_result_reports_the_expression_and_what_solve_returned():
    from conftest import record_path

    mask = load_record(record_path("TR-000909"))
    run = replay(mask, "attempt", 2)
    by_label = {o.check: o for o in run.observations}
    last = by_label["last row with padding"]
    assert (last.call, last.compared, last.actual) == ("solve(6, pad=2)", "solve(6, pad=2)[-1]", [0, 0, 1, 1, 1, 0])
    [(call, returned)] = last.shown_returns()
    assert call == "solve(6, pad=2)" and returned == [[1 if 2 <= j < i else 0 for j in range(6)] for i in range(6)]
    sees = by_label["query 0 sees itself"]
    assert (sees.compared, sees.actual, sees.expected) == ("solve(3)[0][0] == 1", False, True)
    assert sees.shown_returns() == (("solve(3)", [[0, 0, 0], [1, 0, 0], [1, 1, 0]]),)
    assert by_label["one row per query"].compared == "len(solve(14))"
    # a bare call: the call says it all, and nothing more is sent back
    whole = by_label["mask of 4"]
    assert (whole.compared, whole.returned, whole.expression) == ("", (), "solve(4)")


def test_a_walrus_that_compares_the_result_itself_shows_no_second_value():
    from conftest import record_path

    batch = load_record(record_path("TR-000404"))
    first = replay(batch, "attempt", 1).observations[0]
    assert first.compared == "(out := solve([[5, 6, 7], [8], [9, 10]]))[0]"
    assert first.shown_returns()  # [0] of a (padded, lengths) pair: the pair is worth seeing
    one = next(o for o in replay(batch, "attempt", 1).observations if o.check == "single row of 1")
    assert one.compared == "(one := solve([[7]]))" and one.shown_returns() == ()  # the compared value is what solve returned


@pytest.mark.parametrize("isolation", ["process", "inprocess"])
def test_a_cell_that_copies_the_preambles_dataclass_is_judged_as_if_pasted_into_the_script(isolation):
    """The learner's cell carries its own Span; the checks build the script's. Pasted into the script, theirs would
    replace the preamble's, and `solve('abc') == [Span(0, 3, 'abc')]` is True there: here too (TR-001313)."""
    namespace = {"__name__": "__main__"}
    exec(solution_path("TR-001313").read_text(), namespace)  # a notebook cell: nothing importable
    result = run_checks(load_record(record_path("TR-001313")), namespace["solve"], isolation=isolation)
    assert [o.status for o in result.observations] == ["pass"] * 5, [(o.check, o.actual, o.expected) for o in result.observations]
    assert run_checks(load_record(record_path("TR-001313")), load_solution(solution_path("TR-001313"))).summary() == "5/5 checks pass"


def test_only_classes_the_preamble_defined_are_taken_from_the_learner():
    """A helper the expected values are computed with stays the script's, whatever the learner's cell defines."""
    namespace = {"__name__": "__main__"}
    exec("def visible(n, pad=0):\n    return []\n\ndef solve(n, pad=0):\n    return visible(n, pad)\n", namespace)
    result = run_checks(load_record(record_path("TR-000909")), namespace["solve"])
    assert result.observations[0].status == "fail" and result.observations[0].expected != []


def test_your_tracebacks_name_the_record_checks_not_its_attempt():
    """`File "<failuremap ID attempt>"` in a learner's own traceback read as if the attempt had run (a learner trial)."""
    record = load_record(record_path("TR-001313"))
    mine = next(o for o in run_checks(record, lambda text: [(0, 2, "ab")]).observations if o.error is not None)
    assert 'File "<failuremap TR-001313 checks>", line' in mine.error.traceback and "attempt>" not in mine.error.traceback
    theirs = replay(record, "attempt").observations
    assert all("checks>" not in (o.error.traceback if o.error else "") for o in theirs)


def test_a_recursive_solves_inner_calls_are_not_calls_of_the_check():
    """broken recurses through the name solve: its inner call showed as a second call of the check (a learner trial)."""
    record = load_record(record_path("TR-001414"))
    o = next(o for o in replay(record, "broken").observations if o.check == "base unchanged")
    assert o.compared == "(solve({'opt': {'lr': 0.1}}, {'opt': {'lr': 0.5}}), base)[1]"
    assert [call for call, _ in o.returned] == ["solve({'opt': {'lr': 0.1}}, {'opt': {'lr': 0.5}})"]
    assert o.mutation is not None and "'base'" in o.mutation


def test_a_playground_call_says_when_solve_modified_its_argument():
    from failuremap_edu import try_call

    """The contract forbade modifying base; the playground showed such a solve as fine (a learner trial)."""
    from failuremap_edu._exercise import _playground_cell

    def solve(base, override):
        base.update(override)
        return base

    result = try_call(load_record(record_path("TR-001414")), solve, ({"a": 1}, {"b": 2}))
    assert result.mutation == "modified its argument 'base': it was {'a': 1} and became {'a': 1, 'b': 2} (key 'b' added)"
    assert _playground_cell(result, 1.0) == ("returned", "{'a': 1, 'b': 2} (and modified its argument 'base': it was {'a': 1} and became {'a': 1, 'b': 2} (key 'b' added))")
    assert repr(result).endswith("note: solve modified its argument 'base': it was {'a': 1} and became {'a': 1, 'b': 2} (key 'b' added)")
    assert try_call(load_record(record_path("TR-001414")), lambda base, override: {**base, **override}, ({"a": 1}, {"b": 2})).mutation is None


@pytest.mark.parametrize("isolation", ["process", "inprocess"])
def test_an_error_of_the_checks_expression_shows_what_solve_returned(isolation):
    """`solve(x).train` on a plain tuple raises after solve returned: the learner needs what it returned (a trial's
    hint said "your solve raises AttributeError", and solve had raised nothing). An error inside solve shows none."""
    from failuremap_edu._hints import _what_it_does
    from failuremap_edu.render._text import outcome_text

    split = load_record(record_path("TR-001515"))
    plain = run_checks(split, lambda items, *, frac=0.5: (items[:2], items[2:]), isolation=isolation)
    train = next(o for o in plain.observations if o.check == "train part")
    assert train.status == "error" and train.error.type == "AttributeError"
    assert train.shown_returns() == (("solve([0, 1, 2, 3, 4, 5, 6, 7, 8, 9], frac=0.8)", ([0, 1], [2, 3, 4, 5, 6, 7, 8, 9])),)
    assert outcome_text(train) == ("solve([0, 1, 2, 3, 4, 5, 6, 7, 8, 9], frac=0.8) returned ([0, 1], [2, 3, 4, 5, 6, 7, 8, 9]), then "
                                   "solve([0, 1, 2, 3, 4, 5, 6, 7, 8, 9], frac=0.8).train raised AttributeError: 'tuple' object has no attribute 'train'")
    text, _ = _what_it_does(train, "your solve")
    assert text.startswith("There your solve returns ([0, 1], [2, 3, 4, 5, 6, 7, 8, 9]) from solve(") and "raises AttributeError" in text
    assert text.endswith("on it: is it of the type the contract asks for?") and "your solve raises" not in text

    def raising(items, *, frac=0.5):
        raise ValueError("no split")

    inside = next(o for o in run_checks(split, raising, isolation=isolation).observations if o.check == "train part")
    assert inside.returned == () and outcome_text(inside) == "raised ValueError: no split"
    assert _what_it_does(inside, "your solve")[0] == "There your solve raises ValueError: no split."
