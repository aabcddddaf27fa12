"""The judge against the harness, on generated records: every check judged as ``python -c SCRIPT`` judges it.

Each record of `generate_records` is sealed by the real harness (its verification
is a real run of each script), then replayed by the runner; the replay must give
the recorded verdicts, the recorded ``actual`` and ``expected`` (as canonical
JSON), the exit code (0 exactly when every check passed) and, for a script that
crashed, an error of the same type at the check where the traceback points. A
check that loops by design (the ``slow`` mutation: finite for the harness, over
the replay's limit) may time out; every other check must still match.

On a mismatch the message names the seed, the record and the first differing
check, and the record is written to ``$FAILUREMAP_MISMATCHES`` (default: a
``mismatches`` folder under pytest's temporary directory), ready to be kept in
``tests/records/``.
"""

from __future__ import annotations

import json
import os
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import generate_records as gen
from failuremap_edu import load_record
from failuremap_edu._fixtures import read_fixtures
from failuremap_edu._parity import _compare_crash, _printed, harness_observations, parse_crash
from failuremap_edu._results import FAIL, PASS, TIMEOUT
from failuremap_edu.runner import replay, replay_many

FAST_SEEDS = range(1000, 1200)
SLOW_SEEDS = range(20_000, 22_000)
CHUNK = 16
_SEALED: dict[range, list] = {}


def _canonical(value) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def differences(record, spec: dict, name: str, result, tally: Counter | None = None) -> list[str]:
    """How the replay of one implementation differs from its recorded harness run (empty: parity).

    `tally` counts what was compared: ``checks`` (a verdict, an actual and an expected each),
    ``crashes`` (a crash point), ``exits`` (an ``os._exit`` with no output) and ``skipped``
    (checks stopped by design, not compared).
    """
    tally = Counter() if tally is None else tally
    recorded = record.verification[name]
    slow = name in spec["slow"]
    if not recorded.observations and not recorded.stderr.strip() and recorded.exit_code == 3:  # os._exit(3): no output, no traceback
        tally["exits"] += 1
        died = [o.error for o in result.observations if o.status == "error" and o.error and o.error.type == "ProcessDied"]
        died += [result.problem] if result.problem is not None and result.problem.type == "WorkerDied" else []  # a bare solve(xs) statement
        return [] if died and "code 3" in died[0].message else [f"{name}: recorded os._exit(3), replay {[o.status for o in result.observations]}"]
    if recorded.crashed:
        tally["crashes"] += 1
        parity = _compare_crash(record, name, recorded, result)
        crash = parse_crash(recorded.stderr)
        if slow and not parity.ok and crash is not None:
            first = next((o for o in result.observations if o.status not in (PASS, FAIL)), None)
            site = read_fixtures(record, name).site_for_line(crash.lineno) if crash.lineno else None
            if first is not None and first.status == TIMEOUT and site is not None and first.site <= site.site:
                return []  # the harness crashed at or after the check that loops by design: the replay stopped it there
        return [f"{name}: {p}" for p in parity.problems]
    problems, observations = [], harness_observations(record, name, result)
    if len(observations) != len(recorded.observations):
        problems.append(f"{name}: recorded {len(recorded.observations)} checks, replay produced {len(observations)}")
    timed_out = False
    for i, (want, got) in enumerate(zip(recorded.observations, observations)):
        where = f"{name} check {i + 1} ({want.check!r})"
        if slow and (got.status == TIMEOUT or got.stale or (got.error is not None and got.error.type == "NotRun")):
            timed_out = True  # stopped by design, or reads what a stopped check left missing (the runner says so)
            tally["skipped"] += 1
            continue
        tally["checks"] += 1
        if got.status not in (PASS, FAIL):
            problems.append(f"{where}: replay ended in {got.status}: {got.error.type}: {got.error.message}")
            continue
        if want.check != got.check:
            problems.append(f"{where}: label differs: replay has {got.check!r}")
        final = got.final or (got.actual, got.expected)
        for field, recorded_json, value in (("actual", want.actual_json, final[0]), ("expected", want.expected_json, final[1])):
            if _canonical(json.loads(recorded_json)) != _canonical(_printed(value)):
                problems.append(f"{where}: {field} differs: recorded {recorded_json}, replay {_canonical(_printed(value))}")
        if want.passed != got.passed:
            problems.append(f"{where}: verdict differs: recorded passed={want.passed}, replay passed={got.passed}")
    passed = result.problem is None and all(o.passed for o in observations)
    if not problems and not timed_out and (recorded.exit_code == 0) != passed:
        problems.append(f"{name}: exit code {recorded.exit_code}, replay passed={passed}")
    return problems


def _sealed(seeds, folder: Path) -> list[tuple[int, dict, object]]:
    """(seed, spec, record) for each seed whose scripts the harness can run; the harness runs two at a time."""
    folder.mkdir(parents=True, exist_ok=True)

    def one(seed):
        spec = gen.generate(seed)
        data = gen.seal(f"GEN-{seed:06d}", spec)
        if data is None:
            return None
        path = folder / f"GEN-{seed:06d}.json"
        path.write_text(json.dumps(data, ensure_ascii=False, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        with gen.LOCK:
            return seed, spec, load_record(path)

    with ThreadPoolExecutor(2) as pool:
        return [x for x in pool.map(one, seeds) if x is not None]


def _replays(sealed, isolation: str) -> dict[tuple[int, str], object]:
    """Every implementation's replay of variant 1: batched through one worker where nothing loops by design."""
    usable = [(seed, spec, r) for seed, spec, r in sealed if not (isolation == "inprocess" and "os._exit" in spec["attempt"] + spec["broken"])]
    batched = [(seed, r, name) for seed, spec, r in usable for name in ("attempt", "broken") if name not in spec["slow"]]
    out = {}
    if isolation == "process":
        for start in range(0, len(batched), CHUNK):  # replay_many goes one at a time after a replay that does not end cleanly
            chunk = batched[start : start + CHUNK]
            for (seed, _, name), result in zip(chunk, replay_many([(r, name, 1) for _, r, name in chunk], gen.REPLAY_TIMEOUT)):
                out[seed, name] = result
    else:
        for seed, r, name in batched:
            out[seed, name] = replay(r, name, 1, gen.REPLAY_TIMEOUT, isolation=isolation)
    for seed, spec, r in usable:
        for name in spec["slow"]:
            out[seed, name] = replay(r, name, 1, gen.SLOW_REPLAY_TIMEOUT, isolation=isolation)
    return out


def _problems(seed: int, spec: dict, record, isolation: str) -> list[str]:
    """The differences of one record, replayed afresh."""
    out = []
    for name in ("attempt", "broken"):
        timeout = gen.SLOW_REPLAY_TIMEOUT if name in spec["slow"] else gen.REPLAY_TIMEOUT
        out += differences(record, spec, name, replay(record, name, 1, timeout, isolation=isolation))
    return out


def shrink(seed: int, spec: dict, isolation: str, folder: Path) -> Path | None:
    """The smallest record found by dropping fixture statements one at a time while the mismatch stays; written to `folder`."""
    import ast

    import tempfile

    statements = [ast.get_source_segment(spec["fixtures"], node) for node in ast.parse(spec["fixtures"]).body]
    kept = None
    i = 0
    with tempfile.TemporaryDirectory() as tmp:
        while i < len(statements) and len(statements) > 1:
            trial = dict(spec, fixtures="\n".join(statements[:i] + statements[i + 1 :]))
            data = gen.seal(f"GEN-{seed:06d}", trial)
            if data is not None:
                path = Path(tmp) / f"GEN-{seed:06d}.json"
                path.write_text(json.dumps(data, ensure_ascii=False, indent=1, sort_keys=True) + "\n", encoding="utf-8")
                try:
                    still = bool(_problems(seed, trial, load_record(path), isolation))
                except Exception:  # noqa: BLE001 - the smaller script is no valid record (a name it needs is gone)
                    still = False
                if still:
                    statements, kept = statements[:i] + statements[i + 1 :], path.read_text(encoding="utf-8")
                    continue
            i += 1
    if kept is None:
        return None
    out = folder / f"GEN-{seed:06d}.min.json"
    out.write_text(kept, encoding="utf-8")
    return out


def _mismatches_folder(tmp_path_factory) -> Path:
    return Path(os.environ.get("FAILUREMAP_MISMATCHES") or tmp_path_factory.mktemp("mismatches"))


def summary(seeds: range, isolation: str, tally: Counter, mismatches: int, seconds: dict) -> str:
    """One line of what a run compared, to quote: records, replays, checks, crash points, mismatches, seeds, wall time."""
    return (f"parity {isolation}: seeds {seeds.start}-{seeds.stop - 1}, {tally['records']} records, {tally['replays']} replays, "
            f"{tally['checks']} checks compared, {tally['crashes']} crash points, {tally['exits']} exits, "
            f"{tally['skipped']} checks stopped by design, {mismatches} mismatching records; "
            f"sealing {seconds['seal']:.1f} s, replay {seconds['replay']:.1f} s")


def _assert_parity(seeds, isolation: str, tmp_path_factory, record_property=None) -> None:
    began = time.monotonic()
    if seeds not in _SEALED:  # sealed once for every mode
        _SEALED[seeds] = _sealed(seeds, tmp_path_factory.mktemp("generated"))
    sealed, sealing = _SEALED[seeds], time.monotonic() - began
    began = time.monotonic()
    replays = _replays(sealed, isolation)
    failures, keep = [], _mismatches_folder(tmp_path_factory)
    tally = Counter(records=len(sealed), replays=len(replays))
    for seed, spec, record in sealed:
        problems = [p for name in ("attempt", "broken") if (seed, name) in replays
                    for p in differences(record, spec, name, replays[seed, name], tally)]
        if problems:
            keep.mkdir(parents=True, exist_ok=True)
            (keep / f"{record.id}.json").write_text(Path(record.origin).read_text(encoding="utf-8"), encoding="utf-8")
            if len(failures) < 3:  # the first few are made minimal (each try reseals and replays)
                shrink(seed, spec, isolation, keep)
            failures.append(f"seed {seed}, record {record.id} ({spec['title']}): {problems[0]}")
    line = summary(seeds, isolation, tally, len(failures), {"seal": sealing, "replay": time.monotonic() - began})
    print(line)  # shown with -s, and in the report of a failing test
    if record_property is not None:
        record_property("parity", line)
    assert len(sealed) > len(list(seeds)) * 0.9  # nearly every generated record can be sealed
    assert tally["checks"] > 0
    assert not failures, f"{line}\n{len(failures)} of {len(sealed)} generated records break parity ({isolation}); kept in {keep}:\n" + "\n".join(failures[:20])


@pytest.mark.parametrize("isolation", ["process", "inprocess"])
def test_generated_records_replay_as_the_harness_ran_them(isolation, tmp_path_factory, record_property):
    _assert_parity(FAST_SEEDS, isolation, tmp_path_factory, record_property)


@pytest.mark.slow
@pytest.mark.timeout(3600)
@pytest.mark.parametrize("isolation", ["process", "inprocess", "sandbox"])
def test_thousands_of_generated_records_replay_as_the_harness_ran_them(isolation, tmp_path_factory, record_property):
    if isolation == "sandbox":
        import shutil

        if shutil.which("bwrap") is None:
            pytest.skip("bubblewrap is not installed")
    _assert_parity(SLOW_SEEDS, isolation, tmp_path_factory, record_property)


def test_the_generator_is_deterministic_and_covers_its_grammar():
    specs = [gen.generate(seed) for seed in FAST_SEEDS]
    assert gen.generate(FAST_SEEDS[0]) == specs[0]
    text = "\n".join(s["fixtures"] + s["attempt"] + s["broken"] for s in specs)
    for shape in (":= solve(", "solve(data", "[-1]", "len(", "sorted(", "for k in range(N + 1)", "raises(solve", "next(", "islice(",
                  "os._exit", "_shared", "float('nan')", "-0.0", "1e+308", "Pair(", "None in", "== Pair"):
        assert shape in text, shape
    assert {s["family"] for s in specs} == {f"generated-{c.name.replace(' ', '-')}" for c in gen.CONTRACTS}


def test_a_mismatch_is_shrunk_to_the_statements_it_needs(tmp_path, monkeypatch):
    def plain(spec):  # four or more one-line checks, a record that can be sealed
        lines = spec["fixtures"].splitlines()
        return len(lines) >= 4 and all(line.startswith("check(") for line in lines) and gen.seal("GEN-T", spec) is not None

    seed = next(s for s in FAST_SEEDS if plain(gen.generate(s)))
    spec = gen.generate(seed)
    culprit = spec["fixtures"].splitlines()[1]
    monkeypatch.setattr(__import__(__name__), "_problems", lambda seed, trial, record, isolation: ["x"] if culprit in trial["fixtures"] else [])
    path = shrink(seed, spec, "inprocess", tmp_path)
    fixtures = load_record(path).implementations["attempt"].source
    assert culprit in fixtures and all(line not in fixtures for line in spec["fixtures"].splitlines() if line != culprit and line.startswith("check("))
