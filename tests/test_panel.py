"""The panel's widgets, in plain pytest (no browser, no kernel): they follow the exercise's state."""

from __future__ import annotations

import ipywidgets
import pytest

from conftest import mixed_stopping_solve, reference_solve
from failuremap_edu import Exercise
from failuremap_edu._panel import panel, panel_for

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
    assert during and all("Checking your solve" in status and downloads == "" and disabled for _, status, downloads, disabled in during)
    assert "4/6 checks pass (2 fail)" in panel(stopping).status.value


def test_a_mutation_note_is_visible_when_every_check_passes(stopping):
    def solve(text, stops):
        result = reference(text, list(stops))
        stops.clear()
        return result

    stopping.check(solve)
    assert stopping.summary() == "6/6 checks pass"
    checks = panel(stopping).checks.value
    assert checks.index('<p class="fm-note">note: solve modified its argument') < checks.index("<details")


def test_signature_mismatch_is_a_message_not_a_traceback(stopping):
    stopping.check(lambda text: text)
    assert "does not fit the contract" in panel(stopping).status.value
    assert "Traceback" not in panel(stopping).status.value


def test_hints_are_revealed_in_order(stopping):
    ui = panel(stopping)
    stopping.check(reference)
    assert ui.hide_hints.disabled and not ui.next_hint.disabled
    assert "4 hints, one at a time" in ui.hints.value
    for _ in range(4):
        ui.next_hint.click()
    assert stopping.hints_shown == 4 and ui.next_hint.disabled
    html = ui.hints.value
    positions = [html.index(hint.title) for hint in stopping.hints]
    assert positions == sorted(positions) and "All hints are shown." in html
    ui.hide_hints.click()
    assert stopping.hints_shown == 0 and "4 hints, one at a time" in ui.hints.value


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
    panel(pairs).variant.value = "all"
    assert panel(pairs).compare.value.count("<caption>") == 5


def test_playground_placeholder_is_typeable_and_follows_the_variant():
    pairs = Exercise("FA-100061", timeout=1.0)
    panel_for(pairs)
    ui = panel(pairs)
    pairs.check(lambda candidates: None)
    assert ui.inputs.placeholder == "[['a1', 'one', 6], ['a1', 'changed', -1], ['b1', 'two', 0]]"
    pairs.select_variant(2)
    assert ui.inputs.placeholder == "[['a2', 'one', 7], ['a2', 'changed', -2], ['b2', 'two', 0]]"
    ui.inputs.value = ui.inputs.placeholder  # what the learner sees can be typed as it is
    assert pairs.playground_rows and pairs.playground_message == ""


def test_playground_runs_on_typing(stopping):
    stopping.check(reference)
    panel(stopping).inputs.value = "'hello<st', ['<stop>']"  # no event loop here: runs at once
    assert "(&#x27;hello&#x27;, &#x27;&lt;st&#x27;)" in panel(stopping).outputs.value
    panel(stopping).inputs.value = "os.system('x')"
    assert "only literal values" in panel(stopping).outputs.value


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


def test_controls_are_keyboard_reachable_and_labels_fit(stopping):
    """Only native, focusable controls; every button says what it does and sizes to its label."""
    controls = []

    def walk(widget):
        for child in getattr(widget, "children", ()):
            walk(child)
        if isinstance(widget, (ipywidgets.Button, ipywidgets.Dropdown, ipywidgets.Text)):
            controls.append(widget)
        else:
            assert isinstance(widget, (ipywidgets.Box, ipywidgets.HTML)), type(widget)

    walk(panel_for(stopping))
    assert len(controls) == 4  # run again, next hint, hide hints, playground (no variant selector here)
    for control in controls:
        assert control.description or control.tooltip
        assert control.tabbable is not False  # None: the browser default, focusable
        if isinstance(control, ipywidgets.Button):
            assert control.layout.width == "auto", control.description


def test_presenter_aids():
    presenter = Exercise("FA-100786", presenter=True)
    root = panel_for(presenter)
    ui = panel(presenter)
    presenter.check(lambda text, stops: (text, ""))
    assert ui.checks.value.count('<details class="fm-obs" open>') == 2  # only failing checks open
    ui.reveal.click()
    assert presenter.hints_shown == 4 and ui.checks.value.count('<details class="fm-obs" open>') == 6
    ui.hide.click()
    assert presenter.hints_shown == 0 and ui.checks.value.count('<details class="fm-obs" open>') == 2
    assert any("Presentation Mode" in getattr(child, "value", "") for child in root.children)
    learner = Exercise("FA-100786")
    assert not any(ui.reveal in getattr(child, "children", ()) for child in panel_for(learner).children)


def test_downloads_are_built_once_per_run(stopping):
    stopping.check(reference)
    links = panel(stopping).downloads.value
    assert links.count('class="fm-download" download="FA-100786-') == 2 and "data:text/x-python;charset=utf-8;base64," in links
    stopping.reveal_hint()
    assert panel(stopping).downloads.value is links  # not rebuilt for a hint click


def test_the_keep_your_work_tip_fits_where_the_notebook_runs(stopping, monkeypatch):
    import failuremap_edu._panel as panel_module

    stopping.check(reference)
    assert "Hosted sessions (Binder, a hub) vanish" in panel(stopping).downloads.value
    monkeypatch.setattr(panel_module.sys, "platform", "emscripten")  # JupyterLite's Pyodide
    stopping.check(lambda text, stops: (text, ""))
    assert "kept in this browser's storage" in panel(stopping).downloads.value


# ------------------------------------------------------------------------------- issue 21


def test_the_status_line_comes_first_and_says_when_a_rerun_changed_nothing(stopping):
    stopping.check(mixed_stopping_solve)
    ui = panel(stopping)
    assert ui.root.children[1] is ui.status  # right after the style: in view when JupyterLab scrolls to the next cell
    assert ui.status.value.count("<p") == 1 and '✗</span> <span class="fm-summary">2/6 checks pass' in ui.status.value
    assert "ran again" not in ui.status.value
    assert ui.root.children[-1] is ui.status_end and "fm-status-end" in ui.status_end.value  # and last: the end stays in view
    assert ui.status_end.value.replace(" fm-status-end", "") == ui.status.value
    ui.rerun.click()
    assert "· ran again at " in ui.status.value and ": same result" in ui.status.value


def test_the_panel_says_your_solve_makes_the_attempts_mistake():
    from conftest import record_path

    e = Exercise(str(record_path("TR-001212")), timeout=1.0)
    ui = panel(e)
    attempt = e.fixtures.solve_source
    namespace = {}
    exec(attempt, namespace)
    e.check(namespace["solve"])
    assert "Your solve gets the same wrong results as the plausible attempt on 3 of 3 failing checks: Building each span" in ui.mistake.value


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
