"""An exercise's text forms and downloads: the summary line, the plain text, the static HTML, the files of a hand-in.

A mixin of `_exercise.Exercise`: it only reads the model's state. Every state
has a ``text/plain`` form here (static viewers, nbval, screen readers).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import PurePosixPath

from ._fixtures import VARIANTS
from ._outcomes import outcomes
from ._progress import learner_id, short_id, shown_path
from ._values import clip, text_safe
from .render._style import PLAYGROUND_UNCHECKED, STATUS_SYMBOLS
from .runner import SHORT_LIMIT

__all__ = ["ALL_VARIANTS", "HINTS_WAIT", "ExerciseText"]

ALL_VARIANTS = "all"
HINTS_WAIT = "Hints follow your latest run: they are back when these checks are done."


class ExerciseText:
    """The text forms of an exercise (mixed into `_exercise.Exercise`, whose state they read)."""

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
        from .render._story_text import render_hints

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
                "#   (where that command is not found: python3 -m failuremap_edu check ..., with the Python that runs the notebook)",
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


def _keep_spaces(text: str, limit: int) -> str:
    """One line of typed text, clipped, with its spaces kept: ``'a  b'`` must not read as ``'a b'`` (a different input)."""
    return clip(text.replace("\r", "\\r").replace("\n", "\\n"), limit)
