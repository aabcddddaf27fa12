"""The exercise panel: ipywidgets that mirror an `Exercise` and forward clicks to it.

The panel subscribes to its exercise and only reads it: every change of state
(a check finishing, a hint revealed, a new solve) re-renders the parts that
depend on it, through the HTML renderers. One panel per exercise, reused on
every run, so re-running the solve cell never duplicates widgets.
"""

from __future__ import annotations

import base64
import sys
import weakref
from html import escape
from typing import Any

from ._exercise import ALL_VARIANTS, HINTS_WAIT, Exercise
from ._panel_parts import PARTS, build_part, place_parts
from ._progress_export import export_link_html
from ._fixtures import VARIANTS
from ._values import text_safe

__all__ = ["Panel", "held", "panel", "panel_for"]

PLAYGROUND_DELAY = 0.35
"""Seconds of quiet typing before the playground runs (debounce)."""
STALE = (
    "This panel lost its kernel (it was restarted or shut down), so its buttons and playground do nothing. "
    "Run the exercise cell again for a live panel."
)
"""Shown only while ipywidgets marks the panel disconnected (pure CSS: a dead kernel cannot say it)."""
PLAYGROUND_HELP = (
    "Type the arguments you would put between solve( and ): values, or expressions over the record's names "
    "(range(7), iter([1, 2]), its classes and helpers). Results appear as you type, no Enter needed; each call stops at a check's time limit. "
    "There is no expected value here: the playground runs code, it does not know the answer. "
    "Each call is made afresh, in a process of its own: nothing carries over from the checks, or from one call here to the next."
)


def hints_offer(e: Exercise, total: int) -> str:
    """The line before any hint is open. "Try again before you open the next" to someone who passes every check was
    advice for nothing: then the hints are a comparison with the attempt."""
    if e.runs and all(run.passed for run in e.runs):
        return f"{total} hint{'s' if total != 1 else ''}, for comparison: you pass every check, and they show where the attempt fails and why."
    return f"{total} hint{'s' if total != 1 else ''} for your latest run, one at a time: try again before you open the next."


def playground_contract(contract: str) -> str:
    """The contract beside the playground: nothing checks typed inputs against it (it is prose), so say whose job that is."""
    return f"Only inputs the contract allows have a right answer; it says: {' '.join(contract.split())}" if contract.strip() else ""


_KEEP_WORK_SERVER = "Hosted sessions (Binder, a hub) vanish: keep your work with these links."
_KEEP_WORK_BROWSER = "Your notebook is kept in this browser's storage; these links save a copy elsewhere."
PLAYGROUND_NAME = "Arguments to try, as between solve( and )"
"""The playground box's accessible name (its title): what a screen reader says, instead of "solve("."""
FONT_HELP = (
    "For the back of the room: View → Appearance → Presentation Mode enlarges the whole notebook, and "
    "Settings → Theme → Increase Content Font Size / Increase Code Font Size enlarge its text; "
    "this panel follows both."
)


_PANELS: "weakref.WeakKeyDictionary[Exercise, weakref.ref[Panel]]" = weakref.WeakKeyDictionary()
"""One panel per exercise, found here, weakly on both sides: the exercise keeps its panel alive only through its
listener, and the panel's open widgets keep both alive while shown; this table keeps neither."""


def _found(exercise: Exercise) -> "Panel | None":
    ref = _PANELS.get(exercise)
    return None if ref is None else ref()


def panel(exercise: Exercise) -> "Panel":
    """The exercise's panel (built on first use, then reused)."""
    found = _found(exercise)
    if found is None:
        found = Panel(exercise)
        _PANELS[exercise] = weakref.ref(found)
    return found


def held(exercise: Exercise) -> "Panel | None":
    """The exercise's panel, held (`Panel.hold`), if it exists; a panel not built yet is built finished, when shown."""
    found = _found(exercise)
    if found is not None:
        found.hold()
    return found


def panel_for(exercise: Exercise) -> Any:
    """The exercise's panel widget (built on first use, then reused)."""
    return panel(exercise).root


def _html(body: str) -> str:
    return f'<div class="fm-root">{text_safe(body)}</div>'


def status_line(e: Exercise, end: bool = False, live: bool = False) -> str:
    """The panel's first (and last) line, short: a mark, `K/N checks pass`, and when a re-run changed nothing, that it ran."""
    mark = ""
    if not e.running and not e.message and e.runs:
        mark = '<span class="fm-mark">✓</span> ' if all(r.passed for r in e.runs) else '<span class="fm-mark">✗</span> '
    again = f' <span class="fm-rerun">· {escape(e.rerun_note)}</span>' if e.rerun_note and not e.running else ""
    where = " fm-status-end" if end else ""
    said = f'<span class="fm-summary">{escape(e.summary())}</span>{again}'
    if live:  # the summary and a re-run's note are announced ("ran again at …: same result" is the only news then), not the mark
        said = f'<span role="status" aria-live="polite">{said}</span>'
    return f'<p class="fm-status{where}">{mark}{said}</p>'


def log_note_html(e: Exercise) -> str:
    """The progress log's note after a run ("progress is not being saved: ..."), a line under the result's, or nothing."""
    return f'<p class="fm-note fm-log-note">{escape(e.log_note)}</p>' if e.log_note and not e.running else ""


class Panel:
    """The widgets. They mirror an Exercise's state and forward clicks to it."""

    def __init__(self, exercise: Exercise) -> None:
        import ipywidgets as w

        from .render._html import CSS, PANEL_CSS

        self.exercise = e = exercise
        # One Layout and one style per kind, shared: each is a model of its own, and one per widget was 45 of a first
        # run's 85 widget models (messages, each opened in the browser). Nothing here changes a widget's layout or style.
        from ipywidgets.widgets.widget_string import HTMLStyle

        auto, plain, html_style, button_style = w.Layout(width="auto"), w.Layout(), HTMLStyle(), w.ButtonStyle()

        def html(value: str = "") -> Any:
            return w.HTML(value, layout=plain, style=html_style)

        def row(children: list) -> Any:
            return w.HBox(children, layout=plain)

        def button(description: str, tooltip: str, disabled: bool = False) -> Any:
            return w.Button(description=description, tooltip=tooltip, layout=auto, style=button_style, disabled=disabled)

        # The first state, computed before any widget exists: each is opened with it, not opened empty and then
        # sent an update (12 messages of a first run).
        first = self._first_state()
        self.header = html(first["header"].value)
        # The variant: a number box and a checkbox, not a select. JupyterLab's command mode takes
        # ArrowUp/ArrowDown from a focused <select> (they move the active cell; ipywidgets issue 3912),
        # while ipywidgets' number box keeps its keys: there the arrows change N, as a learner expects.
        # A plain number box, not a bounded one: BoundedIntText turns a typed 9 into 5 with no word,
        # so the kernel checks the range and says so beside the box.
        self.variant = w.IntText(
            value=e.variant if e.variant in VARIANTS else VARIANTS[0],
            # The range in the label too, so that it is in view before anything is typed.
            description=f"Variant N ({VARIANTS[0]}–{VARIANTS[-1]})", continuous_update=True, style={"description_width": "initial"},
            layout=w.Layout(width="15em"), disabled=first["variant"].disabled,
        )
        self.variant_note = html(first["variant_note"].value)
        self.all_variants = w.Checkbox(value=e.variant == ALL_VARIANTS, description="all variants", indent=False, layout=auto)
        # No icons on buttons: ipywidgets draws them as <i class="fa"> without aria-hidden, so the
        # icon font's glyph would start every button's spoken name.
        self.rerun = button("Run checks again", "Run the checks again on the solve the cell last ran (to check an edit, run the cell: Shift+Enter)",
                            first["rerun"].disabled)
        self.status = html(first["status"].value)
        self.status_end = html(first["status_end"].value)
        """The same line again at the panel's end: after Shift+Enter JupyterLab scrolls the next cell into view, and a
        tall panel's top goes out of view while its bottom stays (at 1366x900; the browser test checks it)."""
        self.mistake = html(first["mistake"].value)
        self.checks = html(first["checks"].value)
        # The folded parts (downloads, the comparison, hints, the playground) are made when first opened: until then
        # their widgets are the stand-ins `update` writes to (each widget is a model opened in the browser: a first
        # run sent 42 of them). `open_part` makes them with the stand-ins' values, so nothing is lost.
        self._make = {"html": html, "row": row, "button": button}
        self._pending = None
        if e.presenter:
            self.reveal = button("Reveal everything", "Open every hint and every check")
            self.hide = button("Hide everything", "Close every hint and check again")
            self.reveal.on_click(lambda _: e.reveal_all())
            self.hide.on_click(lambda _: e.hide_all())
        self.variant.observe(self._on_variant, names="value")
        self.all_variants.observe(self._on_all_variants, names="value")
        self.rerun.on_click(lambda _: e.run())
        self._opened: dict[str, tuple] = {}
        """Each part made so far: its widgets, in the panel's order."""
        self._shown_parts: set[str] = set()
        self.folds = {name: button(f"▸ {title}", tip) for name, (title, tip) in PARTS.items()}
        for name, fold in self.folds.items():
            fold.on_click(lambda _, name=name: self.toggle_part(name))

        controls = [self.variant, self.all_variants, self.rerun, self.variant_note] if e.uses_variant else [self.rerun]
        presenter = [row([self.reveal, self.hide]), html(_html(f'<p class="fm-muted">{escape(FONT_HELP)}</p>'))] if e.presenter else []
        self.root = w.VBox(
            [
                html(f"<style>{CSS}{PANEL_CSS}</style>"),
                self.status,  # first: after Shift+Enter JupyterLab scrolls to the next cell, and this line stays in view
                self.header,
                *presenter,
                row(controls),
                self.mistake,
                self.checks,
                *self.folds.values(),
                self.status_end,
            ],
            layout=w.Layout(border="1px solid rgba(128,128,128,.4)", padding="6px"),
        )
        self.root.add_class("fm-panel")  # the panel's own CSS (focus, reflow) is scoped under it
        if e.hints_shown:
            self.open_part("hints")
        e.subscribe(lambda _: self.update())

    _SHOWN = ("header", "variant", "variant_note", "all_variants", "rerun", "status", "status_end", "mistake", "checks", "downloads",
              "export_link", "compare", "next_hint", "hide_hints", "hints", "inputs", "outputs")
    """The widgets `update` sets."""

    def _first_state(self) -> dict[str, Any]:
        """What `update` would set on each widget now, set on stand-ins (no widget exists yet)."""
        from types import SimpleNamespace

        e = self.exercise
        self._downloads_for: tuple | None = None
        self._held = False
        self._exported = None
        """The runs the export link was made after (None: no link, or one already marked stale)."""
        for name in self._SHOWN:
            setattr(self, name, SimpleNamespace(value="", disabled=False, placeholder=""))
        self.variant.value, self.all_variants.value = e.variant if e.variant in VARIANTS else VARIANTS[0], e.variant == ALL_VARIANTS
        self.update()
        return {name: getattr(self, name) for name in self._SHOWN}

    # ------------------------------------------------------------ quick runs

    def hold(self) -> None:
        """Render nothing until `release`: a quick run is not shown while it is under way (`_cell._Showing`).

        Every change of state re-renders the panel, and every widget whose value
        changed sends a message to the browser: during a run that is each check as
        it ends, the checks' HTML growing by one check each time. Held, the panel
        renders once, finished, and each widget sends at most one message, only
        when its final value differs from what the browser already shows.
        """
        self._held = True

    def release(self) -> None:
        """Render the current state (what the held run left), and follow every change again."""
        if self._held:
            self._held = False
            self.update()

    # ---------------------------------------------------------- folded parts

    def is_open(self, name: str) -> bool:
        """Whether a folded part's widgets are in the panel now."""
        return name in self._shown_parts

    def toggle_part(self, name: str) -> None:
        """Open a folded part (made the first time), or fold it again."""
        if self.is_open(name):
            self._shown_parts.discard(name)
            place_parts(self)
            self.folds[name].description = f"▸ {PARTS[name][0]}"  # after the children: the browser has them when it changes
        else:
            self.open_part(name)

    def open_part(self, name: str) -> None:
        """Show a folded part, making its widgets the first time from what `update` left on their stand-ins."""
        if self.is_open(name):
            return
        if name not in self._opened:
            self._opened[name] = build_part(self, name)
        self._shown_parts.add(name)
        place_parts(self)
        self.folds[name].description = f"▾ {PARTS[name][0]}"  # after the children: the browser has them when it changes

    # ---------------------------------------------------------------- input

    def _on_variant(self, change) -> None:
        new = change["new"]
        if new not in VARIANTS:
            shown = "all variants" if self.exercise.variant == ALL_VARIANTS else f"N = {self.exercise.variant}"
            self.variant_note.value = _html(f'<span class="fm-note">N goes from {VARIANTS[0]} to {VARIANTS[-1]}: {new} is not a variant, '
                                            f"so the checks still show {shown}.</span>")
            return
        self.variant_note.value = ""
        if new != self.exercise.variant:
            self.exercise.select_variant(new)

    def _on_all_variants(self, change) -> None:
        e = self.exercise
        if change["new"] and e.variant != ALL_VARIANTS:
            e.select_variant(ALL_VARIANTS)
        elif not change["new"] and e.variant == ALL_VARIANTS:
            e.select_variant(self.variant.value)

    # A pressed button that becomes disabled drops keyboard focus to <body>. So before a press
    # disables its own button, focus moves to the other hint button (enabled first: ipywidgets
    # applies the messages in order, the state before the focus request).

    def _on_export(self, _=None) -> None:
        self._exported = self.exercise.runs
        nothing = ("Nothing is in the progress log to export: it could not be written (the note under the result says why)."
                   if self.exercise.log_note else "Nothing is logged yet: run the exercise cell first.")
        self.export_link.value = _html(export_link_html() or f'<p class="fm-muted">{nothing}</p>')

    def _export_went_stale(self) -> None:
        """A link made before the latest run holds the runs up to then: say so, rather than offer the old file to hand in."""
        e = self.exercise
        if self.export_link.value and self._exported is not None and e.runs is not self._exported and not e.running:
            self._exported = None
            self.export_link.value = _html('<p class="fm-note">You ran the checks again since this export: press '
                                           "“Export everything you ran” again for a file with your latest runs.</p>")

    def _on_next_hint(self, _=None) -> None:
        e = self.exercise
        total = e.hints_available
        if total is not None and e.hints_shown + 1 >= total:  # this press shows the last hint
            self._move_focus(self.hide_hints)
        e.reveal_hint()

    def _on_hide_hints(self, _=None) -> None:
        self._move_focus(self.next_hint)
        self.exercise.hide_hints()

    def _move_focus(self, button) -> None:
        button.disabled = False
        button.focus()

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

    # --------------------------------------------------------------- output

    def update(self) -> None:
        from .render._grid import playground_pictures_html
        from .render._html import checks_html, comparison_html, hints_html, playground_html
        from .render._text import COMPARISON_NOTE

        if self._held:
            return
        e = self.exercise
        variant = "" if not e.uses_variant else (" · all variants" if e.variant == ALL_VARIANTS else f" · variant N = {e.variant}")
        self.header.value = _html(
            f'<p class="fm-stale">{escape(STALE)}</p><h3 class="fm-title">{escape(e.heading)}{escape(variant)}</h3>'
        )
        if e.variant in VARIANTS and self.variant.value != e.variant:
            self.variant.value = e.variant
        if self.all_variants.value != (e.variant == ALL_VARIANTS):
            self.all_variants.value = e.variant == ALL_VARIANTS
        # Greyed while all five run: the box's 3 beside "all variants" is not the variant checked.
        self.variant.disabled = e.variant == ALL_VARIANTS
        # Not disabled while running: a disabled button loses keyboard focus (a press during a run waits for it).
        self.rerun.disabled = e.solve is None
        # The summary, once a run is over, is the one polite live region: a screen reader announces
        # the result line, not each check as it ends (the copy at the panel's end is not live).
        self.status.value = _html(status_line(e, live=not e.running) + log_note_html(e))
        self.status_end.value = _html(status_line(e, end=True))
        note = e.mistake if e.mistake and not e.running else e.pass_note
        self.mistake.value = _html(f'<p class="fm-note">{escape(note)}</p>') if note else ""
        self._export_went_stale()
        runs = e.partial if e.running else e.runs
        self.checks.value = checks_html(runs, expand=e.expanded, missing_return=e.missing_return) if runs else ""
        # The links carry the files: made only once their part is (until then the stand-in holds nothing).
        made = "downloads" in getattr(self, "_opened", {})
        self.downloads.value = "" if e.running or not e.runs or not made else self._download_links()
        comparisons = e.comparisons()
        if comparisons:
            self.compare.value = "".join(
                comparison_html(c.runs, c.names, caption=f"N = {c.runs[0].variant}" if len(comparisons) > 1 else None) for c in comparisons
            ) + _html(f'<p class="fm-muted">{escape(COMPARISON_NOTE)}</p>')
        else:
            self.compare.value = _html('<p class="fm-muted">Shown after the first run.</p>')
        total = e.hints_available
        if e.hints_shown and e.running:
            self.hints.value = _html(f'<p class="fm-muted">{escape(HINTS_WAIT)}</p>')
        elif e.hints_shown:
            self.hints.value = hints_html(e.hints, e.hints_shown)
        elif total is None:
            self.hints.value = _html("<p>Hints are ready after the first run.</p>")
        else:
            self.hints.value = _html(f"<p>{escape(hints_offer(e, total))}</p>")
        if e.hints_shown and not e.running and getattr(self, "root", None) is not None:
            self.open_part("hints")  # a hint revealed (Reveal everything too) is in view
        self.next_hint.disabled = e.running or (total is not None and e.hints_shown >= total)
        self.hide_hints.disabled = e.hints_shown == 0
        example = e.example_arguments()
        self.inputs.placeholder = example or ""
        if e.playground_rows or (e.playground_message and e.playground_input):
            pictures = playground_pictures_html(e.playground_values) if e.playground_rows else ""
            self.outputs.value = playground_html(e.playground_rows, e.playground_message, pictures=pictures)
        else:
            self.outputs.value = _html(f'<p class="fm-muted">{escape(e.playground_message)}</p>') if e.playground_message else ""

    def _download_links(self) -> str:
        """One-click downloads through the browser (data: links), never via the server's disk.

        Built once per result (the links carry the whole file): not on every hint click, and not for a re-run
        that gave the same result, whose files the model keeps (`Exercise.download_of`; a re-run sent 7 KB).
        """
        e = self.exercise
        key = (e.download_of, e.solve_source)  # the objects themselves: a freed tuple's id() comes back
        if self._downloads_for is None or self._downloads_for[0] is not key[0] or self._downloads_for[1] != key[1]:
            links = []
            for name, text in e.export_files().items():
                kind = "text/x-python" if name.endswith(".py") else "application/json"
                data = base64.b64encode(text.encode("utf-8")).decode("ascii")
                label = "your solve (.py)" if name.endswith(".py") else "your results (.json)"
                links.append(f'<a class="fm-download" download="{escape(name)}" href="data:{kind};charset=utf-8;base64,{data}">⬇ Download {label}</a>')
            tip = _KEEP_WORK_BROWSER if sys.platform == "emscripten" else _KEEP_WORK_SERVER
            self._downloads_html = _html("<p>" + " · ".join(links) + f' <span class="fm-muted">{tip}</span></p>')
            self._downloads_for = key
        return self._downloads_html
