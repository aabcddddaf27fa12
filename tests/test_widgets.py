"""The exercise panel, tested in plain Python (no browser, no kernel)."""

from __future__ import annotations

import json
import os

import ipywidgets
import pytest

from conftest import reference_solve
from failuremap_edu import Exercise, load_record

reference = reference_solve("FA-100786")


def widget_count() -> int:
    from ipywidgets.widgets import widget

    return len(widget._instances)


@pytest.fixture
def exercise():
    return Exercise("FA-100786", timeout=0.5)


def test_before_any_solve(exercise):
    assert exercise.summary() == "No solve checked yet."
    assert exercise.text().splitlines() == [
        "FA-100786 · Output stopping: Streaming buffer emits partial stop prefixes too early · case 01 (variant N = 1)",
        "No solve checked yet.",
    ]


def test_passing_solve(exercise, capsys):
    returned = exercise.check(reference)
    assert returned is reference  # the decorator hands solve back
    assert exercise.summary() == "6/6 checks pass"
    assert "✓ pass    short input" in exercise.text()
    assert capsys.readouterr().out == exercise.text() + "\n"  # outside IPython it prints the text form
    panel = exercise._ui
    assert panel is None or "6/6 checks pass" in panel.status.value


def test_failing_erroring_and_timing_out_solves_in_the_widgets(exercise):
    exercise.panel  # build the widgets first: they must follow the state

    def solve(text, stops):
        if text == "x":
            while True:
                pass
        if text == "abc":
            raise ValueError("no <abc>")
        return text, ""

    exercise.check(solve)
    ui = exercise._ui
    assert exercise.summary() == "2/6 checks pass (2 fail, 1 error, 1 timeout)"
    assert "2/6 checks pass (2 fail, 1 error, 1 timeout)" in ui.status.value
    assert ui.checks.value.count("fm-badge fm-timeout") == 1 and ui.checks.value.count("fm-badge fm-error") == 1
    assert "no &lt;abc&gt;" in ui.checks.value and "<abc>" not in ui.checks.value
    assert "&lt;stop&gt;" in ui.checks.value
    assert "⟦" in ui.checks.value  # the diff marks changed characters
    assert "◷ timeout short input" in exercise.text().replace("  ", " ").replace("  ", " ")
    assert ui.compare.value.count("<th>") >= 5  # recorded broken/attempt, broken, attempt, yours


def test_signature_mismatch_is_a_message_not_a_traceback(exercise):
    exercise.panel

    def solve(text):
        return text

    exercise.check(solve)
    assert exercise.summary().startswith("solve(text) does not fit the contract solve(text, stops)")
    assert "Traceback" not in exercise._ui.status.value


def test_hints_are_revealed_in_order(exercise):
    exercise.panel
    ui = exercise._ui
    assert ui.hide_hints.disabled and not ui.next_hint.disabled
    titles = []
    for _ in range(5):
        ui.next_hint.click()
        titles.append(exercise.text().splitlines()[-1].split(":")[0].strip())
    assert exercise.hints_shown == 4 and ui.next_hint.disabled
    assert [t for t, _ in exercise.hints] == ["The contract", "What goes wrong", "The plausible attempt, and why it fails", "Root cause"]
    html = ui.hints.value
    positions = [html.index(title) for title, _ in exercise.hints]
    assert positions == sorted(positions)
    ui.hide_hints.click()
    assert exercise.hints_shown == 0 and "No hints shown yet" in ui.hints.value


def test_variant_selector_reruns():
    exercise = Exercise("FA-100061", timeout=1.0)
    exercise.panel
    exercise.check(lambda candidates: None)
    exercise._ui.variant.value = 3
    assert exercise.runs[0].variant == 3
    assert "a3" in exercise._ui.checks.value
    exercise._ui.variant.value = "all"
    assert [r.variant for r in exercise.runs] == [1, 2, 3, 4, 5]
    assert exercise.summary().startswith("10/30 checks pass across variants")


def test_playground(exercise):
    exercise.panel
    exercise.check(reference)
    exercise._ui.inputs.value = "'hello<st', ['<stop>']"  # no event loop here: runs at once
    rows = dict((who, (status, value)) for who, status, value in exercise.playground_rows)
    assert rows == {
        "yours": ("returned", "('hello', '<st')"),
        "attempt": ("returned", "('hel', 'lo<st')"),
        "broken": ("returned", "('hello<st',)"),
    }
    assert "(&#x27;hello&#x27;, &#x27;&lt;st&#x27;)" in exercise._ui.outputs.value
    exercise._ui.inputs.value = "'hello<st', ['<stop>'"
    assert exercise.playground_message.startswith("could not read the inputs (a bracket or quote is not closed)")
    assert exercise._ui.outputs.value.count("could not read the inputs") == 1
    exercise._ui.inputs.value = "os.system('x')"
    assert "only literal values" in exercise.playground_message


def test_playground_survives_a_looping_solve(exercise):
    exercise.panel

    def solve(text, stops):
        while True:
            pass

    exercise.check(solve)
    exercise.try_inputs("'x', []")
    assert dict((w, s) for w, s, _ in exercise.playground_rows)["yours"] == "timeout"


def test_fifty_reruns_reuse_the_same_widgets(exercise):
    exercise.panel
    exercise.check(reference)
    before = widget_count()
    for _ in range(50):
        exercise.check(reference)
    assert widget_count() == before
    assert len(exercise.runs) == 1


def test_mimebundle_has_widget_view_and_text(exercise):
    exercise.check(reference)
    bundle = exercise._repr_mimebundle_()
    assert bundle["text/plain"] == exercise.text()
    assert bundle["application/vnd.jupyter.widget-view+json"]["model_id"] == exercise.panel.model_id


def test_controls_are_keyboard_reachable(exercise):
    """Only native, focusable controls; every button and input says what it does."""
    panel = exercise.panel
    controls = []

    def walk(widget):
        for child in getattr(widget, "children", ()):
            walk(child)
        if isinstance(widget, (ipywidgets.Button, ipywidgets.Dropdown, ipywidgets.Text)):
            controls.append(widget)
        else:
            assert isinstance(widget, (ipywidgets.Box, ipywidgets.HTML)), type(widget)

    walk(panel)
    assert len(controls) == 5
    for control in controls:
        assert control.description or control.tooltip
        assert control.tabbable is not False  # None: the browser default, focusable


def test_a_recursive_solve_sees_itself_during_the_checks():
    """The decorator runs before `def` binds the name: a recursive solve must still work."""
    from conftest import record_path

    namespace = {"exercise": Exercise(load_record(record_path("TR-000303")))}
    exec(
        "@exercise.check\n"
        "def solve(defaults, overrides):\n"
        "    out = dict(defaults)\n"
        "    for key, value in overrides.items():\n"
        "        if isinstance(out.get(key), dict) and isinstance(value, dict):\n"
        "            out[key] = solve(out[key], value)\n"
        "        else:\n"
        "            out[key] = value\n"
        "    return out\n",
        namespace,
    )
    assert namespace["exercise"].summary() == "5/5 checks pass"


def test_presenter_aids(exercise):
    presenter = Exercise("FA-100786", presenter=True)
    presenter.panel
    ui = presenter._ui
    presenter.check(lambda text, stops: (text, ""))
    assert ui.checks.value.count("<details class=\"fm-obs\" open>") == 2  # only failing checks open
    ui.reveal.click()
    assert presenter.hints_shown == 4 and ui.checks.value.count("<details class=\"fm-obs\" open>") == 6
    ui.hide.click()
    assert presenter.hints_shown == 0 and ui.checks.value.count("<details class=\"fm-obs\" open>") == 2
    ui.large.value = True
    assert presenter.large_font and ui.status.style.font_size == "20px" and ui.checks.style.font_size == "20px"
    ui.large.value = False
    assert ui.status.style.font_size == ""
    assert ui.reveal not in exercise.panel.children  # learners' panels have no presenter row


def test_export_files_can_be_checked_again(tmp_path, capsys):
    import importlib.util

    from failuremap_edu._cli import main

    module_path = tmp_path / "learner_cell.py"
    module_path.write_text(
        "import collections\n\n"
        "def solve(tokens, k=2, *, normalize=False):\n"
        "    counts = collections.Counter(t.lower() if normalize else t for t in tokens)\n"
        "    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:k])\n"
    )
    spec = importlib.util.spec_from_file_location("learner_cell", module_path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    from conftest import record_path

    exercise = Exercise(load_record(record_path("TR-000101")))
    exercise.check(module.solve)
    files = exercise.export_files()
    py, results = files["TR-000101-solve.py"], json.loads(files["TR-000101-results.json"])
    assert py.startswith("# failuremap_edu export: TR-000101")
    assert "# result: 6/6 checks pass" in py and "import collections\n\ndef solve(" in py
    assert results["summary"] == "6/6 checks pass" and results["runs"][0]["observations"][0]["status"] == "pass"
    exported = tmp_path / "TR-000101-solve.py"
    exported.write_text(py)
    capsys.readouterr()
    assert main(["check", str(record_path("TR-000101")), str(exported)]) == 0
    assert capsys.readouterr().out == "6/6 checks pass\n"
    links = exercise.panel and exercise._ui.downloads.value
    assert links.count('class="fm-download" download="TR-000101-') == 2 and "data:text/x-python;charset=utf-8;base64," in links


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
