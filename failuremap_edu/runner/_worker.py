"""A worker process from the inside: how it starts, what it does to itself, and its one run.

Workers are children of the worker server (`_warm`), a clean interpreter that
never ran a notebook's code. The server forks a child per request; the child
unpickles a `Start` and calls its ``_bootstrap``, which

- keeps only its pipes (plan in, messages out: see `_Sink`), closing every other
  descriptor it inherited, so nothing solve writes reaches anyone else;
- starts a session of its own, so that its process group can be killed whole,
  and asks to die with the server (``PR_SET_PDEATHSIG``, Linux);
- cuts itself off from terminal, input and interrupts, and caps its resources:
  address space (its own size plus the memory budget; hard once the run starts,
  so solve cannot raise it again), no core dumps, a CPU-time backstop, and for
  users other than root a hard ``RLIMIT_NPROC`` (the supervisor counts
  processes for everyone: `MAX_PROCESSES`);
- imports what the previous run's solve used and rehearses that run (lists
  its checks without calling solve: measured, the next run then takes about
  0.7 ms less), then waits for its plan, runs one `Session`, and waits to be
  killed: exiting at once would put its teardown on the CPU just when the
  supervisor reads the results.

`become_server` is what the server does once, from its preload (`_serve`):
become the subreaper of everything below it, so that a process solve forks,
double-forks or detaches with ``setsid`` comes back to it instead of to init,
where `_warm` finds and ends it.
"""

from __future__ import annotations

import builtins
import contextlib
import gc
import importlib
import os
import select
import signal
import struct
import sys
from typing import Any

try:
    import resource
except ImportError:  # pragma: no cover - Windows, Pyodide
    resource = None  # type: ignore[assignment]

from . import _byvalue, _procs
from ._channel import frame
from ._session import DEFAULT_MEMORY_MB, DEFAULT_OUTPUT_CHARS, OutputCapture, Plan, Session

REQUEST = struct.Struct("!III")
"""A request's header: checks to skip, then the lengths of the not-run reason and of the plan."""
_PR_SET_PDEATHSIG, _PR_SET_CHILD_SUBREAPER = 1, 36
_libc: Any = None


def become_server() -> None:  # pragma: no cover - runs in the server process
    """Subreaper of every process a worker starts (Linux), and quiet about reaping them.

    When its caller goes away (the server then exits: see `multiprocessing.forkserver`),
    it first ends everything below it (`end_everything_below`). It ignores SIGTERM,
    so that a signal to the caller's whole process group leaves it alive until the
    caller has gone and it has done that.
    """
    global _libc
    import atexit
    import warnings

    warnings.filterwarnings("ignore", message="forkserver: waitpid returned unexpected pid")
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    atexit.register(end_everything_below, os.getpid())
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            _libc = ctypes.CDLL(None, use_errno=True)
            _libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
        except (OSError, AttributeError):
            _libc = None


def end_everything_below(server: int, limit: float = 2.0) -> None:  # pragma: no cover - runs in the server process
    """Kill every process below this one (its children, with their process groups) until none is left.

    Run at the server's exit. As the subreaper, the server is the parent of every
    worker and of whatever a solve detached; a child's group goes with it, except
    the server's own group, which is its caller's. Only in the server itself: a
    solve's ``fork`` copies this exit hook into its children.
    """
    if os.getpid() != server:
        return
    import time

    own_group, deadline = os.getpgid(0), time.monotonic() + limit
    while time.monotonic() < deadline:
        with contextlib.suppress(ChildProcessError):
            while os.waitpid(-1, os.WNOHANG)[0] > 0:  # the zombies first: they are listed as children too
                pass
        children = _procs.children(server)
        if not children:
            return
        for child in children:
            with contextlib.suppress(OSError):
                group = os.getpgid(child)
                if group != own_group:
                    os.killpg(group, signal.SIGKILL)
            with contextlib.suppress(OSError):
                os.kill(child, signal.SIGKILL)
        time.sleep(0.002)


class Start:
    """What the server hands a new child, pickled by reference: plain data only."""

    def __init__(self, modules: tuple[str, ...] = (), path: tuple[str, ...] = (), cwd: str | None = None, rehearsal: Plan | None = None) -> None:
        self.modules, self.path, self.cwd, self.rehearsal = modules, path, cwd, rehearsal

    def _bootstrap(self, parent_sentinel: int) -> int:  # pragma: no cover - called by multiprocessing.spawn in the child
        from multiprocessing import forkserver

        plan_r, log_w, wake_w = forkserver.get_inherited_fds()
        code = 0
        try:
            _keep_only(plan_r, log_w, wake_w)
            os.setsid()
            if _libc is not None:
                _libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
            self._serve(plan_r, log_w, wake_w)
        except BaseException:  # noqa: BLE001 - nothing escapes; the supervisor sees the exit code
            code = 70
        finally:
            os._exit(code)

    def _serve(self, plan_r: int, log_w: int, wake_w: int) -> None:  # pragma: no cover - child process
        capture = OutputCapture(DEFAULT_OUTPUT_CHARS)
        harden(capture, DEFAULT_MEMORY_MB)
        self._prepare()
        header = _read(plan_r, REQUEST.size)
        if header:
            skip, reason_size, payload_size = REQUEST.unpack(header)
            reason = _read(plan_r, reason_size).decode() or None
            run(skip, reason, _read(plan_r, payload_size), _Sink(log_w, wake_w), capture)
            os.read(plan_r, 1)  # wait to be killed

    def _prepare(self) -> None:  # pragma: no cover - child process
        try:
            sys.path[:] = self.path or sys.path
            if self.cwd:
                os.chdir(self.cwd)
            for name in self.modules:
                importlib.import_module(name)
            if self.rehearsal is not None:  # the last run's checks, listed without solve: code and memory warm up
                with _at_most(REHEARSAL_LIMIT):
                    session = Session(lambda message: None, self.rehearsal, OutputCapture(DEFAULT_OUTPUT_CHARS))
                    session.not_run = "rehearsal"
                    session.run(None)
        except BaseException:  # noqa: BLE001 - the run itself will say what is wrong
            pass


REHEARSAL_LIMIT = 1.0
"""Seconds a standby spends at most rehearsing the last run: the next run, perhaps of another record, never waits longer for it."""


class _RehearsalOver(BaseException):
    """Raised in a standby whose rehearsal ran past `REHEARSAL_LIMIT`."""


@contextlib.contextmanager
def _at_most(seconds: float):  # pragma: no cover - child process
    """Interrupt the body after `seconds` (SIGALRM: the worker's main thread), and leave no timer behind."""
    def over(signum, frame):
        raise _RehearsalOver

    previous = signal.signal(signal.SIGALRM, over)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


SANDBOX_STARTED = b"failuremap-edu: the sandboxed worker started\n"
"""What a sandboxed worker writes on stderr first: what is there before it is bwrap's or the interpreter's, never solve's."""


def sandboxed(plan_r: int, log_w: int, wake_w: int) -> None:  # pragma: no cover - runs inside bubblewrap
    """A worker started in a sandbox (`_sandbox.SandboxPool`): a fresh interpreter, not a fork of the server."""
    code = 0
    try:
        with contextlib.suppress(OSError):
            os.write(2, SANDBOX_STARTED)  # from here on stderr is ours, then /dev/null (`harden`)
        _keep_only(plan_r, log_w, wake_w)
        with contextlib.suppress(OSError):
            os.setsid()
        Start()._serve(plan_r, log_w, wake_w)
    except BaseException:  # noqa: BLE001 - nothing escapes; the supervisor sees the exit code
        code = 70
    finally:
        os._exit(code)


class _Sink:
    """Posts messages without waking the supervisor, except for the last one of a run.

    Every message goes down a pipe as it is known, so a killed worker has told all
    it knew; but a pipe write wakes a sleeping reader, and on a virtual machine a
    dozen wake-ups per run double its time (the two processes take turns on one
    core). So messages go to a *log* pipe that the supervisor reads without waiting
    on it (whenever it wakes: at the end, at a deadline, every `_warm.POLL`), and
    only ``done`` or ``problem`` go to the *wake* pipe it waits on. A frame that
    does not fit the log (a big result, or a full pipe) switches this worker to the
    wake pipe for good, which keeps the order: the log is always read first.
    """

    def __init__(self, log_w: int, wake_w: int) -> None:
        self.log_w, self.wake_w = log_w, wake_w
        os.set_blocking(log_w, False)

    def __call__(self, message: tuple) -> None:
        data = memoryview(frame(message))
        if self.log_w >= 0 and len(data) <= select.PIPE_BUF and message[0] not in ("done", "problem"):
            try:
                os.write(self.log_w, data)  # up to PIPE_BUF bytes are written whole, or not at all
                return
            except BlockingIOError:
                pass
        self.log_w = -1
        while data:
            data = data[os.write(self.wake_w, data) :]


def run(skip: int, not_run: str | None, payload: bytes, sink: _Sink, capture: OutputCapture) -> None:  # pragma: no cover - child process
    """Rebuild the plan (solve arrives by value), adopt the caller's settings, run the session.

    A tuple of plans (`_runner.replay_many`: records' own scripts) runs one session after another.
    A `_judge.Judged` (a sandboxed run) runs its session here with solve in a process of its own.
    """
    from ._judge import Judged

    try:
        loaded = _byvalue.loads(payload)
        job = loaded if type(loaded) is Judged else None
        plans: tuple[Plan, ...] = (job.plan,) if job is not None else loaded if type(loaded) is tuple else (loaded,)
        plan = plans[0]
        sys.path[:] = plan.path
        sys.setrecursionlimit(plan.recursion_limit)
        if plan.cwd:
            os.chdir(plan.cwd)
    except BaseException as exc:  # noqa: BLE001 - it cannot be rebuilt here: a problem of this run
        message = f"solve could not be rebuilt in the worker process ({type(exc).__name__}: {exc})"
        sink(("problem", {"type": "CannotSend", "message": message, "traceback": ""}))
        return
    _limit_memory(plan.memory_mb, hard=True)  # soft and hard now: solve cannot raise it again
    if plan.output_chars != DEFAULT_OUTPUT_CHARS:
        capture = OutputCapture(plan.output_chars)
        capture.install()
    for plan in plans:
        solve = plan.solve
        if job is not None:
            from . import _judge

            solve = _judge.start(job, sink, capture)  # forks solve's process first: nothing of the judge's is in it yet
            if solve is None:
                return
            sink = solve.reporting(sink)
        session = Session(sink, plan, capture, skip=skip)
        session.not_run, skip = not_run, 0
        if job is not None:
            solve.namespace = session.globals  # what solve returns is rebuilt as the program's classes
        session.run(solve)


def _read(fd: int, size: int) -> bytes:  # pragma: no cover - child process
    """Exactly `size` bytes, or b"" if the supervisor went away first."""
    data = bytearray()
    while len(data) < size:
        chunk = os.read(fd, min(size - len(data), 1 << 20))
        if not chunk:
            return b""
        data += chunk
    return bytes(data)


def _keep_only(*fds: int) -> None:  # pragma: no cover - child process
    """Close every inherited descriptor above stderr except `fds`."""
    start = 3
    for fd in sorted(fds):
        os.closerange(start, fd)
        start = fd + 1
    os.closerange(start, 1 << 16)


def harden(capture: OutputCapture, memory_mb: int) -> None:  # pragma: no cover - child process
    """Cut the worker off from the terminal, input and interrupts; cap its resources."""
    gc.freeze()  # what it inherited from the server is never collected here: no copy-on-write for that
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # interrupts are for the supervisor, which then kills us
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    devnull = os.open(os.devnull, os.O_RDWR)
    for target in (0, 1, 2):
        os.dup2(devnull, target)
    os.close(devnull)
    sys.stdin = _NoInput()
    capture.install()
    builtins.input = _NoInput.input
    _limit_resources(memory_mb)


class _NoInput:
    def read(self, *args) -> str:
        raise EOFError("input is not available while checks run")

    readline = read

    def isatty(self) -> bool:
        return False

    @staticmethod
    def input(prompt: str = "") -> str:
        raise EOFError("input() is not available while checks run: solve must not ask for input")


MAX_PROCESSES = 100
"""Processes a run may have at once below the worker server: the supervisor counts them while a
check runs, and stops the check past this (`_warm.Pool.crowded`); that holds for every user, root
included. For a user other than root the kernel also stops a fork at once past `NPROC_MARGIN`."""
NPROC_MARGIN = 1000
"""``RLIMIT_NPROC`` counts every thread of the user's, also in other containers of the same uid
(which we cannot see): so it is set generously above what we see, as a bound, not as a budget."""


def _limit_resources(memory_mb: int) -> None:  # pragma: no cover - child process
    """Soft limits while the worker waits (its own imports may need to move them); `run` makes them hard."""
    if resource is None:
        return
    limits = [(resource.RLIMIT_CORE, 0, True), (resource.RLIMIT_CPU, 600, True)]  # CPU: a backstop if all else fails
    processes = _user_processes()
    if processes is not None:  # each process of a solve inherits this: its own limit, hard, counts the user's
        limits.append((resource.RLIMIT_NPROC, processes + NPROC_MARGIN, True))
    for limit, value, hard in limits:
        _set_limit(limit, value, hard)
    _limit_memory(memory_mb, hard=False)


def _limit_memory(memory_mb: int, *, hard: bool) -> None:  # pragma: no cover - child process
    """Address space: the worker's own size plus the budget; hard, it cannot be raised again (nor by children)."""
    mapped = _mapped_bytes() if resource is not None and memory_mb > 0 else None
    if mapped is not None:
        _set_limit(resource.RLIMIT_AS, mapped + memory_mb * 1024 * 1024, hard)


def _set_limit(limit: int, value: int, hard: bool) -> None:  # pragma: no cover - child process
    try:
        _, old_hard = resource.getrlimit(limit)
        value = value if old_hard == resource.RLIM_INFINITY else min(value, old_hard)
        resource.setrlimit(limit, (value, value if hard else old_hard))
    except (ValueError, OSError):
        pass


def _user_processes() -> int | None:  # pragma: no cover - child process
    """How many threads our user has that we can see (what ``RLIMIT_NPROC`` counts); None for root, whom it never binds."""
    uid = os.getuid()
    return None if uid == 0 else _procs.user_threads(uid)


def _mapped_bytes() -> int | None:
    try:
        with open("/proc/self/statm") as fh:
            return int(fh.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None
