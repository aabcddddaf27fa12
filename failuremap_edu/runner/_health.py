"""Whether the worker server and a standby can still answer, and how a stopped server is ended.

A solve runs as the caller's user, so it can stop its own parent (the server) or
a sibling (the standby) with SIGSTOP. A stopped server forks nothing and reports
nothing, so every later run would wait out its setup limit. The supervisor reads
the process's state (`_procs.status`, psutil) before it relies on either, and
`end_server` ends a stopped server with everything below it, so that the pool
can start a new one (`Watched`, the pool's side of this).
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from typing import TYPE_CHECKING

from ._procs import GONE, status as state, stopped

if TYPE_CHECKING:
    from ._warm import Worker

SERVER_STOPPED = "the worker server had been stopped (SIGSTOP), by {who} or from outside; it was replaced"
"""What a run's note says when the server was found stopped: `who` is ``an earlier solve`` or ``this run's solve``."""
STANDBY_STOPPED = "the waiting worker process had been stopped (SIGSTOP), by an earlier solve or from outside; it was replaced"
SERVER_SILENT = ("the worker server did not start a worker process within {limit:g} s (it had stopped answering); "
                 "it was replaced and the checks ran again")


def end_server(pid: int, children, contained, limit: float = 2.0) -> None:
    """Kill the server `pid` (our own child) once nothing is left below it: what is below, with its groups, first.

    `children(pid)` lists a process's direct children; `contained(pid)` says
    whether one may be killed (in a session of its own, alive). The server, stopped,
    reaps nothing, so its zombies are skipped; once it dies they go to init. Returns
    when the server is a zombie (or `limit` has passed): its parent reaps it.
    """
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        below = {child for child in children(pid) if contained(child)}
        if not below:
            break
        for child in below:
            with contextlib.suppress(OSError):
                os.killpg(os.getpgid(child), signal.SIGKILL)
            with contextlib.suppress(OSError):
                os.kill(child, signal.SIGKILL)
        time.sleep(0.002)
    with contextlib.suppress(OSError):
        os.kill(pid, signal.SIGKILL)  # a stopped process still dies of SIGKILL
    while state(pid) not in GONE and state(pid) is not None and time.monotonic() < deadline + limit:
        time.sleep(0.001)


class Watched:
    """What `_warm.Pool` does about a stopped or silent server or standby (mixed into it).

    It uses the pool's ``server``, ``started``, ``standby``, ``closing``, ``lock``,
    ``replacing`` (an RLock), ``notes`` and ``stop``.
    """

    def check_server(self, who: str) -> bool:
        """If the server is stopped (its state, `_procs.status`), end it with all below it and start another; True if so.

        A note for the next result says so, naming `who` stopped it (``an earlier solve``, say).
        At exit (`close`) it is only ended.
        """
        pid = getattr(self.server, "_forkserver_pid", None)
        if not self.started or not stopped(pid):
            return False
        self._replace_server(pid, SERVER_STOPPED.format(who=who))
        return True

    def stalled(self, worker: Worker, limit: float) -> bool:
        """Whether a run's wait of `limit` s outside any check was the pool's fault, not the record's: the server
        is stopped, or never started the worker, or the worker is stopped. If so, that is replaced and noted."""
        worker._wait_status(True, 0)
        if self.check_server("this run's solve"):
            return True
        if worker.pid is None and not worker.gone:  # alive but not answering
            self._replace_server(getattr(self.server, "_forkserver_pid", None), SERVER_SILENT.format(limit=limit))
            return True
        if stopped(worker.pid):
            self._note(STANDBY_STOPPED)
            return True
        return False

    def _replace_server(self, pid: int | None, note: str) -> None:
        with self.replacing:
            if pid is None or getattr(self.server, "_forkserver_pid", None) != pid:
                return  # another thread has replaced it already
            with self.lock:
                standby, self.standby = self.standby, None
            from ._procs import children
            from ._warm import _contained, _new_server, _package_importable

            end_server(pid, children, _contained)  # its workers' status pipes close: none is waited for
            if standby is not None:
                self.stop(standby)
            if self.closing:
                return
            self._note(note)
            with _package_importable():
                try:
                    self.server.ensure_running()  # reaps the old server, starts a new one
                except ChildProcessError:  # reaped by someone else already (a SIGCHLD handler of the caller's)
                    self.server = _new_server()
                    self.server.ensure_running()

    def _note(self, note: str) -> None:
        with self.lock:
            self.notes.append(note)

    def pop_notes(self) -> tuple[str, ...]:
        """The notes not yet handed to a run, once each."""
        with self.lock:
            notes, self.notes = tuple(self.notes), []
        return notes
