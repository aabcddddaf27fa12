"""Renderers: results, diffs, stories and reports as text, HTML and pictures.

  _style   the status marks and colours every renderer shares
  _text    text for terminals and every text/plain form
  _html    escaped, scoped HTML for notebooks and reports
  _grid    grids and number sequences, expected beside got, in tables that never widen the panel
  _grid_image  a large grid as an inline PNG with alt text, differing cells crossed out
  _chart   a long number sequence as a line chart of expected against got, and the same in words
  _plot    the matplotlib status grid, progress plot and sequence chart
  _report  the class report as text, HTML and a heatmap

They read results (`_results`), diffs (`_diff`) and reports (`_report`) and return
strings or figures; they decide nothing about equality. Display objects reach them
through one mixin (`_display.Shown`), lazily, so importing the package stays cheap.
"""

from __future__ import annotations

from importlib import import_module

_EXPORTS = {
    "plot_status": "._plot",
    "plot_progress": "._plot",
    "status_figure": "._plot",
    "save_status": "._plot",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> object:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'failuremap_edu.render' has no attribute {name!r}")
    return getattr(import_module(_EXPORTS[name], __name__), name)


def __dir__() -> list[str]:
    return __all__
