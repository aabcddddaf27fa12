"""matplotlib rendering: a status grid of checks × runs, and a sequence of numbers as a line chart.

Cells are coloured by status (a colour-blind-safe palette) *and* carry the status
word and a hatch pattern, so the figure reads in greyscale and print too. The
figure is built without pyplot unless an axes is passed in, so exporting from the
command line uses no GUI backend and leaves no global figure state behind.

Layout rules, because these figures are projected and exported: titles are wrapped
to the width they have, never cut; legends sit outside the data area, never on top
of a cell or a point; and many runs of several variants become small multiples, one
panel per variant, instead of one grid too wide to read.

Titles and labels are record text: drawn as they are, with matplotlib's math
parser off (``$5 per call, $10`` keeps its dollars), control characters and lone
surrogates escaped (`terminal_safe`).
"""

from __future__ import annotations

import math
import textwrap
from pathlib import Path
from typing import Sequence

from .._results import RunResult, check_labels
from .._values import clip
from ._style import MISSING_STYLE, STATUS_STYLE

__all__ = ["STATUS_STYLE", "plot_progress", "plot_status", "save_status", "sequence_figure", "status_figure"]

_MISSING = MISSING_STYLE


def plot_status(
    runs: Sequence[RunResult], ax, names: Sequence[str] | None = None, title: str | None = None, *, legend: bool = True
):
    """Draw the grid into `ax` (rows: checks, columns: runs) and return `ax`.

    The legend goes below the grid, outside its cells; ``legend=False`` leaves it
    out (a figure of several panels draws one legend for all). A title is wrapped
    to the axes' width. A figure holding only this axes and no layout of its own
    (``plt.subplots()``) gets constrained layout, so labels, title and legend fit.
    """
    from matplotlib.patches import Rectangle

    names = list(names or [f"{r.solver} (N={r.variant})" for r in runs])
    labels = check_labels(runs)
    for col, run in enumerate(runs):
        for row in range(len(labels)):
            o = run.observations[row] if row < len(run.observations) else None
            face, hatch, word = STATUS_STYLE[o.status] if o else _MISSING
            ax.add_patch(Rectangle((col, row), 1, 1, facecolor=face, edgecolor="white", hatch=hatch, linewidth=2))
            ax.text(col + 0.5, row + 0.5, word, ha="center", va="center", fontsize=9, fontweight="bold", color="black",
                    bbox={"boxstyle": "round,pad=0.15", "facecolor": "white", "edgecolor": "none", "alpha": 0.85})
    ax.set_xlim(0, len(runs))
    ax.set_ylim(len(labels), 0)
    ax.set_xticks([i + 0.5 for i in range(len(runs))])
    ax.set_xticklabels([f"{_wrap(_safe(n), 14)}\n{r.passed_count}/{r.total} pass" for n, r in zip(names, runs)], fontsize=9, parse_math=False)
    ax.xaxis.tick_top()
    ax.set_yticks([i + 0.5 for i in range(len(labels))])
    ax.set_yticklabels([clip(_safe(label), 34) for label in labels], fontsize=9, parse_math=False)
    ax.tick_params(length=0)
    for spine in ax.spines.values():
        spine.set_visible(False)
    if legend:
        ax.legend(handles=_status_handles(), loc="upper center", bbox_to_anchor=(0.5, -0.02), ncol=4, frameon=False, fontsize=9)
    if title:
        # Matplotlib lifts a title above top tick labels by itself; wrap it to the axes' width.
        ax.set_title(_wrap(_safe(title), _chars_across(_axes_width_inches(ax), 10)), fontsize=10, parse_math=False)
    _make_room(ax)
    return ax


def status_figure(runs: Sequence[RunResult], names: Sequence[str] | None = None, title: str | None = None):
    """A standalone Figure (no pyplot) with the status grid.

    Runs of one variant make one grid. Runs of several variants (``check
    --all-variants``) make one panel per variant, two panels across, each with its
    own check labels (loops give variants different checks) and one legend below all.
    """
    from matplotlib.figure import Figure

    names = list(names or [f"{r.solver} (N={r.variant})" for r in runs])
    groups: dict[int, list[tuple[RunResult, str]]] = {}
    for run, name in zip(runs, names):
        groups.setdefault(run.variant, []).append((run, name))
    panels = [(None, list(zip(runs, names)))] if len(groups) <= 1 else [(f"N = {v}", members) for v, members in groups.items()]
    across = min(2, len(panels))
    down = -(-len(panels) // across)
    columns = max(len(members) for _, members in panels)
    rows = max((len(check_labels([r for r, _ in members])) for _, members in panels), default=1)
    width = across * (2.4 + 1.2 * max(columns, 2)) + 0.2
    panel_height = (1.3 if len(panels) > 1 else 1.0) + 0.42 * max(rows, 1)
    fig = Figure(figsize=(width, down * panel_height + 0.9 + (0.5 if title else 0)), layout="constrained")
    fig.get_layout_engine().set(h_pad=0.12)  # inches between panel rows: a panel's title is not the row above's label
    for i, (panel_title, members) in enumerate(panels):
        ax = fig.add_subplot(down, across, i + 1)
        plot_status([r for r, _ in members], ax, [n for _, n in members], legend=False)
        if panel_title:
            ax.set_title(panel_title, fontsize=10, fontweight="bold")
    fig.legend(handles=_status_handles(), loc="outside lower center", ncol=4, frameon=False, fontsize=9)
    if title:
        fig.suptitle(_wrap(_safe(title), _chars_across(width, 11)), fontsize=11, parse_math=False)
    return fig


def save_status(runs: Sequence[RunResult], path: str | Path, names: Sequence[str] | None = None, title: str | None = None) -> Path:
    """Write the status grid as PNG or SVG (chosen by the file's suffix)."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in (".png", ".svg"):
        raise ValueError(f"{path}: the plot must be a .png or .svg file")
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    fig = status_figure(runs, names, title)
    FigureCanvasAgg(fig)
    from io import BytesIO

    from .._atomic import write_bytes

    buffer = BytesIO()
    fig.savefig(buffer, format=suffix[1:], dpi=110)
    return write_bytes(path, buffer.getvalue())  # whole or not at all


def plot_progress(entries: Sequence[dict], ax, title: str = "Checks passing over your runs"):
    """One line per exercise: the share of checks passing at each run of its exercise cell (`cell_runs`: the variants
    and re-checks of one run are one point, as the progress table counts them).

    The legend sits to the right of the axes, outside the data (a learner's lines
    end at 100 %, exactly where a legend inside would go). So that it is not cut
    off, a figure holding only this axes and no layout of its own gets matplotlib's
    constrained layout, which makes room for it (see `_make_room`).
    """
    from matplotlib.ticker import MaxNLocator

    from .._progress import cell_runs

    by_record: dict[str, list[float]] = {}
    for record_id, results in cell_runs(entries):
        total = sum(e.get("total") or 0 for e in results)
        by_record.setdefault(record_id, []).append(sum(e["passed"] for e in results) / total if total else 0.0)
    markers = "osD^v<>"
    for i, (record_id, shares) in enumerate(sorted(by_record.items())):
        ax.plot(range(1, len(shares) + 1), [100 * s for s in shares], marker=markers[i % len(markers)], label=_safe(record_id).replace("$", r"\$"))
    if not by_record:
        ax.text(0.5, 0.5, "No runs logged yet: run an exercise's solve cell.", ha="center", va="center", transform=ax.transAxes)
    else:
        ax.legend(fontsize=9, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0, frameon=False,
                  ncol=1 if len(by_record) <= 10 else 2)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_ylim(-5, 105)
    ax.set_xlabel("run of the exercise cell")
    ax.set_ylabel("checks passing (%)")
    ax.set_title(_wrap(_safe(title), _chars_across(_axes_width_inches(ax), 10)), fontsize=10, parse_math=False)
    _make_room(ax)
    return ax


SEQUENCE_STYLE = {"expected": ("#0072B2", "-", "o"), "got": ("#D55E00", "--", "x")}
"""Colour, line style and marker of each side of a sequence chart: the two differ in all three, so the chart reads in greyscale."""


def sequence_figure(expected: Sequence, got: Sequence):
    """A standalone Figure (no pyplot): expected and got as two lines over their positions.

    Numbers that are not finite, or too large for a float, are left out of the line (a gap), never
    drawn as a spike off the axes. The legend sits below the axes, outside the data.
    """
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6.4, 2.9), layout="constrained")
    ax = fig.add_subplot(1, 1, 1)
    longest = max(len(expected), len(got))
    marker_size = 5 if longest <= 60 else 2
    for name, values in (("expected", expected), ("got", got)):
        colour, style, marker = SEQUENCE_STYLE[name]
        ax.plot(range(len(values)), [_plotted(v) for v in values], color=colour, linestyle=style, marker=marker,
                markersize=marker_size, linewidth=1.6, label=name)
    ax.set_xlabel("position")
    ax.set_ylabel("value")
    ax.grid(True, linewidth=0.4, alpha=0.5)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.28), ncol=2, frameon=False, fontsize=9)
    return fig


def _plotted(value) -> float:
    try:
        number = float(value)
    except (OverflowError, TypeError, ValueError):
        return float("nan")
    return number if math.isfinite(number) else float("nan")


def _make_room(ax) -> None:
    """Constrained layout for a figure of this one axes that has no layout: room for what sits outside it.

    A figure with several axes, or a layout chosen by its owner, is left alone.
    """
    fig = ax.figure
    if fig.get_layout_engine() is None and fig.axes == [ax]:
        fig.set_layout_engine("constrained")


def _status_handles():
    from matplotlib.patches import Patch

    return [Patch(facecolor=face, hatch=hatch, edgecolor="white", label=word.lower()) for face, hatch, word in STATUS_STYLE.values()]


def _safe(text: str) -> str:
    from ._text import terminal_safe

    return terminal_safe(text, 4_000)


def _wrap(text: str, width: int) -> str:
    """Break `text` at spaces into lines of at most `width` characters; never drop a word."""
    return "\n".join(textwrap.wrap(text, max(width, 8), break_long_words=False, break_on_hyphens=False)) or text


def _chars_across(inches: float, fontsize: float) -> int:
    """How many characters of DejaVu Sans fit in `inches` (0.62 em each: a little wider than average)."""
    return int(inches * 72 / (fontsize * 0.62))


def _axes_width_inches(ax) -> float:
    return ax.get_position().width * ax.figure.get_figwidth()
