"""A record's runs are made once per build and handed to the notebook generator as data (`_notebook_runs`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from failuremap_edu import load_record
from failuremap_edu.instructor._notebook import _writes, build_notebook
from failuremap_edu.instructor._notebook_runs import NotebookRuns, SharedRuns
from failuremap_edu.runner import _api

ROOT = Path(__file__).resolve().parents[1]
RECORD = "FA-100786"


def _no_runs(monkeypatch) -> None:
    """From here on, any run through the runner fails the test."""

    def refuse(*args, **kwargs):
        raise AssertionError("a run was made again")

    monkeypatch.setattr(_api, "_execute", refuse)
    monkeypatch.setattr(_api, "_replay_in_one_worker", refuse)


def test_notebooks_built_with_one_records_runs_run_nothing_again_and_equal_a_fresh_build(monkeypatch):
    record = load_record(RECORD)
    fresh = _writes(build_notebook(record, RECORD, platform="lite"))
    runs = NotebookRuns(record)
    server = _writes(build_notebook(record, RECORD, runs=runs))
    _no_runs(monkeypatch)
    assert _writes(build_notebook(record, RECORD, platform="lite", runs=runs)) == fresh  # another platform: the same runs
    assert _writes(build_notebook(record, RECORD, runs=runs)) == server


def test_runs_of_another_record_are_refused():
    with pytest.raises(ValueError, match="not of this record"):
        build_notebook(load_record("FA-100061"), "FA-100061", runs=NotebookRuns(load_record(RECORD)))


def test_shared_runs_are_found_again_by_the_records_content_wherever_it_was_loaded_from(tmp_path):
    data = json.loads((ROOT / "failuremap_edu" / "records" / f"{RECORD}.json").read_text(encoding="utf-8"))
    (tmp_path / "a.json").write_text(json.dumps(data), encoding="utf-8")
    (tmp_path / "b.json").write_text(json.dumps(data), encoding="utf-8")
    (tmp_path / "c.json").write_text(json.dumps(dict(data, title=data["title"] + " (edited)")), encoding="utf-8")
    shared = SharedRuns()
    first = shared.for_record(load_record(str(tmp_path / "a.json")))
    assert shared.for_record(load_record(str(tmp_path / "b.json"))) is first
    assert shared.for_record(load_record(str(tmp_path / "c.json"))) is not first  # other content: runs of its own
    assert len(shared) == 2


def test_the_notebook_command_keeps_each_records_runs_in_the_shared_runs_it_is_given(tmp_path):
    from failuremap_edu.instructor._cli import main

    shared = SharedRuns()
    assert main(["notebook", RECORD, "-o", str(tmp_path)], runs=shared) == 0
    assert len(shared) == 1 and shared.for_record(load_record(RECORD))._learner is not None  # made by the command, kept
