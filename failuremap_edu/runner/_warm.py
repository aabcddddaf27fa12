"""Worker processes: a clean server forks them, one waits on standby, and none outlives its run.

Never fork the caller: a notebook kernel has threads (CPython 3.12 warns about
forking one; 3.14 makes forkserver the default on Linux) and a fork copies all
its memory. Workers come from the standard library's forkserver, a server
started once from a clean interpreter and preloaded with the worker side
(`_serve`, `_worker`), so each worker is a cheap fork of it. We use a private
``ForkServer`` rather than ``get_context("forkserver").Process``, which shares
one server and preload list with the notebook's own multiprocessing, makes each
child import the caller's ``__main__`` again (a script calling `run_checks`
without ``if __name__ == "__main__"`` would run again in every worker), and
pickles with multiprocessing's pickler, where `_byvalue` must send solve. We ask
the server for a child and send it a `_worker.Start` ourselves.

A standby: a run on a fresh child takes about twice as long as on one already
waiting (`benchmarks/bench_core.py`), so after each run a child is started for
the next, having imported what this run's solve used. That, killing the
finished worker and the sweep happen on a background thread, off the wait.

Contained processes: each worker has a session and process group of its own,
killed whole at the end of its run. The server is the subreaper below it
(Linux), so what solve detached (double fork, ``setsid``) comes back to it, not
to init; after a run, every child of the server that is not one of our workers
is killed with its group, until none is left. Nothing in the caller's own
session is ever killed. The process tree is read through `_procs` (psutil), on Linux and macOS alike;
only Linux has the subreaper, so on macOS what solve detached escapes the server, and only its group is killed.

One exception to "never fork the caller": a command that runs once and exits, with no
thread (`one_shot`: ``failuremap-edu check``), forks its workers itself (`_oneshot`).
"""

from __future__ import annotations

import atexit
import contextlib
import os
import pickle
import queue
import select
import signal
import struct
import sys
import threading
import time
from typing import Callable

from . import _byvalue, _health, _procs
from ._channel import Reader
from ._platform import PROCESS, isolation_available
from ._worker import REQUEST, Start

_SIGNED = struct.Struct("q")  # how the server reports a child's pid, then its exit code
_PACKAGE_PARENT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
"""The folder that holds the package (`failuremap_edu/runner/_warm.py`: three levels up)."""
POLL = 0.025
"""Seconds between reads of a running worker's log: for live progress, and to learn when a check began."""
SWEEP_LIMIT = 2.0
"""Seconds spent at most ending what one worker left behind."""


class WorkerDied(Exception):
    """The worker's process has ended, and every message it sent has been read."""


class Worker:
    """One worker process, from the supervisor's side: its pipes and its fate."""

    def __init__(self, status_r: int, plan_w: int, log_r: int, wake_r: int) -> None:
        self.status_r, self.plan_w, self.log_r, self.wake_r = status_r, plan_w, log_r, wake_r
        self.readers = {log_r: Reader(), wake_r: Reader()}  # a frame never spans the two pipes
        self._status, self._lock = b"", threading.Lock()
        self.pid: int | None = None
        self.exitcode: int | None = None
        """How it ended, as multiprocessing reports it: the exit code, or minus the signal."""
        self.gone = self.closed = False
        self.hung_up = False
        """The wake pipe has closed: nothing will wake us any more but the exit status."""
        self.exit_note: str | None = None
        """Why it ended before it could run anything, where that is known (a sandbox that did not start: `_sandbox`)."""
        self.unread: list = []
        """Messages read but not yet handed out: those after a run's end, of the next (`_runner.replay_many`)."""

    def _wait_status(self, until_pid: bool, timeout: float) -> None:
        """Read what the server reports (pid, then exit code) until the pid is known or it has ended."""
        deadline = time.monotonic() + timeout
        while not self.gone and not (until_pid and self.pid is not None):
            remaining = deadline - time.monotonic()
            # In short waits: another thread may read what woke us (the sweep asks every worker's pid).
            if not _ready([self.status_r], min(max(remaining, 0), 0.01)):
                if remaining <= 0:
                    return
                continue
            with self._lock, contextlib.suppress(BlockingIOError):  # the sweep's thread reads it too
                if self.closed:  # by another thread: its descriptor may belong to a new pipe by now
                    return
                data = os.read(self.status_r, 64)
                self._status += data
                if self.pid is None and len(self._status) >= 8:
                    (self.pid,) = _SIGNED.unpack_from(self._status)
                if len(self._status) >= 16:
                    (self.exitcode,) = _SIGNED.unpack_from(self._status, 8)
                self.gone = not data or self.exitcode is not None  # no data: the server itself has gone

    def wait_pid(self, timeout: float = 5.0) -> int | None:
        self._wait_status(True, timeout)
        return self.pid

    def send(self, skip: int, not_run: str | None, payload: bytes, deadline: float) -> bool:
        """The run's request; False if the worker ended or stopped reading before `deadline`."""
        reason = (not_run or "").encode()
        data = memoryview(REQUEST.pack(skip, len(reason), len(payload)) + reason + payload)
        while data and not self.gone and time.monotonic() < deadline:
            if _ready([self.plan_w], 0.05, select.POLLOUT):
                try:
                    data = data[os.write(self.plan_w, data) :]
                except BlockingIOError:
                    pass
                except OSError:  # BrokenPipeError: it has gone
                    return False
            self._wait_status(False, 0)
        return not data

    def messages(self, until: float) -> list:
        """Messages not yet seen, in order; [] if `until` passed first.

        Raises WorkerDied once the process has ended and all it sent has been read,
        and `_channel.Undecodable` for bytes that are no message of ours.
        """
        if self.unread:
            arrived, self.unread = self.unread, []
            return arrived
        while True:
            for reader in self.readers.values():
                reader.check()  # garbage was read: from then on the worker counts as dead
            gone = self.gone
            # The wake pipe first: once it holds a frame the log holds all that came before, and the log's
            # frames go first (`_worker._Sink`). What follows garbage in the log is not trusted.
            woken = self._read(self.wake_r)
            arrived = self._read(self.log_r)
            arrived += woken if self.readers[self.log_r].broken is None else []
            if arrived:
                return arrived  # what came with the garbage, if any, is raised at the next call
            if any(reader.broken for reader in self.readers.values()):
                continue
            if gone:
                raise WorkerDied
            remaining = until - time.monotonic()
            if remaining <= 0:
                return []
            watched = [self.status_r] + ([] if self.hung_up else [self.wake_r])
            if self.status_r in _ready(watched, min(remaining, POLL)):
                self._wait_status(False, 0)

    def _read(self, fd: int) -> list:
        """Whatever is in one pipe now, as messages (never blocks)."""
        reader, arrived = self.readers[fd], []
        with contextlib.suppress(BlockingIOError):
            while reader.broken is None and (chunk := os.read(fd, 1 << 20)):
                arrived += reader.feed(chunk)
            self.hung_up |= fd == self.wake_r and reader.broken is None  # end of file: every writer has gone
        return arrived

    def close(self) -> None:
        with self._lock:
            self.closed = True
            for fd in (self.status_r, self.plan_w, self.log_r, self.wake_r):
                with contextlib.suppress(OSError):
                    os.close(fd)


class Pool(_health.Watched):
    """This process's worker server, its standby, and the sweep after each worker."""

    def __init__(self) -> None:
        self.owner = os.getpid()
        self.server = _new_server()
        self.started = False
        self.standby: Worker | None = None
        self.workers: set[Worker] = set()
        """Every worker asked for and not yet stopped: never strays."""
        self.errands: queue.SimpleQueue | None = None
        self.errand_thread: threading.Thread | None = None
        self.closing = False
        """Set at exit: no new standby is lined up from then on."""
        self.lock = threading.Lock()
        self.replacing = threading.RLock()
        """Held while a stopped server is ended and a new one started (`stop` of its standby re-enters)."""
        self.notes: list[str] = []
        """What runs should say about the pool (a stopped server replaced), until `pop_notes` hands them to one."""

    def take(self, first: bool = True) -> Worker:
        """The standby if it is still there and not stopped, else a fresh worker; a stopped server is replaced first.

        `first`: the run's first worker (what went wrong before it, an earlier run did).
        """
        self.check_server("an earlier solve" if first else "this run's solve")
        with self.lock:
            worker, self.standby = self.standby, None
        if worker is not None:
            worker._wait_status(False, 0)
            if not worker.gone and not _health.stopped(worker.pid):
                return worker
            if not worker.gone:
                self._note(_health.STANDBY_STOPPED)
            self.stop(worker)
        return self.launch(Start())

    def launch(self, start: Start) -> Worker:
        """Ask the server for a child; it starts in the background, and is never waited for here."""
        (plan_r, plan_w), (log_r, log_w), (wake_r, wake_w) = os.pipe(), os.pipe(), os.pipe()
        try:
            if not self.started:
                with _package_importable():
                    self.server.ensure_running()
                self.started = True
            with self.lock:  # known before it exists, so that no sweep takes it for a stray
                status_r, data_w = self.server.connect_to_new_process([plan_r, log_w, wake_w])
                worker = Worker(status_r, plan_w, log_r, wake_r)
                self.workers.add(worker)
        except BaseException:
            for fd in (plan_w, log_r, wake_r):
                os.close(fd)
            raise
        finally:
            for fd in (plan_r, log_w, wake_w):
                os.close(fd)
        for fd in (status_r, plan_w, log_r, wake_r):
            os.set_blocking(fd, False)
        with open(data_w, "wb") as channel:  # no preparation data: no __main__ to import; by value: the rehearsal's code
            channel.write(pickle.dumps({}) + _byvalue.dumps(start)[0])
        return worker

    def finish(self, worker: Worker, start: Start) -> None:
        """The run is over: its worker is stopped, and the next one lined up, on a background thread."""
        with self.lock:
            if self.errands is None:  # one thread for the life of the pool: starting one per run costs more
                self.errands = queue.SimpleQueue()
                self.errand_thread = threading.Thread(target=self._run_errands, args=(self.errands,), daemon=True)
                self.errand_thread.start()
            self.errands.put((worker, start))

    def _run_errands(self, errands: queue.SimpleQueue) -> None:
        while True:
            errand = errands.get()
            if errand is None:  # `close`: every errand before this one is done
                return
            worker, start = errand
            with contextlib.suppress(OSError):  # no standby this time (the server restarting, say): runs start fresh
                # First the next run's worker, then the sweep (which waits for the old one to end). Never on a stopped
                # server, nor is one replaced here: a run may be using one of its workers now (the next `take` does it).
                if errands.empty() and not self.closing and not _health.stopped(getattr(self.server, "_forkserver_pid", None)):
                    self.line_up(start)
            with contextlib.suppress(OSError):
                self.stop(worker)

    def line_up(self, start: Start) -> None:
        """Start a standby, unless there is one (or the pool is closing)."""
        with self.lock:
            if self.standby is not None or self.closing:
                return
        standby = self.launch(start)
        with self.lock:
            self.standby, extra = (standby, None) if self.standby is None else (self.standby, standby)
        if extra is not None:
            self.stop(extra)

    def stop(self, worker: Worker) -> None:
        """Kill the worker's process group, then, once it has gone, whatever of it escaped."""
        if threading.current_thread() is not self.errand_thread:  # a stopped server reports no pid and no exit: replaced first
            self.check_server("this run's solve")
        elif _health.stopped(getattr(self.server, "_forkserver_pid", None)):  # not waited for: the next `take` (or the exit)
            if worker.pid is not None:  # ends the server with everything below it
                _kill_group(worker.pid)
            with self.lock:
                self.workers.discard(worker)
            return worker.close()
        if worker.wait_pid() is not None and not worker.gone:
            if not _kill_group(worker.pid):  # it has not made its group yet
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(worker.pid, signal.SIGKILL)
            worker._wait_status(False, SWEEP_LIMIT)  # ended: its orphans have moved to the server by now
        if worker.pid is not None:
            self._sweep(worker.pid)
        with self.lock:
            self.workers.discard(worker)
        worker.close()

    def close(self, limit: float = 10.0) -> None:
        """At exit: finish the errands, stop every worker, and end whatever they left, before returning.

        The background thread is joined, not abandoned: one killed while it starts a
        standby leaves a child that never gets its start (an ``EOFError`` traceback
        on the caller's stderr). The server ends what is left when it sees us go
        (`_worker.end_everything_below`); this ends it first, while we still wait.
        """
        with self.lock:
            self.closing = True
            thread, errands = self.errand_thread, self.errands
        self.check_server("")  # a stopped server would never see us go: ended now
        with self.lock:
            standby, self.standby = self.standby, None
        if thread is not None and errands is not None and thread.is_alive():
            errands.put(None)
            thread.join(limit)
        with self.lock:
            workers = list(self.workers) + ([standby] if standby is not None else [])
        for worker in dict.fromkeys(workers):  # each once, in order
            with contextlib.suppress(OSError):
                self.stop(worker)
        self._sweep(None)

    def crowded(self, limit: int) -> bool:
        """Whether more than `limit` processes are below the server now (a fork loop), counted by `_procs.tree_size`.

        The kernel's ``RLIMIT_NPROC`` never binds root, and counts a user's every
        process: this count holds for anyone. Cheap while a run starts nothing:
        one read per process below the server.
        """
        return _procs.tree_size(getattr(self.server, "_forkserver_pid", None), limit) > limit

    def _strays(self) -> set[int]:
        """Live children of the server, in sessions of their own, that are none of our workers."""
        children = _procs.children(getattr(self.server, "_forkserver_pid", None))  # first: see `launch`
        with self.lock:
            ours = list(self.workers)
        return {pid for pid in children - {w.wait_pid(1.0) for w in ours} if _contained(pid)}

    def _sweep(self, group: int | None) -> None:
        """Until the worker's group is empty and the server has no stray child: kill them, with their groups."""
        sweep(group, self._strays)


def sweep(group: int | None, strays: Callable[[], set[int]], each_round: Callable[[], None] = lambda: None) -> None:
    """Kill `group` and every process `strays()` names, with its group, until none is left or `SWEEP_LIMIT` passes.

    `each_round` runs first in every round (reaping what was killed, say).
    """
    deadline = time.monotonic() + SWEEP_LIMIT
    groups = set() if group is None else {group}
    while time.monotonic() < deadline:
        each_round()
        groups = {g for g in groups if _kill_group(g)}
        found = strays()
        if not found and not groups:
            return
        for stray in found:
            with contextlib.suppress(OSError):
                groups.add(os.getpgid(stray))
                os.kill(stray, signal.SIGKILL)
        time.sleep(0.002)


def _new_server():
    """A private forkserver (not yet started) that preloads the worker side."""
    from multiprocessing import forkserver  # here: a one-shot command never starts one (`_oneshot`)

    server = forkserver.ForkServer()
    server.set_forkserver_preload(["failuremap_edu.runner._serve"])
    return server


def _ready(fds: list[int], timeout: float, events: int = select.POLLIN) -> list[int]:
    """The descriptors among `fds` that are ready (poll: select() fails above descriptor 1023)."""
    poller = select.poll()
    for fd in fds:
        poller.register(fd, events)
    return [fd for fd, _ in poller.poll(timeout * 1000)]


def _kill_group(group: int) -> bool:
    """SIGKILL a process group; False if there is none (left) by that id."""
    try:
        os.killpg(group, signal.SIGKILL)
        return True
    except (ProcessLookupError, PermissionError):
        return False


def _contained(pid: int) -> bool:
    """Alive, and in a session apart from ours: only such processes are ever killed.

    Workers leave the caller's session first thing (the server never does), so
    nothing in the caller's own session, the caller included, can pass for a stray.
    """
    try:
        return _procs.alive(pid) and os.getsid(pid) != os.getsid(0)
    except OSError:
        return False


@contextlib.contextmanager
def _package_importable():
    """The server imports this package by name, also where it is not installed (a checkout on sys.path)."""
    old = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, (_PACKAGE_PARENT, old)))
    try:
        yield
    finally:
        os.environ.pop("PYTHONPATH") if old is None else os.environ.update(PYTHONPATH=old)


_POOL: Pool | None = None
_ONE_SHOT: int | None = None
"""The pid of a process that said it runs one command and exits (`one_shot`)."""


def one_shot() -> bool:
    """Say that this process runs one command and exits: from now on, while it has no thread, its
    workers are plain forks of it (`_oneshot`), with no server and no standby. True if that holds."""
    global _ONE_SHOT
    from ._oneshot import possible

    _ONE_SHOT = os.getpid() if possible() else None
    return _ONE_SHOT is not None


def pool() -> Pool:
    """This process's pool, made on first use (a forked copy of a caller makes its own)."""
    global _POOL
    if _POOL is None or _POOL.owner != os.getpid():
        if _ONE_SHOT == os.getpid():
            from ._oneshot import OneShotPool, possible

            if possible():
                _POOL = OneShotPool()  # type: ignore[assignment]
                return _POOL
        _POOL = Pool()
    return _POOL


def warm_up() -> None:
    """Start the server and a standby now, so that the first run does not wait for them (the
    exercise does this while the learner reads); nothing where checks run in-process."""
    if isolation_available() == PROCESS:
        pool().line_up(Start())


@atexit.register
def _shutdown() -> None:
    """End every worker, the standby and what any of them left, before we exit; the server
    ends itself when we close our end (also when we are killed: `_worker.end_everything_below`)."""
    if _POOL is not None and _POOL.owner == os.getpid():
        _POOL.close()
    sandbox = sys.modules.get(f"{__package__}._sandbox")  # sandboxed workers, if any ran (never imported here at exit)
    if sandbox is not None:
        sandbox.close_all()
