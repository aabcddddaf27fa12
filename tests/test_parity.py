"""Replaying attempt and broken reproduces the recorded runs check for check."""

from __future__ import annotations

import json
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
