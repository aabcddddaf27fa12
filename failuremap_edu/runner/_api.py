"""Runner: run a record's checks against a `solve`, so that nothing `solve` does can hurt the caller.

Isolation (``process``, wherever the OS can fork): the checks run in a worker
process from a clean server, never a fork of the caller (`_warm`); solve travels
to it by value (`_byvalue`), and it reports as it goes (`_channel`): a check
began, solve was entered with these arguments, the check ended. Each check has
its own time limit. A worker that overruns it is killed (a bare ``except:``
cannot catch SIGKILL); one that dies (``os._exit``, a segfault, the memory
limit) or sends garbage is noted; either way a fresh worker carries on with the
next check, so every check is reported, with its call and, where that is safe
(`_session`), its expected value. A solve that cannot travel (``eval``, say) is
the run's problem, and its checks are listed as not run.

A solve that loops on every check: after one check timed out, each later one
gets `SHORT_LIMIT` of the limit (its message says so and why), and after
`MAX_TIMEOUTS` timeouts the rest are only listed. With the default 2 s limit
every check is reported within 3.5 s, not 6 x 2 s; runs without a timeout are
unaffected.

Fallback (``inprocess``, where there is no ``fork``: Windows, Pyodide): the same
checks run in the calling process under a trace-function time limit. It still
survives exceptions, ``sys.exit()`` and pure-Python infinite loops, but not
``os._exit()``, a loop inside a bare ``except:``, waits in C code, runaway
memory, or processes solve starts. The result says which ran.
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import copy
import functools
import os
import signal
import sys
import time
from dataclasses import dataclass, replace
from typing import Callable

from . import _byvalue, _judge, _state
from ._calls import received_calls
from ._said import said_once
from ._channel import Undecodable
from ._platform import INPROCESS, PROCESS, SANDBOX, chosen_isolation, isolation_available
from .._fixtures import VARIANTS, CheckSite, FixtureScript, compared_expression, is_bare_call, read_fixtures
from .._record_helpers import helpers_for
from .._records import Record, as_record
from .._results import COMPARED, ERROR, FAIL, NOT_CONFIRMED, PASS, TIMEOUT, UNCONFIRMED, CallResult, Comparison, ErrorInfo, Observation, RunResult
from ._session import DEFAULT_MEMORY_MB, DEFAULT_OUTPUT_CHARS, DEFAULT_TIMEOUT, CheckTimeout, OutputCapture, Plan, Session, import_timeout_message
from .._signature import Params, mismatch
from .._solution import Solution, SolutionError, load_solution
from .._values import Opaque, not_computed, received, render_call, safe_repr, same_data

__all__ = ["DEFAULT_TIMEOUT", "Solution", "SolutionError", "compare", "isolation_available", "load_solution"]
__all__ += ["ScriptRun", "parse_call_arguments", "replay", "replay_many", "run_checks", "run_script", "try_call"]

SETUP_TIMEOUT = 10.0
"""Limit for work outside any check (the fixture preamble, loading a solution file)."""
SHORT_LIMIT = 1 / 8
"""After a timeout, each later check of the run gets this share of the limit."""
HEARTBEAT = 0.25
"""Seconds between calls of `run_checks`'s heartbeat while a check runs."""
CROWD_EVERY = 0.05
"""Seconds between counts of a run's processes while it waits for a worker (a fork loop is stopped)."""
MAX_TIMEOUTS = 7
"""After this many timeouts in one run, the remaining checks are listed without calling solve."""
CONVERSION_LIMIT = 30.0
"""Seconds a worker may take to convert one judged check's values to plain data (bounded by size: `_values.portable`)."""
SCRIPT_OUTPUT_BYTES = 16 * 1024 * 1024
"""`run_script`: a script that writes more than this to stdout or stderr (or any file) is stopped."""
SCRIPT_INTERRUPT_GRACE = 1.0
"""`run_script`: seconds between the interrupt at the time limit and the kill."""


def warm_up() -> None:
    """Start the worker server and a standby now, so the first run does not wait for them.

    Nothing where checks run in-process: there, `_warm` (and multiprocessing, which
    Pyodide only pretends to have) is never imported.
    """
    if chosen_isolation() == PROCESS:
        from . import _warm

        _warm.warm_up()


def run_checks(
    record: Record | str, solve: Callable | Solution, variant: int = 1, timeout: float = DEFAULT_TIMEOUT, *, isolation: str | None = None,
    memory_mb: int = DEFAULT_MEMORY_MB, output_chars: int = DEFAULT_OUTPUT_CHARS, progress: Callable[[Observation], None] | None = None,
    heartbeat: Callable[[], None] | None = None,
) -> RunResult:
    """Run every check of `record` against `solve`, one observation per check.

    `solve` is a function (for example one defined in a notebook cell) or a
    `Solution` from `load_solution`. Raises SolutionError, before running
    anything, when its parameters do not fit the record's contract.
    `progress`, if given, is called with each observation as soon as it is known.
    `heartbeat`, if given, is called about every `HEARTBEAT` seconds while a
    worker process runs a check, in the calling thread: a display can appear
    while the first check is still looping, before any observation exists.
    """
    record = as_record(record)
    fixtures = read_fixtures(record, "attempt")
    _check_fits(record, fixtures, solve)
    return _run(fixtures, record, "yours", solve, variant, timeout, isolation, memory_mb, output_chars, progress, heartbeat)


def replay(record: Record, implementation: str, variant: int = 1, timeout: float = DEFAULT_TIMEOUT, *, isolation: str | None = None) -> RunResult:
    """Run one of the record's own scripts (``attempt`` or ``broken``) through the runner."""
    fixtures = read_fixtures(record, implementation)
    return _run(fixtures, record, implementation, None, variant, timeout, isolation, DEFAULT_MEMORY_MB, DEFAULT_OUTPUT_CHARS)


def replay_many(replays: list[tuple[Record, str, int]], timeout: float = DEFAULT_TIMEOUT, *, isolation: str | None = None) -> list[RunResult]:
    """Replays of records' own scripts, given as (record, implementation, variant), many in one worker.

    For catalogs (`_catalog.verify_many`): one worker runs them one after the
    other, each with the time limit per check of `replay`, so a catalog does not
    pay a worker per replay. From the first replay that does not end cleanly (it
    timed out, its worker died, its fixture code stopped), the rest are run one
    at a time through `replay`, so every result is what `replay` gives.
    """
    results: list[RunResult] = []
    if replays and _mode(isolation) == PROCESS:
        results = _replay_in_one_worker(replays, timeout)
    return results + [replay(record, name, variant, timeout, isolation=isolation) for record, name, variant in replays[len(results) :]]


def _replay_in_one_worker(replays: list[tuple[Record, str, int]], timeout: float) -> list[RunResult]:
    from . import _warm
    from ._worker import Start

    scripts = [(record, name, read_fixtures(record, name)) for record, name, _ in replays]
    plans = [_plan(f.program(replay=True), r, None, v, timeout, DEFAULT_MEMORY_MB, DEFAULT_OUTPUT_CHARS, f.sites)
             for (r, _, f), (_, _, v) in zip(scripts, replays)]
    pool, results = _warm.pool(), []
    worker = pool.take()
    try:
        if worker.send(0, None, _byvalue.dumps(tuple(plans))[0], time.monotonic() + SETUP_TIMEOUT):
            for (record, name, fixtures), plan in zip(scripts, plans):
                started, collector = time.perf_counter(), _Collector(plan)
                _drain(worker, plan, collector, pool)
                if not collector.done or collector.problem is not None:
                    break  # this one and the rest: one at a time, the careful way
                elapsed_ms = (time.perf_counter() - started) * 1000
                results.append(RunResult(record.id, name, plan.variant, collector.finish(fixtures), plan.timeout, PROCESS, None, elapsed_ms))
    except BaseException:
        pool.stop(worker)
        raise
    pool.finish(worker, Start())
    return results


def compare(
    record: Record, solve: Callable | Solution | None = None, variant: int = 1, timeout: float = DEFAULT_TIMEOUT, *, isolation: str | None = None
) -> Comparison:
    """The record's broken and attempt runs, and yours when `solve` is given, side by side."""
    names = ["broken", "attempt"] + (["yours"] if solve is not None else [])
    runs = [replay(record, name, variant, timeout, isolation=isolation) for name in names[:2]]
    if solve is not None:
        runs.append(run_checks(record, solve, variant, timeout, isolation=isolation))
    return Comparison(record.id, tuple(runs), tuple(names))


@dataclass(frozen=True)
class ScriptRun:
    """One run of a whole script by a fresh interpreter (`run_script`): what a terminal would have shown."""

    exit_code: int
    """The interpreter's exit code, or minus the signal that ended it."""
    stdout: str
    stderr: str
    elapsed_ms: float
    timed_out: bool = False
    """It did not finish within the limit: it was interrupted (so stderr shows where it was), then killed."""
    output_exceeded: bool = False
    """It wrote more than the output limit and was stopped."""
    not_started: str | None = None
    """Why the sandbox never started the script (bwrap's own error line), so that nothing of it ran; None if it started."""


def run_script(source: str, timeout: float = 10.0, *, memory_mb: int = DEFAULT_MEMORY_MB, output_bytes: int = SCRIPT_OUTPUT_BYTES,
               isolation: str | None = None) -> ScriptRun:
    """Run `source` as ``python -c SOURCE`` would, in a fresh interpreter, never in the caller.

    For a record's standalone check script: its exit code, stdout and stderr are
    exactly what the script's own run gives (tracebacks name ``<string>``). The
    interpreter is this one (`sys.executable`), with its environment, in an empty
    temporary working folder (removed afterwards), with no input, in a session of
    its own: when it ends, or at the limit, its process group is killed whole. At
    the limit it is first interrupted (SIGINT, so that its traceback says where
    it was), then killed `SCRIPT_INTERRUPT_GRACE` s later. On Linux its address
    space is capped at `memory_mb` plus 1 GiB for the interpreter, and what it
    writes at `output_bytes` (set right after it starts, before Python has read
    the script). With `isolation` ``sandbox`` (``--sandbox``) it runs in a bubblewrap sandbox (`_sandbox`), its
    working folder the sandbox's empty ``/tmp``, its environment cleared.
    """
    import subprocess
    import tempfile

    if not isinstance(timeout, (int, float)) or not timeout > 0:
        raise ValueError(f"timeout must be a positive number of seconds, got {timeout!r}")
    sandbox = _mode(isolation) == SANDBOX
    env = dict(os.environ, PYTHONIOENCODING="utf-8")
    with tempfile.TemporaryDirectory(prefix="failuremap-script-") as cwd, tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.perf_counter()
        if sandbox:
            from ._sandbox import script_command

            proc = subprocess.Popen(script_command(source, memory_mb, output_bytes), stdin=subprocess.DEVNULL, stdout=out, stderr=err, cwd=cwd,
                                    env=env, start_new_session=True)
        else:
            proc = subprocess.Popen(
                [sys.executable, "-c", source], stdin=subprocess.DEVNULL, stdout=out, stderr=err, cwd=cwd, env=env, start_new_session=True
            )
        timed_out = False
        try:
            if not sandbox:  # in the sandbox the launcher has set them (`_sandbox.script_command`)
                _limit_script(proc.pid, memory_mb, output_bytes)
            try:
                proc.wait(timeout)
            except subprocess.TimeoutExpired:
                timed_out = True
                if sandbox:
                    from ._sandbox import interrupt_inside

                    interrupt_inside(proc.pid)  # bwrap passes no signal on: to the script itself
                else:
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(proc.pid, signal.SIGINT)
                with contextlib.suppress(subprocess.TimeoutExpired):
                    proc.wait(SCRIPT_INTERRUPT_GRACE)
        finally:
            elapsed_ms = (time.perf_counter() - started) * 1000
            _kill_group(proc)
        texts, exceeded = [], False
        for stream in (out, err):
            exceeded = exceeded or os.fstat(stream.fileno()).st_size >= output_bytes  # Python ignores SIGXFSZ: its write failed
            stream.seek(0)
            texts.append(stream.read(output_bytes).decode("utf-8", "replace"))
    code, not_started = proc.returncode, None
    if sandbox:
        from ._sandbox import started

        code = -(code - 128) if code > 128 else code  # bwrap reports a signal as 128 + its number
        texts[1], not_started = started(texts[1])
    return ScriptRun(code, texts[0], texts[1], round(elapsed_ms, 3), timed_out, exceeded, not_started)


def _limit_script(pid: int, memory_mb: int, output_bytes: int) -> None:
    try:
        import resource
    except ImportError:  # pragma: no cover - Windows
        return
    if not hasattr(resource, "prlimit"):  # pragma: no cover - macOS: only the time limit
        return
    limits = [(resource.RLIMIT_CORE, 0), (resource.RLIMIT_FSIZE, output_bytes)]
    if memory_mb > 0:
        limits.append((resource.RLIMIT_AS, (memory_mb + 1024) * 1024 * 1024))
    for limit, value in limits:
        with contextlib.suppress(ValueError, OSError):
            _, hard = resource.prlimit(pid, limit)
            resource.prlimit(pid, limit, (value if hard == resource.RLIM_INFINITY else min(value, hard), hard))


def _kill_group(proc) -> None:
    """End the script and everything it started in its process group, and reap it."""
    if hasattr(os, "killpg"):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
    else:  # pragma: no cover - Windows
        with contextlib.suppress(OSError):
            proc.kill()
    proc.wait()


_CALL_CODE = compile("__fm_check__(0, lambda: 'playground', lambda: solve(*__fm_args__, **__fm_kwargs__), lambda: None)", "<playground>", "exec")


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
        unclosed = ("never closed", "does not match", "unterminated", "EOF")
        if any(w in exc.msg for w in unclosed):
            what = "a bracket or quote is not closed"
        elif (exc.lineno or 1) > 1:  # flagged at the closing parenthesis we add: no column of the typed text
            # (not "near column 1" of '3, warmup=': the text ends too early)
            what = "the text ends too early: invalid syntax at the end" if exc.msg == "invalid syntax" else exc.msg
        else:
            what = f"near column {max((exc.offset or 3) - 2, 1)}: {exc.msg}"
        raise ValueError(
            f"could not read the inputs ({what}). Type Python literals separated by commas"
            + (f", for example: {example}" if example else ".")
        ) from None
    if not isinstance(call, ast.Call) or any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        raise ValueError("type the arguments only, as Python literals separated by commas")
    try:
        return tuple(ast.literal_eval(a) for a in call.args), {k.arg: ast.literal_eval(k.value) for k in call.keywords}
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        raise ValueError("only literal values can be used here (strings, numbers, lists, tuples, dicts, sets, True/False/None), not names or calls") from None


def try_call(
    record: Record | str, solve: Callable | Solution | None, args: tuple, kwargs: dict | None = None, *, implementation: str | None = None,
    variant: int = 1, timeout: float = DEFAULT_TIMEOUT, isolation: str | None = None, expression: str | None = None,
) -> CallResult:
    """Call one solve on arbitrary inputs with the runner's safety: for playgrounds.

    With `implementation` (``attempt`` or ``broken``) the record's own solve is called.
    With `expression` (what a learner typed: ``Stream(50), 3``, ``raises(solve, 3, 2.5)``) `args` and `kwargs` are
    ignored: the text is evaluated in the worker, in the record's namespace, under `timeout` (`_playground`).
    `args` must be a tuple: ``(x)`` is just ``x``, and calling ``solve(*x)`` with it
    would silently pass x's items as separate arguments, so that is refused with a
    message, as a result rather than an exception in the notebook.
    """
    inputs = None
    if expression is not None:
        from ._playground import compile_inputs, helpers

        try:
            inputs, args, kwargs = compile_inputs(expression, helpers(read_fixtures(as_record(record), implementation or "attempt").source)), (), {}
        except ValueError as exc:
            return CallResult(expression.strip(), ERROR, None, ErrorInfo("InputError", str(exc)))
    if not isinstance(args, tuple):
        one = "(x,)" if not isinstance(args, (list, str, dict)) else f"({safe_repr(args, 40)},)"
        message = f"args must be a tuple of arguments, got {type(args).__name__}: for one argument write {one} (note the trailing comma)"
        return CallResult(render_call((args,), kwargs or {}), ERROR, None, ErrorInfo("TypeError", message))
    record = as_record(record)
    fixtures = read_fixtures(record, implementation or "attempt")
    if implementation is None:
        _check_fits(record, fixtures, solve)
    code = (fixtures.setup(replay=implementation is not None), *(inputs.code if inputs else (_CALL_CODE,)))
    plan = _plan(code, record, None if implementation else solve, variant, timeout, DEFAULT_MEMORY_MB, DEFAULT_OUTPUT_CHARS)
    plan = replace(plan, extra_globals={"__fm_args__": tuple(args), "__fm_kwargs__": dict(kwargs or {})}, sources=((fixtures.filename, fixtures.source),))
    collector = _Collector(plan)
    _execute(plan, collector, _mode(isolation))
    call = inputs.shown if inputs else render_call(tuple(args), dict(kwargs or {}))
    function = "solve" if implementation or isinstance(solve, Solution) else str(getattr(solve, "__name__", "solve"))
    if not collector.observations:
        return CallResult(call, ERROR, None, collector.problem or ErrorInfo("NotRun", "the call did not run"), solver=implementation or "yours", function=function)
    o = collector.observations[0]
    status = "returned" if o.status in COMPARED else o.status
    error = o.error
    if error is not None and error.type == "NotRun" and collector.problem is not None:
        error = collector.problem  # why it did not run (solve could not be sent): "this check did not run" is a check's words
    if status == TIMEOUT:  # a call, not a check: its message must not speak of checks
        error = ErrorInfo("Timeout", f"no result after {timeout:g} s (the time limit of each call), so this call was stopped. Is there an infinite loop,"
                          " a loop whose condition never changes, or an endless input read to its end?")
    mutation = o.mutation.removeprefix("solve ").split(" The checks see")[0].rstrip(".") if o.mutation else None  # a call, not a check
    return CallResult(call if inputs else (o.call or call), status, o.actual if status == "returned" else None, error, o.stdout, o.elapsed_ms, solver=implementation or "yours",
                      mutation=mutation, function=function, state=o.state if not inputs or inputs.whole else tuple(_state.renamed(c, call) for c in o.state))


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
    problem = params is not None and mismatch(record.params, params, fixtures.keywords_used)
    if problem:
        raise SolutionError(f"{name}({params}) does not fit the contract solve({record.params}): {problem}")


def _plan(code, record: Record, solve, variant: int, timeout: float, memory_mb: int, output_chars: int, sites: tuple[CheckSite, ...] = ()) -> Plan:
    if type(variant) is not int or variant not in VARIANTS:
        raise ValueError(f"variant must be one of {', '.join(map(str, VARIANTS))}, got {variant!r}")
    if not isinstance(timeout, (int, float)) or not timeout > 0:
        raise ValueError(f"timeout must be a positive number of seconds, got {timeout!r}")
    names = tuple(p.name for p in record.params.positional)
    return Plan(code, variant, solve, float(timeout), memory_mb, output_chars, names, None, _independent(sites), solve is not None,
                _expressions(sites), os.getcwd(), tuple(sys.path), sys.getrecursionlimit(), reraise=frozenset(s.site for s in sites if s.in_try))


@functools.lru_cache(maxsize=256)
def _expressions(sites: tuple[CheckSite, ...]) -> frozenset[int]:
    """Sites that compare an expression of solve's result rather than the result (see `Plan.returns`)."""
    return frozenset(s.site for s in sites if not is_bare_call(s.actual_source))


@functools.lru_cache(maxsize=256)
def _independent(sites: tuple[CheckSite, ...]) -> frozenset[int]:
    """Sites whose expected reads no name that the same check call binds with ``:=`` (see `_session`)."""
    found = set()
    for s in sites:
        try:
            parts = [ast.parse(source, mode="eval") for source in (s.actual_source, s.expected_source)]
            parts += [] if s.label_is_literal else [ast.parse(s.label, mode="eval")]
        except SyntaxError:
            continue
        bound = {n.target.id for part in parts for n in ast.walk(part) if isinstance(n, ast.NamedExpr)}
        if not bound & {n.id for n in ast.walk(parts[1]) if isinstance(n, ast.Name)}:
            found.add(s.site)
    return frozenset(found)


def _run(fixtures: FixtureScript, record: Record, solver: str, solve, variant: int, timeout: float, isolation, memory_mb: int, output_chars: int, progress=None, heartbeat=None) -> RunResult:
    plan = _plan(fixtures.program(replay=solve is None), record, solve, variant, timeout, memory_mb, output_chars, fixtures.sites)
    plan = replace(plan, sources=((fixtures.filename, fixtures.source),))
    mode = _mode(isolation)
    started = time.perf_counter()
    collector = _Collector(plan, progress, heartbeat, fixtures.sites)
    _execute(plan, collector, mode)
    isolated = mode if mode in (PROCESS, SANDBOX) else INPROCESS
    elapsed_ms = (time.perf_counter() - started) * 1000
    return RunResult(record.id, solver, variant, collector.finish(fixtures), plan.timeout, isolated, collector.problem, elapsed_ms, collector.notes)


def _mode(isolation: str | None) -> str:
    """The isolation mode to use (`chosen_isolation`); ``sandbox`` only where bubblewrap is installed."""
    mode = chosen_isolation(isolation)
    if mode == SANDBOX:
        import shutil

        from ._sandbox import BWRAP, MISSING_BWRAP

        if shutil.which(BWRAP) is None:
            raise ValueError(MISSING_BWRAP)
    return mode


def _execute(plan: Plan, collector: "_Collector", mode: str) -> None:
    if mode in (PROCESS, SANDBOX):
        _supervise(plan, collector, sandbox=mode == SANDBOX)
    else:
        _run_in_process(plan, collector)


_SENT_STATUSES = (PASS, FAIL, ERROR, TIMEOUT)
"""What a check process may report; ``unconfirmed`` is decided here, by the caller, never by it."""
_RESULT_FIELDS = {
    "index": int, "site": int, "check": str, "status": str, "passed": bool, "call": str, "stdout": str,
    "stdout_dropped": int, "elapsed_ms": float, "mutation": (str, type(None)), "error": (dict, type(None)),
}


class _Collector:
    """Turns a worker's messages into Observations, in the caller; refuses any it did not expect."""

    def __init__(self, plan: Plan, progress: Callable[[Observation], None] | None = None, heartbeat: Callable[[], None] | None = None,
                 sites: tuple[CheckSite, ...] = ()) -> None:
        self.plan, self.progress, self.heartbeat = plan, progress, heartbeat
        self.sites = {s.site: s for s in sites}
        self.observations: dict[int, Observation] = {}
        self.unreported: list[Observation] = []
        self.current: tuple | None = None
        """The check under way: ordinal, site, label, expected (or why not), calls so far."""
        self.problem: ErrorInfo | None = None
        self.done = False
        self.loading = False
        """A solution file is being imported (between ``load`` and ``loaded``): the check limit applies."""
        self.timeouts: list[str] = []
        """The checks of this run that timed out, as ``check 2 ('label')``."""
        self.notes: tuple[str, ...] = ()
        """What the run's result should say about the workers (`RunResult.notes`)."""
        self.restarts = 0
        """Times the run started over on a new worker because the pool had stalled (`_warm.Pool.stalled`)."""
        self.timed_out: set[int] = set()
        """Checks (ordinals) that timed out, in a worker or in this process."""
        self.judged = False
        """The check under way has its verdict: its values are being converted (`CONVERSION_LIMIT`)."""
        self.interrupted: set[int] = set()
        """Checks (ordinals) that ended without a result: a fresh worker cannot run them again."""
        self.finals: dict[int, tuple] = {}
        """ordinal -> (actual, expected) at the end of the run, sent for values that may have changed after their check."""

    @property
    def next_ordinal(self) -> int:
        return max(self.observations, default=-1) + 1

    def limit(self) -> float:
        """The time limit of the next check: the full one, or a short one once a check has timed out."""
        return self.plan.timeout * (SHORT_LIMIT if self.timeouts else 1)

    def not_run(self) -> str | None:
        """Why the remaining checks are only listed, or None while they still run."""
        if len(self.timeouts) < MAX_TIMEOUTS:
            return None
        return (
            f"this check did not run: {len(self.timeouts)} checks had already timed out in this run ({self.timeouts[0]} "
            f"after {self.plan.timeout:g} s, then {len(self.timeouts) - 1} more after {self.limit():g} s each), so the "
            "remaining checks are listed without calling solve, to not keep you waiting. Fix the loop and run again."
        )

    def timeout_error(self, limit: float) -> ErrorInfo:
        if limit < self.plan.timeout:  # one short line: the first timeout above says the rest, and repeating it buries the rows
            return ErrorInfo("Timeout", f"no result after {limit:g} s either (limit cut from {self.plan.timeout:g} s after {self.timeouts[0]} timed out)")
        return ErrorInfo("Timeout", f"no result after {limit:g} s, so this check was stopped. Is there an infinite loop, or a loop whose condition never changes?")

    def accept(self, message: tuple) -> None:
        """Raises ValueError (or TypeError) for anything but the messages a Session sends, in order."""
        kind = message[0]
        if kind == "begin":
            _, ordinal, site, label, expected = message
            _require(ordinal == self.next_ordinal and type(site) is int and type(label) is str)
            self.current, self.judged = (ordinal, site, label, expected, []), False
        elif kind == "call":
            _require(self.current is not None and message[1] == self.current[0] and type(message[2]) is str)
            self.current[4].append(message[2])
        elif kind == "result":
            self._add(self._named_frames(self._expression(_observation(message[1], self.current), self.current[4])))
        elif kind == "again":  # an earlier worker's check, run again unreported by a fresh one
            _require(len(message) == 2 and self.current is None and type(message[1]) is int and 0 <= message[1] < self.next_ordinal)
        elif kind == "judged":
            _require(self.current is not None and message[1] == self.current[0] and not self.judged)
            self.judged = True
        elif kind == "final":
            _, ordinal, actual, expected = message
            _require(type(ordinal) is int and ordinal in self.observations and self.observations[ordinal].status in (PASS, FAIL))
            self.finals[ordinal] = (received(actual)[0], received(expected)[0])
        elif kind in ("load", "loaded"):
            _require(len(message) == 1 and self.current is None and self.loading == (kind == "loaded"))
            self.loading = kind == "load"
        elif kind in ("done", "problem"):
            self.problem = _error(message[1]) if kind == "problem" else self.problem
            self.done = True
        else:
            raise ValueError(kind)

    def interrupt(self, status: str, error: ErrorInfo, elapsed_ms: float) -> None:
        """The running check ended without a result: it timed out, or its worker died."""
        ordinal, site, label, expected, calls = self.current
        self.interrupted.add(ordinal)
        o = Observation(ordinal, label, status, False, None, expected, "; ".join(calls)[:500], site=site, error=error, elapsed_ms=elapsed_ms)
        self._add(self._expression(o, calls))

    def _named_frames(self, o: Observation) -> Observation:
        """Your run's frames in the record's check lines are named for the checks, not for the script they come from:
        ``<failuremap ID attempt>`` in your traceback would say that the record's attempt ran."""
        if self.plan.solve is None or o.error is None or not o.error.traceback or not self.plan.sources:
            return o
        program = self.plan.sources[0][0]
        if not program.endswith(" attempt>"):
            return o
        named = o.error.traceback.replace(f'File "{program}"', f'File "{program[: -len(" attempt>")]} checks>"')
        return o if named == o.error.traceback else replace(o, error=replace(o.error, traceback=named))

    def _expression(self, o: Observation, calls: list[str]) -> Observation:
        """The compared expression with this run's values, and what each call returned (pairs of call and value)."""
        site = self.sites.get(o.site)
        if site is None:
            return o
        compared = compared_expression(site.actual_source, calls, self.plan.variant)
        returned = tuple((calls[i], value) for i, value in sorted(o.returned, key=lambda pair: pair[0]) if i < len(calls)) if compared else ()
        return replace(o, compared=compared, returned=returned)

    def _add(self, o: Observation) -> None:
        self.observations[o.index] = o
        self.current = None
        if o.status == TIMEOUT:
            self.timed_out.add(o.index)
            self.timeouts.append(f"check {o.index + 1} ({o.check!r})")
        self.unreported.append(o)

    def report(self) -> None:
        """Hand new observations to `progress`: the caller's code, so never inside our error handling."""
        while self.unreported:
            o = self.unreported.pop(0)
            if self.progress is not None:
                self.progress(o)

    def finish(self, fixtures: FixtureScript) -> tuple[Observation, ...]:
        sites = {s.site: s for s in fixtures.sites}
        observations = [replace(o, lineno=sites[o.site].lineno, helpers=helpers_for(fixtures, sites[o.site])) if o.site in sites else o
                        for _, o in sorted(self.observations.items())]
        reraise, stopped_names = self.plan.reraise, []
        for i, o in enumerate(observations):
            if o.site in reraise and o.status == ERROR and o.error is not None and o.error.type not in ("Timeout", "NotRun", "ProcessDied", "TooManyProcesses"):
                if i + 1 < len(observations) or self.problem is None:  # the fixture code went on: an except clause caught it
                    observations[i] = o = replace(o, caught=True)
            stopped = [(s, o2) for s, o2 in stopped_names if o2.index < o.index and s & _names(self.sites.get(o.site))]
            if stopped and o.status in (PASS, FAIL, ERROR):
                which = stopped[0][1]
                observations[i] = o = replace(o, stale=(
                    f"this check reads {', '.join(sorted(stopped[0][0] & _names(self.sites.get(o.site))))}, which check {which.index + 1}"
                    f" ({which.check!r}) reads or binds, and that check was stopped ({which.status}) before it finished: what it would"
                    " have bound or changed is missing, so this result need not be the record's own"))
            if o.status in (TIMEOUT, ERROR) and o.index in self.interrupted | self.timed_out:
                stopped_names.append((_names(self.sites.get(o.site)), o))
            final = self.finals.get(o.index)
            if final is not None and not (same_data(final[0], o.actual) and same_data(final[1], o.expected)):
                observations[i] = replace(o, final=final)
        later = _state.changed_later(observations)  # the later call that returned the same object again; then notes said once
        observations = said_once([replace(o, state=o.state + ((later[o.index],) if o.index in later else ())) for o in observations])
        if self.problem is not None and fixtures.static_count is not None:
            # The fixture code stopped: still list every check it never reached.
            last = max((o.site for o in observations), default=-1)
            error = ErrorInfo("NotRun", f"this check did not run because the run stopped: {self.problem}")
            expected = not_computed("this check did not run")
            for site in fixtures.sites[last + 1 :]:
                observations.append(Observation(len(observations), site.label, ERROR, False, None, expected, site=site.site, lineno=site.lineno, error=error))
        return tuple(observations)


@functools.lru_cache(maxsize=1024)
def _names(site: CheckSite | None) -> frozenset[str]:
    """The names a check's actual and expected read or bind (not solve, N or builtins): what it shares with later checks."""
    if site is None:
        return frozenset()
    found = set()
    for source in (site.actual_source, site.expected_source):
        try:
            found |= {n.id for n in ast.walk(ast.parse(source, mode="eval")) if isinstance(n, ast.Name)}
        except SyntaxError:
            continue
    return frozenset(found - {"solve", "N"} - set(dir(builtins)))


def _require(condition: bool) -> None:
    if not condition:
        raise ValueError("unexpected message")


def _error(data: dict) -> ErrorInfo:
    _require(type(data) is dict and all(type(data.get(k)) is str for k in ("type", "message", "traceback")))
    return ErrorInfo(data["type"], data["message"], data["traceback"])


def _observation(data: dict, current) -> Observation:
    _require(type(data) is dict and current is not None and data.get("index") == current[0] and data.get("status") in _SENT_STATUSES)
    _require(all(isinstance(data.get(k), kind) for k, kind in _RESULT_FIELDS.items()))
    error = None if data["error"] is None else _error(data["error"])
    fields = {k: data[k] for k in _RESULT_FIELDS if k != "error"}
    returned = data.get("returned", [])  # what solve returned, beside a compared expression (optional: shown, never judged)
    _require(type(returned) is list and all(type(pair) is list and len(pair) == 2 and type(pair[0]) is int for pair in returned))
    (actual, actual_plain), (expected, expected_plain) = received(data.get("actual")), received(data.get("expected"))
    _require(data.get("judged_in_solve_process", False) in (True, False))
    fields["judged_in_solve_process"] = there = data.get("judged_in_solve_process", False) is True
    note = None
    if data["status"] in (PASS, FAIL):
        note = _verdict_note(data["passed"], actual, expected) if actual_plain and expected_plain else _own_eq_note(actual, expected)
        if there and data["passed"]:  # solve's process said pass: there it can forge any value, plain or not (wrap the sink)
            note = f"{UNCONFIRMED}: {_judge.JUDGED_THERE}"
        if note is not None and note.startswith(UNCONFIRMED):  # never counted as a pass (nor as a fail): a status of its own
            fields.update(status=NOT_CONFIRMED, passed=False)
    calls, calls_omitted = received_calls(data)
    state = data.get("state", [])  # what carried over between calls, reads, previews (`_state`): optional
    _require(type(state) is list and len(state) <= 20)
    return Observation(**fields, actual=actual, expected=expected, error=error, verdict_note=note, calls=calls, calls_omitted=calls_omitted,
                       returned=tuple((entered, received(value)[0]) for entered, value in returned), state=tuple(map(_state.from_plain, state)))


CANNOT_SEND_WAY = ("To go on, define what it names inside solve, or in a .py file next to the notebook that the cell imports "
                   "(a module travels by name)")
"""What to do when solve cannot be sent, said after the error that names the cause."""


def _verdict_note(passed: bool, actual, expected) -> str | None:
    """None if the builtins' ``==`` on the plain values received gives the verdict the worker reported.

    The records' harness is ``passed = actual == expected``; code that runs in the
    worker can patch it, or send a result frame of its own. This recomputes it here,
    on plain data only, where ``==`` runs no one's code.
    """
    try:
        agrees = bool(actual == expected) == passed
    except RecursionError:
        agrees = False
    if agrees:
        return None
    said, equal = ("pass", "not equal") if passed else ("fail", "equal")
    return (f"{UNCONFIRMED}: the check process reported {said}, but the values it sent back are {equal}"
            " (did solve change the harness or the results?)")


def _own_eq_note(actual, expected) -> str | None:
    """The label of a verdict given by a class's own ``__eq__``: what is shown is that object's repr."""
    classes = [o.type_name for o in _opaques(actual) + _opaques(expected) if o.reason == "not a plain value" and not o.plain_eq]
    if not classes:
        return None
    return (f"compared by {classes[0]}'s own == (__eq__), so the verdict is that class's, and what is shown is"
            " its repr, which is not necessarily the value itself")


def _opaques(value, limit: int = 10_000) -> list[Opaque]:
    """The stand-ins in a received value (the first ones, in order)."""
    found, pending, seen = [], [value], 0
    while seen < min(len(pending), limit):
        item, seen = pending[seen], seen + 1
        if type(item) is Opaque:
            found.append(item)
        elif type(item) is dict:
            pending += list(item.keys()) + list(item.values())
        elif type(item) in (list, tuple, set, frozenset):
            pending += list(item)
    return found


# ------------------------------------------------------------------------- process


def _supervise(plan: Plan, collector: _Collector, sandbox: bool = False) -> None:
    """Run the plan in worker processes until every check is reported; then line up the next worker.

    With `sandbox`, each worker runs in a bubblewrap sandbox of its own (`_sandbox.SandboxPool`).
    """
    from . import _warm  # here, not at the top: platforms without fork never import multiprocessing
    from ._worker import Start

    if sandbox:  # only then: a one-shot command's every import counts (`_oneshot`)
        from ._sandbox import sandbox_pool
    pool, not_run, unsent = sandbox_pool(plan) if sandbox else _warm.pool(), None, 0
    split = sandbox and plan.solve is not None and _judge.SPLIT  # judged apart from solve (`_judge`)
    try:
        payload, modules = _byvalue.dumps(plan)
        if split:
            payload = _byvalue.dumps(_judge.judged(plan))[0]
    except _byvalue.Unshippable as exc:
        not_run = f"this check did not run: solve cannot be sent to the worker process that runs the checks ({exc})"
        collector.problem = ErrorInfo("CannotSend", f"solve cannot be sent to the worker process that runs the checks: {exc}. {CANNOT_SEND_WAY}")
        payload, modules = _byvalue.dumps(replace(plan, solve=None))  # still list the checks, without solve
        split = False
    sent_plan, interrupted = plan if not_run is None else replace(plan, solve=None), frozenset()
    first = True
    while True:
        worker, first = (pool.take(first) if not sandbox else pool.take()), False
        if collector.interrupted != interrupted:  # the fresh worker runs the earlier checks again, except these
            interrupted = frozenset(collector.interrupted)
            again = replace(sent_plan, interrupted=interrupted)
            payload = _byvalue.dumps(_judge.judged(again) if split else again)[0]
        try:
            if not worker.send(collector.next_ordinal, not_run or collector.not_run(), payload, time.monotonic() + SETUP_TIMEOUT):
                unsent += 1  # a standby that died before it could start (killed from outside, say)
                if unsent < 3:
                    pool.stop(worker)
                    continue
            _drain(worker, plan, collector, pool)
        except BaseException:
            pool.stop(worker)  # an interrupt (the kernel's Stop button): the worker goes at once
            raise
        if collector.done:
            break
        pool.stop(worker)
    collector.notes += getattr(pool, "pop_notes", tuple)()  # a stopped server replaced, say
    rehearsal = replace(plan, solve=None, extra_globals=None)  # the record's code only: nothing of the learner's
    pool.finish(worker, Start(tuple(sorted(m for m in modules if _byvalue.installed(m))), plan.path, plan.cwd, rehearsal))


def _drain(worker, plan: Plan, collector: _Collector, pool) -> None:
    """Read one worker's messages until it finishes, overruns a limit, dies, sends garbage, or starts
    more than `_worker.MAX_PROCESSES` processes (counted every `CROWD_EVERY` while nothing arrives).

    Deadlines run from the worker's own timestamps: a check's limit starts when
    the check began, not when the supervisor happened to read about it.
    """
    from ._warm import WorkerDied
    from ._worker import MAX_PROCESSES

    setup_limit = max(SETUP_TIMEOUT, plan.timeout)
    last_event = started = last_beat = time.monotonic()
    limit = collector.limit()
    while True:
        if collector.current is not None:
            deadline = started + limit
        else:  # a solution file's import has the check limit; the record's own code outside the checks, the setup limit
            deadline = last_event + (plan.timeout if collector.loading else setup_limit)
        try:
            messages = worker.messages(min(deadline, time.monotonic() + CROWD_EVERY))
            for i, (stamp, message) in enumerate(messages):
                collector.accept(message)
                if collector.done:
                    worker.unread = messages[i + 1 :]  # the next run's, if several share the worker
                    return
                stamp = min(stamp, time.monotonic())  # never a deadline later than the worker could mean
                if message[0] == "begin":
                    started, limit = stamp, collector.limit()
                elif message[0] == "judged":  # from here on the worker converts values to plain data: bounded by size, not the check's limit
                    started, limit = stamp, CONVERSION_LIMIT
                last_event = stamp
        except (WorkerDied, Undecodable, ValueError, TypeError, KeyError, IndexError) as exc:
            what = _describe_exit(worker.exitcode, worker.exit_note) if isinstance(exc, WorkerDied) else (
                "sent bytes that are not a message of ours (does solve write to a file it did not open?), so it was stopped")
            if collector.current is None:
                collector.problem, collector.done = ErrorInfo("WorkerDied", f"the check process ended outside any check: {what}"), True
            else:
                error = ErrorInfo("ProcessDied", f"the process running solve ended abruptly: {what}")
                collector.interrupt(ERROR, error, (time.monotonic() - started) * 1000)
            return
        finally:
            collector.report()
        if messages or time.monotonic() < deadline:
            if not messages and pool.crowded(MAX_PROCESSES):
                what = f"solve started more than {MAX_PROCESSES} processes (a loop that forks or starts processes?), so it was stopped"
                if collector.current is None:
                    collector.problem, collector.done = ErrorInfo("TooManyProcesses", f"the fixture code outside the checks: {what}"), True
                else:
                    collector.interrupt(ERROR, ErrorInfo("TooManyProcesses", what), (time.monotonic() - started) * 1000)
                return
            now = time.monotonic()
            if not messages and collector.heartbeat is not None and collector.current is not None and now - last_beat >= HEARTBEAT:
                last_beat = now
                collector.heartbeat()  # the caller's code: outside our error handling
            continue
        if collector.current is None:
            if collector.loading:
                collector.problem = ErrorInfo("Timeout", import_timeout_message(plan.solve.path, plan.timeout))
            elif not collector.restarts and getattr(pool, "stalled", lambda w, s: False)(worker, setup_limit):
                collector.restarts += 1  # the server's fault, not the record's: replaced, and the run goes on with a new worker
                return
            else:
                collector.problem = ErrorInfo("Timeout", f"the fixture code outside the checks took longer than {setup_limit:g} s")
            collector.done = True
        elif collector.judged:
            message = f"converting this check's values to plain data took longer than {CONVERSION_LIMIT:g} s, so it was stopped"
            collector.interrupt(TIMEOUT, ErrorInfo("Timeout", message), (time.monotonic() - started) * 1000)
        else:
            collector.interrupt(TIMEOUT, collector.timeout_error(limit), (time.monotonic() - started) * 1000)
        return


_SIGNAL_HINTS = {
    "SIGSEGV": "a crash, often from recursion deeper than the C stack",
    "SIGKILL": "killed, usually for using too much memory",
    "SIGXCPU": "it used too much CPU time",
    "SIGABRT": "it aborted",
}


def _describe_exit(exitcode: int | None, note: str | None = None) -> str:
    """How a worker ended, for a run's message; `note` (the worker's `exit_note`) says it never started, and so blames no one's solve."""
    if note is not None:
        return note
    if exitcode is None:
        return "its exit status is unknown"
    if exitcode >= 0:
        return f"it exited with code {exitcode} (does solve call os._exit({exitcode})?)"
    try:
        name = signal.Signals(-exitcode).name
    except ValueError:
        name = f"signal {-exitcode}"
    return f"it was ended by {name}" + (f" ({_SIGNAL_HINTS[name]})" if name in _SIGNAL_HINTS else "")


# ---------------------------------------------------------------------- in-process


def _run_in_process(plan: Plan, collector: _Collector, guarded: bool = True) -> None:
    capture = OutputCapture(plan.output_chars)
    failed: list[BaseException] = []

    def sink(message: tuple) -> None:
        collector.accept(message)
        session.not_run = collector.not_run()
        try:
            collector.report()
        except BaseException as exc:  # noqa: BLE001 - the caller's progress callback: re-raised below
            failed.append(exc)
            raise

    session = Session(sink, plan, capture, guard=functools.partial(_trace_deadline, collector) if guarded else None)
    saved = sys.stdout, sys.stderr
    capture.install()
    try:
        session.run(plan.solve)
    finally:
        sys.stdout, sys.stderr = saved
    if failed:
        raise failed[0]


@contextlib.contextmanager
def _trace_deadline(collector: _Collector, began: float | None = None):
    """A time limit for pure-Python code, enforced by a trace function, counted from `began` (else from now).

    A check's actual, its expected (which may call solve too) and its verdict
    share one limit, counted from the check's start, as in a worker process.

    Under CPython 3.11 a code object that jumps back within one line (``while True: pass``,
    a one-line comprehension) gets opcode events too, since 3.11 sends no line event per pass.

    The clock is read once per `_MAX_STRIDE` events while events come fast, so a loop
    stops at most that many events past its limit.

    Known limits of this fallback: CPython removes a trace function that raises,
    so a bare ``except:`` that swallows the first CheckTimeout inside a loop keeps
    the loop running; and C calls (``time.sleep``) are not interrupted. The
    process mode has neither limit.
    """
    limit = collector.limit()
    start = time.monotonic() if began is None else began
    deadline, clock, package = start + limit, time.monotonic, os.path.dirname(os.path.abspath(__file__))
    ours = os.path.dirname(package) + os.sep

    countdown, stride, last = 1, 1, start

    def tracer(frame, event, arg):
        nonlocal countdown, stride, last
        code = frame.f_code
        if event == "call" and (code.co_filename.startswith(ours) or code.co_filename == _COPY_FILE):
            return None  # our own bookkeeping (snapshots, reprs) is bounded: its lines are not traced
        if event == "call" and _NO_LINE_EVENT_PER_PASS and _loops_on_one_line(code):
            frame.f_trace_opcodes = True  # CPython 3.11 sends no line event per pass of `while True: pass`: opcode events do
        countdown -= 1
        if countdown > 0:
            return tracer
        now = clock()
        if now > deadline:
            if not code.co_filename.startswith(package):
                raise CheckTimeout(collector.timeout_error(limit).message)
            countdown = 1
            return tracer
        stride = min(stride * 2, _MAX_STRIDE) if now - last < _FAST_EVENTS else 1
        countdown, last = stride, now
        return tracer

    previous = sys.gettrace()
    sys.settrace(tracer)
    try:
        yield
    finally:
        sys.settrace(previous)


_COPY_FILE = copy.__file__
_MAX_STRIDE = 16
_FAST_EVENTS = 0.001
"""The clock is read at least every `_MAX_STRIDE` trace events, and at every event once events come 1 ms apart or more:
reading it costs more than the trace call itself under Pyodide, so a loop of fast events reads it once per 16."""

_NO_LINE_EVENT_PER_PASS = sys.version_info < (3, 12)
"""CPython 3.11 sends no line event per pass of a loop that jumps back within one line; 3.12 and later do, so opcode
events (costly: one trace call per instruction) are asked for only before 3.12."""

_BACKWARD_JUMPS = frozenset({"JUMP_BACKWARD", "JUMP_BACKWARD_NO_INTERRUPT", "JUMP_ABSOLUTE", "POP_JUMP_BACKWARD_IF_TRUE",
                             "POP_JUMP_BACKWARD_IF_FALSE", "POP_JUMP_BACKWARD_IF_NONE", "POP_JUMP_BACKWARD_IF_NOT_NONE"})


@functools.lru_cache(maxsize=4096)
def _loops_on_one_line(code) -> bool:
    """Whether `code` jumps back to an instruction of the same line: a loop that may send no line event per pass."""
    import dis

    lines, line = {}, None
    instructions = list(dis.get_instructions(code))
    for ins in instructions:
        positions = getattr(ins, "positions", None)
        line = positions.lineno if positions is not None and positions.lineno is not None else (ins.starts_line or line)
        lines[ins.offset] = line
    return any(ins.opname in _BACKWARD_JUMPS and isinstance(ins.argval, int) and ins.argval <= ins.offset
               and lines.get(ins.argval) == lines[ins.offset] for ins in instructions)
