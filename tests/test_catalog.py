"""A catalog at scale: records verified side by side, each replay on the runner's own path."""

from __future__ import annotations

import json
import os


from conftest import OWN, PACKAGED, record_path


def test_verify_never_forks_the_caller(monkeypatch):
    """The caller has threads (the runner's, a notebook's): a fork of it may deadlock (Python 3.12 warns).
    Every replay takes the runner's own path, a worker from its clean server."""
    from failuremap_edu.instructor import _catalog

    def no_fork():
        raise AssertionError("verify forked the calling process")

    monkeypatch.setattr(os, "fork", no_fork)
    refs = [str(record_path(r)) for r in OWN] + list(PACKAGED)
    for jobs in (1, 2):
        entries = list(_catalog.verify_many(refs, jobs=jobs))
        assert [(e.ref, e.ok, e.error) for e in entries] == [(r, True, None) for r in refs]


def test_catalog_reports_a_record_whose_replay_differs(tmp_path, write_record):
    from failuremap_edu.instructor import _catalog

    data = json.loads(record_path("TR-000101").read_text())
    data["verification"]["broken"]["observations"][0]["passed"] = True
    bad = str(write_record(data))
    entries = list(_catalog.verify_many([bad, "FA-100786"], jobs=2))
    assert [e.ok for e in entries] == [False, True]
    assert "verdict differs" in str(entries[0].report)


def test_a_looping_record_is_stopped_by_the_time_limit_and_the_rest_is_verified(raw_record, write_record):
    """Record code runs with the runner's time limit per check, like everyone's."""
    from conftest import reseal
    from failuremap_edu.instructor import _catalog

    raw_record["implementations"]["broken"]["source"] = raw_record["implementations"]["broken"]["source"].replace(
        "    return text,", "    while True:\n        pass"
    )
    looping = str(write_record(reseal(raw_record)))
    entries = list(_catalog.verify_many(["FA-100061", looping, "FA-100786"], jobs=2))
    assert [e.ok for e in entries] == [False if e.ref == looping else True for e in entries]
    assert "timeout" in str(entries[1].report)


def test_progress_bar_only_on_a_terminal():
    import io

    from failuremap_edu.instructor._catalog import ProgressBar

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    quiet, loud = io.StringIO(), Terminal()
    for stream in (quiet, loud):
        bar = ProgressBar("verifying", stream=stream, width=10)
        for done in range(1, 5):
            bar(done, 4)
    assert quiet.getvalue() == ""
    assert loud.getvalue().split("\r")[-1] == "verifying [##########] 4/4\n"
