"""The exercise panel: live checks, diffs, variants, comparison, hints and a playground.

The learner's cell holds only their function and one line of glue::

    @exercise.check
    def solve(text, stops):
        ...

Running that cell re-runs the checks and shows the panel right below it. It is a
plain decorator, so it works the same in JupyterLab, Notebook 7, VS Code and a
plain Python prompt. The panel is one set of widgets per exercise, reused on
every run: re-running the cell never duplicates panels or widgets.

State and logic live in `Exercise` itself and never touch a widget; the widgets
are built on first display and only mirror that state. Every state has a
``text/plain`` form (`Exercise.text`) for static viewers, nbval and screen readers.
"""

from __future__ import annotations

import base64
import inspect
import json
import textwrap
import types
from typing import Any, Callable

from ._fixtures import VARIANTS, read_fixtures
from ._parity import recorded_run
from ._progress import log_run
from ._records import Record, load_record
from ._results import CallResult, Comparison, Observation, RunResult
from ._runner import DEFAULT_TIMEOUT, SolutionError, parse_call_arguments, replay, run_checks, try_call
from ._values import STATUS_SYMBOLS, clip, safe_repr
from ._warm import warm_up

__all__ = ["Exercise"]

ALL_VARIANTS = "all"
CHECKING = "checking your solve…"
PLAYGROUND_DELAY = 0.35
"""Seconds of quiet typing before the playground runs (debounce)."""


class Exercise:
    """One record as an exercise: check a `solve`, show why checks fail, reveal hints."""

    def __init__(
        self,
        record: Record | str,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        variant: int | str = 1,
        log_progress: bool = True,
        presenter: bool = False,
    ) -> None:
        self.record = record if isinstance(record, Record) else load_record(record)
        self.fixtures = read_fixtures(self.record)
        self.timeout = timeout
        self.variant = variant
        self.log_progress = log_progress
        self.solve: Callable | None = None
        self.runs: tuple[RunResult, ...] = ()
        self.message = ""
        """A one-line problem to show instead of results (e.g. a signature mismatch)."""
        self.running = ""
        self.hints_shown = 0
        self.playground_input = ""
        self.playground_rows: tuple[tuple[str, str, str], ...] = ()
        self.playground_message = ""
        self.presenter = presenter
        """Presenter aids: reveal or hide everything at once, and a large font for projectors."""
        self.expanded = False
        self.large_font = False
        self._replays: dict[int, Comparison] = {}
        warm_up()  # the learner reads the task first: by the first run, a warm worker is ready
        self._solve_text: str | None = None
        self._downloads: str | None = None
        self._ui: _Panel | None = None

    # ------------------------------------------------------------------ logic

    @property
    def hints(self) -> tuple[tuple[str, str], ...]:
        """Contract, then what goes wrong, then the plausible attempt, then the root cause."""
        r = self.record
        return (
            ("The contract", f"solve({r.contract_signature}): {r.contract}"),
            ("What goes wrong", r.abstract),
            ("The plausible attempt, and why it fails", r.failed_approach),
            ("Root cause", r.root_cause),
        )

    def check(self, solve: Callable) -> Callable:
        """Decorator: show the panel, check `solve` (the panel fills in live), hand `solve` back.

        In a notebook the cell's output is the panel, then one printed line: the
        summary. The panel is shown before the checks run so that a slow or looping
        solve shows each check as it finishes.
        """
        _bind_early(solve)
        self.solve = solve
        self.running = CHECKING
        handle = self._display(initial=True)
        self.run()
        self._display(initial=False, handle=handle)
        return solve

    def run(self) -> tuple[RunResult, ...]:
        """Run the checks for the selected variant (or all variants) against the current solve."""
        if self.solve is None:
            self.message = "No solve checked yet: put @exercise.check above your def solve and run that cell."
            self._refresh()
            return ()
        variants = VARIANTS if self.variant == ALL_VARIANTS else (int(self.variant),)
        runs: list[RunResult] = []
        self.message = ""
        try:
            for variant in variants:
                done: list[Observation] = []

                def progress(o: Observation, variant=variant, done=done) -> None:
                    done.append(o)
                    self.running = f"running variant N = {variant}: {len(done)} of {self.fixtures.static_count or '?'} checks done…"
                    self._refresh(partial=tuple(runs), current=tuple(done), variant=variant)

                runs.append(run_checks(self.record, self.solve, variant, self.timeout, progress=progress))
        except SolutionError as exc:
            self.message = str(exc)
            runs = []
        finally:
            self.running = ""
        self.runs = tuple(runs)
        self._solve_text = _solve_source(self.solve)  # read once per run: for the log and the downloads
        self._downloads = None
        if self.log_progress:
            source = self._solve_text
            for result in self.runs:
                warning = log_run(result, source)
                if warning:
                    self.message = warning
        self._refresh()
        return self.runs

    def select_variant(self, variant: int | str) -> None:
        if variant != ALL_VARIANTS and variant not in VARIANTS:
            raise ValueError(f"variant must be 1-5 or {ALL_VARIANTS!r}, got {variant!r}")
        self.variant = variant
        self.run()

    def reveal_hint(self) -> None:
        self.hints_shown = min(self.hints_shown + 1, len(self.hints))
        self._refresh()

    def hide_hints(self) -> None:
        self.hints_shown = 0
        self._refresh()

    def reveal_all(self) -> None:
        """Presenter aid: every hint and every check's details open at once."""
        self.hints_shown, self.expanded = len(self.hints), True
        self._refresh()

    def hide_all(self) -> None:
        self.hints_shown, self.expanded = 0, False
        self._refresh()

    def set_large_font(self, on: bool) -> None:
        self.large_font = bool(on)
        self._refresh()

    def export_files(self) -> dict[str, str]:
        """Your solve and its latest results, as file name -> text (.py and .json).

        The .py holds the results in a comment header and the imports your solve
        uses, so `failuremap-edu check RECORD FILE.py` can check it again.
        """
        r = self.record
        source = self._solve_text or "# The source of solve could not be read.\n"
        header = [
            f"# failuremap_edu export: {r.id} · {clip(r.title, 100, one_line=True)}",
            f"# check again with: failuremap-edu check {r.id if r.packaged else r.origin} {r.id}-solve.py",
            f"# result: {self.summary()}",
        ]
        for run in self.runs:
            header += [f"#   N={run.variant} {STATUS_SYMBOLS[o.status]} {o.status:<7} {clip(o.check, 80, one_line=True)}" for o in run.observations]
        py = "\n".join(header) + "\n\n" + source.strip() + "\n"
        data = {
            "record": r.id,
            "summary": self.summary(),
            "solve": source,
            "runs": [run.to_json() for run in self.runs],
        }
        return {f"{r.id}-solve.py": py, f"{r.id}-results.json": json.dumps(data, ensure_ascii=False, indent=1) + "\n"}

    def comparison(self) -> Comparison:
        """broken, attempt (replayed and, for the recorded variant, as recorded) and yours."""
        variant = self.runs[0].variant if self.runs else (1 if self.variant == ALL_VARIANTS else int(self.variant))
        if variant not in self._replays:
            runs, names = [], []
            if variant == self.fixtures.default_variant:
                for name in ("broken", "attempt"):
                    runs.append(recorded_run(self.record, name))
                    names.append(f"{name} (recorded)")
            for name in ("broken", "attempt"):
                runs.append(replay(self.record, name, variant, self.timeout))
                names.append(name)
            self._replays[variant] = Comparison(self.record.id, tuple(runs), tuple(names))
        base = self._replays[variant]
        if self.runs:
            return Comparison(self.record.id, base.runs + (self.runs[0],), base.names + ("yours",))
        return base

    def try_inputs(self, text: str) -> None:
        """Playground: call yours, the attempt and the broken solve on the typed inputs."""
        self.playground_input = text
        self.playground_rows, self.playground_message = (), ""
        if not text.strip():
            self.playground_message = "Type arguments as Python literals, for example: " + _example_call(self)
        else:
            try:
                args, kwargs = parse_call_arguments(text)
            except ValueError as exc:
                self.playground_message = str(exc)
            else:
                rows = []
                whose = [("yours", self.solve, None)] if self.solve is not None else []
                whose += [("attempt", None, "attempt"), ("broken", None, "broken")]
                for who, solve, implementation in whose:
                    try:
                        o = try_call(self.record, solve, args, kwargs, implementation=implementation, timeout=self.timeout)
                    except SolutionError as exc:
                        rows.append((who, "error", str(exc)))
                        continue
                    rows.append((who, *_playground_cell(o)))
                self.playground_rows = tuple(rows)
        self._refresh()

    def summary(self) -> str:
        if self.message:
            return self.message
        if not self.runs:
            return "No solve checked yet."
        if len(self.runs) == 1:
            return self.runs[0].summary()
        passed = sum(r.passed_count for r in self.runs)
        total = sum(r.total for r in self.runs)
        return f"{passed}/{total} checks pass across variants " + ", ".join(f"N={r.variant}: {r.passed_count}/{r.total}" for r in self.runs)

    def text(self) -> str:
        """The panel's state as plain text: what a static viewer, nbval or a screen reader gets."""
        variant = "all variants" if self.variant == ALL_VARIANTS else f"variant N = {self.variant}"
        lines = [f"{self.record.id} · {clip(self.record.title, 100, one_line=True)} ({variant})", self.running or self.summary()]
        if self.running:
            return "\n".join(lines)
        for run in self.runs:
            for o in run.observations:
                prefix = f"N={run.variant} " if len(self.runs) > 1 else ""
                lines.append(f"  {STATUS_SYMBOLS[o.status]} {o.status:<7} {prefix}{clip(o.check, 80, one_line=True)}")
        if self.hints_shown:
            lines.append(f"Hints ({self.hints_shown} of {len(self.hints)}):")
            lines += [f"  {title}: {clip(text, 300, one_line=True)}" for title, text in self.hints[: self.hints_shown]]
        if self.playground_rows:
            lines.append(f"Playground: solve({clip(self.playground_input, 80, one_line=True)})")
            lines += [f"  {who}: {status} {clip(value, 120, one_line=True)}" for who, status, value in self.playground_rows]
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"Exercise({self.record.id!r}, {self.summary()!r})"

    # --------------------------------------------------------------- display

    @property
    def panel(self):
        """The ipywidgets panel (built on first use)."""
        if self._ui is None:
            self._ui = _Panel(self)
        return self._ui.root

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict:
        bundle = self.panel._repr_mimebundle_(include=include, exclude=exclude) or {}
        if isinstance(bundle, tuple):
            bundle = bundle[0]
        bundle = dict(bundle)
        bundle["text/plain"] = self.text()
        return bundle

    def _display(self, initial: bool, handle=None):
        """In IPython: the panel first, then (after the run) its final text and the summary line."""
        try:
            from IPython import get_ipython
            from IPython.display import display
        except ImportError:
            get_ipython = None  # type: ignore[assignment]
        if get_ipython is None or get_ipython() is None:
            if not initial:
                print(self.text())
            return None
        if initial:
            return display(self, display_id=True)
        if handle is not None:
            handle.update(self)  # saved notebooks keep the final text form
        print(self.summary())
        return None

    def _refresh(self, **progress: Any) -> None:
        if self._ui is not None:
            self._ui.update(**progress)


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
    """The solve's source without its decorator, preceded by the imports it uses."""
    try:
        source = inspect.getsource(solve) if solve is not None else None
    except (OSError, TypeError):
        return None
    if source is None:
        return None
    lines = textwrap.dedent(source).splitlines()
    while lines and lines[0].lstrip().startswith("@"):
        lines.pop(0)
    imports = []
    namespace = getattr(solve, "__globals__", {})
    for name in _names_used(getattr(solve, "__code__", None)):
        value = namespace.get(name)
        if isinstance(value, types.ModuleType):
            module = value.__name__
            imports.append(f"import {module}" if module == name else f"import {module} as {name}")
    return "\n".join(sorted(set(imports)) + ([""] if imports else []) + lines) + "\n"


def _names_used(code) -> set[str]:
    if code is None:
        return set()
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _names_used(const)
    return names


def _playground_cell(result: CallResult) -> tuple[str, str]:
    if result.status == "returned":
        return "returned", safe_repr(result.value, 400)
    return result.status, str(result.error) if result.error else result.status


def _example_call(exercise: Exercise) -> str:
    site = exercise.fixtures.sites[0]
    source = site.actual_source
    return source[len("solve(") : -1] if source.startswith("solve(") and source.endswith(")") else "…"


class _Panel:
    """The widgets. They mirror an Exercise's state and forward clicks to it."""

    def __init__(self, exercise: Exercise) -> None:
        import ipywidgets as w

        from ._render_html import CSS

        self.exercise = exercise
        e = exercise
        options = [(f"N = {v}", v) for v in VARIANTS] + [("all variants", ALL_VARIANTS)]
        self.header = w.HTML()
        self.variant = w.Dropdown(options=options, value=e.variant, description="Variant", layout=w.Layout(width="auto"))
        self.rerun = w.Button(description="Run checks again", icon="refresh", tooltip="Run the checks on your current solve")
        self.status = w.HTML()
        self.checks = w.HTML()
        self.compare = w.HTML()
        self.next_hint = w.Button(description="Show next hint", icon="lightbulb-o", tooltip="Reveal one more hint")
        self.hide_hints = w.Button(description="Hide hints", tooltip="Hide all hints again")
        self.hints = w.HTML()
        self.inputs = w.Text(
            placeholder=_example_call(e), description="solve(", continuous_update=True, layout=w.Layout(width="95%"),
        )
        self.outputs = w.HTML()
        self.downloads = w.HTML()
        self.reveal = w.Button(description="Reveal everything", icon="eye", tooltip="Open every hint and every check")
        self.hide = w.Button(description="Hide everything", icon="eye-slash", tooltip="Close every hint and check again")
        self.large = w.ToggleButton(description="Large font", icon="search-plus", tooltip="Bigger text for projectors", value=e.large_font)
        self.reveal.on_click(lambda _: e.reveal_all())
        self.hide.on_click(lambda _: e.hide_all())
        self.large.observe(lambda change: e.set_large_font(change["new"]), names="value")
        self._pending = None
        self.variant.observe(self._on_variant, names="value")
        self.rerun.on_click(lambda _: e.run())
        self.next_hint.on_click(lambda _: e.reveal_hint())
        self.hide_hints.on_click(lambda _: e.hide_hints())
        self.inputs.observe(self._on_inputs, names="value")
        heading = lambda text: w.HTML(f'<div class="fm-root"><strong>{text}</strong></div>')  # noqa: E731
        self.root = w.VBox(
            [
                w.HTML(f"<style>{CSS}</style>"),
                self.header,
                *([w.HBox([self.reveal, self.hide, self.large])] if e.presenter else []),
                w.HBox([self.variant, self.rerun]),
                self.status,
                self.checks,
                self.downloads,
                heading("Compared with the record's broken and attempt"),
                self.compare,
                heading("Hints"),
                w.HBox([self.next_hint, self.hide_hints]),
                self.hints,
                heading("Playground: try any inputs"),
                self.inputs,
                self.outputs,
            ],
            layout=w.Layout(border="1px solid rgba(128,128,128,.4)", padding="6px"),
        )
        self.update()

    def _on_variant(self, change) -> None:
        if change["new"] != self.exercise.variant:
            self.exercise.select_variant(change["new"])

    def _on_inputs(self, change) -> None:
        """Debounced: wait for a pause in typing, then run (on the kernel's event loop)."""
        import asyncio

        text = change["new"]
        if self._pending is not None:
            self._pending.cancel()
            self._pending = None
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self.exercise.try_inputs(text)  # no event loop (plain Python, tests): run now
            return
        self._pending = loop.call_later(PLAYGROUND_DELAY, self.exercise.try_inputs, text)

    def update(self, partial: tuple = (), current: tuple = (), variant: int | None = None) -> None:
        from ._render_html import checks_html, comparison_html, hints_html, playground_html
        from html import escape

        e = self.exercise
        r = e.record
        self.header.value = (
            f'<div class="fm-root"><strong>{escape(r.title)}</strong> · <code>{escape(r.id)}</code></div>'
        )
        if self.variant.value != e.variant:
            self.variant.value = e.variant
        if e.running:
            live = RunResult(r.id, "yours", variant or 1, tuple(current), e.timeout, "process")
            self.status.value = f'<div class="fm-root"><p class="fm-summary">{escape(e.running)}</p></div>'
            self.checks.value = checks_html(list(partial) + [live])
            return
        self.status.value = f'<div class="fm-root"><p class="fm-summary">{escape(e.summary())}</p></div>'
        self.checks.value = checks_html(e.runs, expand=e.expanded) if e.runs else ""
        if e.runs and e._downloads is None:
            e._downloads = _download_links(e)  # once per run, not on every hint click
        self.downloads.value = e._downloads if e.runs else ""
        size = "20px" if e.large_font else ""
        for widget in (self.header, self.status, self.checks, self.compare, self.hints, self.outputs, self.downloads):
            widget.style.font_size = size
        if self.large.value != e.large_font:
            self.large.value = e.large_font
        comparison = e.comparison()
        self.compare.value = comparison_html(comparison.runs, comparison.names)
        self.hints.value = hints_html(e.hints[: e.hints_shown], len(e.hints))
        self.next_hint.disabled = e.hints_shown >= len(e.hints)
        self.hide_hints.disabled = e.hints_shown == 0
        if e.playground_rows or e.playground_message:
            self.outputs.value = playground_html(e.playground_rows, e.playground_message)
        else:
            self.outputs.value = ""


def _download_links(exercise: Exercise) -> str:
    """One-click downloads through the browser (data: links), never via the server's disk."""
    from html import escape

    links = []
    for name, text in exercise.export_files().items():
        kind = "text/x-python" if name.endswith(".py") else "application/json"
        data = base64.b64encode(text.encode("utf-8")).decode("ascii")
        label = "your solve (.py)" if name.endswith(".py") else "your results (.json)"
        links.append(f'<a class="fm-download" download="{escape(name)}" href="data:{kind};charset=utf-8;base64,{data}">⬇ Download {label}</a>')
    return '<div class="fm-root"><p>' + " · ".join(links) + "</p></div>"
