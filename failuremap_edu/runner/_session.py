"""One check session: a fixture program run one check at a time, reported as plain data.

A `Session` executes a fixture program (see `_fixtures`) and turns each
``__fm_check__`` call into messages for its sink, sent the moment they are
known, so that a supervisor that kills a stuck worker still knows everything:
``begin`` (the label, and the expected value when it may be computed ahead),
``call`` (each call of solve, as it is entered), ``judged`` (the verdict is known:
the check's time limit covers solve and the check's expressions up to here, not
the conversion of its values that follows) and ``result``. Values leave as
plain Python data only (`portable`): the caller never unpickles a class it
cannot trust. The same Session runs in a worker process (the supervisor kills
it at a limit) and, as the fallback, in the caller (a trace function stops it).

The expected value of a check that never finished. The harness evaluates
``check(label, actual, expected)`` in that order, and the expected may depend
on the actual (``check('a', (res := solve(x)), res)``) or have side effects, so
the verdict always uses the expected evaluated after the actual. Ahead of the
actual, only to be shown should the check time out or its process die, the
expected is computed where that cannot differ from the harness's value: in a
learner's run (that solve lives in its own namespace; not in a replay, where
the record's solve shares the script's variables; it is the value before the
call, should solve change its argument), for a check that binds no name the
expected reads with ``:=`` (`Plan.independent`), and when every name the
expected reads holds plain data or is a pure builtin such as ``len`` (checked
just before). After a solve that raised, the expected is evaluated in order,
unless it reads such a ``:=`` name. Otherwise it is shown as not computed,
with the reason: never as ``None``.
"""

from __future__ import annotations

import builtins
import copy
import linecache
import os
import sys
import time
import types
from dataclasses import dataclass
from typing import Any, Callable

from . import _state
from .._results import ERROR, FAIL, PASS, TIMEOUT
from .._solution import Solution
from ._calls import CallLog
from ._capture import OutputCapture
from ._previews import previews, repeats
from ._carried import Baseline
from .._values import Opaque, error_payload, not_computed, portable, render_call, safe_repr, same_data

DEFAULT_TIMEOUT = 2.0
DEFAULT_MEMORY_MB = 2048
DEFAULT_OUTPUT_CHARS = 8_000
MAX_CHECKS = 10_000
"""A run stops with a problem after this many checks (a fixture loop gone wrong)."""
_CALL_LIMIT = 500
_RETURNS_KEPT = 4
"""At most this many return values of solve are reported per check (they are shown, never judged)."""
_PURE_BUILTINS = frozenset(
    "abs all any bool chr dict divmod enumerate float frozenset int len list max min ord range repr reversed round set sorted str sum tuple zip".split()
)
_PLAIN = (type(None), bool, int, float, complex, str, bytes, tuple, list, dict, set, frozenset, range)


@dataclass(frozen=True)
class Plan:
    """One run, as a worker needs it: the program, the solve, the limits, and the caller's setting."""

    code: Any
    """A code object, or a tuple of them run in turn in one namespace."""
    variant: int
    solve: Any
    """A function, a `Solution`, or None for a replay."""
    timeout: float
    memory_mb: int
    output_chars: int
    param_names: tuple[str, ...]
    extra_globals: dict | None = None
    independent: frozenset[int] = frozenset()
    """Check sites whose expected reads no name the same check call binds with ``:=``."""
    expected_ahead: bool = False
    """Whether an expected may be computed before the actual (learner runs; not replays)."""
    returns: frozenset[int] = frozenset()
    """Check sites that compare an expression of solve's result, not the result itself: what solve
    returned is reported too (``solve(x)[0]`` fails; the learner needs to see all of ``solve(x)``)."""
    cwd: str | None = None
    path: tuple[str, ...] = ()
    recursion_limit: int = 1000
    sources: tuple[tuple[str, str], ...] = ()
    """(filename, source) of the record's script, for tracebacks where the caller's linecache is not."""
    reraise: frozenset[int] = frozenset()
    """Check sites inside a ``try`` with ``except`` clauses: what their arguments raise is reported, then raised
    on into the fixture code, where the harness's exception would have gone."""
    interrupted: frozenset[int] = frozenset()
    """Checks (by ordinal) that an earlier worker reported as stopped (a timeout, a death): a fresh worker that
    runs the earlier checks again, unreported, to reach their state, cannot run these."""


def import_timeout_message(path: str, limit: float) -> str:
    """What happened when a solution file's own code (outside solve) outran the time limit."""
    return f"importing the solution file {path} took longer than {limit:g} s, the time limit: does its code outside solve loop?"


class CheckTimeout(BaseException):
    """Raised inside a check (in-process mode only) when it overruns its time limit."""


class TooManyChecks(Exception):
    """The fixture code ran more than MAX_CHECKS checks."""


class _LoadFailed(Exception):
    """A solution file could not be loaded; its argument is the error as plain data."""


class _NotRun(BaseException):
    """Raised at the entry of solve in a check that is only listed (see `Session.not_run`)."""


class Session:
    """Runs one fixture program and reports each check to `sink` as plain data.

    Checks before `skip` were reported by an earlier worker: they run again, with
    the same solve and the harness's own check(), unreported, so that what they
    bound or changed is there for the later ones, as in the harness's one run;
    except the `Plan.interrupted` ones, which cannot finish, and whose absence is
    named on the errors of later checks. When `not_run` holds a reason, checks are
    only listed: label, call and expected, with solve stopped at its entry. Each
    reported check's actual and expected stay referenced until the end: one that
    changed after its check (a list solve returns again and again) is sent again,
    as ``final``, in its state at the end, which is what the harness prints.
    """

    def __init__(self, sink: Callable[[tuple], None], plan: Plan, capture: OutputCapture, *, skip: int = 0, guard: Callable[[], Any] | None = None) -> None:
        self.sink, self.plan, self.capture, self.skip, self.guard = sink, plan, capture, skip, guard
        self.not_run: str | None = None
        self.ordinal = 0
        self.globals: dict[str, Any] = {}
        self._current: int | None = None
        self._calls: list[str] = []
        self._call_chars = 0
        """The length of `_calls`' texts together: calls are reported while it is under the limit."""
        self._log = CallLog()
        """Every call of solve in the check under way, with its outcome (`_calls`)."""
        self._returns: list[list] = []
        self._keep_returns = False
        self._mutation: str | None = None
        self._depth = 0
        self._raised: BaseException | None = None
        self._lost: list[int] = []
        """Checks (ordinals) an earlier worker stopped, which this one could not run again."""
        self._baseline: Baseline | None = None
        """solve's defaults and globals at its first call: a later call that begins from other values is said to."""
        self._state = _state.Tracker()  # what carries over between calls, what solve read, generators to preview
        self._kept: dict[int, tuple] = {}
        """ordinal -> (actual, expected, what was sent for them): the objects, to send again if they changed."""
        """Calls of solve under way: a recursive solve's inner calls are not the check's (they showed as calls of their own,
        and filled the second call of `solve(x)['r'] > solve(x)['p']` with an inner one's arguments)."""

    def run(self, solve: Callable | None) -> None:
        """Execute the program (a code object, or several in turn); report ``done`` or a ``problem``."""
        g = self.globals
        g.update({"__name__": "__failuremap__", "__builtins__": builtins, "N": self.plan.variant, "__fm_variant__": self.plan.variant})
        g.update({"__fm_check__": self.check, "__fm_wrap__": self.wrap, "__fm_adopt__": lambda: self._adopt(solve)})
        g.update(self.plan.extra_globals or {})
        for filename, source in self.plan.sources:  # tracebacks from record code quote its lines (in a worker too)
            linecache.cache[filename] = (len(source), None, source.splitlines(keepends=True), filename)
        code = self.plan.code
        try:
            if isinstance(solve, Solution):
                solve = self._load(solve)
            if solve is not None or self.not_run is not None:  # only listing: a solve that is never called
                g["solve"] = self.wrap(solve)
            for part in code if isinstance(code, tuple) else (code,):
                exec(part, g)
        except _LoadFailed as exc:
            self.sink(("problem", exc.args[0]))
            return
        except TooManyChecks:
            self.sink(("problem", {"type": "TooManyChecks", "message": f"the fixtures ran more than {MAX_CHECKS:,} checks", "traceback": ""}))
            return
        except BaseException as exc:  # noqa: BLE001 - the fixture code itself failed
            self._send_final()
            self.sink(("problem", error_payload(exc)))
            return
        self._send_final()
        self.sink(("done", self.ordinal))

    def _send_final(self) -> None:
        """Values that changed after their check, in their state now: the harness prints them so, at its end."""
        for ordinal, (actual, expected, sent) in self._kept.items():
            try:
                now = (portable(actual), portable(expected))
                if not same_data(now, sent):
                    self.sink(("final", ordinal, now[0], now[1]))
            except Exception:  # noqa: BLE001 - a value that cannot be converted any more: the check-time one stands
                continue
        self._kept = {}

    def _adopt(self, solve: Any) -> None:
        """The learner's solve stands where the script's did, as if pasted in: so do the classes it brought along.

        A class the preamble defines (a dataclass `Span`) is copied into the learner's cell with the preamble, so
        their solve returns their Span while the checks build the script's: never equal. Pasted into the script,
        their definition would replace the preamble's at this point. Only classes, and only names the preamble
        already bound to a class: a helper function is not replaced (expected values may be computed with it).
        """
        if isinstance(solve, Solution):
            return
        theirs = getattr(getattr(solve, "__wrapped__", solve), "__globals__", None)
        if not isinstance(theirs, dict):
            return
        g = self.globals
        for name, value in list(theirs.items()):
            if isinstance(value, type) and isinstance(g.get(name), type) and g[name] is not value and value.__name__ == g[name].__name__:
                g[name] = value

    def _load(self, solution: Solution) -> Callable:
        """A learner's solution file, executed here, in the process that runs the checks.

        Its import runs under the check time limit: ``load`` and ``loaded`` tell the
        supervisor when it starts and ends (in-process, the trace limit stops it).
        The file's own folder comes first on sys.path, as under ``python sol.py``, so it
        imports a module beside it however the caller was started (a worker resets sys.path each run).
        """
        namespace: dict[str, Any] = {"__name__": "solution", "__file__": solution.path, "__builtins__": builtins}
        if os.path.isfile(solution.path):
            folder = os.path.dirname(os.path.abspath(solution.path))
            if sys.path[:1] != [folder]:
                sys.path.insert(0, folder)
        self.sink(("load",))
        try:
            code = compile(solution.source, solution.path, "exec", dont_inherit=True)  # as `python` runs it, not under our __future__
            self._guarded(lambda: exec(code, namespace))
        except CheckTimeout:
            raise _LoadFailed({"type": "Timeout", "message": import_timeout_message(solution.path, self.plan.timeout), "traceback": ""}) from None
        except BaseException as exc:  # noqa: BLE001
            error = error_payload(exc)
            error["message"] = f"{solution.path} failed while loading: {error['message']}"
            raise _LoadFailed(error) from None
        if not callable(namespace.get("solve")):
            raise _LoadFailed({"type": "SolutionError", "message": f"{solution.path}: solve is not a function", "traceback": ""})
        self.sink(("loaded",))
        return namespace["solve"]

    def wrap(self, solve: Callable) -> Callable:
        """Report every call as it starts, and notice mutation against a snapshot taken before it.

        solve gets the fixture's own arguments, as the record's harness passes them:
        an in-place contract (solve sorts its list, the check reads the list) is
        judged as the harness judges it, for the record's solve and the learner's.
        """
        session = self

        def solve_called_by_the_fixture(*args, **kwargs):  # the name is SOLVE_FRAME
            if session._depth:  # solve calling itself (the record's recursion goes through this name): not a call of the check
                return solve(*args, **kwargs)
            with _Untraced(session.guard):  # our bookkeeping: not traced by the in-process deadline (which made it 10x slower)
                call = render_call(args, kwargs)
                if session._current is not None and session._call_chars < _CALL_LIMIT:
                    session.sink(("call", session._current, call))
                entered = len(session._calls)
                session._calls.append(call)
                session._call_chars += len(call)
                if session.not_run is not None:
                    raise _NotRun
                if session._baseline is None:
                    session._baseline = Baseline(solve)
                elif session._current is not None:
                    pending = {c.get("where") for c in session._state.pending if c.get("kind") == "carried"}
                    session._state.add([_state.to_plain(c) for c in session._baseline.changed(call) if c.where not in pending])
                try:
                    before = copy.deepcopy((args, kwargs))
                except Exception:  # noqa: BLE001 - uncopyable input: no snapshot, no note
                    before = None
            session._depth += 1
            started = time.perf_counter()
            try:
                result = solve(*args, **kwargs)
            except BaseException as exc:
                with _Untraced(session.guard):
                    session._log.raised(call, exc, time.perf_counter() - started)
                raise
            finally:
                session._depth -= 1
            with _Untraced(session.guard):
                session._after_call(solve, call, entered, before, args, kwargs, result, time.perf_counter() - started)
            return result

        solve_called_by_the_fixture.__wrapped__ = solve  # type: ignore[attr-defined]
        return solve_called_by_the_fixture

    def _after_call(self, solve: Callable, call: str, entered: int, before: tuple | None, args: tuple, kwargs: dict, result: Any,
                    seconds: float) -> None:
        """What a call of solve leaves to note: its outcome, a result shared with an earlier call, a change to its arguments."""
        self._log.returned(call, result, seconds)
        if self._keep_returns and len(self._returns) < _RETURNS_KEPT:
            self._returns.append([entered, result])  # converted once the check is judged, outside its time limit
        self._state.returned(result, call, solve, before if seconds < _state.REPEAT_SECONDS else None)  # a slow call is not repeated
        if before is not None:
            self._mutation = self._mutation or _state.describe_change(*before, args, kwargs, self.plan.param_names)
            self._state.watch(*before, args, kwargs, self.plan.param_names)
            if _state.is_lazy(result) and len(self._state.lazy) < 2:
                self._state.lazy.append((call, solve, *before))

    def check(self, site: int, label_thunk, actual_thunk, expected_thunk) -> None:
        ordinal = self.ordinal
        self.ordinal += 1
        if ordinal >= MAX_CHECKS:
            raise TooManyChecks
        if ordinal < self.skip:  # an earlier worker already reported this check
            if ordinal in self.plan.interrupted:
                self._lost.append(ordinal)
            else:
                self._again(site, ordinal, label_thunk, actual_thunk, expected_thunk)
            return
        label = label_thunk()
        label_text = label if type(label) is str else safe_repr(label)
        independent = site in self.plan.independent
        self.sink(("begin", ordinal, site, label_text, self._expected_ahead(expected_thunk, independent)))
        self._current, self._calls, self._call_chars, self._mutation, self._log = ordinal, [], 0, None, CallLog()
        self._state.begin(label_text)
        self._returns, self._keep_returns = [], site in self.plan.returns
        self.capture.take()
        status, error, actual, passed, raised = FAIL, None, None, False, None
        started, began = time.perf_counter(), time.monotonic()
        try:
            actual = self._guarded(actual_thunk, began)
        except _NotRun:
            status, error = ERROR, {"type": "NotRun", "message": self.not_run, "traceback": ""}
        except CheckTimeout as exc:
            status, error = TIMEOUT, {"type": "Timeout", "message": str(exc), "traceback": ""}
        except BaseException as exc:  # noqa: BLE001 - includes SystemExit
            status, error, raised = ERROR, error_payload(exc), exc
        if status == FAIL:
            expected, expected_error = self._expected(expected_thunk, began)  # the check's own limit covers it (it may call solve)
            if expected_error is not None:
                status, error, raised = (TIMEOUT if expected_error["type"] == "Timeout" else ERROR), expected_error, self._raised
            else:
                try:
                    passed = self._guarded(lambda: self._verdict(label, actual, expected), began)
                    status = PASS if passed else FAIL
                except CheckTimeout as exc:
                    status, error = TIMEOUT, {"type": "Timeout", "message": str(exc), "traceback": ""}
                except BaseException as exc:  # noqa: BLE001 - a hostile __eq__
                    status, error, raised = ERROR, error_payload(exc), exc
                    error["message"] = "comparing the result with the expected value raised: " + error["message"]
        elif independent:
            expected, expected_error = self._expected(expected_thunk)
            if expected_error is not None:
                expected = not_computed(expected_error["message"])
        else:
            expected = not_computed("this check's expected value reads what its call to solve returned (:=), and that call did not finish")
        if status == TIMEOUT:  # in-process: stopped, as a killed worker's check is
            self._lost.append(ordinal)
        elif status == ERROR and self._lost and error["type"] in ("NameError", "UnboundLocalError"):
            lost = ", ".join(str(n + 1) for n in self._lost)
            which = f"check {lost} was" if len(self._lost) == 1 else f"checks {lost} were"
            error["message"] += (f" ({which} stopped before finishing and could not run again in this fresh process, "
                                 "so what it would have bound or changed is missing here: this is not a verdict on solve)")
        elapsed_ms = (time.perf_counter() - started) * 1000
        self.sink(("judged", ordinal))  # the check's limit ends here: converting its values to plain data is ours
        self._current = None
        output, dropped = self.capture.take()
        self._depth += 1  # the fresh calls of generator previews are not the check's calls, nor is their output its output
        state = self._state.take() + previews(self._state.lazy, self.plan.timeout, self.guard, self.plan.param_names) + repeats(self._state.again, self.plan.timeout)
        self._depth, _ = self._depth - 1, self.capture.take()
        result = dict(index=ordinal, site=site, check=label_text, status=status, passed=passed, error=error, mutation=self._mutation)
        result.update(actual=portable(actual) if status in (PASS, FAIL) else None, expected=expected if type(expected) is Opaque else portable(expected))
        # Every call to solve returned: on an error too, which then came from the check's expression of the result
        # (`solve(x).hex()` on a list): what solve returned is what the learner needs to see.
        returned = self._returns if status in (PASS, FAIL, ERROR) and self._calls and len(self._returns) == min(len(self._calls), _RETURNS_KEPT) else []
        returned = [[entered, portable(value)] for entered, value in returned]
        result.update(call="; ".join(self._calls)[:_CALL_LIMIT], returned=returned, stdout=output, stdout_dropped=dropped, elapsed_ms=elapsed_ms,
                      state=state)
        result["calls"], result["calls_omitted"] = self._log.payload(raised)
        self.sink(("result", result))
        if status in (PASS, FAIL):
            self._keep(ordinal, actual, expected, (result["actual"], result["expected"]))
        if raised is not None and site in self.plan.reraise:
            raise raised  # into the fixture code's own try/except, as under the harness

    def _keep(self, ordinal: int, actual: Any, expected: Any, sent: tuple) -> None:
        if not (isinstance(actual, _IMMUTABLE) and isinstance(expected, _IMMUTABLE)):
            self._kept[ordinal] = (actual, expected, sent)

    def _again(self, site: int, ordinal: int, label_thunk, actual_thunk, expected_thunk) -> None:
        """An earlier worker's check, run again unreported: its bindings, its changes and the harness's own record of it."""
        self.sink(("again", ordinal))  # each gets the setup limit of its own, counted by the supervisor
        try:
            label = label_thunk()
            actual, expected = actual_thunk(), expected_thunk()
            self._verdict(label, actual, expected)
        except _NotRun:  # the remaining checks are only listed: solve is not called again
            self._lost.append(ordinal)
            return
        except BaseException:  # noqa: BLE001 - reported already, by the earlier worker
            if site in self.plan.reraise:
                raise
            return
        self._keep(ordinal, actual, expected, _UNSENT)  # what the earlier worker sent is not known here: the caller compares

    def _guarded(self, thunk, began: float | None = None):
        """`thunk` under the in-process time limit, if any: counted from `began` (the check's start), else from now."""
        if self.guard is None:
            return thunk()
        with self.guard(began):
            return thunk()

    def _expected_ahead(self, thunk, independent: bool) -> Any:
        """The expected, computed before the actual where that is safe (module docstring); else why not."""
        if not (self.plan.expected_ahead and independent and _reads_plain_data(thunk, self.globals)):
            return not_computed("this check did not finish, and its expected value can only be computed after solve returns")
        try:
            return portable(self._guarded(thunk))
        except BaseException as exc:  # noqa: BLE001 - the record's own code; its check will say more
            return not_computed(f"computing it raised {type(exc).__name__}")

    def _expected(self, expected_thunk, began: float | None = None) -> tuple[Any, dict | None]:
        """The expected value, or the error computing it raised (kept in `_raised`); under the time limit (it may call solve)."""
        try:
            return self._guarded(expected_thunk, began), None
        except CheckTimeout as exc:
            return None, {"type": "Timeout", "message": f"computing the expected value ran out of time: {exc}", "traceback": ""}
        except BaseException as exc:  # noqa: BLE001 - record code; report, don't die
            self._raised = exc
            error = error_payload(exc)
            error["message"] = "the record's expected value could not be computed: " + error["message"]
            return None, error

    def _verdict(self, label: Any, actual: Any, expected: Any) -> bool:
        """The record's own harness decides: call its check() and read what it appended."""
        g = self.globals
        harness = g.get("check")
        observations = g.get("observations")
        before = len(observations) if isinstance(observations, list) else None
        if callable(harness):
            harness(label, actual, expected)
            if before is not None and len(observations) == before + 1:
                entry = observations[-1]
                if isinstance(entry, dict) and "passed" in entry:
                    return bool(entry["passed"])
        return bool(actual == expected)


class _Untraced:
    """No trace function while the session does its own work inside a check (in-process, the deadline's is set).

    Traced, copying solve's arguments, noting a shared result and describing a change ran line by line: a 10^4-item
    argument took seconds and timed out a check the harness passes. The time still counts toward the check's limit,
    as in a worker process; what the session calls of the record's code here (a ``__deepcopy__``, an ``__eq__``) is
    not stopped in-process, as a C call is not.
    """

    __slots__ = ("active", "previous")

    def __init__(self, guard: Callable | None) -> None:
        self.active, self.previous = guard is not None, None  # no guard (a worker): a debugger's or coverage's trace stays

    def __enter__(self) -> None:
        self.previous = sys.gettrace() if self.active else None
        if self.previous is not None:
            sys.settrace(None)

    def __exit__(self, *exc) -> None:
        if self.previous is not None:
            sys.settrace(self.previous)


_IMMUTABLE = (type(None), bool, int, float, complex, str, bytes, range)
_UNSENT = object()


def _reads_plain_data(thunk: Callable, g: dict) -> bool:
    """Whether every name `thunk` reads is plain data (or a pure builtin): nothing it runs is code of anyone's."""
    for cell in thunk.__closure__ or ():
        try:
            if type(cell.cell_contents) not in _PLAIN:
                return False
        except ValueError:  # an empty cell: not bound yet
            return False
    pending = [thunk.__code__]
    while pending:
        code = pending.pop()
        pending += [c for c in code.co_consts if isinstance(c, types.CodeType)]
        for name in code.co_names:  # globals, and attribute names, which only pure builtins' names pass
            if (type(g[name]) not in _PLAIN) if name in g else (name not in _PURE_BUILTINS):
                return False
    return True
