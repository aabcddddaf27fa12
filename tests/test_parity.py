"""Replaying attempt and broken reproduces the recorded runs check for check."""

from __future__ import annotations

import json
import os
import sys

import pytest

from conftest import OWN, PACKAGED, TEST_RECORDS, record_path
from failuremap_edu import load_record, replay, verify_record
from failuremap_edu._parity import harness_stdout, parse_crash

ALL = [*PACKAGED, *(str(record_path(r)) for r in OWN)]


@pytest.mark.parametrize("record", ALL)
def test_parity_holds(record):
    report = verify_record(load_record(record))
    assert report.ok, str(report)
    assert {p.implementation for p in report.implementations} == {"attempt", "broken"}


@pytest.mark.parametrize("record_id", PACKAGED)
@pytest.mark.parametrize("implementation", ["attempt", "broken"])
def test_replay_matches_recorded_observations_exactly(record_id, implementation):
    record = load_record(record_id)
    result = replay(record, implementation)
    recorded = record.verification[implementation]
    replayed = [
        (o.check, json.loads(json.dumps(o.actual)), json.loads(json.dumps(o.expected)), o.passed) for o in result.observations
    ]
    assert replayed == [(o.check, o.actual, o.expected, o.passed) for o in recorded.observations]
    # Stronger still: the harness's printed line, rebuilt from our observations, is byte-identical.
    assert harness_stdout(result) == recorded.stdout


def test_crashed_recorded_run_is_reported_check_by_check():
    record = load_record(record_path("TR-000303"))
    recorded = record.verification["attempt"]
    assert recorded.crashed and recorded.observations == ()
    result = replay(record, "attempt")
    assert [o.status for o in result.observations] == ["pass", "pass", "error", "pass", "pass"]
    error = result.observations[2]
    assert error.check == "new key" and error.error.type == "KeyError" and error.error.message == "'seed'"
    report = verify_record(record)
    attempt = next(p for p in report.implementations if p.implementation == "attempt")
    assert attempt.ok and attempt.crash.type == "KeyError" and attempt.crash.lineno == 19


def test_parity_breaks_when_a_recorded_value_is_wrong(write_record):
    data = json.loads(record_path("TR-000101").read_text())
    data["verification"]["broken"]["observations"][1]["actual"] = {"z": 3.0}  # 3 vs 3.0: not the same JSON
    report = verify_record(load_record(write_record(data)))
    assert not report.ok
    broken = next(p for p in report.implementations if p.implementation == "broken")
    assert broken.problems == ('check 2 (\'k as keyword\'): actual differs: recorded {"z": 3.0}, replay {"z": 3}',)


def test_parity_breaks_when_a_verdict_is_wrong(write_record):
    data = json.loads(record_path("TR-000202").read_text())
    data["verification"]["attempt"]["observations"][0]["passed"] = True
    report = verify_record(load_record(write_record(data)))
    assert not report.ok and "verdict differs: recorded passed=True, replay passed=False" in str(report)


def test_parity_breaks_when_the_crash_is_elsewhere(write_record):
    data = json.loads(record_path("TR-000303").read_text())
    data["verification"]["attempt"]["stderr"] = data["verification"]["attempt"]["stderr"].replace("line 19", "line 17").replace("KeyError", "TypeError")
    report = verify_record(load_record(write_record(data)))
    assert not report.ok
    assert "recorded TypeError at line 17, replay's first error is at line 19" in str(report)


def test_parse_crash():
    stderr = (
        "Traceback (most recent call last):\n"
        '  File "/x/script.py", line 14, in <module>\n'
        "    check('a', solve(1), 2)\n"
        '  File "/x/script.py", line 7, in solve\n'
        "    return d[k]\n"
        "json.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)\n"
    )
    crash = parse_crash(stderr)
    assert (crash.type, crash.lineno) == ("json.decoder.JSONDecodeError", 14)
    assert crash.message.startswith("Expecting value")
    assert parse_crash("") is None and parse_crash("just noise") is None


def test_own_records_are_reproducible_by_their_builder(tmp_path):
    """The committed test records are what tests/records/build.py makes (elapsed times aside)."""
    sys.path.insert(0, str(TEST_RECORDS))
    try:
        import build
    finally:
        sys.path.remove(str(TEST_RECORDS))
    for record_id, spec in build.RECORDS.items():
        fresh = build.build(record_id, spec)
        committed = json.loads(record_path(record_id).read_text(encoding="utf-8"))
        for data in (fresh, committed):
            data["provenance"].pop("python")
            for run in data["verification"].values():
                run.pop("elapsed_ms")
                run["stderr"] = "\n".join(l for l in run["stderr"].splitlines() if not l.startswith("    "))
        assert fresh == committed, record_id


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
    from failuremap_edu._channel import safe_loads

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
