"""Who needs help: the need metrics on generated logs, their order, and how report shows them (text, JSON, CSV, live page)."""

from __future__ import annotations

import csv
import io
import json
from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import given, settings, strategies as st

from failuremap_edu.instructor._cli import main
from failuremap_edu.instructor._need import Need, by_need, need_of, pseudonym
from failuremap_edu.instructor._report import Run, build_report

T0 = datetime(2026, 12, 1, 10, 0, tzinfo=timezone.utc)


def stamp(minutes: float) -> str:
    return (T0 + timedelta(minutes=minutes)).strftime("%Y-%m-%dT%H:%M:%S%z")


def line(record: str, passed: int, total: int, minute: float, *, same_as=(), timeout=False, cell=None, hub_user=None) -> dict:
    statuses = ["pass"] * passed + (["timeout"] if timeout and passed < total else [])
    statuses += ["fail"] * (total - len(statuses))
    outcomes = [None if s == "pass" else {"status": s, "value": None, "repr": None, "same_as": list(same_as) if s == "fail" else []} for s in statuses]
    entry = {"id": f"{record}-{minute}-{passed}".replace(".", "_"), "record": record, "variant": 1, "passed": passed, "total": total,
             "statuses": statuses, "checks": [f"c{i}" for i in range(total)], "outcomes": outcomes, "time": stamp(minute)}
    if cell:
        entry["run"] = cell
    if hub_user:
        entry["hub_user"] = hub_user
    return entry


def write_log(path, learner: str, entries: list[dict]):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(json.dumps(e) for e in [{"learner": learner, "log": "failuremap_edu progress 2"}, *entries]) + "\n")
    return path


def run(passed, total, minute, same_as=(), timeout=False, cell=None) -> Run:
    e = line("FA-1", passed, total, minute, same_as=same_as, timeout=timeout, cell=cell)
    return Run("x", "FA-1", 1, e["time"], tuple(e["statuses"]), tuple(e["checks"]), (None,) * total, None, True, tuple(e["outcomes"]), cell)


NOW = (T0 + timedelta(minutes=30)).timestamp()


def test_stuck_since_the_first_run_without_progress_and_the_attempts_mistake_three_in_a_row():
    runs = [run(0, 3, 0), run(1, 3, 2), run(1, 3, 5, ("attempt",)), run(0, 3, 7, ("attempt",)), run(1, 3, 9, ("attempt", "broken"))]
    n = need_of("ann", "FA-1", runs, NOW)
    assert (n.runs, n.passed, n.checks_passed, n.checks) == (5, False, 1, 3)
    assert (n.first_fail, n.last_run, n.first_pass) == (stamp(0), stamp(9), None)
    assert n.stuck_since == stamp(5) and n.stuck_seconds == 25 * 60
    assert (n.repeats, n.repeats_of) == (3, "attempt")
    assert n.timing_out is False


def test_progress_ends_being_stuck_and_a_pass_ends_it_for_good():
    progressing = need_of("ann", "FA-1", [run(0, 3, 0), run(0, 3, 1), run(2, 3, 2)], NOW)
    assert progressing.stuck_since is None and progressing.stuck_seconds is None
    solved = need_of("ann", "FA-1", [run(0, 3, 0), run(3, 3, 1), run(2, 3, 4)], NOW)
    assert solved.passed and solved.stuck_since is None and solved.first_pass == stamp(1)


def test_the_variants_of_one_cell_run_count_once():
    runs = [run(1, 2, 0, cell="a"), run(1, 2, 0, cell="a"), run(1, 2, 3, cell="b"), run(0, 2, 3, timeout=True, cell="b")]
    n = need_of("ann", "FA-1", runs, NOW)
    assert n.runs == 2 and n.timing_out  # the latest cell run timed out on one variant
    assert n.stuck_since == stamp(3)  # 1 of 4 checks passed is less than 2 of 4


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 4), min_size=1, max_size=12))
def test_stuck_since_is_the_run_after_the_last_record_breaking_one(scores):
    """An independent statement of the rule: find the last run that beat every run before it."""
    runs = [run(s, 4, i) for i, s in enumerate(scores)]
    n = need_of("ann", "FA-1", runs, NOW)
    last_best = max(i for i, s in enumerate(scores) if all(s > t for t in scores[:i]))
    if 4 in scores:
        assert n.stuck_since is None
    elif last_best == len(scores) - 1:
        assert n.stuck_since is None
    else:
        assert n.stuck_since == stamp(last_best + 1)
    assert n.runs == len(scores) and n.checks_passed == max(scores)


def _need(name, passed=False, stuck=None, repeats=0, timing_out=False, runs=1):
    return Need(name, "FA-1", runs, passed, 0, 3, None, None, None, None, stuck, repeats, "attempt" if repeats else None, timing_out)


def test_who_needs_help_first_stuck_longest_then_repeating_then_timing_out_solved_last():
    found = [_need("solved", passed=True, stuck=None), _need("timing", timing_out=True), _need("repeat", repeats=3),
             _need("stuck5", stuck=300), _need("stuck20", stuck=1200), _need("fresh")]
    assert [n.learner for n in by_need(found)] == ["stuck20", "stuck5", "repeat", "timing", "fresh", "solved"]


def test_pseudonyms_are_stable_and_tell_learners_apart():
    names = [pseudonym(f"hub:learner{i}") for i in range(200)]
    assert len(set(names)) == 200 and names == [pseudonym(f"hub:learner{i}") for i in range(200)]
    assert "learner" not in "".join(names)


@pytest.fixture
def homes(tmp_path):
    """Three learners on a hub: ann solved it, bob tried the attempt's mistake three times, cy timed out once."""
    root = tmp_path / "homes"
    log = lambda name: root / name / ".local" / "share" / "failuremap_edu" / "progress.jsonl"  # noqa: E731
    write_log(log("ann"), "a" * 16, [line("FA-1", 1, 3, 0, hub_user="ann"), line("FA-1", 3, 3, 4, hub_user="ann")])
    write_log(log("bob"), "b" * 16, [line("FA-1", 1, 3, m, same_as=("attempt",), hub_user="bob") for m in (1, 3, 6)])
    write_log(log("cy"), "c" * 16, [line("FA-1", 0, 3, 2, timeout=True, hub_user="cy")])
    return root


def test_json_learners_are_objects_with_each_exercise(homes, capsys):
    assert main(["report", "--homes", str(homes / "*"), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    learners = {x["name"]: x["exercises"]["FA-1"] for x in data["learners"]}
    assert sorted(learners) == ["ann", "bob", "cy"]  # by hub user name, with no --names file
    assert (learners["bob"]["runs"], learners["bob"]["repeats"], learners["bob"]["repeats_of"]) == (3, 3, "attempt")
    assert (learners["cy"]["runs"], learners["cy"]["timing_out"]) == (1, True)  # one try that timed out, not three that failed
    assert learners["bob"]["stuck_since"] == stamp(3) and learners["ann"]["first_pass"] == stamp(4)


def test_anonymise_shows_the_same_pseudonyms_every_time_and_no_name(homes, capsys):
    assert main(["report", "--homes", str(homes / "*"), "--anonymise"]) == 0
    first = capsys.readouterr().out
    assert main(["report", "--homes", str(homes / "*"), "--anonymise"]) == 0
    assert capsys.readouterr().out == first
    assert pseudonym("hub:bob") in first and "bob" not in first.replace(pseudonym("hub:bob"), "")


def test_the_text_report_says_who_needs_help_most_first(homes, capsys):
    assert main(["report", "--homes", str(homes / "*")]) == 0
    out = capsys.readouterr().out.splitlines()
    start = out.index("Who needs help, most first (2 learner × exercise not passed):")
    rows = [r.split()[0] for r in out[start + 2:start + 4]]
    assert rows == ["bob", "cy"]
    assert "repeats the attempt's mistake 3 runs in a row" in out[start + 2]


def test_csv_is_learner_by_exercise_for_a_gradebook(homes, tmp_path, capsys):
    out = tmp_path / "grades.csv"
    assert main(["report", "--homes", str(homes / "*"), "--csv", str(out)]) == 0
    rows = list(csv.DictReader(io.StringIO(out.read_text(encoding="utf-8"))))
    assert [(r["learner"], r["passed"], r["checks_passed"], r["runs"], r["first_pass_time"]) for r in rows] == [
        ("ann", "yes", "3", "2", stamp(4)), ("bob", "no", "1", "3", ""), ("cy", "no", "0", "1", "")]


def test_csv_cells_a_spreadsheet_would_run_are_quoted(tmp_path):
    from failuremap_edu.instructor.render._need import needs_csv

    report = build_report([write_log(tmp_path / "p.jsonl", "d" * 16, [line("=cmd()", 1, 2, 0)])])
    assert needs_csv(report).splitlines()[1].startswith("dddddd,'=cmd(),no,")


def test_watch_with_html_writes_a_page_that_reloads_itself(homes, tmp_path, capsys, monkeypatch):
    import time

    monkeypatch.setattr(time, "sleep", lambda seconds: None)
    page = tmp_path / "live.html"
    assert main(["report", "--homes", str(homes / "*"), "--watch", "7", "--watch-rounds", "1", "--html", str(page)]) == 0
    text = page.read_text(encoding="utf-8")
    assert '<meta http-equiv="refresh" content="7">' in text
    assert text.index("<td>bob</td>") < text.index("<td>cy</td>") and "<td>ann</td><td>FA-1</td>" not in text
    assert f"live page: {page}" in capsys.readouterr().out


def test_watch_with_html_before_anyone_ran_says_so_on_the_page(tmp_path, capsys, monkeypatch):
    import time

    monkeypatch.setattr(time, "sleep", lambda seconds: None)
    (tmp_path / "homes" / "ann").mkdir(parents=True)
    page = tmp_path / "live.html"
    assert main(["report", "--homes", str(tmp_path / "homes" / "*"), "--watch", "--watch-rounds", "1", "--html", str(page)]) == 0
    text = page.read_text(encoding="utf-8")
    assert '<meta http-equiv="refresh" content="5">' in text and "no progress log in any of the 1 homes" in text


def test_the_html_report_has_who_needs_help_most_first(homes, tmp_path, capsys):
    page = tmp_path / "class.html"
    assert main(["report", "--homes", str(homes / "*"), "--html", str(page)]) == 0
    text = page.read_text(encoding="utf-8")
    table = text[text.index("<h2>Who needs help, most first</h2>"):]
    table = table[:table.index("</table>")]
    assert table.index("<td>bob</td>") < table.index("<td>cy</td>") and "<td>ann</td>" not in table
    assert "repeats the attempt&#x27;s mistake 3 runs in a row" in table
    assert "this page holds real names" in text  # hub user names: for the instructor only
