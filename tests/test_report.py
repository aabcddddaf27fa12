"""The class report: each learner once, where they got stuck, and nothing of theirs unless asked."""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path

import pytest

from failuremap_edu import Exercise
from failuremap_edu.instructor._cli import main
from failuremap_edu._progress import learner_id, log_run
from failuremap_edu._progress_export import export_progress
from failuremap_edu.instructor._report import build_report, read_names
from failuremap_edu._results import ErrorInfo, Observation, RunResult

LABELS = ("keeps order", "<script>alert(1)</script> $x$")


def run(statuses: tuple[str, str], record: str = "FA-1", labels=LABELS) -> RunResult:
    observations = []
    for i, status in enumerate(statuses):
        error = {"timeout": ErrorInfo("Timeout", "slow"), "error": ErrorInfo("ZeroDivisionError", "division by zero")}.get(status)
        actual = {"pass": ("a", "b"), "fail": ["a", "b"]}.get(status)
        observations.append(Observation(i, labels[i], status, status == "pass", actual, ("a", "b"), error=error))
    return RunResult(record, "yours", 1, tuple(observations), 2.0, "process")


def learner(folder: Path, name: str, runs: list[tuple[tuple[str, str], str]], *, instructor_runs: int = 0) -> tuple[str, Path]:
    """A learner's log with these runs (statuses, source), exported into `folder`; returns (id, export)."""
    log = folder / "logs" / f"{name}.jsonl"
    for _ in range(instructor_runs):
        log_run(run(("pass", "pass")), "def solve(x):\n    return 'instructor'\n", log, instructor=True)
    for statuses, source in runs:
        log_run(run(statuses), source, log)
    out = folder / "handed-in" / f"{name}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    export_progress(out, log)
    return learner_id(log), out


CODE = "def solve(x):\n    return {}  # {}\n"


@pytest.fixture
def klass(tmp_path):
    """Four learners: ann passes at her 1st run, bob at his 3rd, cy at her 2nd; dan never passes the second check."""
    ids = {}
    ids["ann"], _ = learner(tmp_path, "ann", [(("pass", "pass"), CODE.format(1, "ann"))], instructor_runs=3)
    ids["bob"], _ = learner(tmp_path, "bob", [
        (("fail", "error"), CODE.format(2, "bob")), (("pass", "timeout"), CODE.format(3, "bob")),
        (("pass", "pass"), CODE.format(4, "bob")), (("timeout", "timeout"), CODE.format(5, "bob")),
    ])
    ids["cy"], cy = learner(tmp_path, "cy", [(("fail", "fail"), CODE.format(6, "cy")), (("pass", "pass"), CODE.format(7, "cy"))])
    ids["dan"], _ = learner(tmp_path, "dan", [(("pass", "error"), CODE.format(8, "dan")), (("pass", "error"), CODE.format(9, "dan"))])
    (tmp_path / "handed-in" / "cy-again.json").write_bytes(cy.read_bytes())  # handed in twice
    return tmp_path / "handed-in", {name: i[:6] for name, i in ids.items()}


def test_each_exercise_and_check_across_the_class(klass):
    folder, ids = klass
    report = build_report([folder])
    assert sorted(report.learners) == sorted(ids.values()) and report.files == 5 and report.problems == ()
    (e,) = report.exercises
    assert (e.record, e.learners, e.reached_pass, e.median_runs_to_pass, e.stuck) == ("FA-1", 4, 3, 2.0, (ids["dan"],))
    assert e.runs == 1 + 4 + 2 + 2  # cy's runs count once though she handed them in twice; the instructor's not at all
    first, second = e.checks
    # First pass of the first check: ann 1st run, bob 2nd, cy 2nd, dan 1st.
    assert (first.label, first.learners, first.reached_pass, first.median_runs_to_pass, first.stuck) == ("keeps order", 4, 4, 1.5, ())
    assert first.reasons == (("type", 2), ("Timeout", 1))  # bob and cy returned a list where a tuple was expected; bob looped
    assert (second.label, second.reached_pass, second.median_runs_to_pass, second.stuck) == (LABELS[1], 3, 2.0, (ids["dan"],))
    assert second.reasons == (("ZeroDivisionError", 2), ("Timeout", 1), ("type", 1))  # learners who met each, not runs
    cells = dict(zip(report.learners, second.cells))
    assert cells[ids["ann"]] == cells[ids["bob"]] == "pass" and cells[ids["dan"]] == "error"  # bob passed once, then looped


def test_panel_downloads_count_once_per_learner(klass, tmp_path, monkeypatch):
    folder, ids = klass
    monkeypatch.setenv("FAILUREMAP_PROGRESS", str(tmp_path / "logs" / "cy.jsonl"))  # cy's own machine
    exercise = Exercise("FA-100786", log_progress=False)
    exercise.check(lambda text, stops: [text, ""])
    for name, text in exercise.export_files().items():
        if name.endswith(".json"):
            data = json.loads(text)
            data["learner"] = learner_id()  # the download of a learner (not a demo: log_progress=False says "demo") carries the log's id
            (folder / "cy-panel.json").write_text(json.dumps(data))
            data.pop("learner")
            (folder / "anonymous.json").write_text(json.dumps(data))
    report = build_report([folder])
    assert len(report.learners) == 5 and "file:anonymous.json" in report.learners  # a file without an id is its own learner
    panel = next(e for e in report.exercises if e.record == "FA-100786")
    assert panel.learners == 2 and panel.reached_pass == 0 and panel.median_runs_to_pass is None  # one snapshot: runs unknown
    assert sorted(panel.stuck) == sorted([ids["cy"], "file:anonymous.json"])
    partial = panel.checks[0]
    assert partial.reasons == (("type", 2),)  # a list where a tuple was expected, told apart through the reprs


def test_code_only_with_code(klass, capsys):
    folder, ids = klass
    page = folder.parent / "r.html"
    for argv in (["report", str(folder)], ["report", str(folder), "--json"], ["report", str(folder), "--html", str(page)]):
        capsys.readouterr()
        assert main(argv) == 0
        out = capsys.readouterr().out + (page.read_text() if page.exists() else "")
        assert "def solve" not in out and not re.search(r"return \d+  #", out)  # a group may say what they return, never their code
    assert all(e.code == {} for e in build_report([folder]).exercises)  # not even kept in the report's data
    assert main(["report", str(folder), "--with-code", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    code = data["exercises"][0]["code"]
    assert code[ids["bob"]] == CODE.format(4, "bob")  # his last passing solve, not the loop he ran last
    assert code[ids["dan"]] == CODE.format(9, "dan") and "instructor" not in json.dumps(data)


def test_text_report(klass, capsys):
    folder, ids = klass
    assert main(["report", str(folder)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "Class report: 4 learners, 1 exercise, from 5 files"
    assert out[1] == "FA-1: not a packaged record, so the groups come without the record's own text; pass --workshop DIR (its notebooks/records/ holds the record files)"
    assert out[3] == f"FA-1: 4 learners ran it (9 runs); 3 reached every check passing (median 2 runs); stuck: {ids['dan']}"
    row = next(line for line in out if "keeps order" in line).split()
    assert row[:5] == ["1", "keeps", "order", "4/4", "1.5"]


def test_html_page_is_standalone_escaped_and_has_the_heatmap(klass, tmp_path, capsys):
    folder, ids = klass
    page = tmp_path / "class.html"
    assert main(["report", str(folder), "--html", str(page)]) == 0
    html = page.read_text()
    assert "<script>" not in html and "&lt;script&gt;alert(1)&lt;/script&gt; $x$" in html
    assert not re.search(r'(src|href)="(?!data:)', html)  # no external assets
    png = base64.b64decode(re.search(r'src="data:image/png;base64,([^"]+)"', html).group(1))
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    from failuremap_edu.instructor.render._report import heatmap_figure

    figure = heatmap_figure(build_report([folder]))
    (ax,) = figure.axes
    assert ax.images[0].get_array().shape == (2, 4)  # checks × learners
    assert [t.get_text() for t in ax.get_xticklabels()] == sorted(ids.values())
    assert ax.get_yticklabels()[1].get_text() == LABELS[1] and not ax.get_yticklabels()[1].get_parse_math()
    assert figure.legends and {t.get_text() for t in figure.legends[0].get_texts()} == {"passed", "fail", "error", "timeout", "unconfirmed", "not run"}


def test_the_heatmaps_cell_lines_are_two_line_collections_not_a_tick_per_line(tmp_path):
    """A tick is text and lines of its own, laid out at every draw: with one per cell line, 600 of them were most of
    a 100-learner page's time (3.2 s). The white lines are two collections; the only ticks are the labels."""
    from failuremap_edu.instructor.render._report import heatmap_figure

    paths = [download(tmp_path, f"l{n}.json", f"{n:016x}", 6) for n in range(30)]
    figure = heatmap_figure(build_report(paths))
    (ax,) = figure.axes
    assert ax.xaxis.get_minorticklocs().size == 0 and ax.yaxis.get_minorticklocs().size == 0
    assert len(ax.collections) == 2 and [len(c.get_segments()) for c in ax.collections] == [29, 5]
    assert ax.get_ylim() == (5.5, -0.5) and ax.get_xlim() == (-0.5, 29.5)  # as imshow had it: first check on top


def test_the_learners_names_are_under_the_last_heatmap_only(tmp_path):
    """The columns of the stacked heatmaps line up: one row of names, not one per exercise (each label is laid out at every draw)."""
    from failuremap_edu.instructor.render._report import heatmap_figure

    paths = [download(tmp_path, f"l{n}-{r}.json", f"{n:016x}", 3, record=r) for n in range(4) for r in ("FA-1", "FA-2", "FA-3")]
    figure = heatmap_figure(build_report(paths))
    assert [len(ax.get_xticklabels()) for ax in figure.axes] == [0, 0, 4]
    assert [t.get_text() for t in figure.axes[-1].get_xticklabels()] == [f"{n:016x}" for n in range(4)]


def test_bad_files_are_one_line_each_and_the_rest_is_reported(klass, capsys):
    folder, ids = klass
    (folder / "notes.json").write_text('{"hello": "world"}')
    (folder / "half.json").write_text('{"attempts": [')
    (folder / "wrong.json").write_text('{"attempts": [{"record": "FA-1", "checks": 3}]}')
    (folder / "binary.json").write_bytes(b"\xff\xfe\x00")
    capsys.readouterr()
    assert main(["report", str(folder), str(folder / "missing.json")]) == 2
    out, err = capsys.readouterr()
    lines = err.splitlines()
    assert len(lines) == 5 and all(line.startswith("failuremap-edu: left out of the report: ") for line in lines)
    assert f"{folder / 'notes.json'}: not a failuremap_edu results download or export" in err
    assert f"{folder / 'half.json'}: not JSON" in err and f"{folder / 'binary.json'}: not JSON" in err
    assert f"{folder / 'wrong.json'}: not a valid failuremap_edu export: at attempts/0/checks: 3 is not of type 'array'" in err
    assert f"{folder / 'missing.json'}: cannot read" in err and "Traceback" not in err
    assert out.startswith("Class report: 4 learners")


def test_nothing_readable_is_an_input_error(tmp_path, capsys):
    (tmp_path / "x.json").write_text("[]")
    assert main(["report", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not a failuremap_edu results download or export" in err
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["report", str(empty)]) == 2 and "no .json or .jsonl files found" in capsys.readouterr().err


def test_instructor_runs_are_not_the_class(tmp_path):
    _, export = learner(tmp_path, "teacher", [], instructor_runs=4)
    report = build_report([export])
    assert report.learners == () and report.exercises == ()  # the teacher's demo runs are nobody's learning
    _, export = learner(tmp_path, "ann", [(("fail", "pass"), CODE.format(1, "ann"))], instructor_runs=2)
    (e,) = build_report([export]).exercises
    assert e.learners == 1 and e.checks[0].reasons == (("type", 1),) and e.reached_pass == 0


def test_files_without_an_id_in_two_folders_are_two_learners(klass, tmp_path):
    """Two hand-ins named results.json, in a folder each, were merged into one learner 'file:results.json'."""
    folder, ids = klass
    data = json.loads(next(folder.glob("*.json")).read_text())
    data.pop("learner", None)
    for who in ("eve", "fay"):
        (folder / who).mkdir()
        (folder / who / "results.json").write_text(json.dumps(data))
    (folder / "solo.json").write_text(json.dumps(data))
    report = build_report([folder])
    anonymous = sorted(name for name in report.learners if name.startswith("file:"))
    assert anonymous == ["file:eve/results.json", "file:fay/results.json", "file:solo.json"]
    assert len(report.learners) == len(ids) + 3
def download(folder: Path, name: str, learner: str, checks: int, record: str = "FA-1") -> Path:
    """A panel download with one run of `checks` checks, every one failing with a type difference."""
    observations = [{"index": i, "check": f"check {i}", "status": "fail", "passed": False, "actual": [1], "expected": [1],
                     "actual_repr": "[1]", "expected_repr": "(1,)"} for i in range(checks)]
    data = {"record": record, "learner": learner, "checked_at": "20261201-100000", "solve": "def solve(): pass",
            "runs": [{"variant": 1, "observations": observations}]}
    path = folder / name
    path.write_text(json.dumps(data))
    return path


def test_the_html_page_of_a_huge_hand_in_is_bounded_and_says_what_it_left_out(tmp_path):
    from failuremap_edu.instructor.render._report import heatmap_figure, report_page

    path = download(tmp_path, "big.json", "0123456789abcdef", 20_000)
    assert path.stat().st_size > 1_400_000  # the size of the hand-in that took 444 s and 11.9 GB
    report = build_report([path])
    assert len(report.exercises[0].checks) == 20_000  # the data keeps every check (and --json shows them)
    figure = heatmap_figure(report)
    (ax,) = figure.axes
    width, height = figure.get_size_inches()
    assert width * height < 400  # square inches: a bounded image, whatever is handed in
    from failuremap_edu.instructor.render._report import HEATMAP_CHECKS, TABLE_ROWS

    assert ax.images[0].get_array().shape == (HEATMAP_CHECKS, 1)
    page = report_page(report)
    assert len(page.encode("utf-8")) < 600_000
    assert f"The heatmap leaves out 19,880 of 20,000 checks; it draws at most {HEATMAP_CHECKS} checks" in page
    assert f"… {20_000 - TABLE_ROWS:,} more checks not listed here (the --json output has every check)" in page
    assert page.count("<tr><td class=n>") == TABLE_ROWS


def test_display_names_are_linear_in_the_length_of_learner_ids_and_bounded(tmp_path):
    from failuremap_edu.instructor.render._report import report_page, report_text
    from failuremap_edu.instructor._report import _display_names

    long = "a" * 400_000
    for name, tail in (("one.json", "1"), ("two.json", "2")):
        download(tmp_path, name, long + tail, 2)
    report = build_report([tmp_path])
    first, second = report.learners
    assert first != second and len(first) <= 24 and len(second) <= 24  # _report.MAX_NAME
    assert len(report_text(report)) < 2_000 and len(report_page(report)) < 60_000
    # The same names as growing the prefix two characters at a time would give.
    assert _display_names(["3f9a2c11", "3f9a2c22", "77aa00"]) == {"3f9a2c11": "3f9a2c11", "3f9a2c22": "3f9a2c22", "77aa00": "77aa00"}
    assert _display_names(["abcdef0123", "abcdefg999", "zzzzzzzzzz"]) == {"abcdef0123": "abcdef01", "abcdefg999": "abcdefg9", "zzzzzzzzzz": "zzzzzz"}
    assert _display_names(["abcdef", "abcdefgh"]) == {"abcdef": "abcdef", "abcdefgh": "abcdefgh"}


# ------------------------------------------------------------------ issue 22


def snapshot(folder: Path, name: str, learner: str, statuses: tuple[str, ...], record: str = "FA-1") -> Path:
    """A panel download (one run, a snapshot: how many runs it took is not in it)."""
    observations = [{"index": i, "check": LABELS[i], "status": s, "passed": s == "pass", "actual": ["a", "b"], "expected": ["a", "b"],
                     "actual_repr": "('a', 'b')" if s == "pass" else "['a', 'b']", "expected_repr": "('a', 'b')"} for i, s in enumerate(statuses)]
    data = {"record": record, "learner": learner, "checked_at": "20261201-100000", "solve": "def solve(x): pass",
            "runs": [{"variant": 1, "observations": observations}]}
    path = folder / name
    path.write_text(json.dumps(data))
    return path


def test_a_median_says_how_many_learners_it_covers(tmp_path, capsys):
    """ann passes at her 1st run, bob at his 2nd (logged: every run known); cy handed in only a panel snapshot."""
    learner(tmp_path, "ann", [(("pass", "pass"), CODE.format(1, "ann"))])
    learner(tmp_path, "bob", [(("fail", "fail"), CODE.format(2, "bob")), (("pass", "pass"), CODE.format(3, "bob"))])
    snapshot(tmp_path / "handed-in", "cy.json", "c" * 16, ("pass", "pass"))
    report = build_report([tmp_path / "handed-in"])
    (e,) = report.exercises
    assert (e.reached_pass, e.median_runs_to_pass, e.median_of) == (3, 1.5, 2)
    assert [(c.reached_pass, c.median_of) for c in e.checks] == [(3, 2), (3, 2)]
    assert main(["report", str(tmp_path / "handed-in")]) == 0
    out = capsys.readouterr().out
    assert "(median 1.5 runs, over 2 of those 3)" in out  # not "median 1.5 runs" as if it were the class's
    row = next(line for line in out.splitlines() if "keeps order" in line)
    assert "1.5 (2 of 3)" in row
    assert "covers K of the M learners who passed" in out and "snapshot" in out
    page = tmp_path / "r.html"
    assert main(["report", str(tmp_path / "handed-in"), "--html", str(page)]) == 0
    assert "1.5 (2 of 3)" in page.read_text() and "over 2 of those 3" in page.read_text()
    capsys.readouterr()
    learner(tmp_path, "dan", [(("pass", "pass"), CODE.format(4, "dan"))])
    (tmp_path / "handed-in" / "cy.json").unlink()
    assert main(["report", str(tmp_path / "handed-in")]) == 0
    out = capsys.readouterr().out
    assert "(median 1 run)" in out and "covers" not in out  # every learner counted: nothing to say


def workshop_folder(root: Path, ids: tuple[str, ...]) -> Path:
    """A learners' folder as `workshop` writes it: notebooks/ID.ipynb per exercise (and its start-here)."""
    notebooks = root / "ws" / "notebooks"
    (notebooks / "records").mkdir(parents=True)
    (notebooks / "00-start-here.ipynb").write_text("{}")
    for record_id in ids:
        (notebooks / f"{record_id}.ipynb").write_text("{}")
    return root / "ws"


def test_a_workshops_exercises_come_in_its_order_not_by_name(tmp_path, capsys):
    """The order `workshop` was given, as its README lists them (FA-900 first here), not alphabetical."""
    ws = workshop_folder(tmp_path, ("FA-1", "FA-100786", "FA-900"))
    (ws / "README.md").write_text("| [FA-900](notebooks/FA-900.ipynb) | x |\n| [FA-1](notebooks/FA-1.ipynb) | y |\n"
                                  "| [FA-100786](notebooks/FA-100786.ipynb) | z |\n")
    learner(tmp_path, "ann", [(("pass", "fail"), CODE.format(1, "ann"))])
    assert main(["report", str(tmp_path / "handed-in"), "--workshop", str(ws), "--json"]) == 0
    assert [e["record"] for e in json.loads(capsys.readouterr().out)["exercises"]] == ["FA-900", "FA-1", "FA-100786"]


def test_a_workshop_lists_every_exercise_started_or_not(tmp_path, capsys):
    ws = workshop_folder(tmp_path, ("FA-1", "FA-100786", "FA-900"))
    learner(tmp_path, "ann", [(("pass", "fail"), CODE.format(1, "ann"))])
    assert main(["report", str(tmp_path / "handed-in"), "--workshop", str(ws)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "Class report: 1 learner, 1 of 3 exercises started, from 1 file"
    assert "FA-100786: nobody started it" in out and "FA-900: nobody started it" in out
    assert main(["report", str(tmp_path / "handed-in"), "--workshop", str(ws), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [(e["record"], e["learners"]) for e in data["exercises"]] == [("FA-1", 1), ("FA-100786", 0), ("FA-900", 0)]
    page = tmp_path / "r.html"
    assert main(["report", str(tmp_path / "handed-in"), "--workshop", str(ws), "--html", str(page)]) == 0
    assert "1 of 3 exercises started" in page.read_text() and "FA-900: nobody started it" in page.read_text()
    capsys.readouterr()
    assert main(["report", str(tmp_path / "handed-in"), "--workshop", str(tmp_path / "nothing")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not a workshop folder" in err


def home(root: Path, name: str) -> Path:
    """Where a learner's notebook logs under their home (`_progress.progress_path` with HOME=root/name)."""
    return root / name / ".local" / "share" / "failuremap_edu" / "progress.jsonl"


def test_the_report_reads_progress_logs_and_every_home(tmp_path, capsys):
    homes = tmp_path / "home"
    for name, statuses in (("ann", ("pass", "pass")), ("bob", ("fail", "pass"))):
        log_run(run(statuses), CODE.format(1, name), home(homes, name))
    learner_id(home(homes, "eve"))  # a log with its id and not one run yet: a learner who has not started
    (homes / "cy").mkdir()  # no log at all
    (homes / "dan" / ".local" / "share" / "failuremap_edu").mkdir(parents=True)
    import os

    os.mkfifo(home(homes, "dan"))  # never waited on
    assert main(["report", str(home(homes, "ann"))]) == 0  # a log given by path: not "not JSON"
    assert "1 learner, 1 exercise" in capsys.readouterr().out
    assert main(["report", "--homes", str(homes / "*")]) == 2  # dan's FIFO is one problem; the rest is reported
    captured = capsys.readouterr()
    assert captured.err.count("\n") == 1 and "dan" in captured.err and "not a regular file" in captured.err
    out = captured.out.splitlines()
    assert out[0] == "Class report: 3 learners, 1 exercise, from 3 files (1 problem with them: see “left out”)"  # ann, bob, and eve who ran nothing yet
    assert out[1] == f"1 of 5 homes have no progress log (nothing run there yet): {homes / 'cy'}"
    assert next(line for line in out if line.startswith("FA-1: 2 learners")).startswith("FA-1: 2 learners ran it (2 runs); 1 reached every check passing (median 1 run); stuck: ")
    assert main(["report", "--homes", str(homes / "nobody-*")]) == 2
    assert "no folder matches it" in capsys.readouterr().err
    for name in ("ann", "bob", "eve"):
        home(homes, name).unlink()
    home(homes, "dan").unlink()
    assert main(["report", "--homes", str(homes / "*")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no progress log in any of the 5 homes" in err


def test_names_map_ids_for_the_instructor_only(tmp_path, capsys):
    ann, _ = learner(tmp_path, "ann", [(("pass", "pass"), CODE.format(1, "ann"))])
    bob, _ = learner(tmp_path, "bob", [(("fail", "fail"), CODE.format(2, "bob"))])
    names = tmp_path / "ids.csv"
    names.write_text(f"id,name\n{ann},Ann Lee\n{bob[:6]},Bob Ode\n{'f' * 16},Nobody Here\n")
    before = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file() and p != names}
    assert main(["report", str(tmp_path / "handed-in"), "--names", str(names)]) == 0
    out = capsys.readouterr().out
    assert f"stuck: Bob Ode ({bob[:6]})" in out and "--names: 1 id matches no learner" in out
    assert main(["report", str(tmp_path / "handed-in"), "--names", str(names), "--json"]) == 0
    assert sorted(x["name"] for x in json.loads(capsys.readouterr().out)["learners"]) == [f"Ann Lee ({ann[:6]})", f"Bob Ode ({bob[:6]})"]
    after = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file() and p != names}
    assert after == before and not any(b"Ann Lee" in data for data in after.values())  # in the output only
    for bad, why in (("id,name,extra\n", "line 1 has 3 fields"), (f"{ann[:5]},Ann\n", "at least 6 characters"),
                     (f"{ann},Ann\n{ann},Ann again\n", f"line 2 names {ann} twice"), (b"\xff\xfe\x00bad", "cannot read")):
        names.write_bytes(bad if isinstance(bad, bytes) else bad.encode())
        assert main(["report", str(tmp_path / "handed-in"), "--names", str(names)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and why in err, err


@pytest.mark.parametrize("name", ["Ann", "Annabel Leonora Featherstonehaugh-Smythe of the Wolds"])
@pytest.mark.parametrize("records", [("FA-1",), ("FA-1", "FA-2", "FA-3")])
def test_the_heatmap_makes_room_for_long_names_without_a_layout_warning(tmp_path, capsys, name, records):
    """matplotlib's constrained-layout warning (attributed to matplotlib, so pytest's filter lets it by) went to stderr."""
    import warnings

    log = tmp_path / "ann.jsonl"
    for record in records:
        log_run(run(("fail", "pass"), record), CODE.format(1, "ann"), log)
    (tmp_path / "handed-in").mkdir()
    export_progress(tmp_path / "handed-in" / "ann.json", log)
    ann = learner_id(log)
    names = tmp_path / "ids.csv"
    names.write_text(f"id,name\n{ann},{name}\n")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert main(["report", str(tmp_path / "handed-in"), "--names", str(names), "--html", str(tmp_path / "r.html")]) == 0
    assert [str(w.message) for w in caught] == [] and capsys.readouterr().err == ""


def mistake(statuses, actual, record="FA-1") -> RunResult:
    observations = []
    for i, status in enumerate(statuses):
        error = ErrorInfo("Timeout", "slow") if status == "timeout" else None
        value = ("a", "b") if status == "pass" else actual if status == "fail" else None
        observations.append(Observation(i, LABELS[i], status, status == "pass", value, ("a", "b"), error=error))
    return RunResult(record, "yours", 1, tuple(observations), 2.0, "process")


ATTEMPT = RunResult("FA-100786", "attempt", 1, (Observation(0, LABELS[0], "pass", True, ("a", "b"), ("a", "b")),
                                                Observation(1, LABELS[1], "fail", False, ("a", ""), ("a", "b"))), 2.0, "process")
BROKEN = RunResult("FA-100786", "broken", 1, (Observation(0, LABELS[0], "fail", False, ("", ""), ("a", "b")),
                                              Observation(1, LABELS[1], "fail", False, ("", ""), ("a", "b"))), 2.0, "process")


def test_groups_of_the_same_mistake_are_named_after_attempt_or_broken(tmp_path, capsys):
    """Two return what the attempt returns, one lists instead of tuples, one loops, one passes; one fixed it later."""
    from failuremap_edu._records import load_record

    logs = tmp_path / "logs"
    plan = {
        "ann": [mistake(("pass", "fail"), ("a", ""), "FA-100786")],
        "bob": [mistake(("pass", "fail"), ("a", ""), "FA-100786")],
        "cy": [mistake(("pass", "fail"), ["a", "b"], "FA-100786")],
        "dan": [mistake(("pass", "timeout"), None, "FA-100786")],
        "eve": [mistake(("pass", "pass"), None, "FA-100786")],
        "fay": [mistake(("pass", "fail"), ("a", ""), "FA-100786"), mistake(("pass", "pass"), None, "FA-100786")],
    }
    for name, runs in plan.items():
        for r in runs:
            log_run(r, f"def solve(x):\n    return 'secret {name}'\n", logs / f"{name}.jsonl", replays=(BROKEN, ATTEMPT))
    report = build_report([logs])
    (e,) = report.exercises
    second = e.checks[1]
    assert [(g.kind, len(g.learners), g.stuck) for g in second.groups] == [("attempt", 3, 2), ("value", 1, 1), ("timeout", 1, 1)]
    assert second.groups[0].text == "return what the attempt returns (('a', ''))"
    assert second.groups[1].text == "return ['a', 'b'] (type)"  # equal groups: in the order of their text
    assert e.checks[0].groups == ()  # nobody failed it
    assert e.teaching["attempt"] == load_record("FA-100786").failed_approach
    assert main(["report", str(logs)]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    start = lines.index(f"  Check 2 ({LABELS[1]}), groups of learners who fail it the same way:")
    assert lines[start + 1].startswith("    3 learners return what the attempt returns (('a', '')), 2 of them still stuck: ")
    assert lines[start + 2].startswith("    1 learner returns ['a', 'b'] (type): ") and lines[start + 3].startswith("    1 learner times out: ")
    assert lines[start + 4] == "    Why the attempt fails: " + load_record("FA-100786").failed_approach
    assert "secret" not in out  # groups say what they return, never their code
    page = tmp_path / "r.html"
    assert main(["report", str(logs), "--html", str(page)]) == 0
    html = page.read_text()
    assert "3 learners return what the attempt returns ((&#x27;a&#x27;, &#x27;&#x27;)), 2 of them still stuck" in html
    assert html.index("3 learners return what") < html.index("1 learner returns [") < html.index("1 learner times out")
    assert "Why the attempt fails:" in html and "secret" not in html and "&lt;script&gt;" in html and "<script>" not in html
    assert main(["report", str(logs), "--with-code"]) == 0 and "secret ann" in capsys.readouterr().out


def test_groups_come_through_exports_and_downloads_and_wrong_ones_are_dropped(tmp_path):
    log = tmp_path / "ann.jsonl"
    log_run(mistake(("pass", "fail"), ("a", ""), "FA-100786"), "x = 1\n", log, replays=(BROKEN, ATTEMPT))
    export_progress(tmp_path / "in" / "ann.json" if (tmp_path / "in").mkdir() is None else None, log)
    data = {"record": "FA-100786", "learner": "b" * 16, "solve": "x = 2\n",
            "runs": [{"variant": 1, "observations": [{"index": 0, "check": LABELS[0], "status": "pass", "actual_repr": "('a', 'b')", "expected_repr": "('a', 'b')"},
                                                     {"index": 1, "check": LABELS[1], "status": "fail", "actual_repr": "('a', '')", "expected_repr": "('a', 'b')"}]}],
            "outcomes": [[None, {"status": "fail", "value": "0" * 16, "repr": "('a', '')", "same_as": ["attempt"]}]]}
    (tmp_path / "in" / "bob.json").write_text(json.dumps(data))
    data["learner"], data["outcomes"] = "c" * 16, [[None, {"status": "fail", "value": ["not", "a", "string"], "same_as": "attempt"}]]
    (tmp_path / "in" / "cy.json").write_text(json.dumps(data))
    (e,) = build_report([tmp_path / "in"]).exercises
    assert [(g.kind, len(g.learners)) for g in e.checks[1].groups] == [("attempt", 2), ("reason", 1)]  # cy's outcome had the wrong shape


@pytest.mark.parametrize(
    "data, where",
    [
        ({"attempts": [{"record": "FA-100786", "statuses": ["pass", "maybe"]}]}, "at attempts/0/statuses/1: 'maybe' is not one of"),
        ({"attempts": [{"record": "FA-100786", "variant": True, "statuses": ["pass"]}]}, "at attempts/0/variant: True is not of type"),
        ({"attempts": [{"record": "", "statuses": []}]}, "at attempts/0/record:"),
        ({"attempts": [{"record": "FA-100786"}]}, "at attempts/0:"),
        ({"record": "FA-100786", "runs": [{"observations": [{"check": 3, "status": "pass"}]}]}, "at runs/0/observations/0/check: 3 is not of type"),
        ({"record": "FA-100786", "runs": "all"}, "at runs: 'all' is not of type 'array'"),
    ],
)
def test_a_handin_of_the_wrong_shape_is_one_line_naming_where(tmp_path, data, where):
    """Validated against the formats' JSON Schemas: the line says where the file is wrong, not only that it is."""
    from failuremap_edu.instructor._report import read_results

    path = tmp_path / "handin.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ValueError) as info:
        read_results(path)
    assert where in str(info.value) and "\n" not in str(info.value)


def test_the_handin_schemas_accept_what_the_panel_and_export_write(klass):
    """Every file the class fixture handed in (real downloads and exports) is valid against the schemas."""
    import jsonschema

    from failuremap_edu.instructor._report import HANDIN_SCHEMAS

    folder, _ = klass
    files = sorted(Path(folder).rglob("*.json"))
    assert files
    for path in files:
        data = json.loads(path.read_text())
        kind = "export" if "attempts" in data else "download"
        jsonschema.validate(data, HANDIN_SCHEMAS[kind])


def test_what_the_instructors_hub_trial_found_in_the_report(klass, tmp_path, capsys):
    """One learner 'returns' (not 'return'), 'median 1 run', the live view names who is stuck, a names file's every
    bad line at once, and a page with real names says so."""
    from failuremap_edu.instructor.render._report import _agree, report_page, watch_text

    assert _agree(1, "return ['a'] (type)") == "returns ['a'] (type)" and _agree(2, "return x") == "return x"
    assert _agree(1, "time out") == "times out" and _agree(1, "what the attempt returns") == "what the attempt returns"
    folder, ids = klass
    live = watch_text(build_report([folder]))
    assert f"stuck: {ids['dan']}" in live and " of 4 pass" in live
    bad = tmp_path / "names.csv"
    bad.write_text("just-one-field\nabc,Too Short\n")
    assert main(["report", str(folder), "--names", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "line 1 has 1 fields" in err and "line 2 needs an id of at least 6 characters" in err
    names = tmp_path / "ok.csv"
    names.write_text(f"{ids['dan']},Dan Doe\n")
    page = report_page(build_report([folder], names=read_names(names)))
    assert "this page holds real names, keep it to yourself" in page and "Dan Doe" in page  # dan is stuck: named in the tables
    assert "keep it to yourself" not in report_page(build_report([folder]))


def test_the_report_counts_and_names_the_lines_it_skipped_in_text_html_and_json(tmp_path, capsys):
    from failuremap_edu.instructor.render._report import report_page

    log = tmp_path / "ann.jsonl"
    for i in range(4):
        log_run(run(("pass", "fail")), CODE.format(i, "ann"), log)
    good = log.read_text().splitlines()[-1]
    with open(log, "a", encoding="utf-8") as fh:  # 9 runs, 5 of them malformed
        for bad in ("{not json", json.dumps({**json.loads(good), "passed": 7}), "[1, 2", json.dumps({"record": 3})):
            fh.write(bad + "\n")
        fh.write(good[:30])  # the last one torn
    report = build_report([log])
    assert sum(e.runs for e in report.exercises) == 4
    assert report.problems == (f"{log}: 5 unreadable lines skipped (4 runs read): line 6 (not JSON), line 7 (not a run), line 8 (not JSON), "
                               "line 9 (not a run), line 10 (cut short)",)
    assert report.to_json()["problems"] == list(report.problems)
    assert "line 10 (cut short)" in report_page(report)
    assert main(["report", str(log)]) == 2
    out, err = capsys.readouterr()
    assert err.startswith("failuremap-edu: left out of the report: ") and "5 unreadable lines skipped" in err
    assert "from 1 file (1 problem with them: see “left out”)" in out.splitlines()[0]
    assert out.splitlines()[-1] == f"  {report.problems[0]}"  # the text report lists it too, at its end
    export_progress(tmp_path / "ann.json", log)  # an export says how many lines its log lost
    assert build_report([tmp_path / "ann.json"]).problems == (
        f"{tmp_path / 'ann.json'}: the learner's progress log had 5 unreadable lines, left out of this export",)


def test_an_unconfirmed_verdict_is_never_a_pass_in_the_report(tmp_path):
    """From a log (status ``unconfirmed``) and from a download from before that status (``pass`` with the note)."""
    log = tmp_path / "ann.jsonl"
    log_run(run(("pass", "unconfirmed")), CODE.format(1, "ann"), log)
    (tmp_path / "in").mkdir()
    export_progress(tmp_path / "in" / "ann.json", log)
    note = "the verdict could not be confirmed: the check process reported pass, but the values it sent back are not equal"
    data = {"record": "FA-1", "learner": "b" * 16, "solve": "x = 2\n",
            "runs": [{"variant": 1, "observations": [{"index": 0, "check": LABELS[0], "status": "pass", "verdict_note": None},
                                                     {"index": 1, "check": LABELS[1], "status": "pass", "verdict_note": note}]}]}
    (tmp_path / "in" / "bob.json").write_text(json.dumps(data))
    (e,) = build_report([tmp_path / "in"]).exercises
    assert e.learners == 2 and e.reached_pass == 0 and len(e.stuck) == 2
    assert e.checks[0].reached_pass == 2 and e.checks[1].reached_pass == 0
    assert [(g.kind, len(g.learners)) for g in e.checks[1].groups] == [("unconfirmed", 2)]


@pytest.mark.parametrize("learners, records", [(1, ("FA-1",)), (40, ("FA-1", "FA-2", "FA-3"))])
def test_the_heatmap_is_placed_without_a_layout_pass_and_every_label_fits_inside_it(tmp_path, learners, records):
    """A layout engine lays every label out once more before the draw (a third of a 100-learner page's time): the axes
    are placed from the labels' lengths, and what is drawn still lies inside the figure, clear of the other heatmaps."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    from failuremap_edu.instructor.render._report import heatmap_figure

    paths = [download(tmp_path, f"l{n}-{r}.json", f"{n:016x}", 5, record=r) for n in range(learners) for r in records]
    figure = heatmap_figure(build_report(paths))
    assert figure.get_layout_engine() is None
    canvas = FigureCanvasAgg(figure)
    canvas.draw()  # the legend places its texts when drawn
    renderer, whole = canvas.get_renderer(), figure.bbox
    texts = [t for ax in figure.axes for t in (*ax.get_yticklabels(), *ax.get_xticklabels(), ax.title)] + list(figure.legends[0].get_texts())
    assert len(texts) >= len(records) * 5 + learners
    for text in texts:
        box = text.get_window_extent(renderer)
        assert whole.x0 <= box.x0 and box.x1 <= whole.x1 and whole.y0 <= box.y0 and box.y1 <= whole.y1, text.get_text()
    for upper, lower in zip(figure.axes, figure.axes[1:]):  # a title clears the heatmap above it
        assert lower.title.get_window_extent(renderer).y1 <= upper.get_window_extent(renderer).y0
    names = [t.get_window_extent(renderer) for t in figure.axes[-1].get_xticklabels()]
    assert min(b.y0 for b in names) >= figure.legends[0].get_window_extent(renderer).y1  # the names clear the legend
