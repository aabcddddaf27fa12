"""The notebook generator: committed notebooks are current, any record works, nbval passes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from conftest import OWN, record_path, solution_path
from failuremap_edu._cli import main
from failuremap_edu._notebook import md, write_all, write_notebook

ROOT = Path(__file__).resolve().parents[1]


def test_committed_notebooks_are_up_to_date(tmp_path):
    fresh = write_all(tmp_path)
    committed_dir = ROOT / "notebooks"
    names = sorted(str(p.relative_to(tmp_path)) for p in fresh)
    assert names == ["00-start-here.ipynb", "FA-100061.ipynb", "FA-100786.ipynb", "instructor/FA-100061.ipynb", "instructor/FA-100786.ipynb"]
    for name in names:
        committed = committed_dir / name
        assert committed.is_file(), f"{name} is missing: run `make notebooks`"
        assert committed.read_text(encoding="utf-8") == (tmp_path / name).read_text(encoding="utf-8"), f"{name} is stale: run `make notebooks`"


def test_markdown_escaping():
    assert md("emit <stop> & $x$ *bold* [link](x) `code`") == r"emit &lt;stop&gt; &amp; \$x\$ \*bold\* \[link\](x) \`code\`"
    assert md("x" * 10_000, limit=10).startswith("xxxxxxxxx… (9,991 more characters")


def cells_of(path: Path):
    return nbformat.read(path, as_version=4).cells


def test_learner_notebook_structure():
    cells = cells_of(ROOT / "notebooks" / "FA-100786.ipynb")
    headings = [c.source.splitlines()[0] for c in cells if c.cell_type == "markdown"]
    assert headings == [
        "# Output stopping: Streaming buffer emits partial stop prefixes too early · case 01",
        "## The contract", "## Load the record", "## Watch it fail", "## Why it fails", "## Your turn",
        "## Playground", "## Variants", "## Limitations and provenance",
    ]
    solve_cell = next(c for c in cells if c.source.startswith("@exercise.check"))
    assert solve_cell.source.splitlines()[:2] == ["@exercise.check", "def solve(text, stops):"]
    assert "nbval-check-output" in solve_cell.metadata["tags"]
    assert solve_cell.outputs[0]["data"]["text/plain"].splitlines()[1] == "checking your solve…"  # the panel, as it appears
    assert solve_cell.outputs[1]["text"] == "1/6 checks pass (5 fail)\n"  # the line printed after the checks
    hints = next(c for c in cells if c.source.startswith("## Why it fails")).source
    assert hints.count("<details>") == 4 and "<details open>" not in hints


def test_instructor_notebook_has_reference_and_open_hints():
    cells = cells_of(ROOT / "notebooks" / "instructor" / "FA-100786.ipynb")
    solve_cell = next(c for c in cells if c.source.startswith("@exercise.check"))
    assert solve_cell.outputs[1]["text"] == "6/6 checks pass\n"
    assert next(c for c in cells if c.source.startswith("## Why it fails")).source.count("<details open>") == 4
    assert any("assert result.passed" in c.source for c in cells)
    assert any(c.source == "print(fm.compare(record, solve))" for c in cells)


@pytest.mark.parametrize("record_id", OWN)
def test_generator_handles_other_record_shapes(record_id, tmp_path):
    learner = write_notebook(str(record_path(record_id)), tmp_path)
    instructor = write_notebook(str(record_path(record_id)), tmp_path / "instructor", instructor=True, solution_path=str(solution_path(record_id)))
    assert (tmp_path / "records" / f"{record_id}.json").is_file()
    assert f"fm.load_record('records/{record_id}.json')" in learner.read_text()
    assert "checks pass" in instructor.read_text()


def test_generated_notebooks_of_other_records_pass_nbval(tmp_path):
    for record_id in OWN:
        write_notebook(str(record_path(record_id)), tmp_path)
    write_notebook(str(record_path("TR-000101")), tmp_path / "instructor", instructor=True, solution_path=str(solution_path("TR-000101")))
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--nbval-lax", "--nbval-current-env", "-c", "/dev/null", str(tmp_path)],
        capture_output=True, text=True, timeout=600, cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stdout[-3000:]
    assert " passed" in proc.stdout and "failed" not in proc.stdout


def test_instructor_without_reference_is_a_clear_error(capsys, tmp_path):
    code = main(["notebook", str(record_path("TR-000101")), "-o", str(tmp_path), "--instructor"])
    err = capsys.readouterr().err
    assert code == 2
    assert err == "failuremap-edu: error: TR-000101: no reference solution is packaged for this record; pass --solution FILE\n"


def test_instructor_with_a_wrong_reference_is_refused(capsys, tmp_path):
    wrong = tmp_path / "wrong.py"
    wrong.write_text("def solve(tokens, k=2, *, normalize=False):\n    return {}\n")
    code = main(["notebook", str(record_path("TR-000101")), "-o", str(tmp_path), "--instructor", "--solution", str(wrong)])
    assert code == 2
    assert "the reference solution does not pass every check" in capsys.readouterr().err


def test_cli_notebook_writes_one(capsys, tmp_path):
    assert main(["notebook", "FA-100061", "-o", str(tmp_path)]) == 0
    assert capsys.readouterr().out.strip() == str(tmp_path / "FA-100061.ipynb")
