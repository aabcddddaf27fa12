"""The HTML renderer: escaped everywhere, parseable, scoped, bounded."""

from __future__ import annotations

import re
from dataclasses import replace
from html.parser import HTMLParser

from hypothesis import given, settings
from hypothesis import strategies as st

from failuremap_edu import load_record
from failuremap_edu.render._html import CSS, PANEL_CSS, _e, comparison_html, observation_html, report_html, run_html, text_diff_html
from failuremap_edu._diff import diff
from failuremap_edu._results import Comparison, ErrorInfo, Observation, RunResult

ALLOWED_TAGS = {"div", "span", "strong", "code", "dl", "dt", "dd", "ul", "li", "mark", "details", "summary", "pre", "p",
                "style", "table", "caption", "thead", "tbody", "tr", "th", "td", "h1", "h2", "h4", "html", "head", "meta", "title", "body", "br",
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
    assert {name for name, _ in parsed.attrs} <= {"class", "charset", "lang", "title", "scope", "alt", "src", "style", "role", "aria-label", "tabindex"}
    # a wide table's own scroll region: labelled and focusable, nothing else
    assert all(value == "region" for name, value in parsed.attrs if name == "role")
    assert all(value == "0" for name, value in parsed.attrs if name == "tabindex")
    # spaces kept, and a changed part widened to line up with the other side: nothing else
    assert all(value == "white-space:pre-wrap" or re.fullmatch(r"display:inline-block;min-width:\d+ch", value)
               for name, value in parsed.attrs if name == "style"), parsed.attrs
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
    rules = [rule for rule in (CSS + PANEL_CSS).replace("}", "}\n").splitlines() if "{" in rule]
    for rule in rules:
        for selector in rule.split("{")[0].split(","):
            # scoped: under .fm-root or the panel's .fm-panel (possibly inside the widget view that
            # ipywidgets marks disconnected, or under JupyterLab's dark-theme marker on <body>)
            selector = selector.strip().removeprefix(".jupyter-widgets-disconnected ").removeprefix('body[data-jp-theme-light="false"] ')
            assert selector.startswith((".fm-root", ".fm-panel")), selector


def test_colours_follow_the_theme():
    """A light palette, and a dark one under JupyterLab's marker: no fixed colour on a badge, muted text or link."""
    assert CSS.startswith(
        ".fm-root,.fm-panel{--fm-pass:#116329;--fm-fail:#a40e26;--fm-error:#7d4e00;--fm-timeout:#6639ba;"
        "--fm-unconfirmed:#0b5394;--fm-muted:#595959;--fm-link:#0d47a1;--fm-focus:#1565c0}\n"
        'body[data-jp-theme-light="false"] .fm-root,body[data-jp-theme-light="false"] .fm-panel{--fm-pass:#3fb950;'
        "--fm-fail:#ff7b72;--fm-error:#d29922;--fm-timeout:#bc8cff;--fm-unconfirmed:#79c0ff;--fm-muted:#b3b3b3;--fm-link:#8cc8ff;--fm-focus:#64b5f6}\n"
    )
    for rule in (
        ".fm-root .fm-pass{color:var(--fm-pass)}.fm-root .fm-fail{color:var(--fm-fail)}"
        ".fm-root .fm-error{color:var(--fm-error)}.fm-root .fm-timeout{color:var(--fm-timeout)}.fm-root .fm-unconfirmed{color:var(--fm-unconfirmed)}",
        ".fm-root .fm-muted{color:var(--fm-muted)}\n",  # was opacity:.6, 4.29:1 on white
        ".fm-root a{color:var(--fm-link);text-decoration:underline;text-underline-offset:2px}\n",  # links look like links
        ".fm-root a:focus-visible,.fm-root summary:focus-visible{outline:2px solid var(--fm-focus);outline-offset:2px}\n",
    ):
        assert rule in CSS, rule
    assert "opacity" not in CSS and "#cf222e" not in CSS and "#9a6700" not in CSS


def test_contrast_of_every_palette_colour_is_at_least_aa():
    """WCAG's formula, on the backgrounds the colours meet: text 4.5:1, the focus ring 3:1."""
    from failuremap_edu.render._style import STATUS_CSS, STATUS_CSS_DARK, UI_CSS, UI_CSS_DARK

    def luminance(colour):
        channels = [int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
        r, g, b = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
        return 0.2126 * r + 0.7152 * g + 0.0722 * b

    def ratio(a, b):
        high, low = sorted((luminance(a), luminance(b)), reverse=True)
        return (high + 0.05) / (low + 0.05)

    for palette, backgrounds in (({**STATUS_CSS, **UI_CSS}, ("#ffffff", "#f5f5f5", "#eeeeee", "#e0e0e0")),
                                 ({**STATUS_CSS_DARK, **UI_CSS_DARK}, ("#111111", "#212121", "#2a2a2a"))):
        for name, colour in palette.items():
            for background in backgrounds:
                assert ratio(colour, background) >= (3.0 if name == "focus" else 4.5), (name, colour, background)


def test_panel_css_gives_a_visible_focus_ring_and_lets_rows_wrap():
    assert PANEL_CSS == (
        "\n.fm-panel .jupyter-button:focus-visible,.fm-panel input:focus-visible,.fm-panel select:focus-visible"
        "{outline:2px solid var(--fm-focus)!important;outline-offset:2px}\n"
        ".fm-panel .widget-hbox{flex-wrap:wrap;max-width:100%}\n"
        ".fm-panel .jupyter-button{max-width:100%;height:auto;min-height:var(--jp-widgets-inline-height,28px);white-space:normal;overflow-wrap:anywhere}\n"
        ".fm-panel .widget-html,.fm-panel .widget-html-content{max-width:100%;min-width:0}\n"
        ".fm-panel .widget-text{max-width:100%}\n"
        ".fm-panel .fm-named-box .widget-label{position:absolute;width:1px;height:1px;margin:0;overflow:hidden;clip-path:inset(50%);white-space:nowrap}\n"
        # after a restart: the panel's own broken-link icon and its one line, not an icon on each of its widgets (trials 9, 10)
        ".fm-panel .jupyter-widgets-disconnected::before{display:none}\n"
    )


def test_the_passing_row_is_data_cells_with_a_row_header():
    runs = [RunResult("FA-1", name, 1, (Observation(index=0, check="c", status="pass", passed=True, expected=1, actual=1),), 1.0, "process")
            for name in ("broken", "yours")]
    html = comparison_html(runs, ["broken", "yours"], css=False)
    assert html.endswith('<tr><th scope="row">passing</th><td>1/1</td><td>1/1</td></tr></tbody></table></div></div>')
    assert '<div class="fm-scroll" role="region" aria-label="which run passes which check" tabindex="0"><table>' in html  # scrolls by itself


def test_exact_badge_and_diff_markup():
    o = Observation(index=0, check="empty", status="fail", passed=False, expected=("abc", ""), actual=["abc", ""], call="solve('abc', [])")
    html = observation_html(o, css=False)
    assert html == (
        '<div class="fm-root"><div class="fm-obs"><div><span class="fm-badge fm-fail">✗ fail</span> <strong>empty</strong></div>'
        '<div class="fm-kv"><div><strong class="fm-k">call</strong> <div class="fm-v"><code>solve(&#x27;abc&#x27;, [])</code></div></div>'
        '<div><strong class="fm-k">expected</strong> <div class="fm-v"><code>(&#x27;abc&#x27;, &#x27;&#x27;)</code></div></div>'
        '<div><strong class="fm-k">got</strong> <div class="fm-v"><code>[&#x27;abc&#x27;, &#x27;&#x27;]</code></div></div></div>'
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
    # the shorter side is widened, not padded with a blank that reads (and copies) as a space in the value
    assert '<code>\'a<mark class="fm-chg" style="display:inline-block;min-width:2ch">b</mark>c\'</code>' in html
    assert '<code>\'a<mark class="fm-chg">xy</mark>c\'</code>' in html and "b&nbsp;" not in html


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


def test_a_hint_ladder_is_an_ordered_list_with_every_hint_escaped():
    from failuremap_edu._hints import Hint, HintLadder
    from failuremap_edu.render._html import hint_ladder_html

    ladder = HintLadder((Hint("Where to look first", "solve('a  b') <here>"), Hint("Root cause", "x & y")))
    assert hint_ladder_html(ladder, css=False) == (
        '<div class="fm-root"><ol><li><strong>Where to look first:</strong> solve(&#x27;a<span style="white-space:pre-wrap">  </span>b&#x27;) &lt;here&gt;</li>'
        "<li><strong>Root cause:</strong> x &amp; y</li></ol></div>"
    )
    assert ladder._repr_mimebundle_()["text/plain"] == "Hint 1: Where to look first: solve('a  b') <here>\nHint 2: Root cause: x & y"
def test_a_line_diff_is_one_grid_of_lines_after_their_side():
    from failuremap_edu.render._html import lines_diff_html

    assert lines_diff_html(diff("a\nb\nc\nd\n", "a\nX\nb\nc \nd\n").differences[0].lines) == (
        '<div class="fm-textdiff">'
        "<span></span><code class=\"fm-muted\">'a'</code>"
        "<span>got</span><code>'<mark class=\"fm-chg\">X</mark>'</code>"
        "<span></span><code class=\"fm-muted\">'b'</code>"
        '<span>expected</span><code>\'c<mark class="fm-gap" title="nothing here: got has extra characters">&nbsp;</mark>\'</code>'
        '<span>got</span><code>\'c<mark class="fm-chg">␣</mark>\'</code>'
        "<span></span><code class=\"fm-muted\">'d'</code>"
        + LEGEND + "</div>"
    )
    # lines left out show as "…"; a line only expected has is marked whole
    html = lines_diff_html(diff("\n".join("abcdefgh"), "\n".join("abcefgh")).differences[0].lines)
    assert html == (
        '<div class="fm-textdiff"><span></span><code class="fm-muted">…</code>'
        "<span></span><code class=\"fm-muted\">'c'</code>"
        "<span>expected</span><code>'<mark class=\"fm-chg\">d</mark>'</code>"
        "<span></span><code class=\"fm-muted\">'e'</code>"
        '<span></span><code class="fm-muted">…</code></div>'
    )
    assert_safe(html)


def test_a_line_diff_beyond_its_budget_says_how_many_lines_are_left_out():
    from failuremap_edu._diff import Budget
    from failuremap_edu.render._html import diff_html

    html = diff_html(diff("\n".join(map(str, range(20))), "\n".join(map(str, range(1, 21))), Budget(text_lines=2)))
    assert html.endswith('<span></span><span class="fm-muted">2 more lines of the diff</span></div></li></ul>')
    assert_safe(html)


def test_watch_it_fail_lists_every_difference_as_the_panel_does():
    from failuremap_edu.render._html import _story_reasons_html

    o = Observation(index=0, check="spans", status="fail", passed=False, expected=[(0, 3), (4, 6)], actual=[[0, 3], [4, 7]])
    assert _story_reasons_html(o) == (
        '<ul class="fm-why">'
        "<li><code>[0]</code>: expected a tuple, got a list: the items are the same, but a tuple never equals a list, so == fails</li>"
        "<li><code>[1]</code>: expected a tuple, got a list (and a tuple never equals a list, even with the same items)</li>"
        "<li><code>[1][1]</code>: expected 6, got 7</li></ul>"
    )
    one = Observation(index=0, check="one", status="fail", passed=False, expected=[1, 2], actual=[1, 3])
    assert _story_reasons_html(one) == "<br><span>[1]: expected 2, got 3</span>"
def test_lone_surrogates_are_escaped_in_every_piece_of_html():
    record = load_record("FA-100786")
    observation = Observation(0, "label \ud800", "error", False, None, ("a\ud800", ""), error=ErrorInfo("ValueError", "bad \ud800 message"))
    run = RunResult(record.id, "yours", 1, (observation,), 2.0, "process")
    for html in (report_html(record, [run]), run_html(run), observation_html(observation)):
        html.encode("utf-8")
        assert "label \\ud800" in html or "bad \\ud800 message" in html
    assert "bad \\ud800 message" in run_html(run) and "&#x27;a\\ud800&#x27;" in run_html(run)


def test_the_playground_says_it_does_not_check_the_contract():
    from failuremap_edu.render._html import playground_html

    assert playground_html([("yours", "returned", "{}")], css=False) == (
        '<div class="fm-root"><table class="fm-playground"><tbody><tr><th>yours</th><td>returned</td><td><code>{}</code></td></tr></tbody></table>'
        '<p class="fm-muted">Nothing here checks these results against the contract: where it says what these inputs give, compare each'
        " result with that; inputs outside the contract have no right answer, and the three may differ for that reason alone.</p></div>"
    )


def test_text_that_quotes_code_keeps_its_spaces():
    """"solve('hello  world') returned" showed one space in the browser, and a trial went looking for a second bug."""
    import re

    kept = set()
    for selectors, body in re.findall(r"([^{}]+)\{([^}]*)\}", CSS):
        if "white-space:pre-wrap" in body or "white-space:pre" in body:
            kept |= {s.strip() for s in selectors.split(",")}
    assert {".fm-root .fm-k", ".fm-root .fm-why li", ".fm-root .fm-pattern", ".fm-root code", ".fm-root .fm-note"} <= kept
    o = Observation(index=0, check="c", status="fail", passed=False, expected=["a"], actual=["b"], call="solve('a  b')",
                    compared="solve('a  b')[0]", returned=(("solve('a  b')", [["b"], "c"]),))
    spaces = '<span style="white-space:pre-wrap">  </span>'  # kept without our CSS too: an untrusted notebook drops it
    html = observation_html(o, css=False)
    assert f'<strong class="fm-k">solve(&#x27;a{spaces}b&#x27;) returned</strong>' in html
    assert f'<code>solve(&#x27;a{spaces}b&#x27;)[0]</code>' in html
    assert observation_html(replace(o, check="a b", call="solve('a b')", compared=None, returned=())).count("pre-wrap\">") == 0
    assert _e("one\ntwo\tthree   four five") == (
        'one<span style="white-space:pre-wrap">\n</span>two<span style="white-space:pre-wrap">\t</span>three'
        '<span style="white-space:pre-wrap">   </span>four five')


def test_a_long_call_is_said_in_the_value_column_not_as_the_rows_label():
    """A helper's call with 40 losses as the label of "returned" wrapped over a dozen lines in the narrow column."""
    from failuremap_edu.render._html import KEY_CHARS

    call = f"solve({[round(0.1 * i, 3) for i in range(40)]}, 0.9)"
    o = Observation(index=0, check="c", status="fail", passed=False, expected=[1.0], actual=[2.0], call=call,
                    compared=f"rounded({call})", returned=((call, [1.999]),))
    html = observation_html(o, css=False)
    labels = re.findall(r'<strong class="fm-k">(.*?)</strong>', html)
    assert labels[:2] == ["compares", "returned"] and all(len(label) <= KEY_CHARS + len(" returned") for label in labels)
    assert f"<code>{_e(call)}</code>: <code>[1.999]</code>" in html
