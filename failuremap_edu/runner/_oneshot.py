"""Workers for a command that runs once and exits (``failuremap-edu check``): plain forks of it, no server, no standby.

A notebook kernel is never forked (`_warm`), but a command-line process that
has no thread and holds nothing but the record and the solution's path is as
clean as the worker server: forking it costs a millisecond, where a cold
forkserver costs a start of Python and its imports. `one_shot` is asked for
by the CLI's ``main`` alone; it holds only while the process has one thread.

The same containment as the server's: the command becomes the subreaper of
everything below it (Linux), each worker has a session and process group of
its own, killed whole at the end of its run, and after it every child of the
command that is not one of our workers is killed with its group. A worker's
exit is read from a pidfd (Linux 5.3), which a poll sees as the status pipe
of a server's worker; waited for here, its exit code is the one
multiprocessing would report (minus the signal).
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import time

from ._procs import children as _children, tree_size as _tree_size
from ._warm import SWEEP_LIMIT, Worker, _contained, _kill_group, _ready, sweep
from ._worker import Start, _keep_only

_PR_SET_PDEATHSIG, _PR_SET_CHILD_SUBREAPER = 1, 36


def possible() -> bool:
    """Whether this process may fork its workers: Linux with pidfds, and no thread but this one."""
    return sys.platform.startswith("linux") and hasattr(os, "pidfd_open") and threading.active_count() == 1


class ForkedWorker(Worker):
    """A worker forked from this process: its pid is known at once, its end is read from a pidfd."""

    def __init__(self, pid: int, pidfd: int, plan_w: int, log_r: int, wake_r: int) -> None:
        super().__init__(pidfd, plan_w, log_r, wake_r)
        self.pid = pid

    def _wait_status(self, until_pid: bool, timeout: float) -> None:
        if self.gone or until_pid:
            return
        if timeout > 0:
            _ready([self.status_r], timeout)
        with self._lock:
            if self.closed:
                return
            try:
                pid, status = os.waitpid(self.pid, os.WNOHANG)
            except ChildProcessError:  # reaped by someone else: how it ended is not known
                self.gone = True
                return
            if pid:
                self.exitcode, self.gone = os.waitstatus_to_exitcode(status), True


class OneShotPool:
    """This process's workers, each a fork of it, for one command; the same calls as `_warm.Pool` uses."""

    def __init__(self) -> None:
        self.owner = os.getpid()
        self.workers: set[ForkedWorker] = set()
        self.lock = threading.Lock()
        self.libc = _subreaper()

    def take(self, first: bool = True) -> ForkedWorker:
        """A fresh worker, forked now; it waits for its plan."""
        (plan_r, plan_w), (log_r, log_w), (wake_r, wake_w) = os.pipe(), os.pipe(), os.pipe()
        for stream in (sys.stdout, sys.stderr):  # nothing of ours is written twice
            with contextlib.suppress(Exception):
                stream.flush()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child
            code = 0
            try:
                _keep_only(plan_r, log_w, wake_w)
                os.setsid()
                if self.libc is not None:
                    self.libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
                Start()._serve(plan_r, log_w, wake_w)
            except BaseException:  # noqa: BLE001 - nothing escapes; the supervisor sees the exit code
                code = 70
            finally:
                os._exit(code)
        for fd in (plan_r, log_w, wake_w):
            os.close(fd)
        worker = ForkedWorker(pid, os.pidfd_open(pid), plan_w, log_r, wake_r)
        for fd in (plan_w, log_r, wake_r):
            os.set_blocking(fd, False)
        with self.lock:
            self.workers.add(worker)
        return worker

    def stop(self, worker: ForkedWorker) -> None:
        """Kill the worker's process group, wait for it, then end whatever of it escaped."""
        if not worker.gone:
            if not _kill_group(worker.pid):  # it has not made its group yet
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(worker.pid, signal.SIGKILL)
            deadline = time.monotonic() + SWEEP_LIMIT
            while not worker.gone and time.monotonic() < deadline:
                worker._wait_status(False, 0.05)
        self._sweep(worker.pid)
        with self.lock:
            self.workers.discard(worker)
        worker.close()

    def finish(self, worker: ForkedWorker, start: Start) -> None:
        """The run is over: its worker is stopped now (no standby: the command is about to exit)."""
        self.stop(worker)

    def crowded(self, limit: int) -> bool:
        """Whether more than `limit` processes are below this one now (a fork loop), counted by `_procs.tree_size`."""
        return _tree_size(os.getpid(), limit) > limit

    def line_up(self, start: Start) -> None:
        """No standby: the command is about to exit."""

    def pop_notes(self) -> tuple[str, ...]:
        return ()

    def close(self) -> None:
        """At exit: stop every worker and end whatever they left."""
        with self.lock:
            workers = list(self.workers)
        for worker in workers:
            with contextlib.suppress(OSError):
                self.stop(worker)
        self._sweep(None)

    def _sweep(self, group: int | None) -> None:
        """Until the worker's group is empty and no stray child is left: kill them, with their groups, and reap them."""
        def strays() -> set[int]:
            with self.lock:
                ours = {w.pid for w in self.workers}
            return {pid for pid in _children(os.getpid()) - ours if _contained(pid)}

        sweep(group, strays, lambda: _reap_strays(self))


def _reap_strays(pool: OneShotPool) -> None:
    """Reap the ended children that are none of our workers (orphans that came to us as the subreaper)."""
    with pool.lock:
        ours = {w.pid for w in pool.workers}
    for pid in _children(os.getpid()) - ours:
        with contextlib.suppress(ChildProcessError, OSError):
            os.waitpid(pid, os.WNOHANG)


def _subreaper():
    """Make this process the subreaper of what its workers start; libc, for the workers' ``PR_SET_PDEATHSIG`` (None if absent)."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
        return libc
    except (OSError, AttributeError):
        return None

