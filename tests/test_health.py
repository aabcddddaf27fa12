"""A solve that stops the worker server or a waiting worker (SIGSTOP) costs no later run anything."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import psutil
import pytest

from conftest import reference_solve
from failuremap_edu import run_checks
from failuremap_edu.render._text import render_run
from failuremap_edu.runner import _api, _health, _warm

pytestmark = [
    pytest.mark.skipif(not hasattr(os, "fork"), reason="worker processes need fork"),
    pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="a stopped process is found through /proc"),
    pytest.mark.timeout(120),
]

reference_stopping = reference_solve("FA-100786")


def _stops_its_server(text, stops):
    import os
    import signal

    os.kill(os.getppid(), signal.SIGSTOP)
    return text, ""


def _stopped_processes_of_ours() -> list[int]:
    return [p.pid for p in psutil.Process().children(recursive=True) if _health.stopped(p.pid)]


def _server() -> int:
    return _warm.pool().server._forkserver_pid


def _standby(timeout: float = 10) -> _warm.Worker:
    pool, deadline = _warm.pool(), time.monotonic() + timeout
    while pool.standby is None or pool.standby.wait_pid() is None or _health.state(pool.standby.pid) not in ("sleeping", "running"):
        assert time.monotonic() < deadline, "no standby was lined up"
        time.sleep(0.005)
    return pool.standby


def _until_stopped(pid: int, timeout: float = 10) -> None:
    """A stopped process stops once it is next scheduled: a moment after the signal, on a busy machine."""
    deadline = time.monotonic() + timeout
    while not _health.stopped(pid):
        assert time.monotonic() < deadline, f"{pid} never stopped"
        time.sleep(0.005)


@pytest.fixture(autouse=True)
def _nothing_left_stopped():
    yield
    stopped = _stopped_processes_of_ours()
    for pid in stopped:  # so that one failure does not spoil the other tests
        os.kill(pid, signal.SIGKILL)
    assert stopped == [], "a stopped process of ours was left"


def test_a_solve_that_stops_its_server_costs_the_next_run_nothing(stopping):
    run_checks(stopping, reference_stopping)
    server = _server()
    assert run_checks(stopping, _stops_its_server).problem is None  # its own run is unaffected: its worker runs on
    _until_stopped(server)
    result = run_checks(stopping, reference_stopping)
    assert result.passed and result.problem is None
    assert result.notes == (_health.SERVER_STOPPED.format(who="an earlier solve"),)
    assert "worker server had been stopped" in render_run(result)
    assert not psutil.pid_exists(server), "the stopped server was ended and reaped"
    assert run_checks(stopping, reference_stopping).notes == (), "said once"


def test_a_stopped_standby_is_replaced(stopping):
    run_checks(stopping, reference_stopping)
    standby = _standby().pid
    os.kill(standby, signal.SIGSTOP)  # as a process a solve left behind could
    _until_stopped(standby)
    result = run_checks(stopping, reference_stopping)
    assert result.passed and result.notes == (_health.STANDBY_STOPPED,)
    assert not psutil.pid_exists(standby) or psutil.Process(standby).status() == psutil.STATUS_ZOMBIE


def test_a_solve_that_stops_its_server_and_hangs_times_out_alone(stopping, tmp_path):
    """The checks after it run on a new server: the timeout is that check's, never the fixture code's."""
    marker = str(tmp_path / "stopped-once")

    def stops_then_hangs(text, stops):
        import os
        import signal

        if not os.path.exists(marker):
            open(marker, "w").close()
            os.kill(os.getppid(), signal.SIGSTOP)
            while True:
                pass
        return reference_stopping(text, stops)

    result = run_checks(stopping, stops_then_hangs, timeout=1)
    assert result.problem is None
    assert [o.status for o in result.observations] == ["timeout"] + ["pass"] * 5
    assert result.notes == (_health.SERVER_STOPPED.format(who="this run's solve"),)


def test_a_server_that_does_not_answer_is_replaced(stopping, monkeypatch):
    """Not found stopped (say, frozen otherwise), it never starts the worker: the run starts again on a new server."""
    run_checks(stopping, reference_stopping)
    pool, standby = _warm.pool(), _standby()
    pool.standby = None
    pool.stop(standby)
    server = _server()
    os.kill(server, signal.SIGSTOP)
    _until_stopped(server)
    monkeypatch.setattr(_health, "stopped", lambda pid: False)
    monkeypatch.setattr(_api, "SETUP_TIMEOUT", 0.5)
    result = run_checks(stopping, reference_stopping, timeout=0.5)
    assert result.passed and result.problem is None
    assert result.notes == (_health.SERVER_SILENT.format(limit=0.5),)
    assert not psutil.pid_exists(server)


def test_a_record_whose_own_code_is_slow_is_still_told_so(raw_record, write_record, monkeypatch):
    """A worker that is there and running, outside every check, past the limit: the record's code is slow."""
    from conftest import reseal
    from failuremap_edu import load_record

    for impl in raw_record["implementations"].values():
        impl["source"] = "import time\ntime.sleep(30)\n" + impl["source"]
    record = load_record(write_record(reseal(raw_record)))
    monkeypatch.setattr(_api, "SETUP_TIMEOUT", 0.5)
    result = run_checks(record, reference_stopping, timeout=0.5)
    assert result.problem.message == "the fixture code outside the checks took longer than 0.5 s"
    assert result.notes == ()


def test_a_caller_that_exits_leaves_no_stopped_server():
    """A stopped server never sees its caller go (it would end itself then): the caller ends it at exit."""
    code = textwrap.dedent(
        """
        import failuremap_edu as fm
        from failuremap_edu.runner import _warm
        def solve(text, stops):
            import os, signal
            os.kill(os.getppid(), signal.SIGSTOP)
            return text, ""
        fm.run_checks(fm.load_record("FA-100786"), solve)
        print(_warm.pool().server._forkserver_pid, flush=True)
        """
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    server = int(out.stdout.split()[0])
    deadline = time.monotonic() + 10
    while psutil.pid_exists(server) and psutil.Process(server).status() != psutil.STATUS_ZOMBIE and time.monotonic() < deadline:
        time.sleep(0.05)
    alive = psutil.pid_exists(server) and psutil.Process(server).status() != psutil.STATUS_ZOMBIE
    if alive:
        os.kill(server, signal.SIGKILL)
    assert not alive, "the stopped server outlived its caller"
