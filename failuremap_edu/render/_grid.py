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
numbers gets an index row above expected and got, so that a shift is visible,
folded into narrow blocks that wrap to the width there is. A sequence longer than
`CHART_ABOVE` is a line chart of expected against got instead (`_chart`).

Nothing here makes the panel scroll sideways: every table sits in its own labelled,
focusable region (`scroll_region`) that scrolls by itself when a value is too wide.

They only draw: which cells differ comes from `_patterns.differing_cells`, decided
on values.
"""

from __future__ import annotations

from html import escape
from typing import Any

from .._diff_items import aligned_items
from .._diff_model import DEFAULT_BUDGET
from .._patterns import differing_cells, is_grid, is_number_sequence
from .._results import FAIL, Observation
from ._chart import sequence_chart_html, sequence_words
from ._grid_image import grid_alt, grid_figure, grid_image

__all__ = [
    "CHART_ABOVE", "GRID_CSS", "sequence_window", "PICTURE_ABOVE", "grid_html", "grid_text", "picture_html", "picture_kind", "picture_text",
    "outcome_picture_html", "outcome_picture_text", "playground_pictures_html", "playground_pictures_text", "scroll_region",
    "sequence_html", "sequence_text",
]

PICTURE_ABOVE = 12
"""Grids with more rows or columns than this are drawn as an image: a table that size is no longer read cell by cell."""
MAX_CELLS = 60
"""Rows, columns or sequence items shown as text or table cells at most (the rest are counted)."""
CHART_ABOVE = 12
"""Sequences with more items than this (on either side) are drawn as a line chart: an index table that long ran off the panel."""
FOLD_CHARS = 30
"""About how many characters of values one block of a folded sequence table holds: it fits a 320 px wide panel."""

GRID_CSS = """
.fm-root .fm-pictures{display:flex;flex-wrap:wrap;gap:4px 18px;margin:4px 0}
.fm-root table.fm-grid{border-collapse:collapse;font-family:var(--jp-code-font-family,ui-monospace,monospace);font-size:var(--jp-code-font-size,13px)}
.fm-root table.fm-grid caption{text-align:left;font-weight:600}
.fm-root table.fm-grid td,.fm-root table.fm-grid th{padding:1px 5px;text-align:right;min-width:1.6em;border:1px solid rgba(128,128,128,.3)}
.fm-root table.fm-grid th{font-weight:400;color:var(--fm-muted)}
.fm-root table.fm-grid td.fm-cell-diff{background:rgba(255,196,0,.45);font-weight:700;outline:2px dashed currentColor;outline-offset:-3px}
.fm-root table.fm-grid td.fm-cell-diff mark{background:transparent;color:inherit}
.fm-root img.fm-grid-image{max-width:100%;height:auto}
.fm-root .fm-scroll{max-width:100%;overflow-x:auto;min-width:0}
.fm-root .fm-scroll:focus-visible{outline:2px solid var(--fm-focus);outline-offset:2px}
.fm-root .fm-pictures>*{min-width:0;max-width:100%}
"""


def picture_kind(expected: Any, got: Any) -> str | None:
    """``grid`` when both are grids, ``sequence`` when both are sequences of numbers, else None (nothing to draw).

    Nothing either when no cell differs (tuples against lists of the same numbers): a picture saying "no cell
    differs" above a failing check would send a learner looking for a difference in the values.
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


def aligned_rows(expected: Any, got: Any) -> tuple[list, list, tuple[list, list] | None]:
    """expected and got row against row as the diff lines them up (`_diff_items.aligned_items`), so that the picture
    and the words describe one alignment: two lists of rows of one length, a row one side lacks an empty row there,
    and each side's own row numbers (None when every row is at its own position: one column of numbers serves both)."""
    if len(expected) != len(got):
        pairs = aligned_items(list(expected), list(got), DEFAULT_BUDGET.align_items)
        if pairs is not None and any(i not in (k, None) or j not in (k, None) for k, (i, j) in enumerate(pairs)):
            e = [expected[i] if i is not None else () for i, _ in pairs]
            g = [got[j] if j is not None else () for _, j in pairs]
            return e, g, ([i for i, _ in pairs], [j for _, j in pairs])
    return list(expected), list(got), None


def grid_text(expected: Any, got: Any, *, counted: bool = True) -> list[str]:
    """Both grids as aligned rows, one row per line: expected | got, a differing cell in [brackets] on both sides.
    Rows are paired as the diff pairs them (`aligned_rows`); `counted=False` leaves the count out of the legend."""
    expected, got, labels = aligned_rows(expected, got)
    cells = differing_cells(expected, got)
    return _grids_text([("expected", expected), ("got", got)], cells, labels) + [_text_legend(len(cells), counted)]


def _text_legend(n: int, counted: bool) -> str:
    if not n:
        return "no cell differs"
    if not counted:
        return "[ ] marks the cells that differ"
    return "[ ] marks the cell that differs" if n == 1 else f"[ ] marks the {n:,} cells that differ"


def _grids_text(named: list[tuple[str, Any]], cells: set, labels: tuple | None = None) -> list[str]:
    """Grids side by side, name over each, aligned cell for cell; a cell of `cells` in [brackets] where a grid has it.
    `labels`: each grid's own row numbers, when they are not the line's (then each side is numbered)."""
    grids = [g for _, g in named]
    rows = min(max(len(g) for g in grids), MAX_CELLS)
    columns = min(max(len(r) for g in grids for r in g), MAX_CELLS)
    width = max([len(_cell(c)) for grid in grids for row in grid[:rows] for c in row[:columns]] + [len(str(columns - 1))])
    if labels is not None:
        return _numbered_sides(named, cells, labels, rows, columns, width)
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
    pad = " " * (label + 2)
    index = "".join(f" {j:>{width}} " for j in range(columns))
    lines = [(pad + " | ".join(name.ljust(side) for name, _ in named)).rstrip(), (pad + " | ".join([index] * len(named))).rstrip()]
    lines += [f"{i:>{label}}  {' | '.join(line(g, i) for g in grids)}".rstrip() for i in range(rows)]
    more = max(len(g) for g in grids) - rows
    if more > 0:
        lines.append(f"… {more:,} more rows")
    return lines


def _side_cells(grid, i: int, columns: int, width: int, cells: set) -> str:
    row = grid[i] if i < len(grid) else ()
    out = []
    for j in range(columns):
        mark = (i, j) in cells and j < len(row)
        text = _cell(row[j]) if j < len(row) else ""
        out.append(("[" if mark else " ") + text.rjust(width) + ("]" if mark else " "))
    return "".join(out)


def _numbered_sides(named, cells: set, labels: tuple, rows: int, columns: int, width: int) -> list[str]:
    """Grids side by side, each row numbered on its own side (a side's number is blank where it has no row)."""
    label = max(len(str(n)) for side in labels for n in side[:rows] if n is not None)
    side = label + 2 + columns * (width + 2)
    index = " " * (label + 2) + "".join(f" {j:>{width}} " for j in range(columns))
    lines = [" | ".join(name.ljust(side) for name, _ in named).rstrip(), " | ".join(index.ljust(side) for _ in named).rstrip()]
    for i in range(rows):
        parts = []
        for (_, grid), numbers in zip(named, labels):
            n = numbers[i] if i < len(numbers) else None
            parts.append(f"{'' if n is None else n:>{label}}  " + _side_cells(grid, i, columns, width, cells))
        lines.append(" | ".join(p.ljust(side) for p in parts).rstrip())
    more = max(len(g) for _, g in named) - rows
    if more > 0:
        lines.append(f"… {more:,} more rows")
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


def sequence_text(expected: Any, got: Any, *, counted: bool = True) -> list[str]:
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
    if differing and not counted:
        lines.append("[ ] marks the position that differs" if differing == 1 else "[ ] marks the positions that differ")
    elif count:
        lines.append(f"[ ] marks the positions that differ{count}")
    else:
        lines.append(("[ ] marks the position that differs" if differing == 1 else f"[ ] marks the {differing:,} positions that differ") if differing else "no position differs")
    return lines


def picture_text(expected: Any, got: Any, *, counted: bool = True) -> list[str]:
    """The picture's text form: the aligned grid or sequence, or for a charted sequence what the chart shows, in words.

    The words leave out the pattern's sentence: every caller states it right after the picture. `counted=False`:
    the legend says no count (the diff below says its total, and one total is said once).
    """
    kind = picture_kind(expected, got)
    if kind == "grid":
        return grid_text(expected, got, counted=counted)
    if kind == "sequence":
        return sequence_words(expected, got, with_pattern=False) if _charted(expected, got) else sequence_text(expected, got, counted=counted)
    return []


def _charted(expected: Any, got: Any) -> bool:
    return max(len(expected), len(got)) > CHART_ABOVE


def _equal(a: Any, b: Any) -> bool:
    try:
        return bool(a == b)
    except BaseException:  # noqa: BLE001
        return False


# ------------------------------------------------------------------ HTML


def _e(value: object) -> str:
    return escape(str(value), quote=True)


def _grid_table(grid, caption: str, cells: set, sides: list[tuple[str, Any]], labels: tuple | None = None, me: int = 0) -> str:
    """One grid as a table; a cell of `cells` marked, its title giving every side's value there. `labels`: each
    side's own row numbers (`aligned_rows`), `me` this grid's place among the sides."""
    rows = min(len(grid), MAX_CELLS)
    columns = min(max(len(r) for r in grid), MAX_CELLS)
    head = "<tr><th></th>" + "".join(f"<th>{j}</th>" for j in range(columns)) + "</tr>"

    def at(g, i, j):
        return _cell(g[i][j]) if i < len(g) and j < len(g[i]) else "nothing"

    def number(k, i):
        return i if labels is None else labels[k][i]

    def title(i, j):
        if labels is None:
            return f"row {i}, column {j}: " + ", ".join(f"{name} {at(g, i, j)}" for name, g in sides)
        said = [f"{name} row {number(k, i)}: {at(g, i, j)}" if number(k, i) is not None else f"{name}: no such row"
                for k, (name, g) in enumerate(sides)]
        return f"column {j}, " + ", ".join(said)

    body = []
    for i in range(rows):
        tds = []
        for j in range(columns):
            if j >= len(grid[i]):
                tds.append("<td></td>")
            elif (i, j) in cells:
                tds.append(f'<td class="fm-cell-diff" title="{_e(title(i, j))}">{_marked(_cell(grid[i][j]))}</td>')
            else:
                tds.append(f"<td>{_e(_cell(grid[i][j]))}</td>")
        n = number(me, i)
        body.append(f'<tr><th>{"" if n is None else n}</th>{"".join(tds)}</tr>')
    more = len(grid) - rows
    foot = f'<tr><td colspan="{columns + 1}">… {more:,} more rows</td></tr>' if more > 0 else ""
    return f'<table class="fm-grid"><caption>{_e(caption)}</caption><thead>{head}</thead><tbody>{"".join(body)}{foot}</tbody></table>'


def _marked(text: str) -> str:
    """A differing cell's value in <mark><strong>: highlighted and bold by the browser itself. A notebook opened
    untrusted drops our <style>, and a legend must not speak of shading nobody can see."""
    return f"<mark><strong>{_e(text)}</strong></mark>"


def _legend(n: int, what: str, one_side: int = 0, whole: str = "", counted: bool = True) -> str:
    """`one_side`: how many of the `n` exist on one side only (an extra row, a missing item): "on both sides" would
    send the eye to a highlight the other side cannot have. `whole`: the count over every position, when the
    picture shows only some (then the `n` marked are not counted apart). `counted=False`: no number is said (the
    words below the picture say the diff's count)."""
    if not n:
        return f'<p class="fm-muted">no {what} differs{_e(whole)}</p>'
    these = f"the {what}s that differ are" if whole or not counted and n > 1 else f"the {what} that differs is" if n == 1 else f"the {n:,} {what}s that differ are"
    if one_side == n:
        where = "on the side that has " + ("it" if n == 1 else "them")
    elif one_side:
        where = f"on both sides, or on the one side that has {'it' if one_side == 1 else 'them'}"
        where += f" ({one_side:,} on one side only)" if counted else ""
    else:
        where = "on both sides"
    return f'<p class="fm-muted">{these} highlighted and set in bold, {where}{_e(whole)}</p>'


def _on_one_side(cells: set, expected, got) -> int:
    def has(g, i, j):
        return i < len(g) and j < len(g[i])

    return sum(1 for i, j in cells if has(expected, i, j) != has(got, i, j))


def grid_html(expected: Any, got: Any, *, counted: bool = True) -> str:
    """expected | got as two aligned tables, differing cells marked in place; an image above `PICTURE_ABOVE`. Rows
    are paired as the diff pairs them (`aligned_rows`); `counted=False` leaves the counts out of the legend."""
    large = max(len(expected), len(got), *(len(r) for r in expected), *(len(r) for r in got)) > PICTURE_ABOVE
    expected, got, labels = aligned_rows(expected, got)
    cells = differing_cells(expected, got)
    if large:
        image = grid_image(expected, got, cells)
        if image is not None:
            return image
    sides = [("expected", expected), ("got", got)]
    tables = _grid_table(expected, "expected", cells, sides, labels, 0) + _grid_table(got, "got", cells, sides, labels, 1)
    legend = _legend(len(cells), "cell", _on_one_side(cells, expected, got), counted=counted)
    return scroll_region(f'<div class="fm-pictures">{tables}</div>', "expected and got, cell for cell") + legend


def sequence_html(expected: Any, got: Any, *, counted: bool = True) -> str:
    """index / expected / got, item under item, folded into blocks that wrap to the width there is; differing items
    marked in both rows (a long sequence from its first difference, as `sequence_text`)."""
    window, differing = sequence_window(expected, got)
    differs = {i: _differs_at(expected, got, i) for i in window}

    def row(title, values, block):
        tds = []
        for i in block:
            text = _cell(values[i]) if i < len(values) else ""
            if differs[i] and text:
                there = [_cell(v[i]) if i < len(v) else "nothing" for v in (expected, got)]
                tds.append(f'<td class="fm-cell-diff" title="position {i}: expected {_e(there[0])}, got {_e(there[1])}">{_marked(text)}</td>')
            else:
                tds.append(f"<td>{_e(text)}</td>")
        return f'<tr><th>{_e(title)}</th>{"".join(tds)}</tr>'

    n = max(len(expected), len(got))
    tables = []
    for block in _fold(expected, got, window):
        index = '<tr><th>index</th>' + "".join(f'<th>{i}</th>' for i in block) + "</tr>"
        tables.append(f'<table class="fm-grid"><thead>{index}</thead><tbody>{row("expected", expected, block)}{row("got", got, block)}</tbody></table>')
    before = f'<p class="fm-muted">… {window.start:,} items before, the same on both sides</p>' if window.start else ""
    more = n - window.stop
    foot = f'<p class="fm-muted">… {more:,} more items</p>' if more > 0 else ""
    one_side = sum(1 for i in window if (i < len(expected)) != (i < len(got)))
    shown = sum(differs.values())
    count = _sequence_count(differing, shown, window, n)
    return (before + scroll_region(f'<div class="fm-pictures">{"".join(tables)}</div>', "expected and got, position by position") + foot
            + _legend(shown, "position", one_side, count if counted else "", counted))


def _fold(expected: Any, got: Any, window: range) -> list[range]:
    """The positions of `window` in consecutive blocks of about `FOLD_CHARS` characters of values each (at least one position)."""
    blocks, start, used = [], window.start, 0
    for i in window:
        width = max(len(str(i)), *(len(_cell(v[i])) for v in (expected, got) if i < len(v))) + 2
        if i > start and used + width > FOLD_CHARS:
            blocks.append(range(start, i))
            start, used = i, 0
        used += width
    if len(window):
        blocks.append(range(start, window.stop))
    return blocks


def picture_html(expected: Any, got: Any, *, counted: bool = True) -> str:
    """The picture as HTML: grids and short sequences as tables, long sequences as a line chart (a folded table without
    matplotlib). `counted=False`: the legend says no count (as `picture_text`)."""
    kind = picture_kind(expected, got)
    if kind == "grid":
        return grid_html(expected, got, counted=counted)
    if kind == "sequence":
        chart = sequence_chart_html(expected, got) if _charted(expected, got) else None
        return chart if chart is not None else sequence_html(expected, got, counted=counted)
    return ""


def scroll_region(html: str, label: str) -> str:
    """`html` in a region of its own that scrolls sideways by itself when it is wider than the panel, never the panel.

    It is named (`label`) and focusable, so a keyboard can scroll it and a screen reader says what it holds.
    """
    return f'<div class="fm-scroll" role="region" aria-label="{_e(label)}" tabindex="0">{html}</div>'


# ------------------------------------------------------------------ grids beside the check rows


def outcome_picture_html(o: Observation, counted: bool = True) -> str:
    """A failing observation's picture (its expected against what it got), as a check row draws it; else nothing."""
    return picture_html(o.expected, o.actual, counted=counted) if o.status == FAIL else ""


def outcome_picture_text(o: Observation, counted: bool = True) -> list[str]:
    """The same picture's text form."""
    return picture_text(o.expected, o.actual, counted=counted) if o.status == FAIL else []


def _disagreeing(grids: list[Any]) -> set[tuple[int, int]]:
    """Cells where the grids do not all hold the same value (a cell some grid lacks included)."""
    return set().union(*(differing_cells(grids[0], other) for other in grids[1:])) if len(grids) > 1 else set()


def _rows_of_numbers(value: Any) -> bool:
    """A list (or tuple) of rows of numbers or booleans, of any lengths (a short last row too), at least one cell."""
    return (type(value) in (list, tuple) and bool(value) and all(type(row) in (list, tuple) for row in value)
            and any(value) and all(set(map(type, row)) <= {int, float, bool} for row in value))


def _returned_grids(values) -> tuple[list[tuple[str, Any]], list[str]]:
    """The results to draw, and who returned one that cannot be drawn beside them. Nothing is drawn unless some call
    returned a grid; then every result made of rows of numbers is drawn (a ragged one too), so none is left out
    silently: a result of yours that differs in shape from the attempt's is a difference to see."""
    if not any(is_grid(value) for _, value in values):
        return [], []
    drawn = [(who, value) for who, value in values if is_grid(value) or _rows_of_numbers(value)]
    return drawn, [who for who, value in values if not (is_grid(value) or _rows_of_numbers(value))]


def _playground_legend(named: list[tuple[str, Any]], cells: set, left_out: list[str]) -> str:
    """What the marks compare, in words: which results, and who is not drawn."""
    names = ", ".join(who for who, _ in named[:-1]) + f" and {named[-1][0]}" if len(named) > 1 else named[0][0]
    if len(named) == 1:
        said = ""
    elif cells:
        said = f"{_n_cells(len(cells))} where {names} {'differ' if len(named) == 2 else 'do not all agree'}"
    else:
        said = f"{names} agree in every cell"
    if left_out:
        missing = " and ".join(left_out)
        said += ("; " if said else "") + f"not drawn: what {missing} returned, which is not rows of numbers"
    return said


def playground_pictures_html(values) -> str:
    """The grids the playground's calls returned ((who, value) pairs), side by side, cells where they disagree marked.

    The playground knows no expected value: a mark says only that the results differ there. Nothing when no call
    returned a grid; a result that is not rows of numbers is named as not drawn.
    """
    named, left_out = _returned_grids(values)
    if not named:
        return ""
    cells = _disagreeing([g for _, g in named])
    tables = "".join(_grid_table(g, who, cells, named) for who, g in named)
    said = _playground_legend(named, cells, left_out)
    marked = " (highlighted and set in bold)" if cells and len(named) > 1 else ""
    legend = f'<p class="fm-muted">{_e(said[:1].upper() + said[1:])}{marked}</p>' if said else ""
    label = "the grids returned, " + ", ".join(who for who, _ in named)
    return scroll_region(f'<div class="fm-pictures">{tables}</div>', label) + legend


def playground_pictures_text(values) -> list[str]:
    """The same, as text: the grids side by side, a cell where they disagree in [brackets]."""
    named, left_out = _returned_grids(values)
    if not named:
        return []
    cells = _disagreeing([g for _, g in named])
    lines = _grids_text(named, cells)
    said = _playground_legend(named, cells, left_out)
    if said:
        lines.append(("[ ] marks " if cells and len(named) > 1 else "") + said)
    return lines


def _n_cells(n: int) -> str:
    return "the cell" if n == 1 else f"the {n:,} cells"
