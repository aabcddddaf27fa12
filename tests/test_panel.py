"""The panel's widgets, in plain pytest (no browser, no kernel): they follow the exercise's state."""

from __future__ import annotations

import base64
import re

import ipywidgets
import pytest

from conftest import mixed_stopping_solve, reference_solve, with_lone_surrogates
from failuremap_edu import Exercise
from failuremap_edu._panel import panel, panel_for
from failuremap_edu._panel_parts import PARTS

reference = reference_solve("FA-100786")


def widget_count() -> int:
    from ipywidgets.widgets import widget

    return len(widget._instances)


@pytest.fixture
def stopping():
    exercise = Exercise("FA-100786", timeout=0.5)
    panel_for(exercise)  # build the widgets first: they must follow the state
    return exercise


def test_failing_erroring_and_timing_out_solves_in_the_widgets(stopping):
    stopping.check(mixed_stopping_solve)
    ui = panel(stopping)
    assert "2/6 checks pass (2 fail, 1 error, 1 timeout)" in ui.status.value
    assert ui.checks.value.count("fm-badge fm-timeout") == 1 and ui.checks.value.count("fm-badge fm-error") == 1
    assert "no &lt;abc&gt;" in ui.checks.value and "<abc>" not in ui.checks.value
    assert "&lt;stop&gt;" in ui.checks.value
    assert ui.compare.value.count("<th>broken</th>") == 1 and "<th>yours</th>" in ui.compare.value
    assert "run here by the same runner that checks your solve" in ui.compare.value


def test_while_running_the_panel_shows_progress_not_the_old_results(stopping):
    stopping.check(reference)
    seen = []
    stopping.subscribe(lambda e: seen.append((e.running, panel(stopping).status.value, panel(stopping).downloads.value, panel(stopping).rerun.disabled)))
    stopping.check(lambda text, stops: (text, ""))
    during = [s for s in seen if s[0]]
    assert during and all("Checking your solve" in status and downloads == "" for _, status, downloads, _ in during)
    # Run checks again stays enabled (a disabled button drops keyboard focus to <body>), and the
    # progress is not a live region: a screen reader announces the result line only, not each check.
    assert not any(disabled for *_, disabled in during)
    assert not any('role="status"' in status for _, status, _, _ in during)
    assert '<p class="fm-status"><span class="fm-mark">✗</span> <span role="status" aria-live="polite"><span class="fm-summary">4/6 checks pass (2 fail)</span></span></p>' in panel(stopping).status.value
    assert 'role="status"' not in panel(stopping).status_end.value  # one live region: the copy at the panel's end is silent


def test_while_running_the_hints_box_shows_no_hint_of_the_previous_run(stopping):
    stopping.check(reference)
    stopping.reveal_hint()
    assert "You pass every check" in panel(stopping).hints.value
    seen = []
    stopping.subscribe(lambda e: seen.append((panel(stopping).hints.value, panel(stopping).next_hint.disabled)) if e.running else None)
    stopping.check(lambda text, stops: (text, ""))
    assert seen and all("You pass every check" not in hints and "they are back when these checks are done" in hints and disabled for hints, disabled in seen)
    assert "You pass every check" not in panel(stopping).hints.value


def test_a_mutation_note_is_visible_when_every_check_passes(stopping):
    def solve(text, stops):
        result = reference(text, list(stops))
        stops.clear()
        return result

    stopping.check(solve)
    assert stopping.summary() == "6/6 checks pass"
    checks = panel(stopping).checks.value
    assert checks.index('<p class="fm-fact">note: solve modified its argument') < checks.index("<details")


def test_signature_mismatch_is_a_message_not_a_traceback(stopping):
    stopping.check(lambda text: text)
    assert "does not fit the contract" in panel(stopping).status.value
    assert "Traceback" not in panel(stopping).status.value


def test_hints_are_revealed_in_order(stopping):
    ui = panel(stopping)
    stopping.check(reference)
    ui.open_part("hints")  # the learner opens the folded part
    assert ui.hide_hints.disabled and not ui.next_hint.disabled
    assert "4 hints, for comparison: you pass every check" in ui.hints.value
    for _ in range(4):
        ui.next_hint.click()
    assert stopping.hints_shown == 4 and ui.next_hint.disabled
    html = ui.hints.value
    positions = [html.index(hint.title) for hint in stopping.hints]
    assert positions == sorted(positions) and "All hints are shown." in html
    ui.hide_hints.click()
    assert stopping.hints_shown == 0 and "4 hints, for comparison" in ui.hints.value


def test_no_variant_selector_when_the_fixtures_do_not_use_n(stopping):
    assert not stopping.uses_variant
    controls = panel(stopping).rerun  # the row that would hold the selector
    row = next(child for child in panel_for(stopping).children if isinstance(child, ipywidgets.HBox) and controls in child.children)
    assert panel(stopping).variant not in row.children


def test_variant_selector_reruns():
    pairs = Exercise("FA-100061", timeout=1.0)
    panel_for(pairs)
    pairs.check(lambda candidates: None)
    panel(pairs).variant.value = 3
    assert pairs.runs[0].variant == 3 and "a3" in panel(pairs).checks.value
    panel(pairs).all_variants.value = True
    assert pairs.variant == "all" and panel(pairs).compare.value.count("<caption>") == 5
    assert panel(pairs).variant.disabled  # its N is not the one checked now
    panel(pairs).all_variants.value = False
    assert pairs.variant == 3 and len(pairs.runs) == 1 and not panel(pairs).variant.disabled
    panel(pairs).variant.value = 5
    assert pairs.runs[0].variant == 5 and panel(pairs).all_variants.value is False


def test_the_variant_is_a_number_box_whose_arrow_keys_jupyterlab_leaves_alone():
    """A focused <select> loses ArrowUp/ArrowDown to JupyterLab's command mode; ipywidgets' number box keeps them."""
    pairs = Exercise("FA-100061", timeout=1.0)
    panel_for(pairs)
    ui = panel(pairs)
    assert isinstance(ui.variant, ipywidgets.IntText) and not isinstance(ui.variant, ipywidgets.BoundedIntText)  # it clamped silently
    assert ui.variant.description == "Variant N (1–5)" and ui.all_variants.description == "all variants"  # the range in view: the box clamps
    assert not any(isinstance(w, ipywidgets.Dropdown) for w in _walk(panel_for(pairs)))


def test_playground_placeholder_is_typeable_and_follows_the_variant():
    pairs = Exercise("FA-100061", timeout=1.0)
    panel_for(pairs)
    ui = panel(pairs)
    pairs.check(lambda candidates: None)
    ui.open_part("playground")
    assert ui.inputs.placeholder == "[['a1', 'one', 6], ['a1', 'changed', -1], ['b1', 'two', 0]]"
    pairs.select_variant(2)
    assert ui.inputs.placeholder == "[['a2', 'one', 7], ['a2', 'changed', -2], ['b2', 'two', 0]]"
    ui.inputs.value = ui.inputs.placeholder  # what the learner sees can be typed as it is
    assert pairs.playground_rows and pairs.playground_message == ""


def test_playground_runs_on_typing(stopping):
    stopping.check(reference)
    panel(stopping).open_part("playground")
    panel(stopping).inputs.value = "'hello<st', ['<stop>']"  # no event loop here: runs at once
    assert "(&#x27;hello&#x27;, &#x27;&lt;st&#x27;)" in panel(stopping).outputs.value
    panel(stopping).inputs.value = "undefined_name, ['<stop>']"  # an expression: evaluated in the worker, as solve runs
    assert "only literal values" not in panel(stopping).outputs.value and "NameError" in panel(stopping).outputs.value


def test_fifty_reruns_reuse_the_same_widgets(stopping):
    stopping.check(reference)
    before = widget_count()
    for _ in range(50):
        stopping.check(reference)
    assert widget_count() == before


def test_mimebundle_has_widget_view_and_text(stopping):
    stopping.check(reference)
    bundle = stopping._repr_mimebundle_()
    assert bundle["text/plain"] == stopping.text()
    assert bundle["application/vnd.jupyter.widget-view+json"]["model_id"] == panel_for(stopping).model_id


def test_displaying_the_panel_runs_nothing(monkeypatch):
    import failuremap_edu._exercise as model

    fresh = Exercise("FA-100786")
    calls = []
    monkeypatch.setattr(model, "replay", lambda *a, **k: calls.append(a))
    monkeypatch.setattr(model, "run_checks", lambda *a, **k: calls.append(a))
    fresh._repr_mimebundle_()
    panel_for(fresh)
    assert calls == []


def _walk(widget):
    yield widget
    for child in getattr(widget, "children", ()):
        yield from _walk(child)


def test_controls_are_keyboard_reachable_and_labels_fit(stopping):
    """Only native, focusable controls; every button says what it does and sizes to its label."""
    controls = []

    def walk(widget):
        for child in getattr(widget, "children", ()):
            walk(child)
        if isinstance(widget, (ipywidgets.Button, ipywidgets.BoundedIntText, ipywidgets.Checkbox, ipywidgets.Text)):
            controls.append(widget)
        else:
            assert isinstance(widget, (ipywidgets.Box, ipywidgets.HTML)), type(widget)

    root = panel_for(stopping)
    for name in PARTS:  # every folded part opened
        panel(stopping).open_part(name)
    walk(root)
    # What each control is called (a screen reader says it; tests/test_a11y.py walks them with Tab in Chromium).
    # Run again, each part's button and its controls: export, next hint, hide hints, the playground (no variant selector here).
    assert [c.description for c in controls] == [
        "Run checks again", "▾ Keep your work: downloads", "Export everything you ran", "▾ Compared with the record's broken and attempt",
        "▾ Hints", "Show next hint", "Hide hints", "▾ Playground: try any inputs", "Arguments to try, as between solve( and )"]
    assert all(c.tabbable is None for c in controls)  # the browser's default: focusable (False would take it out of Tab)
    assert [c.layout.width for c in controls if isinstance(c, ipywidgets.Button)] == ["auto"] * 8  # sized to the label, never cut


def test_presenter_aids():
    presenter = Exercise("FA-100786", presenter=True)
    root = panel_for(presenter)
    ui = panel(presenter)
    presenter.check(lambda text, stops: (text, ""))
    assert ui.checks.value.count('<details class="fm-obs" open>') == 2  # only failing checks open
    ui.reveal.click()
    # (text, "") matches the attempt on no check: the ladder has no attempt's story, two hints
    assert presenter.hints_shown == len(presenter.hints) == 2 and ui.checks.value.count('<details class="fm-obs" open>') == 6
    ui.hide.click()
    assert presenter.hints_shown == 0 and ui.checks.value.count('<details class="fm-obs" open>') == 2
    assert any("Presentation Mode" in getattr(child, "value", "") for child in root.children)
    learner = Exercise("FA-100786")
    assert not any(ui.reveal in getattr(child, "children", ()) for child in panel_for(learner).children)


def _downloaded(links_html: str) -> list[str]:
    """The files that a panel's download links hold."""
    import re

    return [base64.b64decode(data).decode() for data in re.findall(r'base64,([A-Za-z0-9+/=]+)"', links_html)]


def test_downloads_are_built_once_per_run(stopping):
    panel_for(stopping)
    panel(stopping).open_part("downloads")
    stopping.check(reference)
    links = panel(stopping).downloads.value
    assert links.count('class="fm-download" download="FA-100786-') == 2 and "data:text/x-python;charset=utf-8;base64," in links
    stopping.reveal_hint()
    assert panel(stopping).downloads.value is links  # not rebuilt for a hint click
    stopping.run()  # the same solve, the same result: the same files (a re-run sent 7 KB of links again)
    assert stopping.rerun_note.startswith("ran again") and panel(stopping).downloads.value is links
    stopping.check(lambda text, stops: (text, ""))  # another solve: its own files
    other = panel(stopping).downloads.value
    assert other != links and "lambda text, stops: (text, \"\")" in _downloaded(other)[0] and "lambda" not in _downloaded(links)[0]
    stopping.run()
    assert panel(stopping).downloads.value is other
    stopping.check(reference)  # back to the first solve, after another: new files (the runs they were made for are gone)
    assert panel(stopping).downloads.value is not links and panel(stopping).downloads.value != other


def test_the_keep_your_work_tip_fits_where_the_notebook_runs(stopping, monkeypatch):
    import failuremap_edu._panel as panel_module

    panel_for(stopping)
    panel(stopping).open_part("downloads")
    stopping.check(reference)
    assert "Hosted sessions (Binder, a hub) vanish" in panel(stopping).downloads.value
    monkeypatch.setattr(panel_module.sys, "platform", "emscripten")  # JupyterLite's Pyodide
    stopping.check(lambda text, stops: (text, ""))
    assert "kept in this browser's storage" in panel(stopping).downloads.value


def test_lone_surrogates_everywhere_reach_the_browser_escaped(raw_record, write_record):
    """A title, a label, a return value and an error message with a lone surrogate: the kernel must still send every widget."""
    import json

    from jupyter_client.session import json_packer

    exercise = Exercise(str(write_record(json.dumps(with_lone_surrogates(raw_record)))), timeout=0.5)
    ui = panel_for(exercise)

    def solve(text, stops):
        if text == "abc":
            raise ValueError("bad \ud800 message")
        return text + "\ud800", ""

    exercise.check(solve)  # the progress log is written too
    assert exercise.summary().startswith("0/6 checks pass") and exercise.message == ""
    view = panel(exercise)
    assert "bad \\ud800 category" in view.header.value and "partial marker held \\ud800" in view.checks.value
    assert "bad \\ud800 message" in view.checks.value and "(&#x27;hello&lt;st\\ud800&#x27;, &#x27;&#x27;)" in view.checks.value
    widgets = [ui]
    while widgets:  # what the kernel sends for each widget, packed as jupyter_client packs every message
        widget = widgets.pop()
        json_packer(widget.get_state())
        widgets += [child for child in getattr(widget, "children", ())]
    bundle = exercise._repr_mimebundle_()
    json_packer(bundle)
    assert "bad \\ud800 category" in bundle["text/plain"] and "short input" in bundle["text/plain"] and "\\ud800" in bundle["text/html"]
    files = exercise.export_files()
    assert "bad \\ud800 title" in next(text for name, text in files.items() if name.endswith(".py"))
    results = json.loads(next(text for name, text in files.items() if name.endswith(".json")))
    assert results["runs"][0]["observations"][0]["check"] == "partial marker held \ud800"  # JSON's escape: the data as it was
def test_buttons_have_no_icon_and_the_playground_box_a_real_name(stopping):
    """ipywidgets draws a button's icon as <i class="fa"> without aria-hidden: its glyph would start the spoken name."""
    presenter = Exercise("FA-100786", presenter=True)
    root = panel_for(presenter)
    for name in PARTS:
        panel(presenter).open_part(name)
    buttons = [w for w in _walk(root) if isinstance(w, ipywidgets.Button)]
    assert len(buttons) == 10 and all(b.icon == "" for b in buttons), [(b.description, b.icon) for b in buttons]
    panel_for(stopping)
    panel(stopping).open_part("playground")
    box = panel(stopping).inputs
    assert box.description == "Arguments to try, as between solve( and )" and "fm-named-box" in box._dom_classes  # a label only a screen reader meets
    row = next(w for w in _walk(panel_for(stopping)) if isinstance(w, ipywidgets.HBox) and box in w.children)
    assert [getattr(w, "value", None) for w in row.children if w is not box] == [
        '<div class="fm-root"><code aria-hidden="true">solve(</code></div>',
        '<div class="fm-root"><code aria-hidden="true">)</code></div>',
    ]


def test_sections_are_headings_and_the_panel_has_its_class(stopping):
    root = panel_for(stopping)
    for name in PARTS:
        panel(stopping).open_part(name)
    values = [w.value for w in _walk(root) if isinstance(w, ipywidgets.HTML)]
    for title in ("Compared with the record&#x27;s broken and attempt", "Hints", "Playground: try any inputs"):
        assert f'<div class="fm-root"><h4>{title}</h4></div>' in values
    assert panel(stopping).header.value.count('<h3 class="fm-title">') == 1 and "<strong>" not in panel(stopping).header.value
    assert "fm-panel" in root._dom_classes


def _focus_log(ui, monkeypatch):
    """What the browser would be told, in order: the hint buttons' disabled changes and focus requests."""
    log = []
    for name in ("next_hint", "hide_hints"):
        button = getattr(ui, name)
        button.observe(lambda change, name=name: log.append((name, "disabled" if change["new"] else "enabled")), names="disabled")
        monkeypatch.setattr(button, "focus", lambda name=name: log.append((name, "focus")))
    return log


def test_hide_hints_moves_focus_to_show_next_hint_before_it_disables_itself(stopping, monkeypatch):
    ui = panel(stopping)
    stopping.check(reference)
    ui.open_part("hints")
    for _ in range(4):
        ui.next_hint.click()
    assert ui.next_hint.disabled
    log = _focus_log(ui, monkeypatch)
    ui.hide_hints.click()
    # enabled first, focused next, and only then the pressed button disabled: focus never drops to <body>
    assert log == [("next_hint", "enabled"), ("next_hint", "focus"), ("hide_hints", "disabled")]


def test_the_last_hint_moves_focus_to_hide_hints_before_show_next_hint_disables(stopping, monkeypatch):
    ui = panel(stopping)
    stopping.check(reference)
    ui.open_part("hints")
    log = _focus_log(ui, monkeypatch)
    ui.next_hint.click()  # the first of four: no focus move
    assert log == [("hide_hints", "enabled")]
    for _ in range(3):
        ui.next_hint.click()
    assert log[1:] == [("hide_hints", "focus"), ("next_hint", "disabled")]
# ------------------------------------------------------------------------------- issue 21


def test_the_status_line_comes_first_and_says_when_a_rerun_changed_nothing(stopping):
    stopping.check(mixed_stopping_solve)
    ui = panel(stopping)
    assert ui.root.children[1] is ui.status  # right after the style: in view when JupyterLab scrolls to the next cell
    assert ui.status.value.count("<p") == 1 and '✗</span> <span role="status" aria-live="polite"><span class="fm-summary">2/6 checks pass' in ui.status.value
    assert "ran again" not in ui.status.value
    assert ui.root.children[-1] is ui.status_end and "fm-status-end" in ui.status_end.value  # and last: the end stays in view
    live = '<span role="status" aria-live="polite">'
    assert ui.status_end.value.replace(" fm-status-end", "") == ui.status.value.replace(live, "").replace("</span></span>", "</span>")  # the same line; only the first is live
    ui.rerun.click()
    # The only news of a re-run that changed nothing is its note: it is in the live region, not beside it.
    announced = re.search(r'<span role="status" aria-live="polite">(.*?)</span></p>', ui.status.value).group(1)
    assert "· ran again at " in announced and ": same result" in announced and "fm-mark" not in announced


def test_the_panel_says_your_solve_makes_the_attempts_mistake():
    from conftest import record_path

    e = Exercise(str(record_path("TR-001212")), timeout=1.0)
    ui = panel(e)
    attempt = e.fixtures.solve_source
    namespace = {}
    exec(attempt, namespace)
    e.check(namespace["solve"])
    assert ("Your solve gets the same wrong results as the plausible attempt on 3 of 3 failing checks. "
            "&#x27;one span&#x27; and &#x27;span at the end&#x27; are signs of its mistake; &#x27;spans are tuples&#x27; is failed the same way by many mistakes. The plausible attempt&#x27;s mistake was: Building each span") in ui.mistake.value


def test_all_variants_show_a_repeated_failure_once_with_its_variants():
    """A learner trial: the same failure, repeated five times."""
    from conftest import record_path

    e = Exercise(str(record_path("TR-001212")), timeout=1.0, variant="all")
    ui = panel(e)

    def solve(tags):  # lists for tuples: 'one span' fails the same way in every variant
        spans, start = [], None
        for i, tag in enumerate(tags + ["O"]):
            if tag != "I" and start is not None:
                spans.append([start, i])
                start = None
            if tag == "B":
                start = i
        return spans

    e.check(solve)
    html = ui.checks.value
    assert html.count("<strong>one span</strong>") == 1
    assert "· the same failure in N = 1, 2, 3, 4, 5</span>" in html
    assert html.count("<strong>span at the end</strong>") == 5  # its values depend on N: five different failures
    assert "The same failures as in an earlier variant: &#x27;one span&#x27; (shown under N = 1); &#x27;spans are tuples&#x27; (shown under N = 1)" in html


def test_the_panel_links_an_export_of_everything_to_hand_in(tmp_path, monkeypatch):
    """Handing in without a terminal: the panel has the 'export everything' link too (instructor issue)."""
    monkeypatch.setenv("FAILUREMAP_PROGRESS", str(tmp_path / "p.jsonl"))
    learner = Exercise("FA-100786", timeout=0.5)
    panel_for(learner)
    learner.check(reference)
    ui = panel(learner)
    ui.open_part("downloads")
    assert ui.export_link.value == ""  # made when asked: it reads the whole log
    ui.export.click()
    assert "Export everything (.json)" in ui.export_link.value and 'download="failuremap-export-' in ui.export_link.value and "1 run, as of " in ui.export_link.value
    demo = Exercise("FA-100786", timeout=0.5, log_progress=False)
    root = panel_for(demo)
    demo.check(reference)
    panel(demo).open_part("downloads")
    assert panel(demo).export not in list(_walk(root))  # a demo logs nothing to export


def test_the_playground_says_the_contract_it_does_not_check():
    """Typed inputs are not checked against the contract (it is prose): the help beside the box quotes it."""
    pairs = Exercise("FA-100061", timeout=1.0)
    root = panel_for(pairs)
    panel(pairs).open_part("playground")
    texts = [w.value for w in _walk(root) if isinstance(w, ipywidgets.HTML)]
    assert any("Only inputs the contract allows have a right answer; it says: Candidates are [id,text,score]. Keep first" in t for t in texts)


def test_an_out_of_range_variant_is_said_not_silently_changed():
    """BoundedIntText turned a typed 9 into 5 with no word (a learner trial): the kernel says the range instead."""
    pairs = Exercise("FA-100061", timeout=1.0)
    panel_for(pairs)
    ui = panel(pairs)
    pairs.check(lambda candidates: None)
    ui.variant.value = 9
    assert pairs.variant == 1
    assert "N goes from 1 to 5: 9 is not a variant, so the checks still show N = 1." in ui.variant_note.value
    ui.variant.value = 3
    assert pairs.variant == 3 and ui.variant_note.value == ""


def test_export_with_an_unwritable_log_says_the_log_could_not_be_written(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("FAILUREMAP_PROGRESS", str(blocker / "p.jsonl"))  # a file where a folder should be: never writable
    learner = Exercise("FA-100786", timeout=0.5)
    panel_for(learner)
    learner.check(reference)
    ui = panel(learner)
    ui.open_part("downloads")
    ui.export.click()
    assert "it could not be written" in ui.export_link.value and "Nothing is logged yet" not in ui.export_link.value


def test_an_export_link_made_before_the_latest_run_says_it_is_old(tmp_path, monkeypatch):
    """A trial exported, ran twice more, and downloaded the old file again: nothing said it was old."""
    monkeypatch.setenv("FAILUREMAP_PROGRESS", str(tmp_path / "progress.jsonl"))
    pairs = Exercise("FA-100061", timeout=1.0)
    panel_for(pairs)
    ui = panel(pairs)
    pairs.check(lambda candidates: None)
    ui.open_part("downloads")
    ui.export.click()
    assert "Export everything (.json)" in ui.export_link.value and ", as of " in ui.export_link.value
    pairs.run()
    assert "Export everything (.json)" not in ui.export_link.value
    assert "press “Export everything you ran” again" in ui.export_link.value
    ui.export.click()
    assert "Export everything (.json)" in ui.export_link.value


def test_the_hints_line_after_a_pass_offers_a_comparison_not_advice():
    """"Try again before you open the next" was shown to a learner who passed every check (a trial)."""
    learner = Exercise("FA-100786", timeout=1.0)
    panel_for(learner)
    learner.check(lambda text, stops: (text, ""))
    # "for your latest run": the count follows the run (a trial saw 3 hints become 4 and nothing said why)
    assert "hints for your latest run, one at a time: try again before you open the next" in panel(learner).hints.value
    learner.check(reference)
    assert "for comparison: you pass every check, and they show where the attempt fails and why." in panel(learner).hints.value


def _forges_its_verdict(text, stops):
    """Replaces the record's harness with one that passes everything, then returns a wrong answer."""
    import sys

    frame = sys._getframe(1)
    while frame is not None and "observations" not in frame.f_globals:
        frame = frame.f_back
    g = frame.f_globals
    g["check"] = lambda label, actual, expected: g["observations"].append({"check": label, "passed": True})
    return "not it", ""


def test_an_unconfirmed_verdict_is_shown_as_such_not_as_a_pass(stopping):
    stopping.check(_forges_its_verdict)
    ui = panel(stopping)
    assert "0/6 checks pass (6 unconfirmed)" in ui.status.value and '<span class="fm-mark">✗</span>' in ui.status.value
    assert ui.checks.value.count("fm-badge fm-unconfirmed") == 6 and "fm-badge fm-pass" not in ui.checks.value


def test_folded_parts_are_made_when_first_opened_with_the_state_they_would_have_had(stopping):
    """Until opened, a part is one button; its widgets are made on opening, with what every update since left on their
    stand-ins, then followed like the rest; folded again they leave the panel and come back as they were."""
    root = panel_for(stopping)
    ui = panel(stopping)
    stopping.check(lambda text, stops: (text, ""))
    shown = list(_walk(root))
    assert [w.description for w in shown if isinstance(w, ipywidgets.Button)] == ["Run checks again", *(f"▸ {t}" for t, _ in PARTS.values())]
    assert not any(isinstance(w, ipywidgets.Text) for w in shown)  # no playground box yet
    offer, placeholder = ui.hints.value, ui.inputs.placeholder
    assert "hints for your latest run" in offer and placeholder  # the stand-ins follow every update
    ui.folds["hints"].click()
    assert ui.hints in list(_walk(root)) and ui.hints.value == offer and isinstance(ui.next_hint, ipywidgets.Button)
    assert ui.folds["hints"].description == "▾ Hints"
    children = list(root.children)
    assert children.index(ui.folds["hints"]) < children.index(ui.hints) < children.index(ui.folds["playground"])  # right under its button
    ui.next_hint.click()
    assert stopping.hints_shown == 1 and "<ol" in ui.hints.value  # followed once made
    made = ui.hints
    ui.folds["hints"].click()  # folded again
    assert made not in list(_walk(root)) and ui.folds["hints"].description == "▸ Hints"
    ui.folds["hints"].click()
    assert ui.hints is made and made in list(_walk(root))  # made once
    ui.open_part("playground")
    assert ui.inputs.placeholder == placeholder


def test_a_hint_revealed_while_its_part_is_folded_opens_it(stopping):
    """Reveal everything (a presenter) shows every hint: the hints part opens, never a hint out of view."""
    presenter = Exercise("FA-100786", presenter=True)
    root = panel_for(presenter)
    ui = panel(presenter)
    presenter.check(lambda text, stops: (text, ""))
    assert not ui.is_open("hints")
    ui.reveal.click()
    assert ui.is_open("hints") and ui.hints in list(_walk(root)) and "<ol" in ui.hints.value


def test_the_download_links_are_made_only_once_their_part_is(stopping, monkeypatch):
    """The links carry the whole files (base64): a run whose downloads stay folded builds none of them."""
    made = []
    real = Exercise.export_files
    monkeypatch.setattr(Exercise, "export_files", lambda self: made.append(1) or real(self))
    panel_for(stopping)
    ui = panel(stopping)
    stopping.check(reference)
    stopping.check(lambda text, stops: (text, ""))
    assert made == [] and ui.downloads.value == ""
    ui.open_part("downloads")
    assert made == [1] and _downloaded(ui.downloads.value)
    assert "# result: 4/6 checks pass" in _downloaded(ui.downloads.value)[0]
    stopping.check(reference)  # a new result, its part made: its links follow
    assert len(made) == 2 and "# result: 6/6 checks pass" in _downloaded(ui.downloads.value)[0]

def test_the_playground_draws_the_grids_it_returned_side_by_side():
    from conftest import record_path

    def solve(n, pad=0):
        return [[1 if pad <= j <= i else 0 for j in range(n)] for i in range(n)]

    exercise = Exercise(str(record_path("TR-000909")), timeout=2.0, log_progress=False)
    panel_for(exercise)
    exercise.check(solve)
    panel(exercise).open_part("playground")  # made when first opened
    panel(exercise).inputs.value = "3"  # no event loop here: runs at once
    assert [who for who, _ in exercise.playground_values] == ["yours", "attempt", "broken"]
    html = panel(exercise).outputs.value
    assert all(f"<caption>{who}</caption>" in html for who in ("yours", "attempt", "broken"))
    assert html.count('title="row 2, column 2: yours 1, attempt 0, broken 1"') == 3  # the attempt's diagonal, marked in all three
    assert "The 3 cells where yours, attempt and broken do not all agree (highlighted and set in bold)" in html
    text = exercise.text()
    assert "     yours     | attempt   | broken\n" in text and "  [ ] marks the 3 cells where yours, attempt and broken do not all agree" in text
