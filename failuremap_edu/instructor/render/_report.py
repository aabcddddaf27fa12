"""The class report as text for a terminal, as one standalone HTML page, and as a heatmap.

Everything that came from a learner's file (check labels, reasons, learner ids,
code) is untrusted text: escaped for the terminal, escaped for HTML, and drawn
with matplotlib's math parser off. The page has no external assets: the
heatmap (checks × learners) is an embedded PNG. The page stays small whatever
is handed in: the heatmap draws at most `HEATMAP_CHECKS` checks and
`HEATMAP_LEARNERS` learners, each table at most `TABLE_ROWS` checks, and the page
says what it left out (the JSON output has everything).
"""

from __future__ import annotations

import base64
import io
from html import escape

from ...render._style import MISSING_STYLE, STATUS_STYLE
from ...render._text import terminal_safe
from .._report import CheckStats, ClassReport, ExerciseStats, Group
from ..._values import clip, text_safe

__all__ = ["HEATMAP_CHECKS", "HEATMAP_LEARNERS", "TABLE_ROWS", "heatmap_figure", "report_page", "report_text", "watch_text"]

_NOT_RUN = MISSING_STYLE[0]
_SHOWN_STUCK = 8
HEATMAP_CHECKS = 120
"""Rows of the heatmap at most, all exercises together (the first checks of the first exercises)."""
HEATMAP_LEARNERS = 200
"""Columns of the heatmap at most (the first learners in the report's order)."""
TABLE_ROWS = 500
"""Checks listed per exercise in the HTML page at most."""


def _runs(value: float | None) -> str:
    if value is None:
        return "—"
    return f"{value:g}"


def _reasons(reasons) -> str:
    return ", ".join(f"{reason} ({n})" for reason, n in reasons) or "—"


def _names(names, limit: int = _SHOWN_STUCK) -> str:
    shown = ", ".join(names[:limit])
    return shown + (f" +{len(names) - limit} more" if len(names) > limit else "")


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


_VERBS = {"return", "get", "raise", "time", "fail", "pass", "make", "loop"}


def _agree(n: int, text: str) -> str:
    """``1 learner returns`` but ``2 learners return``: the group's text starts with its verb."""
    first, _, rest = text.partition(" ")
    return f"{first}s {rest}".rstrip() if n == 1 and first in _VERBS else text


def _times(value: float | None) -> str:
    """``1 run``, ``1.5 runs``."""
    return f"{_runs(value)} run{'' if value == 1 else 's'}"


def _median(value: float | None, of: int, reached: int) -> str:
    """The median and, when it leaves learners out, how many it covers: ``1.5 (2 of 3)``."""
    if value is None:
        return "—" if not reached else f"— (0 of {reached})"
    return _runs(value) + (f" ({of} of {reached})" if of < reached else "")


def _headline(e: ExerciseStats) -> str:
    if not e.learners:
        return f"{e.record}: nobody started it"
    text = f"{e.record}: {_plural(e.learners, 'learner')} ran it ({_plural(e.runs, 'run')}); {e.reached_pass} reached every check passing"
    if e.median_runs_to_pass is not None:
        text += f" (median {_times(e.median_runs_to_pass)}"
        text += f", over {e.median_of} of those {e.reached_pass})" if e.median_of < e.reached_pass else ")"
    elif e.reached_pass:
        text += " (no median: they handed in only panel snapshots)"
    return text + (f"; stuck: {_names(e.stuck)}" if e.stuck else "; nobody stuck")


MEDIAN_NOTE = (
    "Where a median says \"(K of M)\", it covers K of the M learners who passed: the others handed in only the panel's "
    "results file, a snapshot that does not say how many runs it took (a progress log or an export does)."
)


def _covers_less(report: ClassReport) -> bool:
    return any(e.median_of < e.reached_pass or any(c.median_of < c.reached_pass for c in e.checks) for e in report.exercises)


def _group_text(g: Group) -> str:
    still = "" if g.stuck == len(g.learners) else ", all of them pass it since" if not g.stuck else f", {g.stuck} of them still stuck"
    return f"{_plural(len(g.learners), 'learner')} {_agree(len(g.learners), g.text)}{still}"


def _summary(report: ClassReport) -> str:
    if report.listed:
        exercises = f"{report.started} of {len(report.exercises)} exercises started"
    else:
        exercises = _plural(len(report.exercises), "exercise")
    left_out = f" ({_plural(len(report.problems), 'problem')} with them: see “left out”)" if report.problems else ""
    return f"{_plural(len(report.learners), 'learner')}, {exercises}, from {_plural(report.files, 'file')}{left_out}"


def _teaching_lines(e: ExerciseStats, c: CheckStats) -> list[tuple[str, str]]:
    """(implementation, its teaching text) for each implementation a group of this check is named after."""
    named = []
    for g in c.groups:
        for name in g.kind.split("+"):
            if name in e.teaching and name not in named:
                named.append(name)
    return [(name, e.teaching[name]) for name in named]


def report_text(report: ClassReport) -> str:
    """For the terminal: one block per exercise, one row per check."""
    from ._need import need_lines

    lines = [f"Class report: {_summary(report)}"]
    lines += [terminal_safe(note, 400) for note in report.notes]
    if _covers_less(report):
        lines.append(MEDIAN_NOTE)
    for e in report.exercises:
        lines += ["", terminal_safe(_headline(e), 400)]
        if not e.checks:
            continue
        lines.append(f"  {'#':>2}  {'check':<34}  {'passed':>7}  {'median runs':>11}  {'most common reasons':<30}  stuck")
        for c in e.checks:
            lines.append(
                terminal_safe(
                    f"  {c.index + 1:>2}  {clip(c.label, 34, one_line=True):<34}  {f'{c.reached_pass}/{c.learners}':>7}  "
                    f"{_median(c.median_runs_to_pass, c.median_of, c.reached_pass):>11}  {clip(_reasons(c.reasons), 30):<30}  {_names(c.stuck, 4) or '—'}",
                    400,
                )
            )
        told: set[str] = set()  # each implementation's teaching text once per exercise, not under every check
        for c in e.checks:
            if not c.groups:
                continue
            lines.append(terminal_safe(f"  Check {c.index + 1} ({clip(c.label, 60, one_line=True)}), groups of learners who fail it the same way:", 400))
            lines += [terminal_safe(f"    {_group_text(g)}: {_names(g.learners, 6)}", 400) for g in c.groups]
            for name, text in _teaching_lines(e, c):
                if name not in told:
                    told.add(name)
                    lines.append(terminal_safe(f"    Why {_IMPL.get(name, name)} fails: {clip(text, 300, one_line=True)}", 400))
        if report.with_code:
            for name, source in sorted(e.code.items()):
                lines += [terminal_safe(f"  -- code of {name}:", 400)] + ["    " + line for line in terminal_safe(source, 20_000).splitlines()]
    lines += ["", *need_lines(report)]
    if report.problems:
        lines += ["", "Left out (files that could not be used, lines that could not be read):"]
        lines += [terminal_safe(f"  {problem}", 400) for problem in report.problems]
    return "\n".join(lines)


_CSS = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 72em; padding: 0 1em; color: #222; }
table { border-collapse: collapse; margin: .5em 0 1.5em; }
th, td { border-bottom: 1px solid #ccc; padding: .3em .6em; text-align: left; vertical-align: top; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
img { max-width: 100%; height: auto; }
pre { background: #f6f6f6; padding: .6em; overflow-x: auto; }
.problems { color: #8a1f11; }
"""


_IMPL = {"attempt": "the attempt", "broken": "the broken implementation"}


def _groups_html(e: ExerciseStats, c: CheckStats, told: set | None = None) -> str:
    told = set() if told is None else told
    items = "".join(f"<li>{escape(_group_text(g))}: {escape(_names(g.learners, 12))}</li>" for g in c.groups)
    why = ""
    for name, text in _teaching_lines(e, c):
        if name not in told:  # once per exercise
            told.add(name)
            why += f"<p><b>Why {escape(_IMPL.get(name, name))} fails:</b> {escape(text)}</p>"
    return f"<h3>Check {c.index + 1}: {escape(c.label)}, groups of learners who fail it the same way</h3><ul>{items}</ul>{why}"


def report_page(report: ClassReport, title: str = "Class report") -> str:
    """A standalone HTML page: the headline, the heatmap, a table per exercise, and its groups of the same mistake."""
    parts = [
        f"<h1>{escape(title)}</h1>",
        f"<p>{escape(_summary(report))}. "
        + ("Learners are shown by their names (hub user names, or from --names): this page holds real names, "
           "keep it to yourself.</p>" if report.named else "Learners are shown by pseudonyms (the id of their progress log, or --anonymise).</p>"),
    ]
    parts += [f"<p>{escape(note)}</p>" for note in report.notes]
    if _covers_less(report):
        parts.append(f"<p>{escape(MEDIAN_NOTE)}</p>")
    if report.problems:
        items = "".join(f"<li>{escape(p)}</li>" for p in report.problems)
        parts.append(f'<div class="problems"><p>Left out (files that could not be used, lines that could not be read):</p><ul>{items}</ul></div>')
    from ._need import needs_html

    parts.append(needs_html(report))
    png = base64.b64encode(_png(heatmap_figure(report))).decode("ascii")
    left_out = heatmap_left_out(report)
    parts.append(
        '<h2>Checks × learners</h2><p>Green: passed at least once. Otherwise the colour of the latest result; grey: not run.</p>'
        + (f"<p>{escape(left_out)}</p>" if left_out else "")
        + f'<img alt="heatmap of checks by learners" src="data:image/png;base64,{png}">'
    )
    for e in report.exercises:
        more = len(e.checks) - TABLE_ROWS
        rows = "".join(
            f"<tr><td class=n>{c.index + 1}</td><td>{escape(c.label)}</td><td class=n>{c.reached_pass}/{c.learners}</td>"
            f"<td class=n>{escape(_median(c.median_runs_to_pass, c.median_of, c.reached_pass))}</td><td>{escape(_reasons(c.reasons))}</td>"
            f"<td>{escape(', '.join(c.stuck)) or '—'}</td></tr>"
            for c in e.checks[:TABLE_ROWS]
        )
        if more > 0:
            rows += f"<tr><td></td><td colspan=5>… {more:,} more checks not listed here (the --json output has every check)</td></tr>"
        parts.append(
            f"<h2>{escape(e.record)}</h2><p>{escape(_headline(e))}</p><table><thead><tr><th>#</th><th>check</th><th>passed</th>"
            f"<th>median runs to pass</th><th>most common reasons</th><th>stuck</th></tr></thead><tbody>{rows}</tbody></table>"
            if e.checks else f"<h2>{escape(e.record)}</h2><p>{escape(_headline(e))}</p>"
        )
        told: set = set()
        parts += [_groups_html(e, c, told) for c in e.checks[:TABLE_ROWS] if c.groups]
        if report.with_code:
            parts += [f"<h3>Code of {escape(name)}</h3><pre>{escape(source)}</pre>" for name, source in sorted(e.code.items())]
    return text_safe(
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{escape(title)}</title><style>{_CSS}</style></head><body>{''.join(parts)}</body></html>\n"
    )


def _heatmap_rows(report: ClassReport) -> list[tuple[ExerciseStats, int]]:
    """The exercises the heatmap draws, each with how many of its checks: `HEATMAP_CHECKS` rows at most."""
    out, left = [], HEATMAP_CHECKS
    for e in report.exercises:
        if left <= 0:
            break
        rows = min(len(e.checks), left)
        out.append((e, rows))
        left -= max(rows, 1)
    return out


def heatmap_left_out(report: ClassReport) -> str:
    """What the heatmap does not draw, in one sentence; empty when it draws everything."""
    drawn = _heatmap_rows(report)
    checks = sum(len(e.checks) for e in report.exercises)
    shown_checks = sum(rows for _, rows in drawn)
    parts = []
    if shown_checks < checks:
        parts.append(f"{checks - shown_checks:,} of {checks:,} checks ({len(report.exercises) - len(drawn):,} whole exercises among them)"
                     if len(drawn) < len(report.exercises) else f"{checks - shown_checks:,} of {checks:,} checks")
    if len(report.learners) > HEATMAP_LEARNERS:
        parts.append(f"{len(report.learners) - HEATMAP_LEARNERS:,} of {len(report.learners):,} learners")
    if not parts:
        return ""
    return f"The heatmap leaves out {' and '.join(parts)}; it draws at most {HEATMAP_CHECKS} checks and {HEATMAP_LEARNERS} learners. The tables list the checks."


def heatmap_figure(report: ClassReport):
    """Checks (rows, grouped by exercise) × learners (columns), built without pyplot.

    At most `HEATMAP_CHECKS` rows and `HEATMAP_LEARNERS` columns (`heatmap_left_out`
    says what is left out): the figure's size, and the time and memory it takes, are bounded.
    """
    from matplotlib.colors import ListedColormap
    from matplotlib.figure import Figure
    from matplotlib.patches import Patch

    order = list(STATUS_STYLE)
    colours = [STATUS_STYLE[s][0] for s in order] + [_NOT_RUN]
    cmap = ListedColormap(colours)
    drawn = _heatmap_rows(report)
    learners = [terminal_safe(name, 40) for name in report.learners[:HEATMAP_LEARNERS]]
    labels = [[terminal_safe(clip(c.label, 34, one_line=True), 60) for c in e.checks[:rows]] for e, rows in drawn]
    heights = [max(rows, 1) for _, rows in drawn] or [1]
    columns = max(len(learners), 1)
    width = min(4.5 + 0.28 * columns, 18)
    # Placed by hand, in inches measured from the labels' lengths: a layout engine lays every label out once more
    # before the draw (a third of a 100-learner page's time). A character of DejaVu Sans is at most 0.62 em wide.
    names = 7 / 72 * 0.62 * max(map(len, learners), default=0) + 0.1  # under the last heatmap: the names, turned upright
    left = 8 / 72 * 0.62 * max((len(label) for rows in labels for label in rows), default=0) + 0.2
    title, row_in, gap, legend, margin = 0.25, 0.32, 0.12, 0.35, 0.08
    keys = [s if s != "pass" else "passed" for s in order] + ["not run"]
    # The legend in one row: each key's text, and its handle and gaps, about 5 em.
    width = max(width, 8 / 72 * (0.62 * sum(map(len, keys)) + 5 * len(keys)) + 2 * margin)
    height = margin + sum(title + row_in * h + gap for h in heights) + names + legend
    fig = Figure(figsize=(width, height))
    axes, top = [], height - margin
    for h in heights:
        top -= title + row_in * h
        axes.append(fig.add_axes((left / width, top / height, max(width - left - margin, 0.5) / width, row_in * h / height)))
        top -= gap
    # The learners' names under the last heatmap only: the columns line up (one column of axes, the same learners),
    # and each tick label is laid out at every draw (300 of them were most of a 100-learner page's time).
    named = max((i for i, (e, rows) in enumerate(drawn) if e.checks[:rows]), default=None)
    for i, (ax, (e, rows)) in enumerate(zip(axes, drawn)):
        checks = e.checks[:rows]
        if not checks:  # an exercise of the workshop nobody started
            ax.set_axis_off()
            ax.set_title(terminal_safe(clip(e.record, 80), 120) + ": nobody started it", fontsize=9, loc="left", parse_math=False)
            continue
        grid = [[order.index(cell) if cell in order else len(order) for cell in c.cells[:HEATMAP_LEARNERS]] for c in checks]
        ax.imshow(grid, cmap=cmap, vmin=0, vmax=len(colours) - 1, aspect="auto", interpolation="nearest")
        ax.set_yticks(range(len(checks)))
        ax.set_yticklabels(labels[i], fontsize=8, parse_math=False)
        if i == named:
            ax.set_xticks(range(len(learners)))
            ax.set_xticklabels(learners, rotation=90, fontsize=7, parse_math=False)
        else:
            ax.set_xticks([])
        more = f"  (first {rows} of {len(e.checks):,} checks)" if rows < len(e.checks) else ""
        ax.set_title(terminal_safe(clip(e.record, 80), 120) + more, fontsize=9, loc="left", parse_math=False)
        # The white lines between cells: two line collections, not a minor tick per line (each tick is text and
        # lines of its own, laid out at every draw: 600 of them were most of a 100-learner page's time).
        ax.vlines([x - 0.5 for x in range(1, len(learners))], -0.5, len(checks) - 0.5, colors="white", linewidth=1)
        ax.hlines([y - 0.5 for y in range(1, len(checks))], -0.5, len(learners) - 0.5, colors="white", linewidth=1)
        ax.set_xlim(-0.5, len(learners) - 0.5)
        ax.set_ylim(len(checks) - 0.5, -0.5)  # as imshow has it: the first check on top
        ax.tick_params(which="both", length=0)
    handles = [Patch(facecolor=colour, label=key) for colour, key in zip(colours, keys)]
    fig.legend(handles=handles, loc="lower center", ncol=len(handles), frameon=False, fontsize=8, borderaxespad=0.2)
    return fig


def _png(fig) -> bytes:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110)
    return buffer.getvalue()


WATCH_GROUPS = 3
"""Groups of the same mistake shown per check in the live view."""
WATCH_NEEDS = 5
"""Learners × exercises shown under "who needs help" in the terminal's live view (most first; the live page shows more)."""


def watch_text(report: ClassReport, when: str = "") -> str:
    """The live view (``report --watch``): per exercise and check, who started, who passes, the largest groups.

    Short by design (a projector, a glance during the session): one line per check,
    one line per group, every learner file read as the report reads it.
    """
    from ._need import need_lines

    lines = [f"Class live view{(' at ' + when) if when else ''}: {_summary(report)}"]
    lines += [terminal_safe(note, 300) for note in report.notes]
    lines += need_lines(report, WATCH_NEEDS)
    for e in report.exercises:
        if not e.learners:
            lines.append(terminal_safe(f"{e.record}: nobody started it", 300))
            continue
        lines.append(terminal_safe(f"{e.record}: {e.learners} started, {e.reached_pass} pass every check", 300))
        for c in e.checks[:TABLE_ROWS]:
            stuck = f"; stuck: {_names(c.stuck)}" if c.stuck else ""
            lines.append(terminal_safe(f"  {c.index + 1:>2} {clip(c.label, 40, one_line=True):<40} {c.reached_pass} of {c.learners} pass{stuck}", 300))
            lines += [terminal_safe(f"       {clip(_group_text(g), 100, one_line=True)}", 300) for g in c.groups[:WATCH_GROUPS]]
    return "\n".join(lines)
