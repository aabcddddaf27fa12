"""`workshop --release-solutions`: reference solutions added to the learners' repository after class, which nbgitpuller
then merges into every learner's clone without touching a learner's edits (nbgitpuller's own pull logic)."""

from __future__ import annotations

import hashlib
import json
import subprocess
from pathlib import Path

import pytest

from failuremap_edu.instructor._cli import main

ROOT = Path(__file__).resolve().parents[1]
RECORD = "FA-100786"


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


def _digests(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.rglob("*.ipynb"))}


@pytest.fixture
def course(tmp_path, monkeypatch, capsys):
    """A workshop's learners' folder, committed as the repository learners pull (branch main)."""
    for key in ("AUTHOR", "COMMITTER"):
        monkeypatch.setenv(f"GIT_{key}_NAME", "t")
        monkeypatch.setenv(f"GIT_{key}_EMAIL", "t@example.org")
    out = tmp_path / "ws"
    assert main(["workshop", RECORD, "-o", str(out), "--solutions", str(ROOT / "references")]) == 0
    _git(out, "init", "-q", "-b", "main")
    _git(out, "add", "-A")
    _git(out, "commit", "-q", "-m", "class")
    capsys.readouterr()
    return out


def _pull(repo: Path, target: Path) -> None:
    from nbgitpuller.pull import GitPuller

    for _ in GitPuller(f"file://{repo}", str(target), branch="main").pull():
        pass


def test_released_solutions_reach_a_learners_clone_with_their_edits_kept(course, tmp_path, capsys):
    learner = tmp_path / "home" / "ws"
    _pull(course, learner)
    notebook = learner / "notebooks" / f"{RECORD}.ipynb"
    nb = json.loads(notebook.read_text(encoding="utf-8"))
    nb["cells"][-1]["source"] = "# my own note, kept\n"
    notebook.write_text(json.dumps(nb), encoding="utf-8")
    before = _digests(course)

    assert main(["workshop", "-o", str(course), "--release-solutions"]) == 0  # from ws-instructor/solutions
    out = capsys.readouterr().out
    assert out.splitlines()[0] == f"{course}: 1 reference solution in solutions/; learners' notebooks untouched"
    assert _digests(course) == before  # no notebook of the learners' folder changed
    reference = (ROOT / "references" / f"{RECORD}.py").read_text(encoding="utf-8")
    assert (course / "solutions" / f"{RECORD}.py").read_text(encoding="utf-8") == reference
    _git(course, "add", "-A")
    _git(course, "commit", "-q", "-m", "solutions")

    _pull(course, learner)
    assert json.loads(notebook.read_text(encoding="utf-8"))["cells"][-1]["source"] == "# my own note, kept\n"
    assert (learner / "solutions" / f"{RECORD}.py").read_text(encoding="utf-8") == reference
    assert "<<<<<<<" not in notebook.read_text(encoding="utf-8")


def test_a_rebuild_leaves_released_solutions_alone_and_a_release_again_keeps_an_edit(course, capsys):
    assert main(["workshop", "-o", str(course), "--release-solutions"]) == 0
    released = course / "solutions" / f"{RECORD}.py"
    assert main(["workshop", RECORD, "-o", str(course), "--solutions", str(ROOT / "references"), "--force"]) == 0
    assert released.is_file()  # not in the workshop's manifest: never removed by a rebuild
    assert main(["workshop", "-o", str(course), "--release-solutions"]) == 0  # unchanged: written again
    released.write_text("def solve(text, stops):\n    return 'mine'\n", encoding="utf-8")
    capsys.readouterr()
    assert main(["workshop", "-o", str(course), "--release-solutions"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "solutions/FA-100786.py changed since" in err
    assert "mine" in released.read_text(encoding="utf-8")


def test_bad_input_gets_one_line(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    assert main(["workshop", "-o", str(tmp_path / "empty"), "--release-solutions"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no notebooks/ in it" in err and "Traceback" not in err


def test_no_solutions_found_is_one_line_and_writes_nothing(course, tmp_path, capsys):
    (tmp_path / "none").mkdir()
    assert main(["workshop", "-o", str(course), "--release-solutions", "--solutions", str(tmp_path / "none")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"no reference solution for {RECORD}" in err
    assert not (course / "solutions").exists()
