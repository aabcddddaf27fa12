"""The status marks and colours that every renderer shares: one definition of each.

A status is never shown by colour alone: the mark and the word go with it (text,
HTML), and the plot adds a hatch, so the grid reads in greyscale and for people
who do not see the colours.
"""

from __future__ import annotations

__all__ = ["MISSING_STYLE", "STATUS_CSS", "STATUS_STYLE", "STATUS_SYMBOLS"]

STATUS_SYMBOLS = {"pass": "✓", "fail": "✗", "error": "!", "timeout": "◷"}
"""Marks shown next to (never instead of) the status word. All four are in DejaVu Sans,
so they render in Debian's Chromium, which has no emoji font."""

STATUS_CSS = {"pass": "#1a7f37", "fail": "#cf222e", "error": "#9a6700", "timeout": "#8250df"}
"""Text colours of the status badges in HTML."""

STATUS_STYLE = {
    # status: (face colour, hatch, word in the cell) for matplotlib
    "pass": ("#009E73", "", "pass"),
    "fail": ("#D55E00", "///", "FAIL"),
    "error": ("#E69F00", "xx", "ERROR"),
    "timeout": ("#CC79A7", "..", "TIMEOUT"),
}
MISSING_STYLE = ("#DDDDDD", "", "—")
"""A cell with no observation (a check that did not run), in plots and the heatmap."""
