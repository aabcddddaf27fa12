"""The notebook front of an exercise: the panel below the cell, and the cell watcher.

It wires the model (`_exercise.Exercise`, which knows no widget) to its view
(`_panel`) by registering itself as the exercise's front on import; the public
``fm.exercise`` and ``fm.Exercise`` come from here, so a notebook always gets it.
It keeps each finished run in the progress log (`NotebookFront.keep`): the model does no I/O.
Outside IPython (a plain ``python`` prompt) it behaves as the model's plain front:
the text of the finished run is printed.
"""

from __future__ import annotations

import re
import sys
import time
import weakref

from ._exercise import Exercise, PlainFront, _reference, exercise, use_front
from ._live import LIVE
from ._panel import held, panel_for
from ._values import text_safe

__all__ = ["Exercise", "exercise"]

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
SHOW_AFTER = 1.0
"""Seconds a run may take before its panel is shown while it is still running (or the time limit, if shorter:
a check that timed out is shown when it does).
A quick run (the usual case) is shown once, finished: no flicker, and a saved
notebook never stores a half-done panel. A slow one shows each check as it ends."""

SAVED_CSS = (
    # A panel drawn in this output area: its saved copy is not shown (the panel says the same, and more).
    ".jp-OutputArea:has(.fm-panel)>.jp-OutputArea-child:has(.fm-saved){display:none}"
    # No panel drawn (JupyterLite after a reload: "Loading widget...", for good): that widget output is not shown.
    # It is the output without data-mime-type: JupyterLab's own renderers (HTML, text, errors) all set one.
    ".jp-OutputArea:has(.fm-saved)>.jp-OutputArea-child:has(>.jp-OutputArea-output:not([data-mime-type])):not(:has(.fm-panel)){display:none}"
)
"""How the saved copy and the live panel share one output area: exactly one of them shows (CSS ``:has``)."""


def _in_browser() -> bool:
    """JupyterLite (Pyodide): there a reloaded page never draws a saved widget (see `_SavedCopy`)."""
    return sys.platform == "emscripten"


def _in_kernel() -> bool:
    """A notebook's kernel (ipykernel, or JupyterLite's), not a terminal IPython, where a second output would print twice."""
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    return shell is not None and (getattr(shell, "kernel", None) is not None or _in_browser())


LIVE_PANEL = "(The live panel of this exercise shows here when the cell runs.)"
"""The panel's text form when the saved copy above it holds the results: a viewer without widgets shows both outputs,
and the whole text twice, under the copy, would read as a second report."""


def saved_when(exercise: Exercise) -> str:
    """Which code the saved results belong to: after a reload the cell may hold an edit that never ran.

    The time is said only in the browser's Python (JupyterLite), where a reload always shows this copy. A server's
    kernel gives the same copy to nbval, which compares it with the stored one: a time there never matches."""
    at = exercise.finished_at if _in_browser() else None
    when = "" if at is None else f", at {time.strftime('%H:%M', time.localtime(at))}"
    return f"Results of the code as it was when last run{when}"


def saved_copy_bundle(exercise: Exercise) -> dict:
    """The saved copy's output: the last results as static HTML and as text (the panel below it says only where it is)."""
    from .render._html import html_text

    when = saved_when(exercise)
    return {
        "text/plain": text_safe(f"{exercise.text(results_only=True)}\n({when[0].lower()}{when[1:]}: run the cell to check again)"),
        "text/html": text_safe(
            f'<div class="fm-saved"><style>{SAVED_CSS}</style><p class="fm-note fm-when">{html_text(when)}.</p>{exercise.static_html()}</div>'
        ),
    }


def _in_ipython() -> bool:
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    return get_ipython() is not None


def _import_widgets_soon() -> None:
    """Import ipywidgets on a thread of its own, now, while the learner reads: the panel needs it at the first run
    (0.6 s under load, a third of a first Shift+Enter). A run that comes first waits for the same import, no longer."""
    import threading

    if "ipywidgets" in sys.modules or sys.platform == "emscripten":  # Pyodide (JupyterLite) starts no threads
        return
    try:
        threading.Thread(target=__import__, args=("ipywidgets",), name="failuremap-import-widgets", daemon=True).start()
    except RuntimeError:  # no threads here: the first run imports it
        pass


class NotebookFront(PlainFront):
    """Shows an exercise as its panel below the cell (IPython), or as text elsewhere."""

    def created(self, exercise: Exercise) -> None:
        _watch_cells(exercise)
        if _in_kernel():
            _import_widgets_soon()

    def start(self, exercise: Exercise):
        return _Showing(exercise)

    def misplaced(self, exercise: Exercise, name: str) -> None:
        if not _in_ipython():  # in a notebook, the cell watcher checks the cell's solve and says so
            super().misplaced(exercise, name)

    def keep(self, exercise: Exercise) -> str:
        """Append each of the latest runs to the progress log, and send them to the class collector on a hub (in the background).

        Returns the line said beside the runs when one was not saved (`_progress.unsaved_note`, for every such
        run), else "": a log that cannot be written or read never changes the runs' results."""
        from ._poster import notify
        from ._progress import log_run, progress_path, unsaved_note

        note = ""
        try:
            for result in exercise.runs:
                said = log_run(result, exercise.solve_source, title=exercise.record.title, replays=exercise.replays(result.variant), run=exercise.cell_run)
                note = note or said or ""
        except OSError as exc:  # a log that cannot even be read (log_run says itself when it cannot append): never instead of the result
            note = note or unsaved_note(progress_path(), exc)
        notify()
        return note

    def bundle(self, exercise: Exercise, include=None, exclude=None) -> dict:
        """The panel (ipywidgets) and its text form; outside a widget frontend only the text counts."""
        root = panel_for(exercise)
        # The widget's view, as ipywidgets' own _repr_mimebundle_ makes it, without its text/plain: that is the repr of
        # every widget of the panel with their values (a third of a quick run's time), clipped, and replaced here anyway.
        bundle = {WIDGET_VIEW: {"version_major": 2, "version_minor": 0, "model_id": root.model_id}} if root._view_name is not None else {}
        saved = _saved(exercise)
        if saved is not None and (saved.handle is not None or saved.coming):
            # The results, as HTML and text, are in the saved copy beside it once the run is done. A slow run is shown
            # while it runs and updated at its end; a notebook tester compares the first display, so it is this one too.
            bundle["text/plain"] = LIVE_PANEL
            return bundle
        bundle["text/plain"] = text_safe(exercise.text())
        if not exercise.running:  # the last results, static: a front that cannot show the widget shows these (docs/how-to/install.md)
            bundle["text/html"] = text_safe(exercise.static_html())
        return bundle


class _SavedCopy:
    """The last results as static HTML, an output of its own right above the live panel.

    A widget output is drawn only from a model, and after a reload there may be none:
    - JupyterLite 0.8 never answers a ``comm_info_request`` (its ``BaseKernel.handleMessage`` has no case for
      it), and JupyterLab's widget manager asks one before it restores any widget, from the kernel or from
      the notebook's saved state: every widget output waits for good ("Loading widget...");
    - on a server, a notebook saved after a kernel restart holds no widget state (the restart cleared the
      models), and a reload says "Error displaying widget: model not found".
    In neither case is the widget output's own text/html drawn. This copy is an ordinary HTML output, kept
    like any other: after a reload it shows the last results and says to run the cell again, and the widget
    output that draws nothing is hidden (`SAVED_CSS`). While the panel is drawn, the copy is hidden. It
    follows every finished run, the panel's re-runs too, so a reload shows the latest.
    """

    def __init__(self, exercise: Exercise) -> None:
        self.exercise = exercise
        self.handle = None
        self.coming = False
        """The cell's run will show this copy when it is done: the panel's own bundle leaves the results to it."""
        self._shown: tuple | None = None
        exercise.subscribe(self._changed)

    def _state(self) -> tuple:
        e = self.exercise
        return (e.runs, e.message, e.variant, e.mistake)

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict:
        return saved_copy_bundle(self.exercise)

    def show(self) -> None:
        from IPython.display import display

        self._shown, self.coming = self._state(), False
        self.handle = display(self, display_id=True)

    def _changed(self, exercise: Exercise) -> None:
        if self.handle is None or exercise.running:
            return
        now = self._state()
        if self._shown is not None and now[0] is self._shown[0] and now[1:] == self._shown[1:]:
            return  # a hint, the playground: the saved results are the same
        self._shown = now
        self.handle.update(self)


_SAVED: "weakref.WeakKeyDictionary[Exercise, weakref.ref[_SavedCopy]]" = weakref.WeakKeyDictionary()
"""Each exercise's saved copy, weakly on both sides: the exercise holds its copy (a listener), never this table."""


def _saved(exercise: Exercise) -> "_SavedCopy | None":
    ref = _SAVED.get(exercise)
    return None if ref is None else ref()


def _saved_copy(exercise: Exercise) -> _SavedCopy:
    found = _saved(exercise)
    if found is None:
        found = _SavedCopy(exercise)
        _SAVED[exercise] = weakref.ref(found)
    return found


class _Showing:
    """Shows the panel below the cell: once, finished, for a quick run; live for a slow one."""

    def __init__(self, exercise: Exercise) -> None:
        self.exercise = exercise
        self.started = time.monotonic()
        self.handle = None
        self.ipython = _in_ipython()
        self.saved = _saved_copy(exercise) if self.ipython and _in_kernel() else None
        if self.saved is not None:
            self.saved.handle = None  # the cell runs again: its earlier outputs are gone
            self.saved.coming = True  # shown right after the panel, once the run is done (`finish`)
        self.panel = held(exercise) if self.ipython else None
        """The panel of an earlier run, held until the run is shown: a quick run sends its widgets' final state once."""

    def _show(self, display_id: bool = False):
        from IPython.display import display

        return display(self.exercise, display_id=True) if display_id else display(self.exercise)

    def progress(self) -> None:
        if self.ipython and self.handle is None and time.monotonic() - self.started >= min(SHOW_AFTER, self.exercise.timeout):
            self.abandon()  # slow: from now on every check is shown as it ends
            self.handle = self._show(display_id=True)

    def abandon(self) -> None:
        """The run stopped (an interrupt) or is shown live: the panel follows the exercise again."""
        if self.panel is not None:
            self.panel, panel = None, self.panel
            panel.release()

    def finish(self) -> None:
        if not self.ipython:
            print(self.exercise.text())
            return
        if self.handle is None:
            self.abandon()  # the finished state, once: one message per widget that changed
            self._show()
        else:
            self.abandon()
            self.handle.update(self.exercise)  # a saved notebook keeps the finished panel's text
        if self.saved is not None:
            # After the panel, and only once the run is done, quick or slow: the copy is first shown finished. A tool
            # that keeps a cell's first outputs and no update of them (nbval) stored a slow run's copy half-done.
            self.saved.show()


def _watch_cells(exercise: Exercise) -> None:
    """Never silent: a cell that defines solve without the decorator still gets checked, with a note.

    An IPython ``post_run_cell`` hook, registered once per kernel, for the
    newest exercise (`_live.LIVE`).
    """
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
    current = LIVE.newest
    if current is None or not result.success:
        return
    cell = getattr(getattr(result, "info", None), "raw_cell", "") or ""
    solve = shell.user_ns.get("solve")
    if not _DEFINES_SOLVE.search(cell) or not callable(solve) or any(solve is known.solve for known in LIVE.exercises()):
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


use_front(NotebookFront())
