"""Runner: run a record's checks against a `solve`, so that nothing `solve` does can hurt the caller.

Isolation (``fork``, the default where the OS has it): the checks run in a
worker process. Usually that is a warm standby kept ready by a small server
(`_warm`; the solve travels to it by value), otherwise a child forked from the
caller, which is how any function defined in a notebook cell reaches it. The
worker reports each check as plain data (`_channel`). The supervisor here gives
every check its own time limit; a worker that overruns it is killed (a bare
``except:`` cannot catch SIGKILL), and one that dies (``os._exit``, a segfault,
the memory limit) is noted. Either way a fresh worker continues with the next
check, so every check is reported. A run costs one worker when nothing goes wrong.

Fallback (``inprocess``, where there is no ``fork``: Windows, Pyodide): the same
checks run in the calling process under a trace-function time limit. It still
survives exceptions, ``sys.exit()`` and plain pure-Python infinite loops, but not
``os._exit()``, a loop wrapped in a bare ``except:``, waits inside C code, or
runaway memory. The result says which mode ran.
"""

from __future__ import annotations

import ast
import atexit
import os
import signal
import sys
import time
import warnings
from typing import Callable

from . import _warm
from ._channel import Channel, WorkerDied
from ._fixtures import VARIANTS, FixtureScript, read_fixtures
from ._records import Record
from ._results import ERROR, TIMEOUT, CallResult, Comparison, ErrorInfo, Observation, RunResult
from ._session import CheckTimeout, OutputCapture, Session
from ._signature import Params, mismatch
from ._solution import Solution, SolutionError, load_solution
from ._values import render_call, safe_repr
from ._worker import DEFAULT_MEMORY_MB, DEFAULT_OUTPUT_CHARS, DEFAULT_TIMEOUT, Plan, address_space_limit, load_solution_in_worker, run_worker

__all__ = [
    "DEFAULT_TIMEOUT",
    "Solution",
    "SolutionError",
    "compare",
    "parse_call_arguments",
    "try_call",
    "isolation_available",
    "load_solution",
    "replay",
    "run_checks",
]

UNGUARDED = "unguarded"
"""Internal: in-process with no time limit at all, for code that already runs in a
process someone else supervises and can kill (the catalog's chunk workers)."""
SETUP_TIMEOUT = 10.0
"""Limit for work outside any check (the fixture preamble, loading a solution file)."""


def isolation_available() -> str:
    """The isolation mode this platform supports: ``fork`` or ``inprocess``."""
    forced = os.environ.get("FAILUREMAP_ISOLATION", "").strip().lower()
    if forced in ("fork", "inprocess"):
        return forced
    return "fork" if hasattr(os, "fork") and sys.platform not in ("emscripten", "wasi") else "inprocess"


def run_checks(
    record: Record,
    solve: Callable | Solution,
    variant: int = 1,
    timeout: float = DEFAULT_TIMEOUT,
    *,
    isolation: str | None = None,
    memory_mb: int = DEFAULT_MEMORY_MB,
    output_chars: int = DEFAULT_OUTPUT_CHARS,
    progress: Callable[[Observation], None] | None = None,
) -> RunResult:
    """Run every check of `record` against `solve`, one observation per check.

    `solve` is a function (for example one defined in a notebook cell) or a
    `Solution` from `load_solution`. Raises SolutionError, before running
    anything, when its parameters do not fit the record's contract.
    `progress`, if given, is called with each observation as soon as it is known.
    """
    fixtures = read_fixtures(record, "attempt")
    _check_fits(record, fixtures, solve)
    return _run(fixtures, record, "yours", solve, variant, timeout, isolation, memory_mb, output_chars, progress)


def replay(
    record: Record,
    implementation: str,
    variant: int = 1,
    timeout: float = DEFAULT_TIMEOUT,
    *,
    isolation: str | None = None,
) -> RunResult:
    """Run one of the record's own scripts (``attempt`` or ``broken``) through the runner."""
    fixtures = read_fixtures(record, implementation)
    return _run(fixtures, record, implementation, None, variant, timeout, isolation, DEFAULT_MEMORY_MB, DEFAULT_OUTPUT_CHARS)


def compare(
    record: Record,
    solve: Callable | Solution | None = None,
    variant: int = 1,
    timeout: float = DEFAULT_TIMEOUT,
    *,
    isolation: str | None = None,
) -> Comparison:
    """The record's broken and attempt runs, and yours when `solve` is given, side by side."""
    runs = [replay(record, "broken", variant, timeout, isolation=isolation), replay(record, "attempt", variant, timeout, isolation=isolation)]
    names = ["broken", "attempt"]
    if solve is not None:
        runs.append(run_checks(record, solve, variant, timeout, isolation=isolation))
        names.append("yours")
    return Comparison(record.id, tuple(runs), tuple(names))


_CALL_CODE = compile(
    "__fm_check__(0, lambda: 'playground', lambda: solve(*__fm_args__, **__fm_kwargs__), lambda: None)",
    "<playground>",
    "exec",
)


def parse_call_arguments(text: str, example: str | None = None) -> tuple[tuple, dict]:
    """Read ``'hello<st', ['<stop>']`` (Python literals, keywords allowed) without running anything.

    Raises ValueError with a message meant for a learner; `example` (arguments of
    this exercise's own checks) is quoted in it.
    """
    source = text.strip()
    if not source:
        return (), {}
    try:
        call = ast.parse(f"f({source}\n)", mode="eval").body
    except SyntaxError as exc:
        column = max((exc.offset or 3) - 2, 1)
        unclosed = ("never closed", "does not match", "unterminated", "EOF")
        what = "a bracket or quote is not closed" if any(w in exc.msg for w in unclosed) else f"near column {column}: {exc.msg}"
        raise ValueError(
            f"could not read the inputs ({what}). Type Python literals separated by commas"
            + (f", for example: {example}" if example else ".")
        ) from None
    if not isinstance(call, ast.Call) or any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        raise ValueError("type the arguments only, as Python literals separated by commas")
    try:
        args = tuple(ast.literal_eval(a) for a in call.args)
        kwargs = {k.arg: ast.literal_eval(k.value) for k in call.keywords}
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        raise ValueError(
            "only literal values can be used here (strings, numbers, lists, tuples, dicts, sets, True/False/None), not names or calls"
        ) from None
    return args, kwargs


def try_call(
    record: Record,
    solve: Callable | Solution | None,
    args: tuple,
    kwargs: dict | None = None,
    *,
    implementation: str | None = None,
    variant: int = 1,
    timeout: float = DEFAULT_TIMEOUT,
    isolation: str | None = None,
) -> CallResult:
    """Call one solve on arbitrary inputs with the runner's safety: for playgrounds.

    With `implementation` (``attempt`` or ``broken``) the record's own solve is called.
    `args` must be a tuple: ``(x)`` is just ``x``, and calling ``solve(*x)`` with it
    would silently pass x's items as separate arguments, so that is refused with a
    message, as a result rather than an exception in the notebook.
    """
    if not isinstance(args, tuple):
        one = "(x,)" if not isinstance(args, (list, str, dict)) else f"({safe_repr(args, 40)},)"
        message = f"args must be a tuple of arguments, got {type(args).__name__}: for one argument write {one} (note the trailing comma)"
        return CallResult(_describe_call((args,), kwargs), ERROR, None, ErrorInfo("TypeError", message))
    fixtures = read_fixtures(record, implementation or "attempt")
    if implementation is None:
        _check_fits(record, fixtures, solve)
    code = (fixtures.setup(replay=implementation is not None), _CALL_CODE)
    plan = Plan(
        code=code,
        variant=variant,
        solve=None if implementation else solve,
        timeout=float(timeout),
        memory_mb=DEFAULT_MEMORY_MB,
        output_chars=DEFAULT_OUTPUT_CHARS,
        param_names=tuple(p.name for p in record.params.positional),
        extra_globals={"__fm_args__": tuple(args), "__fm_kwargs__": dict(kwargs or {})},
    )
    collector = _Collector(plan)
    _execute(plan, collector, _mode(isolation))
    if collector.observations:
        o = collector.observations[0]
        status = "returned" if o.status in ("pass", "fail") else o.status
        return CallResult(o.call or _describe_call(args, kwargs), status, o.actual if status == "returned" else None, o.error, o.stdout, o.elapsed_ms)
    problem = collector.problem or ErrorInfo("NotRun", "the call did not run")
    return CallResult(_describe_call(args, kwargs), ERROR, None, problem)


def _describe_call(args: tuple, kwargs: dict | None) -> str:
    return render_call(tuple(args), dict(kwargs or {}))


def _check_fits(record: Record, fixtures: FixtureScript, solve: Callable | Solution) -> None:
    if isinstance(solve, Solution):
        params, name = solve.params, f"{solve.path}: solve"
    elif callable(solve):
        name = "solve"
        try:
            params = Params.from_callable(solve)
        except ValueError:
            params = None  # a builtin or C function: let the checks speak
    else:
        raise SolutionError(f"solve must be a function, got {type(solve).__name__}")
    if params is not None:
        problem = mismatch(record.params, params, fixtures.keywords_used)
        if problem:
            raise SolutionError(f"{name}({params}) does not fit the contract solve({record.params}): {problem}")


def _run(
    fixtures: FixtureScript,
    record: Record,
    solver: str,
    solve: Callable | Solution | None,
    variant: int,
    timeout: float,
    isolation: str | None,
    memory_mb: int,
    output_chars: int,
    progress: Callable[[Observation], None] | None = None,
) -> RunResult:
    if type(variant) is not int or variant not in VARIANTS:
        raise ValueError(f"variant must be one of {', '.join(map(str, VARIANTS))}, got {variant!r}")
    if not isinstance(timeout, (int, float)) or not timeout > 0:
        raise ValueError(f"timeout must be a positive number of seconds, got {timeout!r}")
    mode = _mode(isolation)
    plan = Plan(
        code=fixtures.program(replay=solve is None),
        variant=variant,
        solve=solve,
        timeout=float(timeout),
        memory_mb=memory_mb,
        output_chars=output_chars,
        param_names=tuple(p.name for p in record.params.positional),
    )
    started = time.perf_counter()
    collector = _Collector(plan, progress)
    _execute(plan, collector, mode)
    observations = collector.finish(fixtures)
    return RunResult(
        record_id=record.id,
        solver=solver,
        variant=variant,
        observations=observations,
        timeout=plan.timeout,
        isolation=mode,
        problem=collector.problem,
        elapsed_ms=(time.perf_counter() - started) * 1000,
    )


def _mode(isolation: str | None) -> str:
    """The isolation mode to use: the one asked for (checked), or the platform's best."""
    mode = isolation or isolation_available()
    if mode not in ("fork", "inprocess", UNGUARDED):
        raise ValueError(f"isolation must be 'fork' or 'inprocess', got {mode!r}")
    return mode


def _execute(plan: Plan, collector: "_Collector", mode: str) -> None:
    if mode == "fork":
        _supervise_forked(plan, collector)
    else:
        _run_in_process(plan, collector, guarded=mode != UNGUARDED)


class _Collector:
    """Turns the worker's messages into Observations, in the parent."""

    def __init__(self, plan: Plan, progress: Callable[[Observation], None] | None = None) -> None:
        self.plan = plan
        self.progress = progress
        self.observations: dict[int, Observation] = {}
        self.current: tuple[int, int, str] | None = None
        self.problem: ErrorInfo | None = None
        self.done = False
        self.unavailable = False

    @property
    def next_ordinal(self) -> int:
        return max(self.observations, default=-1) + 1

    def accept(self, message: tuple) -> None:
        kind = message[0]
        if kind == "begin":
            _, ordinal, site, label = message
            self.current = (ordinal, site, label)
        elif kind == "result":
            data = message[1]
            error = data["error"]
            self.observations[data["index"]] = Observation(
                index=data["index"],
                check=data["check"],
                status=data["status"],
                passed=data["passed"],
                actual=data["actual"],
                expected=data["expected"],
                call=data["call"],
                site=data["site"],
                error=None if error is None else ErrorInfo(**error),
                stdout=data["stdout"],
                stdout_dropped=data["stdout_dropped"],
                elapsed_ms=data["elapsed_ms"],
                mutation=data["mutation"],
            )
            self.current = None
            self._report(data["index"])
        elif kind == "done":
            self.done = True
        elif kind == "unavailable":
            self.unavailable = True
        elif kind == "problem":
            self.problem = ErrorInfo(**message[1])
            self.done = True

    def interrupt(self, status: str, error: ErrorInfo, elapsed_ms: float) -> None:
        """The running check ended without a result: it timed out or its worker died."""
        assert self.current is not None
        ordinal, site, label = self.current
        self.observations[ordinal] = Observation(
            index=ordinal, check=label, status=status, passed=False, site=site, error=error, elapsed_ms=elapsed_ms,
            expected_known=False,
        )
        self.current = None
        self._report(ordinal)

    def _report(self, ordinal: int) -> None:
        if self.progress is not None:
            self.progress(self.observations[ordinal])

    def finish(self, fixtures: FixtureScript) -> tuple[Observation, ...]:
        observations = [self.observations[k] for k in sorted(self.observations)]
        sites = {s.site: s for s in fixtures.sites}
        observations = [
            _with_line(o, sites[o.site].lineno) if o.site in sites else o for o in observations
        ]
        if self.problem is not None and fixtures.static_count is not None:
            # The fixture code stopped: still list every check it never reached.
            reached = {o.site for o in observations}
            for site in fixtures.sites:
                if site.site not in reached and site.site > max(reached, default=-1):
                    observations.append(
                        Observation(
                            index=len(observations),
                            check=site.label,
                            status=ERROR,
                            passed=False,
                            site=site.site,
                            lineno=site.lineno,
                            error=ErrorInfo("NotRun", f"this check did not run because the run stopped: {self.problem}"),
                            expected_known=False,
                        )
                    )
        return tuple(observations)


def _with_line(o: Observation, lineno: int) -> Observation:
    from dataclasses import replace

    return replace(o, lineno=lineno)


# --------------------------------------------------------------------------- fork


def _supervise_forked(plan: Plan, collector: _Collector) -> None:
    """Run the plan in worker processes until every check is reported.

    A warm standby takes the run when the solve can travel to it (`_warm`);
    otherwise, or if that standby cannot load it, the caller forks a worker.
    After a timeout or a death, a fresh worker carries on with the next check.
    """
    shipment = _warm.ship(plan)
    while not collector.done:
        worker = _warm.start(shipment, skip=collector.next_ordinal) if shipment is not None else None
        if worker is None:
            worker = _Worker.start(plan, skip=collector.next_ordinal)
        try:
            _drain(worker, plan, collector)
        finally:
            worker.stop()
        if collector.unavailable:
            shipment, collector.unavailable = None, False  # the standby could not load it: fork instead


LOG_POLL = 0.025
"""How often the supervisor reads a worker's log while waiting (seconds): for progress
shown live, and to learn when a check began, so its deadline is kept."""


def _drain(worker: "_Worker", plan: Plan, collector: _Collector) -> None:
    """Read one worker's messages until it finishes, overruns a limit, or dies.

    Deadlines run from the worker's own timestamps: a check's limit starts when
    the check began, not when the supervisor happened to read about it.
    """
    setup_limit = max(SETUP_TIMEOUT, plan.timeout)
    last_event = time.monotonic()
    check_started = last_event
    while True:
        deadline = check_started + plan.timeout if collector.current is not None else last_event + setup_limit
        polls = collector.progress is not None or not worker.channel.wake_each  # the log is read only on waking
        wake = min(deadline, time.monotonic() + LOG_POLL) if polls else deadline
        try:
            messages = worker.channel.wait(wake)
        except WorkerDied:
            worker.finished = True
            status = worker.wait_status()
            if collector.current is None:
                collector.problem = ErrorInfo("WorkerDied", f"the check process ended outside any check: {_describe_exit(status)}")
                collector.done = True
                return
            elapsed = (time.monotonic() - check_started) * 1000
            collector.interrupt(ERROR, _death_error(status), elapsed)
            return
        for stamp, message in messages:
            collector.accept(message)
            if collector.done or collector.unavailable:
                worker.finished = True
                return
            if message[0] == "begin":
                check_started = stamp
            else:
                last_event = stamp
        if messages or time.monotonic() < deadline:
            continue
        if collector.current is None:
            collector.problem = ErrorInfo("Timeout", f"the fixture code outside the checks took longer than {setup_limit:g} s")
            collector.done = True
            return
        elapsed = (time.monotonic() - check_started) * 1000
        collector.interrupt(TIMEOUT, _timeout_error(plan.timeout), elapsed)
        return


def _timeout_error(timeout: float) -> ErrorInfo:
    return ErrorInfo(
        "Timeout",
        f"no result after {timeout:g} s, so this check was stopped. Is there an infinite loop, "
        "or a loop whose condition never changes? The other checks still ran.",
    )


def _death_error(status: int | None) -> ErrorInfo:
    return ErrorInfo("ProcessDied", f"the process running solve ended abruptly: {_describe_exit(status)}")


def _describe_exit(status: int | None) -> str:
    if status is None:
        return "its exit status is unknown"
    if os.WIFEXITED(status):
        code = os.WEXITSTATUS(status)
        return f"it exited with code {code} (does solve call os._exit({code})?)"
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        try:
            name = signal.Signals(sig).name
        except ValueError:
            name = f"signal {sig}"
        hints = {
            "SIGSEGV": "a crash, often from recursion deeper than the C stack",
            "SIGKILL": "killed, usually for using too much memory",
            "SIGXCPU": "it used too much CPU time",
            "SIGABRT": "it aborted",
        }
        return f"it was ended by {name}" + (f" ({hints[name]})" if name in hints else "")
    return f"unexpected status {status}"


class _Worker:
    """One forked child running a Session, and the supervisor's end of its channel."""

    def __init__(self, pid: int, channel: Channel) -> None:
        self.pid, self.channel = pid, channel
        self.status: int | None = None
        self.finished = False  # our child: killed (and reaped) on stop whatever this says

    @classmethod
    def start(cls, plan: Plan, skip: int) -> "_Worker":
        _reap_finished()
        # Prepared here, before forking, so that each child does as little as possible.
        channel = Channel(wake_each=True)
        address_space = address_space_limit(plan.memory_mb)
        capture = OutputCapture(plan.output_chars)
        with warnings.catch_warnings():
            # Forking from a notebook kernel (which has threads) is what we want
            # here; the child never touches those threads' locks or sockets.
            warnings.simplefilter("ignore", DeprecationWarning)
            pid = os.fork()
        if pid == 0:  # pragma: no cover - runs in the child, reported via the channel
            channel.worker_side()
            run_worker(plan, skip, channel, address_space, capture)
        channel.supervisor_side()
        return cls(pid, channel)

    def wait_status(self) -> int | None:
        if self.status is None:
            try:
                _, self.status = os.waitpid(self.pid, 0)
            except ChildProcessError:
                self.status = None
        return self.status

    def stop(self) -> None:
        """Close the pipe and kill the worker; reap it later if it is still exiting.

        A worker that reported ``done`` is already leaving. Waiting for the kernel
        to tear down its copy of the caller's memory would add a millisecond or
        more to every run, so it is reaped by the next run (or at exit) instead.
        """
        self.channel.close()
        if self.status is not None:
            return
        try:
            os.kill(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        try:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            _UNREAPED.add(self.pid)
        else:
            self.status = status


_UNREAPED: set[int] = set()


def _reap_finished() -> None:
    """Collect workers killed by earlier runs, so none lingers as a zombie."""
    for pid in list(_UNREAPED):
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            done = pid
        if done:
            _UNREAPED.discard(pid)


@atexit.register
def _reap_all() -> None:
    for pid in list(_UNREAPED):
        try:
            os.waitpid(pid, 0)
        except ChildProcessError:
            pass
    _UNREAPED.clear()


# --------------------------------------------------------------------- in-process


def _run_in_process(plan: Plan, collector: _Collector, guarded: bool = True) -> None:
    capture = OutputCapture(plan.output_chars)
    guard_factory = (lambda: _TraceDeadline(plan.timeout)) if guarded else None

    class _Sink:
        def __call__(self, message: tuple) -> None:
            collector.accept(message)

    session = Session(_Sink(), skip=0, capture=capture, param_names=plan.param_names, guard=guard_factory)
    session.extra_globals = plan.extra_globals or {}
    saved = sys.stdout, sys.stderr
    capture.install()
    try:
        solve = plan.solve
        if isinstance(solve, Solution):
            solve = load_solution_in_worker(solve, collector.accept)
            if solve is None:
                return
        session.run(plan.code, plan.variant, solve)
    finally:
        sys.stdout, sys.stderr = saved
    if collector.current is not None:  # pragma: no cover - the session always reports
        collector.interrupt(ERROR, ErrorInfo("Interrupted", "the check did not finish"), 0.0)


class _TraceDeadline:
    """A time limit for pure-Python code, enforced by a trace function.

    Known limits of this fallback: CPython removes a trace function that raises,
    so a bare ``except:`` that swallows the first CheckTimeout inside a loop keeps
    the loop running; and C calls (``time.sleep``) are not interrupted. The fork
    mode has neither limit.
    """

    def __init__(self, timeout: float) -> None:
        self.timeout = timeout
        self.previous = None

    def __enter__(self) -> "_TraceDeadline":
        deadline = time.monotonic() + self.timeout
        package = os.path.dirname(os.path.abspath(__file__))
        clock = time.monotonic

        def tracer(frame, event, arg):
            if clock() > deadline and not frame.f_code.co_filename.startswith(package):
                raise CheckTimeout(f"no result after {self.timeout:g} s: is there an infinite loop?")
            return tracer

        self.previous = sys.gettrace()
        sys.settrace(tracer)
        return self

    def __exit__(self, *exc) -> None:
        sys.settrace(self.previous)

