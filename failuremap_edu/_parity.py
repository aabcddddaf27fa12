"""Parity: does the runner judge exactly like the record's own harness did?

Replaying `attempt` and `broken` must reproduce the recorded observations check
for check: the same labels, the same `actual` and `expected` (as the harness's
JSON printed them, compared as canonical JSON so that ``1``, ``1.0`` and
``true`` stay different), the same verdicts. When the recorded run crashed
before printing, the replay must place an error of the same exception type at
the check on the line where the recorded traceback points.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace

from ._fixtures import read_fixtures
from ._records import Record, RecordedRun
from ._results import ERROR, ErrorInfo, Observation, RunResult, to_jsonable
from .runner import DEFAULT_TIMEOUT, replay

__all__ = [
    "ImplementationParity",
    "ParityReport",
    "RecordedCrash",
    "assert_recorded_failures",
    "harness_observations",
    "harness_stdout",
    "parity_report",
    "parse_crash",
    "recorded_run",
    "verify_record",
]

_FRAME_LINE = re.compile(r'^\s*File "(?P<file>[^"]*)", line (?P<line>\d+), in (?P<func>.+)$')
_EXCEPTION_LINE = re.compile(r"^(?P<type>[A-Za-z_][\w.]*)(?::\s?(?P<message>.*))?$")


@dataclass(frozen=True)
class RecordedCrash:
    """Where and how a recorded harness run died, read from its stderr."""

    type: str
    message: str
    lineno: int | None
    """The script line of the outermost (module-level) frame: the statement that was running."""


@dataclass(frozen=True)
class ImplementationParity:
    implementation: str
    ok: bool
    problems: tuple[str, ...]
    result: RunResult
    crash: RecordedCrash | None = None
    stdout_identical: bool | None = None
    """Whether the harness's printed JSON, rebuilt from the replay, matches the recorded stdout byte for byte."""


@dataclass(frozen=True)
class ParityReport:
    record_id: str
    variant: int
    implementations: tuple[ImplementationParity, ...]
    problems: tuple[str, ...] = ()
    """The record's own, beside its implementations': its declared `checks` count is none that runs."""

    @property
    def ok(self) -> bool:
        return not self.problems and all(p.ok for p in self.implementations)

    def summary(self) -> str:
        parts = []
        for p in self.implementations:
            if p.ok:
                how = "crash reproduced" if p.crash else f"{p.result.total} checks identical"
                parts.append(f"{p.implementation}: {how}")
            else:
                parts.append(f"{p.implementation}: MISMATCH ({len(p.problems)} problem{'s' if len(p.problems) != 1 else ''})")
        parts += [f"record: {problem}" for problem in self.problems]
        return f"{self.record_id}: parity {'holds' if self.ok else 'BROKEN'} — " + "; ".join(parts)

    def __str__(self) -> str:
        lines = [self.summary()]
        for p in self.implementations:
            lines += [f"  {p.implementation}: {problem}" for problem in p.problems]
        return "\n".join(lines)

    def to_json(self) -> dict:
        return {
            "record": self.record_id,
            "variant": self.variant,
            "ok": self.ok,
            "problems": list(self.problems),
            "implementations": [
                {
                    "implementation": p.implementation,
                    "ok": p.ok,
                    "problems": list(p.problems),
                    "checks": p.result.total,
                    "summary": p.result.summary(),
                    "recorded_crash": None if p.crash is None else {"type": p.crash.type, "line": p.crash.lineno},
                    "stdout_identical": p.stdout_identical,
                }
                for p in self.implementations
            ],
        }


def verify_record(record: Record, *, timeout: float = DEFAULT_TIMEOUT, isolation: str | None = None) -> ParityReport:
    """Replay every recorded implementation and compare it with its recorded run."""
    variant = read_fixtures(record).default_variant
    names = [name for name in record.verification if name in record.implementations]
    return parity_report(record, variant, {name: replay(record, name, variant, timeout, isolation=isolation) for name in names})


def parity_report(record: Record, variant: int, replays: dict[str, RunResult]) -> ParityReport:
    """Compare replays already made (of the recorded variant) with the recorded runs."""
    results = [_compare(record, name, record.verification[name], replays[name]) for name in record.verification if name in replays]
    return ParityReport(record.id, variant, tuple(results), _declared_count(record))


def _declared_count(record: Record) -> tuple[str, ...]:
    """A record whose declared `checks` is not the count of any recorded run that printed (else, of the script's checks).

    A count the harness's own runs contradict would show '5/5 pass' for a record that promises 6.
    """
    if record.checks is None:
        return ()
    printed = sorted({len(run.observations) for run in record.verification.values() if run.observations})
    if printed:
        if record.checks in printed:
            return ()
        runs = " or ".join(map(str, printed))
        return (f"it declares {record.checks} checks, but its recorded runs made {runs}: correct the count (is it from an older version of the checks?)",)
    static = read_fixtures(record).static_count
    if static is not None and static != record.checks:
        return (f"it declares {record.checks} checks, but its script has {static}: correct the count (is it from an older version of the checks?)",)
    return ()


def _canonical(value) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def _printed(value):
    """The value as the harness's json.dumps printed it: NaN and infinities included (json.dumps allows them)."""
    return to_jsonable(value, allow_nan=True)


def harness_stdout(result: RunResult) -> str:
    """What the record's harness would have printed for these observations."""
    observations = [
        {"check": o.check, "actual": _printed((o.final or (o.actual,))[0]), "expected": _printed((o.final or (None, o.expected))[1]), "passed": o.passed}
        for o in result.observations
    ]
    return json.dumps({"observations": observations, "passed": all(o["passed"] for o in observations)}, ensure_ascii=False) + "\n"


def harness_observations(record: Record, name: str, result: RunResult) -> tuple[Observation, ...]:
    """The replay's observations that the harness records: not the errors raised on into a ``try`` (and caught there).

    Under the harness an exception raised while a check's arguments are evaluated means
    check() is never called; the replay still reports what solve raised, on that line.
    """
    return tuple(o for o in result.observations if not o.caught)


def _compare(record: Record, name: str, recorded: RecordedRun, result: RunResult) -> ImplementationParity:
    if recorded.crashed:
        return _compare_crash(record, name, recorded, result)
    if not recorded.observations and recorded.exit_code > 0 and not recorded.stdout:
        return _compare_exit(name, recorded, result)
    problems: list[str] = []
    if result.problem is not None:
        problems.append(f"the replay stopped early: {result.problem}")
    observations = harness_observations(record, name, result)
    if len(observations) != len(recorded.observations):
        problems.append(f"recorded {len(recorded.observations)} checks, replay produced {len(observations)}")
    for i, (want, got) in enumerate(zip(recorded.observations, observations)):
        where = f"check {i + 1} ({want.check!r})"
        if got.status not in ("pass", "fail"):
            problems.append(f"{where}: replay ended in {got.status}: {got.error}")
            continue
        if want.check != got.check:
            problems.append(f"{where}: label differs: replay has {got.check!r}")
        final = got.final or (got.actual, got.expected)  # the harness prints its observations at its end: values in their final state
        for field, recorded_json, value in (
            ("actual", want.actual_json, final[0]),
            ("expected", want.expected_json, final[1]),
        ):
            recorded_value = json.loads(recorded_json)
            if _canonical(recorded_value) != _canonical(_printed(value)):
                problems.append(f"{where}: {field} differs: recorded {recorded_json}, replay {_canonical(_printed(value))}")
        if want.passed != got.passed:
            problems.append(f"{where}: verdict differs: recorded passed={want.passed}, replay passed={got.passed}")
    passed = result.problem is None and all(o.passed for o in observations)
    if recorded.passed != passed and not problems:
        problems.append(f"overall verdict differs: recorded passed={recorded.passed}, replay passed={passed}")
    stdout_identical = harness_stdout(replace(result, observations=observations)) == recorded.stdout if recorded.stdout else None
    return ImplementationParity(name, not problems, tuple(problems), result, None, stdout_identical)


def _compare_crash(record: Record, name: str, recorded: RecordedRun, result: RunResult) -> ImplementationParity:
    fixtures = read_fixtures(record, name)
    crash = parse_crash(recorded.stderr)
    problems: list[str] = []
    crash_site = fixtures.site_for_line(crash.lineno) if crash is not None and crash.lineno is not None else None
    first_error = next((o for o in result.observations if o.status == ERROR and not o.caught), None)  # a caught one crashed nothing
    if crash is None:
        problems.append("the recorded run crashed, but its stderr holds no readable traceback")
    elif first_error is None:
        problems.append(f"recorded {crash.type} at line {crash.lineno}, but no check errored in the replay")
    else:
        line = first_error.lineno
        got_type = first_error.error.type if first_error.error else "?"
        if crash.lineno is not None and (crash_site is None or crash_site.site != first_error.site):
            problems.append(f"recorded {crash.type} at line {crash.lineno}, replay's first error is at line {line}")
        if got_type != crash.type:
            problems.append(f"recorded {crash.type}, replay raised {got_type} at line {line}")
    if recorded.exit_code == 0:
        problems.append("the recorded run crashed yet exited 0")
    return ImplementationParity(name, not problems, tuple(problems), result, crash, None)


def _compare_exit(name: str, recorded: RecordedRun, result: RunResult) -> ImplementationParity:
    """The recorded run ended with an exit code and printed nothing, not even a traceback (``os._exit(3)`` in solve):
    the replay's process must have died so, in a check or outside one."""
    code = f"exited with code {recorded.exit_code} "
    died = [o.error for o in result.observations if o.status == ERROR and o.error is not None and o.error.type == "ProcessDied"]
    died += [result.problem] if result.problem is not None and result.problem.type == "WorkerDied" else []
    problems = () if died and code in died[0].message else (
        f"the recorded run exited with code {recorded.exit_code} and printed nothing, but the replay's process did not exit so",)
    return ImplementationParity(name, not problems, problems, result, RecordedCrash(f"exit code {recorded.exit_code}", "", None), None)


def parse_crash(stderr: str) -> RecordedCrash | None:
    """Read the exception type and the module-level line from a Python traceback."""
    lines = [line for line in stderr.splitlines() if line.strip()]
    if not lines or not any(line.startswith("Traceback") for line in lines):
        return None
    module_line = None
    for line in lines:
        frame = _FRAME_LINE.match(line)
        if frame and frame.group("func") == "<module>":
            module_line = int(frame.group("line"))
    last = _EXCEPTION_LINE.match(lines[-1].strip())
    if last is None:
        return None
    return RecordedCrash(last.group("type"), last.group("message") or "", module_line)


def recorded_run(record: Record, implementation: str) -> RunResult:
    """A recorded run shaped like a RunResult, to show beside replays (pass/fail only)."""
    recorded = record.verification[implementation]
    observations = tuple(
        Observation(index=i, check=o.check, status="pass" if o.passed else "fail", passed=o.passed, actual=o.actual, expected=o.expected)
        for i, o in enumerate(recorded.observations)
    )
    problem = None
    if recorded.crashed:
        crash = parse_crash(recorded.stderr)
        problem = ErrorInfo(crash.type if crash else "Crash", "the recorded run crashed before printing its observations")
    return RunResult(record.id, f"recorded {implementation}", read_fixtures(record).default_variant, observations, 0.0, "recorded", problem)


def assert_recorded_failures(record: Record) -> ParityReport:
    """For notebooks: fail loudly unless broken and attempt fail exactly as recorded."""
    report = verify_record(record)
    if not report.ok:
        raise AssertionError(str(report))
    return report
