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
displayed: checks, replays and logging happen in `run()`.
"""

from __future__ import annotations

import builtins
import inspect
import json
import re
import textwrap
import time
import types
from typing import Any, Callable

from ._code import can_fall_off_end
from ._fixtures import VARIANTS, read_fixtures
from ._hints import Hint, hint_ladder
from ._progress import learner_id, log_run, short_id
from ._records import Record, load_record
from ._results import CallResult, Comparison, Observation, RunResult
from ._runner import DEFAULT_TIMEOUT, SHORT_LIMIT, SolutionError, parse_call_arguments, replay, run_checks, try_call, warm_up
from ._values import STATUS_SYMBOLS, clip, safe_repr, text_safe

__all__ = ["ALL_VARIANTS", "Exercise", "exercise"]

ALL_VARIANTS = "all"
SHOW_AFTER = 1.0
"""Seconds a run may take before its panel is shown while it is still running.
A quick run (the usual case) is shown once, finished: no flicker, and a saved
notebook never stores a half-done panel. A slow one shows each check as it ends."""
IMPLEMENTATIONS = ("broken", "attempt")


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
        self.missing_return = False
        """Whether the current solve can fall off its end (then None gets the missing-return hint)."""
        self.hints_shown = 0
        self.expanded = False
        self.playground_input = ""
        self.playground_rows: tuple[tuple[str, str, str], ...] = ()
        self.playground_message = ""
        self.misplaced_above: str | None = None
        """The function the @fm.exercise line was found above instead of solve, until the cell watcher says so."""
        self.finished_at: float | None = None
        """When the latest run ended (names of the downloads)."""
        self.solve_source: str | None = None
        """The solve's source as last run (for the log and the downloads)."""
        self._replays: dict[tuple[int, str], RunResult] = {}
        self._hints: dict[int, tuple[Hint, ...]] = {}
        self._listeners: list[Callable[["Exercise"], None]] = []
        self._view: Any = None
        warm_up()  # the learner reads the task first: by the first run, a worker is ready
        _watch_cells(self)

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
            if not _in_ipython():
                print(f"The line @fm.exercise({_reference(self.record)!r}) is above def {name}, so nothing was checked: move it right above def solve.")
            return solve
        _bind_early(solve)
        self.solve = solve
        presenter = _Presentation(self)
        self.run(on_progress=presenter.progress)
        presenter.finish()
        return solve

    __call__ = check

    @property
    def variants(self) -> tuple[int, ...]:
        """The variants the panel runs: the selected one, or all five."""
        return VARIANTS if self.variant == ALL_VARIANTS else (int(self.variant),)

    def run(self, on_progress: Callable[[], None] | None = None) -> tuple[RunResult, ...]:
        """Run the checks of the selected variant(s) against the current solve."""
        if self.solve is None:
            self.message = "No solve checked yet: run the cell with def solve in it (keep the @fm.exercise(...) line above it)."
            self._changed()
            return ()
        self.message, self.runs, self.running, self.partial = "", (), True, ()
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
        self._hints = {}  # they follow your latest run
        self.finished_at = time.time()
        self.solve_source = _solve_source(self.solve)
        if self.log_progress:
            for result in self.runs:
                warning = log_run(result, self.solve_source, title=self.record.title)
                if warning:
                    self.message = warning
        for variant in self.variants:
            self.replays(variant)  # the comparison and the hints are computed here, never while displaying
        self.hints  # noqa: B018
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
        found = self._hints.get(self.variants[0])
        return None if found is None else len(found)

    @property
    def hints(self) -> tuple[Hint, ...]:
        """The hint ladder for the selected variant: from replays of broken and attempt, and the latest
        run of yours, so that no hint points at a check you already pass (computed once per run)."""
        variant = self.variants[0]
        if variant not in self._hints:
            broken, attempt = self.replays(variant)
            yours = next((r for r in self.runs if r.variant == variant), None)
            self._hints[variant] = hint_ladder(self.record, attempt, broken, yours)
        return self._hints[variant]

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
        variant = self.variants[0]
        runs = [run for run in self.runs if run.variant == variant] or [self._replays.get((variant, "attempt"))]
        for run in runs:
            for o in run.observations if run is not None else ():
                inner = o.call[len("solve(") : -1] if o.call.startswith("solve(") and o.call.endswith(")") else ""
                if inner and len(inner) <= 200:
                    try:
                        parse_call_arguments(inner)
                    except ValueError:
                        continue
                    return inner
        return None

    def try_inputs(self, text: str) -> None:
        """Playground: call yours, the attempt and the broken solve on the typed inputs."""
        self._try(text)
        self._changed()

    def _try(self, text: str) -> None:
        self.playground_input = text
        self.playground_rows, self.playground_message = (), ""
        example = self.example_arguments()
        if not text.strip():
            self.playground_message = "Type arguments as Python literals" + (f", for example: {example}" if example else ".")
            return
        try:
            args, kwargs = parse_call_arguments(text, example=example)
        except ValueError as exc:
            self.playground_message = str(exc)
            return
        rows = []
        whose = [("yours", self.solve, None)] if self.solve is not None else []
        whose += [("attempt", None, "attempt"), ("broken", None, "broken")]
        for who, solve, implementation in whose:
            try:
                result = try_call(self.record, solve, args, kwargs, implementation=implementation, timeout=self.timeout)
            except SolutionError as exc:
                rows.append((who, "error", str(exc)))
                continue
            rows.append((who, *_playground_cell(result, self.timeout)))
        self.playground_rows = tuple(rows)

    # ---------------------------------------------------------------- results

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

    def text(self) -> str:
        """The panel's state as plain text: what a static viewer, nbval or a screen reader gets."""
        from ._render_text import render_hints, run_notes, terminal_safe

        lines = [f"{self.record.id} · {clip(self.record.title, 100, one_line=True)}{self._variant_words()}", self.summary()]
        shown = self.partial if self.running else self.runs
        for run in shown:
            lines += [f"  note: {note}" for note in run_notes(run)]
            for o in run.observations:
                prefix = f"N={run.variant} " if len(self.variants) > 1 else ""
                lines.append(f"  {STATUS_SYMBOLS[o.status]} {o.status:<7} {prefix}{clip(o.check, 80, one_line=True)}")
        if self.hints_shown:
            lines.append(render_hints(self.hints, self.hints_shown))
        if self.playground_rows:
            lines.append(f"Playground: solve({clip(self.playground_input, 80, one_line=True)})")
            lines += [f"  {who}: {status} {clip(value, 120, one_line=True)}" for who, status, value in self.playground_rows]
        elif self.playground_message and self.playground_input:
            lines.append(f"Playground: {self.playground_message}")
        text = "\n".join(lines)
        return terminal_safe(text, 1 << 62)  # a plain python prompt prints it: no escape sequence, no lone surrogate; never clipped

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
        r = self.record
        learner = learner_id()
        stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(self.finished_at))
        stem = f"{r.id}-{short_id(learner)}-{stamp}"
        source = self.solve_source or "# The source of solve could not be read.\n"
        header = [
            f"# failuremap_edu export: {r.id} · {clip(r.title, 100, one_line=True)}",
            f"# check again with: failuremap-edu check {r.id if r.packaged else _absolute(r.origin)} {stem}-solve.py"
            + (" --all-variants" if len(self.runs) > 1 else ""),
            f"# in the notebook: paste it into the exercise cell, with the line @fm.exercise({_reference(r)!r}) right above def solve",
            f"# result: {self.summary()}",
        ]
        for run in self.runs:
            variant = f"N={run.variant} " if self.uses_variant else ""
            header += [f"#   {variant}{STATUS_SYMBOLS[o.status]} {o.status:<7} {clip(o.check, 80, one_line=True)}" for o in run.observations]
        py = text_safe("\n".join(header) + "\n\n" + source.strip() + "\n")
        data = {"record": r.id, "learner": learner, "checked_at": stamp, "summary": self.summary(), "solve": source, "runs": [run.to_json() for run in self.runs]}
        return {f"{stem}-solve.py": py, f"{stem}-results.json": text_safe(json.dumps(data, ensure_ascii=False, indent=1)) + "\n"}

    def __repr__(self) -> str:
        return f"Exercise({self.record.id!r}, {self.summary()!r})"

    # ---------------------------------------------------------------- display

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict:
        """The panel (ipywidgets) and its text form; outside a widget frontend only the text."""
        from ._panel import panel_for

        bundle = panel_for(self)._repr_mimebundle_(include=include, exclude=exclude) or {}
        if isinstance(bundle, tuple):
            bundle = bundle[0]
        bundle = dict(bundle)
        bundle["text/plain"] = self.text()
        return bundle


_EXERCISES: dict[tuple, Exercise] = {}
_ACTIVE: list[Exercise] = []
"""Every exercise made in this process, newest last (the cell watcher checks for the newest)."""


def exercise(record: Record | str, **options: Any) -> Exercise:
    """The exercise for `record` (an id, a path, or a Record): the same object every time.

    Re-running a cell with ``@fm.exercise("ID")`` reuses the exercise, its panel
    and its state, so the cell can stand on its own (after a kernel restart too).
    """
    loaded = record if isinstance(record, Record) else load_record(record)
    key = (loaded.origin, tuple(sorted(options.items())))
    found = _EXERCISES.get(key)
    if found is None or found.record != loaded:
        found = _EXERCISES[key] = Exercise(loaded, **options)
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


def _in_ipython() -> bool:
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    return get_ipython() is not None


class _Presentation:
    """Shows the panel below the cell: once, finished, for a quick run; live for a slow one."""

    def __init__(self, exercise: Exercise) -> None:
        self.exercise = exercise
        self.started = time.monotonic()
        self.handle = None
        self.ipython = _in_ipython()

    def progress(self) -> None:
        if self.ipython and self.handle is None and time.monotonic() - self.started >= SHOW_AFTER:
            from IPython.display import display

            self.handle = display(self.exercise, display_id=True)

    def finish(self) -> None:
        if not self.ipython:
            print(self.exercise.text())
            return
        from IPython.display import display

        if self.handle is None:
            display(self.exercise)
        else:
            self.handle.update(self.exercise)  # a saved notebook keeps the finished panel's text


def _watch_cells(exercise: Exercise) -> None:
    """Never silent: a cell that defines solve without the decorator still gets checked, with a note.

    An IPython ``post_run_cell`` hook, registered once per kernel, for the
    exercise made most recently.
    """
    _ACTIVE.append(exercise)
    try:
        from IPython import get_ipython
    except ImportError:
        return
    shell = get_ipython()
    if shell is None or getattr(shell, "_failuremap_watching", False):
        return
    shell._failuremap_watching = True
    shell.events.register("post_run_cell", lambda result: _after_cell(shell, result))


_DEFINES_SOLVE = re.compile(r"^\s*def\s+solve\s*\(", re.MULTILINE)


def _after_cell(shell, result) -> None:
    if not _ACTIVE or not result.success:
        return
    current = _ACTIVE[-1]
    cell = getattr(getattr(result, "info", None), "raw_cell", "") or ""
    solve = shell.user_ns.get("solve")
    if not _DEFINES_SOLVE.search(cell) or not callable(solve) or any(solve is known.solve for known in _ACTIVE):
        return
    line = f"@fm.exercise({_reference(current.record)!r})"
    misplaced, current.misplaced_above = current.misplaced_above, None
    if misplaced:
        print(f"The line {line} is above def {misplaced}, not def solve. The checks ran anyway on solve (the panel is below): move that line right above def solve.")
    else:
        print(
            f"This cell defines solve without the line {line} above it. "
            "The checks ran anyway (the panel is below), but put that line back right above def solve: "
            "without it, this cell only works while this kernel remembers the exercise."
        )
    current.check(solve)


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


def _solve_source(solve: Callable | None) -> str | None:
    """The solve's source without its decorator, with what it needs from the notebook.

    A download must work on its own (checked again with `check`, or pasted into a
    fresh kernel): so it carries the imports solve uses, the helper functions and
    classes of the same cell or notebook it calls (and theirs), and constants that
    are plain literals. Anything else it uses is named in a comment, never silently
    left out.
    """
    if solve is None:
        return None
    body = _definition_source(solve)
    if body is None:
        return None
    namespace = getattr(solve, "__globals__", {})
    imports, helpers, constants, missing = set(), [], [], []
    seen, queue = {"solve"}, [getattr(solve, "__code__", None)]
    while queue:
        for name in sorted(_globals_read(queue.pop(0)) - seen):
            seen.add(name)
            if name not in namespace:
                continue  # a builtin, or a name solve never reaches
            value = namespace[name]
            if name in vars(builtins) and not _from_notebook(value, solve):
                continue  # exit, quit: IPython puts its own in the notebook's namespace
            if isinstance(value, types.ModuleType):
                module = value.__name__
                imports.add(f"import {module}" if module == name else f"import {module} as {name}")
            elif _from_notebook(value, solve):
                source = _definition_source(value)
                if source is None:
                    missing.append(name)
                else:
                    helpers.append(source)
                    queue.append(getattr(value, "__code__", None) or _class_code(value))
            elif (module := _importable_from(value)) is not None:
                imports.add(f"from {module} import {value.__name__}" + ("" if value.__name__ == name else f" as {name}"))
            elif _is_literal(value):
                constants.append(f"{name} = {value!r}")
            else:
                missing.append(name)
    imports.add("import failuremap_edu as fm  # for the line @fm.exercise(...) above def solve, in the notebook")
    parts = ["\n".join(sorted(imports, key=lambda line: (line.startswith("from"), not line.startswith("import failuremap_edu"), line)))]
    parts += ["\n".join(constants)] if constants else []
    parts += [h.rstrip("\n") for h in helpers]
    if missing:
        parts.append("\n".join(f"# note: solve uses {name}, which is not in this file: define it above solve" for name in sorted(missing)))
    return "\n\n".join(parts + [body.rstrip("\n")]) + "\n"


def _definition_source(obj: Any) -> str | None:
    """A function's or class's source, dedented, without decorators (ours among them)."""
    try:
        lines = textwrap.dedent(inspect.getsource(obj)).splitlines()
    except (OSError, TypeError):
        return None
    while lines and lines[0].lstrip().startswith("@"):
        lines.pop(0)
    return "\n".join(lines) + "\n"


def _from_notebook(value: Any, solve: Callable) -> bool:
    """A function or class defined where solve was (a notebook cell), not imported from a package."""
    return isinstance(value, (types.FunctionType, type)) and getattr(value, "__module__", None) == getattr(solve, "__module__", None)


def _importable_from(value: Any) -> str | None:
    """The module to import a function or class from: its public name (functools, not _functools)."""
    import sys

    module, name = getattr(value, "__module__", None), getattr(value, "__name__", None)
    if not isinstance(module, str) or not isinstance(name, str) or module in ("__main__", "builtins") or not callable(value):
        return None
    for candidate in (module.lstrip("_"), module):
        if getattr(sys.modules.get(candidate), name, None) is value:
            return candidate
    return None


def _is_literal(value: Any) -> bool:
    """True when repr(value) reads back as an equal value (ast.literal_eval), so it can be written out."""
    import ast

    if not isinstance(value, (int, float, complex, str, bytes, bool, type(None), tuple, list, dict, set, frozenset)):
        return False
    try:
        text = repr(value)
        return len(text) <= 10_000 and ast.literal_eval(text) == value
    except (ValueError, SyntaxError, RecursionError, MemoryError, TypeError):
        return False


def _class_code(cls: type) -> tuple:
    """The code objects of a class's methods."""
    return tuple(code for member in vars(cls).values() if (code := getattr(member, "__code__", None)) is not None)


def _globals_read(code) -> set[str]:
    """The global names a function (or the methods of a class) reads: not attribute names like the exit of sys.exit."""
    import dis

    if code is None:
        return set()
    if isinstance(code, tuple):
        return set().union(*map(_globals_read, code)) if code else set()
    names = {i.argval for i in dis.get_instructions(code) if i.opname in ("LOAD_GLOBAL", "LOAD_NAME") and isinstance(i.argval, str)}
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _globals_read(const)
    return names


def _playground_cell(result: CallResult, timeout: float) -> tuple[str, str]:
    if result.status == "returned":
        return "returned", safe_repr(result.value, 400)
    if result.status == "timeout":
        return "timeout", f"no result after {timeout:g} s: does solve loop forever on these inputs?"
    return result.status, str(result.error) if result.error else result.status

