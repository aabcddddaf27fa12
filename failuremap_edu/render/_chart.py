"""A sequence of numbers as a line chart of expected against got, and the same in words.

The words (`sequence_words`) are the chart's alt text, its caption and the text/plain
form: how each line runs (constant, rising to where it levels off, falling, up and
down), then what the differences have in common, the pattern claim when one holds
exactly (`_patterns`), else how many positions differ and the first. The chart itself
is drawn by `_plot.sequence_figure`; without matplotlib (JupyterLite) there is none,
and the caller draws a table.
"""

from __future__ import annotations

import base64
import io
from html import escape
from typing import Any

from .._patterns import find_pattern, sentence

__all__ = ["sequence_chart_html", "sequence_words"]


def _e(value: object) -> str:
    return escape(str(value), quote=True)


def _equal(a: Any, b: Any) -> bool:
    try:
        return bool(a == b)
    except BaseException:  # noqa: BLE001
        return False


def _number(value: Any) -> str:
    try:
        x = float(value)
    except (OverflowError, TypeError, ValueError):
        return repr(value)
    return repr(int(x)) if x.is_integer() and abs(x) < 1e15 else f"{x:.4g}"


def _shape(values: Any) -> str:
    """How one line runs, in words: constant, rising, falling (and where it levels off), or its range."""
    if len(values) == 1:
        return f"is {_number(values[0])} at its one position"
    try:
        xs = [float(v) for v in values]
    except (OverflowError, TypeError, ValueError):
        return f"has {len(values)} values"
    if any(x != x for x in xs):  # NaN: no order to speak of
        low = [x for x in xs if x == x]
        return f"has {len(xs) - len(low)} NaN values" + (f" and ranges from {_number(min(low))} to {_number(max(low))}" if low else "")
    first, last = xs[0], xs[-1]
    if all(x == first for x in xs):
        return f"is {_number(first)} at every position"
    for rising, verb in ((True, "rises"), (False, "falls")):
        if all((b >= a) if rising else (b <= a) for a, b in zip(xs, xs[1:])):
            level = xs.index(last)
            then = f" by position {level}, then stays at {_number(last)}" if level < len(xs) - 1 else ""
            return f"{verb} from {_number(first)} to {_number(last)}{then}"
    return f"goes up and down between {_number(min(xs))} and {_number(max(xs))}"


def sequence_words(expected: Any, got: Any, *, with_pattern: bool = True) -> list[str]:
    """What the line chart of expected against got shows, in words: each line's course, then what the differences have in common.

    The common part is the pattern claim when one holds exactly (`_patterns`), else how many positions differ and the first.
    ``with_pattern=False`` leaves the pattern's sentence out, for a caller that says it next to the picture already.
    """
    n = max(len(expected), len(got))
    differing = [i for i in range(n) if i >= len(expected) or i >= len(got) or not _equal(expected[i], got[i])]
    lines = [
        f"A line chart of expected ({len(expected):,} values) and got ({len(got):,} values), by position:",
        f"expected {_shape(expected)}; got {_shape(got)}.",
    ]
    found = find_pattern(expected, got)
    if found is not None:
        lines += [sentence(found)] if with_pattern else []
    elif len(differing) == 1:
        lines.append(f"Only position {differing[0]} differs.")
    else:
        lines.append(f"{len(differing):,} of {n:,} positions differ, the first at position {differing[0]}.")
    if len(expected) != len(got):
        longer, shorter = ("got", "expected") if len(got) > len(expected) else ("expected", "got")
        lines.append(f"{longer} has {abs(len(got) - len(expected)):,} more values than {shorter}.")
    return lines


def sequence_chart_html(expected: Any, got: Any) -> str | None:
    """expected and got as a line chart, an inline PNG whose alt text says what it shows; None without matplotlib.

    The caption says the same but the pattern, which the check row states right below the picture.
    """
    try:
        from ._plot import sequence_figure

        fig = sequence_figure(expected, got)
    except ImportError:  # JupyterLite has no matplotlib: the caller draws the folded table
        return None
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=80)
    data = base64.b64encode(buffer.getvalue()).decode("ascii")
    words = sequence_words(expected, got)
    return (f'<figure class="fm-pictures fm-chart"><img class="fm-grid-image" alt="{_e(" ".join(words))}" src="data:image/png;base64,{data}">'
            f'<figcaption class="fm-muted">{"<br>".join(_e(w) for w in sequence_words(expected, got, with_pattern=False))}</figcaption></figure>')
