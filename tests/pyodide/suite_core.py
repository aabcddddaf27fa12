"""Inside Pyodide: the guarantees the package keeps in a browser's Python (JupyterLite).

Run by tests/test_pyodide.py through run.mjs, never by the host's pytest (the file
name does not match test_*.py there). Pyodide has no processes, so every run uses
the ``inprocess`` fallback; this suite holds it to what the README promises for it.

The misbehaviour corpus (tests/test_runner.py's CORPUS) splits in two, and a test
checks that every corpus case is in exactly one half:

- contained in-process: exceptions, ``sys.exit()``, ``KeyboardInterrupt``, an
  infinite loop in plain Python (the trace-function time limit), deep recursion,
  a huge single allocation, results that are not plain data, a hostile ``__eq__``:
  every check is reported and the next run works;
- not contained, by design of the fallback (fork mode contains them all): a loop
  inside a bare ``except:`` (CPython drops a trace function that raises, so the
  swallowed timeout never comes back), ``os._exit()`` (it ends the interpreter:
  in JupyterLite, the kernel), a wait inside C code (it is not interrupted: shown
  below with a short sleep), ``input()`` (in-process it is the kernel's own, so in
  JupyterLite it asks the learner for a line instead of failing the check), and
  memory that grows without end (not in the corpus; nothing in-process can cap it).
"""

from __future__ import annotations

import os
import sys
import time

import pytest

import failuremap_edu as fm
from conftest import OWN, PACKAGED, record_path, reference_solve
from test_runner import CORPUS

CONTAINED = {
    # name: (status of every check, error type, words in the message): in-process outcomes that differ
    # from fork mode's say why; None keeps the corpus's own expectation.
    "infinite loop": None,
    "sys.exit()": None,
    "KeyboardInterrupt": None,
    "deep recursion": None,
    "generator": None,
    "unpicklable object": None,  # in-process nothing is pickled, and the harness's verdict is the same
    "hostile __eq__": None,
    # wasm32: 4e9 items do not fit an index-sized integer, so the allocation fails before it starts.
    "huge allocation": ("error", "OverflowError", "index-sized integer"),
}
NOT_CONTAINED = {
    "bare except around a loop": "CPython removes a trace function that raises, and the bare except swallows the one timeout",
    "os._exit()": "it ends the interpreter itself; in JupyterLite the kernel dies and must be restarted",
    "sleep in C": "a wait inside C code is not interrupted; the check is stopped only when the call returns",
    "input()": "in-process, input() is the kernel's own (JupyterLite asks the learner for a line); fork mode's worker replaces it",
}
TIMEOUT = 0.5


def test_this_is_pyodide_and_runs_in_process():
    assert sys.platform == "emscripten"
    from failuremap_edu.runner._api import isolation_available

    assert isolation_available() == "inprocess"


def test_corpus_is_split_between_contained_and_not():
    assert set(CONTAINED) | set(NOT_CONTAINED) == set(CORPUS), "a new corpus case: decide whether in-process contains it"
    assert not set(CONTAINED) & set(NOT_CONTAINED)


@pytest.mark.parametrize("ref", [*PACKAGED, *(str(record_path(r)) for r in OWN)], ids=[*PACKAGED, *OWN])
def test_parity(ref):
    report = fm.verify_record(fm.load_record(ref))
    assert report.ok, str(report)


@pytest.mark.parametrize("name", sorted(CONTAINED))
def test_contained_misbehaviour(name, stopping):
    solve, status, error_type, words = CORPUS[name]
    if CONTAINED[name] is not None:
        status, error_type, words = CONTAINED[name]
    started = time.monotonic()
    result = fm.run_checks(stopping, solve, timeout=TIMEOUT)
    elapsed = time.monotonic() - started
    assert result.isolation == "inprocess"
    assert [o.status for o in result.observations] == [status] * 6
    for o in result.observations:
        if error_type is None:
            assert o.error is None
        elif status == "timeout" and o.index > 0:  # after the first timeout, one short line that points back to it
            assert o.error.type == error_type and "timed out)" in o.error.message, o.error
        else:
            assert o.error.type == error_type and words in o.error.message, o.error
    assert elapsed < 6 * TIMEOUT + 5
    assert fm.run_checks(stopping, reference_solve("FA-100786")).passed, "the next run works normally"


def test_a_wait_in_c_is_not_interrupted(stopping):
    """What the fallback cannot do, measured: the limit is 0.1 s, each sleep still lasts its 0.4 s."""

    def solve(text, stops):
        time.sleep(0.4)
        return text, ""

    result = fm.run_checks(stopping, solve, timeout=0.1)
    assert [o.status for o in result.observations] == ["timeout"] * 6
    # Every check whose solve was entered waited its whole 0.4 s. (On a loaded machine a later check, with the limit
    # cut to an eighth, can time out in the fixture code before solve is called: then it never slept.)
    entered = [o for o in result.observations if o.call]
    assert entered and result.observations[0] in entered, [(o.call, o.elapsed_ms) for o in result.observations]
    assert all(o.elapsed_ms >= 400 for o in entered), [(o.call, o.elapsed_ms) for o in result.observations]


def test_loop_times_out_then_a_solve_passes(stopping):
    def loop(text, stops):
        while True:
            pass

    looping = fm.run_checks(stopping, loop, timeout=TIMEOUT)
    assert looping.summary() == "0/6 checks pass (6 timeout)"
    assert fm.run_checks(stopping, reference_solve("FA-100786")).summary() == "6/6 checks pass"


def test_package_runs_without_fork_resource_or_multiprocessing(stopping, pairs):
    """Everything a learner's kernel does, then: no process was started, nothing needed them."""
    forks = []
    real_fork = getattr(os, "fork", None)
    os.fork = lambda: forks.append(1) or (_ for _ in ()).throw(OSError("no fork here"))
    try:
        exercise = fm.Exercise(stopping, log_progress=False)
        exercise.solve = reference_solve("FA-100786")
        exercise.run()
        assert "6/6 checks pass" in exercise.text()
        print(fm.watch_it_fail(pairs))
        assert fm.try_call(stopping, reference_solve("FA-100786"), ("hello<st", ["<stop>"])).status == "returned"
        import failuremap_edu.runner

        failuremap_edu.runner.compare(pairs)
    finally:
        if real_fork is not None:
            os.fork = real_fork
    assert forks == []
    for module in ("multiprocessing", "resource", "_posixsubprocess"):
        assert module not in sys.modules, module
