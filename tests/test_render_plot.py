"""The matplotlib status grid: it draws, has a cell per check and run, and saves."""

from __future__ import annotations

import sys

import pytest

from failuremap_edu import compare, load_record
from failuremap_edu._render_plot import STATUS_STYLE, save_status, status_figure


@pytest.fixture(scope="module")
def comparison():
    record = load_record("FA-100786")
    return compare(record, lambda text, stops: (text, "") if text != "x" else 1 / 0)


def test_grid_has_one_cell_per_check_and_run(comparison):
    from matplotlib.patches import Rectangle

    fig = status_figure(comparison.runs, comparison.names, title="<stop> title")
    ax = fig.axes[0]
    cells = [p for p in ax.patches if isinstance(p, Rectangle)]
    assert len(cells) == 6 * 3
    words = [t.get_text() for t in ax.texts]
    assert words.count("FAIL") == 6 + 5 + 2 and words.count("pass") == 1 + 3 and words.count("ERROR") == 1
    assert [t.get_text() for t in ax.get_yticklabels()][0] == "partial marker held"
    assert [t.get_text() for t in ax.get_xticklabels()] == ["broken\n0/6 pass", "attempt\n1/6 pass", "yours\n3/6 pass"]
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["pass", "fail", "error", "timeout"]
    # Colour is never the only signal: every status has its own hatch or word.
    assert len({(hatch, word) for _, hatch, word in STATUS_STYLE.values()}) == 4


def test_saves_png_and_svg(comparison, tmp_path):
    png = save_status(comparison.runs, tmp_path / "grid.png", comparison.names)
    svg = save_status(comparison.runs, tmp_path / "grid.svg", comparison.names)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 5_000
    assert b"<svg" in svg.read_bytes()[:500]
    with pytest.raises(ValueError, match="must be a .png or .svg"):
        save_status(comparison.runs, tmp_path / "grid.jpg")


def test_export_needs_no_pyplot(comparison, tmp_path):
    import subprocess

    code = (
        "import sys, failuremap_edu as fm\n"
        "from failuremap_edu._render_plot import save_status\n"
        "c = fm.compare(fm.load_record('FA-100061'))\n"
        f"save_status(c.runs, {str(tmp_path / 'x.png')!r}, c.names)\n"
        "print('matplotlib.pyplot' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"
