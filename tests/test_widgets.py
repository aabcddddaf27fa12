"""The progress log as the exercise writes it (moving to tests/test_progress.py)."""

from __future__ import annotations

import json
import os

import pytest

from conftest import reference_solve
from failuremap_edu import Exercise

reference = reference_solve("FA-100786")


@pytest.fixture
def exercise():
    return Exercise("FA-100786", timeout=0.5)


def test_plot_progress_draws_one_line_per_exercise():
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    from failuremap_edu import plot_progress

    entries = [{"record": "A", "passed": 1, "total": 6}, {"record": "A", "passed": 6, "total": 6}, {"record": "B", "passed": 0, "total": 5}]
    ax = plot_progress(entries, Figure().add_subplot())
    assert [[round(float(y), 6) for y in line.get_ydata()] for line in ax.get_lines()] == [[16.666667, 100.0], [0.0]]
    assert [line.get_label() for line in ax.get_lines()] == ["A", "B"]
    empty = plot_progress([], Figure().add_subplot())
    assert empty.texts[0].get_text().startswith("No attempts logged yet")
