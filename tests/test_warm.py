"""The worker supply: a private server, a standby that takes the next run, and nothing left behind."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path
import time

import pytest

from conftest import alive_with as _alive_with, reference_solve
from failuremap_edu import load_record, run_checks
from failuremap_edu.runner import _warm

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="worker processes need fork")

reference_stopping = reference_solve("FA-100786")


def _pid(text, stops):
    return str(os.getpid()), ""


def _standby_pid(timeout: float = 10) -> int:
    """The pid of the standby lined up after the last run (it is started in the background)."""
    pool = _warm.pool()
    deadline = time.monotonic() + timeout
    while pool.standby is None:
        assert time.monotonic() < deadline, "no standby was lined up"
        time.sleep(0.005)
    return pool.standby.wait_pid()


def _swept(timeout: float = 10) -> None:
    """Until the background has stopped every finished worker and swept what it left (or `timeout`)."""
    pool = _warm.pool()
    deadline = time.monotonic() + timeout
    while (pool.errands is not None and pool.errands.qsize() or len(pool.workers) > 1) and time.monotonic() < deadline:
        time.sleep(0.005)


def test_a_run_takes_the_standby_lined_up_after_the_one_before(stopping):
    run_checks(stopping, reference_stopping)
    standby = _standby_pid()
    pids = {o.actual[0] for o in run_checks(stopping, _pid).observations}
    assert pids == {str(standby)}, "every check of the run, on the standby"
    assert _standby_pid() != standby, "and a new one is lined up"


def _uses_fractions(text, stops):
    import fractions

    return str(fractions.Fraction(1, 3)), ""


def _had_fractions(text, stops):
    return str("fractions" in sys.modules), ""


def test_a_standby_has_imported_what_the_last_run_used(stopping):
    run_checks(stopping, _uses_fractions)
    _standby_pid()
    assert run_checks(stopping, _had_fractions).observations[0].actual[0] == "True"
    _standby_pid()
    assert run_checks(stopping, _had_fractions).observations[0].actual[0] == "False", "the run before used nothing"


def test_a_standby_killed_from_outside_is_replaced(stopping):
    run_checks(stopping, reference_stopping)
    os.kill(_standby_pid(), signal.SIGKILL)
    standby = _warm.pool().standby
    standby._wait_status(False, 10)
    assert standby.gone and standby.exitcode == -signal.SIGKILL
    assert run_checks(stopping, reference_stopping).passed


def test_back_to_back_runs_never_touch_each_others_workers(stopping):
    """Each run's end (sweep, next standby) happens in the background while the next run goes."""
    solves = [reference_stopping, _pid, lambda text, stops: os._exit(3), _uses_fractions]
    results = [run_checks(stopping, solves[i % 4], timeout=0.5) for i in range(24)]
    for i, result in enumerate(results):
        assert result.problem is None and len(result.observations) == 6
        want = {"error"} if i % 4 == 2 else {"pass"} if i % 4 == 0 else {"fail"}
        assert {o.status for o in result.observations} == want, (i, result.observations[0].error)


def test_the_server_is_ours_alone_and_learners_processes_are_left_alone(stopping):
    """The notebook's own multiprocessing (here: the global forkserver) never meets our sweep."""
    import multiprocessing

    learners = multiprocessing.get_context("forkserver").Process(target=time.sleep, args=(60,), daemon=True)
    learners.start()
    try:
        assert _warm.pool().server is not multiprocessing.forkserver._forkserver

        def leaves_a_process(text, stops):
            import subprocess

            subprocess.Popen(["sleep", "60"], start_new_session=True)
            return reference_stopping(text, stops)

        assert run_checks(stopping, leaves_a_process).passed
        _swept()  # what the run left is swept by then; the learner's process must still be there
        assert learners.is_alive()
    finally:
        learners.kill()
        learners.join()


def test_a_script_without_a_main_guard_runs_once(tmp_path):
    """multiprocessing would import the caller's __main__ again in every worker; we never do."""
    script = tmp_path / "mine.py"
    script.write_text(
        textwrap.dedent(
            """
            import failuremap_edu as fm
            print("script ran", flush=True)
            def solve(text, stops):
                return text, ""
            print(fm.run_checks(fm.load_record("FA-100786"), solve).summary())
            """
        ),
        encoding="utf-8",
    )
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert out.stdout == "script ran\n4/6 checks pass (2 fail)\n", out.stderr


def test_the_server_ends_with_its_caller():
    code = "import failuremap_edu.runner._warm as w; w.warm_up(); w.pool().standby.wait_pid(); print(w.pool().server._forkserver_pid, flush=True)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    server = int(out.stdout.split()[0])
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        try:
            os.kill(server, 0)
        except ProcessLookupError:
            return
        time.sleep(0.05)
    pytest.fail("the worker server outlived its caller")


def _huge(text, stops):
    return "x" * 5_000_000


def test_a_result_bigger_than_a_pipe_still_arrives(stopping):
    result = run_checks(stopping, _huge)
    assert [o.status for o in result.observations] == ["fail"] * 6
    assert all(len(o.actual) == 5_000_000 for o in result.observations)


def test_no_server_where_checks_run_in_process(monkeypatch):
    from failuremap_edu.runner import isolation_default, warm_up

    monkeypatch.setattr(_warm, "_POOL", None)
    with isolation_default("inprocess"):  # asked for: no server, not even warmed up
        warm_up()
        assert _warm._POOL is None
        assert run_checks(load_record("FA-100786"), reference_stopping).isolation == "inprocess"
    assert run_checks(load_record("FA-100786"), reference_stopping, isolation="inprocess").isolation == "inprocess"
    assert _warm._POOL is None
    monkeypatch.delattr(os, "fork")  # a platform without fork
    _warm.warm_up()
    assert _warm._POOL is None


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="counts descriptors through /proc")
def test_back_to_back_runs_do_not_pile_up_workers_or_descriptors(stopping):
    """Each run's end is handled in the background; it must keep up, not queue workers and their pipes."""
    run_checks(stopping, reference_stopping)
    _standby_pid()
    before = len(os.listdir("/proc/self/fd"))
    pool, queued = _warm.pool(), []
    for _ in range(40):
        run_checks(stopping, reference_stopping)
        queued.append(pool.errands.qsize())
    assert max(queued) <= 3, f"the background fell behind: {queued}"
    _swept()
    assert len(pool.workers) <= 1, "only the standby is left"
    assert len(os.listdir("/proc/self/fd")) <= before + 4


def test_only_processes_outside_the_callers_session_are_ever_killed(stopping):
    """The last line of defence of the sweep: the caller, its session and the server are never strays."""
    run_checks(stopping, reference_stopping)
    standby = _standby_pid()
    deadline = time.monotonic() + 10
    while os.getsid(standby) != standby:  # the worker leaves our session first thing
        assert time.monotonic() < deadline
        time.sleep(0.005)
    assert _warm._contained(standby)
    assert not _warm._contained(os.getpid()) and not _warm._contained(_warm.pool().server._forkserver_pid)


def test_a_worker_closed_by_one_thread_is_not_read_by_another():
    """The sweep asks every worker's pid from its own thread; one may be closed meanwhile (its numbers reused)."""
    fds = [fd for _ in range(4) for fd in os.pipe()]
    worker = _warm.Worker(*fds[::2])
    worker.close()
    assert worker.wait_pid(0.1) is None
    for fd in fds[1::2]:
        os.close(fd)


def test_what_the_worker_logged_is_never_overtaken_by_its_last_message():
    """The worker may run between the supervisor's reads of its two pipes: ``done`` must not come first."""
    from failuremap_edu.runner._channel import frame

    (status_r, status_w), (plan_r, plan_w), (log_r, log_w), (wake_r, wake_w) = (os.pipe() for _ in range(4))
    for fd in (log_r, wake_r):
        os.set_blocking(fd, False)
    worker, real_read, raced = _warm.Worker(status_r, plan_w, log_r, wake_r), _warm.Worker._read, []

    def read_while_the_worker_runs(fd):
        if fd == wake_r and not raced:  # the worker logs a check and ends, just before this read
            raced.append(os.write(log_w, frame(("begin", 0, 0, "a", None))) + os.write(wake_w, frame(("done", 1))))
        return real_read(worker, fd)

    worker._read = read_while_the_worker_runs
    assert [m[0] for _, m in worker.messages(time.monotonic() + 1)] == ["begin", "done"]
    worker.close()
    for fd in (status_w, plan_r, log_w, wake_w):
        os.close(fd)


def test_no_traceback_when_the_caller_exits_while_a_standby_is_starting():
    """The launcher thread is joined at exit: killed half-way, it leaves a child that prints EOFError."""
    code = textwrap.dedent(
        """
        import threading, time
        import failuremap_edu as fm
        from failuremap_edu.runner import _byvalue as _byvalue
        real = _byvalue.dumps
        def slow(obj):
            if threading.current_thread() is not threading.main_thread():
                time.sleep(0.5)  # the standby's start is under way when the caller exits
            return real(obj)
        _byvalue.dumps = slow
        def solve(text, stops):
            return text, ""
        print(fm.run_checks(fm.load_record("FA-100786"), solve).summary())
        """
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.stdout == "4/6 checks pass (2 fail)\n" and out.stderr == "", out.stderr


def test_what_a_run_left_is_ended_when_its_caller_is_killed(tmp_path):
    """No exit hook runs in a caller killed with SIGKILL: the server, the subreaper, ends what it adopted as it exits."""
    import uuid

    marker = f"fm-left-{uuid.uuid4().hex}"
    code = textwrap.dedent(
        f"""
        import os, signal, subprocess, sys
        import failuremap_edu as fm
        LOOP = "import os\\nif os.fork() == 0:\\n    os.setsid()\\nwhile True:\\n    pass\\n"
        def solve(text, stops):
            import time
            subprocess.Popen([sys.executable, "-c", LOOP, {marker!r}], start_new_session=True)
            time.sleep(0.5)
            return text, ""
        def killed(observation):  # while the worker still runs: no sweep has come yet
            os.kill(os.getpid(), signal.SIGKILL)
        fm.run_checks(fm.load_record("FA-100786"), solve, progress=killed)
        """
    )
    subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    try:
        deadline = time.monotonic() + 5
        while _alive_with(marker) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _alive_with(marker) == [], "what the run detached outlived its server"
    finally:
        for pid in _alive_with(marker):
            os.kill(pid, signal.SIGKILL)




def test_the_server_imports_the_package_the_caller_imported():
    """The worker server's PYTHONPATH names the folder holding the caller's package, so workers never run another copy."""
    import failuremap_edu

    assert Path(_warm._PACKAGE_PARENT, "failuremap_edu", "__init__.py").samefile(failuremap_edu.__file__)


def test_a_slow_record_leaves_no_standby_that_holds_up_the_next_run(raw_record, write_record, monkeypatch):
    """The standby rehearses the last run's record code for at most REHEARSAL_LIMIT: a record that sleeps there delays nothing after it."""
    from conftest import reseal
    from failuremap_edu import replay
    from failuremap_edu.runner import _api

    for impl in raw_record["implementations"].values():
        impl["source"] = "import time\ntime.sleep(30)\n" + impl["source"]
    slow = load_record(write_record(reseal(raw_record)))
    monkeypatch.setattr(_api, "SETUP_TIMEOUT", 0.5)
    assert run_checks(slow, reference_solve("FA-100786"), timeout=0.5).problem is not None
    monkeypatch.undo()
    pairs = load_record("FA-100061")
    result = replay(pairs, "attempt", timeout=2.0)
    recorded = [o.passed for o in pairs.verification["attempt"].observations]
    assert [o.passed for o in result.observations] == recorded and result.problem is None
    assert all(o.status != "timeout" for o in result.observations)
