"""The status marks and colours that every renderer shares: one definition of each.

A status is never shown by colour alone: the mark and the word go with it (text,
HTML), and the plot adds a hatch, so the grid reads in greyscale and for people
who do not see the colours.
"""

from __future__ import annotations

__all__ = ["DARK_THEME", "MISSING_STYLE", "STATUS_CSS", "STATUS_CSS_DARK", "STATUS_STYLE", "STATUS_SYMBOLS", "UI_CSS", "UI_CSS_DARK"]

STATUS_SYMBOLS = {"pass": "✓", "fail": "✗", "error": "!", "timeout": "◷", "unconfirmed": "?"}
"""Marks shown next to (never instead of) the status word. All five are in DejaVu Sans,
so they render in Debian's Chromium, which has no emoji font."""

STATUS_CSS = {"pass": "#116329", "fail": "#a40e26", "error": "#7d4e00", "timeout": "#6639ba", "unconfirmed": "#0b5394"}
"""Text colours of the status badges in HTML, light themes: each at least 5.3:1 on white and on
JupyterLab's zebra rows and hover greys (#f5f5f5 to #e0e0e0); WCAG AA asks 4.5:1."""
STATUS_CSS_DARK = {"pass": "#3fb950", "fail": "#ff7b72", "error": "#d29922", "timeout": "#bc8cff", "unconfirmed": "#79c0ff"}
"""The same in dark themes: each at least 5.6:1 on #111 to #2a2a2a (JupyterLab Dark's page, cells and rows)."""
UI_CSS = {"muted": "#595959", "link": "#0d47a1", "focus": "#1565c0"}
"""Secondary text (7:1 on white), links (8.6:1) and the focus ring (5.7:1 on white, 4.4:1 on #e0e0e0;
WCAG asks 3:1 of a focus indicator), light themes."""
UI_CSS_DARK = {"muted": "#b3b3b3", "link": "#8cc8ff", "focus": "#64b5f6"}
"""The same in dark themes (muted 9.0:1, link 10.6:1, focus ring 8.5:1 on #111)."""
DARK_THEME = 'body[data-jp-theme-light="false"]'
"""The selector JupyterLab and Notebook 7 put on <body> in a dark theme: the dark palette applies under it."""

STATUS_STYLE = {
    # status: (face colour, hatch, word in the cell) for matplotlib
    "pass": ("#009E73", "", "pass"),
    "fail": ("#D55E00", "///", "FAIL"),
    "error": ("#E69F00", "xx", "ERROR"),
    "timeout": ("#CC79A7", "..", "TIMEOUT"),
    "unconfirmed": ("#56B4E9", "\\\\", "UNCONFIRMED"),
}
MISSING_STYLE = ("#DDDDDD", "", "—")
"""A cell with no observation (a check that did not run), in plots and the heatmap."""

PLAYGROUND_UNCHECKED = ("Nothing here checks these results against the contract: where it says what these inputs give, compare each"
                        " result with that; inputs outside the contract have no right answer, and the three may differ for that reason alone.")
"""Under the playground's results: the contract is prose, so inputs outside it (lists of unequal length, say) pass unremarked otherwise."""
