""""Watch it fail": what the record's broken and attempt really do, as data to show.

Learners learn from the failure itself: for each check that `broken` or `attempt`
fails, what it returned next to the expected value and why they differ, the code
that failed, and, when the record's own script crashed, what that crash hid.
The replays run through the same runner as the learner's solve; for the variant
the record was made with, they are compared with the recorded runs (parity), so
the story is checked, not assumed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ._display import Shown
from ._fixtures import read_fixtures
from ._parity import ParityReport, parity_report, parse_crash
from ._records import Record, as_record
from ._results import PASS, Observation, RunResult
from .runner import DEFAULT_TIMEOUT, replay

__all__ = ["CrashNote", "FailingCheck", "FailureStory", "failure_story", "watch_it_fail"]

IMPLEMENTATIONS = ("broken", "attempt")


@dataclass(frozen=True)
class FailingCheck:
    """One check that broken or attempt (or both) does not pass."""

    index: int
    check: str
    call: str
    """The call as it happened in the attempt's replay (or broken's, if only it fails)."""
    expected: Any
    outcomes: tuple[tuple[str, Observation], ...]
    """(implementation, its observation) for each implementation that does not pass it."""


@dataclass(frozen=True)
class CrashNote:
    """The record's own script crashed: which check it reached, and what it never ran."""

    implementation: str
    error_type: str
    index: int | None
    """The check (0-based) the crash happened in, when the traceback points at one."""
    label: str
    total: int
    """How many checks the replay reports in all."""


@dataclass(frozen=True)
class FailureStory(Shown):
    """broken and attempt, replayed for one variant, with everything a learner needs to see why they fail."""

    _text_renderer = "render._text:render_story"
    _html_renderer = "render._html:story_html"

    record_id: str
    variant: int
    recorded_variant: int
    """The variant the record's runs were recorded with (parity is checked only there)."""
    runs: tuple[RunResult, ...]
    """broken, then attempt."""
    sources: tuple[tuple[str, str, int], ...]
    """(implementation, the source of its solve, the line of its script that source begins on): the "(line N)" of
    an error counts the script's lines, so the code is shown numbered from there."""
    parity: ParityReport | None
    """Replays compared with the recorded runs; None for other variants."""
    crashes: tuple[CrashNote, ...] = ()
    uses_variant: bool = True
    """Whether the checks read N at all; if not, the variant is never mentioned."""

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(run.solver for run in self.runs)

    def failing_checks(self) -> tuple[FailingCheck, ...]:
        """Every check some implementation does not pass, in order."""
        out = []
        length = max((len(r.observations) for r in self.runs), default=0)
        for i in range(length):
            seen = [(run.solver, run.observations[i]) for run in self.runs if i < len(run.observations)]
            failing = tuple((name, o) for name, o in seen if o.status != PASS)
            if not failing:
                continue
            first = next((o for name, o in seen if name == "attempt"), failing[0][1])
            out.append(FailingCheck(i, first.check, first.call, first.expected, failing))
        return tuple(out)

    def __repr__(self) -> str:
        cells = ", ".join(f"{r.solver}: {r.passed_count}/{r.total}" for r in self.runs)
        return f"FailureStory({self.record_id!r}, N={self.variant}, {cells})"


def watch_it_fail(record: Record | str, variant: int | None = None, timeout: float = DEFAULT_TIMEOUT) -> FailureStory:
    """Replay broken and attempt for `variant` (default: the recorded one) and explain what they do.

    `record` may be an id or a path, so the notebook cell works on its own after a restart.
    """
    record = as_record(record)
    variant = read_fixtures(record).default_variant if variant is None else variant
    return failure_story(record, tuple(replay(record, name, variant, timeout) for name in IMPLEMENTATIONS))


def failure_story(record: Record, runs: tuple[RunResult, RunResult]) -> FailureStory:
    """The story of `runs`, replays of broken then attempt for one variant, made by the caller: nothing runs here.

    `watch_it_fail` is this with fresh replays; given the same replays, the story is the same.
    """
    recorded_variant = read_fixtures(record).default_variant
    variant = runs[0].variant
    parity = parity_report(record, recorded_variant, dict(zip(IMPLEMENTATIONS, runs))) if variant == recorded_variant else None
    sources = tuple((name, script.solve_source, script.solve_line) for name in IMPLEMENTATIONS for script in [read_fixtures(record, name)])
    uses_variant = read_fixtures(record).uses_variant
    return FailureStory(record.id, variant, recorded_variant, runs, sources, parity, _crashes(record, runs), uses_variant)


def _crashes(record: Record, runs: tuple[RunResult, ...]) -> tuple[CrashNote, ...]:
    notes = []
    for run in runs:
        recorded = record.verification.get(run.solver)
        if recorded is None or not recorded.crashed:
            continue
        crash = parse_crash(recorded.stderr)
        site = read_fixtures(record, run.solver).site_for_line(crash.lineno) if crash and crash.lineno else None
        hit = next((o for o in run.observations if site is not None and o.site == site.site and o.status != PASS), None)
        notes.append(
            CrashNote(
                implementation=run.solver,
                error_type=crash.type if crash else "an error",
                index=hit.index if hit else None,
                label=hit.check if hit else "",
                total=run.total,
            )
        )
    return tuple(notes)
