"""The progress log as the exercise writes it (moving to tests/test_progress.py)."""

from __future__ import annotations

import json
import os

import pytest

from conftest import reference_solve
from failuremap_edu import Exercise

reference = reference_solve("FA-100786")


@pytest.fixture
def exercise():
    return Exercise("FA-100786", timeout=0.5)


def test_progress_is_logged_and_read_back(exercise):
    from failuremap_edu import progress_overview

    exercise.check(reference)
    lines = open(os.environ["FAILUREMAP_PROGRESS"], encoding="utf-8").read().splitlines()
    entry = json.loads(lines[-1])
    assert (entry["record"], entry["variant"], entry["passed"], entry["total"]) == ("FA-100786", 1, 6, 6)
    assert entry["statuses"] == ["pass"] * 6 and len(entry["solve_sha256"]) == 64
    with open(os.environ["FAILUREMAP_PROGRESS"], "a", encoding="utf-8") as fh:
        fh.write("{not json\n")
    overview = progress_overview()
    assert "FA-100786    ✓ all pass 6/6 (N=1)" in repr(overview)
    assert "1 unreadable line" in repr(overview)


def test_unwritable_progress_log_is_reported_once(exercise, monkeypatch, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("FAILUREMAP_PROGRESS", str(blocker / "progress.jsonl"))
    exercise.check(reference)
    assert exercise.message.startswith("progress is not being saved")
    exercise.check(reference)
    assert exercise.message == ""  # told once
    assert exercise.summary() == "6/6 checks pass"


def test_cli_export_writes_attempts_and_latest_solves(tmp_path, capsys):
    from failuremap_edu._cli import main

    exercise = Exercise("FA-100786")
    exercise.check(lambda text, stops: (text, ""))
    exercise.check(reference)
    out = tmp_path / "export.json"
    assert main(["export", "--out", str(out)]) == 0
    data = json.loads(out.read_text())
    assert [a["passed"] for a in data["attempts"]] == [4, 6]
    assert "def solve(text, stops):" in data["latest"]["FA-100786"]["solve_source"]
    assert "2 attempts, latest solve of 1 exercises" in capsys.readouterr().out


def test_concurrent_writers_never_interleave(tmp_path):
    import multiprocessing

    from failuremap_edu._progress import read_progress

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
    from pathlib import Path

    from failuremap_edu._progress import log_run
    from failuremap_edu._results import Observation, RunResult

    result = RunResult(f"W-{worker}", "yours", 1, (Observation(0, "x" * 500, "pass", True),), 2.0, "process")
    for _ in range(50):
        log_run(result, "def solve():\n    pass\n" * 20, Path(path))


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
