"""matplotlib rendering: a status grid of checks × runs.

Cells are coloured by status (a colour-blind-safe palette) *and* carry the status
word and a hatch pattern, so the figure reads in greyscale and print too. The
figure is built without pyplot unless an axes is passed in, so exporting from the
command line uses no GUI backend and leaves no global figure state behind.
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

from ._results import RunResult, check_labels
from ._values import clip

__all__ = ["STATUS_STYLE", "plot_progress", "plot_status", "save_status", "status_figure"]

STATUS_STYLE = {
    # status: (face colour, hatch, word in the cell)
    "pass": ("#009E73", "", "pass"),
    "fail": ("#D55E00", "///", "FAIL"),
    "error": ("#E69F00", "xx", "ERROR"),
    "timeout": ("#CC79A7", "..", "TIMEOUT"),
}
_MISSING = ("#DDDDDD", "", "—")


def plot_status(runs: Sequence[RunResult], ax, names: Sequence[str] | None = None, title: str | None = None):
    """Draw the grid into `ax` (rows: checks, columns: runs) and return `ax`."""
    from matplotlib.patches import Patch, Rectangle

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
    ax.set_xticklabels([f"{n}\n{r.passed_count}/{r.total} pass" for n, r in zip(names, runs)], fontsize=9)
    ax.xaxis.tick_top()
    ax.set_yticks([i + 0.5 for i in range(len(labels))])
    ax.set_yticklabels([clip(label, 34) for label in labels], fontsize=9)
    ax.tick_params(length=0)
    for spine in ax.spines.values():
        spine.set_visible(False)
    handles = [Patch(facecolor=face, hatch=hatch, edgecolor="white", label=word.lower()) for face, hatch, word in STATUS_STYLE.values()]
    ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.02), ncol=4, frameon=False, fontsize=9)
    if title:
        ax.set_title(title, fontsize=10, pad=36)
    return ax


def status_figure(runs: Sequence[RunResult], names: Sequence[str] | None = None, title: str | None = None):
    """A standalone Figure (no pyplot) with the status grid."""
    from matplotlib.figure import Figure

    rows = max((len(r.observations) for r in runs), default=1)
    fig = Figure(figsize=(2.2 + 1.6 * len(runs), 1.4 + 0.42 * rows), layout="constrained")
    plot_status(runs, fig.add_subplot(), names, title)
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
    fig.savefig(path, format=suffix[1:], dpi=110)
    return path


def plot_progress(entries: Sequence[dict], ax, title: str = "Checks passing over your attempts"):
    """One line per exercise: the share of checks passing at each logged attempt."""
    by_record: dict[str, list[float]] = {}
    for entry in entries:
        total = entry.get("total") or 0
        by_record.setdefault(entry["record"], []).append(entry["passed"] / total if total else 0.0)
    markers = "osD^v<>"
    for i, (record_id, shares) in enumerate(sorted(by_record.items())):
        ax.plot(range(1, len(shares) + 1), [100 * s for s in shares], marker=markers[i % len(markers)], label=record_id)
    if not by_record:
        ax.text(0.5, 0.5, "No attempts logged yet: run an exercise's solve cell.", ha="center", va="center", transform=ax.transAxes)
    else:
        ax.legend(fontsize=9, loc="lower right")
    ax.set_ylim(-5, 105)
    ax.set_xlabel("attempt")
    ax.set_ylabel("checks passing (%)")
    ax.set_title(title, fontsize=10)
    return ax
