"""A worker's messages, checked and turned into Observations, in the caller (`Collector`).

Every message is validated against what a `_session.Session` sends, in order;
anything else is refused (ValueError or TypeError), and the supervisor then
stops the worker. The verdicts are checked again here on plain data
(`_verdict_note`), where ``==`` runs no one's code.
"""

from __future__ import annotations

import ast
import builtins
import functools
from dataclasses import replace
from typing import Callable

from . import _judge, _state
from ._calls import received_calls
from ._said import said_once
from .._fixtures import CheckSite, FixtureScript, compared_expression
from .._record_helpers import helpers_for
from .._results import ERROR, FAIL, NOT_CONFIRMED, PASS, TIMEOUT, UNCONFIRMED, ErrorInfo, Observation
from ._session import Plan
from .._values import Opaque, not_computed, same_data
from .._portable import received

__all__ = ["CANNOT_SEND_WAY", "Collector", "MAX_TIMEOUTS", "SHORT_LIMIT"]

SHORT_LIMIT = 1 / 8
"""After a timeout, each later check of the run gets this share of the limit."""
MAX_TIMEOUTS = 7
"""After this many timeouts in one run, the remaining checks are listed without calling solve."""

_SENT_STATUSES = (PASS, FAIL, ERROR, TIMEOUT)
"""What a check process may report; ``unconfirmed`` is decided here, by the caller, never by it."""
_RESULT_FIELDS = {
    "index": int, "site": int, "check": str, "status": str, "passed": bool, "call": str, "stdout": str,
    "stdout_dropped": int, "elapsed_ms": float, "mutation": (str, type(None)), "error": (dict, type(None)),
}


class Collector:
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
