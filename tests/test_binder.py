"""Binder: build an environment exactly as repo2docker would from binder/, then use it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BINDER = ROOT / "binder"
TEST_ONLY = ("pytest", "nbval", "hypothesis", "playwright", "pytest-timeout")

pytestmark = pytest.mark.slow


def run(cmd, **kw) -> subprocess.CompletedProcess:
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=900, **kw)
    assert proc.returncode == 0, f"{cmd}\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}"
    return proc


def base_python() -> str:
    return getattr(sys, "_base_executable", None) or shutil.which("python3") or sys.executable


def test_binder_configuration_is_complete_and_lean():
    requirements = (BINDER / "requirements.txt").read_text().splitlines()
    pins = [line for line in requirements if line and not line.startswith("#") and line != "."]
    assert "." in requirements, "the project itself must be installed"
    assert all("==" in line for line in pins), pins
    names = {line.split("==")[0].lower() for line in pins}
    assert {"jupyterlab", "ipywidgets", "matplotlib", "nbformat"} <= names
    assert not names & set(TEST_ONLY)
    assert (BINDER / "runtime.txt").read_text().strip() == "python-3.11"
    assert not (BINDER / "postBuild").exists(), "installing the package itself turns the news pop-up off"
    assert not (BINDER / "environment.yml").exists(), "environment.yml would silently override requirements.txt"
    readme = (ROOT / "README.md").read_text()
    assert "https://mybinder.org/badge_logo.svg" in readme and "urlpath=lab/tree/notebooks/00-start-here.ipynb" in readme


def test_environment_built_like_repo2docker_runs_the_notebooks(tmp_path):
    env = tmp_path / "binder-env"
    run([base_python(), "-m", "venv", str(env)])
    py = env / "bin" / "python"
    run([str(py), "-m", "pip", "install", "--quiet", "-r", "binder/requirements.txt"], cwd=ROOT)
    installed = run([str(py), "-m", "pip", "list", "--format=freeze"]).stdout.lower()
    for name in TEST_ONLY:
        assert f"\n{name}==" not in "\n" + installed, f"{name} would bloat the Binder image"
    probe = run([str(py), "-c", "import failuremap_edu as fm; print(fm.verify_record(fm.load_record('FA-100786')).ok)"], cwd=tmp_path)
    assert probe.stdout.strip() == "True"
    assert run([str(env / "bin" / "jupyter"), "lab", "--version"]).stdout.strip() == "4.6.6"
    path = f"{env / 'bin'}{os.pathsep}{os.environ['PATH']}"
    extensions = run([str(env / "bin" / "jupyter"), "labextension", "list"], env={**os.environ, "PATH": path})
    listing = extensions.stdout + extensions.stderr
    assert "@jupyter-widgets/jupyterlab-manager" in listing
    assert "Disabled extensions:\n    @jupyterlab/apputils-extension:announcements" in listing, listing
    # nbval in that environment (test tools added only to this throwaway copy).
    run([str(py), "-m", "pip", "install", "--quiet", "pytest", "nbval"])
    notebooks = tmp_path / "nb"
    notebooks.mkdir()
    shutil.copy(ROOT / "notebooks" / "FA-100786.ipynb", notebooks)
    result = run(
        [str(py), "-m", "pytest", "-q", "-p", "no:cacheprovider", "--nbval-lax", "--nbval-current-env", "-c", "/dev/null", str(notebooks)],
        cwd=notebooks, env={**os.environ, "PATH": path, "FAILUREMAP_PROGRESS": str(tmp_path / "p.jsonl")},
    )
    assert " passed" in result.stdout and "failed" not in result.stdout


def test_repo2docker_accepts_the_repository(tmp_path):
    tools = tmp_path / "r2d"
    run([base_python(), "-m", "venv", str(tools)])
    install = subprocess.run([str(tools / "bin" / "python"), "-m", "pip", "install", "--quiet", "jupyter-repo2docker"],
                             capture_output=True, text=True, timeout=900)
    if install.returncode != 0:
        pytest.skip(f"jupyter-repo2docker does not install here: {install.stderr.strip().splitlines()[-1:]}")
    proc = run([str(tools / "bin" / "repo2docker"), "--no-build", "--debug", str(ROOT)])
    dockerfile = proc.stdout + proc.stderr
    assert "binder/requirements.txt" in dockerfile
    assert "python=3.11" in dockerfile or "python-3.11" in dockerfile or "PYTHON_VERSION=3.11" in dockerfile
