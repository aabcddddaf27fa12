"""The exercise: one record as something to solve. State and logic only.

The learner's cell holds their function and one line of glue::

    import failuremap_edu as fm

    @fm.exercise("FA-100786")
    def solve(text, stops):
        ...

Running that cell checks `solve` and shows the panel right below it. The cell
stands on its own: after a kernel restart it works without running anything
above it, because `exercise` loads the record itself and returns the same
Exercise on every run (so the panel is reused, never duplicated).

`Exercise` is a plain model with change callbacks (`subscribe`): the solve, the
runs, the selected variant, hints shown, the playground, the replays of broken
and attempt. It holds no widget and no HTML; the panel (`_panel`) subscribes and
only reads it, and every state has a ``text/plain`` form (`Exercise.text`) for
static viewers, nbval and screen readers. Nothing runs while the panel is
displayed: checks and replays happen in `run()`. The model does no I/O: a run's
keeping (the progress log) is its front's (`PlainFront.keep`).
"""

from __future__ import annotations

import json
import sys
import time
import types
from pathlib import PurePosixPath
from typing import Any, Callable

from ._code import can_fall_off_end
from ._download import solve_source
from ._fixtures import VARIANTS, FixtureScript, read_fixtures
from ._evidence import MatchesImplementation, MutantTally, match_claim, run_mutants
from ._hints import Hint, HintLadder, hint_ladder, mistake_note, same_outcome
from ._live import LIVE
from ._progress import learner_id, outcomes, short_id, shown_path
from ._records import Record, load_record
from ._results import CallResult, Comparison, Observation, RunResult
from ._solution import SolutionError
from .runner import DEFAULT_TIMEOUT, SHORT_LIMIT, parse_call_arguments, replay, run_checks, try_call, warm_up
from ._values import clip, safe_repr, text_safe
from .render._style import PLAYGROUND_UNCHECKED, STATUS_SYMBOLS

__all__ = ["ALL_VARIANTS", "Exercise", "PlainFront", "exercise", "use_front"]

ALL_VARIANTS = "all"
IMPLEMENTATIONS = ("broken", "attempt")
HINTS_WAIT = "Hints follow your latest run: they are back when these checks are done."


class PlainFront:
    """How an exercise shows itself where there is no notebook front: a plain ``python`` prompt, a script.

    The notebook front (`_cell`) replaces it with `use_front`: the model never
    imports its view. Every method gets the exercise and only reads it.
    """

    def created(self, exercise: "Exercise") -> None:
        """A new exercise exists (the notebook front starts watching cells for it)."""

    def start(self, exercise: "Exercise") -> "PlainShowing":
        """A run begins: what shows it as it goes and when it ends."""
        return PlainShowing(exercise)

    def misplaced(self, exercise: "Exercise", name: str) -> None:
        """The @fm.exercise line sits above a helper, not solve: nothing was checked."""
        print(f"The line @fm.exercise({_reference(exercise.record)!r}) is above def {name}, so nothing was checked: move it right above def solve.")

    def bundle(self, exercise: "Exercise", include=None, exclude=None) -> dict:
        """The exercise's display: its text form."""
        return {"text/plain": exercise.text()}

    def keep(self, exercise: "Exercise") -> str:
        """Keep the latest runs of an exercise that logs progress; return a line to show beside them when they were not kept, else "".

        The model does no I/O: here nothing is kept (the notebook front, `_cell`, keeps them in the progress log)."""
        return ""


class PlainShowing:
    """A run shown as text once it ends (nothing while it runs: a terminal has no panel to update)."""

    def __init__(self, exercise: "Exercise") -> None:
        self.exercise = exercise

    def progress(self) -> None:
        pass

    def abandon(self) -> None:
        """The run ended without finishing (an interrupt): nothing is shown."""

    def finish(self) -> None:
        print(self.exercise.text())


_FRONT: list = [PlainFront()]
"""The front exercises are shown through (one, replaced by `use_front`)."""


def use_front(front: PlainFront) -> None:
    """Show exercises through `front` from now on (the notebook front registers itself on import)."""
    _FRONT[0] = front


class Exercise:
    """One record as an exercise: check a `solve`, show why checks fail, reveal hints."""

    def __init__(
        self,
        record: Record | str,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        variant: int | str | None = None,
        log_progress: bool = True,
        presenter: bool = False,
    ) -> None:
        self.record = record if isinstance(record, Record) else load_record(record)
        self.fixtures = read_fixtures(self.record)
        self.timeout = timeout
        self.uses_variant = self.fixtures.uses_variant
        """Whether the fixtures read N. If not, every variant runs the same checks: there is one set."""
        self.variant: int | str = self.fixtures.default_variant if variant is None else variant
        self.log_progress = log_progress
        self.presenter = presenter
        """Presenter aids: reveal or hide everything at once."""
        self.solve: Callable | None = None
        self.runs: tuple[RunResult, ...] = ()
        """The latest finished run (one per variant when all variants are selected)."""
        self.running = False
        self.partial: tuple[RunResult, ...] = ()
        """While running: what is known so far (finished variants, then the one in progress)."""
        self.message = ""
        """A one-line problem to show instead of results (e.g. a signature mismatch)."""
        self.log_note = ""
        """About the progress log, after the latest run ("progress is not being saved: ..."): a line of its own,
        beside the result, never instead of it."""
        self.missing_return = False
        """Whether the current solve can fall off its end (then None gets the missing-return hint)."""
        self.hints_shown = 0
        self.expanded = False
        self.playground_input = ""
        self.playground_rows: tuple[tuple[str, str, str], ...] = ()
        self.playground_values: tuple[tuple[str, Any], ...] = ()
        """(who, the value its call returned) for the calls in `playground_rows` that returned: what the pictures draw."""
        self.playground_message = ""
        self.misplaced_above: str | None = None
        """The function the @fm.exercise line was found above instead of solve, until the cell watcher says so."""
        self.finished_at: float | None = None
        """When the latest run ended (names of the downloads)."""
        self.solve_source: str | None = None
        """The solve's source as last run (for the log and the downloads)."""
        self.mistake: str | None = None
        """Whether your failing checks fail as the record's attempt (or broken) does, and its teaching text (`mistake_note`)."""
        self.rerun_note = ""
        """Set when a run gives exactly the result of the run before it: "ran again at 10:42:07: same result"."""
        self._solve_before: Callable | None = None
        """The solve of the latest run: the same function again is the same solve, whether or not its source can be read."""
        self.download_of: tuple[tuple[RunResult, ...], float | None] = ((), None)
        """The runs and the time that `export_files` writes: the latest run's, or, when it was of the same solve
        with the same result, those of the run that first gave it (a re-run then sends no new download links)."""
        self.cell_run: str | None = None
        """Names the latest run of the solve cell: its variants and the panel's re-runs are logged under it."""
        self._replays: dict[tuple[int, str], RunResult] = {}
        self._hints: dict[int, tuple[Hint, ...]] = {}
        self._fresh_hints: set[int] = set()
        """The variants whose ladder was made with fresh calls (`_ladder`)."""
        self._mutants: dict[int, MutantTally] = {}
        self.match: MatchesImplementation | None = None
        """The summary line's claim: on which failing checks yours gives the attempt's (or broken's) values (`_evidence`)."""
        self._listeners: list[Callable[["Exercise"], None]] = []
        warm_up()  # the learner reads the task first: by the first run, a worker is ready
        LIVE.made(self)
        _FRONT[0].created(self)

    # ------------------------------------------------------------- observers

    def subscribe(self, listener: Callable[["Exercise"], None]) -> None:
        """Call `listener(self)` after every change of state."""
        self._listeners.append(listener)

    def _changed(self) -> None:
        for listener in list(self._listeners):
            listener(self)

    # ----------------------------------------------------------------- checks

    def check(self, solve: Callable) -> Callable:
        """Decorator: check `solve`, show the panel below the cell, hand `solve` back unchanged.

        Above a function not named solve (a helper pasted between the line and
        ``def solve``), nothing is checked: one line says where the line goes.
        """
        name = getattr(solve, "__name__", "solve")
        if _above_a_helper(solve):
            self.misplaced_above = name  # in a notebook, the cell watcher checks the cell's solve and says so
            _FRONT[0].misplaced(self, name)
            return solve
        _bind_early(solve)
        self.solve = solve
        self.cell_run = f"{time.time():.6f}-{id(solve):x}"  # one run of the solve cell, however many variants it checks
        presenter = _FRONT[0].start(self)
        try:
            self.run(on_progress=presenter.progress, from_cell=True)
        except BaseException:  # an interrupt: nothing to show, but the front must not stay waiting for the end
            presenter.abandon()
            raise
        presenter.finish()
        return solve

    __call__ = check

    @property
    def heading(self) -> str:
        """The panel's title: the record's for a presenter; for a learner a neutral one, since a record's title often names the fix."""
        return self.record.title if self.presenter else self.record.neutral_title

    @property
    def variants(self) -> tuple[int, ...]:
        """The variants the panel runs: the selected one, or all five."""
        return VARIANTS if self.variant == ALL_VARIANTS else (int(self.variant),)

    def run(self, on_progress: Callable[[], None] | None = None, *, from_cell: bool = False) -> tuple[RunResult, ...]:
        """Run the checks of the selected variant(s) against the current solve (`from_cell`: the solve cell ran)."""
        if self.solve is None:
            self.message = "No solve checked yet: run the cell with def solve in it (keep the @fm.exercise(...) line above it)."
            self._changed()
            return ()
        previous = self.runs
        self.message, self.runs, self.running, self.partial, self.rerun_note, self.log_note = "", (), True, (), "", ""
        if self.playground_input.strip():  # its rows were the previous solve's: never shown as if they were this one's
            self.playground_rows, self.playground_message = (), "The playground tries your new solve once its checks are done."
        self.missing_return = can_fall_off_end(self.solve)
        self._changed()
        finished: list[RunResult] = []
        try:
            for variant in self.variants:
                done: list[Observation] = []

                def progress(o: Observation, variant=variant, done=done) -> None:
                    done.append(o)
                    live = RunResult(self.record.id, "yours", variant, tuple(done), self.timeout, "process")
                    self.partial = (*finished, live)
                    self._changed()
                    if on_progress is not None:
                        on_progress()

                finished.append(run_checks(self.record, self.solve, variant, self.timeout, progress=progress, heartbeat=on_progress))
        except SolutionError as exc:
            self.message = str(exc)
            finished = []
        finally:
            self.running, self.partial = False, ()
        self.runs = tuple(finished)
        self._hints, self._fresh_hints = {}, set()  # they follow your latest run
        self.hints_shown = 0  # and are folded again: one step at a time, about this run
        self.finished_at = time.time()
        source_before, self.solve_source = self.solve_source, solve_source(self.solve)
        # The same solve: the same function, or one of the same source (a cell run again). Two whose source
        # cannot be read are not the same for that (both None).
        same_solve = self.solve is self._solve_before or (self.solve_source is not None and source_before == self.solve_source)
        self._solve_before = self.solve
        at = time.strftime('%H:%M:%S', time.localtime(self.finished_at))
        repeated = bool(previous) and same_solve and _same_result(previous, self.runs)
        if not repeated or not self.download_of[0]:
            self.download_of = (self.runs, self.finished_at)
        if repeated:
            # a re-run of the same solve that changes nothing must still be seen to have happened (a new solve is not "again")
            self.rerun_note = f"ran again at {at}: same result"
            if not from_cell:  # the panel's button: an edit typed in the cell since is not what ran
                self.rerun_note += " (the solve the cell last ran: to check an edit, run the cell)"
        elif previous and same_solve:
            # The same solve on other variants (the variant box): not a new solve.
            if self.runs and [r.variant for r in previous] != [r.variant for r in self.runs]:
                shown = "all variants" if len(self.runs) > 1 else f"N = {self.runs[0].variant}"
                self.rerun_note = f"the same solve, checked at {at} on {shown}"
            else:  # the same solve gave other results (it draws random numbers, reads the clock, or ran out of time)
                self.rerun_note = f"the same solve, checked again at {at}: other results"
        elif previous and [r.summary() for r in previous] == [r.summary() for r in self.runs]:
            # A new solve with the same count: after Shift+Enter only the count stays in view, and must not read
            # as if nothing had run.
            same = _same_result(previous, self.runs)
            self.rerun_note = f"your new solve, checked at {at}: {'the same result' if same else 'the same count, other results'}"
        for variant in self.variants:
            self.replays(variant)  # the comparison and the hints are computed here, never while displaying
        if self.log_progress:  # after the replays: the log names the checks where yours returns what attempt or broken returns
            self.log_note = _FRONT[0].keep(self)
        self.match = match_claim(self.runs, self._replays)
        if self.match is not None:  # how much a match says: other mistakes (mutants) are run only when there is one to weigh
            self.match = match_claim(self.runs, self._replays, self.mutants())
        self.mistake = mistake_note(self.record, self.runs, self._replays, self._mutants)
        self._ladder(fresh=False)
        if self.playground_input.strip():
            # The checks are done: show their result now, and say that the playground is catching up
            # (its call to a looping solve takes up to one time limit more).
            self.playground_rows, self.playground_message = (), f"Trying your new solve on these inputs (up to {self.timeout:g} s)…"
            self._changed()
            self._try(self.playground_input)  # the playground follows the new solve
        self._changed()
        return self.runs

    def select_variant(self, variant: int | str) -> None:
        if variant != ALL_VARIANTS and variant not in VARIANTS:
            raise ValueError(f"variant must be 1-5 or {ALL_VARIANTS!r}, got {variant!r}")
        self.variant = variant
        if self.solve is not None:
            self.run()
        else:
            self._changed()

    # ---------------------------------------------------------- comparison

    def replays(self, variant: int) -> tuple[RunResult, ...]:
        """broken and attempt, replayed for `variant` (each computed once)."""
        for name in IMPLEMENTATIONS:
            if (variant, name) not in self._replays:
                self._replays[(variant, name)] = replay(self.record, name, variant, self.timeout)
        return tuple(self._replays[(variant, name)] for name in IMPLEMENTATIONS)

    def mutants(self) -> dict[int, MutantTally]:
        """The mutants of attempt and broken, run on each variant of the latest run (each variant once per exercise)."""
        for run in self.runs:
            if run.variant not in self._mutants:
                self._mutants[run.variant] = run_mutants(self.record, run.variant, self.timeout)
        return self._mutants

    def _computed_replays(self, variant: int) -> tuple[RunResult, ...]:
        """The replays of `variant` computed so far (nothing runs: a download is built while displaying)."""
        return tuple(self._replays[(variant, name)] for name in IMPLEMENTATIONS if (variant, name) in self._replays)

    def comparisons(self) -> tuple[Comparison, ...]:
        """For each variant run: broken, attempt and yours side by side (only what is computed)."""
        out = []
        yours = {run.variant: run for run in self.runs}
        for variant in self.variants:
            runs = tuple(self._replays[(variant, name)] for name in IMPLEMENTATIONS if (variant, name) in self._replays)
            names = tuple(run.solver for run in runs)
            if variant in yours:
                runs, names = runs + (yours[variant],), names + ("yours",)
            if runs:
                out.append(Comparison(self.record.id, runs, names))
        return tuple(out)

    # ------------------------------------------------------------------ hints

    @property
    def hints_available(self) -> int | None:
        """How many hints there are, once known (after the first run); None before."""
        return None if self.variants[0] not in self._hints else len(self.hints)

    @property
    def hints(self) -> tuple[Hint, ...]:
        """The hint ladder for the selected variant: from replays of broken and attempt, and the latest
        run of yours, so that no hint points at a check you already pass (computed once per run)."""
        shown = self.mistake or ""
        # A hint whose text the mistake line already quotes (the attempt's failed_approach) is not a step any more:
        # "one at a time" would be untrue with its text on screen before it is asked for.
        ladder = self._ladder(fresh=self.hints_shown > 0)
        return tuple(h for h in ladder if not (h.text and h.text.strip() and h.text.strip().rstrip(".") in shown))

    def _ladder(self, fresh: bool = True) -> tuple[Hint, ...]:
        """The whole ladder for the selected variant (computed once per run, and once more when a hint is first shown).

        With `fresh`, a check's call that the hints name is made again afresh (`_fresh_call`), so that a result that
        depends on earlier calls is said to (`CarriedOver`); without it no call is made: a run's feedback never waits
        for it. The number of hints is the same either way."""
        variant = self.variants[0]
        if variant not in self._hints or fresh and variant not in self._fresh_hints:
            broken, attempt = self.replays(variant)
            yours = next((r for r in self.runs if r.variant == variant), None)
            self._hints[variant] = hint_ladder(self.record, attempt, broken, yours, self.match,
                                               fresh_call=self._fresh_call if fresh else None)
            if fresh:
                self._fresh_hints.add(variant)
        return self._hints[variant]

    def _fresh_call(self, who: str, variant: int, call: str) -> tuple[bool, Any]:
        """One call of solve (``yours``), the attempt or broken, made afresh as the playground makes it: (True, value),
        or (False, None) when it did not return (it raised, timed out, or the call's text cannot be typed again)."""
        solve, implementation = (self.solve, None) if who == "yours" else (None, who)
        if who == "yours" and solve is None or not (call.startswith("solve(") and call.endswith(")")):
            return False, None
        try:
            result = try_call(self.record, solve, (), {}, implementation=implementation, variant=variant, timeout=self.timeout,
                              expression=call[len("solve("):-1])
        except SolutionError:
            return False, None
        return (True, result.value) if result.status == "returned" else (False, None)

    def all_hints(self) -> HintLadder:
        """Every hint at once, as a display object (the instructor notebook shows them so): none left out, none staged."""
        return HintLadder(self._ladder())

    def reveal_hint(self) -> None:
        self.hints_shown = min(self.hints_shown + 1, len(self.hints))
        self._changed()

    def hide_hints(self) -> None:
        self.hints_shown = 0
        self._changed()

    def reveal_all(self) -> None:
        """Presenter aid: every hint and every check's details open at once."""
        self.hints_shown, self.expanded = len(self.hints), True
        self._changed()

    def hide_all(self) -> None:
        self.hints_shown, self.expanded = 0, False
        self._changed()

    # ------------------------------------------------------------- playground

    def example_arguments(self) -> str | None:
        """Arguments a learner can type, taken from this exercise's own checks (evaluated, current variant)."""
        found = self._example()
        return found[0] if found else None

    def example_check(self) -> str:
        """Where the playground's example comes from, when that check compares an expression of the result, not the result."""
        found = self._example()
        if not found or not found[1].compared:
            return ""
        return f"The check '{found[1].check}' compares {found[1].compared}; here you see what solve itself returns."

    def _example(self) -> tuple[str, Observation] | None:
        variant = self.variants[0]
        runs = [run for run in self.runs if run.variant == variant] or [self._replays.get((variant, "attempt"))]
        for run in runs:
            for o in run.observations if run is not None else ():
                inner = o.call[len("solve(") : -1] if o.call.startswith("solve(") and o.call.endswith(")") else ""
                if inner and len(inner) <= 200 and "; solve(" not in o.call:
                    try:
                        parse_call_arguments(inner)
                    except ValueError:
                        continue
                    return inner, o
        return None

    def try_inputs(self, text: str) -> None:
        """Playground: call yours, the attempt and the broken solve on the typed inputs."""
        self._try(text)
        self._changed()

    def _try(self, text: str) -> None:
        self.playground_input = text
        self.playground_rows, self.playground_message, self.playground_values = (), "", ()
        example = self.example_arguments()
        if not text.strip():
            self.playground_message = "Type arguments (values, or expressions over the record's names)" + (f", for example: {example}" if example else ".")
            if example and self.example_check():
                self.playground_message += f" ({self.example_check()})"
            return
        expression = None
        try:
            args, kwargs = parse_call_arguments(text, example=example)
        except ValueError as exc:
            if not str(exc).startswith("only literal values"):
                self.playground_message = str(exc)
                return
            args, kwargs, expression = (), {}, text  # names and calls: evaluated in the worker, as solve runs (`runner.try_call`)
        rows, values = [], []
        whose = [("yours", self.solve, None)] if self.solve is not None else []
        whose += [("attempt", None, "attempt"), ("broken", None, "broken")]
        for who, solve, implementation in whose:
            try:
                result = try_call(self.record, solve, args, kwargs, implementation=implementation, timeout=self.timeout, expression=expression)
            except SolutionError as exc:
                rows.append((who, "error", str(exc)))
                continue
            rows.append((who, *_playground_cell(result, self.timeout)))
            if result.status == "returned":
                values.append((who, result.value))
        self.playground_rows, self.playground_values = tuple(rows), tuple(values)

    # ---------------------------------------------------------------- results

    @property
    def pass_note(self) -> str:
        """After a pass: at one variant of checks that read N, the other variants are not checked yet (say so);
        after a pass of every variant, what a pass does not prove."""
        if self.running or not self.runs or not all(run.passed for run in self.runs):
            return ""
        if len(self.runs) == 1 and self.uses_variant:
            return f"That is N = {self.runs[0].variant} only: tick “all variants” to check N = {VARIANTS[0]} to {VARIANTS[-1]} too."
        # A wrong solve can pass every check of a record: say what a pass is, and is not.
        return "Every check of the record passes. Checks are examples, not a proof: try the contract's edge cases in the playground."

    def summary(self) -> str:
        """One line: what the panel's first line says."""
        if self.message:
            return self.message
        if self.running:
            done = sum(r.total for r in self.partial)
            expected = self.fixtures.static_count
            of = f" of {expected * len(self.variants)}" if expected is not None else ""
            if any(o.status == "timeout" for r in self.partial for o in r.observations):  # the runner cut the limit
                each = f"a check timed out, so each of the rest may take up to {self.timeout * SHORT_LIMIT:g} s"
            else:
                each = f"each may take up to {self.timeout:g} s"
            return f"Checking your solve: {done}{of} checks done{'' if of else ' so far'} ({each})…"
        if not self.runs:
            return "No solve checked yet."
        if len(self.runs) == 1:
            return self.runs[0].summary()
        passed = sum(r.passed_count for r in self.runs)
        total = sum(r.total for r in self.runs)
        return f"{passed}/{total} checks pass across variants: " + ", ".join(f"N={r.variant}: {r.passed_count}/{r.total}" for r in self.runs)

    def text(self, results_only: bool = False) -> str:
        """The panel's state as plain text: what a static viewer, nbval or a screen reader gets.

        `results_only`: without the hints opened and the playground's inputs, for a saved copy of the results
        (which follows runs, not hint clicks or typing)."""
        from .render._text import run_notes, terminal_safe

        lines = [f"{clip(self.heading, 100, one_line=True)}{self._variant_words()}", self.summary()]
        if self.rerun_note and not self.running:
            lines.append(f"  ({self.rerun_note})")
        if self.log_note and not self.running and not results_only:
            lines.append(f"  {self.log_note}")
        shown = self.partial if self.running else self.runs
        for run in shown:
            lines += [f"  note: {note}" for note in run_notes(run)]
            for o in run.observations:
                prefix = f"N={run.variant} " if len(self.variants) > 1 else ""
                lines.append(f"  {STATUS_SYMBOLS[o.status]} {o.status:<7} {prefix}{_keep_spaces(o.check, 80)}")
        if self.mistake and not self.running:
            lines.append(self.mistake)
        if self.pass_note:
            lines.append(self.pass_note)
        if not results_only:
            lines += self._hint_and_playground_lines()
        text = "\n".join(lines)
        return terminal_safe(text, 1 << 62)  # a plain python prompt prints it: no escape sequence, no lone surrogate; never clipped

    def _hint_and_playground_lines(self) -> list[str]:
        """The parts of the text that follow clicks and typing, not runs (a saved copy of the results leaves them out)."""
        from .render._grid import playground_pictures_text
        from .render._text import render_hints

        lines = []
        if self.hints_shown and self.running:
            lines.append(HINTS_WAIT)  # the shown hints were about the previous run: never shown as if about this one
        elif self.hints_shown:
            lines.append(render_hints(self.hints, self.hints_shown))
        if self.playground_rows:
            lines.append(f"Playground: solve({_keep_spaces(self.playground_input, 80)})")
            lines += [f"  {who}: {status} {_keep_spaces(value, 120)}" for who, status, value in self.playground_rows]
            lines += [f"  {line}" for line in playground_pictures_text(self.playground_values)]
            lines.append(f"  {PLAYGROUND_UNCHECKED}")
        elif self.playground_message and self.playground_input:
            lines.append(f"Playground: {self.playground_message}")
        return lines

    STATIC_NOTE = "These are the results saved with the notebook: run the cell to check again, with the live panel (its buttons, hints and playground need a running kernel)."

    def static_html(self) -> str:
        """The last results as static HTML, for where the live panel cannot show: a notebook reopened with a new kernel
        (where the front can fall back to it), nbviewer, GitHub, an exported page. No time in it: it is stored and compared."""
        from .render._html import CSS, checks_html, html_text as escape

        head = (f'<p class="fm-summary">{escape(self.summary())}</p>'
                f'<p><strong>{escape(self.heading)}</strong>{escape(self._variant_words())}</p>'
                f'<p class="fm-note">{escape(self.STATIC_NOTE)}</p>')
        mistake = f'<p class="fm-note">{escape(self.mistake)}</p>' if self.mistake else ""
        runs = checks_html(self.runs, css=False, missing_return=self.missing_return, traceback=False) if self.runs else ""
        return f'<div class="fm-root fm-static"><style>{CSS}</style>{head}{mistake}{runs}</div>'

    def _variant_words(self) -> str:
        if not self.uses_variant:
            return ""
        return " (all variants)" if self.variant == ALL_VARIANTS else f" (variant N = {self.variant})"

    def export_files(self) -> dict[str, str]:
        """Your solve and its latest results, as file name -> text (.py and .json).

        Names carry the progress log's short pseudonymous learner id and the time
        of the run (``FA-100786-3f9a2c-20261130-064500-solve.py``), so that a
        class's hand-ins never clash and `report` can tell learners apart.

        The .py holds the results in a comment header and what your solve uses,
        so `failuremap-edu check RECORD FILE.py` can check it again (all variants
        when that is what ran), and pasting it back into the notebook cell, with
        the @fm.exercise line right above ``def solve``, works.
        """
        r = self.record  # paths in it are relative to the notebook folder: a hand-in never names its learner's home
        learner = learner_id() if self.log_progress else "demo"  # an instructor's demo creates no progress log
        runs, finished_at = self.download_of if self.download_of[0] else (self.runs, self.finished_at)
        stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(finished_at))
        stem = f"{r.id}-{short_id(learner)}-{stamp}"
        source = self.solve_source or "# The source of solve could not be read.\n"
        where = r.id if r.packaged else shown_path(r.origin)
        # The variant that ran, or all: the command checks what the file's header lists.
        which = " --all-variants" if len(runs) > 1 else f" --variant {runs[0].variant}" if self.uses_variant and runs else ""
        again = f"failuremap-edu check {where} {stem}-solve.py{which}"
        paste = f"paste it into the exercise cell, with the line @fm.exercise({where!r}) right above def solve"
        if sys.platform == "emscripten":  # a JupyterLite site: no terminal here, and its paths exist only in this browser
            header = [
                f"# failuremap_edu export: {r.id} · {clip(r.title, 100, one_line=True)}",
                f"# check again on the site: {paste}",
                "# on a machine with failuremap-edu installed: "
                + (again if r.packaged else f"download {PurePosixPath(where).name} from the site's file browser (folder {PurePosixPath(where).parent}), then "
                   f"in the folder where both files are: failuremap-edu check {PurePosixPath(where).name} {stem}-solve.py{which}"),
            ]
        else:
            where_from = "" if r.packaged else " (in the notebook's folder, where that path leads to the record; elsewhere give the record file's path)"
            header = [
                f"# failuremap_edu export: {r.id} · {clip(r.title, 100, one_line=True)}",
                f"# check again with: {again}{where_from}",
                # A terminal of a hub, or of a server started without one, is a login shell: the venv's bin is not on its
                # PATH there, and "failuremap-edu check" says "command not found".
                f"#   (where that command is not found: python3 -m failuremap_edu check ..., with the Python that runs the notebook)",
                f"# in the notebook: {paste}",
            ]
        header.append(f"# result: {self.summary()}")
        for run in runs:
            variant = f"N={run.variant} " if self.uses_variant else ""
            header += [f"#   {variant}{STATUS_SYMBOLS[o.status]} {o.status:<7} {_keep_spaces(o.check, 80)}" for o in run.observations]
        py = text_safe("\n".join(header) + "\n\n" + source.strip() + "\n")
        data = {"record": r.id, "learner": learner, "checked_at": stamp, "summary": self.summary(), "solve": source, "runs": [run.to_json() for run in runs],
                "outcomes": [outcomes(run, self._computed_replays(run.variant)) for run in runs]}
        return {f"{stem}-solve.py": py, f"{stem}-results.json": text_safe(json.dumps(data, ensure_ascii=False, indent=1)) + "\n"}

    def __repr__(self) -> str:
        return f"Exercise({self.record.id!r}, {self.summary()!r})"

    def loaded_note(self) -> str:
        """One line for the cell that loads the exercise: a cell that printed nothing left a learner guessing."""
        return loaded_note(self.record, self.fixtures)

    # ---------------------------------------------------------------- display

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict:
        """The current front's display: in a notebook the panel (ipywidgets) with its text form, elsewhere the text."""
        return _FRONT[0].bundle(self, include, exclude)


def loaded_note(record: Record, fixtures: FixtureScript) -> str:
    """What loading an exercise did, in words true on every platform (no process is named: a browser-only site has none)."""
    count = fixtures.static_count
    checks = f"{count} check{'s' if count != 1 else ''}" if count is not None else "its checks"
    variants = f", in {len(VARIANTS)} variants (N = {VARIANTS[0]} to {VARIANTS[-1]})" if fixtures.uses_variant else ""
    return f"Loaded {clip(record.neutral_title, 100, one_line=True)}: {checks}{variants}. Your solve goes in the exercise cell below."


def exercise(record: Record | str, **options: Any) -> Exercise:
    """The exercise for `record` (an id, a path, or a Record): the same object every time while it lives (`_live`).

    Re-running a cell with ``@fm.exercise("ID")`` reuses the exercise, its panel
    and its state, so the cell can stand on its own (after a kernel restart too).
    """
    loaded = record if isinstance(record, Record) else load_record(record)
    key = (loaded.origin, tuple(sorted(options.items())))
    found = LIVE.get(key)
    if found is None or found.record != loaded:
        found = Exercise(loaded, **options)
        LIVE.put(key, found)
    LIVE.newest = found
    return found


def _same_result(before: tuple[RunResult, ...], after: tuple[RunResult, ...]) -> bool:
    """Two runs of the same variants with the same outcome on every check (decided on values)."""
    if [r.variant for r in before] != [r.variant for r in after]:
        return False
    for old, new in zip(before, after):
        if old.total != new.total or (old.problem is None) != (new.problem is None):
            return False
        if not all(same_outcome(a, b) for a, b in zip(old.observations, new.observations)):
            return False
    return True


def _keep_spaces(text: str, limit: int) -> str:
    """One line of typed text, clipped, with its spaces kept: ``'a  b'`` must not read as ``'a b'`` (a different input)."""
    return clip(text.replace("\r", "\\r").replace("\n", "\\n"), limit)


def _absolute(origin: str) -> str:
    """A record file's path that works from wherever the download was saved."""
    from pathlib import Path

    return str(Path(origin).resolve())


def _reference(record: Record) -> str:
    return record.id if record.packaged else record.origin


def _above_a_helper(function: Callable) -> bool:
    """True when the decorator sits on a helper, and an undecorated ``def solve`` follows it in the same cell."""
    import ast
    import linecache

    code = getattr(function, "__code__", None)
    if not isinstance(function, types.FunctionType) or function.__name__ in ("solve", "<lambda>") or code is None:
        return False
    try:
        body = ast.parse("".join(linecache.getlines(code.co_filename))).body
    except (SyntaxError, ValueError):
        return False
    for i, node in enumerate(body):
        if isinstance(node, ast.FunctionDef) and node.name == function.__name__ and node.decorator_list and node.decorator_list[0].lineno == code.co_firstlineno:
            later = [n for n in body[i + 1 :] if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
            return any(n.name == "solve" and not n.decorator_list for n in later)
    return False


def _bind_early(solve: Callable) -> None:
    """Bind the function's name before the decorator returns, as Python will right after.

    A decorator runs before ``def`` binds the name, so a recursive solve would hit a
    NameError (or an older solve) during the checks. Binding early makes the checks
    see exactly what the learner's later calls will see.
    """
    name = getattr(solve, "__name__", "")
    namespace = getattr(solve, "__globals__", None)
    if isinstance(namespace, dict) and name.isidentifier() and getattr(solve, "__qualname__", "") == name:
        namespace[name] = solve


def _playground_cell(result: CallResult, timeout: float) -> tuple[str, str]:
    if result.status == "returned":
        # Modifying an argument, which a contract may forbid, said here too: the playground never shows it as fine.
        notes = [f"and {result.mutation}"] * bool(result.mutation) + [str(claim) for claim in result.state]
        return "returned", safe_repr(result.value, 400) + "".join(f" ({note})" for note in notes)
    if result.status == "timeout":
        return "timeout", f"no result after {timeout:g} s (the time limit of a check): does solve loop forever on these inputs?"
    return result.status, str(result.error) if result.error else result.status

