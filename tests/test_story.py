"""Watch it fail: what broken and attempt return, why, their code, and what a recorded crash hid."""

from __future__ import annotations

import re

from conftest import record_path
from failuremap_edu import load_record, watch_it_fail


def test_story_of_a_packaged_record(pairs):
    story = watch_it_fail(pairs)
    assert story.variant == story.recorded_variant == 1 and story.parity.ok
    failing = story.failing_checks()
    assert [f.check for f in failing] == ["replay same id", "same text distinct IDs", "first replay retained"]
    assert [name for name, _ in failing[1].outcomes] == ["attempt"]  # broken passes that one
    text = str(story)
    assert "They behave exactly as they did when the record was made." in text
    assert "    attempt returned None (expected a list, got None)" in text
    assert "    broken returned ['a1', 'a1'] ([1]: expected 'b1', got 'a1')" in text
    assert "  attempt (lines 6–9 of its script):\n    6  def solve(candidates):\n    7      unique={r[1]:r for r in candidates}" in text
    html = story._repr_html_()
    assert "<details><summary>The code of attempt (lines 6–9 of its script)</summary>" in html and "<caption>variant N = 1</caption>" in html


def test_the_story_of_given_replays_is_the_story_watch_it_fail_tells(pairs):
    from failuremap_edu._story import failure_story
    from failuremap_edu.runner import replay

    record = pairs
    for variant in (1, 3):
        given = failure_story(record, tuple(replay(record, name, variant) for name in ("broken", "attempt")))
        told = watch_it_fail(record, variant=variant)
        assert str(given) == str(told) and given._repr_html_() == told._repr_html_()
        assert (given.parity is None) == (variant != 1)


def test_other_variants_say_why_there_is_no_recorded_run(pairs):
    story = watch_it_fail(pairs, variant=3)
    assert story.parity is None
    assert "The record's runs were recorded for N = 1; for N = 3 there is no recording to compare with." in " ".join(str(story).split())
    assert "solve([['a3', 'one', 8]" in story.failing_checks()[0].call


def test_a_recorded_crash_is_explained_in_plain_words():
    record = load_record(record_path("TR-000303"))
    story = watch_it_fail(record)
    assert story.parity.ok
    crash = next(c for c in story.crashes if c.implementation == "attempt")
    assert crash.error_type == "KeyError" and crash.index is not None
    position = crash.index + 1
    sentence = (
        f"The record's own attempt script crashed at check {position} ('{crash.label}') with KeyError, so "
        + (f"checks {position + 1}–{crash.total}" if crash.total - position > 1 else f"check {position + 1}")
        + " never ran there. Here every check runs on its own, so the table shows what each one gives."
    )
    assert sentence in " ".join(str(story).split()) or sentence in story._repr_html_().replace("&#x27;", "'")


def test_a_story_whose_replays_differ_from_the_record_says_so(raw_record, write_record):
    from conftest import reseal

    raw_record["verification"]["attempt"]["observations"][0]["passed"] = True
    record = load_record(write_record(reseal(raw_record)))
    story = watch_it_fail(record)
    assert not story.parity.ok
    assert "WARNING: these runs differ from the record's recorded runs:" in str(story)


def test_watch_it_fail_draws_the_grid_each_failing_implementation_got():
    story = watch_it_fail(load_record(record_path("TR-000909")))
    text = str(story)
    where = text[text.index("Where they fail"):]
    assert "    attempt returned [[0, 0, 0, 0], [1, 0, 0, 0], [1, 1, 0, 0], [1, 1, 1, 0]]:\n         expected     | got\n" in where
    assert "      0  [1] 0  0  0  | [0] 0  0  0\n" in where and "[ ] marks the 4 cells that differ" in where
    html = story._repr_html_()
    where = html[html.index("Where they fail"):]
    assert '<caption>expected</caption>' in where and '<caption>got</caption>' in where
    assert where.count('title="row 1, column 1: expected 1, got 0"') == 2  # marked on both sides
    assert 'role="region" aria-label="expected and got, cell for cell" tabindex="0"' in where


def test_watch_it_fail_headings_follow_the_notebooks_own():
    """Shown under the notebook's '## Watch it fail' (h2): no heading level is skipped (axe's heading-order)."""
    from failuremap_edu.instructor._notebook import build_notebook

    nb = build_notebook(load_record(record_path("TR-000909")), str(record_path("TR-000909")))
    cells = nb.cells
    at = next(i for i, c in enumerate(cells) if c.cell_type == "markdown" and c.source.startswith("## Watch it fail"))
    html = next(o["data"]["text/html"] for c in cells[at + 1:] if c.cell_type == "code" for o in c.outputs if "Where they fail" in o.get("data", {}).get("text/html", ""))
    levels = [2] + [int(n) for n in re.findall(r"<h([1-6])[ >]", html)]
    assert len(levels) > 1 and all(b <= a + 1 for a, b in zip(levels, levels[1:])), levels


def test_watch_it_fail_draws_fifty_losses_as_a_line_chart_and_says_it_in_words():
    story = watch_it_fail(load_record(record_path("TR-004141")))
    text = str(story)
    assert "      A line chart of expected (50 values) and got (50 values), by position:\n" in text
    assert "      expected is 1 at every position; got is 0.02 at every position.\n" in text  # the attempt
    assert "      expected is 1 at every position; got is -1 at every position.\n" in text  # broken
    assert text.count("Every value is 0.02 where 1 is expected, in all 50 values.") == 1  # the pattern, said once
    html = story._repr_html_()
    assert html.count('<img class="fm-grid-image" alt="A line chart of expected (50 values) and got (50 values), by position: ') == 2
    assert "expected is 1 at every position; got is 0.02 at every position. Every value is 0.02 where 1 is expected" in html


def test_the_code_is_numbered_as_its_script_so_an_errors_line_is_one_the_reader_sees():
    """TR-003434's solve raises on line 13 of its script: the story says "(line 13)" and shows line 13, numbered."""
    from failuremap_edu.render._html import story_html
    from failuremap_edu.render._text import render_story

    record = load_record(record_path("TR-003434"))
    story = watch_it_fail(record, timeout=0.5)
    text, html = render_story(story), story_html(story)
    said = {int(n) for n in re.findall(r"\(line (\d+)\)", text)}
    assert said, "the record's solve raises: its line is said"
    for name, source, first in story.sources:
        script = record.implementations[name].source.splitlines()
        listing = text.split("The code that fails:")[1].split(f"  {name} (")[1]
        listing = re.split(r"\n  (?=\S)", listing)[0]
        shown = dict(re.findall(r"^ {4}\s*(\d+)  (.*)$", listing, re.M))
        assert len(shown) == len(source.splitlines())
        assert all(script[int(n) - 1] == line for n, line in shown.items()), "each number is the script's own"
        assert said <= {int(n) for n in shown}, "every line an error names is among the lines shown"
        assert f"The code of {name} (lines {first}–{first + len(source.splitlines()) - 1} of its script)" in html
