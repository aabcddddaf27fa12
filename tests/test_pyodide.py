"""The core inside real Pyodide (the Python JupyterLite runs), under node, offline.

`make test` installs the npm ``pyodide`` package into the repository and downloads
pure-Python wheels for pytest; tests/pyodide/run.mjs starts Pyodide in node with the
repository mounted, and tests/pyodide/runner.py runs pytest in there on:

- tests/pyodide/suite_core.py: parity for the packaged records and tests/records/,
  the misbehaviour corpus under the in-process fallback's guarantees (which cases it
  contains and which it cannot), and a learner's whole session without fork,
  ``resource`` or ``multiprocessing``;
- tests/test_diff.py and tests/test_render_text.py, unchanged.

Each test here requires specific inner tests to have passed, so a missing case fails
as loudly as a failing one.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import OWN, PACKAGED

ROOT = Path(__file__).resolve().parents[1]
NODE = shutil.which("node")
PYODIDE = ROOT / "node_modules" / "pyodide"
WHEELS = Path(os.environ.get("FAILUREMAP_PYODIDE_WHEELS", ROOT / ".venv" / "pyodide-wheels"))
SUITE = "tests/pyodide/suite_core.py"
UNCHANGED = ("tests/test_diff.py", "tests/test_render_text.py")
MARK = "@@failuremap-pyodide-results@@ "

pytestmark = pytest.mark.slow


def run_in_pyodide(*args: str, timeout: float = 1200) -> subprocess.CompletedProcess:
    assert NODE, "node is missing (the CI machines have node 20)"
    assert (PYODIDE / "pyodide.mjs").is_file(), f"{PYODIDE} is missing: `make test` installs it (npm ci)"
    assert any(WHEELS.glob("pytest-*.whl")), f"no wheels in {WHEELS}: `make test` downloads them (make pyodide)"
    return subprocess.run(
        [NODE, "tests/pyodide/run.mjs", "--wheels", str(WHEELS), *args],
        cwd=ROOT, capture_output=True, text=True, timeout=timeout,
    )


@pytest.fixture(scope="module")
def inner() -> dict:
    """One pytest session inside Pyodide: the outcome of every inner test, by id."""
    done = run_in_pyodide("tests/pyodide/runner.py", "-q", SUITE, *UNCHANGED)
    lines = [line for line in done.stdout.splitlines() if line.startswith(MARK)]
    assert lines, f"no results from Pyodide (exit {done.returncode}):\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    data = json.loads(lines[-1][len(MARK):])
    data["returncode"] = done.returncode
    return data


def suite_module():
    spec = importlib.util.spec_from_file_location("pyodide_suite_core", ROOT / SUITE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_it_really_ran_in_pyodide(inner):
    assert inner["platform"] == "emscripten"
    assert inner["python"].startswith("3.")
    assert inner["results"]["tests/pyodide/suite_core.py::test_this_is_pyodide_and_runs_in_process"] == "passed"


def test_every_inner_test_passed(inner):
    failed = {k: v for k, v in inner["results"].items() if v != "passed"}
    details = "\n\n".join(f"{k}:\n{inner['failures'].get(k, '')}" for k in failed)
    assert not failed, f"inside Pyodide: {failed}\n{details}"
    assert inner["exit_code"] == 0 and inner["returncode"] == 0


@pytest.mark.parametrize("record_id", [*PACKAGED, *OWN])
def test_parity_holds_in_pyodide(inner, record_id):
    assert inner["results"].get(f"{SUITE}::test_parity[{record_id}]") == "passed"


def test_every_corpus_case_is_either_contained_in_pyodide_or_listed_as_not(inner):
    from test_runner import CORPUS

    suite = suite_module()
    assert set(suite.CONTAINED) | set(suite.NOT_CONTAINED) == set(CORPUS)
    assert not set(suite.CONTAINED) & set(suite.NOT_CONTAINED)
    for name in suite.CONTAINED:
        assert inner["results"].get(f"{SUITE}::test_contained_misbehaviour[{name}]") == "passed", name
    # What the docs (explanation/isolation.md) say the fallback cannot contain is what the suite lists (and measures, for C waits).
    assert {"bare except around a loop", "os._exit()", "sleep in C"} <= set(suite.NOT_CONTAINED)
    assert inner["results"].get(f"{SUITE}::test_a_wait_in_c_is_not_interrupted") == "passed"
    assert inner["results"].get(f"{SUITE}::test_loop_times_out_then_a_solve_passes") == "passed"


def test_a_learners_session_needs_no_fork_resource_or_multiprocessing(inner):
    assert inner["results"].get(f"{SUITE}::test_package_runs_without_fork_resource_or_multiprocessing") == "passed"


@pytest.mark.parametrize("path", UNCHANGED)
def test_diff_and_text_renderer_tests_pass_unchanged_in_pyodide(inner, path):
    """Every test function of the file ran inside Pyodide (each parametrization too) and passed."""
    tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
    names = [n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name.startswith("test_")]
    assert names
    for name in names:
        ran = {k: v for k, v in inner["results"].items() if k == f"{path}::{name}" or k.startswith(f"{path}::{name}[")}
        assert ran, f"{path}::{name} did not run in Pyodide"
        assert set(ran.values()) == {"passed"}, ran


def test_a_failure_inside_pyodide_reaches_the_host(tmp_path):
    """The harness itself can fail: an inner test that fails gives a non-zero exit and its id as failed."""
    probe = ROOT / "tests" / "pyodide" / f"suite_probe_{os.getpid()}.py"
    probe.write_text("def test_fails():\n    assert 1 + 1 == 3\n\ndef test_passes():\n    assert True\n", encoding="utf-8")
    try:
        done = run_in_pyodide("tests/pyodide/runner.py", "-q", str(probe.relative_to(ROOT)), timeout=300)
    finally:
        probe.unlink()
    data = json.loads(next(line for line in done.stdout.splitlines() if line.startswith(MARK))[len(MARK):])
    name = f"tests/pyodide/{probe.name}"
    assert data["results"] == {f"{name}::test_fails": "failed", f"{name}::test_passes": "passed"}
    assert done.returncode == 1 and data["exit_code"] == 1
