"""The notebook front (`_cell`): a quick run is shown once, finished, and costs the browser one message per widget that changed."""

from __future__ import annotations

import time
from types import SimpleNamespace

import pytest

from conftest import PACKAGED, own_params, record_path, reference_solve, solution_path
from failuremap_edu import Exercise, load_record
from failuremap_edu import _cell
from failuremap_edu._panel import Panel, panel


@pytest.fixture
def notebook(monkeypatch):
    """The front as in a kernel: IPython is there, and display() takes the exercise's bundle (text/plain, static HTML)."""
    import IPython
    import IPython.display

    shown: list[dict] = []

    def display(obj, display_id=False):
        shown.append(obj._repr_mimebundle_())
        return SimpleNamespace(update=lambda obj: shown.append(obj._repr_mimebundle_()))

    monkeypatch.setattr(IPython, "get_ipython", lambda: SimpleNamespace(_failuremap_watching=True))  # no cell watcher
    monkeypatch.setattr(IPython.display, "display", display)
    return shown


@pytest.fixture
def sent(monkeypatch):
    """Every widget message the kernel would send (ipywidgets' Widget._send), as (widget, keys of its state)."""
    import ipywidgets

    out: list[tuple[object, tuple[str, ...]]] = []
    original = ipywidgets.Widget._send

    def send(self, msg, buffers=None):
        out.append((self, tuple(sorted(msg.get("state", {})))))
        return original(self, msg, buffers)

    monkeypatch.setattr(ipywidgets.Widget, "_send", send)
    return out


def _widgets(root) -> list:
    found, todo = [], [root]
    while todo:
        widget = todo.pop(0)
        found.append(widget)
        todo[:0] = list(getattr(widget, "children", ()))
    return found


def _shown(root) -> list[tuple[str, dict]]:
    """What the panel shows, widget by widget in order: every trait a frontend gets, minus the ids of other widgets."""

    def own(value) -> bool:
        return not (isinstance(value, str) and value.startswith("IPY_MODEL_")) and not (
            isinstance(value, list) and value and all(isinstance(v, str) and v.startswith("IPY_MODEL_") for v in value))

    return [(type(w).__name__, {k: v for k, v in w.get_state().items() if own(v)}) for w in _widgets(root)]


def _solves(record_id: str):
    """A passing solve (our reference or the test record's solution) and a wrong one with its signature."""
    import functools
    import runpy

    good = reference_solve(record_id) if record_id in PACKAGED else runpy.run_path(str(solution_path(record_id)))["solve"]

    @functools.wraps(good)
    def wrong(*args, **kwargs):
        return None

    return good, wrong


@pytest.mark.parametrize("record_id", [*PACKAGED, *own_params()])
def test_after_a_quick_run_the_panel_shows_what_a_panel_built_from_scratch_shows(record_id, notebook):
    """The learner sees exactly what a panel re-rendered on every change showed: the held panel loses no update."""
    e = Exercise(load_record(record_id if record_id in PACKAGED else record_path(record_id)), timeout=1.0)
    good, wrong = _solves(record_id)
    e.check(good)  # first run: the panel is built, finished, when it is shown
    for solve in (wrong, good, good):  # a new result, back again, the same result again (the re-run note)
        e.check(solve)
        assert _shown(panel(e).root) == _shown(Panel(e).root), record_id
    assert notebook[-1]["text/plain"] == e.text() and "text/html" in notebook[-1]


def test_a_quick_run_sends_each_changed_widget_once_and_only_at_its_end(notebook, sent):
    e = Exercise("FA-100786")
    e.check(lambda text, stops: (text, ""))
    during: list[int] = []
    e.subscribe(lambda _: during.append(len(sent)))
    del sent[:]
    time.sleep(1.05)  # a learner's pace: the re-run note's time changes
    e.check(reference_solve("FA-100786"))
    assert during and all(n == 0 for n in during[:-1])  # nothing while the run is under way
    widgets = [w for w, _ in sent]
    assert len(widgets) == len(set(map(id, widgets))), [(type(w).__name__, keys) for w, keys in sent]
    ui = panel(e)
    assert {id(w) for w in widgets} <= {id(w) for w in (ui.status, ui.status_end, ui.mistake, ui.checks, ui.downloads, ui.compare, ui.hints)}
    assert all(keys == ("value",) for _, keys in sent)


def test_a_slow_run_still_shows_each_check_as_it_ends(notebook, sent, monkeypatch):
    """Past SHOW_AFTER the panel is shown live, and follows every check."""
    monkeypatch.setattr(_cell, "SHOW_AFTER", 0.0)
    e = Exercise("FA-100786")
    e.check(lambda text, stops: (text, ""))
    del sent[:]
    e.check(reference_solve("FA-100786"))
    ui = panel(e)
    assert sum(w is ui.checks for w, _ in sent) >= 6  # one per check as it ends
    assert _shown(ui.root) == _shown(Panel(e).root)


def test_an_interrupted_quick_run_leaves_the_panel_following_the_exercise(notebook):
    e = Exercise("FA-100786")
    e.check(lambda text, stops: (text, ""))

    def interrupt(exercise):
        if exercise.running:
            raise KeyboardInterrupt

    e.subscribe(interrupt)
    with pytest.raises(KeyboardInterrupt):
        e.check(reference_solve("FA-100786"))
    e._listeners.remove(interrupt)
    during: list[str] = []
    e.subscribe(lambda _: during.append(panel(e).status.value) if e.running else None)
    e.run()  # the panel's Run checks again: the panel is shown, and follows it as it goes
    assert during and all("Checking your solve" in status for status in during)
    assert "6/6 checks pass" in panel(e).status.value


def test_a_quick_run_in_a_real_kernel_costs_few_messages():
    """In a kernel (jupyter_client): a re-run of the exercise cell sends each widget that changed once.

    Before the panel was held during quick runs: 35 messages, 31 of them widget updates, 65 KB.
    """
    from kernelkit import ATTEMPT, EXERCISE_CELL, Kernel

    pytest.importorskip("jupyter_client")
    with Kernel() as kernel:
        kernel.run("import failuremap_edu as fm")
        kernel.run(EXERCISE_CELL.format(body=ATTEMPT))  # builds the panel
        time.sleep(1.05)  # a learner's pace: the re-run note's time changes
        rerun = kernel.run(EXERCISE_CELL.format(body=ATTEMPT))
        updates = rerun.updates()
        assert len(updates) == len(set(updates)) <= 2, rerun.kinds()  # the status line and its copy at the end
        # status, execute_input, the display, the saved copy, status; and those updates. 9.7 KB in all today (the saved
        # copy's static HTML is most of it). The downloads are not sent again for the same result (they were 7 KB).
        assert rerun.count <= 5 + 2 and rerun.bytes <= 12_000, (rerun.count, rerun.bytes, rerun.kinds())
        shown = [m["content"]["data"] for m in rerun.messages if m["header"]["msg_type"] == "display_data"]
        assert [sorted(d) for d in shown] == [[_cell.WIDGET_VIEW, "text/plain"], ["text/html", "text/plain"]]  # the HTML once
        assert 'class="fm-saved"' in shown[1]["text/html"]
        assert all(set(m["content"]["data"]["state"]) == {"value"} for m in rerun.messages if m["header"]["msg_type"] == "comm_msg")
        frontend, kernel_side = kernel.frontend_widgets(), kernel.kernel_widgets()
        for comm_id, state in frontend.items():  # the browser shows what the kernel holds: no update lost
            assert {k: kernel_side[comm_id][k] for k in state} == state, comm_id


def test_a_first_run_in_a_fresh_kernel_opens_each_widget_once_with_its_state_and_shares_layouts_and_styles():
    """A first Shift+Enter: every widget is opened with its first state (no update after), layouts and styles are
    shared, ipywidgets was imported by the earlier ``fm.exercise(...)`` cell, and the folded parts are made when opened.
    Before: 102 messages, 85 of them comm_open (26 layouts, 26 styles), 12 updates, 103 KB."""
    from kernelkit import ATTEMPT, EXERCISE_CELL, Kernel

    pytest.importorskip("jupyter_client")
    with Kernel() as kernel:
        earlier = kernel.run("import sys, time, failuremap_edu as fm\nexercise = fm.exercise('FA-100786')\n")
        assert earlier.count <= 4, earlier.kinds()
        imported = kernel.run("deadline = time.monotonic() + 30\nwhile 'ipywidgets.widgets' not in sys.modules and time.monotonic() < deadline:\n"
                              "    time.sleep(0.01)\nprint('ipywidgets.widgets' in sys.modules)")
        assert "True" in "".join(m["content"].get("text", "") for m in imported.messages)
        first = kernel.run(EXERCISE_CELL.format(body=ATTEMPT))
        opened = [m["content"]["data"]["state"]["_model_name"] for m in first.messages if m["header"]["msg_type"] == "comm_open"]
        assert opened.count("LayoutModel") <= 5 and sum(name.endswith("StyleModel") for name in opened) <= 5, opened
        assert len(first.updates()) <= 2, first.kinds()
        # The folded parts (downloads, comparison, hints, playground) are one button each until opened: no text box, no
        # hint button, no download link is sent. 30 messages and 40 KB today (49 and 67 KB with every part made up front).
        states = [m["content"]["data"]["state"] for m in first.messages if m["header"]["msg_type"] == "comm_open"]
        assert "TextModel" not in opened and not any(s.get("description") == "Show next hint" for s in states), opened
        assert not any("fm-download" in str(s.get("value", "")) for s in states)
        assert first.count <= 32 and first.bytes <= 45_000, (first.count, first.bytes, first.kinds())
        frontend, kernel_side = kernel.frontend_widgets(), kernel.kernel_widgets()
        for comm_id, state in frontend.items():  # the browser shows what the kernel holds
            assert {k: kernel_side[comm_id][k] for k in state} == state, comm_id


def test_the_panel_is_displayed_as_ipywidgets_displays_it_with_the_exercise_text(notebook):
    """The bundle is made without ipywidgets' text/plain (the repr of every widget of the panel: a third of a run)."""
    from failuremap_edu._panel import panel_for

    e = Exercise("FA-100786")
    e.check(lambda text, stops: (text, ""))
    root = panel_for(e)
    ours, theirs = e._repr_mimebundle_(), root._repr_mimebundle_()
    assert ours[_cell.WIDGET_VIEW] == theirs[_cell.WIDGET_VIEW] and ours[_cell.WIDGET_VIEW]["model_id"] == root.model_id
    assert ours["text/plain"] == e.text() and ours["text/html"] == e.static_html()


def test_where_no_thread_can_start_the_widgets_import_waits_for_the_first_run(monkeypatch):
    """Pyodide (JupyterLite) cannot start a thread: making an exercise there must not raise (it left the site with no panel)."""
    import sys
    import threading

    from failuremap_edu import _cell

    def refuse(self):
        raise RuntimeError("can't start new thread")

    monkeypatch.setattr(threading.Thread, "start", refuse)
    monkeypatch.delitem(sys.modules, "ipywidgets", raising=False)
    _cell._import_widgets_soon()  # no error
    monkeypatch.setattr(sys, "platform", "emscripten")
    _cell._import_widgets_soon()


def test_a_slow_run_is_first_displayed_with_the_text_a_notebook_stores_for_the_panel():
    """A run past the hold time is displayed while it runs and updated at its end; nbval compares the first display.

    Its text/plain is `LIVE_PANEL`, as the finished panel's and the generated notebook's stored output, so a
    notebook whose solve cell runs slowly (under load, or a check that times out) still passes nbval.
    """
    from kernelkit import EXERCISE_CELL, Kernel

    pytest.importorskip("jupyter_client")
    slow = "    import time\n    time.sleep(0.4)\n    return text, ''\n"  # 6 checks: well past the 1 s hold
    with Kernel() as kernel:
        kernel.run("import failuremap_edu as fm")
        cell = kernel.run(EXERCISE_CELL.format(body=slow))
        shown = [m["content"]["data"] for m in cell.messages if m["header"]["msg_type"] == "display_data"]
        assert any(m["header"]["msg_type"] == "update_display_data" for m in cell.messages), cell.kinds()  # it was shown live
        assert shown[0]["text/plain"] == _cell.LIVE_PANEL
