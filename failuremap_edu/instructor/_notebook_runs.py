"""What a notebook shows that comes from running code, computed from the runner once and handed to the generator as data.

`NotebookRuns` is one record's runs for the length of a build: whoever builds notebooks of a record (the
`notebook` command, a workshop, a JupyterLite site) makes one, passes it to every notebook it builds of that
record (a learner's and an instructor's, or one per platform), and drops it with the build; nothing is kept
anywhere else. `SharedRuns` holds one `NotebookRuns` per record for a caller that builds several outputs of
the same records (``workshop --lite``, or a caller of the CLI's `main` in one process): it lives as long as
that caller keeps it. Each distinct run (a replay of broken or attempt, the checks of one solve on one variant, a
playground call) is made once while it lives. `learner` and `instructor` give the results as plain data
(mime bundles, run results, lines), all the generator (`_notebook`) reads: it runs nothing itself.
"""

from __future__ import annotations

import ast
import copy
from dataclasses import dataclass, fields

from .._cell import LIVE_PANEL, saved_copy_bundle
from .._errors import InputError
from .._exercise import Exercise, loaded_note
from .._fixtures import VARIANTS, read_fixtures
from .._records import Record
from .._results import RunResult
from .._solution import Solution
from .._story import failure_story
from ..runner import chosen_isolation, parse_call_arguments, run_checks, try_call
from ._solve_cell import define, learner_preamble, reference_body, split_imports

__all__ = ["InstructorResults", "LearnerResults", "NotebookError", "NotebookRuns", "SharedRuns", "presenter_handover", "reference_cell_parts"]


class NotebookError(InputError):
    """A notebook cannot be built (for example, no reference solution for an instructor notebook)."""


PRESENTER = "presenter=True, log_progress=False"
"""The options of the instructor notebook's exercises, as its cells write them."""


def presenter_handover(record_ref: str) -> str:
    """The lines of the instructor notebook's fix cell that hand the reference's solve over to its checks."""
    return f"reference = fm.Exercise({record_ref!r}, {PRESENTER})\n\n@reference.check"


def reference_cell_parts(record: Record, solution: Solution) -> tuple[list[str], str]:
    """(the fix cell's preamble, the reference's solve without imports): the attempt's preamble, then the reference's imports."""
    ref_imports, solve_body = split_imports(reference_body(solution))
    return list(dict.fromkeys(learner_preamble(record) + ref_imports)), solve_body


@dataclass(frozen=True)
class LearnerResults:
    """Everything a learner notebook shows that comes from running code (the same on every platform)."""

    loaded_note: str
    """What ``exercise.loaded_note()`` prints."""
    story: dict
    """The mime bundle of ``fm.watch_it_fail``: broken and attempt replayed, parity with the recorded runs held."""
    panel: tuple[dict, ...]
    """The solve cell's outputs for the attempt: the live panel's text form, then the saved copy of its results."""
    example: str | None
    """The first check's arguments as a tuple literal, or None when they are not literals."""
    tried: dict | None
    """The mime bundle of ``fm.try_call`` of the attempt on `example` (None without one)."""
    variant_runs: tuple[RunResult, ...]
    """The attempt's cell on every variant (empty when the checks never read N)."""


@dataclass(frozen=True)
class InstructorResults:
    """Everything an instructor notebook shows that comes from running code."""

    story: dict
    panel: tuple[dict, ...]
    """The attempt's solve cell, as a presenter sees it."""
    hints: dict
    """The mime bundle of every hint at once."""
    reference_runs: tuple[RunResult, ...]
    """The reference on every variant; each passes every check."""
    reference_panel: tuple[dict, ...]


def _bundle(value) -> dict:
    """What IPython would show for `value`: its text/plain and, when it has one, its text/html."""
    data = {"text/plain": str(value)}
    html_form = getattr(value, "_repr_html_", None)
    if html_form is not None:
        data["text/html"] = html_form()
    return data


def _panel_text(shown: Exercise) -> tuple[dict, ...]:
    """What the solve cell shows when it runs: the panel, whose text form stands for it here (nbval compares both
    outputs; the widget's view it skips), then the saved copy of the last results (static HTML)."""
    return ({"text/plain": LIVE_PANEL}, saved_copy_bundle(shown))


class NotebookRuns:
    """One record's runs for its notebooks: each distinct run made once while this object lives (one build)."""

    def __init__(self, record: Record) -> None:
        self.record = record
        self.fixtures = read_fixtures(record)
        self._attempt: tuple[Exercise, tuple[dict, ...], tuple[dict, ...]] | None = None
        self._story: dict | None = None
        self._learner: LearnerResults | None = None
        self._hints: dict | None = None
        self._references: dict[str, tuple[tuple[RunResult, ...], tuple[dict, ...]]] = {}

    def attempt_solution(self) -> Solution:
        """The attempt as the exercise cell defines it (the cell's lines, so line numbers in outputs match)."""
        return define(learner_preamble(self.record), self.fixtures.solve_source, "attempt", f"@fm.exercise({self.record.id!r})")

    def _attempt_run(self) -> tuple[Exercise, tuple[dict, ...], tuple[dict, ...]]:
        """The attempt's cell run once: the exercise, its learner panel and its presenter panel (both before any hint opens)."""
        if self._attempt is None:
            shown = Exercise(self.record, log_progress=False)
            shown.solve = self.attempt_solution()
            shown.run()
            presented = copy.copy(shown)  # the same runs; a presenter's panel differs only in its heading
            presented.presenter = True
            self._attempt = (shown, _panel_text(shown), _panel_text(presented))
        return self._attempt

    def story(self) -> dict:
        """``fm.watch_it_fail``'s bundle, from the attempt's exercise's replays; NotebookError when they break parity."""
        if self._story is None:
            shown = self._attempt_run()[0]
            story = failure_story(self.record, shown.replays(self.fixtures.default_variant))
            if story.parity is not None and not story.parity.ok:
                raise NotebookError(f"{self.record.id}: replays do not match the recorded runs, so the notebook would not pass: {story.parity.summary()}")
            self._story = _bundle(story)
        return self._story

    def learner(self) -> LearnerResults:
        """The results of a learner notebook (NotebookError when the replays break parity)."""
        if self._learner is None:
            shown, panel, _ = self._attempt_run()
            story = self.story()
            attempt = shown.solve
            example = _example_arguments(shown.replays(self.fixtures.default_variant)[1])
            tried = _bundle(try_call(self.record, attempt, ast.literal_eval(example))) if example is not None else None
            variant_runs: tuple[RunResult, ...] = ()
            if self.fixtures.uses_variant:
                ran = {run.variant: run for run in shown.runs}
                variant_runs = tuple(ran[v] if v in ran else run_checks(self.record, attempt, variant=v) for v in VARIANTS)
            self._learner = LearnerResults(loaded_note(self.record, self.fixtures), story, panel, example, tried, variant_runs)
        return self._learner

    def instructor(self, solution: Solution) -> InstructorResults:
        """The results of an instructor notebook with `solution` as its reference (NotebookError when it fails a check)."""
        shown, _, presented_panel = self._attempt_run()
        story = self.story()
        if self._hints is None:
            self._hints = _bundle(shown.all_hints())
        if solution.source not in self._references:
            preamble, solve_body = reference_cell_parts(self.record, solution)
            fixed = Exercise(self.record, log_progress=False, presenter=True)
            fixed.solve = define(preamble, solve_body, "reference", presenter_handover(self.record.id))
            fixed.run()
            ran = {run.variant: run for run in fixed.runs}
            results = tuple(ran[v] if v in ran else run_checks(self.record, fixed.solve, variant=v) for v in VARIANTS)
            failing = next((result for result in results if not result.passed), None)
            if failing is not None:
                raise NotebookError(f"{self.record.id}: the reference solution does not pass every check (N={failing.variant}: {failing.summary()})")
            self._references[solution.source] = (results, _panel_text(fixed))
        results, reference_panel = self._references[solution.source]
        return InstructorResults(story, presented_panel, self._hints, results, reference_panel)


class SharedRuns:
    """The `NotebookRuns` of each record built while this object lives: one per record and isolation, found again by the record's content."""

    def __init__(self) -> None:
        self._by_id: dict[tuple[str, str], list[NotebookRuns]] = {}

    def for_record(self, record: Record) -> NotebookRuns:
        """The runs of `record`, or of a record equal to it in everything but where it was loaded from, made under the
        isolation in effect now (``--sandbox`` sets it for one command); made when there are none."""
        known = self._by_id.setdefault((record.id, chosen_isolation()), [])
        found = next((runs for runs in known if _same_content(runs.record, record)), None)
        if found is None:
            found = NotebookRuns(record)
            known.append(found)
        return found

    def __len__(self) -> int:
        return sum(len(known) for known in self._by_id.values())


def _same_content(a: Record, b: Record) -> bool:
    """Whether two records hold the same content (`origin`, where each was loaded from, aside)."""
    return a is b or all(getattr(a, f.name) == getattr(b, f.name) for f in fields(a) if f.name != "origin")


def _example_arguments(attempt: RunResult) -> str | None:
    """The first check's arguments in `attempt`'s replay, as a tuple literal a learner could type (None if they are not literals)."""
    call = attempt.observations[0].call if attempt.observations else ""
    if not call.startswith("solve(") or not call.endswith(")"):
        return None
    try:
        args, kwargs = parse_call_arguments(call[len("solve(") : -1])
    except ValueError:
        return None
    return None if kwargs else repr(args)
