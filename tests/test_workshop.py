"""Workshops: a learners' folder with no solutions in it, a separate instructor's folder, links, safe rebuilds."""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

import nbformat
import pytest

from conftest import REFERENCES, TEST_RECORDS, record_path
from failuremap_edu.instructor._cli import main
from failuremap_edu.instructor._notebook import reference_path
from failuremap_edu._records import packaged_records_dir
from failuremap_edu.instructor._workshop import MANIFEST, binder_pull_url, binder_url, clone_folder, nbgitpuller_url

ROOT = Path(__file__).resolve().parents[1]
SOLUTIONS = TEST_RECORDS / "solutions"


def build(capsys, *argv, solutions: bool = True) -> tuple[int, str, str]:
    """`workshop ARGV`, with our reference solutions (``--solutions references``) unless `argv` names some or `solutions` is False."""
    capsys.readouterr()
    given = ["--solutions", REFERENCES] if solutions and "--solutions" not in argv else []
    code = main(["workshop", *map(str, [*argv, *given])])
    out, err = capsys.readouterr()
    return code, out, err


def solve_body(path: Path) -> str:
    """The body of `solve` in a solution file, whitespace collapsed: what a leak would contain."""
    source = path.read_text(encoding="utf-8")
    fn = next(n for n in ast.parse(source).body if isinstance(n, ast.FunctionDef) and n.name == "solve")
    lines = source.splitlines()[fn.body[0].lineno - 1 : fn.end_lineno]
    return " ".join(" ".join(lines).split())


def _strings(value) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def leaks(folder: Path, bodies: dict[str, str]) -> list[str]:
    """Every file (notebooks and JSON decoded, so escaped newlines do not hide a body) that holds a solution."""
    found = []
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        raw = path.read_bytes().decode("utf-8", "replace")
        try:
            text = "\n".join(_strings(json.loads(raw)))
        except ValueError:
            text = raw
        flat = " ".join(text.split())
        found += [f"{path.relative_to(folder)}: {name}" for name, body in bodies.items() if body in flat]
    return found


@pytest.fixture(scope="module")
def workshop(tmp_path_factory):
    """One workshop from a packaged and a path record, with solutions for both, built once for the module."""
    base = tmp_path_factory.mktemp("ws")
    out, solutions = base / "ws", base / "solutions"
    solutions.mkdir()
    for path in [*SOLUTIONS.glob("*.py"), *REFERENCES.glob("*.py")]:
        shutil.copyfile(path, solutions / path.name)
    code = main(["workshop", "FA-100786", str(record_path("TR-000101")), "-o", str(out), "--title", "Day <1> & more",
                 "--solutions", str(solutions)])
    assert code == 0
    return out


BODIES = {
    "FA-100786 reference": solve_body(reference_path("FA-100786", REFERENCES)),
    "FA-100061 reference": solve_body(reference_path("FA-100061", REFERENCES)),
    "TR-000101 solution": solve_body(SOLUTIONS / "TR-000101.py"),
}


def test_the_learners_folder_holds_no_solution_and_the_instructors_does(workshop):
    instructor = workshop.with_name("ws-instructor")
    assert leaks(workshop, BODIES) == []
    assert not (workshop / "failuremap_edu" / "references").exists() and (workshop / "failuremap_edu" / "runner" / "_api.py").is_file()
    names = sorted(str(p.relative_to(workshop)) for p in (workshop / "notebooks").rglob("*.ipynb"))
    assert names == ["notebooks/00-start-here.ipynb", "notebooks/FA-100786.ipynb", "notebooks/TR-000101.ipynb"]
    found = leaks(instructor, BODIES)
    assert "solutions/FA-100786.py: FA-100786 reference" in found and "notebooks/FA-100786.ipynb: FA-100786 reference" in found
    assert "notebooks/TR-000101.ipynb: TR-000101 solution" in found
    notes = (instructor / "README.md").read_text()
    assert "Not for learners" in notes and "failuremap-edu report FOLDER" in notes


def test_the_learners_copy_of_the_package_is_the_kernel_side_only_and_runs_an_exercise(workshop, tmp_path):
    copied = workshop / "failuremap_edu"
    ours = Path(main.__code__.co_filename).resolve().parents[1]  # the package this test runs
    kernel_side = sorted(p.relative_to(ours).as_posix() for p in ours.rglob("*.py")
                         if p.relative_to(ours).parts[0] not in ("instructor", "references") and "__pycache__" not in p.parts)
    assert not (copied / "instructor").exists() and not (copied / "__main__.py").exists()
    assert sorted(p.relative_to(copied).as_posix() for p in copied.rglob("*.py")) == [p for p in kernel_side if p != "__main__.py"]
    scripts = re.findall(r"^failuremap-edu = \"([\w.]+):(\w+)\"$", (workshop / "pyproject.toml").read_text(), re.M)
    assert scripts == [("failuremap_edu._command", "main")]  # the learner's commands (check, export), not the instructor's
    code = ("import sys, failuremap_edu as fm\n"
            "assert fm.__file__.startswith(sys.argv[1]), fm.__file__\n"
            "print(fm.run_checks('FA-100786', lambda text, stops: (text, '')).summary())\n")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"} | {"PYTHONPATH": str(workshop)}
    done = subprocess.run([sys.executable, "-c", code, str(copied)], capture_output=True, text=True, timeout=240, cwd=tmp_path, env=env)
    assert done.returncode == 0 and "checks pass" in done.stdout, done.stderr
    # What a download's "check again" line and the notebooks' export line run, from the copy alone.
    (tmp_path / "solve.py").write_text("def solve(text, stops):\n    return text, ''\n")
    command = ["-c", "import sys; from failuremap_edu._command import main; sys.exit(main(sys.argv[1:]))"]
    done = subprocess.run([sys.executable, *command, "check", "FA-100786", "solve.py"], capture_output=True, text=True, timeout=240, cwd=tmp_path, env=env)
    assert done.returncode == 1 and "checks pass" in done.stdout, done.stderr
    done = subprocess.run([sys.executable, *command, "export", "--out", "runs.json"], capture_output=True, text=True, timeout=240, cwd=tmp_path,
                          env=env | {"FAILUREMAP_PROGRESS": str(tmp_path / "log.jsonl")})
    assert done.returncode == 0 and (tmp_path / "runs.json").is_file(), done.stderr
    done = subprocess.run([sys.executable, *command, "workshop", "-o", "x"], capture_output=True, text=True, timeout=240, cwd=tmp_path, env=env)
    assert done.returncode == 2 and "invalid choice: 'workshop'" in done.stderr  # the instructor's commands are not here


def test_with_solutions_is_a_self_study_folder_and_a_rebuild_without_removes_them(tmp_path, capsys):
    out = tmp_path / "self"
    code, stdout, _ = build(capsys, "FA-100786", "-o", out, "--with-solutions")
    assert code == 0 and "with reference solutions (self-study)" in stdout
    assert leaks(out, BODIES) == ["notebooks/instructor/FA-100786.ipynb: FA-100786 reference"]  # the package holds none
    code, stdout, _ = build(capsys, "FA-100786", "-o", out)
    assert code == 0 and leaks(out, BODIES) == []
    assert not (out / "notebooks" / "instructor").exists() and not (out / "failuremap_edu" / "references").exists()


def test_the_command_says_where_the_instructor_material_went(tmp_path, capsys):
    code, stdout, err = build(capsys, "FA-100786", "-o", tmp_path / "out", "--instructor-dir", tmp_path / "teacher")
    assert code == 0, err
    lines = stdout.splitlines()
    assert lines[0] == f"{tmp_path / 'out'}: 1 exercise, 2 notebooks for learners (no reference solutions in it)"
    assert lines[1].startswith(f"{tmp_path / 'teacher'}: instructor material (1 instructor notebook, 1 reference solution, notes)")
    assert (tmp_path / "teacher" / "notebooks" / "FA-100786.ipynb").is_file() and not (tmp_path / "out-instructor").exists()
    code, _, err = build(capsys, "FA-100786", "-o", tmp_path / "o2", "--instructor-dir", tmp_path / "o2" / "teacher")
    assert code == 2 and err.count("\n") == 1 and "must be outside the learners' folder" in err


def test_learner_and_instructor_notebooks_pass_nbval(workshop):
    instructor = workshop.with_name("ws-instructor")
    readme = (workshop / "README.md").read_text()
    assert readme.startswith("# Day &lt;1&gt; &amp; more\n") and "OWNER" not in readme and "REPO" not in readme
    assert (workshop / "binder" / "requirements.txt").read_text().splitlines()[-1] == "."
    assert (workshop / "failuremap_edu" / "records" / "FA-100786.json").is_file() and (workshop / "pyproject.toml").is_file()
    # Installing the copied package (Binder's `.` line) turns the news pop-up off, as ours does.
    assert (workshop / "failuremap_edu" / "_jupyter" / "page_config.json").is_file()
    assert '"failuremap_edu/_jupyter/page_config.json" = "etc/jupyter/labconfig/page_config.d/failuremap_edu.json"' in (workshop / "pyproject.toml").read_text()
    start = nbformat.read(workshop / "notebooks" / "00-start-here.ipynb", as_version=4)
    assert "fm.progress_overview(['FA-100786', 'records/TR-000101.json'])" in start.cells[3].source
    assert "presenter=True, log_progress=False" in (instructor / "notebooks" / "FA-100786.ipynb").read_text()
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--nbval-lax", "--nbval-current-env", "-c", "/dev/null",
         str(workshop / "notebooks"), str(instructor / "notebooks")],
        capture_output=True, text=True, timeout=900, cwd=workshop,
    )
    assert proc.returncode == 0, proc.stdout[-3000:]
    notebooks = list((workshop / "notebooks").glob("*.ipynb")) + list((instructor / "notebooks").glob("*.ipynb"))
    cells = sum(1 for nb in notebooks for c in nbformat.read(nb, as_version=4).cells if c.cell_type == "code")
    assert len(notebooks) == 5 and re.search(r"(\d+) passed", proc.stdout).group(1) == str(cells)  # every cell of all five ran


def test_a_records_dir_without_references_gets_no_instructor_notebooks(tmp_path, capsys):
    records = tmp_path / "records"
    records.mkdir()
    shutil.copy(record_path("TR-000202"), records)
    code, stdout, _ = build(capsys, "--records-dir", records, "-o", tmp_path / "ws")
    assert code == 0
    assert "no instructor notebook for TR-000202 (no reference solution: pass --solutions DIR with DIR/ID.py)" in stdout
    assert "No instructor notebook for TR-000202" in (tmp_path / "ws-instructor" / "README.md").read_text()
    assert not list((tmp_path / "ws-instructor").rglob("*.ipynb")) and not (tmp_path / "ws" / "notebooks" / "instructor").exists()


def test_workshop_needs_records(capsys, tmp_path):
    code, _, err = build(capsys, "-o", tmp_path / "x")
    assert code == 2 and "give RECORDs and/or --records-dir" in err


# ---------------------------------------------------------------- links


@pytest.mark.parametrize(
    "repo, folder",
    [
        ("https://github.com/me/course", "course"),
        ("https://github.com/me/course/", "course"),
        ("https://github.com/me/course.git", "course.git"),  # nbgitpuller keeps the suffix: it clones into course.git/
        ("file:///srv/git/day-1.git", "day-1.git"),
        ("https://gitlab.example.org/group/sub/course", "course"),
    ],
)
def test_nbgitpuller_links_have_the_documented_form(repo, folder):
    """nbgitpuller: /hub/user-redirect/git-pull with repo, branch, urlpath; urlpath names the clone folder.

    Its server derives the folder as ``repo.rstrip('/').split('/')[-1]`` when no
    targetPath is given (nbgitpuller/handlers.py, UIHandler), and ``urlpath`` is
    relative to the server root, so it must start with that folder
    (docs/topic/url-options.rst). The hub test follows these links for real.
    """
    assert clone_folder(repo) == folder
    link = nbgitpuller_url("https://hub.example.org/", repo, "notebooks/FA-100786.ipynb", branch="main")
    parts = urlsplit(link)
    assert (parts.scheme, parts.netloc, parts.path) == ("https", "hub.example.org", "/hub/user-redirect/git-pull")
    query = parse_qs(parts.query, strict_parsing=True)
    assert query == {"repo": [repo], "branch": ["main"], "urlpath": [f"lab/tree/{folder}/notebooks/FA-100786.ipynb"]}
    assert [k for k, _ in (p.split("=") for p in parts.query.split("&"))] == ["repo", "branch", "urlpath"]
    assert "targetPath" not in parts.query and "targetpath" not in parts.query  # the default folder is the one urlpath names
    no_branch = parse_qs(urlsplit(nbgitpuller_url("https://hub.example.org/base", repo, "notebooks/x.ipynb")).query)
    assert "branch" not in no_branch  # nbgitpuller then pulls the remote's default branch
    assert urlsplit(nbgitpuller_url("https://hub.example.org/base/", repo, "n.ipynb")).path == "/base/hub/user-redirect/git-pull"


def test_binder_links():
    assert binder_url("https://github.com/me/course") == "https://mybinder.org/v2/gh/me/course/HEAD?urlpath=lab/tree/notebooks/00-start-here.ipynb"
    assert binder_url("https://github.com/me/course.git", "day/1").startswith("https://mybinder.org/v2/gh/me/course/day%2F1?")
    assert binder_url("https://gitlab.com/group/sub/course", "main").startswith("https://mybinder.org/v2/gl/group%2Fsub%2Fcourse/main?")
    assert binder_url("https://git.example.org/course.git").startswith("https://mybinder.org/v2/git/https%3A%2F%2Fgit.example.org%2Fcourse.git/HEAD?")
    link = binder_pull_url("https://github.com/me/env", "https://github.com/me/course", "notebooks/FA-100786.ipynb", "main")
    assert link.startswith("https://mybinder.org/v2/gh/me/env/HEAD?urlpath=git-pull%3Frepo%3D")
    inner = parse_qs(urlsplit(link).query)["urlpath"]
    assert len(inner) == 1 and inner[0].startswith("git-pull?")
    assert parse_qs(inner[0].split("?", 1)[1], strict_parsing=True) == {
        "repo": ["https://github.com/me/course"], "branch": ["main"], "urlpath": ["lab/tree/course/notebooks/FA-100786.ipynb"],
    }


def test_readme_gets_the_badge_and_a_link_per_notebook(tmp_path, capsys):
    out = tmp_path / "ws"
    code, _, err = build(capsys, "FA-100786", "-o", out, "--repo", "https://github.com/me/course", "--branch", "main",
                         "--hub", "https://hub.example.org", "--env-repo", "https://github.com/me/env")
    assert code == 0, err
    readme = (out / "README.md").read_text()
    assert "[![Binder](https://mybinder.org/badge_logo.svg)](https://mybinder.org/v2/gh/me/course/main?urlpath=lab/tree/notebooks/00-start-here.ipynb)" in readme
    for name in ("00-start-here.ipynb", "FA-100786.ipynb"):
        hub = nbgitpuller_url("https://hub.example.org", "https://github.com/me/course", f"notebooks/{name}", "main")
        binder = binder_pull_url("https://github.com/me/env", "https://github.com/me/course", f"notebooks/{name}", "main")
        assert f"| {name} | [open]({hub}) | [open]({binder}) |" in readme
    assert "OWNER" not in readme and "REPO" not in readme


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--hub", "https://hub.example.org"], "--hub needs --repo"),
        (["--env-repo", "https://github.com/me/env"], "--env-repo needs --repo"),
        (["--repo", "github.com/me/course"], "--repo 'github.com/me/course': expected a URL"),
        (["--repo", "https://github.com/me/c", "--hub", "hub.example.org"], "--hub 'hub.example.org': expected a URL"),
    ],
)
def test_bad_link_options_are_one_line(tmp_path, capsys, argv, message):
    code, _, err = build(capsys, "FA-100786", "-o", tmp_path / "ws", *argv)
    assert code == 2 and err.count("\n") == 1 and message in err and not (tmp_path / "ws").exists()


# ---------------------------------------------------------------- input


def markdown(path: str) -> str:
    return "\n".join(c.source for c in nbformat.read(path, as_version=4).cells if c.cell_type == "markdown")


def test_the_same_record_id_twice_is_an_input_error(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    shutil.copy(packaged_records_dir() / "FA-100786.json", "copy.json")
    for refs in (["FA-100786", "FA-100786"], ["FA-100786", "copy.json"]):
        code, out, err = build(capsys, *refs, "-o", "ws")
        assert code == 2 and out == "" and err.count("\n") == 1
        assert err == f"failuremap-edu: error: FA-100786 is given twice (FA-100786 and {refs[1]}): a workshop takes one record per id\n"
        assert not Path("ws").exists()


def test_an_edited_copy_of_a_packaged_record_is_named_and_not_called_verified(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    data = json.loads((packaged_records_dir() / "FA-100786.json").read_text(encoding="utf-8"))
    assert data["verified"] is True
    data["title"] = "My own take on stop strings"
    Path("my-record.json").write_text(json.dumps(data), encoding="utf-8")
    code, _, err = build(capsys, "my-record.json", "-o", "ws", solutions=False)
    assert code == 0
    assert err == "failuremap-edu: warning: my-record.json differs from the packaged FA-100786 (title): using my-record.json\n"
    text = markdown("ws/notebooks/FA-100786.ipynb")
    assert "My own take on stop strings" in text and re.search(r"\| verified[^|]* \| no \|", text)
    assert not list(Path("ws-instructor").rglob("*.ipynb"))  # no --solutions: no instructor notebook
    shutil.copy(packaged_records_dir() / "FA-100786.json", "same.json")
    code, _, err = build(capsys, "same.json", "-o", "ws2")
    assert code == 0 and err == ""  # an exact copy is the packaged record: no warning
    assert re.search(r"\| verified[^|]* \| yes \|", markdown("ws2/notebooks/FA-100786.ipynb"))
    assert Path("ws2-instructor/notebooks/FA-100786.ipynb").is_file()


# ---------------------------------------------------------------- output


def test_a_foreign_folder_is_refused_naming_what_would_be_overwritten(tmp_path, capsys):
    out = tmp_path / "ws"
    (out / "notebooks").mkdir(parents=True)
    (out / "README.md").write_text("my notes\n")
    (out / "notebooks" / "FA-100786.ipynb").write_text("{}")
    code, stdout, err = build(capsys, "FA-100786", "-o", out)
    assert code == 2 and stdout == "" and err.count("\n") == 1
    assert "is not empty and was not made by `failuremap-edu workshop`: README.md, notebooks/FA-100786.ipynb would be overwritten; build into another folder (-o DIR) to keep both, or pass --force" in err
    assert (out / "README.md").read_text() == "my notes\n" and not (out / "LICENSE").exists()
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "data.csv").write_text("1,2\n")
    code, _, err = build(capsys, "FA-100786", "-o", tmp_path / "other")
    assert code == 2 and "it holds data.csv; build into another folder (-o DIR) to keep both, or pass --force" in err
    code, _, _ = build(capsys, "FA-100786", "-o", out, "--force")
    assert code == 0 and (out / "README.md").read_text().startswith("# Failure Map workshop")


def test_out_dot_builds_into_the_working_folder_with_the_instructors_folder_beside_it(tmp_path, capsys, monkeypatch):
    here = tmp_path / "ws"
    here.mkdir()
    monkeypatch.chdir(here)
    code, _, err = build(capsys, "FA-100786", "-o", ".")
    assert code == 0, err
    assert (here / "notebooks" / "FA-100786.ipynb").is_file() and (tmp_path / "ws-instructor" / "solutions" / "FA-100786.py").is_file()
    code, _, err = build(capsys, "FA-100786", "-o", ".")  # a rebuild of our own build
    assert code == 0, err
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("mine\n")
    monkeypatch.chdir(tmp_path / "mine")
    code, _, err = build(capsys, "FA-100786", "-o", ".")  # a folder that is not a build of ours: one line
    assert code == 2 and err.count("\n") == 1 and "holds notes.txt" in err and "--force" in err
    assert sorted(p.name for p in (tmp_path / "mine").iterdir()) == ["notes.txt"]
    code, _, err = build(capsys, "FA-100786", "-o", "/")
    assert code == 2 and err.count("\n") == 1 and "-o DIR" in err


def test_rebuilds_are_safe_until_someone_edits_a_file(tmp_path, capsys):
    out = tmp_path / "ws"
    (out / ".git").mkdir(parents=True)  # a clone of the workshop's repository: git's folder is not ours to judge
    (out / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    assert build(capsys, "FA-100786", "FA-100061", "-o", out)[0] == 0
    manifest = json.loads((out / MANIFEST).read_text())["files"]
    assert "README.md" in manifest and "notebooks/FA-100061.ipynb" in manifest and ".git/HEAD" not in manifest
    (out / "notebooks" / "mine.ipynb").write_text("{}")  # the instructor's own file: never touched
    assert build(capsys, "FA-100786", "-o", out)[0] == 0  # unchanged since: rebuilt, and the dropped exercise is gone
    assert not (out / "notebooks" / "FA-100061.ipynb").exists() and (out / "notebooks" / "mine.ipynb").read_text() == "{}"
    assert not (out.with_name("ws-instructor") / "notebooks" / "FA-100061.ipynb").exists()
    with open(out / "README.md", "a") as fh:
        fh.write("\nRoom 101, bring a laptop.\n")
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    code, stdout, err = build(capsys, "FA-100786", "-o", out)
    assert code == 2 and stdout == "" and err.count("\n") == 1
    assert f"{out} has changed since `failuremap-edu workshop` wrote it: README.md would be overwritten; build into another folder (-o DIR) to keep both, or pass --force" in err
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before
    teacher = out.with_name("ws-instructor")
    (teacher / "solutions" / "FA-100786.py").write_text("# my notes\n")
    code, _, err = build(capsys, "FA-100786", "-o", out, "--force")
    assert code == 0 and "Room 101" not in (out / "README.md").read_text()
    assert (teacher / "solutions" / "FA-100786.py").read_text() == reference_path("FA-100786", REFERENCES).read_text()


def test_an_edited_instructor_folder_is_refused_too(tmp_path, capsys):
    out = tmp_path / "ws"
    assert build(capsys, "FA-100786", "-o", out)[0] == 0
    (out.with_name("ws-instructor") / "README.md").write_text("my plan for the day\n")
    code, _, err = build(capsys, "FA-100786", "-o", out)
    assert code == 2 and f"{out.with_name('ws-instructor')} has changed since" in err and "README.md would be overwritten" in err


def test_folder_hygiene(workshop):
    assert (workshop / ".gitignore").read_text().splitlines() == [".ipynb_checkpoints/", "__pycache__/", ".venv/"]
    assert (workshop / "LICENSE").read_text() == (ROOT / "LICENSE").read_text()
    assert (ROOT / "LICENSE").read_text().startswith("MIT License")
    assert 'license = "MIT"' in (ROOT / "pyproject.toml").read_text() and 'license = "MIT"' in (workshop / "pyproject.toml").read_text()
    # No comment or link points at a file the folder does not have.
    url = re.compile(r"https?://\S+")
    path_like = re.compile(r"(?<![\w./-])((?:[\w.-]+/)+[\w.-]+\.(?:py|txt|ipynb|json|toml|md|cfg))\b")
    for rel in ("binder/requirements.txt", "binder/runtime.txt", "pyproject.toml", ".gitignore"):
        for line in (workshop / rel).read_text().splitlines():
            if line.lstrip().startswith("#"):
                for path in path_like.findall(url.sub("", line)):
                    assert (workshop / path).exists(), f"{rel}: {line!r} names {path}"
    for target in re.findall(r"\]\(([^)]+)\)", (workshop / "README.md").read_text()):
        if not target.startswith("http"):
            assert (workshop / unquote(target)).exists(), target


# ---------------------------------------------------------------- nothing outside the folder, nothing of yours (issue 19)


def _add_to_manifest(out: Path, entries: dict[str, str]) -> None:
    """What anyone with push access to the learners' repository can do to the manifest."""
    data = json.loads((out / MANIFEST).read_text())
    data["files"].update(entries)
    (out / MANIFEST).write_text(json.dumps(data))


def _sha(path: Path) -> str:
    import hashlib

    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("force", [False, True])
def test_manifest_entries_outside_the_folder_are_never_deleted(tmp_path, capsys, force):
    out = tmp_path / "ws"
    assert build(capsys, "FA-100786", "-o", out)[0] == 0
    (tmp_path / "victim.txt").write_text("the instructor's\n")
    far = tmp_path / "far" / "away"
    far.mkdir(parents=True)
    (far / "victim.txt").write_text("someone's\n")
    _add_to_manifest(out, {
        "../victim.txt": _sha(tmp_path / "victim.txt"),
        str(far / "victim.txt"): _sha(far / "victim.txt") if not force else "0" * 64,  # --force needed no sha256
    })
    code, _, err = build(capsys, "FA-100786", "-o", out, *(["--force"] if force else []))
    assert code == 0, err
    assert (tmp_path / "victim.txt").read_text() == "the instructor's\n"
    assert (far / "victim.txt").read_text() == "someone's\n" and far.is_dir()
    assert err.count("\n") == 1 and "'../victim.txt'" in err and str(far / "victim.txt") in err and "outside" in err and "Traceback" not in err
    assert (out / "notebooks" / "FA-100786.ipynb").is_file()
    assert "../victim.txt" not in json.loads((out / MANIFEST).read_text())["files"]


@pytest.mark.parametrize("force", [False, True])
def test_deleting_a_file_of_the_previous_build_follows_no_link(tmp_path, capsys, force):
    out = tmp_path / "ws"
    assert build(capsys, "FA-100786", "-o", out)[0] == 0
    (tmp_path / "linked" / "deeper").mkdir(parents=True)
    (tmp_path / "linked" / "deeper" / "victim.txt").write_text("behind a link\n")
    (out / "notebooks" / "link").symlink_to(tmp_path / "linked")
    _add_to_manifest(out, {"notebooks/link/deeper/victim.txt": _sha(tmp_path / "linked" / "deeper" / "victim.txt")})
    code, _, err = build(capsys, "FA-100786", "-o", out, *(["--force"] if force else []))
    assert code == 0, err
    assert (tmp_path / "linked" / "deeper" / "victim.txt").read_text() == "behind a link\n"
    assert (out / "notebooks" / "link").is_symlink() and (out / "notebooks" / "FA-100786.ipynb").is_file()


@pytest.mark.parametrize("force", [False, True])
def test_a_folder_that_is_a_link_out_of_the_folder_is_refused_in_one_line(tmp_path, capsys, force):
    out = tmp_path / "ws"
    assert build(capsys, "FA-100786", "-o", out)[0] == 0
    victim = tmp_path / "victim"
    (victim / "instructor").mkdir(parents=True)
    (victim / "instructor" / "keep.md").write_text("mine\n")
    (victim / "mine.ipynb").write_text("my own notebook\n")
    shutil.rmtree(out / "notebooks")
    (out / "notebooks").symlink_to("../victim")
    code, stdout, err = build(capsys, "FA-100786", "-o", out, *(["--force"] if force else []))
    assert code == 2 and stdout == "" and err.count("\n") == 1, err
    assert f"{out / 'notebooks'}: a symbolic link out of {out}" in err
    assert sorted(p.name for p in victim.rglob("*")) == ["instructor", "keep.md", "mine.ipynb"]  # nothing written, nothing removed
    assert (victim / "mine.ipynb").read_text() == "my own notebook\n" and (victim / "instructor" / "keep.md").read_text() == "mine\n"


def test_a_file_that_is_a_link_out_of_the_folder_is_not_overwritten_even_with_force(tmp_path, capsys):
    out = tmp_path / "ws"
    assert build(capsys, "FA-100786", "-o", out)[0] == 0
    (tmp_path / "outside.txt").write_text("not yours\n")
    (out / "README.md").unlink()
    (out / "README.md").symlink_to(tmp_path / "outside.txt")
    code, _, err = build(capsys, "FA-100786", "-o", out, "--force")
    assert code == 2 and err.count("\n") == 1 and f"{out / 'README.md'}: a symbolic link out of {out}" in err
    assert (tmp_path / "outside.txt").read_text() == "not yours\n"


def test_force_overwrites_what_we_wrote_and_keeps_what_you_added(tmp_path, capsys):
    out = tmp_path / "ws"
    assert build(capsys, "FA-100786", "-o", out)[0] == 0
    (out / "notebooks" / "instructor").mkdir()
    (out / "notebooks" / "instructor" / "my-notes.md").write_text("my notes\n")
    (out / "failuremap_edu" / "my_patch.py").write_text("# my patch\n")
    (out / "README.md").write_text("edited\n")
    code, _, err = build(capsys, "FA-100786", "-o", out, "--force")
    assert code == 0, err
    assert (out / "notebooks" / "instructor" / "my-notes.md").read_text() == "my notes\n"
    assert (out / "failuremap_edu" / "my_patch.py").read_text() == "# my patch\n"
    assert (out / "README.md").read_text().startswith("# Failure Map workshop")
    # Left with the learners, they might be solutions: said in one line.
    assert "notebooks/instructor/my-notes.md" in err and "left alone" in err
    assert f"{out}: --force overwrote your changes to README.md (this build's version is there now)" in err  # never silently (instructor trial)
    manifest = json.loads((out / MANIFEST).read_text())["files"]
    assert "failuremap_edu/my_patch.py" not in manifest and manifest["README.md"] == _sha(out / "README.md")


def test_a_folder_where_a_file_goes_is_refused_before_anything_changes(tmp_path, capsys):
    out = tmp_path / "ws"
    assert build(capsys, "FA-100786", "FA-100061", "-o", out)[0] == 0
    (out / "LICENSE").unlink()
    (out / "LICENSE").mkdir()
    (out / "LICENSE" / "mine.txt").write_text("mine\n")
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    code, _, err = build(capsys, "FA-100786", "-o", out, "--force")
    assert code == 2 and err.count("\n") == 1 and f"{out / 'LICENSE'}: a folder where a file is to be written" in err
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before


def test_force_keeps_an_edited_file_the_rebuild_no_longer_writes(tmp_path, capsys):
    out = tmp_path / "ws"
    assert build(capsys, "FA-100786", "FA-100061", "-o", out)[0] == 0
    (out / "notebooks" / "FA-100061.ipynb").write_text("my annotated copy\n")
    code, _, err = build(capsys, "FA-100786", "-o", out, "--force")
    assert code == 0, err
    assert (out / "notebooks" / "FA-100061.ipynb").read_text() == "my annotated copy\n"
    assert "notebooks/FA-100061.ipynb" not in json.loads((out / MANIFEST).read_text())["files"]


@pytest.mark.parametrize(
    "argv, platform",
    [
        (["--repo", "file:///srv/course.git", "--hub", "https://hub.example.org"], "hub"),
        (["--repo", "https://github.com/me/course"], "binder"),
        (["--repo", "https://github.com/me/course", "--hub", "https://hub.example.org", "--env-repo", "https://github.com/me/env"], "server"),
        ([], "server"),
    ],
)
def test_learners_notebooks_and_readme_speak_of_where_they_run(tmp_path, capsys, argv, platform):
    """A hub workshop says nothing of Binder, and no badge points Binder at a file:// repository."""
    from failuremap_edu.instructor._notebook import keep_work

    out = tmp_path / "ws"
    code, _, err = build(capsys, "FA-100786", "-o", out, *argv)
    assert code == 0, err
    readme = (out / "README.md").read_text()
    assert keep_work(platform) in readme
    assert "@exercise.check" not in readme and "`@fm.exercise(...)`" in readme
    notebook = (out / "notebooks" / "FA-100786.ipynb").read_text()
    assert json.dumps(keep_work(platform))[1:-1] in notebook
    if platform == "hub":
        assert "Binder" not in readme and "mybinder" not in readme and "Binder" not in notebook


def test_a_hub_workshop_gives_the_instructor_a_hub_config_and_zero_to_jupyterhub_values(tmp_path, capsys):
    import yaml

    from failuremap_edu.instructor._workshop import HUB_CONFIG, Z2JH_CONFIG

    out = tmp_path / "ws"
    code, _, err = build(capsys, "FA-100786", "-o", out, "--repo", "https://github.com/me/course", "--hub", "https://hub.example.org")
    assert code == 0, err
    teacher = out.with_name("ws-instructor")
    config = (teacher / HUB_CONFIG).read_text()
    compile(config, HUB_CONFIG, "exec")
    for needed in ("c.Authenticator.allow_all = True", "--allow-root", 'c.Spawner.environment = {"PATH": ENV_BIN', "jupyterhub-singleuser", "c.Spawner.mem_limit = '1G'",
                   'c.JupyterHub.bind_url = "http://0.0.0.0:443/"  # CHANGE', "# c.ConfigurableHTTPProxy.command = ", "home_dir_template = '/srv/workshop/homes/{username}'  # CHANGE",
                   "OUTSIDE any git repository", "jupyterhub_config_local.py"):
        assert needed in config, needed
    assert "jupyterhub.sqlite" in (teacher / ".gitignore").read_text() and "jupyterhub_cookie_secret" in (teacher / ".gitignore").read_text()
    values = yaml.safe_load((teacher / Z2JH_CONFIG).read_text())
    single = values["singleuser"]
    assert {"name", "tag"} <= set(single["image"]) and single["memory"] == {"guarantee": "128M", "limit": "1G"}
    assert {"guarantee", "limit"} <= set(single["cpu"]) and values["cull"] == {"enabled": True, "timeout": 3600, "every": 300}
    assert "nbgitpuller" in (out / "binder" / "requirements.txt").read_text().splitlines()
    notes = (teacher / "README.md").read_text()
    assert HUB_CONFIG in notes and Z2JH_CONFIG in notes and "large font" not in notes and "View → Appearance → Presentation Mode" in notes
    assert not (out / HUB_CONFIG).exists() and not (out / Z2JH_CONFIG).exists()  # the learners' repository holds no hub secrets or settings


def test_a_hub_runs_a_learners_environment_built_from_the_wheel_and_refuses_one_beside_references(tmp_path, capsys):
    """Issue 31: the hub config pointed the learners' servers at the instructor's editable install, references/ beside it."""
    from traitlets.config import Config

    from failuremap_edu.instructor._hub import LEARNERS_ENV, LEARNERS_ENV_SCRIPT
    from failuremap_edu.instructor._workshop import HUB_CONFIG, hub_config

    out = tmp_path / "ws"
    assert build(capsys, "FA-100786", "-o", out, "--repo", "https://github.com/me/course", "--hub", "https://hub.example.org")[0] == 0
    teacher = out.with_name("ws-instructor")
    config = (teacher / HUB_CONFIG).read_text()
    assert f"ENV_BIN = '{LEARNERS_ENV}/bin'" in config and str(Path(sys.executable).parent) not in config
    script = (teacher / LEARNERS_ENV_SCRIPT).read_text()
    assert subprocess.run(["sh", "-n", teacher / LEARNERS_ENV_SCRIPT]).returncode == 0
    install = next(line for line in script.splitlines() if "pip install" in line)
    assert '"$LEARNERS"' in install and " -e " not in install and f'LEARNERS="${{2:-{out.resolve()}}}"' in script
    assert f"`sh {LEARNERS_ENV_SCRIPT}` builds" in (teacher / "README.md").read_text()

    def load(env_bin) -> None:
        exec(compile(hub_config("http://127.0.0.1:18300", env_bin=str(env_bin)), HUB_CONFIG, "exec"), {"get_config": Config, "__file__": str(tmp_path / HUB_CONFIG)})

    with pytest.raises(SystemExit, match=r"runs failuremap-edu from .*, beside its references/ \(reference solutions\)"):
        load(Path(sys.executable).parent)  # this environment: an editable install of a checkout
    with pytest.raises(SystemExit, match="no failuremap-edu in .*: build the learners' environment first: sh learners-env.sh"):
        load(tmp_path / "nowhere")


def test_the_hub_config_runs_the_class_collector_and_waits_for_a_slow_first_spawn(tmp_path):
    """Issue 36: the collector is a managed service whose URL the learners' kernels get; spawns may take 240 s."""
    from traitlets.config import Config

    from failuremap_edu.instructor._workshop import HUB_CONFIG, hub_config

    env_bin = tmp_path / "env" / "bin"
    env_bin.mkdir(parents=True)
    (env_bin / "python").write_text("#!/bin/sh\necho /an-environment-without-references\n")
    (env_bin / "python").chmod(0o755)
    c = Config()
    exec(compile(hub_config("http://127.0.0.1:18300", env_bin=str(env_bin), collector_port=18301), HUB_CONFIG, "exec"),
         {"get_config": lambda: c, "__file__": str(tmp_path / HUB_CONFIG)})
    (service,) = c.JupyterHub.services
    assert service["name"] == "failuremap" and service["url"] == "http://127.0.0.1:18301"
    assert service["command"][:5] == [sys.executable, "-m", "failuremap_edu", "serve", "--db"]  # the hub's own failuremap-edu
    assert service["command"][5] == f"sqlite:///{tmp_path / 'failuremap-runs.sqlite'}"  # beside the config
    assert c.Spawner.environment["FAILUREMAP_SERVICE_URL"] == "http://127.0.0.1:18301/services/failuremap/"
    assert c.JupyterHub.load_roles == [{"name": "failuremap-collector", "services": ["failuremap"], "scopes": ["read:users"]}]
    assert (c.Spawner.start_timeout, c.Spawner.http_timeout) == (240, 240)


def test_the_hub_guides_commands_match_the_generated_config():
    """Issue 36: the hub guide's --homes glob is the config's home_dir_template, and the start command is there."""
    import re

    from failuremap_edu.instructor._workshop import hub_config

    section = (Path(__file__).resolve().parents[1] / "docs" / "how-to" / "hub-one-machine.md").read_text(encoding="utf-8")
    template = re.search(r"home_dir_template = '([^']+)'", hub_config("http://127.0.0.1:18300")).group(1)
    globs = re.findall(r"--homes '([^']+)'", section)
    assert globs == [template.replace("{username}", "*")]
    assert "jupyterhub -f /path/to/ws-instructor/jupyterhub_config.py" in section and "npm install configurable-http-proxy" in section


def test_the_instructors_readme_shows_the_live_view_over_the_homes_the_config_makes(tmp_path, capsys):
    """Issue 36: the --homes glob in the instructor's README is the generated config's home_dir_template."""
    import re

    out = tmp_path / "ws"
    assert build(capsys, "FA-100786", "-o", out, "--repo", "https://github.com/me/course", "--hub", "https://hub.example.org")[0] == 0
    teacher = out.with_name("ws-instructor")
    template = re.search(r"home_dir_template = '([^']+)'", (teacher / "jupyterhub_config.py").read_text()).group(1)
    notes = (teacher / "README.md").read_text()
    assert re.findall(r"--homes '?([^' ]+)'? --watch", notes) == [template.replace("{username}", "*")]
    assert "report --service http://HUB/services/failuremap/ --token TOKEN --watch" in notes


def test_a_hub_on_this_machine_is_configured_to_stay_on_loopback():
    """The instructor trial gave --hub http://127.0.0.1:18300 and got a hub listening on every interface."""
    from failuremap_edu.instructor._workshop import hub_config

    assert 'c.JupyterHub.bind_url = "http://127.0.0.1:18300/"' in hub_config("http://127.0.0.1:18300")


def test_without_a_hub_no_hub_config_and_no_nbgitpuller(tmp_path, capsys):
    from failuremap_edu.instructor._workshop import HUB_CONFIG

    out = tmp_path / "ws"
    assert build(capsys, "FA-100786", "-o", out)[0] == 0
    assert not (out.with_name("ws-instructor") / HUB_CONFIG).exists()
    assert "nbgitpuller" not in (out / "binder" / "requirements.txt").read_text()
def test_the_references_come_only_from_the_solutions_folder_given(tmp_path, capsys):
    """None is looked up beside the package (an editable install's references/, say): --solutions DIR gives them, to the instructor's folder."""
    code, stdout, _ = build(capsys, "FA-100786", "-o", tmp_path / "bare", solutions=False)
    assert code == 0 and "no instructor notebook for FA-100786 (no reference solution: pass --solutions DIR with DIR/ID.py)" in stdout
    assert not (tmp_path / "bare-instructor" / "solutions").exists()
    code, stdout, _ = build(capsys, "FA-100786", "-o", tmp_path / "ws", "--solutions", ROOT / "references")
    assert code == 0
    assert leaks(tmp_path / "ws", BODIES) == []
    found = leaks(tmp_path / "ws-instructor", BODIES)
    assert "solutions/FA-100786.py: FA-100786 reference" in found and "notebooks/FA-100786.ipynb: FA-100786 reference" in found


def _contents(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("force", [False, True])
def test_a_full_disk_is_one_line_naming_the_destination_and_the_old_build_stays(small_disk, capsys, force):
    out = small_disk.root / "ws"
    assert main(["workshop", "FA-100061", "-o", str(out)]) == 0
    before, before_teacher = _contents(out), _contents(small_disk.root / "ws-instructor")
    (out / "notebooks" / "FA-100061.ipynb").write_text("{}")  # edited: only --force rebuilds it
    before["notebooks/FA-100061.ipynb"] = b"{}"
    small_disk.fill()
    capsys.readouterr()
    argv = ["workshop", "FA-100061", "-o", str(out)] + (["--force"] if force else [])
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    if force:  # refused for the edit otherwise, before anything is built
        assert f"{small_disk.root}/ws" in err and "No space left on device" in err and "failuremap_edu/_" not in err.split(": cannot")[0]
        assert err.split(": cannot write")[0].startswith(f"failuremap-edu: error: {small_disk.root}/ws")  # the destination, not our source
    assert _contents(out) == before and _contents(small_disk.root / "ws-instructor") == before_teacher
    assert [p.name for p in small_disk.root.iterdir() if p.name.startswith(".failuremap")] == []  # no staging folder left


def test_with_solutions_needs_a_solution_for_every_exercise(tmp_path, capsys):
    """No folder, or one without ID.py: refused in one line, nothing written (a self-study folder without solutions said it had them)."""
    out = tmp_path / "self"
    code, stdout, err = build(capsys, "FA-100786", "-o", out, "--with-solutions", solutions=False)
    assert code == 2 and err.count("\n") == 1 and "none for FA-100786 (no --solutions DIR given)" in err
    (tmp_path / "empty").mkdir()
    code, _, err = build(capsys, "FA-100786", "-o", out, "--with-solutions", "--solutions", tmp_path / "empty")
    assert code == 2 and f"no FA-100786.py in {tmp_path / 'empty'}" in err
    assert not out.exists() and not tmp_path.joinpath("self-instructor").exists()


def test_instructor_notes_without_solutions_say_there_are_no_instructor_notebooks(tmp_path, capsys):
    code, stdout, _ = build(capsys, "FA-100786", "-o", tmp_path / "ws", solutions=False)
    notes = (tmp_path / "ws-instructor" / "README.md").read_text()
    assert code == 0 and "No instructor notebook for FA-100786: no reference solution was given" in notes
    assert "holds one instructor notebook per exercise" not in notes and not (tmp_path / "ws-instructor" / "notebooks").exists()
