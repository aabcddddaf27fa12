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

import time
import types
from typing import Any, Callable

from ._code import can_fall_off_end
from ._download import solve_source
from ._fixtures import VARIANTS, FixtureScript, read_fixtures
from ._evidence import MatchesImplementation, MutantTally, match_claim, run_mutants
from ._exercise_playground import Playground
from ._exercise_text import ALL_VARIANTS, HINTS_WAIT, ExerciseText
from ._hints import Hint, HintLadder, hint_ladder, mistake_note
from ._live import LIVE
from ._records import Record, load_record
from ._rerun import rerun_note, same_result
from ._results import Comparison, Observation, RunResult
from ._solution import SolutionError
from .runner import DEFAULT_TIMEOUT, replay, run_checks, try_call, warm_up
from ._values import clip

__all__ = ["ALL_VARIANTS", "HINTS_WAIT", "Exercise", "PlainFront", "exercise", "use_front"]

IMPLEMENTATIONS = ("broken", "attempt")


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


class Exercise(ExerciseText, Playground):
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
        repeated = bool(previous) and same_solve and same_result(previous, self.runs)
        if not repeated or not self.download_of[0]:
            self.download_of = (self.runs, self.finished_at)
        self.rerun_note = rerun_note(previous, self.runs, same_solve=same_solve, from_cell=from_cell, at=at)
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


