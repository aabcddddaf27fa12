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


def test_make_bench_writes_the_figures_page_with_its_date_and_each_benchmarks_output(tmp_path, monkeypatch):
    """Issue 39: the published figures live in one generated page, dated, not in the prose."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    import types

    import run_all

    for name, code in (("fake_fast", 0), ("fake_missed", 1)):
        module = types.ModuleType(name)
        module.main = (lambda name=name, code=code: print(f"{name}: 3.2x faster") or code)
        monkeypatch.setitem(sys.modules, name, module)
    page = tmp_path / "figures.md"
    assert run_all.main(["fake_fast", "fake_missed"], page=page, count_tests=False) == 1
    text = page.read_text(encoding="utf-8")
    import re

    assert re.search(r"on \d{4}-\d\d-\d\d \d\d:\d\d UTC", text)
    assert text.index("### fake_fast") < text.index("fake_fast: 3.2x faster") < text.index("### fake_missed")
    assert "Targets: met." in text and "Targets: not met." in text


def test_one_benchmark_rewrites_only_its_own_section_of_the_figures_page_dated(tmp_path, monkeypatch):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    import types

    import run_all

    said = {"fake_fast": "3.2x faster", "fake_missed": "1.1x faster"}
    for name, code in (("fake_fast", 0), ("fake_missed", 1)):
        module = types.ModuleType(name)
        module.main = (lambda name=name, code=code: print(f"{name}: {said[name]}") or code)
        monkeypatch.setitem(sys.modules, name, module)
    page = tmp_path / "figures.md"
    run_all.main(["fake_fast", "fake_missed"], page=page, count_tests=False)
    page.write_text(page.read_text(encoding="utf-8").replace("## Benchmarks", "| `make test` | 1,234 |\n\n## Benchmarks"), encoding="utf-8")
    said["fake_missed"] = "9.9x faster"
    assert run_all.main(["fake_missed"], page=page, count_tests=False, only=True) == 1
    text = page.read_text(encoding="utf-8")
    import re

    assert "fake_fast: 3.2x faster" in text and "fake_missed: 9.9x faster" in text and "1.1x" not in text
    assert text.index("### fake_fast") < text.index("### fake_missed")
    assert len(re.findall(r"Measured on \d{4}-\d\d-\d\d \d\d:\d\d UTC; ", text)) == 2  # each section dated, the kept one too
    assert "| `make test` | 1,234 |" in text  # the counts are kept, not counted again


def test_the_figures_page_reads_pytests_count_of_collected_tests():
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    from _figures import collected

    assert collected("tests/test_x.py::test_a\n\n1082/1132 tests collected (50 deselected) in 3.10s\n") == 1082
    assert collected("tests/test_x.py::test_a\n\n1132 tests collected in 3.10s\n") == 1132
    assert collected("no tests ran\n") is None


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


def test_bench_diff_pairs_each_render_with_the_diff_at_a_tiny_size():
    """Each row has the diff (the floor) and both renders of the same values, and the verdicts name every size past the first."""
    import bench_diff

    rows = bench_diff.measure(sizes=(100, 1_000), grids=(20,), rounds=1)
    assert set(rows) == {"20x20 grid, one cell", "100 ints, one changed", "100 ints, all off by 1", "1,000 ints, one changed", "1,000 ints, all off by 1"}
    assert all(r["diff_s"] > 0 and r["text_ratio"] > 0 and r["html_ratio"] > 0 for r in rows.values())
    lines, _ = bench_diff.verdicts(rows)
    assert lines[0].startswith("  renders up to 10,000 leaves") and [line.split(":")[0].strip() for line in lines[1:]] == [
        "1,000 ints, one changed", "1,000 ints, all off by 1"]


def test_bench_catalog_measures_generated_records_too(tmp_path):
    import bench_catalog

    refs = bench_catalog.generated(tmp_path, count=6)
    assert refs and all(Path(r).name.startswith("GEN-") for r in refs)
    found = bench_catalog.measure(refs[:2], rounds=1)
    assert found["identical"] and found["records"] == 2
