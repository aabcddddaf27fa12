"""Runner: run a record's checks against a `solve`, so that nothing `solve` does can hurt the caller.

Isolation (``process``, wherever the OS can fork): the checks run in a worker
process from a clean server, never a fork of the caller (`_warm`), supervised by
`_supervise`, whose messages `_collect` checks and turns into observations; solve travels
to it by value (`_byvalue`), and it reports as it goes (`_channel`): a check
began, solve was entered with these arguments, the check ended. Each check has
its own time limit. A worker that overruns it is killed (a bare ``except:``
cannot catch SIGKILL); one that dies (``os._exit``, a segfault, the memory
limit) or sends garbage is noted; either way a fresh worker carries on with the
next check, so every check is reported, with its call and, where that is safe
(`_session`), its expected value. A solve that cannot travel (``eval``, say) is
the run's problem, and its checks are listed as not run.

A solve that loops on every check: after one check timed out, each later one
gets `_collect.SHORT_LIMIT` of the limit (its message says so and why), and after
`_collect.MAX_TIMEOUTS` timeouts the rest are only listed. With the default 2 s limit
every check is reported within 3.5 s, not 6 x 2 s; runs without a timeout are
unaffected.

Fallback (``inprocess``, where there is no ``fork``: Windows, Pyodide): the same
checks run in the calling process under a trace-function time limit (`_inprocess`). It still
survives exceptions, ``sys.exit()`` and pure-Python infinite loops, but not
``os._exit()``, a loop inside a bare ``except:``, waits in C code, runaway
memory, or processes solve starts. The result says which ran.
"""

from __future__ import annotations

import ast
import functools
import os
import sys
import time
from dataclasses import replace
from typing import Callable

from . import _byvalue, _state, _supervise
from ._carried import PLAYGROUND
from ._collect import Collector
from ._inprocess import run_in_process
from ._platform import INPROCESS, PROCESS, SANDBOX, chosen_isolation, isolation_available, usable_isolation
from ._script import ScriptRun, run_script
from .._fixtures import VARIANTS, CheckSite, FixtureScript, is_bare_call, read_fixtures
from .._records import Record, as_record
from .._results import COMPARED, ERROR, TIMEOUT, CallResult, Comparison, ErrorInfo, Observation, RunResult
from ._session import DEFAULT_MEMORY_MB, DEFAULT_OUTPUT_CHARS, DEFAULT_TIMEOUT, Plan
from .._signature import Params, mismatch
from .._solution import Solution, SolutionError, load_solution
from .._values import render_call, safe_repr

__all__ = ["DEFAULT_TIMEOUT", "Solution", "SolutionError", "compare", "isolation_available", "load_solution"]
__all__ += ["ScriptRun", "parse_call_arguments", "replay", "replay_many", "run_checks", "run_script", "try_call"]


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
    `heartbeat`, if given, is called about every `_supervise.HEARTBEAT` seconds while a
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
    if replays and usable_isolation(isolation) == PROCESS:
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
        if worker.send(0, None, _byvalue.dumps(tuple(plans))[0], time.monotonic() + _supervise.SETUP_TIMEOUT):
            for (record, name, fixtures), plan in zip(scripts, plans):
                started, collector = time.perf_counter(), Collector(plan)
                _supervise.drain(worker, plan, collector, pool)
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


_CALL_CODE = compile(f"__fm_check__(0, lambda: {PLAYGROUND!r}, lambda: solve(*__fm_args__, **__fm_kwargs__), lambda: None)", "<playground>", "exec")


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
    collector = Collector(plan)
    _execute(plan, collector, usable_isolation(isolation))
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
    mode = usable_isolation(isolation)
    started = time.perf_counter()
    collector = Collector(plan, progress, heartbeat, fixtures.sites)
    _execute(plan, collector, mode)
    isolated = mode if mode in (PROCESS, SANDBOX) else INPROCESS
    elapsed_ms = (time.perf_counter() - started) * 1000
    return RunResult(record.id, solver, variant, collector.finish(fixtures), plan.timeout, isolated, collector.problem, elapsed_ms, collector.notes)


def _execute(plan: Plan, collector: Collector, mode: str) -> None:
    if mode in (PROCESS, SANDBOX):
        _supervise.supervise(plan, collector, sandbox=mode == SANDBOX)
    else:
        run_in_process(plan, collector)
