"""Worker processes for the checks: a clean server forks them, one waits on standby, none outlives its run.

Never fork the caller. A notebook kernel has threads (CPython 3.12 warns about
forking it; 3.14 makes forkserver the default on Linux) and copies its whole
memory into every fork. So workers come from a small server process started
once from a clean interpreter: the standard library's forkserver
(`multiprocessing.forkserver.ForkServer`), preloaded with this package's worker
side (`_serve`, `_worker`). It imports our modules once; each worker is a cheap
fork of it.

Why a private ForkServer, and not ``get_context("forkserver").Process``:

- that API shares one server and one preload list per process with any
  multiprocessing code in the notebook; a private instance keeps the learner's
  own pools and our workers apart (and our sweep below away from theirs);
- each ``Process.start`` makes the child import the caller's ``__main__`` again:
  a learner's script that calls `run_checks` at top level, without
  ``if __name__ == "__main__"``, would run again in every worker. We write the
  child's start data ourselves: no main module, just a `_worker.Start`;
- the plan does not go through multiprocessing's pickler: `_byvalue` pickles it
  (solve by value, never running learner code in the caller) and it travels
  down a pipe of our own.

A standby. Getting a fresh child from the server takes about 4 ms here (the
server must wake, fork, and report the pid) plus the child's first steps; a run
on a child that is already waiting takes a fraction of that (measured in
`benchmarks/bench_core.py`). So after each run one worker is started on standby
for the next, off the learner's wait, having already imported what the last
run's solve used. Within a run, a worker replaced after a timeout or a death
comes straight from the server.

Contained processes. Each worker has its own session and process group, which
is killed whole when its run ends. The server is the subreaper for everything
below it (Linux), so a process that solve detached (double fork, ``setsid``)
comes back to the server instead of to init; after a run, any child of the
server that is not one of our workers is killed, with its group, until none is
left. Where ``/proc`` is missing (macOS) only the process group is killed.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import pickle
import select
import signal
import struct
import threading
import time

try:
    from multiprocessing import forkserver
except ImportError:  # pragma: no cover - Pyodide: no processes at all (the runner never gets here)
    forkserver = None  # type: ignore[assignment]

from ._channel import Reader
from ._worker import REQUEST, Start

_SIGNED = struct.Struct("q")  # how the server reports a child's pid, then its exit code
_PACKAGE_PARENT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SWEEP_LIMIT = 2.0
"""Seconds spent at most ending what one worker left behind."""


class WorkerDied(Exception):
    """The worker's process has ended, and every message it sent has been read."""


class Worker:
    """One worker process, from the supervisor's side: its pipes and its fate."""

    def __init__(self, status_r: int, plan_w: int, messages_r: int) -> None:
        self.status_r, self.plan_w, self.messages_r = status_r, plan_w, messages_r
        self.reader = Reader()
        self._status = b""
        self.pid: int | None = None
        self.exitcode: int | None = None
        """How it ended, as multiprocessing says it: the exit code, or minus the signal."""
        self.gone = False

    def _read_status(self) -> None:
        data = os.read(self.status_r, 64)
        if not data:
            self.gone = True  # the server itself went away: so did its children
        self._status += data
        if self.pid is None and len(self._status) >= 8:
            (self.pid,) = _SIGNED.unpack_from(self._status)
        if len(self._status) >= 16:
            (self.exitcode,) = _SIGNED.unpack_from(self._status, 8)
            self.gone = True

    def _wait_status(self, done, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while not done() and not self.gone:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not select.select([self.status_r], [], [], remaining)[0]:
                return
            self._read_status()

    def wait_pid(self, timeout: float = 5.0) -> int | None:
        self._wait_status(lambda: self.pid is not None, timeout)
        return self.pid

    def has_ended(self) -> bool:
        """Whether it has ended already (a standby killed from outside, say): never blocks."""
        self._wait_status(lambda: False, 0)
        return self.gone

    def send(self, skip: int, not_run: str | None, payload: bytes, deadline: float) -> bool:
        """The run's request; False if the worker ended or stopped reading before `deadline`."""
        reason = (not_run or "").encode()
        data = memoryview(REQUEST.pack(skip, len(reason), len(payload)) + reason + payload)
        while data:
            remaining = deadline - time.monotonic()
            if self.gone or remaining <= 0:
                return False
            readable, writable, _ = select.select([self.status_r], [self.plan_w], [], remaining)
            if readable:
                self._read_status()
            if writable:
                try:
                    data = data[os.write(self.plan_w, data) :]
                except BlockingIOError:
                    pass
                except OSError:  # BrokenPipeError: it has gone
                    return False
        return True

    def messages(self, until: float) -> list:
        """Messages not yet seen, in order; [] if `until` passed first.

        Raises WorkerDied once the process has ended and all it sent has been read,
        and `_channel.Undecodable` for bytes that are no message of ours.
        """
        while True:
            remaining = until - time.monotonic()
            if self.reader.broken is not None:
                self.reader.feed(b"")  # raises
            if self.gone:
                os.set_blocking(self.messages_r, False)
                with contextlib.suppress(BlockingIOError):
                    while chunk := os.read(self.messages_r, 1 << 20):
                        if arrived := self.reader.feed(chunk):
                            return arrived
                raise WorkerDied
            if remaining <= 0:
                return []
            ready, _, _ = select.select([self.messages_r, self.status_r], [], [], remaining)
            if self.status_r in ready:
                self._read_status()
            if self.messages_r in ready:
                chunk = os.read(self.messages_r, 1 << 20)
                if not chunk:  # nobody can write any more; the status will say when it has ended
                    self._wait_status(lambda: False, remaining)
                    if not self.gone:
                        return []
                elif arrived := self.reader.feed(chunk):
                    return arrived

    def close(self) -> None:
        for fd in (self.status_r, self.plan_w, self.messages_r):
            with contextlib.suppress(OSError):
                os.close(fd)


class Pool:
    """This process's worker server, its standby, and the sweep after each worker."""

    def __init__(self) -> None:
        self.owner = os.getpid()
        self.server = forkserver.ForkServer()
        self.server.set_forkserver_preload(["failuremap_edu._serve"])
        self.started = False
        self.standby: Worker | None = None
        self.workers: set[Worker] = set()
        """Every worker launched and not yet stopped: never strays."""
        self.lock = threading.Lock()

    def take(self) -> Worker:
        """The standby if it is still there, else a fresh worker."""
        with self.lock:
            worker, self.standby = self.standby, None
        if worker is not None and worker.has_ended():
            self.stop(worker)
            worker = None
        return worker or self.launch(Start())

    def launch(self, start: Start) -> Worker:
        """Ask the server for a child; it starts in the background, and never waits here for it."""
        plan_r, plan_w = os.pipe()
        messages_r, messages_w = os.pipe()
        try:
            if not self.started:
                with _package_importable():
                    self.server.ensure_running()
                self.started = True
            with self.lock:  # known before it exists, so that no sweep takes it for a stray
                status_r, data_w = self.server.connect_to_new_process([plan_r, messages_w])
                worker = Worker(status_r, plan_w, messages_r)
                self.workers.add(worker)
        except BaseException:
            for fd in (plan_w, messages_r):
                os.close(fd)
            raise
        finally:
            os.close(plan_r)
            os.close(messages_w)
        os.set_blocking(plan_w, False)
        with open(data_w, "wb") as channel:
            channel.write(pickle.dumps({}) + pickle.dumps(start))  # no preparation data: no __main__ to import
        return worker

    def replenish(self, start: Start) -> None:
        """Start the next run's worker now, while the learner reads this run's results."""
        with self.lock:
            if self.standby is not None:
                return
        worker = self.launch(start)
        with self.lock:
            if self.standby is None:
                self.standby, worker = worker, None
        if worker is not None:
            self.stop(worker)

    def finish(self, worker: Worker, start: Start) -> None:
        """The run is over: kill its worker now; sweep and line up the next worker in the background."""
        _kill(worker)
        threading.Thread(target=self._finish, args=(worker, start), daemon=True).start()

    def _finish(self, worker: Worker, start: Start) -> None:
        self.stop(worker)
        self.replenish(start)

    def stop(self, worker: Worker) -> None:
        """Kill the worker's process group, then, once it has gone, whatever of it escaped."""
        if worker.wait_pid() is not None:
            _kill(worker)
            worker._wait_status(lambda: False, SWEEP_LIMIT)  # ended: its orphans have moved to the server
            self._sweep(worker.pid)
        with self.lock:
            self.workers.discard(worker)
        worker.close()

    def _strays(self) -> set[int]:
        """Live children of the server that are none of our workers: what solve left behind."""
        server = getattr(self.server, "_forkserver_pid", None)
        if server is None:
            return set()
        with self.lock:
            ours = list(self.workers)
        known = {w.wait_pid(1.0) for w in ours}
        return {pid for pid in _children(server) if not _zombie(pid) and _contained(pid)} - known

    def _sweep(self, group: int) -> None:
        """Until the worker's group is empty and the server has no stray children: kill them, and their groups."""
        deadline = time.monotonic() + SWEEP_LIMIT
        groups = {group}
        while time.monotonic() < deadline:
            groups = {g for g in groups if _kill_group(g)}
            strays = self._strays()
            if not strays and not groups:
                return
            for stray in strays:  # a child of the server, in a session of its own: neither ours nor the caller's
                with contextlib.suppress(OSError):
                    groups.add(os.getpgid(stray))
                    os.kill(stray, signal.SIGKILL)
            time.sleep(0.002)


def _kill_group(group: int) -> bool:
    """SIGKILL a process group; False if there is none (left) by that id."""
    try:
        os.killpg(group, signal.SIGKILL)
        return True
    except (ProcessLookupError, PermissionError):
        return False


def _kill(worker: Worker) -> None:
    """Kill a worker and its process group, or the worker alone if it has not made its group yet."""
    if worker.pid is not None and not worker.gone and not _kill_group(worker.pid):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(worker.pid, signal.SIGKILL)


def _contained(pid: int) -> bool:
    """Whether `pid` runs in a session of its own, apart from ours: only such processes are ever killed.

    Workers leave the caller's session first thing (and the server never does), so
    nothing in the caller's own session, the caller included, can be taken for a stray.
    """
    try:
        return os.getsid(pid) != os.getsid(0)
    except OSError:
        return False


def _children(pid: int) -> set[int]:
    """The direct children of `pid`, from ``/proc`` (empty where there is no ``/proc``)."""
    found: set[int] = set()
    try:
        threads = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return found
    for tid in threads:
        try:
            with open(f"/proc/{pid}/task/{tid}/children") as fh:
                found.update(map(int, fh.read().split()))
        except OSError:
            return _children_by_scan(pid)  # a kernel without CONFIG_PROC_CHILDREN
    return found


def _children_by_scan(pid: int) -> set[int]:
    found = set()
    for entry in os.listdir("/proc"):
        with contextlib.suppress(OSError, ValueError, IndexError):
            if entry.isdigit() and int(_stat(int(entry))[1]) == pid:
                found.add(int(entry))
    return found


def _stat(pid: int) -> list[str]:
    """``/proc/PID/stat`` after the command name: state, ppid, ..."""
    with open(f"/proc/{pid}/stat") as fh:
        return fh.read().rsplit(")", 1)[1].split()


def _zombie(pid: int) -> bool:
    try:
        return _stat(pid)[0] in ("Z", "X")
    except (OSError, IndexError):
        return True  # gone


@contextlib.contextmanager
def _package_importable():
    """The server imports this package by name, also when it is not installed (a checkout on sys.path)."""
    old = os.environ.get("PYTHONPATH")
    if old is not None and _PACKAGE_PARENT in old.split(os.pathsep):
        yield
        return
    os.environ["PYTHONPATH"] = _PACKAGE_PARENT + (os.pathsep + old if old else "")
    try:
        yield
    finally:
        if old is None:
            del os.environ["PYTHONPATH"]
        else:
            os.environ["PYTHONPATH"] = old


_POOL: Pool | None = None


def pool() -> Pool:
    """This process's pool, made on first use (a forked copy of a caller makes its own)."""
    global _POOL
    if _POOL is None or _POOL.owner != os.getpid():
        _POOL = Pool()
    return _POOL


def warm_up() -> None:
    """Start the server and a standby now, so that the first run does not wait for them (the exercise
    does this while the learner reads); nothing where checks run in-process."""
    from ._runner import PROCESS, isolation_available

    if isolation_available() == PROCESS:
        pool().replenish(Start())


@atexit.register
def _shutdown() -> None:
    """End the standby and what any worker left; the server ends itself when we close our end."""
    if _POOL is not None and _POOL.owner == os.getpid():
        with _POOL.lock:
            standby, _POOL.standby = _POOL.standby, None
        if standby is not None:
            _POOL.stop(standby)
