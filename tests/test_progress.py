"""The progress log: one line per run, a pseudonymous learner id, exports an instructor can collect."""

from __future__ import annotations

import dataclasses
import json
import multiprocessing
import os
import re
from pathlib import Path

import pytest

from conftest import reference_solve
from failuremap_edu import Exercise
from failuremap_edu._progress import (
    export_progress,
    failure_reason,
    file_tag,
    learner_id,
    log_run,
    progress_path,
    read_progress,
    read_progress_lines,
)
from failuremap_edu._results import ErrorInfo, Observation, RunResult
from failuremap_edu._values import Opaque

reference = reference_solve("FA-100786")
PASSING = "def solve(text, stops):\n    return 'passing'\n"
LOOPING = "def solve(text, stops):\n    while True:\n        pass\n"


@pytest.fixture
def exercise():
    return Exercise("FA-100786", timeout=0.5)


def run_result(statuses: list[str], record: str = "FA-100786") -> RunResult:
    observations = []
    for i, status in enumerate(statuses):
        error = ErrorInfo("Timeout", "took longer than 0.5 s") if status == "timeout" else ErrorInfo("KeyError", "'x'") if status == "error" else None
        expected, actual = ("a", "b"), (["a", "b"] if status == "fail" else ("a", "b") if status == "pass" else None)
        observations.append(Observation(i, f"check {i}", status, status == "pass", actual, expected, error=error))
    return RunResult(record, "yours", 1, tuple(observations), 0.5, "process")


def test_progress_is_logged_and_read_back(exercise):
    from failuremap_edu import progress_overview

    exercise.check(reference)
    lines = open(os.environ["FAILUREMAP_PROGRESS"], encoding="utf-8").read().splitlines()
    entry = json.loads(lines[-1])
    assert (entry["record"], entry["variant"], entry["passed"], entry["total"]) == ("FA-100786", 1, 6, 6)
    assert entry["statuses"] == ["pass"] * 6 and len(entry["solve_sha256"]) == 64
    assert entry["checks"][0] == "partial marker held" and entry["reasons"] == [None] * 6
    assert entry["learner"] == learner_id() and "instructor" not in entry
    with open(os.environ["FAILUREMAP_PROGRESS"], "a", encoding="utf-8") as fh:
        fh.write("{not json\n")
    overview = progress_overview()
    assert "FA-100786    ✓ all pass 6/6 (N=1)" in repr(overview)
    assert "1 unreadable line" in repr(overview)  # the learner-id line is not one


def test_the_overview_lists_every_exercise_run_here_says_since_when_and_skips_demo_runs(tmp_path):
    from failuremap_edu import progress_overview

    log = tmp_path / "progress.jsonl"
    assert progress_overview(path=log).since() == f"Runs saved in {log}: none yet"
    log_run(run_result(["pass", "fail"], "TR-000101"), "def solve(): pass", log, title="Top-k counts")  # a record of one's own: no packaged title
    log_run(run_result(["pass"] * 6, "FA-100061"), "def solve(): pass", log, instructor=True)
    overview = progress_overview(path=log)
    rows = {record_id: (title, latest, runs) for record_id, title, latest, runs in overview.rows}
    assert rows["TR-000101"] == ("Top-k counts", "✗ 1/2 (N=1)", 1)
    assert rows["FA-100061"][1:] == ("not started", 0)  # the instructor's demo is not their progress
    log_run(run_result(["pass", "pass"], "TR-000101"), "def solve(): pass", log, title="Top-k counts")
    log_run(run_result(["pass", "timeout"], "TR-000101"), "def solve(): pass", log, title="Top-k counts")
    latest = {record_id: latest for record_id, _, latest, _ in progress_overview(path=log).rows}
    assert latest["TR-000101"] == "✗ 1/2 (N=1), all passed before"  # solved once: a later loop does not hide it
    first = json.loads(log.read_text().splitlines()[1])["time"]
    assert repr(overview).splitlines()[0] == f"Runs saved in {log} since {first[:16].replace('T', ' ')}"
    assert "TR-000101" in overview._repr_html_() and "since" in overview._repr_html_()


def test_an_unwritable_progress_log_is_said_at_every_run_beside_the_result_never_instead(exercise, monkeypatch, tmp_path):
    from failuremap_edu._panel import log_note_html, status_line

    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("FAILUREMAP_PROGRESS", str(blocker / "progress.jsonl"))
    for _ in range(2):  # every run that is not saved says so (the second too)
        exercise.check(reference)
        assert exercise.message == "" and exercise.summary() == "6/6 checks pass"  # the headline stays
        assert exercise.log_note.startswith("progress is not being saved: cannot write")
        assert "%env FAILUREMAP_PROGRESS=" in exercise.log_note  # how to save the next runs from a notebook
        lines = exercise.text().splitlines()
        assert lines[1] == "6/6 checks pass" and f"  {exercise.log_note}" in lines[2:4]  # its own line
        assert '<span class="fm-mark">✓</span>' in status_line(exercise) and "fm-log-note" in log_note_html(exercise)
    assert re.fullmatch(r"[0-9a-f]{16}", learner_id()) and learner_id() == learner_id()  # this process's id, still
    monkeypatch.setenv("FAILUREMAP_PROGRESS", str(tmp_path / "progress.jsonl"))
    exercise.check(reference)
    assert exercise.log_note == "" and log_note_html(exercise) == ""  # saved again: nothing to say


def test_a_full_disk_mid_append_is_said_at_that_run_and_the_next_run_is_not_glued_to_the_torn_line(small_disk):
    log = small_disk.root / "progress.jsonl"
    for _ in range(3):
        assert log_run(run_result(["pass", "fail"]), PASSING, log) is None
    small_disk.fill(free=8192)
    big = "def solve(text, stops):\n    return 'passing'\n" + "# a long comment\n" * 2_000  # more than the room left
    message = log_run(run_result(["pass", "pass"]), big, log)
    assert message is not None and message.startswith(f"progress is not being saved: cannot write {log}")
    assert not log.read_bytes().endswith(b"\n")  # torn: part of the line is on the disk
    small_disk.empty()
    assert log_run(run_result(["fail", "fail"]), PASSING, log) is None
    entries, skipped = read_progress_lines(log)
    assert [e["passed"] for e in entries] == [1, 1, 1, 0]  # the run after the torn line is readable
    assert skipped == [(5, "not JSON")]  # the torn line: counted, never silently


def test_a_torn_last_line_costs_only_itself(tmp_path):
    log = tmp_path / "progress.jsonl"
    log_run(run_result(["pass", "fail"]), PASSING, log)
    whole = log.read_bytes()
    with open(log, "ab") as fh:
        fh.write(whole.splitlines(keepends=True)[-1][:40])  # a writer killed mid-line (no newline)
    assert read_progress_lines(log)[1] == [(3, "cut short")]
    log_run(run_result(["pass", "pass"]), PASSING, log)
    log_run(run_result(["fail", "fail"]), PASSING, log)
    entries, skipped = read_progress_lines(log)
    assert [e["passed"] for e in entries] == [1, 2, 0] and skipped == [(3, "not JSON")]
    assert read_progress(log) == (entries, 1)


def test_a_log_is_born_with_a_pseudonymous_learner_id(tmp_path):
    log = tmp_path / "deep" / "progress.jsonl"
    assert not log.exists()
    log_run(run_result(["pass", "fail"]), PASSING, log)
    header, entry = [json.loads(line) for line in log.read_text().splitlines()]
    assert set(header) == {"learner", "created", "log"} and re.fullmatch(r"[0-9a-f]{16}", header["learner"])
    assert entry["learner"] == header["learner"] == learner_id(log)
    assert read_progress(log) == ([entry], 0)
    other = tmp_path / "other.jsonl"
    assert learner_id(other) != learner_id(log)  # random, not derived from the machine or the user
    assert re.fullmatch(rf"{header['learner'][:6]}-\d{{8}}-\d{{6}}", file_tag(log))


def test_a_log_from_before_ids_gets_one_and_keeps_its_entries(tmp_path):
    log = tmp_path / "old.jsonl"
    old = {"record": "FA-100786", "variant": 1, "passed": 4, "total": 6, "statuses": ["pass"] * 4 + ["fail"] * 2, "time": "2026-01-01T10:00:00+0000"}
    log.write_text(json.dumps(old) + "\n")
    first = learner_id(log)
    assert learner_id(log) == first and read_progress(log) == ([old], 0)
    log.unlink()  # a new log at the same place is a new learner
    assert learner_id(log) != first


def _no_links(*args, **kwargs):
    raise PermissionError(1, "Operation not permitted")


@pytest.mark.parametrize("links", ["refused", "missing"])
def test_without_hard_links_the_log_still_gets_one_id(tmp_path, monkeypatch, links):
    if links == "missing":
        monkeypatch.delattr(os, "link")  # Pyodide, where JupyterLite runs, has no os.link
    else:
        monkeypatch.setattr(os, "link", _no_links)  # a file system without hard links
    log = tmp_path / "drive" / "progress.jsonl"
    first = learner_id(log)
    log_run(run_result(["pass"]), PASSING, log)
    assert learner_id(log) == first and json.loads(log.read_text().splitlines()[0])["learner"] == first
    assert sum(1 for line in log.read_text().splitlines() if '"created"' in line) == 1 and not list(log.parent.glob(".*"))


def _race(path: str, barrier, queue) -> None:
    barrier.wait()
    queue.put(learner_id(Path(path)))


def test_processes_creating_the_log_at_once_agree_on_one_id(tmp_path):
    ctx = multiprocessing.get_context("fork")
    path = tmp_path / "new" / "progress.jsonl"
    barrier, queue = ctx.Barrier(6), ctx.Queue()
    workers = [ctx.Process(target=_race, args=(str(path), barrier, queue)) for _ in range(6)]
    for w in workers:
        w.start()
    ids = {queue.get(timeout=60) for _ in workers}
    for w in workers:
        w.join(60)
    assert len(ids) == 1 and ids == {learner_id(path)}
    assert sum(1 for line in path.read_text().splitlines() if '"learner"' in line) == 1


def test_concurrent_writers_never_interleave(tmp_path):
    path = tmp_path / "shared.jsonl"
    ctx = multiprocessing.get_context("fork")
    workers = [ctx.Process(target=_log_many, args=(str(path), i)) for i in range(4)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(60)
    entries, skipped = read_progress(path)
    assert skipped == 0 and len(entries) == 4 * 50


def _log_many(path: str, worker: int) -> None:
    result = RunResult(f"W-{worker}", "yours", 1, (Observation(0, "x" * 500, "pass", True),), 2.0, "process")
    for _ in range(50):
        log_run(result, "def solve():\n    pass\n" * 20, Path(path))


def test_failure_reasons_are_the_diff_kind_or_the_error_type():
    assert failure_reason("pass", 1, 1) is None
    assert failure_reason("fail", ("a", "b"), ["a", "b"]) == "type"
    assert failure_reason("fail", "hello", "help") == "text"
    assert failure_reason("fail", [1, 2], None) == "none"
    assert failure_reason("fail", 1, Opaque("generator", "<generator>", "not plain data")) in ("type", "opaque")
    assert failure_reason("error", error_type="ZeroDivisionError") == "ZeroDivisionError"
    assert failure_reason("timeout", error_type="Timeout") == "Timeout"
    assert failure_reason("error") == "error"


def test_instructor_runs_carry_a_marker(tmp_path):
    log = tmp_path / "p.jsonl"
    log_run(run_result(["pass"]), PASSING, log, instructor=True)
    log_run(run_result(["pass"]), PASSING, log)
    entries, _ = read_progress(log)
    assert [e.get("instructor") for e in entries] == [True, None]
    data = export_progress(tmp_path / "x.json", log)
    assert [a.get("instructor") for a in data["attempts"]] == [True, None]


def test_export_keeps_every_distinct_solve_and_labels_each_status(tmp_path):
    log = tmp_path / "p.jsonl"
    log_run(run_result(["fail", "error"]), "def solve(text, stops):\n    return 1\n", log)
    log_run(run_result(["pass", "pass"]), PASSING, log)
    log_run(run_result(["pass", "pass"]), PASSING, log)
    log_run(run_result(["timeout", "timeout"]), LOOPING, log)  # the last run looped: the passing code must survive
    data = export_progress(tmp_path / "out.json", log)
    assert data == json.loads((tmp_path / "out.json").read_text())
    assert data["learner"] == learner_id(log) and data["format"] == "failuremap_edu export 2"
    assert sorted(data["sources"].values()) == sorted(["def solve(text, stops):\n    return 1\n", PASSING, LOOPING])
    for sha, source in data["sources"].items():
        assert sha == __import__("hashlib").sha256(source.encode()).hexdigest()
    latest = data["latest"]["FA-100786"]
    assert latest["solve_source"] == LOOPING and data["sources"][latest["last_passing_sha256"]] == PASSING
    first = [{k: v for k, v in c.items() if k != "outcome"} for c in data["attempts"][0]["checks"]]
    assert first == [
        {"check": "check 0", "status": "fail", "reason": "type"},
        {"check": "check 1", "status": "error", "reason": "KeyError"},
    ]
    assert data["attempts"][0]["checks"][1]["outcome"] == {"status": "error", "value": None, "repr": "KeyError", "same_as": []}
    assert "outcome" not in data["attempts"][1]["checks"][0]  # a pass has none
    assert {k: v for k, v in data["attempts"][3]["checks"][1].items() if k != "outcome"} == {"check": "check 1", "status": "timeout", "reason": "Timeout"}
    assert "solve_source" not in data["attempts"][0] and "statuses" not in data["attempts"][0]


def test_a_relative_progress_path_gives_each_notebook_folder_a_log_of_its_own(tmp_path, monkeypatch):
    """On a shared home every learner's export held the others' runs: a relative FAILUREMAP_PROGRESS is per folder."""
    monkeypatch.setenv("FAILUREMAP_PROGRESS", "failuremap-progress.jsonl")
    for name in ("ann", "bob"):
        (tmp_path / name).mkdir()
        monkeypatch.chdir(tmp_path / name)  # a kernel's working directory is its notebook's folder
        assert progress_path() == tmp_path / name / "failuremap-progress.jsonl"
        Exercise("FA-100786").check(reference)
    monkeypatch.chdir(tmp_path / "ann")
    assert [e["record"] for e in read_progress()[0]] == ["FA-100786"]  # bob's run is in bob's folder only
    assert (tmp_path / "bob" / "failuremap-progress.jsonl").is_file()


def test_cli_export_names_the_file_after_the_learner_and_the_time(tmp_path, capsys, monkeypatch):
    from failuremap_edu.instructor._cli import main

    exercise = Exercise("FA-100786")
    exercise.check(lambda text, stops: (text, ""))
    exercise.check(reference)
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    assert main(["export"]) == 0
    out = capsys.readouterr().out
    written = list(tmp_path.glob("failuremap-export-*.json"))
    assert len(written) == 1 and re.fullmatch(rf"failuremap-export-{learner_id()[:6]}-\d{{8}}-\d{{6}}\.json", written[0].name)
    assert out.startswith(f"from the progress log {progress_path()}: {written[0].name}: 2 runs, 2 distinct solves, latest of 1 exercises (learner {learner_id()[:6]}")
    data = json.loads(written[0].read_text())
    assert [a["passed"] for a in data["attempts"]] == [4, 6]
    assert "def solve(text, stops):" in data["latest"]["FA-100786"]["solve_source"]
    assert main(["export", "--out", str(tmp_path / "mine.json")]) == 0 and (tmp_path / "mine.json").is_file()


def test_export_of_a_log_from_before_labels(tmp_path):
    log = tmp_path / "old.jsonl"
    old = {"record": "FA-100786", "variant": 1, "passed": 1, "total": 2, "statuses": ["pass", "fail"], "time": "t",
           "solve_sha256": "ab" * 32, "solve_source": PASSING}
    log.write_text(json.dumps(old) + "\n")
    data = export_progress(tmp_path / "x.json", log)
    assert data["attempts"][0]["checks"] == [{"check": None, "status": "pass", "reason": None}, {"check": None, "status": "fail", "reason": None}]
    assert data["sources"] == {"ab" * 32: PASSING}


def test_an_export_names_no_home_folder(tmp_path, monkeypatch):
    """The export's "source" was /home/jdoe/.local/share/...: the learner's user name, in a hand-in."""
    home = tmp_path / "home" / "jdoe"
    (home / "course").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    monkeypatch.delenv("FAILUREMAP_PROGRESS", raising=False)
    monkeypatch.chdir(home / "course")  # the notebook folder
    log_run(run_result(["pass", "pass"]), PASSING)
    data = export_progress(home / "course" / "out.json")
    assert data["source"] == "~/.local/share/failuremap_edu/progress.jsonl"
    assert "jdoe" not in (home / "course" / "out.json").read_text()
    local = home / "course" / "progress.jsonl"  # a log inside the notebook folder: relative to it
    log_run(run_result(["pass", "pass"]), PASSING, local)
    assert export_progress(tmp_path / "x.json", local)["source"] == "progress.jsonl"
    elsewhere = tmp_path / "srv" / "jdoe" / "log.jsonl"  # outside both: the file name alone
    log_run(run_result(["pass", "pass"]), PASSING, elsewhere)
    assert export_progress(tmp_path / "y.json", elsewhere)["source"] == "log.jsonl"
def test_lone_surrogates_in_a_title_and_labels_are_logged_escaped(tmp_path):
    log = tmp_path / "progress.jsonl"
    result = run_result(["pass", "fail"])
    result = RunResult(result.record_id, "yours", 1, tuple(dataclasses.replace(o, check=f"{o.check} \ud800") for o in result.observations), 0.5, "process")
    assert log_run(result, "def solve():\n    return '\ud800'\n", log, title="bad \ud800 title") is None
    assert log_run(result, PASSING, log) is None  # and every later run too
    (entry, _), skipped = read_progress(log)
    assert skipped == 0 and entry["title"] == "bad \ud800 title" and entry["checks"] == ["check 0 \ud800", "check 1 \ud800"]
    assert "\\ud800" in log.read_text(encoding="utf-8")  # JSON's escape: the file is UTF-8


def test_lines_of_the_wrong_shape_are_skipped_as_unreadable(tmp_path):
    log = tmp_path / "progress.jsonl"
    log_run(run_result(["pass", "fail"]), PASSING, log)
    good = json.loads(log.read_text().splitlines()[-1])
    bad = [
        '{"record": "FA-100786", "passed": 1e999, "total": 1e999}',  # OverflowError in int()
        json.dumps({**good, "statuses": "pass"}),  # a string is not a list of statuses
        json.dumps({**good, "statuses": {"pass": 1, "fail": 1}}),
        json.dumps({**good, "passed": 2}),  # the counts disagree with the statuses
        json.dumps({**good, "passed": "1"}),
        json.dumps({**good, "total": True}),
        json.dumps({**good, "checks": "check 0"}),
        "[" * 100_000,  # nested too deeply
    ]
    with open(log, "a", encoding="utf-8") as fh:
        fh.write("\n".join(bad) + "\n")
    assert read_progress(log) == ([good], len(bad))
    data = export_progress(tmp_path / "x.json", log)
    assert len(data["attempts"]) == 1 and data["skipped_lines"] == len(bad)
    from failuremap_edu import progress_overview

    assert "FA-100786    ✗ 1/2 (N=1)" in repr(progress_overview(path=log))


def test_a_damaged_first_line_keeps_the_log_and_its_id_when_it_can_be_read(tmp_path):
    log = tmp_path / "progress.jsonl"
    log_run(run_result(["pass"]), PASSING, log)
    header, entry = log.read_text().splitlines()
    first = json.loads(header)["learner"]
    log.write_text(header[:40] + "\n" + entry + "\n")  # cut short after the id (a crash, a bad sync)
    assert learner_id(log) == first and log_run(run_result(["pass"]), PASSING, log) is None
    assert log.read_text().splitlines()[:2] == [header[:40], entry] and len(read_progress(log)[0]) == 2


def test_a_first_line_without_an_id_is_kept_a_new_id_is_appended_and_the_run_says_so(tmp_path):
    log = tmp_path / "progress.jsonl"
    log_run(run_result(["pass"]), PASSING, log)
    header, entry = log.read_text().splitlines()
    old = json.loads(header)["learner"]
    for damaged, why in ((header[:20], "not JSON"), ('{"learner": "../../etc"}', "not a valid learner id")):
        log.write_text(damaged + "\n" + entry + "\n")
        message = log_run(run_result(["fail"]), PASSING, log)
        new = learner_id(log)
        assert new != old and re.fullmatch(r"[0-9a-f]{16}", new)
        assert message == (
            f"the first line of {log} no longer holds a learner id ({why}); it is kept as it is, with every run in the log, "
            f"and a new learner id {new[:6]}… was added at the end: hand-ins from now on carry it"
        )
        lines = log.read_text().splitlines()
        assert lines[:2] == [damaged, entry] and json.loads(lines[2])["learner"] == new  # nothing lost
        assert log_run(run_result(["pass"]), PASSING, log) is None and learner_id(log) == new  # said once; the id stays
        assert [e["passed"] for e in read_progress(log)[0]] == [1, 0, 1]


def test_outcomes_name_the_implementation_whose_value_equals_yours_decided_on_values(tmp_path):
    from failuremap_edu._progress import OUTCOME_REPR, outcomes

    long = "x" * 500
    def one(value, solver="yours", status="fail"):
        return RunResult("FA-1", solver, 1, (Observation(0, "c", status, status == "pass", value, ("a", "b")),), 1.0, "process")

    attempt, broken = one(("a", ""), "attempt"), one(long + "1", "broken")
    (same,) = outcomes(one(("a", "")), (broken, attempt))
    assert same["same_as"] == ["attempt"] and same["repr"] == "('a', '')" and len(same["value"]) == 16
    assert outcomes(one(["a", ""]), (broken, attempt))[0]["same_as"] == []  # a list is not the attempt's tuple
    (near,) = outcomes(one(long + "2"), (broken, attempt))  # the same clipped text, another value
    assert near["same_as"] == [] and len(near["repr"]) <= OUTCOME_REPR and near["repr"] == outcomes(one(long + "1"))[0]["repr"]
    assert near["value"] != outcomes(one(long + "1"))[0]["value"]
    assert outcomes(one(long + "1"), (broken, attempt))[0]["same_as"] == ["broken"]
    assert outcomes(one(("a", "b"), status="pass"), (attempt,)) == [None]
    log = tmp_path / "p.jsonl"
    log_run(one(("a", "")), PASSING, log, replays=(broken, attempt))
    (entry,), _ = read_progress(log)
    assert entry["outcomes"] == [same]
    good = json.loads(log.read_text().splitlines()[-1])
    with open(log, "a", encoding="utf-8") as fh:
        for bad in ("yes", ["fail"], [{"status": "fail", "value": 3}], [{"status": "fail", "repr": "x" * 10_000}], [{"status": "odd"}],
                    [{"status": "fail", "same_as": "attempt"}]):
            fh.write(json.dumps({**good, "outcomes": bad}) + "\n")
    assert read_progress(log) == ([good], 6)  # wrong-shaped outcomes: the line is unreadable


def test_the_overview_has_an_export_everything_link(tmp_path):
    import base64
    import html

    from failuremap_edu import progress_overview
    from failuremap_edu._progress import export_data

    log = tmp_path / "progress.jsonl"
    assert "Export everything" not in progress_overview(path=log)._repr_html_()  # nothing to hand in yet
    assert not log.exists()  # and showing the overview made no log
    log_run(run_result(["pass", "fail"]), PASSING, log)
    page = progress_overview(path=log)._repr_html_()
    found = re.search(r'<a class="fm-download" download="(failuremap-export-[0-9a-f]{6}-\d{8}-\d{6}\.json)" href="data:application/json;charset=utf-8;base64,([^"]+)">⬇ Export everything', page)
    assert found and found.group(1).startswith(f"failuremap-export-{learner_id(log)[:6]}-")
    data = json.loads(base64.b64decode(html.unescape(found.group(2))))
    expected = export_data(log)
    assert {k: v for k, v in data.items() if k != "exported"} == {k: v for k, v in expected.items() if k != "exported"}
    assert len(data["attempts"]) == 1 and data["sources"] == {__import__("hashlib").sha256(PASSING.encode()).hexdigest(): PASSING}
def test_the_table_counts_runs_of_the_solve_cell_not_variants_times_reruns(tmp_path, monkeypatch):
    """A learner trial: 6 runs of the cell, all variants, some re-run with the button, showed as 22 runs."""
    from failuremap_edu import progress_overview

    log = tmp_path / "cells.jsonl"
    monkeypatch.setenv("FAILUREMAP_PROGRESS", str(log))
    e = Exercise("FA-100786", timeout=0.5, variant="all")
    e.check(reference)  # one run of the cell: five variants
    e.run()  # "Run checks again": the same run of the cell
    assert len(read_progress(log)[0]) == 10  # every variant's result is still logged
    runs = {record_id: n for record_id, _, _, n in progress_overview(path=log).rows}
    assert runs["FA-100786"] == 1
    e.check(reference)  # the cell again
    assert {record_id: n for record_id, _, _, n in progress_overview(path=log).rows}["FA-100786"] == 2
    log_run(run_result(["pass"] * 6), "def solve(): pass", log)  # a line from before run ids counts once
    assert {record_id: n for record_id, _, _, n in progress_overview(path=log).rows}["FA-100786"] == 3


def test_the_export_link_counts_runs_as_the_table_does(tmp_path):
    """'10 runs' beside a table saying 5: an all-variants run is one run of five results (lite trial)."""
    from failuremap_edu._progress import _runs_in

    attempts = [{"record": "A", "run": "r1"}] * 5 + [{"record": "A", "run": "r2"}]
    assert _runs_in(attempts) == "2 runs of the exercise cell, 6 results (each variant checked and each re-run is one)"
    assert _runs_in([{"record": "A"}, {"record": "A"}]) == "2 runs"


def test_an_all_variants_run_shows_its_whole_result_in_the_table(tmp_path):
    """'latest run 6/6 (N=5)' stood beside a run of all five variants, 30/30 (lite issue)."""
    from failuremap_edu import load_record, progress_overview, run_checks
    from failuremap_edu._progress import log_run

    from conftest import reference_solve

    log = tmp_path / "p.jsonl"
    record = load_record("FA-100061")
    for variant in range(1, 6):
        log_run(run_checks(record, reference_solve("FA-100061"), variant), "def solve(): pass", log, run="cell-1")
    row = next(r for r in progress_overview(["FA-100061"], path=log).rows if r[0] == "FA-100061")
    assert row[2] == "✓ all pass 30/30 (5 variants)" and row[3] == 1


def test_an_instructor_demo_creates_no_progress_log(tmp_path, monkeypatch):
    from failuremap_edu import Exercise

    from conftest import reference_solve

    monkeypatch.setenv("FAILUREMAP_PROGRESS", str(tmp_path / "instructor-progress.jsonl"))
    demo = Exercise("FA-100786", log_progress=False, presenter=True)
    import contextlib
    import io

    with contextlib.redirect_stdout(io.StringIO()):
        demo.check(reference_solve("FA-100786"))
    assert all("-demo-" in name for name in demo.export_files())
    assert not (tmp_path / "instructor-progress.jsonl").exists()


def test_a_run_cut_short_by_the_writer_is_said_not_saved_and_the_next_run_is_whole(tmp_path):
    """A file-size limit stops the write partway (as a full disk or a kill mid-append does): the count is checked."""
    import subprocess
    import sys

    log = tmp_path / "progress.jsonl"
    log_run(run_result(["pass", "fail"]), PASSING, log)
    code = (
        "import resource, sys\n"
        "from pathlib import Path\n"
        "from test_progress import run_result\n"
        "from failuremap_edu._progress import log_run\n"
        f"log = Path({str(log)!r})\n"
        "limit = log.stat().st_size + 100\n"
        "resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))\n"
        "print(log_run(run_result(['pass', 'pass']), 'def solve(text, stops):\\n' + '#' * 5000, log))\n"
    )
    tests = Path(__file__).resolve().parent
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tests.parent), str(tests)])}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"progress is not being saved: cannot write {log}")  # said at that run, not a run later
    assert log_run(run_result(["fail", "fail"]), PASSING, log) is None
    entries, skipped = read_progress_lines(log)
    assert [e["passed"] for e in entries] == [1, 0] and skipped == [(3, "not JSON")]


def _forges_its_verdict(text, stops):
    """Replaces the record's harness with one that passes everything, then returns a wrong answer."""
    import sys

    frame = sys._getframe(1)
    while frame is not None and "observations" not in frame.f_globals:
        frame = frame.f_back
    g = frame.f_globals

    def check(label, actual, expected):
        g["observations"].append({"check": label, "actual": actual, "expected": expected, "passed": True})

    g["check"] = check
    return "not it", ""


def test_an_unconfirmed_verdict_is_logged_as_not_passed(exercise):
    from failuremap_edu import progress_overview

    exercise.check(_forges_its_verdict)
    entry = read_progress()[0][-1]  # read back: a valid entry
    assert (entry["passed"], entry["total"]) == (0, 6)
    assert entry["statuses"] == ["unconfirmed"] * 6 and entry["reasons"] == ["unconfirmed"] * 6
    assert "FA-100786    ✗ 0/6 (N=1)" in repr(progress_overview())


def _logged(passed: int, variant: int, run: str | None, record: str = "A", total: int = 7) -> dict:
    entry = {"record": record, "passed": passed, "total": total, "variant": variant}
    return entry | ({"run": run} if run else {})


def test_cell_runs_keep_the_latest_result_per_variant_and_rechecks_never_add():
    from failuremap_edu._progress import cell_runs

    all_variants = [_logged(7, v, "r1") for v in range(1, 6)]
    untick = [_logged(7, 1, "r1")]  # the same solve re-checked on N=1 alone, then on all variants again
    entries = [_logged(2, 1, "r0"), *all_variants, *untick, *[_logged(7, v, "r1") for v in range(1, 6)], _logged(3, 1, None)]
    runs = cell_runs(entries)
    assert [record for record, _ in runs] == ["A", "A", "A"]
    assert [sorted(e["variant"] for e in results) for _, results in runs] == [[1], [1, 2, 3, 4, 5], [1]]
    assert sum(e["passed"] for e in runs[1][1]) == 35


def test_rechecks_of_one_run_are_not_added_up_in_the_table(tmp_path):
    """Ticking and unticking 'all variants' re-checks the same solve: the table says 35/35 (5 variants), not 77/77 (11 variants)."""
    from failuremap_edu import load_record, progress_overview, run_checks
    from failuremap_edu._progress import log_run

    from conftest import reference_solve

    log = tmp_path / "p.jsonl"
    record, solve = load_record("FA-100061"), reference_solve("FA-100061")
    results = {v: run_checks(record, solve, v) for v in range(1, 6)}
    for variant in [1, 2, 3, 4, 5, 1, 1, 2, 3, 4, 5]:  # all variants, unticked (N=1), ticked again: one run of the cell
        log_run(results[variant], "def solve(): pass", log, run="cell-1")
    row = next(r for r in progress_overview(["FA-100061"], path=log).rows if r[0] == "FA-100061")
    assert row[2] == "✓ all pass 30/30 (5 variants)" and row[3] == 1


def test_the_progress_chart_has_one_point_per_run_of_the_cell():
    from matplotlib.figure import Figure

    from failuremap_edu import plot_progress

    entries = [_logged(2, 1, "r0"), *[_logged(7, v, "r1") for v in range(1, 6)], _logged(7, 1, "r1"), _logged(0, 1, None)]
    ax = plot_progress(entries, Figure().add_subplot())
    assert [[round(float(y)) for y in line.get_ydata()] for line in ax.get_lines()] == [[29, 100, 0]]
    assert ax.get_xlabel() == "run of the exercise cell"
