"""The matplotlib status grid: it draws, has a cell per check and run, and saves."""

from __future__ import annotations

import sys

import pytest

from failuremap_edu import load_record
from failuremap_edu.runner import compare
from failuremap_edu.render._plot import STATUS_STYLE, save_status, status_figure


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
    assert ax.get_title() == "" and [t.get_text() for t in fig.texts] == ["<stop> title"]
    assert [t.get_text() for t in fig.legends[0].get_texts()] == ["pass", "fail", "error", "timeout", "unconfirmed"]
    # Colour is never the only signal: every status has its own hatch or word.
    assert len({(hatch, word) for _, hatch, word in STATUS_STYLE.values()}) == 5


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
        "from failuremap_edu.render._plot import save_status\n"
        "import failuremap_edu.runner\n"
        "c = failuremap_edu.runner.compare(fm.load_record('FA-100061'))\n"
        f"save_status(c.runs, {str(tmp_path / 'x.png')!r}, c.names)\n"
        "print('matplotlib.pyplot' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"


LONG_TITLE = "FA-100786: Output stopping: Streaming buffer emits partial stop prefixes too early · case 01"


@pytest.fixture(scope="module")
def all_variants():
    """What `check --all-variants --plot` draws: broken, attempt and yours for N = 1..5 (15 runs)."""
    from failuremap_edu import replay, run_checks

    record = load_record("FA-100786")
    runs, names = [], []
    for variant in range(1, 6):
        for name in ("broken", "attempt"):
            runs.append(replay(record, name, variant))
            names.append(name)
        runs.append(run_checks(record, lambda text, stops: (text, ""), variant=variant))
        names.append("yours")
    return runs, names


def _drawn(fig):
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    return canvas.get_renderer()


def _inside(inner, outer, slack=1.0) -> bool:
    return inner.x0 >= outer.x0 - slack and inner.x1 <= outer.x1 + slack and inner.y0 >= outer.y0 - slack and inner.y1 <= outer.y1 + slack


def _overlap_area(a, b) -> float:
    width = min(a.x1, b.x1) - max(a.x0, b.x0)
    height = min(a.y1, b.y1) - max(a.y0, b.y0)
    return max(width, 0) * max(height, 0)


def _titles(fig):
    """The figure's own texts (its suptitle) and every axes' title."""
    return [t for t in [*fig.texts, *(ax.title for ax in fig.axes)] if t.get_text()]


def test_all_variants_grid_keeps_the_whole_title_inside_the_figure(all_variants):
    runs, names = all_variants
    fig = status_figure(runs, names, title=LONG_TITLE)
    renderer = _drawn(fig)
    titles = _titles(fig)
    assert titles, "the figure has a title"
    for text in titles:
        assert _inside(text.get_window_extent(renderer), fig.bbox), text.get_text()
    # Wrapped, never clipped: every word of the title is there, in order.
    assert [" ".join(t.get_text().split()) for t in fig.texts] == [LONG_TITLE]


def test_all_variants_grid_is_small_multiples_grouped_by_variant(all_variants):
    runs, names = all_variants
    fig = status_figure(runs, names, title=LONG_TITLE)
    renderer = _drawn(fig)
    panels = [ax for ax in fig.axes if ax.patches]
    assert len(panels) == 5
    assert [len(ax.get_xticks()) for ax in panels] == [3] * 5  # broken, attempt, yours per variant
    assert [ax.get_title() for ax in panels] == [f"N = {v}" for v in range(1, 6)]
    assert fig.get_figwidth() <= 13  # not 15 columns side by side
    for ax in panels:
        # Nothing a panel draws (tick labels, its title) runs into another panel's cells.
        drawn = ax.get_tightbbox(renderer)
        assert _inside(drawn, fig.bbox)
        for other in panels:
            if other is not ax:
                assert _overlap_area(drawn, other.get_window_extent(renderer)) == 0


def test_grid_legend_is_outside_every_data_area(all_variants, comparison):
    for runs, names in (all_variants, (comparison.runs, comparison.names)):
        fig = status_figure(runs, names, title=LONG_TITLE)
        renderer = _drawn(fig)
        legends = fig.legends + [ax.get_legend() for ax in fig.axes if ax.get_legend()]
        assert len(legends) == 1
        box = legends[0].get_window_extent(renderer)
        assert _inside(box, fig.bbox)
        for ax in fig.axes:
            assert _overlap_area(box, ax.get_window_extent(renderer)) == 0


def test_single_run_title_wider_than_the_figure_is_wrapped(comparison):
    title = "A title much longer than a three-column grid is wide, " * 3
    fig = status_figure(comparison.runs, comparison.names, title=title)
    renderer = _drawn(fig)
    for text in _titles(fig):
        assert _inside(text.get_window_extent(renderer), fig.bbox)
    assert " ".join(" ".join(t.get_text() for t in _titles(fig)).split()) == " ".join(title.split())


def _progress_entries():
    entries = []
    for record_id, shares in {"FA-100061": [0, 2, 4, 6, 6], "FA-100786": [1, 1, 3, 5, 6, 6], "TR-000101": [6, 5, 6]}.items():
        entries += [{"record": record_id, "passed": passed, "total": 6} for passed in shares]
    return entries


def test_progress_legend_is_outside_the_data_area_as_the_start_here_notebook_draws_it():
    """The notebook's own call: fig, ax = plt.subplots(figsize=(7, 3)); fm.plot_progress(overview.entries, ax)."""
    from matplotlib.figure import Figure

    from failuremap_edu import plot_progress

    fig = Figure(figsize=(7, 3))
    ax = fig.add_subplot()
    plot_progress(_progress_entries(), ax)
    renderer = _drawn(fig)
    legend = ax.get_legend()
    assert [t.get_text() for t in legend.get_texts()] == ["FA-100061", "FA-100786", "TR-000101"]
    box = legend.get_window_extent(renderer)
    assert _overlap_area(box, ax.get_window_extent(renderer)) == 0
    assert _inside(box, fig.bbox)
    for text in [*_titles(fig), ax.xaxis.label, ax.yaxis.label]:
        assert _inside(text.get_window_extent(renderer), fig.bbox), text.get_text()


def test_progress_chart_draws_one_line_per_exercise():
    from matplotlib.figure import Figure

    from failuremap_edu import plot_progress

    ax = Figure(figsize=(7, 3)).add_subplot()
    plot_progress(_progress_entries(), ax)
    lines = {line.get_label(): list(line.get_ydata()) for line in ax.get_lines()}
    assert lines["TR-000101"] == [100, pytest.approx(500 / 6), 100] and len(lines["FA-100786"]) == 6


def test_plot_status_into_a_notebook_axes_keeps_title_and_legend_in_view(comparison):
    """The exercise notebooks' call, fig, ax = plt.subplots(figsize=(7, ...)); fm.plot_status(runs, ax, names), with a title."""
    from matplotlib.figure import Figure

    from failuremap_edu.render import plot_status

    fig = Figure(figsize=(7, 1.2 + 0.45 * 6))
    ax = fig.add_subplot()
    plot_status(comparison.runs, ax, comparison.names, title=LONG_TITLE + " and a little more text to wrap")
    renderer = _drawn(fig)
    for text in _titles(fig):
        assert _inside(text.get_window_extent(renderer), fig.bbox), text.get_text()
    box = ax.get_legend().get_window_extent(renderer)
    assert _inside(box, fig.bbox) and _overlap_area(box, ax.get_window_extent(renderer)) == 0


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
    assert empty.texts[0].get_text().startswith("No runs logged yet")


@pytest.mark.parametrize("suffix", ["png", "svg"])
def test_titles_and_labels_are_text_never_mathtext(tmp_path, suffix):
    """``Costs $\\foo$`` used to raise in the math parser; ``$5 per call, $10`` lost its dollars."""
    import matplotlib

    from failuremap_edu._results import Observation, RunResult

    labels = (r"Costs $\foo$", "$5 per call, $10", "bad \ud800 label")
    run = RunResult("FA-1", "yours", 1, tuple(Observation(i, label, "pass", True, 1, 1) for i, label in enumerate(labels)), 2.0, "process")
    with matplotlib.rc_context({"svg.fonttype": "none"}):  # text stays text in the SVG
        path = save_status([run], tmp_path / f"grid.{suffix}", ["yours $x$"], title=r"Costs $\foo$ · $5 per call, $10")
    fig = status_figure([run], ["yours $x$"], title=r"Costs $\foo$ · $5 per call, $10")
    ax = fig.axes[0]
    shown = [t.get_text() for t in ax.get_yticklabels()]
    assert shown == [r"Costs $\foo$", "$5 per call, $10", "bad \\ud800 label"]
    texts = [*ax.get_yticklabels(), *ax.get_xticklabels(), *fig.texts]
    assert all(not t.get_parse_math() for t in texts if "$" in t.get_text())
    if suffix == "svg":
        svg = path.read_text(encoding="utf-8")
        assert "$5 per call, $10" in svg and r"Costs $\foo$" in svg
