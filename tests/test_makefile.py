"""The Makefile's install stamps and `make lab`'s arguments, with a stand-in venv that records what make runs.

`BIN` points at a folder whose `python` and `jupyter` only append their arguments to a
log, so what each target would install or start is read from the log, in a second,
without touching a real environment.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
STAMP_DEPS = ("pyproject.toml", "failuremap_edu/_jupyter/page_config.json", "failuremap_edu/_jupyter/widgets_settings.json")


@pytest.fixture
def repo(tmp_path):
    """A copy of the Makefile and its stamps' prerequisites, with a fake venv whose commands log their arguments."""
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    shutil.copy(ROOT / "Makefile", tmp_path / "Makefile")
    for name in STAMP_DEPS:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / name, tmp_path / name)
    bin_dir = tmp_path / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    for tool in ("python", "jupyter"):
        script = bin_dir / tool
        script.write_text(f'#!/bin/sh\necho "{tool} $*" >> "{tmp_path}/log"\n')
        script.chmod(0o755)
    return tmp_path


def _make(repo: Path, *args: str) -> tuple[str, list[str]]:
    """Run make in the copy; return its output and the commands the fake venv was given (the log is then emptied)."""
    done = subprocess.run(["make", "--no-print-directory", *args], cwd=repo, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    log = repo / "log"
    lines = log.read_text().splitlines() if log.exists() else []
    log.unlink(missing_ok=True)
    return done.stdout, lines


def _installs(commands: list[str]) -> list[str]:
    """What each `pip install` was asked to install (its last argument)."""
    return [c.split()[-1] for c in commands if " pip install " in c]


def test_make_venv_installs_the_package_without_the_test_extra_and_says_so(repo):
    out, commands = _make(repo, "venv")
    assert _installs(commands) == [".[lab]"]
    assert [line for line in out.splitlines() if line.startswith("==> make:")], out
    assert _make(repo, "venv")[1] == [], "an up-to-date lab install must not be installed again"


def test_the_test_install_has_the_test_and_docs_extras_and_stands_for_the_lab_install(repo):
    assert _installs(_make(repo, ".venv/.installed-test")[1]) == [".[lab,test,docs]"]
    _, commands = _make(repo, "lab")
    assert _installs(commands) == [], "make lab after make test must not reinstall"
    assert [c for c in commands if c.startswith("jupyter lab")]


def test_make_lab_after_an_edit_to_pyproject_installs_the_lab_extra_again(repo):
    _make(repo, "venv")
    stamp = repo / ".venv" / ".installed-lab"
    (repo / "pyproject.toml").touch()
    os.utime(stamp, (stamp.stat().st_mtime - 10, stamp.stat().st_mtime - 10))
    assert _installs(_make(repo, "venv")[1]) == [".[lab]"]


def _lab_command(repo: Path, *args: str) -> list[str]:
    _, commands = _make(repo, "lab", *args)
    (lab,) = [c for c in commands if c.startswith("jupyter lab")]
    return lab.split()


def test_make_lab_opens_notebooks_by_default_and_the_folder_named_by_NOTEBOOKS(repo):
    assert [a for a in _lab_command(repo) if a.startswith("--notebook-dir")] == ["--notebook-dir=notebooks"]
    assert [a for a in _lab_command(repo, "NOTEBOOKS=my/class") if a.startswith("--notebook-dir")] == ["--notebook-dir=my/class"]


@pytest.mark.parametrize("option", ["--notebook-dir=elsewhere", "--ServerApp.root_dir=elsewhere"])
def test_a_root_folder_in_LAB_ARGS_wins_over_NOTEBOOKS(repo, option):
    args = _lab_command(repo, "NOTEBOOKS=ignored", f"LAB_ARGS=--port=9999 {option}")
    assert [a for a in args if "notebook-dir" in a or "root_dir" in a] == [option]
    assert "--port=9999" in args


def _dry_lab(*args: str) -> str:
    """The `jupyter lab` line `make -n lab` prints (nothing runs): the install stamp is taken as up to date."""
    done = subprocess.run(["make", "-n", "--no-print-directory", "-o", ".venv/.installed-lab", "lab", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    (line,) = [line for line in done.stdout.splitlines() if "/jupyter lab " in line]
    return line


def test_make_lab_culls_idle_kernels_only_when_CULL_is_given():
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    assert "cull" not in _dry_lab().lower()
    args = _dry_lab("CULL=600").split()
    assert [a for a in args if "MappingKernelManager" in a] == [
        "--MappingKernelManager.cull_idle_timeout=600", "--MappingKernelManager.cull_interval=60"]
    args = _dry_lab("CULL=600", "CULL_INTERVAL=30", "LAB_ARGS=--MappingKernelManager.cull_idle_timeout=900").split()
    culls = [a for a in args if "cull_idle_timeout" in a]
    assert culls == ["--MappingKernelManager.cull_idle_timeout=600", "--MappingKernelManager.cull_idle_timeout=900"]  # the last one wins
    assert "--MappingKernelManager.cull_interval=30" in args


def test_make_lab_passes_CULL_to_jupyter_lab(repo):
    args = _lab_command(repo, "CULL=600")
    assert "--MappingKernelManager.cull_idle_timeout=600" in args and "--MappingKernelManager.cull_interval=60" in args
