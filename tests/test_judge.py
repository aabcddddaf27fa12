"""The judge split (``--sandbox``): a solve that forges its verdict in its own process gets its real verdicts."""

from __future__ import annotations

import shutil

import pytest

from conftest import record_path, reference_solve, solution_path
from failuremap_edu import load_record, load_solution, run_checks

pytestmark = pytest.mark.skipif(not shutil.which("bwrap"), reason="needs bubblewrap (apt-get install bubblewrap)")
reference = reference_solve("FA-100786")
WRONG = "4/6 checks pass (2 fail)"
"""What ``(text, '')`` really gets on FA-100786."""


def _wraps_the_sink(text, stops):
    """Wraps every Session's result sender it can find so that each result says pass, with actual = expected."""
    import gc

    from failuremap_edu.runner._session import Session

    for session in [o for o in gc.get_objects() if isinstance(o, Session)]:
        real = session.sink
        if getattr(real, "forged", False):
            continue

        def forged(message, real=real):
            if message[0] == "result" and message[1]["status"] == "fail":
                message = ("result", {**message[1], "status": "pass", "passed": True, "actual": message[1]["expected"]})
            real(message)

        forged.forged = True
        session.sink = forged
    return text, ""


def _patches_the_harness(text, stops):
    """Replaces the record's check() with one that passes everything, wherever it can find it."""
    import sys

    frame = sys._getframe(1)
    while frame is not None and "observations" not in frame.f_globals:
        frame = frame.f_back
    if frame is not None:
        g = frame.f_globals
        g["check"] = lambda label, actual, expected: g["observations"].append({"check": label, "passed": True})
    return text, ""


def _patches_bool(text, stops):
    import builtins

    builtins.bool = lambda value=False: True
    return text, ""


def _patches_the_proxy(text, stops):
    """Replaces the judge's side of the call pipe, and the session's verdict, in its own process."""
    import sys

    judge = sys.modules.get("failuremap_edu.runner._judge")
    if judge is not None:
        judge._Proxy.__call__ = lambda self, *args, **kwargs: ("hello", "<st")
        judge._checked = lambda reply: reply
    from failuremap_edu.runner import _session

    _session.Session._verdict = lambda self, label, actual, expected: True
    return text, ""


@pytest.mark.parametrize("forger", [_wraps_the_sink, _patches_the_harness, _patches_bool, _patches_the_proxy])
def test_a_solve_that_forges_its_verdict_gets_its_real_verdicts_under_sandbox(stopping, forger):
    forged = run_checks(stopping, forger, isolation="process")
    assert forged.summary() != WRONG  # what it does to a run that shares its process (the reason for the split)
    result = run_checks(stopping, forger, isolation="sandbox")
    assert result.isolation == "sandbox" and result.summary() == WRONG
    assert [o.status for o in result.observations] == [o.status for o in run_checks(stopping, lambda text, stops: (text, "")).observations]
    assert all(o.verdict_note is None for o in result.observations)


def test_the_sink_wrapper_forges_a_silent_pass_where_solve_shares_the_judges_process(stopping):
    """Without the split the forgery is not even unconfirmed: actual = expected, 6/6 and no note."""
    forged = run_checks(stopping, _wraps_the_sink, isolation="process")
    assert forged.summary() == "6/6 checks pass" and all(o.verdict_note is None for o in forged.observations)


class _EqualsAnything:
    def __eq__(self, other):
        return True

    def __repr__(self):
        return "('hello', '<st')"


def test_an_always_equal_object_is_unconfirmed_under_sandbox(stopping):
    """It cannot cross as plain data: the check is judged in solve's own process, as without --sandbox, and says so;
    a pass from there, on values only that process can compare, is not confirmed."""
    result = run_checks(stopping, lambda text, stops: _EqualsAnything(), isolation="sandbox")
    assert result.passed_count == 0 and [o.status for o in result.observations] == ["unconfirmed"] * 6
    assert all(o.judged_in_solve_process and o.verdict_note.startswith("the verdict could not be confirmed: solve's own process judged it pass")
               for o in result.observations)
    assert result.to_json()["observations"][0]["judged_in_solve_process"] is True
    assert all(not o.judged_in_solve_process for o in run_checks(stopping, lambda text, stops: _EqualsAnything()).observations)


def test_dataclass_instances_cross_as_their_fields_and_are_rebuilt_as_the_receivers_class():
    """TR-001313's solve returns its Span (the cell's copy of the preamble's): rebuilt in the judge as the record's Span, and
    judged there. TR-000505 passes the record's Span to a solution file that defines none: the record's class goes by value."""
    namespace = {"__name__": "__main__"}
    exec(solution_path("TR-001313").read_text(), namespace)
    result = run_checks(load_record(record_path("TR-001313")), namespace["solve"], isolation="sandbox")
    assert result.summary() == "5/5 checks pass" and not any(o.judged_in_solve_process for o in result.observations)
    wrong = run_checks(load_record(record_path("TR-001313")), lambda text: [namespace["Span"](0, 1, text[:1])], isolation="sandbox")
    assert wrong.observations[4].status == "fail" and not wrong.observations[4].judged_in_solve_process
    merged = run_checks(load_record(record_path("TR-000505")), load_solution(str(solution_path("TR-000505"))), isolation="sandbox")
    assert merged.summary() == "6/6 checks pass" and not any(o.judged_in_solve_process for o in merged.observations)


def test_a_fail_judged_in_solves_process_stays_a_fail_and_says_where_it_was_judged(stopping):
    result = run_checks(stopping, lambda text, stops: iter(()), isolation="sandbox")
    assert {o.status for o in result.observations} == {"fail"} and all(o.judged_in_solve_process for o in result.observations)
    assert "note:     judged in solve's own process: its values are not plain data" in str(result)
    assert "judged in solve&#x27;s own process" in result._repr_html_() or "judged in solve's own process" in result._repr_html_()


def test_solve_runs_in_a_process_apart_from_the_judge_that_it_cannot_read(stopping):
    """Another pid than the program's; the judge is not dumpable and solve has no capabilities: the judge's
    descriptors (the pipes to the supervisor among them) and memory are closed to it, though it has the same uid."""

    def looks_around(text, stops):
        import os

        judge, seen = os.getppid(), []
        for path in [f"/proc/{judge}/fd/{name}" for name in os.listdir(f"/proc/{judge}/fd")] + [f"/proc/{judge}/mem"]:
            try:
                os.close(os.open(path, os.O_RDWR | os.O_NONBLOCK))
                seen.append("opened")
            except OSError as exc:
                seen.append(type(exc).__name__)
        with open("/proc/self/status") as fh:
            caps = next(line.split()[1] for line in fh if line.startswith("CapEff"))
        return f"{os.getpid()} {caps} {' '.join(sorted(set(seen)))}", ""

    result = run_checks(stopping, looks_around, isolation="sandbox")
    pid, caps, seen = result.observations[0].actual[0].split(" ", 2)
    assert pid != "2" and int(caps, 16) == 0 and seen == "PermissionError"  # pid 2: the worker itself, in its own PID namespace


def test_a_solve_that_kills_its_process_errors_that_check_only(stopping):
    def dies_on_the_first(text, stops):
        import os

        if text == "hello<st":
            os._exit(3)
        return reference(text, stops)

    result = run_checks(stopping, dies_on_the_first, isolation="sandbox")
    first = result.observations[0]
    assert first.status == "error" and first.error.type == "ProcessDied" and "exited with code 3" in first.error.message
    assert [o.status for o in result.observations[1:]] == ["pass"] * 5  # a fresh solve process serves the next call


def test_what_solve_raises_and_prints_comes_through(stopping):
    def raises(text, stops):
        print("looking at", text)
        if text == "hello<st":
            raise ValueError("no markers here")
        return reference(text, stops)

    result = run_checks(stopping, raises, isolation="sandbox")
    first = result.observations[0]
    assert first.status == "error" and (first.error.type, first.error.message) == ("ValueError", "no markers here")
    assert first.error == run_checks(stopping, raises, isolation="process").observations[0].error  # the traceback too: solve's frames only
    assert 'raise ValueError("no markers here")' in first.error.traceback
    assert first.stdout == "looking at hello<st\n" and result.passed_count == 5


def test_an_in_place_contract_is_judged_as_the_harness_judges_it():
    """TR-000606: solve(xs) dedupes xs in place and returns None; the checks read xs afterwards: copied back into the judge's xs."""
    record = load_record(record_path("TR-000606"))

    def solve(xs):
        xs[:] = list(dict.fromkeys(xs))

    result = run_checks(record, solve, isolation="sandbox")
    assert result.summary() == "4/4 checks pass"
    assert result.observations[0].mutation.startswith("solve modified its argument 'xs': it was [3, 1, 3, 2, 1] and became [3, 1, 2].")


def test_a_solution_file_is_loaded_in_solves_process(stopping, tmp_path):
    from failuremap_edu import load_solution

    path = tmp_path / "solution.py"
    path.write_text("import os\nLOADED_IN = os.getpid()\n\ndef solve(text, stops):\n    return text, ''\n")
    assert run_checks(stopping, load_solution(str(path)), isolation="sandbox").summary() == WRONG
    path.write_text("raise RuntimeError('broken at import')\n\ndef solve(text, stops):\n    return text, ''\n")
    result = run_checks(stopping, load_solution(str(path)), isolation="sandbox")
    assert result.problem is not None and result.problem.type == "RuntimeError" and "failed while loading: broken at import" in result.problem.message


def test_a_forgery_in_the_check_judged_in_solves_process_is_unconfirmed(stopping):
    """Not plain data sends the check to solve's process, where wrapping the sink forges a pass with actual = expected: unconfirmed."""

    def forges_there(text, stops):
        _wraps_the_sink(text, stops)
        return iter(()) if text == "hello<st" else (text, "")  # a generator, which fails, and which the forged sink makes pass

    result = run_checks(stopping, forges_there, isolation="sandbox")
    first = result.observations[0]
    assert first.judged_in_solve_process and first.status == "unconfirmed" and first.actual == first.expected
    assert [o.status for o in result.observations[1:]] == ["pass", "fail", "pass", "pass", "pass"]  # the others: real verdicts


def test_the_judge_imports_nothing_from_where_solve_can_write(raw_record, write_record, tmp_path, monkeypatch):
    """A folder of the caller's sys.path under /tmp: in the sandbox's own empty /tmp solve may create it and plant a
    module there; the record's later import must not find it (it would run solve's code in the judge)."""
    from conftest import reseal

    fixture = "check('short input',solve('x',['long']),('x',''))"
    planted = ("check('nothing planted', (__import__('importlib').invalidate_caches(), __import__('importlib.util').util.find_spec('fm_planted'))[1]"
               " is None, True)")  # invalidate_caches: an import made before solve ran cached the folder as missing
    for impl in raw_record["implementations"].values():
        impl["source"] = impl["source"].replace(fixture, fixture + "\n" + planted)
    path = write_record(reseal(raw_record))
    folder = str(tmp_path / "modules")
    monkeypatch.syspath_prepend(folder)

    def plants(text, stops):
        import os

        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, "fm_planted.py"), "w") as fh:
            fh.write("PLANTED = True\n")
        return reference(text, stops)

    result = run_checks(path, plants, isolation="sandbox")
    assert [o.status for o in result.observations] == ["pass"] * 7, [(o.check, o.actual) for o in result.observations]
