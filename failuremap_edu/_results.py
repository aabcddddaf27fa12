"""Results of running checks: small frozen dataclasses, plain data, no HTML.

Renderers (text, HTML, plots) and widgets turn these into displays; the CLI turns
them into JSON. Nothing here knows how it will be shown.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import Any

from ._display import Shown
from ._values import Opaque, safe_repr, same_data

__all__ = ["Call", "CallResult", "Comparison", "ErrorInfo", "ISOLATIONS", "check_labels", "Observation", "Opaque", "RunResult", "STATUSES", "repeated_failures",
           "to_jsonable"]

PASS, FAIL, ERROR, TIMEOUT, NOT_CONFIRMED = "pass", "fail", "error", "timeout", "unconfirmed"
STATUSES = (PASS, FAIL, ERROR, TIMEOUT, NOT_CONFIRMED)
"""Every status an Observation may have. Only ``pass`` counts as passed."""
COMPARED = (PASS, FAIL, NOT_CONFIRMED)
"""Statuses of checks whose actual value was computed and compared (it is shown)."""
ISOLATIONS = {
    "process": "",
    "inprocess": "checks ran in-process (weaker isolation on this platform)",
    "sandbox": "checks ran in a sandbox (bubblewrap: unprivileged, sees only the interpreter and this package, writes only its own /tmp, no network)",
    "recorded": "as recorded in the record; nothing ran here",
}
"""What `RunResult.isolation` may say, with the note a display adds (none for a separate process)."""
UNCONFIRMED = "the verdict could not be confirmed"
"""How `Observation.verdict_note` begins when the caller's own comparison disagreed (the status is then ``unconfirmed``)."""
JUDGED_IN_SOLVE_PROCESS = ("judged in solve's own process: its values are not plain data, so they cannot be compared apart from solve,"
                           " which could have changed this verdict")
"""What a display says of an observation with `Observation.judged_in_solve_process`."""


@dataclass(frozen=True)
class ErrorInfo:
    """An exception raised while a check ran, kept as text so it can travel and print."""

    type: str
    """The exception's name as a traceback prints it (``TypeError``, ``json.decoder.JSONDecodeError``)."""
    message: str
    """``str(exception)``, clipped."""
    traceback: str = ""
    """The traceback, trimmed to the learner's own frames (or the record's, on replays)."""

    def __str__(self) -> str:
        return f"{self.type}: {self.message}" if self.message else self.type

    def to_json(self) -> dict:
        return {"type": self.type, "message": self.message, "traceback": self.traceback}


@dataclass(frozen=True)
class ChangedAfter:
    """The object a call returned had changed by the end of its check: it then held `value`. `by` is a later call of the
    check that returned this same object (by identity, in the worker), or None when none did (the check's own code changed it)."""

    value: Any
    by: str | None = None


@dataclass(frozen=True)
class Call:
    """One call of solve that a check made (the record's helpers' calls included): what it returned or raised, and its time."""

    call: str
    """The call as the learner would type it, e.g. ``solve(3, -1)``."""
    returned: Any = None
    """What it returned (plain data, or an `Opaque`); None when it raised."""
    raised: ErrorInfo | None = None
    """The exception it raised, or None when it returned."""
    line: int = 0
    """The line of solve's own file that raised (0 when it returned, or when not known)."""
    seconds: float = 0.0
    caught: bool = False
    """It raised, and the check went on: a helper (``raises``) or the check's expression caught the exception."""
    changed: ChangedAfter | None = None
    """Set when what it returned changed before its check ended: `returned` is the object as it was when the call returned."""

    def __str__(self) -> str:
        if self.raised is None:
            return f"{self.call} returned {safe_repr(self.returned, 200)}" + (f"; {self.changed_text(200)}" if self.changed else "")
        where = f" (line {self.line})" if self.line else ""
        return f"{self.call} raised {self.raised}{where}" + (", and the check's code caught it" if self.caught else "")

    def changed_text(self, limit: int = 200) -> str:
        """What a display adds after ``returned …`` when the object changed later in its check ("" when it did not)."""
        if self.changed is None or same_data(self.changed.value, self.returned):
            return ""
        kind = type(self.returned).__name__
        if self.changed.by:
            return f"a later call, {self.changed.by}, returned this same {kind} object, changed to {safe_repr(self.changed.value, limit)}"
        return f"by the check's end this same {kind} object had changed to {safe_repr(self.changed.value, limit)}"

    def to_json(self) -> dict:
        return {"call": self.call, "returned_repr": None if self.raised is not None else safe_repr(self.returned, 10_000),
                "raised": None if self.raised is None else self.raised.to_json(), "line": self.line,
                "seconds": round(self.seconds, 6), "caught": self.caught,
                **({"changed_repr": safe_repr(self.changed.value, 10_000), "changed_by": self.changed.by} if self.changed else {})}


@dataclass(frozen=True)
class Observation(Shown):
    """One check, judged exactly as the record's harness judges it."""

    _text_renderer = "render._text:render_observation"
    _html_renderer = "render._html:observation_html"

    index: int
    """Order in which the check ran (0-based)."""
    check: str
    """The check's label, as the harness receives it."""
    status: str
    """``pass``, ``fail``, ``error`` (solve raised, or its process died), ``timeout``, or ``unconfirmed``: the
    check process reported a verdict that the caller, recomputing it from the plain values, did not get (a
    harness or result sender changed by solve, say); it is never counted as a pass."""
    passed: bool
    """The harness's own verdict (``actual == expected``); False for errors, timeouts and unconfirmed verdicts."""
    actual: Any = None
    """What the actual expression produced; None when it raised or timed out."""
    expected: Any = None
    call: str = ""
    """The call to solve as it happened, e.g. ``solve('hello<st', ['<stop>'])``."""
    compared: str = ""
    """The expression the check compares, as the fixture writes it with this run's values filled in
    (``solve(5, pad=1)[-1]``, ``solve(1, warmup=4)[0] > 0``); "" when it compares solve's return value
    itself, which `call` already names."""
    returned: tuple = ()
    """When `compared` is set: (call, value) for each call of solve in the check, in the order they
    were entered: what solve itself returned, beside the compared value. Empty when not known."""
    site: int = -1
    """Index of the CheckSite (the source line) this check came from."""
    lineno: int = 0
    error: ErrorInfo | None = None
    stdout: str = ""
    """What solve printed (stdout and stderr, interleaved), clipped to the output budget."""
    stdout_dropped: int = 0
    """Bytes of output (UTF-8) left out beyond the budget."""
    elapsed_ms: float = 0.0
    mutation: str | None = None
    """Set when solve modified an argument (compared with a snapshot taken before the call).
    solve gets the fixture's own arguments, as under the record's harness, so later checks see the change."""
    caught: bool = False
    """The error was raised on into the fixture code's ``try``, and one of its ``except`` clauses caught it: the
    harness records no observation for this line (check() was never called), and the run's verdict does not count it."""
    stale: str | None = None
    """Set when this check reads a name that a check stopped before it (a timeout, a dead process) reads or binds:
    what that check would have bound or changed is missing, so this verdict need not be the harness's."""
    final: tuple | None = None
    """(actual, expected) at the end of the run, set when either object changed after its check (solve returned
    one list again and again): what the harness prints, as it prints its observations at its end. The verdict,
    and `actual` and `expected`, are the check's own, at check time."""
    verdict_note: str | None = None
    """Set when the verdict is not the builtins' ``==`` on the plain values shown: they were compared
    by a class's own ``__eq__`` (shown by its repr), or, recomputed by the caller from the plain
    values it received, the verdict came out different, so it could not be confirmed."""
    calls: tuple[Call, ...] = ()
    """Every call of solve this check made, in order (the record's helpers' calls included), up to the runner's budget."""
    calls_omitted: int = 0
    """Calls of solve in this check beyond `calls`: counted, not kept."""
    helpers: tuple = ()
    """The record's helpers this check uses (`_record_helpers.Helper`: functions and classes its script defines above the checks, with their source)."""
    state: tuple = ()
    """Claims about what carried over between calls of solve (`runner._state`: a result shared with an earlier call,
    what solve read from a stream argument, a generator's preview from a fresh call); each one's ``str()`` says it."""
    said: tuple = ()
    """(part, check) pairs: parts of the `state` notes that the earlier listed check `check` says in full (`runner._said`)."""
    judged_in_solve_process: bool = False
    """Under ``--sandbox``, where checks are judged apart from solve: this check's values are not plain data
    (an instance of the solution's class, say), so it was judged in solve's own process, as without
    ``--sandbox``, where solve could have changed its verdict."""

    @property
    def changed_note(self) -> str | None:
        """What a display says when a value changed after its check (`final`): shown at check time, printed by the harness at its end."""
        if self.final is None:
            return None
        which = "the result" if not same_data(self.final[0], self.actual) else "the expected value"
        return (f"{which} changed after this check (solve returned an object that later calls changed): shown as it was when"
                f" checked; at the end of the run, when the harness prints it, it is {safe_repr(self.final[0] if which == 'the result' else self.final[1], 120)}")

    @property
    def state_notes(self) -> tuple[str, ...]:
        """What displays say of `state`: each claim, except what solve read from a stream on a passing check (reading is its job there).

        A closing sentence that an earlier note already ended with is said once (two claims about carried-over state
        both end with why the playground can differ)."""
        notes, endings = [], set()
        for claim in self.state:
            if getattr(claim, "kind", "") == "read" and self.status == PASS:
                continue
            if getattr(claim, "kind", "") == "preview" and claim.reads:  # what a check read is its own claim ("read"), not the preview's
                claim = replace(claim, reads=())
            text = str(claim)
            for part, where in self.said:
                ref = f"(see the note under check {where!r})"
                text = text.replace(part, ref).replace(f"{ref} {ref}", ref)
            head, _, ending = text.rpartition(". ")
            if head and ending in endings:
                text = head + "."
            endings.add(ending)
            notes.append(text)
        return tuple(notes)

    @property
    def unconfirmed(self) -> bool:
        """The caller recomputed the verdict from plain values and got another one (status ``unconfirmed``)."""
        return self.status == NOT_CONFIRMED

    def __repr__(self) -> str:
        return f"Observation({self.index}, {self.check!r}, {self.status})"

    @property
    def expression(self) -> str:
        """What the check compares, for every display: the expression, or the call when it compares the return value."""
        return self.compared or self.call

    @property
    def compares_return(self) -> bool:
        """Whether the compared value is what solve returned (a bare call): only then may a display say "returns"."""
        return not self.compared

    def shown_returns(self) -> tuple:
        """(call, value) of what solve returned, when that adds something to the compared value (else ())."""
        if not self.compared or not self.returned:
            return ()
        if len(self.returned) == 1 and self.status in COMPARED:
            value = self.returned[0][1]
            try:
                if type(value) is type(self.actual) and bool(value == self.actual):
                    return ()  # the check compares solve's result itself (through a walrus, say)
            except BaseException:  # noqa: BLE001 - a hostile __eq__: show both
                pass
        return _distinct_returns(self.returned)

    def to_json(self) -> dict:
        """This check in the schema docs/reference/json-schema.md documents."""
        return {
            "index": self.index,
            "check": self.check,
            "status": self.status,
            "passed": self.passed,
            "actual": to_jsonable(self.actual),
            "expected": to_jsonable(self.expected),
            "actual_repr": safe_repr(self.actual, 10_000) if self.status in COMPARED else None,
            "expected_repr": safe_repr(self.expected, 10_000),
            "call": self.call,
            "compared": self.expression,
            "returned": [{"call": call, "value_repr": safe_repr(value, 10_000)} for call, value in self.shown_returns()],
            "line": self.lineno,
            "error": None if self.error is None else self.error.to_json(),
            "stdout": self.stdout,
            "stdout_dropped": self.stdout_dropped,
            "elapsed_ms": round(self.elapsed_ms, 3),
            "mutation": self.mutation,
            "verdict_note": self.verdict_note,
            "judged_in_solve_process": self.judged_in_solve_process,
            "calls": [c.to_json() for c in self.calls],
            "calls_omitted": self.calls_omitted,
        }


@dataclass(frozen=True)
class RunResult(Shown):
    """All checks of one run: one `solve`, one variant."""

    _text_renderer = "render._text:render_run"
    _html_renderer = "render._html:run_html"

    record_id: str
    solver: str
    """Whose solve ran: ``yours``, ``attempt`` or ``broken``."""
    variant: int
    observations: tuple[Observation, ...]
    timeout: float
    isolation: str
    """What actually happened: ``process`` (the checks ran in a separate worker process, killed
    at a limit), ``sandbox`` (the same, each worker in a bubblewrap sandbox: ``--sandbox``),
    ``inprocess`` (in the calling process: the weaker fallback) or ``recorded``
    (nothing ran: the record's recorded run). One of `ISOLATIONS`."""
    problem: ErrorInfo | None = None
    """A failure outside every check (the fixture code itself), which stopped the run."""
    elapsed_ms: float = 0.0
    notes: tuple[str, ...] = field(default=())
    """What happened to the workers that the run's checks do not show (a stopped worker server replaced, say)."""

    def __post_init__(self) -> None:
        if self.isolation not in ISOLATIONS:
            raise ValueError(f"isolation must be one of {', '.join(ISOLATIONS)}, got {self.isolation!r}")

    @property
    def isolation_note(self) -> str:
        """What a display should add about `isolation`: nothing for a separate process."""
        return ISOLATIONS[self.isolation]

    @property
    def total(self) -> int:
        return len(self.observations)

    @property
    def passed_count(self) -> int:
        return sum(1 for o in self.observations if o.status == PASS)

    @property
    def passed(self) -> bool:
        """True only when checks ran, every one passed, and nothing stopped the run."""
        return self.problem is None and self.total > 0 and all(o.status == PASS or o.caught for o in self.observations)

    def counts(self) -> dict[str, int]:
        out = dict.fromkeys(STATUSES, 0)
        for o in self.observations:
            out[o.status] += 1
        return out

    def summary(self) -> str:
        """``K/N checks pass``, plus what else happened, in one line."""
        caught = sum(1 for o in self.observations if o.caught)  # not a check of the harness's: check() never ran
        counts = self.counts()
        counts["error"] -= caught
        text = f"{self.passed_count}/{self.total - caught} checks pass"
        others = [f"{n} {status}" for status, n in counts.items() if status != PASS and n]
        if others:
            text += " (" + ", ".join(others) + ")"
        if caught:
            text += f"; {caught} raised into the checks' own except clause, as they expect"
        if self.problem is not None:
            text += f"; the run stopped early: {self.problem}"
        return text

    def __repr__(self) -> str:
        return f"RunResult({self.record_id!r}, solver={self.solver!r}, variant={self.variant}, {self.summary()!r})"

    def to_json(self) -> dict:
        """This run in the schema docs/reference/json-schema.md documents (one element of ``check --json``'s runs).

        The record's id is not repeated here: every document holding runs (the
        ``check --json`` output, the panel's results download) names it once at its top.
        """
        return {
            "variant": self.variant,
            "solver": self.solver,
            "passed": self.passed,
            "summary": self.summary(),
            "problem": None if self.problem is None else self.problem.to_json(),
            "isolation": self.isolation,
            "timeout": self.timeout,
            "observations": [o.to_json() for o in self.observations],
        }


@dataclass(frozen=True)
class Comparison(Shown):
    """Several runs of the same checks side by side (e.g. broken, attempt, yours)."""

    _text_renderer = "render._text:render_comparison"
    _html_renderer = "render._html:comparison_html"

    record_id: str
    runs: tuple[RunResult, ...]
    names: tuple[str, ...]

    def __repr__(self) -> str:
        cells = ", ".join(f"{n}: {r.passed_count}/{r.total}" for n, r in zip(self.names, self.runs))
        return f"Comparison({self.record_id!r}, {cells})"

    def _render_args(self) -> tuple:
        return (self.runs, self.names)


@dataclass(frozen=True)
class CallResult(Shown):
    """One call of a solve on arbitrary inputs (the playground): what it returned or raised."""

    _html_renderer = "render._html:call_html"

    call: str
    status: str
    """``returned``, ``error`` or ``timeout``."""
    value: Any = None
    error: ErrorInfo | None = None
    stdout: str = ""
    elapsed_ms: float = 0.0
    solver: str = "yours"
    """Whose solve ran: ``yours``, or the record's ``attempt`` or ``broken`` (then the solve passed in was not called)."""
    mutation: str | None = None
    """Set when solve modified an argument: ``modified its argument 'base': it was … and became …``."""
    function: str = "solve"
    """The name of the function passed in, when it ran: ``try_call(record, sorted_windows, ...)`` names sorted_windows, not "your solve"."""
    state: tuple = ()
    """Claims of `runner._state` about the call (a returned generator's preview from a fresh call, what solve read)."""

    @property
    def whose(self) -> str:
        """Who ran, for a display: a learner who passes their solve and implementation='broken' must not read broken's crash as theirs."""
        if self.solver == "yours":
            return "your solve" if self.function == "solve" else f"your function {self.function} (in the place of solve)"
        return f"the record's {self.solver} (your solve was not called)"

    def __repr__(self) -> str:
        outcome = repr(self.value) if self.status == "returned" else str(self.error)
        if len(outcome) > 2_000:
            outcome = outcome[:1_999] + "…"
        printed = f"\nprinted: {self.stdout[:2_000]}" if self.stdout else ""
        ran = "" if self.solver == "yours" and self.function == "solve" else f"\nran: {self.whose}"
        changed = f"\nnote: solve {self.mutation}" if self.mutation else ""
        changed += "".join(f"\nnote: {claim}" for claim in self.state)
        return f"{self.call} -> {self.status}: {outcome}{printed}{ran}{changed}"


def _distinct_returns(returned: tuple) -> tuple:
    """Each (call, value) once: `solve(x)['r'] > solve(x)['p']` calls solve twice the same way, and one line says it (decided on values)."""
    kept: list = []
    for call, value in returned:
        try:
            seen = any(c == call and type(v) is type(value) and bool(v == value) for c, v in kept)
        except BaseException:  # noqa: BLE001 - a hostile __eq__: keep both
            seen = False
        if not seen:
            kept.append((call, value))
    return tuple(kept)


def repeated_failures(runs) -> dict[tuple[int, int], tuple[int, int]]:
    """Across runs of several variants: each check that fails exactly as it did in an earlier run, mapped to that first one.

    Keys and values are (position of the run, position of the observation). The
    same check (label), status and expected value, and the same value (of the
    same type) or the same error: decided on values. A display shows the first
    once, with the variants it occurs in.
    """
    first: list[tuple[int, int, Observation]] = []
    repeats: dict[tuple[int, int], tuple[int, int]] = {}
    for r, run in enumerate(runs):
        for i, o in enumerate(run.observations):
            if o.status == PASS:
                continue
            found = next(((fr, fi) for fr, fi, f in first if fr != r and _same_failure(f, o)), None)
            if found is None:
                first.append((r, i, o))
            else:
                repeats[(r, i)] = found
    return repeats


def _same_failure(a: Observation, b: Observation) -> bool:
    if (a.check, a.status, a.expression) != (b.check, b.status, b.expression):
        return False
    try:
        if type(a.expected) is not type(b.expected) or not bool(a.expected == b.expected):
            return False
        if a.status == FAIL:
            return type(a.actual) is type(b.actual) and bool(a.actual == b.actual)
    except BaseException:  # noqa: BLE001 - a hostile __eq__: not the same
        return False
    return (a.error is None) == (b.error is None) and (a.error is None or (a.error.type, a.error.message) == (b.error.type, b.error.message))


def check_labels(runs) -> list[str]:
    """The check labels of several runs, position by position (the longest run decides)."""
    labels: list[str] = []
    for run in runs:
        for i, o in enumerate(run.observations):
            if i >= len(labels):
                labels.append(o.check)
    return labels


def to_jsonable(value: Any, *, allow_nan: bool = False) -> Any:
    """The value as JSON data: as the record's harness would print it with json.dumps, in strict JSON.

    Tuples become lists, exactly as in the recorded observations, and so do named
    tuples: a subclass of a plain type prints as its plain value. Values JSON
    cannot hold (sets, bytes, opaque objects, and NaN or infinities unless
    `allow_nan`, as the harness's own json.dumps prints them) become None; the
    ``*_repr`` fields next to them keep the full story.
    """
    try:
        return json.loads(json.dumps(value, ensure_ascii=False, allow_nan=allow_nan, default=_refuse))
    except (TypeError, ValueError, RecursionError):
        return None


def _refuse(value: Any) -> Any:
    if isinstance(value, Opaque) and value.printable:
        return value.plain
    raise TypeError(type(value).__name__)
