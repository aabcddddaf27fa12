"""Workshops: a publishable folder from chosen records, which nbval passes."""

from __future__ import annotations

import subprocess
import sys

import nbformat

from conftest import TEST_RECORDS, record_path
from failuremap_edu._cli import main


def test_workshop_from_packaged_and_path_records_passes_nbval(tmp_path, capsys):
    out = tmp_path / "ws"
    code = main(["workshop", "FA-100786", str(record_path("TR-000101")), "-o", str(out), "--title", "Day <1> & more",
                 "--solutions", str(TEST_RECORDS / "solutions")])
    assert code == 0
    assert capsys.readouterr().out.strip() == f"{out}: 2 exercises, 5 notebooks"
    names = sorted(str(p.relative_to(out)) for p in (out / "notebooks").rglob("*.ipynb"))
    assert names == ["notebooks/00-start-here.ipynb", "notebooks/FA-100786.ipynb", "notebooks/TR-000101.ipynb",
                     "notebooks/instructor/FA-100786.ipynb", "notebooks/instructor/TR-000101.ipynb"]
    readme = (out / "README.md").read_text()
    assert readme.startswith("# Day &lt;1&gt; &amp; more\n") and "badge_logo.svg" in readme and "urlpath=lab/tree/notebooks/00-start-here.ipynb" in readme
    assert (out / "binder" / "requirements.txt").read_text().splitlines()[-1] == "."
    assert (out / "failuremap_edu" / "records" / "FA-100786.json").is_file() and (out / "pyproject.toml").is_file()
    # Installing the copied package (Binder's `.` line) turns the news pop-up off, as ours does.
    assert (out / "failuremap_edu" / "_jupyter" / "page_config.json").is_file()
    assert '"failuremap_edu/_jupyter/page_config.json" = "etc/jupyter/labconfig/page_config.d/failuremap_edu.json"' in (out / "pyproject.toml").read_text()
    start = nbformat.read(out / "notebooks" / "00-start-here.ipynb", as_version=4)
    assert "fm.progress_overview(['FA-100786', 'records/TR-000101.json'])" in start.cells[3].source
    instructor = (out / "notebooks" / "instructor" / "FA-100786.ipynb").read_text()
    assert "presenter=True, log_progress=False" in instructor
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--nbval-lax", "--nbval-current-env", "-c", "/dev/null", "notebooks"],
        capture_output=True, text=True, timeout=900, cwd=out,
    )
    assert proc.returncode == 0, proc.stdout[-3000:]
    assert "failed" not in proc.stdout


def test_workshop_from_a_records_dir_skips_instructor_notebooks_without_reference(tmp_path, capsys):
    import shutil

    records = tmp_path / "records"
    records.mkdir()
    shutil.copy(record_path("TR-000202"), records)
    out = tmp_path / "ws"
    assert main(["workshop", "--records-dir", str(records), "-o", str(out)]) == 0
    assert "none for TR-000202 (no reference solution was given)" in (out / "README.md").read_text()
    assert not (out / "notebooks" / "instructor").exists()


def test_workshop_needs_records(capsys, tmp_path):
    assert main(["workshop", "-o", str(tmp_path / "x")]) == 2
    assert "give RECORDs and/or --records-dir" in capsys.readouterr().err
