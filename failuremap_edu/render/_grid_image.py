"""A large grid as a picture: expected | got drawn with matplotlib as an inline PNG with alt text, differing cells
crossed out on both sides, so that it reads in greyscale. Nothing here without matplotlib (JupyterLite): the caller
draws tables instead."""

from __future__ import annotations

import base64
import io
from html import escape
from typing import Any

from .._patterns import differing_cells

__all__ = ["grid_alt", "grid_figure", "grid_image"]


def _e(value: object) -> str:
    return escape(str(value), quote=True)


def grid_alt(expected: Any, got: Any, cells: set) -> str:
    """The image's alt text: the shapes, how many cells differ, and where (the first ten)."""
    shape = lambda g: f"{len(g)}×{max(len(r) for r in g)}"  # noqa: E731
    where = ", ".join(f"row {i} column {j}" for i, j in sorted(cells)[:10])
    more = f" and {len(cells) - 10:,} more" if len(cells) > 10 else ""
    differ = f"{len(cells):,} cell{'s' if len(cells) != 1 else ''} differ{'s' if len(cells) == 1 else ''}, crossed out on both sides: {where}{more}" if cells else "no cell differs"
    return f"expected ({shape(expected)}) beside got ({shape(got)}), cell for cell; {differ}."


def grid_image(expected: Any, got: Any, cells: set | None = None) -> str | None:
    """expected | got drawn with matplotlib as an inline PNG with alt text; None without matplotlib."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:  # JupyterLite has no matplotlib: the caller draws tables
        return None
    cells = differing_cells(expected, got) if cells is None else cells
    fig = grid_figure(expected, got, cells)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=80)
    data = base64.b64encode(buffer.getvalue()).decode("ascii")
    alt = grid_alt(expected, got, cells)
    return (f'<figure class="fm-pictures"><img class="fm-grid-image" alt="{_e(alt)}" src="data:image/png;base64,{data}">'
            f'<figcaption class="fm-muted">{_e(alt)}</figcaption></figure>')


def grid_figure(expected: Any, got: Any, cells: set):
    """expected | got as a matplotlib figure (no pyplot), the `cells` crossed out on both sides."""
    from matplotlib.figure import Figure

    rows = max(len(expected), len(got))
    columns = max(max(len(r) for r in expected), max(len(r) for r in got))
    size = min(max(rows, columns) * 0.22 + 1.2, 7.0)
    width = size * 2 + 0.6
    fig = Figure(figsize=(width, size))
    values = [float(c) for g in (expected, got) for r in g for c in r]
    low, high = min(values), max(values)
    # Placed in inches (row numbers and "row" on the left, "column" under, the title over), with no layout engine:
    # constrained layout laid out every tick label once more before the draw, two thirds of a picture's time.
    left, bottom, top, gap = 0.75, 0.6, 0.35, 0.3
    panel = (width - 2 * left - gap) / 2
    for k, (grid, title) in enumerate(((expected, "expected"), (got, "got"))):
        ax = fig.add_axes(((left + k * (panel + gap + left)) / width, bottom / size, panel / width, (size - bottom - top) / size))
        matrix = [[float(r[j]) if j < len(r) else float("nan") for j in range(columns)] for r in grid] + [[float("nan")] * columns] * (rows - len(grid))
        ax.imshow(matrix, cmap="Greys", vmin=low, vmax=high if high > low else low + 1, interpolation="nearest")
        if cells:
            ys, xs = zip(*sorted(cells))
            ax.scatter(xs, ys, marker="x", s=max(12, 600 / max(rows, columns)), c="#D55E00", linewidths=1.5)
        ax.set_title(title, y=1.0, pad=4)  # at a set place: an automatic one measures the tick labels again
        ax.set_xlabel("column")
        ax.set_ylabel("row")
    return fig
