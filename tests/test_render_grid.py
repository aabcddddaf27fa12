"""Pictures of grids and number sequences: exact text and HTML, and the image for large grids."""

from __future__ import annotations

import math
import re
from html.parser import HTMLParser

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from failuremap_edu.render._grid import grid_html, grid_text, picture_kind, picture_text, sequence_html, sequence_text


def mask(n, strict=False, pad=0):
    return [[1 if pad <= j and (j < i if strict else j <= i) else 0 for j in range(n)] for i in range(n)]


def test_grid_text_aligns_both_grids_cell_for_cell_one_row_per_line():
    assert grid_text(mask(4), mask(4, strict=True)) == [
        "   expected     | got",
        "    0  1  2  3  |  0  1  2  3",
        "0  [1] 0  0  0  | [0] 0  0  0",
        "1   1 [1] 0  0  |  1 [0] 0  0",
        "2   1  1 [1] 0  |  1  1 [0] 0",
        "3   1  1  1 [1] |  1  1  1 [0]",
        "[ ] marks the 4 cells that differ",
    ]


def test_grid_text_of_unequal_shapes_and_booleans():
    assert grid_text([[True]], [[True, False]]) == [
        "   expected       | got",
        "        0      1  |      0      1",
        "0    True         |   True [False]",
        "[ ] marks the cell that differs",
    ]


def test_sequence_text_has_an_index_row_so_a_shift_shows():
    assert sequence_text([0.0025, 0.005, 0.0075, 0.01], [0.0, 0.0025, 0.005, 0.0075]) == [
        "index          0       1       2       3",
        "expected [0.0025][ 0.005][0.0075][  0.01]",
        "got      [   0.0][0.0025][ 0.005][0.0075]",
        "[ ] marks the 4 positions that differ",
    ]
    assert sequence_text([1, 2, 3], [1, 2, 30, 4]) == [
        "index      0   1   2   3",
        "expected   1   2 [ 3]",
        "got        1   2 [30][ 4]",
        "[ ] marks the 2 positions that differ",
    ]


def test_grid_html_marks_cells_in_place_with_colour_and_a_border_and_says_so():
    assert grid_html([[1, 0]], [[0, 0]]) == (
        '<div class="fm-scroll" role="region" aria-label="expected and got, cell for cell" tabindex="0"><div class="fm-pictures">'
        '<table class="fm-grid"><caption>expected</caption><thead><tr><th></th><th>0</th><th>1</th></tr></thead><tbody>'
        '<tr><th>0</th><td class="fm-cell-diff" title="row 0, column 0: expected 1, got 0"><mark><strong>1</strong></mark></td><td>0</td></tr></tbody></table>'
        '<table class="fm-grid"><caption>got</caption><thead><tr><th></th><th>0</th><th>1</th></tr></thead><tbody>'
        '<tr><th>0</th><td class="fm-cell-diff" title="row 0, column 0: expected 1, got 0"><mark><strong>0</strong></mark></td><td>0</td></tr></tbody></table>'
        "</div></div>"
        '<p class="fm-muted">the cell that differs is highlighted and set in bold, on both sides</p>'
    )


def test_sequence_html():
    assert sequence_html([0.5, 1], [0.5, 2]) == (
        '<div class="fm-scroll" role="region" aria-label="expected and got, position by position" tabindex="0">'
        '<div class="fm-pictures"><table class="fm-grid"><thead><tr><th>index</th><th>0</th><th>1</th></tr></thead><tbody>'
        '<tr><th>expected</th><td>0.5</td><td class="fm-cell-diff" title="position 1: expected 1, got 2"><mark><strong>1</strong></mark></td></tr>'
        '<tr><th>got</th><td>0.5</td><td class="fm-cell-diff" title="position 1: expected 1, got 2"><mark><strong>2</strong></mark></td></tr>'
        "</tbody></table></div></div>"
        '<p class="fm-muted">the position that differs is highlighted and set in bold, on both sides</p>'
    )


class _Images(HTMLParser):
    def __init__(self):
        super().__init__()
        self.images = []

    def handle_starttag(self, tag, attrs):
        if tag == "img":
            self.images.append(dict(attrs))


def test_a_grid_above_12_by_12_is_an_inline_png_with_alt_text():
    html = grid_html(mask(14, pad=2), mask(14, strict=True, pad=2))
    parser = _Images()
    parser.feed(html)
    [image] = parser.images
    assert image["src"].startswith("data:image/png;base64,iVBOR")  # a PNG, inline: nothing is fetched
    assert image["alt"] == (
        "expected (14×14) beside got (14×14), cell for cell; 12 cells differ, crossed out on both sides: row 2 column 2, "
        "row 3 column 3, row 4 column 4, row 5 column 5, row 6 column 6, row 7 column 7, row 8 column 8, row 9 column 9, "
        "row 10 column 10, row 11 column 11 and 2 more."
    )
    assert "<table" not in html
    # 12 x 12 is still a table, read cell by cell
    assert "<img" not in grid_html(mask(12), mask(12, strict=True)) and "<table" in grid_html(mask(12), mask(12, strict=True))


def test_only_grids_and_number_sequences_are_drawn():
    assert picture_kind(mask(2), [[1, 1], [1, 1]]) == "grid" and picture_kind(mask(2), mask(2)) is None  # nothing differs: nothing to draw
    assert picture_kind([1, 2], [1.0, 3]) == "sequence"
    assert picture_kind("ab", "ac") is None and picture_kind([[1]], [1]) is None and picture_kind([1], [2]) is None
    assert picture_kind([("a", 1)], [("a", 2)]) is None
    assert picture_text({"a": 1}, {"a": 2}) == []


def test_no_picture_when_no_cell_differs():
    """Tuples against lists of the same numbers: a picture saying "no cell differs" sent a trial's learner looking for one."""
    from failuremap_edu.render._grid import picture_html, picture_text

    for expected, got in (([(0, 2), (2, 4)], [[0, 2], [2, 4]]), ((4, 5), [4, 5])):
        assert picture_html(expected, got) == "" and picture_text(expected, got) == []
    assert picture_html([(0, 2)], [[0, 3]]) != "" and picture_text((4, 5), [4, 6]) != []


def test_the_legend_says_both_sides_only_when_both_have_the_cell():
    """An extra row in got: only got has those cells, and "on both sides" sent a trial's learner looking (a learner trial)."""
    from failuremap_edu.render._grid import grid_html, sequence_html

    extra = grid_html([[0, 2], [2, 4]], [[0, 2], [2, 4], [4, 6]])
    assert extra.endswith('<p class="fm-muted">the 2 cells that differ are highlighted and set in bold, on the side that has them</p>')
    mixed = grid_html([[0, 2], [2, 4]], [[0, 3], [2, 4], [4, 6]])
    assert mixed.endswith("on both sides, or on the one side that has them (2 on one side only)</p>")
    assert sequence_html([1, 2], [1, 3]).endswith("highlighted and set in bold, on both sides</p>")
    assert sequence_html([1, 2], [1, 2, 3]).endswith("the position that differs is highlighted and set in bold, on the side that has it</p>")


@pytest.mark.parametrize("rows, columns", [(13, 13), (40, 25), (1000, 3), (300, 300)])
def test_a_large_grid_is_drawn_without_a_layout_pass_and_its_labels_fit_beside_each_other(rows, columns):
    """Constrained layout laid every tick label out once more before the draw (two thirds of a picture's time): the
    axes are placed in inches, and every label, tick number and title still lies inside the figure, the two sides apart."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    from failuremap_edu._patterns import differing_cells
    from failuremap_edu.render._grid import grid_figure

    expected = [[r * columns + c for c in range(columns)] for r in range(rows)]
    got = [row[:] for row in expected]
    got[rows // 2][columns // 2] = -1
    figure = grid_figure(expected, got, differing_cells(expected, got))
    assert figure.get_layout_engine() is None
    canvas = FigureCanvasAgg(figure)
    canvas.draw()
    renderer, whole = canvas.get_renderer(), figure.bbox
    sides = [ax.get_tightbbox(renderer) for ax in figure.axes]
    assert len(sides) == 2 and sides[0].x1 <= sides[1].x0  # expected's numbers and labels clear got's
    for ax in figure.axes:
        (x0, x1), (y0, y1) = sorted(ax.get_xlim()), sorted(ax.get_ylim())
        ticks = [t for t in ax.get_xticklabels() if x0 <= t.get_position()[0] <= x1] + [t for t in ax.get_yticklabels() if y0 <= t.get_position()[1] <= y1]
        texts = [*ticks, ax.title, ax.xaxis.label, ax.yaxis.label]
        for text in (t for t in texts if t.get_text()):
            box = text.get_window_extent(renderer)
            assert whole.x0 <= box.x0 and box.x1 <= whole.x1 and whole.y0 <= box.y0 and box.y1 <= whole.y1, text.get_text()


def test_a_long_sequence_is_shown_from_its_first_difference():
    expected = list(range(1_000))
    got = list(expected)
    got[500], got[503] = -1, -2
    lines = sequence_text(expected, got)
    assert lines[0] == "… 500 items before, the same on both sides"
    assert lines[1].split()[1:3] == ["500", "501"]
    assert lines[-1] == "[ ] marks the positions that differ: 2 in all, 2 of them among positions 500 to 559 shown here"
    html = sequence_html(expected, got)
    assert "<th>500</th>" in html and "<th>0</th>" not in html


def _legend_count(line: str) -> int:
    found = re.search(r"the ([\d,]+) positions? that differ|differ: ([\d,]+) in all|(the) position that differs", line)
    if found is None:
        return 0
    number = found.group(1) or found.group(2)
    return int(number.replace(",", "")) if number else 1


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.integers(2, 300), st.lists(st.integers(0, 299), max_size=120), st.integers(0, 3))
def test_the_legend_counts_every_position_that_differs(n, changed, extra):
    expected = [float(i) for i in range(n)]
    got = list(expected) + [0.5] * extra
    for i in changed:
        if i < n:
            got[i] = -1.0
    differing = sum(1 for i in range(max(len(expected), len(got))) if i >= n or expected[i] != got[i])
    lines = sequence_text(expected, got)
    assert _legend_count(lines[-1]) == differing
    marked = sum(line.count("[") for line in lines if line.startswith("got"))
    assert marked <= differing

# ------------------------------------------------------------------ long sequences: a line chart, and folded tables


def _chart_image(html):
    parser = _Images()
    parser.feed(html)
    return parser.images


def test_fifty_losses_are_a_line_chart_whose_alt_text_and_text_form_say_the_pattern():
    from failuremap_edu.render._chart import sequence_words
    from failuremap_edu.render._grid import picture_html, picture_text

    expected, got = [1.0] * 50, [0.02] * 50
    html = picture_html(expected, got)
    [image] = _chart_image(html)
    assert image["src"].startswith("data:image/png;base64,iVBOR")
    assert "<table" not in html  # the 50-column index table is gone
    words = sequence_words(expected, got)
    assert words == [
        "A line chart of expected (50 values) and got (50 values), by position:",
        "expected is 1 at every position; got is 0.02 at every position.",
        "Every value is 0.02 where 1 is expected, in all 50 values.",
    ]
    assert image["alt"] == " ".join(words)
    assert picture_text(expected, got) == words[:2]  # the text/plain form says the same in words; the pattern line follows it
    assert "Every value is 0.02" not in html[html.index("<figcaption"):]  # nor twice under the picture: the row says it next


def test_a_warmup_schedule_is_described_by_where_it_levels_off():
    from failuremap_edu.render._chart import sequence_words

    expected = [min(1.0, (i + 1) / 10) for i in range(30)]  # warmup over 10 steps
    got = [min(1.0, (i + 1) / 5) for i in range(30)]  # over 5
    words = sequence_words(expected, got)
    assert words[1] == "expected rises from 0.1 to 1 by position 9, then stays at 1; got rises from 0.2 to 1 by position 4, then stays at 1."
    assert words[2] == "Only the first 9 positions differ (0 to 8); the rest are right."


def test_without_a_pattern_the_words_count_the_differing_positions_and_lengths():
    from failuremap_edu.render._chart import sequence_words

    expected = [0.5, 1.5, 1.0, 2.0] * 5
    got = expected[:3] + [9.0] + expected[4:] + [3.0, 4.0]
    words = sequence_words(expected, got)
    assert words[1] == "expected goes up and down between 0.5 and 2; got goes up and down between 0.5 and 9."
    assert words[2:] == ["3 of 22 positions differ, the first at position 3.", "got has 2 more values than expected."]


def test_the_chart_is_a_figure_of_two_lines_expected_and_got_over_every_position():
    from failuremap_edu.render._plot import sequence_figure

    fig = sequence_figure([1.0] * 50, [0.02] * 49 + [float("inf")])
    [ax] = fig.axes
    lines = {line.get_label(): line for line in ax.get_lines()}
    assert set(lines) == {"expected", "got"}
    assert list(lines["expected"].get_xdata()) == list(range(50)) and set(lines["expected"].get_ydata()) == {1.0}
    assert list(lines["got"].get_ydata())[:49] == [0.02] * 49 and math.isnan(lines["got"].get_ydata()[49])  # inf: a gap, not a spike
    assert lines["expected"].get_linestyle() != lines["got"].get_linestyle() and lines["expected"].get_marker() != lines["got"].get_marker()


def test_without_matplotlib_a_long_sequence_is_a_folded_table_in_its_own_scroll_region(monkeypatch):
    import failuremap_edu.render._plot as plot
    from failuremap_edu.render._grid import picture_html

    def no_matplotlib(*_):
        raise ImportError("no matplotlib in JupyterLite")

    monkeypatch.setattr(plot, "sequence_figure", no_matplotlib)
    html = picture_html([1.0] * 50, [0.02] * 50)
    assert "<img" not in html
    assert html.startswith('<div class="fm-scroll" role="region" aria-label="expected and got, position by position" tabindex="0">')
    assert html.count("<table") == 10  # blocks of 5 positions ("0.02" is 4 wide, plus 2: 30 characters): they wrap, not scroll
    assert html.count('class="fm-cell-diff"') == 100  # every position marked, on both rows


@given(st.lists(st.one_of(st.integers(-10**30, 10**30), st.floats(allow_nan=False)), min_size=1, max_size=70),
       st.lists(st.floats(allow_nan=False), min_size=1, max_size=70))
@settings(max_examples=150, deadline=None)
def test_folded_blocks_cover_every_position_once_in_order_and_stay_narrow(expected, got):
    from failuremap_edu.render._grid import FOLD_CHARS, _cell, _fold, sequence_window

    window, _ = sequence_window(expected, got)
    blocks = _fold(expected, got, window)
    assert [i for block in blocks for i in block] == list(window)
    for block in blocks:
        widths = [max(len(str(i)), *(len(_cell(v[i])) for v in (expected, got) if i < len(v))) + 2 for i in block]
        assert len(block) == 1 or sum(widths) <= FOLD_CHARS


@given(st.lists(st.floats(allow_nan=False, allow_infinity=False, width=32), min_size=13, max_size=40),
       st.lists(st.floats(allow_nan=False, allow_infinity=False, width=32), min_size=13, max_size=40))
@settings(max_examples=40, deadline=None)
def test_every_long_sequence_that_differs_gets_a_chart_and_words_that_name_both_lengths(expected, got):
    from failuremap_edu.render._chart import sequence_words
    from failuremap_edu.render._grid import picture_html, picture_kind

    if picture_kind(expected, got) != "sequence":
        return
    words = sequence_words(expected, got)
    assert f"expected ({len(expected)} values)" in words[0] and f"got ({len(got)} values)" in words[0]
    [image] = _chart_image(picture_html(expected, got))
    assert image["alt"] == " ".join(words)


def test_the_playground_draws_a_ragged_result_beside_the_grids_and_names_one_it_cannot_draw():
    """A result of another shape is a difference to see: left out, it made the marks compare the attempt and broken
    only while the legend's count read as a comparison with yours."""
    from failuremap_edu.render._grid import playground_pictures_html, playground_pictures_text

    values = [("yours", [[0, 1], [2, 3], [4]]), ("attempt", [[0, 1], [2, 3]]), ("broken", "no batches")]
    html = playground_pictures_html(values)
    assert "<caption>yours</caption>" in html and "<caption>attempt</caption>" in html and "<caption>broken</caption>" not in html
    text = playground_pictures_text(values)
    assert text[-1] == "[ ] marks the cell where yours and attempt differ; not drawn: what broken returned, which is not rows of numbers"
    assert playground_pictures_text([("yours", (x for x in ())), ("attempt", [[1]])])[-1] == "not drawn: what yours returned, which is not rows of numbers"
    assert playground_pictures_html([("yours", [[0], [1, 2]]), ("attempt", "text")]) == ""  # no grid at all: no picture


def test_the_grid_pairs_rows_as_the_diff_pairs_them():
    """The TT-500001 trial's broken on 'windows of 3, stride 1': the picture marked rows 1 to 3 by position ("the 9
    cells that differ", got's [3, 4, 5] against expected's [1, 2, 3]) while the words said windows [1, 2, 3] and
    [2, 3, 4] are missing. The picture draws the diff's alignment: each side numbers its own rows."""
    from failuremap_edu import diff

    expected, got = [[0, 1, 2], [1, 2, 3], [2, 3, 4], [3, 4, 5]], [[0, 1, 2], [3, 4, 5]]
    assert [d.path for d in diff(expected, got).differences] == ["", "[1]", "[2]"]
    assert grid_text(expected, got) == [
        "expected     | got",
        "    0  1  2  |     0  1  2",
        "0   0  1  2  | 0   0  1  2",
        "1  [1][2][3] |",
        "2  [2][3][4] |",
        "3   3  4  5  | 1   3  4  5",
        "[ ] marks the 6 cells that differ",
    ]
    html = grid_html(expected, got)
    assert re.findall(r"<tr><th>(\d*)</th><td", html) == ["0", "1", "2", "3", "0", "", "", "1"]
    assert 'title="column 0, expected row 1: 1, got: no such row"' in html
    assert "the 6 cells that differ are highlighted and set in bold, on the side that has them" in html
    # compared position by position, the rows keep one column of numbers
    assert grid_text([[0, 1], [2, 3]], [[0, 1]])[0:3] == ["   expected | got", "    0  1  |  0  1", "0   0  1  |  0  1"]


def _grid_pairs():
    """A grid of windows and a mistake in it: rows deleted or added, every value off by one, a cell changed."""
    width = st.integers(1, 4)
    rows = st.integers(1, 7)

    @st.composite
    def build(draw):
        w, n = draw(width), draw(rows)
        e = [[draw(st.integers(0, 3)) + r + c for c in range(w)] for r in range(n)]
        a = [list(row) for row in e]
        for _ in range(draw(st.integers(1, 3))):
            what = draw(st.sampled_from(["delete", "insert", "offset", "change"]))
            if what == "delete" and len(a) > 1:
                del a[draw(st.integers(0, len(a) - 1))]
            elif what == "insert":
                a.insert(draw(st.integers(0, len(a))), [draw(st.integers(0, 9)) for _ in range(w)])
            elif what == "offset":
                a = [[x + 1 for x in row] for row in a]
            elif a:
                row = draw(st.integers(0, len(a) - 1))
                a[row][draw(st.integers(0, w - 1))] = draw(st.integers(0, 9))
        return e, a

    return build()


_TOTALS = re.compile(r"(\d+(?:,\d{3})*) in all|in all (\d+(?:,\d{3})*) values|the (\d+(?:,\d{3})*) (?:cells|positions) that differ")


@settings(max_examples=120, deadline=None, derandomize=True)
@given(_grid_pairs(), st.integers(1, 14))
def test_a_check_says_one_total_and_it_is_the_verifiers_count(pair, kept):
    """Every count a failing check states about its diff is the verifier's (the cells `differing_cells` finds in the
    picture's pairing, the differences the diff finds), and no two different totals are shown for one diff."""
    from failuremap_edu._diff import Budget, diff
    from failuremap_edu._patterns import differing_cells
    from failuremap_edu._results import Observation
    from failuremap_edu.render._grid import aligned_rows
    from failuremap_edu.render._html import observation_html
    from failuremap_edu.render._text import render_observation

    e, a = pair
    if e == a or not a:
        return
    budget = Budget(max_differences=kept)
    o = Observation(index=0, check="windows", status="fail", passed=False, expected=e, actual=a)
    everything = len(diff(e, a, Budget(max_differences=10**6)).differences)
    cells = len(differing_cells(*aligned_rows(e, a)[:2])) if picture_kind(e, a) == "grid" else None
    for said in (render_observation(o, budget), observation_html(o, budget)):
        totals = {int(next(g for g in m.groups() if g).replace(",", "")) for m in _TOTALS.finditer(said)}
        assert len(totals) <= 1, said
        if "more difference" in said:
            assert totals == {everything}, said
        elif cells is not None and cells > 1:
            assert totals == {cells}, said
