"""Whether the worker server and a standby can still answer, and how a stopped server is ended.

A solve runs as the caller's user, so it can stop its own parent (the server) or
a sibling (the standby) with SIGSTOP. A stopped server forks nothing and reports
nothing, so every later run would wait out its setup limit. The supervisor reads
one ``/proc/PID/stat`` before it relies on either (`state`), and `end_server`
ends a stopped server with everything below it, so that the pool can start a
new one. Without ``/proc`` (macOS) nothing is ever found stopped.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time

STOPPED = frozenset("Tt")
"""``/proc`` states of a process that runs no code until it is continued: stopped (SIGSTOP), or stopped by a tracer."""
GONE = frozenset("ZX")

SERVER_STOPPED = "the worker server had been stopped (SIGSTOP), by {who} or from outside; it was replaced"
"""What a run's note says when the server was found stopped: `who` is ``an earlier solve`` or ``this run's solve``."""
STANDBY_STOPPED = "the waiting worker process had been stopped (SIGSTOP), by an earlier solve or from outside; it was replaced"
SERVER_SILENT = ("the worker server did not start a worker process within {limit:g} s (it had stopped answering); "
                 "it was replaced and the checks ran again")


def state(pid: int | None) -> str | None:
    """The process's state letter (``R``, ``S``, ``T``, ``Z`` ...), from one read of ``/proc``; None if not known."""
    if pid is None:
        return None
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            return fh.read().rsplit(b")", 1)[1].split()[0].decode()
    except (OSError, IndexError):
        return None


def stopped(pid: int | None) -> bool:
    """Whether the process exists and is stopped (it answers nothing until continued)."""
    return state(pid) in STOPPED


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
