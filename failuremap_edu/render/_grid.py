"""Pictures of the values ML code returns: 2-D grids and sequences of numbers, expected beside got.

A grid (a list of equal-length rows of numbers or booleans) is drawn as expected |
got, aligned cell for cell, with every differing cell marked in place on both
sides. Marks never rely on colour alone: in HTML a differing cell is highlighted
(<mark>) and set in bold (<strong>), which hold without our CSS too; with it, shaded
and outlined with a dashed border, with its row, column and both
values in its title; in text it is set in brackets (``[0]``). A grid larger than
`PICTURE_ABOVE` cells in either direction is drawn with matplotlib as an inline
PNG with alt text (differing cells crossed out, so the picture reads in
greyscale); without matplotlib (JupyterLite) it stays an HTML table. A sequence of
numbers gets an index row above expected and got, so that a shift is visible.

They only draw: which cells differ comes from `_patterns.differing_cells`, decided
on values.
"""

from __future__ import annotations

import base64
import io
from html import escape
from typing import Any

from .._patterns import differing_cells, is_grid, is_number_sequence

__all__ = ["GRID_CSS", "sequence_window", "PICTURE_ABOVE", "grid_html", "grid_text", "picture_html", "picture_kind", "picture_text", "sequence_html", "sequence_text"]

PICTURE_ABOVE = 12
"""Grids with more rows or columns than this are drawn as an image: a table that size is no longer read cell by cell."""
MAX_CELLS = 60
"""Rows, columns or sequence items shown as text or table cells at most (the rest are counted)."""

GRID_CSS = """
.fm-root .fm-pictures{display:flex;flex-wrap:wrap;gap:4px 18px;margin:4px 0}
.fm-root table.fm-grid{border-collapse:collapse;font-family:var(--jp-code-font-family,ui-monospace,monospace);font-size:var(--jp-code-font-size,13px)}
.fm-root table.fm-grid caption{text-align:left;font-weight:600}
.fm-root table.fm-grid td,.fm-root table.fm-grid th{padding:1px 5px;text-align:right;min-width:1.6em;border:1px solid rgba(128,128,128,.3)}
.fm-root table.fm-grid th{font-weight:400;color:var(--fm-muted)}
.fm-root table.fm-grid td.fm-cell-diff{background:rgba(255,196,0,.45);font-weight:700;outline:2px dashed currentColor;outline-offset:-3px}
.fm-root table.fm-grid td.fm-cell-diff mark{background:transparent;color:inherit}
.fm-root img.fm-grid-image{max-width:100%;height:auto}
"""


def picture_kind(expected: Any, got: Any) -> str | None:
    """``grid`` when both are grids, ``sequence`` when both are sequences of numbers, else None (nothing to draw).

    Nothing either when no cell differs (tuples against lists of the same numbers): a picture saying "no cell
    differs" above a failing check sent a trial's learner looking for a difference in the values.
    """
    if is_grid(expected) and is_grid(got):
        return "grid" if differing_cells(expected, got) else None
    if is_number_sequence(expected) and is_number_sequence(got) and (len(expected) > 1 or len(got) > 1):
        same = len(expected) == len(got) and all(_equal(a, b) for a, b in zip(expected, got))
        return None if same else "sequence"
    return None


def _cell(value: Any) -> str:
    return repr(value)


# ------------------------------------------------------------------ text


def grid_text(expected: Any, got: Any) -> list[str]:
    """Both grids as aligned rows, one row per line: expected | got, a differing cell in [brackets] on both sides."""
    cells = differing_cells(expected, got)
    rows = min(max(len(expected), len(got)), MAX_CELLS)
    columns = min(max(max(len(r) for r in expected), max(len(r) for r in got)), MAX_CELLS)
    width = max([len(_cell(c)) for grid in (expected, got) for row in grid[:rows] for c in row[:columns]] + [len(str(columns - 1))])
    label = len(str(rows - 1))

    def line(grid, i):
        row = grid[i] if i < len(grid) else ()
        out = []
        for j in range(columns):
            text = _cell(row[j]) if j < len(row) else ""
            mark = (i, j) in cells and j < len(row)
            out.append(("[" if mark else " ") + text.rjust(width) + ("]" if mark else " "))
        return "".join(out)

    side = columns * (width + 2)
    head = " " * (label + 2) + "expected".ljust(side) + " | got"
    index = "".join(f" {j:>{width}} " for j in range(columns))
    lines = [head.rstrip(), (" " * (label + 2) + index + " | " + index).rstrip()]
    lines += [f"{i:>{label}}  {line(expected, i)} | {line(got, i)}".rstrip() for i in range(rows)]
    more = max(len(expected), len(got)) - rows
    if more > 0:
        lines.append(f"… {more:,} more rows")
    n = len(cells)
    lines.append(("[ ] marks the cell that differs" if n == 1 else f"[ ] marks the {n:,} cells that differ") if n else "no cell differs")
    return lines


def _differs_at(expected: Any, got: Any, i: int) -> bool:
    return i >= len(expected) or i >= len(got) or not _equal(expected[i], got[i])


def sequence_window(expected: Any, got: Any) -> tuple[range, int]:
    """The positions a sequence picture shows, and how many positions differ in all (counted over every position).

    At most `MAX_CELLS` positions: from 0 when the first difference is among them, else from the first difference.
    """
    n = max(len(expected), len(got))
    differing = [i for i in range(n) if _differs_at(expected, got, i)]
    start = differing[0] if differing and differing[0] >= MAX_CELLS else 0
    return range(start, min(n, start + MAX_CELLS)), len(differing)


def _sequence_count(differing: int, shown: int, window: range, n: int) -> str:
    """How many positions differ, once: all of them, or all of them and how many of those the window shows."""
    if len(window) == n:
        return ""
    return f": {differing:,} in all, {shown:,} of them among positions {window.start:,} to {window.stop - 1:,} shown here"


def sequence_text(expected: Any, got: Any) -> list[str]:
    """index / expected / got rows, aligned item for item; a differing item in [brackets] on both rows. A sequence
    longer than `MAX_CELLS` is shown from its first difference, and its differing positions are counted in all."""
    window, differing = sequence_window(expected, got)
    cols = []
    for i in window:
        e = _cell(expected[i]) if i < len(expected) else ""
        g = _cell(got[i]) if i < len(got) else ""
        cols.append((str(i), e, g, _differs_at(expected, got, i)))
    width = max(len(x) for col in cols for x in col[:3])

    def row(title, k):
        return f"{title:<9}" + "".join(
            (("[" if col[3] and col[k] else " ") + col[k].rjust(width) + ("]" if col[3] and col[k] else " ")) if k else f" {col[0]:>{width}} "
            for col in cols
        )

    n = max(len(expected), len(got))
    lines = [f"… {window.start:,} items before, the same on both sides"] if window.start else []
    lines += [row("index", 0).rstrip(), row("expected", 1).rstrip(), row("got", 2).rstrip()]
    more = n - window.stop
    if more > 0:
        lines.append(f"… {more:,} more items")
    shown = sum(1 for col in cols if col[3])
    count = _sequence_count(differing, shown, window, n)
    if count:
        lines.append(f"[ ] marks the positions that differ{count}")
    else:
        lines.append(("[ ] marks the position that differs" if differing == 1 else f"[ ] marks the {differing:,} positions that differ") if differing else "no position differs")
    return lines


def picture_text(expected: Any, got: Any) -> list[str]:
    kind = picture_kind(expected, got)
    if kind == "grid":
        return grid_text(expected, got)
    if kind == "sequence":
        return sequence_text(expected, got)
    return []


def _equal(a: Any, b: Any) -> bool:
    try:
        return bool(a == b)
    except BaseException:  # noqa: BLE001
        return False


# ------------------------------------------------------------------ HTML


def _e(value: object) -> str:
    return escape(str(value), quote=True)


def _grid_table(grid, caption: str, cells: set, expected, got) -> str:
    rows = min(len(grid), MAX_CELLS)
    columns = min(max(len(r) for r in grid), MAX_CELLS)
    head = "<tr><th></th>" + "".join(f"<th>{j}</th>" for j in range(columns)) + "</tr>"

    def at(g, i, j):
        return _cell(g[i][j]) if i < len(g) and j < len(g[i]) else "nothing"

    body = []
    for i in range(rows):
        tds = []
        for j in range(columns):
            if j >= len(grid[i]):
                tds.append("<td></td>")
            elif (i, j) in cells:
                title = f"row {i}, column {j}: expected {at(expected, i, j)}, got {at(got, i, j)}"
                tds.append(f'<td class="fm-cell-diff" title="{_e(title)}">{_marked(_cell(grid[i][j]))}</td>')
            else:
                tds.append(f"<td>{_e(_cell(grid[i][j]))}</td>")
        body.append(f'<tr><th>{i}</th>{"".join(tds)}</tr>')
    more = len(grid) - rows
    foot = f'<tr><td colspan="{columns + 1}">… {more:,} more rows</td></tr>' if more > 0 else ""
    return f'<table class="fm-grid"><caption>{_e(caption)}</caption><thead>{head}</thead><tbody>{"".join(body)}{foot}</tbody></table>'


def _marked(text: str) -> str:
    """A differing cell's value in <mark><strong>: highlighted and bold by the browser itself. A notebook opened
    untrusted drops our <style>, and its legend spoke of shading nobody could see (a learner trial)."""
    return f"<mark><strong>{_e(text)}</strong></mark>"


def _legend(n: int, what: str, one_side: int = 0, whole: str = "") -> str:
    """`one_side`: how many of the `n` exist on one side only (an extra row, a missing item): "on both sides" would
    send the eye to a highlight the other side cannot have. `whole`: the count over every position, when the
    picture shows only some (then the `n` marked are not counted apart)."""
    if not n:
        return f'<p class="fm-muted">no {what} differs{_e(whole)}</p>'
    these = f"the {what}s that differ are" if whole else f"the {what} that differs is" if n == 1 else f"the {n:,} {what}s that differ are"
    if one_side == n:
        where = "on the side that has " + ("it" if n == 1 else "them")
    elif one_side:
        where = f"on both sides, or on the one side that has {'it' if one_side == 1 else 'them'} ({one_side:,} on one side only)"
    else:
        where = "on both sides"
    return f'<p class="fm-muted">{these} highlighted and set in bold, {where}{_e(whole)}</p>'


def _on_one_side(cells: set, expected, got) -> int:
    def has(g, i, j):
        return i < len(g) and j < len(g[i])

    return sum(1 for i, j in cells if has(expected, i, j) != has(got, i, j))


def grid_html(expected: Any, got: Any) -> str:
    """expected | got as two aligned tables, differing cells marked in place; an image above `PICTURE_ABOVE`."""
    cells = differing_cells(expected, got)
    large = max(len(expected), len(got), *(len(r) for r in expected), *(len(r) for r in got)) > PICTURE_ABOVE
    if large:
        image = grid_image(expected, got, cells)
        if image is not None:
            return image
    tables = _grid_table(expected, "expected", cells, expected, got) + _grid_table(got, "got", cells, expected, got)
    return f'<div class="fm-pictures">{tables}</div>' + _legend(len(cells), "cell", _on_one_side(cells, expected, got))


def sequence_html(expected: Any, got: Any) -> str:
    """index / expected / got as one table, item under item; differing items marked in both rows (a long sequence
    from its first difference, as `sequence_text`)."""
    window, differing = sequence_window(expected, got)
    differs = {i: _differs_at(expected, got, i) for i in window}

    def row(title, values):
        tds = []
        for i in window:
            text = _cell(values[i]) if i < len(values) else ""
            if differs[i] and text:
                there = [_cell(v[i]) if i < len(v) else "nothing" for v in (expected, got)]
                tds.append(f'<td class="fm-cell-diff" title="position {i}: expected {_e(there[0])}, got {_e(there[1])}">{_marked(text)}</td>')
            else:
                tds.append(f"<td>{_e(text)}</td>")
        return f'<tr><th>{_e(title)}</th>{"".join(tds)}</tr>'

    n = max(len(expected), len(got))
    index = '<tr><th>index</th>' + "".join(f'<th>{i}</th>' for i in window) + "</tr>"
    before = f'<tr><td colspan="{len(window) + 1}">… {window.start:,} items before, the same on both sides</td></tr>' if window.start else ""
    more = n - window.stop
    foot = f'<tr><td colspan="{len(window) + 1}">… {more:,} more items</td></tr>' if more > 0 else ""
    table = f'<table class="fm-grid"><thead>{index}</thead><tbody>{before}{row("expected", expected)}{row("got", got)}{foot}</tbody></table>'
    one_side = sum(1 for i in window if (i < len(expected)) != (i < len(got)))
    shown = sum(differs.values())
    count = _sequence_count(differing, shown, window, n)
    legend = _legend(shown, "position", one_side, count)
    return f'<div class="fm-pictures">{table}</div>' + legend


def picture_html(expected: Any, got: Any) -> str:
    kind = picture_kind(expected, got)
    if kind == "grid":
        return grid_html(expected, got)
    if kind == "sequence":
        return sequence_html(expected, got)
    return ""


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
