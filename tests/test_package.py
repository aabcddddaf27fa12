"""The package surface: a small public API, and a cheap import."""

from __future__ import annotations

import subprocess
import sys

import pytest

import failuremap_edu

HEAVY = ("matplotlib", "ipywidgets", "nbformat", "IPython", "numpy")


CURATED = {
    "exercise", "Exercise", "watch_it_fail", "try_call", "progress_overview", "plot_progress",  # a notebook cell
    "load_record", "list_records", "load_solution", "run_checks", "replay", "verify_record", "diff",  # a script
    "Record", "RunResult", "Observation", "ErrorInfo", "CallResult", "Comparison", "Diff", "FailureStory", "ParityReport",
    "RecordError", "SolutionError",
}


def test_public_api_is_the_curated_list_and_each_name_is_ours():
    """A new name at the top is a decision: this test fails until it is added here."""
    assert set(failuremap_edu.__all__) == CURATED | {"__version__"}
    for name in CURATED:
        value = getattr(failuremap_edu, name)
        assert value.__module__.startswith("failuremap_edu."), (name, value.__module__)
    assert dir(failuremap_edu) == sorted(failuremap_edu.__all__)


def test_internals_stay_reachable_under_their_subpackage():
    from failuremap_edu import render, runner

    assert callable(runner.compare) and callable(runner.isolation_available) and callable(render.plot_status)
    for name in ("compare", "Budget", "read_fixtures", "status_figure", "Opaque", "CheckSite"):
        assert not hasattr(failuremap_edu, name), name


def test_unknown_attribute():
    import pytest

    with pytest.raises(AttributeError, match="has no attribute 'nope'"):
        failuremap_edu.nope  # noqa: B018


def test_import_loads_no_heavy_modules():
    code = (
        "import sys, failuremap_edu as fm\n"
        "r = fm.load_record('FA-100786')\n"
        "fm.run_checks(r, lambda text, stops: (text, ''))\n"
        f"print([m for m in {HEAVY!r} if m in sys.modules])\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"


def test_make_test_fast_leaves_out_slow_and_browser_tests_and_make_test_does_not():
    """`make test-fast` is the edit loop; `make test` (what CI runs) still runs everything."""
    import subprocess
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]

    def pytest_lines(target: str) -> list[str]:
        out = subprocess.run(["make", "-n", target], cwd=root, capture_output=True, text=True, timeout=60)
        assert out.returncode == 0, out.stderr
        return [line for line in out.stdout.splitlines() if "-m pytest" in line]

    fast, full = pytest_lines("test-fast"), pytest_lines("test")
    assert len(fast) == 1 and fast[0].endswith('-m pytest -m "not slow and not browser"')
    assert len(full) == 1 and full[0].endswith("-m pytest")


def test_the_wheel_holds_no_reference_solution(tmp_path):
    """Reference solutions shipped in the wheel: on a hub, any learner could print ours with `notebook --instructor`."""
    import zipfile
    from pathlib import Path

    import pytest

    pytest.importorskip("hatchling", reason="hatchling, the build backend, comes with the test extra")
    from hatchling.builders.wheel import WheelBuilder

    root = Path(__file__).resolve().parents[1]
    references = sorted((root / "references").glob("*.py"))
    assert references, "the repository keeps its reference solutions in references/"
    (wheel,) = WheelBuilder(str(root)).build(directory=str(tmp_path), versions=["standard"])
    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
        bodies = [zf.read(n) for n in names]
    assert "failuremap_edu/runner/_api.py" in names and "failuremap_edu/records/FA-100786.json" in names
    assert not [n for n in names if "references" in n]
    for reference in references:
        solve = reference.read_bytes().split(b"def solve", 1)[1]
        assert not [n for n, body in zip(names, bodies) if solve in body], reference.name


KERNEL_ONLY_CELL = '''
import importlib.util
import failuremap_edu as fm

{reference}

@fm.exercise("FA-100786")
def solve(text, stops):
    return reference(text, stops)

passing, failing = fm.run_checks("FA-100786", reference), fm.run_checks("FA-100786", lambda text, stops: (text, ""))
print("run_checks:", passing.summary(), "|", failing.summary(), "|", passing.isolation)
print("jupyterlab installed:", importlib.util.find_spec("jupyterlab") is not None)
'''


@pytest.mark.slow
def test_a_kernel_only_install_runs_an_exercise_cell_in_a_fresh_venv(tmp_path):
    """`pip install failuremap-edu` without extras (a hub's user environment, VS Code, a CI job checking hand-ins):
    no JupyterLab, and an exercise cell runs its checks in worker processes."""
    import os
    from pathlib import Path

    from conftest import REFERENCES

    root = Path(__file__).resolve().parents[1]
    subprocess.run([sys.executable, "-m", "venv", str(tmp_path / "venv")], check=True)
    python = tmp_path / "venv" / "bin" / "python"
    pip = subprocess.run([python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", str(root)], capture_output=True, text=True, timeout=600)
    assert pip.returncode == 0, pip.stderr[-3000:]
    reference = (REFERENCES / "FA-100786.py").read_text().replace("def solve(", "def reference(")
    env = {**os.environ, "HOME": str(tmp_path / "home"), "FAILUREMAP_PROGRESS": str(tmp_path / "progress.jsonl")}
    done = subprocess.run([python, "-c", KERNEL_ONLY_CELL.format(reference=reference)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert "6/6 checks pass" in lines, done.stdout  # the exercise cell's panel, as text
    assert lines[-2:] == ["run_checks: 6/6 checks pass | 4/6 checks pass (2 fail) | process", "jupyterlab installed: False"]
    assert (tmp_path / "progress.jsonl").is_file()  # the cell's run was kept
