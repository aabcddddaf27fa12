"""The HTML renderer: escaped everywhere, parseable, scoped, bounded."""

from __future__ import annotations

from html.parser import HTMLParser

from hypothesis import given, settings
from hypothesis import strategies as st

from failuremap_edu import load_record
from failuremap_edu.render._html import CSS, comparison_html, observation_html, report_html, run_html, text_diff_html
from failuremap_edu._diff import diff
from failuremap_edu._results import Comparison, ErrorInfo, Observation, RunResult

ALLOWED_TAGS = {"div", "span", "strong", "code", "dl", "dt", "dd", "ul", "li", "mark", "details", "summary", "pre", "p",
                "style", "table", "caption", "thead", "tbody", "tr", "th", "td", "h1", "h2", "html", "head", "meta", "title", "body", "br",
                "figure", "img", "figcaption"}
HOSTILE = '<script>alert("x")</script> & \'q\' <stop> <img src=x onerror=alert(1)>'


class Collector(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags, self.attrs, self.text, self.open = [], [], [], []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.attrs += attrs
        if tag not in ("meta", "br", "img"):
            self.open.append(tag)

    def handle_endtag(self, tag):
        assert self.open and self.open[-1] == tag, f"</{tag}> closes <{self.open[-1] if self.open else None}>"
        self.open.pop()

    def handle_data(self, data):
        self.text.append(data)


def parse(html: str) -> Collector:
    collector = Collector()
    collector.feed(html)
    collector.close()
    assert collector.open == [], f"unclosed tags: {collector.open}"
    return collector


def assert_safe(html: str) -> Collector:
    parsed = parse(html)
    assert set(parsed.tags) <= ALLOWED_TAGS, set(parsed.tags) - ALLOWED_TAGS
    assert {name for name, _ in parsed.attrs} <= {"class", "charset", "lang", "title", "alt", "src"}
    assert all(value.startswith("data:image/png;base64,") for name, value in parsed.attrs if name == "src")  # a grid's picture, inline
    return parsed


def hostile_observation(status="fail") -> Observation:
    return Observation(
        index=0, check=HOSTILE, status=status, passed=False, expected=(HOSTILE, "<st"), actual=[HOSTILE, "&amp;"],
        call=f"solve({HOSTILE!r})", lineno=3, error=ErrorInfo("ValueError", HOSTILE, HOSTILE) if status == "error" else None,
        stdout=HOSTILE + "\n", mutation=HOSTILE,
    )


def test_every_field_is_escaped():
    for status in ("fail", "error"):
        html = observation_html(hostile_observation(status))
        parsed = assert_safe(html)
        assert "<script>" not in html and "<stop>" not in html and "<img" not in html
        assert "&lt;stop&gt;" in html and "&lt;script&gt;" in html
        assert ("&amp;amp;" in html) == (status == "fail")  # the actual '&amp;' is shown only for a fail
        assert HOSTILE in "".join(parsed.text)  # shown as text, exactly


def test_run_and_comparison_escape_labels_and_problems():
    o = hostile_observation()
    run = RunResult("FA-1", "yours", 1, (o,), 2.0, "process", ErrorInfo("X", HOSTILE, HOSTILE))
    for html in (run_html(run, title=HOSTILE), comparison_html([run], [HOSTILE])):
        assert_safe(html)
        assert "<stop>" not in html


def test_report_escapes_record_text_and_has_no_external_assets(raw_record, write_record):
    raw_record["title"] = HOSTILE
    raw_record["contract"] = HOSTILE
    record = load_record(write_record(raw_record))
    run = RunResult(record.id, "yours", 1, (hostile_observation(),), 2.0, "process")
    html = report_html(record, [run], [HOSTILE])
    parsed = assert_safe(html)
    assert html.startswith("<!DOCTYPE html>")
    # no external assets: no src/href attribute anywhere, nothing fetched by the CSS, no tag from the input
    assert not {name for name, _ in parsed.attrs} & {"src", "href"}
    for external in ("@import", "url(", "http://", "https://"):
        assert external not in CSS
    assert "<script" not in html and "<img" not in html
    assert parsed.text.count(HOSTILE) >= 3


def test_css_is_scoped():
    rules = [rule for rule in CSS.replace("}", "}\n").splitlines() if "{" in rule]
    for rule in rules:
        for selector in rule.split("{")[0].split(","):
            # scoped: under .fm-root (possibly inside the widget view that ipywidgets marks disconnected)
            assert selector.strip().removeprefix(".jupyter-widgets-disconnected ").startswith(".fm-root"), selector


def test_exact_badge_and_diff_markup():
    o = Observation(index=0, check="empty", status="fail", passed=False, expected=("abc", ""), actual=["abc", ""], call="solve('abc', [])")
    html = observation_html(o, css=False)
    assert html == (
        '<div class="fm-root"><div class="fm-obs"><div><span class="fm-badge fm-fail">✗ fail</span> <strong>empty</strong></div>'
        '<dl class="fm-kv"><dt>call</dt><dd><code>solve(&#x27;abc&#x27;, [])</code></dd>'
        "<dt>expected</dt><dd><code>(&#x27;abc&#x27;, &#x27;&#x27;)</code></dd>"
        "<dt>got</dt><dd><code>[&#x27;abc&#x27;, &#x27;&#x27;]</code></dd></dl>"
        '<ul class="fm-why"><li>expected a tuple, got a list: the items are the same, but a tuple never equals a list, so == fails</li></ul>'
        "</div></div>"
    )


def test_text_diff_aligns_expected_over_got_with_a_gap_box_where_one_side_has_nothing():
    assert text_diff_html(diff("abc", "abxc").differences[0].text) == (
        '<div class="fm-textdiff"><span>expected</span>'
        '<code>\'ab<mark class="fm-gap" title="nothing here: got has extra characters">&nbsp;</mark>c\'</code>'
        '<span>got</span><code>\'ab<mark class="fm-chg">x</mark>c\'</code>' + LEGEND + "</div>"
    )
    assert text_diff_html(diff("ab", "b").differences[0].text) == (
        '<div class="fm-textdiff"><span>expected</span><code>\'<mark class="fm-chg">a</mark>b\'</code>'
        '<span>got</span><code>\'<mark class="fm-gap" title="nothing here: got is missing the characters above">&nbsp;</mark>b\'</code>'
        + LEGEND + "</div>"
    )
    assert "fm-legend" not in text_diff_html(diff("abc", "axc").differences[0].text)  # a replacement has no gap to explain


LEGEND = (
    '<span></span><span class="fm-muted fm-legend">a dashed box holds nothing: '
    "it marks where the other line has characters this one lacks</span>"
)


def test_replacements_of_different_lengths_are_padded_so_columns_line_up():
    html = text_diff_html(diff("abc", "axyc").differences[0].text)
    assert '<code>\'a<mark class="fm-chg">b&nbsp;</mark>c\'</code>' in html and '<code>\'a<mark class="fm-chg">xy</mark>c\'</code>' in html


def test_changed_characters_are_marked_by_a_non_colour_cue_and_never_break_words():
    assert "text-decoration:underline" in CSS and "outline:1px dashed" in CSS
    assert "break-all" not in CSS


def test_five_megabyte_actual_stays_small():
    big = "x" * 5_000_000
    o = Observation(index=0, check="huge", status="fail", passed=False, expected=big + "a", actual=big + "b")
    html = observation_html(o)
    assert len(html.encode()) < 20_000
    assert "at index 5000000, expected &#x27;a&#x27; but got &#x27;b&#x27;" in html


def test_html_is_returned_by_results_for_jupyter():
    o = hostile_observation()
    run = RunResult("FA-1", "yours", 1, (o,), 2.0, "process")
    assert_safe(o._repr_html_())
    assert_safe(run._repr_html_())
    assert_safe(Comparison("FA-1", (run,), ("yours",))._repr_html_())


values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(alphabet=st.sampled_from('<>&"\'ab \t\n\u00a0é'), max_size=12),
    lambda c: st.lists(c, max_size=4) | st.lists(c, max_size=4).map(tuple) | st.dictionaries(st.text(max_size=4), c, max_size=4),
    max_leaves=15,
)


@settings(max_examples=200, deadline=None)
@given(values, values, st.text(max_size=20))
def test_html_parses_cleanly_and_contains_no_unescaped_input(expected, actual, label):
    o = Observation(index=0, check=label, status="fail", passed=False, expected=expected, actual=actual, call=repr(actual)[:50])
    html = observation_html(o, css=False)
    assert_safe(html)
