"""The process tree as containment reads it: a process's children, how many are below one, its state, its user's threads.

Through psutil, so that containment holds on macOS as on Linux. psutil is imported on
first use, by process-mode code only: a browser-only site (Pyodide), where psutil does
not exist, never calls these. One exception, for speed: where the kernel lists a
process's children itself (Linux, ``/proc/PID/task/TID/children``), `children` reads
that list, one small read per thread of the parent; psutil finds children by reading
every process on the machine, which the fork-loop watch (`tree_size`, every
`_api.CROWD_EVERY` of a check that runs long) cannot afford on a busy hub.
"""

from __future__ import annotations

import contextlib
import functools
import os

STOPPED = frozenset({"stopped", "tracing-stop"})
"""psutil's states of a process that runs no code until it is continued: stopped (SIGSTOP), or stopped by a tracer."""
GONE = frozenset({"zombie", "dead"})
"""psutil's states of a process that has ended (its parent has not reaped it yet)."""


def status(pid: int | None) -> str | None:
    """The process's state as psutil names it (``running``, ``sleeping``, ``stopped``, ``zombie`` ...); None if it is not there or not readable."""
    if pid is None:
        return None
    import psutil

    try:
        return psutil.Process(pid).status()
    except (psutil.Error, OSError):
        return None


def stopped(pid: int | None) -> bool:
    """Whether the process exists and is stopped (it answers nothing until continued)."""
    return status(pid) in STOPPED


def alive(pid: int | None) -> bool:
    """Whether the process exists and has not ended."""
    found = status(pid)
    return found is not None and found not in GONE


def children(pid: int | None) -> set[int]:
    """The direct children of `pid` (an empty set when it is not there)."""
    if pid is None:
        return set()
    if _kernel_lists_children():
        found: set[int] = set()
        with contextlib.suppress(OSError, ValueError):
            for tid in os.listdir(f"/proc/{pid}/task"):
                with open(f"/proc/{pid}/task/{tid}/children") as fh:
                    found.update(map(int, fh.read().split()))
        return found
    import psutil

    try:
        return {child.pid for child in psutil.Process(pid).children()}
    except (psutil.Error, OSError):
        return set()


def tree_size(root: int | None, limit: int) -> int:
    """How many processes are below `root`, counting no further than just past `limit` where the kernel lists children."""
    if root is None:
        return 0
    if not _kernel_lists_children():  # psutil reads every process once for the whole tree
        import psutil

        try:
            return len(psutil.Process(root).children(recursive=True))
        except (psutil.Error, OSError):
            return 0
    count, pending = 0, [root]
    while pending and count <= limit:
        below = children(pending.pop())
        count += len(below)
        pending += below
    return count


def user_threads(uid: int) -> int | None:
    """How many threads the user `uid` has that we can see (what Linux's ``RLIMIT_NPROC`` counts); None if they cannot be counted."""
    import psutil

    count = 0
    try:
        for process in psutil.process_iter(["uids", "num_threads"]):
            uids, threads = process.info["uids"], process.info["num_threads"]
            if uids is not None and uids.real == uid:
                count += threads or 1
    except (psutil.Error, OSError):
        return None
    return count


@functools.cache
def _kernel_lists_children() -> bool:
    """Whether the kernel lists each thread's children in ``/proc`` (Linux 3.5 and later, CONFIG_PROC_CHILDREN)."""
    return os.path.exists(f"/proc/{os.getpid()}/task/{os.getpid()}/children")
