"""A catalog at scale: records verified in chunks by a fast forked child, checked the careful way when in doubt."""

from __future__ import annotations

import json
import os

import pytest

from conftest import OWN, PACKAGED, record_path


def test_chunked_catalog_verification_falls_back_when_its_child_dies(tmp_path, monkeypatch):
    """A chunk whose fast child dies is verified again the careful way, with the same verdicts."""
    from failuremap_edu import _catalog

    refs = [str(record_path(r)) for r in OWN] + list(PACKAGED)
    fast = [(e.ref, e.ok) for e in _catalog.verify_many(refs, jobs=1)]
    monkeypatch.setattr(_catalog, "_in_forked_child", lambda refs: [])  # the fast child died at once
    careful = [(e.ref, e.ok) for e in _catalog.verify_many(refs, jobs=1)]
    assert fast == careful == [(r, True) for r in refs]


def test_the_fast_chunk_child_answers_for_every_record_and_only_with_plain_results():
    """Its answers pass the allow-list (else every record would quietly go the slow way)."""
    import pickle

    from failuremap_edu import _catalog
    from failuremap_edu.runner._channel import safe_loads

    refs = [str(record_path(r)) for r in OWN] + list(PACKAGED)
    entries = _catalog._in_forked_child(refs)
    assert [e.ref for e in entries] == refs and all(e.ok for e in entries)
    with pytest.raises(pickle.UnpicklingError, match="refusing posix.system"):
        safe_loads(pickle.dumps(os.system), _catalog._ENTRY_CLASSES)


def test_chunked_catalog_rechecks_anything_not_clean(tmp_path, write_record):
    from failuremap_edu import _catalog

    data = json.loads(record_path("TR-000101").read_text())
    data["verification"]["broken"]["observations"][0]["passed"] = True
    bad = str(write_record(data))
    entries = list(_catalog.verify_many([bad, "FA-100786"], jobs=2))
    assert [e.ok for e in entries] == [False, True]
    assert "verdict differs" in str(entries[0].report)


def test_a_looping_record_in_a_chunk_is_finished_the_careful_way(raw_record, write_record, monkeypatch):
    """The fast chunk child runs record code without a time limit; the supervisor has one."""
    from conftest import reseal
    from failuremap_edu import _catalog

    raw_record["implementations"]["broken"]["source"] = raw_record["implementations"]["broken"]["source"].replace(
        "    return text,", "    while True:\n        pass"
    )
    looping = str(write_record(reseal(raw_record)))
    monkeypatch.setattr(_catalog, "SECONDS_PER_RECORD", 1.0)
    entries = list(_catalog.verify_many(["FA-100061", looping, "FA-100786"], jobs=1))
    assert [e.ok for e in entries] == [False if e.ref == looping else True for e in entries]
    assert "timeout" in str(entries[1].report)


def test_progress_bar_only_on_a_terminal():
    import io

    from failuremap_edu._catalog import ProgressBar

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
