"""The judge split (``--sandbox``): solve runs in a process of its own, which never holds anything that decides a verdict.

In a sandboxed worker (`_warm.SandboxPool`) the process that runs the fixture
program (its expressions, the expected values, ``check()``, the messages to the
supervisor) is the *judge*. Before anything of the learner's is unpickled or
loaded, it forks a *solve process*, which keeps only its two call pipes (every
other descriptor closed, the log and wake pipes to the supervisor included),
drops every capability and may gain none, and only then rebuilds solve (a
solution file is imported there). The judge makes itself non-dumpable, so that
the solve process, with the same uid and no ``CAP_SYS_PTRACE``, can neither
ptrace it nor read its memory or descriptors through ``/proc``.

The program's ``solve`` is then a proxy: each call sends ``(args, kwargs)`` as
plain data and gets back plain data (through `_channel.Reader`'s allow-list: never
an unpickling of anything else): what solve returned or raised, what it printed, and the
arguments as they are after the call, copied back into the caller's objects, so
an in-place contract is judged as the harness judges it. A builtin exception is
raised again as itself (a fixture may catch ``ValueError``); any other as
`Reported`, which keeps the solve process's description.

A check with a call whose values cannot cross as plain data (an instance of a
class solve defined, an always-equal object, a generator, a stream argument) is
judged in solve's process instead, as without the split: a fork of the solve
process runs the program with the checks before it passed over (as after a worker
restart) and sends that check's result, which the judge reports marked
``judged_in_solve_process``; the supervisor never counts a pass from there
(`JUDGED_THERE`). Should that give no result, the check is an error of type
``NotRun`` that says why. A solve process that dies or sends garbage fails that
call (``ProcessDied``); the next call gets a fresh one. One that loops or stops is
the check's time limit, as before: the supervisor kills the whole sandbox.
"""

from __future__ import annotations

import contextlib
import os
import signal
from dataclasses import dataclass
from typing import Any, Callable

from . import _byvalue
from ._crossing import NOT_PLAIN, class_names, copy_back, crossable, first_stand_in, raised, rebuilt, receivers_classes
from ._channel import Reader, frame
from ._session import OutputCapture, Plan
from .._values import Reported, error_payload
from .._portable import portable

SPLIT = True
"""Whether a sandboxed run judges outside solve's process (`benchmarks/bench_judge.py` turns it off to measure the cost)."""
_PR_SET_PDEATHSIG, _PR_SET_DUMPABLE, _PR_CAPBSET_DROP, _PR_SET_NO_NEW_PRIVS, _PR_CAP_AMBIENT = 1, 4, 24, 38, 47
JUDGED_THERE = ("solve's own process judged it pass (some of its values are not plain data, and only that process can compare them),"
                " and under --sandbox that process is not trusted with a verdict")
"""Why a pass judged in solve's process (`Observation.judged_in_solve_process`) is unconfirmed."""


class NotRun(BaseException):
    """A call whose values cannot cross as plain data (a BaseException: a fixture's ``except Exception`` must not take it for solve's)."""


NotRun.__module__ = "builtins"  # its type reads ``NotRun``, as the runner's other checks that did not run


@dataclass(frozen=True)
class Judged:
    """What a sandboxed worker receives for a split run: the plan without solve, and solve still pickled."""

    plan: Plan
    """The run's plan with ``solve=None``: the record's program only."""
    solve: bytes
    """`_byvalue.dumps` of the solve (a function or a `Solution`): unpickled in the solve process alone."""
    is_file: bool
    """Whether it is a `Solution` (then its import is reported as ``load``/``loaded``, under the check limit)."""


def judged(plan: Plan) -> Judged:
    """The payload of a split run. Raises `_byvalue.Unshippable` as `_byvalue.dumps` does."""
    from .._solution import Solution

    return Judged(_without_solve(plan), _byvalue.dumps(plan.solve)[0], isinstance(plan.solve, Solution))


def _without_solve(plan: Plan) -> Plan:
    from dataclasses import replace

    return replace(plan, solve=None)


def start(job: Judged, sink: Callable[[tuple], None], capture: OutputCapture) -> "_Proxy | None":
    """In the judge: fork the solve process and wait until solve is ready; None if it could not be (``problem`` sent)."""
    _prctl(_PR_SET_DUMPABLE, 0)
    proxy = _Proxy(job, capture)
    if job.is_file:
        sink(("load",))
    problem = proxy.spawn()
    import sys

    sys.path[:] = [p for p in sys.path if _fixed_folder(p)]  # the program imports nothing solve's process could write
    if problem is not None:
        sink(("problem", problem))
        return None
    if job.is_file:
        sink(("loaded",))
    return proxy


class _Proxy:
    """The program's solve in the judge: every call goes to the solve process, as plain data both ways."""

    def __init__(self, job: Judged, capture: OutputCapture) -> None:
        self.job, self.capture = job, capture
        self.pid, self.request_w, self.reply_r, self.reader, self.pending = -1, -1, -1, Reader(), []
        self.refused = False
        """A call of the check under way could not cross as plain data: the check is judged in solve's process instead."""
        self.namespace: dict = {}
        """The program's globals (set once its session exists): a dataclass instance solve returns is rebuilt as their class."""
        self._classes: dict[frozenset, bytes] = {}

    def spawn(self) -> dict | None:
        """A fresh solve process with solve loaded; its load error as plain data, or None."""
        request_r, self.request_w = os.pipe()
        self.reply_r, reply_w = os.pipe()
        self.reader, self.pending = Reader(), []
        self.pid = os.fork()
        if self.pid == 0:  # pragma: no cover - the solve process
            _serve_solve(self.job, request_r, reply_w)
        os.close(request_r)
        os.close(reply_w)
        reply = self._reply()
        if reply[0] == "ready":
            return None
        self._end()
        if reply[0] in ("failed", "raised"):
            return reply[1]  # its load error, or how it died
        return {"type": "ProcessDied", "message": "the process running solve did not say it was ready", "traceback": ""}

    def __call__(self, *args, **kwargs):
        request = portable((args, kwargs))
        if not crossable(request):
            self._refuse(f"solve's arguments are not plain data ({first_stand_in(request)}), so they cannot be sent to the process that runs solve")
        self._send(("call", *request, self._classes_of(request)))
        kind, outcome, after_args, after_kwargs, printed, dropped = self._reply()
        if printed or dropped:
            self.capture.stream.write(printed)
            self.capture._sink.dropped += dropped
        copy_back(list(args), after_args)
        copy_back(kwargs, after_kwargs)
        if kind == "refused":
            self._refuse(outcome)
        if kind == "raised":
            raise raised(outcome)
        value = rebuilt(outcome, self.namespace)
        if value is NOT_PLAIN:
            self._refuse(f"solve returned {first_stand_in(outcome)}, which is not plain data, so it cannot be compared apart from solve")
        return value

    def _classes_of(self, request: tuple) -> bytes:
        """The program's dataclasses whose instances `request` holds, by value (`_byvalue`: reading them runs no code), or b""."""
        names = class_names(request)
        if names and names not in self._classes:
            found = {n: self.namespace[n] for n in names if isinstance(self.namespace.get(n), type)}
            try:
                self._classes[names] = _byvalue.dumps(found)[0]
            except _byvalue.Unshippable:
                self._classes[names] = b""
        return self._classes.get(names, b"")

    def _refuse(self, why: str) -> None:
        """This check is judged in solve's process instead (`reporting`); should that fail, it was not run, and says why."""
        self.refused = True
        raise NotRun(f"this check was not run: {why} (--sandbox judges apart from solve). Such a check is judged only without --sandbox.")

    def _send(self, request: tuple) -> None:
        if self.pid < 0:
            problem = self.spawn()
            if problem is not None:
                raise Reported(problem)
        try:
            _write(self.request_w, frame(request))
        except OSError:
            pass  # it died: the reply says how

    def reporting(self, sink: Callable[[tuple], None]) -> Callable[[tuple], None]:
        """`sink` for the judge's session: a check with a call that could not cross is replaced by its run in solve's process, marked."""
        current = [-1]

        def send(message: tuple) -> None:
            if message[0] == "begin":
                current[0], self.refused = message[1], False
            elif message[0] == "result" and self.refused:
                self.refused = False
                there = self._judged_there(current[0])
                if there is not None:
                    message = ("result", {**there, "judged_in_solve_process": True})
            sink(message)

        return send

    def _judged_there(self, ordinal: int) -> dict | None:
        """Check `ordinal` run as without --sandbox, by a fork of the solve process: its result, or None if it gave none."""
        try:
            self._send(("judge", ordinal))
        except Reported:
            return None
        found = None
        while True:
            reply = self._reply()
            if reply[0] == "judge-end":
                return found
            if reply[0] != "judged":
                return None  # it died
            data = reply[1]
            found = data if type(data) is dict and data.get("index") == ordinal else None

    def _reply(self) -> tuple:
        """The solve process's next reply, checked; a death or garbage as ``("raised", ProcessDied …)``."""
        while True:
            if self.pending:
                return _checked(self.pending.pop(0)[1])
            try:
                data = os.read(self.reply_r, 1 << 20)
            except OSError:
                data = b""
            self.pending = self.reader.feed(data) if data else []
            if not self.pending and (not data or self.reader.broken is not None):
                what = self._end()
                error = {"type": "ProcessDied", "message": f"the process running solve ended abruptly: {what}", "traceback": ""}
                return ("raised", error, None, None, "", 0)

    def _end(self) -> str:
        """Stop the solve process (a fresh one serves the next call) and say how it ended."""
        garbage, status = self.reader.broken, 0
        if self.pid <= 0:  # ended already (never kill(-1): that is every process we may signal)
            return "it had ended"
        with contextlib.suppress(OSError):
            os.kill(self.pid, signal.SIGKILL)
        with contextlib.suppress(OSError):
            _, status = os.waitpid(self.pid, 0)
        for fd in (self.request_w, self.reply_r):
            with contextlib.suppress(OSError):
                os.close(fd)
        self.pid = -1
        if garbage is not None:
            return "it sent bytes that are not a reply of ours, so it was stopped"
        if os.WIFSIGNALED(status) and os.WTERMSIG(status) != signal.SIGKILL:
            number = os.WTERMSIG(status)
            return f"it was ended by {signal.Signals(number).name if number in signal.valid_signals() else f'signal {number}'}"
        return f"it exited with code {os.WEXITSTATUS(status)}" if os.WIFEXITED(status) else "it was killed"


def _checked(reply: Any) -> tuple:
    """A reply of the solve process, in its one shape, or a ProcessDied error: nothing else is believed."""
    if type(reply) is tuple and len(reply) == 2 and reply[0] in ("ready", "failed") and (reply[0] == "ready" or _is_error(reply[1])):
        return reply
    if type(reply) is tuple and (reply == ("judge-end",) or (len(reply) == 2 and reply[0] == "judged")):
        return reply  # a check's result as a Session sends it: the supervisor checks every field
    if (type(reply) is tuple and len(reply) == 6 and reply[0] in ("returned", "raised", "refused") and type(reply[4]) is str
            and type(reply[5]) is int and (reply[0] != "raised" or _is_error(reply[1])) and (reply[0] != "refused" or type(reply[1]) is str)
            and type(reply[2]) in (list, type(None)) and type(reply[3]) in (dict, type(None))):
        return reply
    return ("raised", {"type": "ProcessDied", "message": "the process running solve sent a reply of the wrong shape", "traceback": ""}, None, None, "", 0)


def _is_error(data: Any) -> bool:
    return type(data) is dict and all(type(data.get(k)) is str for k in ("type", "message", "traceback"))


def _fixed_folder(path: str) -> bool:
    """A folder that exists and cannot be written here (the sandbox's files are read-only but for /tmp)."""
    folder = path or os.getcwd()
    return os.path.isdir(folder) and not os.access(folder, os.W_OK)


def _write(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


# ----------------------------------------------------------------------- the solve process


def _serve_solve(job: Judged, request_r: int, reply_w: int) -> None:  # pragma: no cover - the solve process
    """Keep the call pipes only, drop privileges, rebuild solve, then answer calls until the judge goes."""
    code = 0
    try:
        from ._worker import _keep_only

        _keep_only(request_r, reply_w)
        _prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)  # it never outlives the judge
        _drop_privileges()
        capture = OutputCapture(job.plan.output_chars)
        capture.install()
        try:
            solve = _load(job)
        except BaseException as exc:  # noqa: BLE001 - a load error, as plain data
            problem = exc.args[0] if type(exc).__name__ == "_LoadFailed" else error_payload(exc)
            _write(reply_w, frame(("failed", problem)))
            return
        _write(reply_w, frame(("ready", None)))
        reader = Reader()
        while True:
            data = os.read(request_r, 1 << 20)
            if not data:
                return
            for _, request in reader.feed(data):
                if request[0] == "judge":
                    _judge_here(job, solve, request[1], reply_w)
                else:
                    _write(reply_w, frame(_answer(solve, request[1], request[2], request[3], capture)))
            reader.check()
    except BaseException:  # noqa: BLE001 - the judge sees the pipe close
        code = 70
    finally:
        os._exit(code)


def _load(job: Judged) -> Callable:  # pragma: no cover - the solve process
    from .._solution import Solution
    from ._session import Session

    solve = _byvalue.loads(job.solve)
    if isinstance(solve, Solution):
        solve = Session(lambda message: None, job.plan, OutputCapture(job.plan.output_chars))._load(solve)
    return solve


def _judge_here(job: Judged, solve: Callable, ordinal: int, reply_w: int) -> None:  # pragma: no cover - the solve process
    """Run check `ordinal` as a worker without the split runs it (after a restart: the checks before it passed over), in a fork."""
    pid = os.fork()
    if pid == 0:
        from ._session import Session

        def sink(message: tuple) -> None:
            if message[0] in ("result", "done", "problem"):
                _write(reply_w, frame(("judged", message[1] if message[0] == "result" else None)))
                os._exit(0)

        code = 0
        try:
            capture = OutputCapture(job.plan.output_chars)
            capture.install()
            Session(sink, job.plan, capture, skip=ordinal).run(solve)
        except BaseException:  # noqa: BLE001
            code = 70
        finally:
            os._exit(code)
    with contextlib.suppress(OSError):
        os.waitpid(pid, 0)
    _write(reply_w, frame(("judge-end",)))


def _answer(solve: Callable, args: tuple, kwargs: dict, classes: bytes, capture: OutputCapture) -> tuple:  # pragma: no cover - the solve process
    theirs = getattr(solve, "__globals__", None)
    try:
        namespace = receivers_classes(theirs if type(theirs) is dict else {}, _byvalue.loads(classes) if classes else {})
    except Exception:  # noqa: BLE001 - the record's class could not be rebuilt here
        namespace = {}
    args, kwargs = rebuilt(args, namespace), rebuilt(kwargs, namespace)
    if args is NOT_PLAIN or kwargs is NOT_PLAIN:
        return ("refused", "solve's arguments hold an instance of a class its solution does not define", None, None, "", 0)
    try:
        outcome, kind = portable(solve_called_by_the_fixture(solve, args, kwargs)), "returned"
    except BaseException as exc:  # noqa: BLE001 - solve raised: described here, raised again in the judge
        outcome, kind = error_payload(exc), "raised"
    printed, dropped = capture.take()
    return (kind, outcome, portable(list(args)), portable(dict(kwargs)), printed, dropped)


def solve_called_by_the_fixture(solve: Callable, args: tuple, kwargs: dict) -> Any:  # the name is SOLVE_FRAME: tracebacks start inside
    return solve(*args, **kwargs)


def _drop_privileges() -> None:  # pragma: no cover - the solve process
    """No capabilities, none to gain (Linux): with the judge non-dumpable, solve cannot ptrace it or read it through /proc."""
    libc = _libc()
    if libc is None:
        return
    libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
    libc.prctl(_PR_CAP_AMBIENT, 4, 0, 0, 0)  # PR_CAP_AMBIENT_CLEAR_ALL
    for cap in range(64):
        libc.prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0)
    import ctypes

    header = (ctypes.c_uint32 * 2)(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3, this process
    libc.capset(header, (ctypes.c_uint32 * 6)())


def _prctl(option: int, value: int) -> None:
    libc = _libc()
    if libc is not None:
        libc.prctl(option, value, 0, 0, 0)


def _libc():
    import sys

    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes

        return ctypes.CDLL(None, use_errno=True)
    except (OSError, AttributeError):
        return None
