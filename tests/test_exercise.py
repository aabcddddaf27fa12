"""The exercise model, without widgets: state, runs, hints, playground, exports, the cell watcher."""

from __future__ import annotations

import json
import re
import linecache
import sys
import time
from types import SimpleNamespace

import pytest

from conftest import mixed_stopping_solve, record_path, reference_solve, solution_path
from failuremap_edu import Exercise, exercise, load_record
from failuremap_edu._cell import _after_cell
from failuremap_edu._progress import learner_id, short_id
from failuremap_edu._exercise import ALL_VARIANTS

reference = reference_solve("FA-100786")
TITLE = "Exercise FA-100786: Model output stopping rules"  # never the record's title, which names the fix


@pytest.fixture
def stopping():
    return Exercise("FA-100786", timeout=0.5)


def test_before_any_solve(stopping):
    assert stopping.summary() == "No solve checked yet."
    assert stopping.text().splitlines() == [TITLE, "No solve checked yet."]  # one set of checks: no variant words


def test_a_presenter_sees_the_records_title_and_a_learner_a_neutral_one(stopping):
    presenting = Exercise("FA-100786", presenter=True, log_progress=False)
    assert presenting.text().splitlines()[0] == presenting.record.title
    assert stopping.record.title not in stopping.text() + stopping.static_html() + stopping.loaded_note()
    assert stopping.heading in stopping.static_html() and stopping.heading in stopping.loaded_note()


def test_a_passing_solve_prints_the_panel_text_outside_ipython(stopping, capsys):
    assert stopping.check(reference) is reference  # the decorator hands solve back
    assert stopping.summary() == "6/6 checks pass"
    assert capsys.readouterr().out == stopping.text() + "\n"
    assert stopping.text().splitlines()[:3] == [TITLE, "6/6 checks pass", "  ✓ pass    partial marker held"]


def test_failing_erroring_and_timing_out_solves(stopping):
    stopping.check(mixed_stopping_solve)
    assert stopping.summary() == "2/6 checks pass (2 fail, 1 error, 1 timeout)"
    assert "  ◷ timeout short input" in stopping.text()
    assert "  ! error   empty stop list" in stopping.text()


def test_the_previous_summary_is_not_shown_while_a_run_is_in_progress(stopping):
    seen = []
    stopping.subscribe(lambda e: seen.append((e.running, e.summary(), len(e.runs))))
    stopping.check(reference)
    stopping.check(lambda text, stops: (text, ""))
    during = [s for s in seen if s[0]]
    assert during and all(runs == 0 and summary.startswith("Checking your solve:") for _, summary, runs in during)
    assert any(summary == "Checking your solve: 3 of 6 checks done (each may take up to 0.5 s)…" for _, summary, _ in during)
    assert seen[-1] == (False, "4/6 checks pass (2 fail)", 1)


def test_signature_mismatch_is_a_message(stopping):
    stopping.check(lambda text: text)
    assert stopping.summary().startswith("solve(text) does not fit the contract solve(text, stops)")
    assert stopping.runs == ()


def test_missing_return_hint_follows_the_source_of_solve(stopping):
    namespace = {}
    exec("def solve(text, stops):\n    if stops:\n        return text, ''\n", namespace)
    stopping.check(namespace["solve"])
    assert stopping.missing_return is False  # no source to read for exec'd code: no hint rather than a wrong one
    stopping.check(_falls_off)
    assert stopping.missing_return is True
    stopping.check(_returns_none_on_purpose)
    assert stopping.missing_return is False


def _falls_off(text, stops):
    if stops:
        return text, ""


def _returns_none_on_purpose(text, stops):
    return (text, "") if stops else None


def test_hints_add_something_new_at_each_step(stopping):
    stopping.check(reference)
    hints = stopping.hints
    assert [h.title for h in hints] == ["Where the attempt fails", "What the attempt does there", "The plausible attempt, and why it fails", "Root cause"]
    assert hints[0].text == (
        "You pass every check. For comparison, the attempt fails 'partial marker held': solve('hello<st', ['<stop>']) should return ('hello', '<st')."
    )
    assert hints[1].text.startswith("There the attempt returns ('hel', 'lo<st'). At [0]: expected 'hello', got 'hel'. Work through that call")
    record = stopping.record
    assert hints[2].text == record.failed_approach and hints[3].text == record.root_cause
    shown_above = (record.title, record.contract, record.abstract)
    assert not any(text in h.text for h in hints for text in shown_above)
    for _ in range(6):
        stopping.reveal_hint()
    assert stopping.hints_shown == 4
    stopping.hide_hints()
    assert stopping.hints_shown == 0


def test_variants_rerun_and_all_variants_apply_to_everything():
    pairs = Exercise("FA-100061", timeout=1.0)
    assert pairs.uses_variant
    pairs.check(lambda candidates: None)
    pairs.select_variant(3)
    assert pairs.runs[0].variant == 3 and pairs.text().splitlines()[0].endswith("(variant N = 3)")
    header = next(text for name, text in pairs.export_files().items() if name.endswith("-solve.py"))
    assert re.search(r"^# check again with: failuremap-edu check FA-100061 \S+-solve\.py --variant 3$", header, re.M), header
    assert "#   (where that command is not found: python3 -m failuremap_edu check ..., with the Python that runs the notebook)" in header
    assert "'a3'" in pairs.hints[0].text and "'a1'" not in pairs.hints[0].text  # hints follow the variant
    pairs.select_variant("all")
    assert [r.variant for r in pairs.runs] == [1, 2, 3, 4, 5]
    assert pairs.summary().startswith("10/30 checks pass across variants")
    assert [c.runs[0].variant for c in pairs.comparisons()] == [1, 2, 3, 4, 5]
    assert [c.names for c in pairs.comparisons()][0] == ("broken", "attempt", "yours")
    header = next(text for name, text in pairs.export_files().items() if name.endswith("-solve.py"))
    assert all(f"#   N={v} " in header for v in range(1, 6))
    with pytest.raises(ValueError):
        pairs.select_variant(7)


def test_playground_uses_this_exercises_own_examples_and_follows_a_new_solve(stopping):
    assert stopping.example_arguments() is None  # nothing ran yet
    stopping.check(lambda text, stops: (text, ""))
    assert stopping.example_arguments() == "'hello<st', ['<stop>']"
    stopping.try_inputs("'hello<st', ['<stop>']")
    rows = {who: (status, value) for who, status, value in stopping.playground_rows}
    assert rows == {"yours": ("returned", "('hello<st', '')"), "attempt": ("returned", "('hel', 'lo<st')"), "broken": ("returned", "('hello<st',)")}
    seen = []
    stopping.subscribe(lambda e: seen.append((e.summary(), e.playground_message)))
    stopping.check(reference)  # a new solve: the playground runs again for it
    assert dict((w, v) for w, _, v in stopping.playground_rows)["yours"] == "('hello', '<st')"
    # The checks' result shows while the playground catches up, never the last progress line.
    assert seen[-2:] == [("6/6 checks pass", "Trying your new solve on these inputs (up to 0.5 s)…"), ("6/6 checks pass", "")]
    # From the start of the run, the old solve's rows are gone, never shown as the new one's.
    assert seen[0] == ("Checking your solve: 0 of 6 checks done (each may take up to 0.5 s)…", "The playground tries your new solve once its checks are done.")
    stopping.try_inputs("'hello<st', ['<stop>'")
    assert stopping.playground_message == (
        "could not read the inputs (a bracket or quote is not closed). Type Python literals separated by commas, "
        "for example: 'hello<st', ['<stop>']"
    )
    pairs = Exercise("FA-100061", timeout=1.0)
    pairs.check(lambda candidates: None)
    pairs.try_inputs("[[")
    assert "for example: [['a1', 'one', 6], ['a1', 'changed', -1], ['b1', 'two', 0]]" in pairs.playground_message


def test_playground_timeout_says_what_it_means_here(stopping):
    def solve(text, stops):
        while True:
            pass

    stopping.check(solve)
    stopping.try_inputs("'x', []")
    yours = {who: (status, value) for who, status, value in stopping.playground_rows}["yours"]
    assert yours == ("timeout", "no result after 0.5 s (the time limit of a check): does solve loop forever on these inputs?")


def test_exercise_returns_the_same_object_for_the_same_record():
    first = exercise("FA-100786")
    assert exercise("FA-100786") is first and exercise(load_record("FA-100786")) is first
    assert exercise("FA-100786", presenter=True) is not first


def test_a_cell_that_lost_the_decorator_line_is_checked_anyway_with_a_note(capsys):
    ex = exercise("FA-100061")
    namespace = {}
    cell = "def solve(candidates):\n    return None\n"
    exec(cell, namespace)
    shell = SimpleNamespace(user_ns=namespace)
    _after_cell(shell, SimpleNamespace(success=True, info=SimpleNamespace(raw_cell=cell)))
    out = capsys.readouterr().out
    assert out.startswith("This cell defines solve without the line @fm.exercise('FA-100061') above it. The checks ran anyway (the panel is below)")
    assert ex.solve is namespace["solve"] and ex.summary() == "2/6 checks pass (4 fail)"
    _after_cell(shell, SimpleNamespace(success=True, info=SimpleNamespace(raw_cell=cell)))  # the same solve: nothing again
    assert capsys.readouterr().out == ""
    _after_cell(shell, SimpleNamespace(success=True, info=SimpleNamespace(raw_cell="x = 1\n")))
    assert capsys.readouterr().out == ""


def test_the_line_above_a_helper_instead_of_solve_is_named_and_solve_is_checked(capsys):
    """A learner trial: the download pasted below the @fm.exercise line put the line above a helper."""
    ex = exercise("FA-100061")
    namespace = {"fm_exercise": ex}
    cell = "@fm_exercise\ndef pick(rows):\n    return rows\n\ndef solve(candidates):\n    return pick(None)\n"
    linecache.cache["<cell-misplaced>"] = (len(cell), None, cell.splitlines(True), "<cell-misplaced>")  # as IPython keeps cells
    exec(compile(cell, "<cell-misplaced>", "exec"), namespace)
    assert ex.solve is not namespace["pick"] and ex.misplaced_above == "pick"  # the helper was not checked
    assert capsys.readouterr().out == "The line @fm.exercise('FA-100061') is above def pick, so nothing was checked: move it right above def solve.\n"
    _after_cell(SimpleNamespace(user_ns=namespace), SimpleNamespace(success=True, info=SimpleNamespace(raw_cell=cell)))
    assert capsys.readouterr().out.startswith(
        "The line @fm.exercise('FA-100061') is above def pick, not def solve. The checks ran anyway on solve (the panel is below)"
    )
    assert ex.solve is namespace["solve"] and ex.misplaced_above is None


def test_a_recursive_solve_sees_itself_during_the_checks():
    """The decorator runs before `def` binds the name: a recursive solve must still work."""
    namespace = {"ex": Exercise(load_record(record_path("TR-000303")))}
    exec(
        "@ex.check\n"
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
    assert namespace["ex"].summary() == "5/5 checks pass"


def test_export_files_can_be_checked_again_and_pasted_back(tmp_path, capsys):
    import importlib.util

    from failuremap_edu.instructor._cli import main

    module_path = tmp_path / "learner_cell.py"
    module_path.write_text(
        "import collections\n"
        "import re as regex\n"
        "from functools import reduce\n\n"
        "ORDER = (-1, 1)\n"
        "PATTERN = regex.compile('x')\n"
        "unused = 'never needed'\n\n"
        "def rank_key(kv):\n"
        "    return (ORDER[0] * kv[1], _tiebreak(kv))\n\n"
        "def _tiebreak(kv):\n"
        "    return kv[0]\n\n"
        "def solve(tokens, k=2, *, normalize=False):\n"
        "    counts = collections.Counter(t.lower() if normalize else t for t in tokens)\n"
        "    if PATTERN is None or reduce is None:\n"
        "        import sys\n"
        "        sys.exit(unused.exit)\n"
        "    return dict(sorted(counts.items(), key=rank_key)[:k])\n"
    )
    spec = importlib.util.spec_from_file_location("learner_cell", module_path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    ex = Exercise(load_record(record_path("TR-000101")))
    ex.check(module.solve)
    files = ex.export_files()
    stem = f"TR-000101-{short_id(learner_id())}-{time.strftime('%Y%m%d-%H%M%S', time.localtime(ex.finished_at))}"
    assert sorted(files) == [f"{stem}-results.json", f"{stem}-solve.py"]  # a class's hand-ins never clash
    py, results = files[f"{stem}-solve.py"], json.loads(files[f"{stem}-results.json"])
    assert results["learner"] == learner_id() and f"failuremap-edu check tests/records/TR-000101.json {stem}-solve.py" in py  # from the notebook folder
    assert py.startswith("# failuremap_edu export: TR-000101")
    assert "# result: 6/6 checks pass" in py
    body = py.split("\n\n", 1)[1]  # after the header: the file as it would run
    assert body == (
        "import failuremap_edu as fm  # for the line @fm.exercise(...) above def solve, in the notebook\n"
        "import collections\nfrom functools import reduce\n\n"
        "unused = 'never needed'\nORDER = (-1, 1)\n\n"
        "def rank_key(kv):\n    return (ORDER[0] * kv[1], _tiebreak(kv))\n\n"
        "def _tiebreak(kv):\n    return kv[0]\n\n"
        "# note: solve uses PATTERN, which is not in this file: define it above solve\n\n"
        "def solve(tokens, k=2, *, normalize=False):\n"
        "    counts = collections.Counter(t.lower() if normalize else t for t in tokens)\n"
        "    if PATTERN is None or reduce is None:\n        import sys\n        sys.exit(unused.exit)\n"
        "    return dict(sorted(counts.items(), key=rank_key)[:k])\n"
    ), body  # sys.exit's exit is an attribute, not a name solve needs; unused is a string constant, so it is written out
    assert f"# in the notebook: paste it into the exercise cell, with the line @fm.exercise('tests/records/TR-000101.json') right above def solve" in py
    assert "#   ✓ pass    alphabetical ties" in py  # one set of checks: no N= on every line
    assert results["summary"] == "6/6 checks pass" and results["runs"][0]["observations"][0]["status"] == "pass"
    exported = tmp_path / "TR-000101-solve.py"
    exported.write_text(py)
    capsys.readouterr()
    assert main(["check", str(record_path("TR-000101")), str(exported)]) == 1  # PATTERN is missing, as the note says
    assert "NameError: name 'PATTERN' is not defined" in capsys.readouterr().out
    py = py.replace("# note: solve uses PATTERN, which is not in this file: define it above solve", "import re\nPATTERN = re.compile('x')")
    exported.write_text(py)
    assert main(["check", str(record_path("TR-000101")), str(exported)]) == 0
    assert capsys.readouterr().out == "6/6 checks pass\n"
    pasted = {}
    exec(compile(py, "<cell>", "exec"), pasted)  # the .py runs as a cell: its solve is whole, helpers and all
    # As its header says, in a fresh kernel: the file with the @fm.exercise line right above def solve (fm is imported by it).
    decorated = py.replace("\ndef solve(", f"\n@fm.exercise({str(record_path('TR-000101'))!r})\ndef solve(")
    fresh = {}
    exec(compile(decorated, "<cell>", "exec"), fresh)
    assert exercise(str(record_path("TR-000101"))).summary() == "6/6 checks pass"
    capsys.readouterr()
    assert Exercise(load_record(record_path("TR-000101"))).check(pasted["solve"]) is pasted["solve"]


def test_a_run_of_the_model_writes_no_file_its_front_keeps_the_runs(tmp_path, monkeypatch):
    """`Exercise.run` does no I/O: with the plain front nothing is written; the notebook front writes the progress log."""
    from failuremap_edu._exercise import _FRONT, PlainFront, use_front

    for name in ("HOME", "XDG_DATA_HOME"):
        monkeypatch.setenv(name, str(tmp_path / name.lower()))
    monkeypatch.setenv("FAILUREMAP_PROGRESS", str(tmp_path / "progress.jsonl"))
    monkeypatch.chdir(tmp_path)
    learner = Exercise("FA-100786", timeout=0.5)  # logs progress
    learner.solve = reference
    notebook_front = _FRONT[0]
    use_front(PlainFront())
    try:
        assert learner.run()[0].passed and learner.log_note == ""
    finally:
        use_front(notebook_front)
    assert list(tmp_path.rglob("*")) == []
    learner.run()
    assert [p.name for p in tmp_path.iterdir()] == ["progress.jsonl"]


def test_the_model_imports_no_widgets():
    import subprocess
    import sys

    code = "import failuremap_edu._exercise, sys; print(sorted(m for m in sys.modules if m.split('.')[0] in ('ipywidgets', 'matplotlib')))"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60).stdout.strip() == "[]"


def test_a_first_check_that_loops_shows_the_live_panel_before_it_ends(stopping, monkeypatch):
    """Never silent: after SHOW_AFTER the panel appears, even while check 1 still loops."""
    import IPython
    import IPython.display

    from failuremap_edu import _cell

    shown: list[str] = []

    def display(obj, display_id=False):
        shown.append(obj.summary())
        return SimpleNamespace(update=lambda obj: shown.append("update: " + obj.summary()))

    monkeypatch.setattr(_cell, "SHOW_AFTER", 0.2)
    monkeypatch.setattr(IPython, "get_ipython", lambda: SimpleNamespace())
    monkeypatch.setattr(IPython.display, "display", display)

    def solve(text, stops):
        while True:
            pass

    seen = []
    stopping.subscribe(lambda e: seen.append(e.summary()))
    stopping.check(solve)
    assert shown[0] == "Checking your solve: 0 of 6 checks done (each may take up to 0.5 s)…"
    # once a check timed out, the line says the rest get the runner's shorter limit
    assert "Checking your solve: 1 of 6 checks done (a check timed out, so each of the rest may take up to 0.0625 s)…" in seen
    assert shown[-1] == "update: " + stopping.runs[0].summary() and len(shown) == 2
    assert stopping.runs[0].summary().startswith("0/6 checks pass")


def test_a_limit_shorter_than_show_after_shows_the_live_panel_when_the_first_check_times_out(stopping, monkeypatch):
    """The panel is held for min(SHOW_AFTER, limit): a 0.3 s limit's timeout is not kept back until a second has passed."""
    import IPython
    import IPython.display

    from failuremap_edu import _cell

    shown: list[str] = []

    def display(obj, display_id=False):
        shown.append(obj.summary())
        return SimpleNamespace(update=lambda obj: shown.append("update: " + obj.summary()))

    monkeypatch.setattr(IPython, "get_ipython", lambda: SimpleNamespace())
    monkeypatch.setattr(IPython.display, "display", display)

    def solve(text, stops):
        while True:
            pass

    monkeypatch.setattr(stopping, "timeout", 0.3)
    assert _cell.SHOW_AFTER == 1.0  # the whole run (0.3 s, then 5 short limits of 0.0375 s) ends well before 1 s
    stopping.check(solve)
    assert len(shown) == 2 and shown[0].startswith("Checking your solve: ") and shown[1].startswith("update: "), shown


def test_while_a_run_is_under_way_the_previous_runs_hints_are_not_shown(stopping):
    """The hints follow the latest run: 'You pass every check' must not stand there while new checks run."""
    stopping.check(reference)
    stopping.reveal_hint()
    assert "You pass every check" in stopping.text()
    during = []
    stopping.subscribe(lambda e: during.append(e.text()) if e.running else None)
    stopping.check(mixed_stopping_solve)
    assert during and all("You pass every check" not in text for text in during)
    assert all("Hints follow your latest run: they are back when these checks are done." in text for text in during)
    assert "You pass every check" not in stopping.text() and stopping.hints_shown == 0  # after the run: folded, about this run
def test_downloads_name_no_home_folder(tmp_path, monkeypatch):
    """The .py header held /home/jdoe/...: the learner's user name, in a hand-in."""
    import shutil

    home = tmp_path / "home" / "jdoe"
    (home / "course" / "records").mkdir(parents=True)
    shutil.copy(record_path("TR-000101"), home / "course" / "records" / "TR-000101.json")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(home / "course")  # the notebook folder
    ex = Exercise(str(home / "course" / "records" / "TR-000101.json"))  # the notebook named its record by its full path
    ex.check(lambda tokens, k=2, *, normalize=False: {})
    files = ex.export_files()
    assert files and not [name for name, text in files.items() if "jdoe" in text]
    py = next(text for name, text in files.items() if name.endswith("-solve.py"))
    assert "# check again with: failuremap-edu check records/TR-000101.json " in py
    assert "(in the notebook's folder, where that path leads to the record; elsewhere give the record file's path)" in py  # it failed from a downloads folder (instructor trial)
    assert "@fm.exercise('records/TR-000101.json')" in py
    monkeypatch.chdir(tmp_path)  # the notebook folder is elsewhere: the home folder shows as ~
    assert "failuremap-edu check ~/course/records/TR-000101.json " in next(t for n, t in ex.export_files().items() if n.endswith(".py"))


def test_a_download_in_the_browser_site_says_how_to_check_it_there_and_elsewhere(monkeypatch, tmp_path):
    """In JupyterLite there is no terminal, and /drive/ exists only in the browser."""
    import shutil
    import sys

    (tmp_path / "records").mkdir()
    shutil.copy(record_path("TR-000101"), tmp_path / "records" / "TR-000101.json")
    monkeypatch.chdir(tmp_path)  # the notebook folder (/drive in the site)
    ex = Exercise("records/TR-000101.json")
    ex.check(lambda tokens, k=2, *, normalize=False: {})
    monkeypatch.setattr(sys, "platform", "emscripten")
    py = next(text for name, text in ex.export_files().items() if name.endswith("-solve.py"))
    lines = py.splitlines()
    assert lines[1] == "# check again on the site: paste it into the exercise cell, with the line @fm.exercise('records/TR-000101.json') right above def solve"
    assert lines[2].startswith("# on a machine with failuremap-edu installed: download TR-000101.json from the site's file browser "
                               "(folder records), then in the folder where both files are: failuremap-edu check TR-000101.json TR-000101-")
    assert "/drive" not in py and "check again with:" not in py


def _like_the_attempt(text, stops):  # the record's attempt, as a learner might write it
    hold = max([len(s) - 1 for s in stops if s] or [0])
    return (text[:-hold] if hold else text, text[-hold:] if hold else "")


def _lists_instead_of_tuples(text, stops):
    return list(reference(text, stops))


def test_a_run_logs_where_yours_returns_what_the_attempt_returns(tmp_path, monkeypatch):
    """Computed in the learner's kernel when the run is logged: the replays come first, then the log line."""
    from failuremap_edu._progress import read_progress

    log = tmp_path / "progress.jsonl"
    monkeypatch.setenv("FAILUREMAP_PROGRESS", str(log))
    ex = Exercise("FA-100786", timeout=0.5)
    ex.check(_like_the_attempt)
    (entry,), _ = read_progress(log)
    broken, attempt = ex.replays(1)
    failing = [i for i, s in enumerate(entry["statuses"]) if s != "pass"]
    assert failing and failing == [o.index for o in attempt.observations if o.status == "fail"]
    assert all("attempt" in entry["outcomes"][i]["same_as"] for i in failing)
    assert all(entry["outcomes"][i] is None for i, s in enumerate(entry["statuses"]) if s == "pass")
    download = json.loads(next(text for name, text in ex.export_files().items() if name.endswith("-results.json")))
    assert download["outcomes"] == [entry["outcomes"]]  # the panel's results file carries them too
    ex.check(_lists_instead_of_tuples)
    entries, _ = read_progress(log)
    latest = entries[-1]
    assert latest["reasons"] == ["type"] * 6 and all(o["same_as"] == [] and o["repr"].startswith("[") for o in latest["outcomes"])
# --------------------------------------------------- issue 21: what is compared, your mistake, nothing silent


def _warmup_like_the_attempt(steps, *, peak, warmup):
    return [min(peak * t / warmup, peak) for t in range(steps)]


def test_the_model_says_when_your_solve_makes_the_attempts_mistake():
    e = Exercise(str(record_path("TR-001010")), timeout=1.0)
    e.check(_warmup_like_the_attempt)
    assert (e.match.which, e.match.checks, e.match.informative, e.match.own) == ("attempt", ((1, 0), (1, 1)), ((1, 0),), ())
    assert e.mistake == ("Your solve gets the same wrong results as the plausible attempt on 2 of 2 failing checks. 'warmup ramp' is a "
                         "sign of its mistake; 'first step nonzero' is failed the same way by many mistakes. The plausible attempt's mistake was: " + e.record.failed_approach)
    assert e.mistake in e.text().splitlines()
    e.check(lambda steps, *, peak, warmup: [min(peak * (t + 1) / warmup, peak) for t in range(steps)])
    assert e.mistake is None and e.summary() == "4/4 checks pass"


def test_a_predicate_that_fails_alike_is_no_evidence_of_the_attempts_mistake():
    """A check of an expression is False for the attempt's grid and for a grid of zeros: the same compared value, which many
    mistakes give, so it is said as a weak match and the attempt's story is not told."""
    e = Exercise(str(record_path("TR-000909")), timeout=1.0)
    e.check(lambda n, pad=0: [[0] * n for _ in range(n)])
    assert (e.match.which, len(e.match.checks), e.match.informative, len(e.match.own), e.match.strength) == ("attempt", 1, (), 3, "uninformative")
    assert "which many mistakes fail the same way" in e.mistake and e.record.failed_approach not in e.mistake
    assert all(h.text not in (e.record.failed_approach, e.record.root_cause) for h in e.hints)
    e.check(lambda n, pad=0: [[1 if pad <= j < i else 0 for j in range(n)] for i in range(n)])  # the attempt's own code
    assert e.mistake.startswith("Your solve gets the same wrong results as the plausible attempt on 4 of 4 failing checks")


def test_a_hint_the_mistake_line_already_quotes_is_not_offered_again():
    """"4 hints, one at a time" was untrue with hint 3's text already on screen in the mistake line (a learner trial)."""
    e = Exercise(str(record_path("TR-001010")), timeout=1.0)
    e.check(_warmup_like_the_attempt)
    assert e.record.failed_approach in e.mistake
    assert [h.text for h in e.hints if h.text == e.record.failed_approach] == []
    assert e.hints and e.hints[-1].text == e.record.root_cause and e.hints_available == len(e.hints)
    e.check(lambda steps, *, peak, warmup: [peak] * steps)  # another mistake: the attempt's story is about someone else's code
    assert e.mistake is None or e.record.failed_approach not in e.mistake
    assert e.match is None and all(h.text != e.record.failed_approach for h in e.hints)


def test_run_checks_again_with_the_same_result_says_so():
    e = Exercise(str(record_path("TR-001010")), timeout=1.0)
    e.check(_warmup_like_the_attempt)
    assert e.rerun_note == ""  # a first run is its own news
    e.run()  # the panel's "Run checks again": it says whose solve ran (a trial's unrun edit looked checked and failing)
    assert re.fullmatch(r"ran again at \d\d:\d\d:\d\d: same result \(the solve the cell last ran: to check an edit, run the cell\)", e.rerun_note)
    e.check(_warmup_like_the_attempt)  # the cell run again: its own solve, no such note
    assert re.fullmatch(r"ran again at \d\d:\d\d:\d\d: same result", e.rerun_note)
    assert f"  ({e.rerun_note})" in e.text().splitlines()
    e.check(lambda steps, *, peak, warmup: [peak] * steps)  # a different result: nothing to say
    assert e.rerun_note == ""


def test_typed_inputs_keep_their_spaces_in_the_text_form(stopping):
    """solve('a  b') displayed as solve('a b') asks for a different answer."""
    stopping.check(reference)
    stopping.try_inputs("'a  b', ['<stop>']")
    text = stopping.text()
    assert "Playground: solve('a  b', ['<stop>'])" in text
    assert "  yours: returned ('a  b', '')" in text


def test_a_check_on_an_expression_shows_the_expression_in_the_rows():
    from failuremap_edu.render._html import checks_html

    e = Exercise(str(record_path("TR-000909")), timeout=1.0, variant=2)
    e.check(lambda n, pad=0: [[1 if pad <= j < i else 0 for j in range(n)] for i in range(n)])
    html = checks_html(e.runs)
    assert "<code>solve(6, pad=2)[-1]</code>" in html and "<code>solve(3)[0][0] == 1</code>" in html
    assert '<strong class="fm-k">solve(3) returned</strong> <div class="fm-v"><code>[[0, 0, 0], [1, 0, 0], [1, 1, 0]]</code></div>' in html
    assert "pattern: The differing cells are exactly the diagonal" in html


def test_the_static_form_shows_the_last_results_and_says_run_the_cell_to_check_again():
    """A notebook reopened with a new kernel showed 'Error displaying widget: model not found' and nothing else."""
    from failuremap_edu._cell import NotebookFront

    e = Exercise(str(record_path("TR-000909")), timeout=1.0)
    e.check(lambda n, pad=0: [[1 if pad <= j < i else 0 for j in range(n)] for i in range(n)])
    html = e.static_html()
    assert html.startswith('<div class="fm-root fm-static"><style>')
    assert '<p class="fm-summary">1/5 checks pass (4 fail)</p>' in html
    assert "run the cell to check again" in html and "<code>solve(3)[0][0] == 1</code>" in html
    bundle = NotebookFront().bundle(e)
    assert bundle["text/html"] == html and bundle["text/plain"] == e.text()
    assert "application/vnd.jupyter.widget-view+json" in bundle  # the live panel, where the widget model exists


def test_in_the_browser_site_the_panel_comes_with_a_saved_copy_that_follows_its_runs(monkeypatch):
    """JupyterLite after a reload: the panel said "Loading widget..." for good (issue 25). Its saved copy, an HTML
    output right above it, shows the last results there; the panel's own re-runs keep it up to date."""
    import sys

    import IPython
    import IPython.display

    from failuremap_edu._cell import SAVED_CSS

    pairs = Exercise("FA-100061", timeout=0.5)  # made before IPython is faked: the cell watcher needs a real shell
    shown: list = []

    class Handle:
        def __init__(self, obj):
            self.obj = obj

        def update(self, obj):
            shown.append(("update", obj._repr_mimebundle_()))

    def display(obj, display_id=False):
        shown.append(("display", obj._repr_mimebundle_()))
        return Handle(obj)

    monkeypatch.setattr(IPython, "get_ipython", lambda: SimpleNamespace())
    monkeypatch.setattr(IPython.display, "display", display)
    monkeypatch.setattr(sys, "platform", "linux")  # a server: the panel alone, as before
    pairs.check(lambda candidates: None)
    assert [kind for kind, _ in shown] == ["display"] and "application/vnd.jupyter.widget-view+json" in shown[0][1]

    shown.clear()
    monkeypatch.setattr(sys, "platform", "emscripten")
    pairs.check(lambda candidates: None)
    (kind, panel), (kind2, saved) = shown  # the panel, then the copy once the run is done (a tool keeping first outputs keeps it finished)
    assert (kind, kind2) == ("display", "display") and "application/vnd.jupyter.widget-view+json" in panel
    assert set(saved) == {"text/plain", "text/html"}, "an ordinary output: the browser's storage keeps it, a reload shows it"
    at = time.strftime("%H:%M", time.localtime(pairs.finished_at))
    when = f'<p class="fm-note fm-when">Results of the code as it was when last run, at {at}.</p>'
    assert saved["text/html"] == f'<div class="fm-saved"><style>{SAVED_CSS}</style>{when}{pairs.static_html()}</div>'
    assert "run the cell to check again" in saved["text/html"] and f"<p class=\"fm-summary\">{pairs.summary()}</p>" in saved["text/html"]
    assert saved["text/plain"] == f"{pairs.text(results_only=True)}\n(results of the code as it was when last run, at {at}: run the cell to check again)"
    assert panel["text/plain"] == "(The live panel of this exercise shows here when the cell runs.)" and "text/html" not in panel  # not twice

    shown.clear()
    pairs.reveal_hint()  # nothing the saved copy shows has changed
    assert shown == []
    pairs.select_variant(3)  # the panel's variant box re-runs the checks: a reload must show these
    assert [kind for kind, _ in shown] == ["update"]
    assert "(variant N = 3)" in shown[0][1]["text/html"] and shown[0][1]["text/html"].endswith(f"{pairs.static_html()}</div>")


def test_the_saved_copy_says_when_its_code_ran_only_where_nothing_compares_it(stopping, monkeypatch):
    """A reload showed the last run's results under an edit never run, as if they were the edit's (lite trial). In
    the browser the copy says when its code ran; a server's copy has no time, since nbval compares it with the stored one."""
    from failuremap_edu._cell import saved_copy_bundle

    stopping.check(lambda text, stops: (text, ""))
    stopping.finished_at = time.mktime((2026, 12, 4, 19, 52, 30, 0, 0, -1))
    monkeypatch.setattr(sys, "platform", "emscripten")
    browser = saved_copy_bundle(stopping)
    assert browser["text/plain"].endswith("\n(results of the code as it was when last run, at 19:52: run the cell to check again)")
    assert '<p class="fm-note fm-when">Results of the code as it was when last run, at 19:52.</p>' in browser["text/html"]
    monkeypatch.setattr(sys, "platform", "linux")
    server = saved_copy_bundle(stopping)
    assert server["text/plain"].endswith("\n(results of the code as it was when last run: run the cell to check again)")
    assert "19:52" not in server["text/html"] and server == saved_copy_bundle(stopping)


def test_a_changed_solve_with_the_same_results_is_not_said_to_have_run_again(stopping):
    """'ran again: same result' after a code change misled a learner: it is said only for the same solve."""
    def first(text, stops):
        return text, ""

    def second(text, stops):
        return (text + "")[:], ""

    stopping.check(first)
    stopping.check(first)
    assert "same result" in stopping.rerun_note
    stopping.check(second)
    assert "ran again" not in stopping.rerun_note  # a new solve, not a re-run: said as that (a later trial saw nothing change)
    assert re.fullmatch(r"your new solve, checked at \d\d:\d\d:\d\d: the same result", stopping.rerun_note)


def test_a_solve_that_loops_gets_hints_and_a_note_about_the_loop(stopping):
    def solve(text, stops):
        while True:
            pass

    stopping.check(solve)
    assert stopping.mistake == "Your solve does not finish: every one of the 6 failing checks timed out (a loop that never ends?)."
    first = stopping.hints[0]
    assert first.title == "Where to look first" and first.text.startswith("Your solve does not finish on the check ")
    assert "loop whose condition never changes" in first.text


def test_a_pass_at_one_variant_says_the_others_are_not_checked_yet():
    """A trial passed at N = 1 and read nothing about N = 2 to 5 (the checks read N)."""
    e = Exercise(str(record_path("TR-000909")), timeout=1.0)
    visible = lambda n, pad=0: [[1 if pad <= j <= i else 0 for j in range(n)] for i in range(n)]  # noqa: E731
    e.check(visible)
    assert e.pass_note == "That is N = 1 only: tick “all variants” to check N = 1 to 5 too." and e.pass_note in e.text().splitlines()
    proof = "Every check of the record passes. Checks are examples, not a proof: try the contract's edge cases in the playground."
    e.select_variant(ALL_VARIANTS)
    assert e.pass_note == proof  # a wrong solve passed every check of a trial's record
    e.select_variant(1)
    e.check(lambda n, pad=0: [])
    assert e.pass_note == ""  # a failure has its own words
    plain = Exercise("FA-100786", timeout=1.0)  # checks that do not read N: one variant is every variant
    plain.check(reference)
    assert plain.summary() == "6/6 checks pass" and plain.pass_note == proof


def test_a_cell_with_the_attempts_code_and_its_own_dataclass_makes_the_attempts_mistake():
    """The learner's Span and the script's are one class to a learner: a trial's attempt was 'a mistake of its own'."""
    namespace = {"__name__": "__main__"}
    attempt = load_record(str(record_path("TR-001313"))).implementations["attempt"].source
    cell = "from dataclasses import astuple, dataclass, field\n" + attempt[attempt.index("@dataclass"): attempt.index("N = 1")] + attempt[attempt.index("def solve"): attempt.index("def check")]
    exec(cell, namespace)
    e = Exercise(str(record_path("TR-001313")), timeout=2.0)
    e.check(namespace["solve"])
    assert e.summary() == "1/5 checks pass (4 fail)"
    assert e.mistake.startswith("Your solve gets the same wrong results as the plausible attempt on 4 of 4 failing checks")


def test_a_solve_that_fails_as_broken_does_is_pointed_at_brokens_code_not_at_prose():
    """Quoting the record's summary sent a learner whose bug was broken's back to the attempt's mistake (a trial)."""
    namespace = {"__name__": "__main__"}
    cell = solution_path("TR-001313").read_text().replace(
        "    spans, i = [], 0\n", "    return [Span(text.index(t), text.index(t) + len(t), t) for t in text.split()]\n    spans, i = [], 0\n")
    exec(cell, namespace)
    e = Exercise(str(record_path("TR-001313")), timeout=2.0)
    e.check(namespace["solve"])
    assert e.mistake == ("Your solve gets the same wrong results as the broken version on 1 of 1 failing check. "
                         "Its code is in watch it fail above: compare it with yours.")


def test_all_variants_count_failures_as_checks_in_variants():
    """"on all 5 failing checks" was one check failing in five variants (a learner trial)."""
    e = Exercise(str(record_path("TR-000909")), timeout=1.0)
    e.select_variant(ALL_VARIANTS)
    e.check(lambda n, pad=0: [[1 if pad <= j <= i else 0 for j in range(n)] for i in range(n)][:-1] + [[0] * n] if n == 14 else
            [[1 if pad <= j <= i else 0 for j in range(n)] for i in range(n)])
    assert e.mistake == ("Your solve fails differently from the record's attempt and broken version on all 5 failures "
                         "(1 check, in 5 variants): a mistake of its own.")


def test_the_results_text_leaves_out_hints_and_the_playground():
    e = Exercise("FA-100786", timeout=1.0)
    e.check(reference)
    e.reveal_hint()
    e.try_inputs("'a  b', ['<stop>']")
    full, results = e.text(), e.text(results_only=True)
    assert "Playground: solve('a  b', ['<stop>'])" in full and "Hint 1" in full
    assert "Playground" not in results and "Hint 1" not in results and results.splitlines()[:2] == full.splitlines()[:2]


def _cell_solve(source: str):
    namespace = {"__name__": "__main__"}
    exec(source, namespace)
    return namespace["solve"]


def test_a_solve_with_part_of_the_attempts_mistake_is_not_given_all_of_its_text():
    """A one-level merge failed only 'deep merge', as the attempt does, and was told "merges the top level only" (a trial)."""
    e = Exercise(str(record_path("TR-001414")), timeout=2.0)
    e.check(_cell_solve("def solve(base, override):\n    out = dict(base)\n    for k, v in override.items():\n"
                        "        out[k] = {**base[k], **v} if isinstance(v, dict) and isinstance(base.get(k), dict) else v\n    return out\n"))
    assert e.mistake == ("Your solve gets the same wrong results as the plausible attempt on 1 of 1 failing check, but passes what it "
                         "fails on 'nested keys kept': part of its mistake, not all of it (its code is in watch it fail above).")
    assert e.record.failed_approach not in e.mistake


def test_a_recursive_merge_that_modifies_its_input_makes_brokens_mistake():
    """Broken's inner recursive call made its results differ from the learner's same mistake (a trial)."""
    e = Exercise(str(record_path("TR-001414")), timeout=2.0)
    e.check(_cell_solve("def solve(base, override):\n    for k, v in override.items():\n"
                        "        if isinstance(v, dict) and isinstance(base.get(k), dict):\n            solve(base[k], v)\n"
                        "        else:\n            base[k] = v\n    return base\n"))
    # Its one failing check compares whether base is unchanged: False, as many other mistakes give it.
    assert (e.match.which, e.match.strength) == ("broken", "uninformative")
    assert e.mistake.startswith("Your solve gets the same wrong results as the broken version on 1 check ('base unchanged'), which many")


def test_a_new_solve_with_the_same_count_says_it_was_checked():
    """After Shift+Enter only "2/6 checks pass (4 fail)" stayed in view, the same as before: nothing said a new solve ran."""
    e = Exercise(str(record_path("TR-001010")), timeout=1.0)
    e.check(_warmup_like_the_attempt)
    e.check(lambda steps, *, peak, warmup: [min(peak * t / warmup, peak) for t in range(steps)] + [])  # new source, same result
    assert re.fullmatch(r"your new solve, checked at \d\d:\d\d:\d\d: the same result", e.rerun_note)
    before = e.summary()
    e.check(lambda steps, *, peak, warmup: [0.5 * peak] * steps)
    if e.summary() == before:
        assert e.rerun_note.endswith("the same count, other results")
    else:
        assert e.rerun_note == ""  # the count changed: that is the news


def _sent_by_name_lookup(text, stops):
    return eval("text, ''")  # a dynamic lookup: this solve cannot be sent to the worker


def test_a_solve_that_did_not_run_is_not_given_a_mistake_or_a_hint_about_its_values(stopping):
    """A learner trial's solve could not be sent: the panel called it "a mistake of its own" and hint 2 said
    "your solve raises NotRun ... find the step where it goes wrong", and nothing said how to go on."""
    stopping.check(_sent_by_name_lookup)
    assert stopping.runs[0].problem.type == "CannotSend" and stopping.mistake is None
    assert "define what it names inside solve, or in a .py file next to the notebook" in stopping.runs[0].problem.message
    first, second = stopping.hints[:2]
    assert first.text.startswith("Your solve did not run: solve cannot be sent to the worker process that runs the checks:")
    assert "NotRun" not in " ".join(h.text for h in stopping.hints) and second.title != "What your solve does there"


def test_the_same_solve_on_another_variant_is_not_called_a_new_solve():
    e = Exercise(str(record_path("TR-000909")), timeout=1.0)
    solve = lambda n, pad=0: [[1 if pad <= j < i else 0 for j in range(n)] for i in range(n)]  # noqa: E731
    e.check(solve)
    e.select_variant(3)
    assert re.fullmatch(r"the same solve, checked at \d\d:\d\d:\d\d on N = 3", e.rerun_note), e.rerun_note
    e.select_variant(ALL_VARIANTS)
    assert re.fullmatch(r"the same solve, checked at \d\d:\d\d:\d\d on all variants", e.rerun_note), e.rerun_note


def test_two_solves_whose_source_cannot_be_read_are_not_the_same_solve(stopping):
    """Both sources unreadable (None) read as 'the same solve, checked again: other results' for a new solve."""
    made = {}
    for name, body in (("first", "return text, ''"), ("second", "return text.upper(), ''")):
        exec(compile(f"def solve(text, stops):\n    {body}\n", f"<no file {name}>", "exec"), made)
        made[name] = made.pop("solve")
    stopping.check(made["first"])
    stopping.check(made["second"])
    assert "same solve" not in stopping.rerun_note and "ran again" not in stopping.rerun_note
    stopping.check(made["second"])  # the same function again: that is a re-run
    assert stopping.rerun_note.startswith("ran again at")


def test_exercises_nothing_uses_are_collected_but_the_newest(monkeypatch, capsys):
    """Twenty exercises, each checked once, with a saved copy and a panel; after del, only the newest stays (_live)."""
    import gc
    import weakref

    from failuremap_edu import _cell, _live
    from failuremap_edu._panel import panel

    live = _live.Live()
    monkeypatch.setattr("failuremap_edu._exercise.LIVE", live)
    monkeypatch.setattr("failuremap_edu._cell.LIVE", live)
    made = [exercise("FA-100786", timeout=1 + i / 100, log_progress=False) for i in range(10)]
    made += [Exercise("FA-100786", log_progress=False) for _ in range(10)]
    for e in made:
        e.check(reference)
        _cell._saved_copy(e)
    panel(made[5])  # its widgets stay open (ipywidgets keeps every widget until closed), as when a cell shows them
    refs = [weakref.ref(e) for e in made]
    assert exercise("FA-100786", timeout=1.0, log_progress=False) is made[0]  # alive: found again, with its state
    del made, e
    gc.collect()
    assert [i for i, ref in enumerate(refs) if ref() is not None] == [0, 5]  # the newest asked for (a later cell's
    live.newest = None  # fm.exercise(ID)), and the one whose panel is shown; the 18 others are gone
    gc.collect()
    assert [i for i, ref in enumerate(refs) if ref() is not None] == [5]


_CALLS_SO_FAR = []


def _right_only_on_its_first_call(steps, *, peak, warmup):
    _CALLS_SO_FAR.append(steps)  # state that outlives a call: in the worker, every check after the first sees it
    shift = 1 if len(_CALLS_SO_FAR) == 1 else 0
    return [min(peak * (t + shift) / warmup, peak) for t in range(steps)]


def test_a_hint_says_when_a_checks_call_returns_another_value_made_afresh():
    """A call whose result depends on earlier calls: "work it through by hand" would send a learner to a call that is
    right on its own; the hint says what the same call returns afresh, and only once a hint is shown."""
    from failuremap_edu._call_claims import CarriedOver

    e = Exercise(str(record_path("TR-001010")), timeout=2.0, log_progress=False)
    made = []
    fresh = e._fresh_call
    e._fresh_call = lambda *a: made.append(a) or fresh(*a)
    e.check(_right_only_on_its_first_call)
    assert not e.runs[0].passed and made == []  # the run's feedback made no extra call
    e.reveal_all()
    said = [h.text for h in e.hints if "Made afresh" in h.text]
    assert len(made) == 1 and made[0][0] in ("yours", "attempt") and len(said) == 1
    first = next(o for o in e.runs[0].observations if o.status != "pass")
    claim = CarriedOver(first.calls[0].call, first.calls[0].returned, fresh("yours", 1, first.calls[0].call)[1])
    assert claim.verify() and str(claim) in said[0]
    assert not CarriedOver(claim.call, claim.here, claim.here).verify()


def test_a_hint_about_a_call_that_returns_the_same_afresh_says_work_it_through():
    e = Exercise(str(record_path("TR-001010")), timeout=2.0, log_progress=False)
    e.check(_warmup_like_the_attempt)
    e.reveal_all()
    assert not any("Made afresh" in h.text for h in e.hints)
    assert any("Work through that call by hand" in h.text for h in e.hints)
