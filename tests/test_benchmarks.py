"""The benchmarks' own baselines still run: `make bench` is not in the test command, and it broke once unseen."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from conftest import PACKAGED
from failuremap_edu import load_record
from failuremap_edu._fixtures import read_fixtures

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))


@pytest.mark.parametrize("record_id", PACKAGED)
def test_the_bare_loop_of_bench_core_gives_the_attempts_recorded_verdicts(record_id):
    """The loop that the isolation overhead is measured against runs the record's program with its hooks
    (the adoption hook, added later, stopped `make bench` with a NameError)."""
    import bench_core

    record = load_record(record_id)
    fixtures = read_fixtures(record)
    namespace: dict = {}
    exec(compile(fixtures.solve_source, "<solve>", "exec"), namespace)
    verdicts = bench_core.bare_checks(fixtures, namespace["solve"])
    assert verdicts == [(o.check, o.passed) for o in record.verification["attempt"].observations]


def test_the_collector_benchmark_runs_at_a_tiny_size():
    """`bench_collector` with 3 learners and one round: both servers start, every post is stored, the numbers are there."""
    import bench_collector

    found = bench_collector.measure(learners=3, rounds=1)
    assert found["stored"] == 3 * 2  # the warm-up round and the measured one
    assert found["ratio"] > 0 and found["memory_mb"] > 0


@pytest.mark.skipif(not __import__("shutil").which("bwrap"), reason="needs bubblewrap (apt-get install bubblewrap)")
def test_bench_judge_runs_check_sandbox_both_ways_and_restores_the_split():
    """A tiny run of `make bench`'s judge-split benchmark: both sides pass the reference solution (timings are not judged here)."""
    import bench_judge

    from failuremap_edu.runner import _judge

    measured = bench_judge.measure(rounds=1)
    assert set(measured) == {"split_s", "joint_s", "ratio"} and measured["split_s"] > 0 and measured["joint_s"] > 0
    assert _judge.SPLIT is True


def test_bench_cli_pairs_check_with_the_records_own_script_at_a_tiny_size():
    """Both sides run (the reference passes: `check` exits 0), and the ratio is of paired rounds."""
    import bench_cli

    found = bench_cli.measure("FA-100786", rounds=1)
    assert found["script_s"] > 0 and found["check_s"] > 0 and found["ratio"] > 0


def test_bench_report_pairs_each_form_with_the_json_floor_at_a_tiny_size():
    import bench_report

    found = bench_report.measure(learners=3, rounds=1)
    assert {"floor_s", "text_s", "live_s", "html_s", "text_ratio", "live_ratio", "html_ratio", "bytes"} <= set(found)
    assert found["floor_s"] > 0 and found["html_ratio"] > 0 and found["bytes"] > 0


def test_bench_catalog_pairs_verify_with_the_scripts_on_distinct_records_at_a_tiny_size():
    import bench_catalog

    refs = bench_catalog.distinct()
    assert len(refs) == len(set(Path(r).name for r in refs)) >= 3  # distinct records, not copies
    found = bench_catalog.measure(refs[:3], rounds=1)
    assert found["identical"] and found["records"] == 3 and found["ratio"] > 0


def test_bench_panel_messages_first_run_counts_a_fresh_kernels_first_shift_enter():
    pytest.importorskip("jupyter_client")
    import bench_panel_messages

    found = bench_panel_messages.first_run(rounds=1, pause=0.5)
    assert found["messages"] > 0 and found["kinds"].get("comm_open", 0) > 0 and found["ratio"] > 0
