"""Workshops: a folder for the learners, and a separate one for the instructor.

``failuremap-edu workshop RECORD... -o DIR`` writes DIR for learners to get, by
Binder or by an nbgitpuller link to a JupyterHub: learner notebooks, a
start-here notebook, a ``binder/`` configuration and a copy of this package for
Binder to install. Nothing in DIR reveals an answer: no instructor notebook, and
the package holds no reference solution (instructor notebooks take them from
``--solutions DIR`` only, say the repository's ``references/``). The instructor notebooks, the
reference solutions and the notes go to a separate folder (``DIR-instructor``),
unless the instructor asks for a self-study folder (``with_solutions``).

Rebuilding is safe (`_output`): each folder keeps a manifest of the files written
and their sha256, and a folder that the command did not write, or that changed
since, is refused (naming the files that would be overwritten) unless ``force``
is given; ``force`` overwrites what the command writes and leaves every other
file alone. Only files of the previous build, unchanged since, are removed, and
nothing is written through a symbolic link out of the folder. Everything is
built in a staging folder first, so a refused or failed build leaves the
targets as they were.

Links are built with `urllib.parse` in the forms nbgitpuller's link generator
writes: ``HUB/hub/user-redirect/git-pull?repo=…&branch=…&urlpath=lab/tree/FOLDER/…``
where FOLDER is what nbgitpuller clones into (the last part of the repository
URL, as its server derives it), and the Binder form that pulls the content into an
environment repository: ``https://mybinder.org/v2/gh/ENV/HEAD?urlpath=git-pull%3F…``.
"""

from __future__ import annotations

import dataclasses
import json
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable
from urllib.parse import quote, urlencode, urlsplit

from .._atomic import WriteError
from .._errors import InputError
from ._hub import HUB_CONFIG, LEARNERS_ENV_SCRIPT, Z2JH_CONFIG, hub_config, learners_env_script, live_view_lines, z2jh_config
from ._nbjson import writes
from ._notebook import SharedRuns, build_notebook, build_start_here, keep_work, md
from ._output import check_target, folder_files, install
from .._records import Record, list_records, load_record, packaged_records_dir
from ..runner import isolation_default
from .._solution import load_solution

__all__ = [
    "MANIFEST",
    "Workshop",
    "WorkshopError",
    "binder_pull_url",
    "binder_url",
    "clone_folder",
    "nbgitpuller_url",
    "write_workshop",
]

MANIFEST = ".failuremap-workshop.json"
"""In each folder the command writes: every file it wrote, with its sha256."""
START = "notebooks/00-start-here.ipynb"
BINDER = "https://mybinder.org"
GITIGNORE = ".ipynb_checkpoints/\n__pycache__/\n.venv/\n"


class WorkshopError(InputError):
    """A workshop cannot be built as asked (duplicate ids, an output folder to protect, a bad link option)."""


@dataclass(frozen=True)
class Workshop:
    """What `write_workshop` wrote, for the command to report."""

    out_dir: Path
    """The learners' folder."""
    instructor_dir: Path
    """The instructor's folder: instructor notebooks, reference solutions, notes."""
    exercises: tuple[str, ...]
    """Record ids, in the order given."""
    learner_notebooks: tuple[Path, ...]
    instructor_notebooks: tuple[Path, ...]
    """In `instructor_dir` (and, with solutions, also in the learners' folder)."""
    solutions: tuple[Path, ...]
    """The reference solutions copied into `instructor_dir`."""
    skipped: tuple[str, ...]
    """Records without a reference solution, so without an instructor notebook."""
    warnings: tuple[str, ...]
    """One line each, e.g. a record file that differs from the packaged record with its id."""
    with_solutions: bool


# ------------------------------------------------------------------ links


def _check_url(url: str, option: str, schemes: tuple[str, ...], *, needs_path: bool = True) -> None:
    parts = urlsplit(url)
    if parts.scheme not in schemes or not (parts.netloc or parts.scheme == "file") or (needs_path and not parts.path.strip("/")):
        raise WorkshopError(f"{option} {url!r}: expected a URL starting with {' or '.join(s + '://' for s in schemes)}")


def clone_folder(repo: str) -> str:
    """The folder nbgitpuller clones `repo` into: the last part of the URL, as its server derives it.

    nbgitpuller's ``git-pull`` handler uses ``repo.rstrip('/').split('/')[-1]`` when
    no ``targetPath`` is given, so ``…/course.git`` becomes ``course.git``.
    """
    return repo.rstrip("/").split("/")[-1]


def _binder_spec(repo: str, ref: str | None) -> str:
    """Binder's provider path for a repository: ``gh/OWNER/REPO/REF``, ``gl/…`` or ``git/…``."""
    parts = urlsplit(repo)
    path = parts.path.strip("/")
    path = path[: -len(".git")] if path.endswith(".git") else path
    ref = quote(ref or "HEAD", safe="")
    if parts.netloc.lower() in ("github.com", "www.github.com") and path.count("/") == 1:
        return f"gh/{path}/{ref}"
    if parts.netloc.lower() == "gitlab.com" and path:
        return f"gl/{quote(path, safe='')}/{ref}"
    return f"git/{quote(repo, safe='')}/{ref}"


def binder_url(repo: str, branch: str | None = None, path: str = START) -> str:
    """Binder builds `repo` itself and opens `path` in JupyterLab."""
    return f"{BINDER}/v2/{_binder_spec(repo, branch)}?{urlencode({'urlpath': f'lab/tree/{path}'}, safe='/')}"


def _pull_query(repo: str, path: str, branch: str | None) -> str:
    params = [("repo", repo)] + ([("branch", branch)] if branch else []) + [("urlpath", f"lab/tree/{clone_folder(repo)}/{path}")]
    return urlencode(params)


def nbgitpuller_url(hub: str, repo: str, path: str, branch: str | None = None) -> str:
    """A JupyterHub link: log in, start the server, pull `repo` with nbgitpuller, open `path` in JupyterLab."""
    return f"{hub.rstrip('/')}/hub/user-redirect/git-pull?{_pull_query(repo, path, branch)}"


def binder_pull_url(env_repo: str, repo: str, path: str, branch: str | None = None) -> str:
    """Binder builds `env_repo` (rarely changes, so it is cached), then nbgitpuller pulls `repo` into it."""
    return f"{BINDER}/v2/{_binder_spec(env_repo, None)}?{urlencode({'urlpath': 'git-pull?' + _pull_query(repo, path, branch)})}"


# ------------------------------------------------------------------ records


def _load_all(refs: list[str]) -> tuple[list[tuple[str, Record]], list[str]]:
    """Each record with how it was given; warnings for edited copies of packaged ones.

    Two records with one id would give one notebook two sources: refused.
    """
    loaded: list[tuple[str, Record]] = []
    warnings: list[str] = []
    seen: dict[str, str] = {}
    packaged = set(list_records())
    for ref in refs:
        record = load_record(ref)
        if record.id in seen:
            raise WorkshopError(f"{record.id} is given twice ({seen[record.id]} and {ref}): a workshop takes one record per id")
        seen[record.id] = ref
        if not record.packaged and record.id in packaged:
            differing = _differing_fields(Path(ref), packaged_records_dir() / f"{record.id}.json")
            if differing:
                warnings.append(f"{ref} differs from the packaged {record.id} ({', '.join(differing)}): using {ref}")
                # Its top-level sha256 cannot be checked, so its "verified" claim cannot be either.
                record = dataclasses.replace(record, verified=False)
        loaded.append((ref, record))
    return loaded, warnings


def _differing_fields(path: Path, packaged: Path) -> list[str]:
    ours = json.loads(path.read_text(encoding="utf-8"))
    theirs = json.loads(packaged.read_text(encoding="utf-8"))
    return sorted(k for k in set(ours) | set(theirs) if ours.get(k) != theirs.get(k))


# ------------------------------------------------------------------ writing


class _Folder:
    """A staging folder whose files are recorded as they are written.

    A file that cannot be written there (a full disk) raises `WriteError` naming where
    it was to go, in `destination`: nothing there has been touched yet.
    """

    def __init__(self, root: Path, platform: str = "server", destination: Path | None = None, isolation: str | None = None) -> None:
        self.root = root
        self.platform = platform
        """Where its notebooks will run (`_notebook.PLATFORMS`): their texts say only what holds there."""
        self.destination = destination or root
        self.isolation = isolation
        """The runner's isolation for the runs that build its notebooks (``sandbox``: ``--sandbox``)."""
        self.files: list[str] = []

    def _staged(self, rel: str, put: Callable[[Path], object]) -> Path:
        path = self.root / rel
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            put(path)
        except OSError as exc:
            raise WriteError(self.destination / rel, exc, True, kept=f"{self.destination} is as it was") from None
        self.files.append(rel)
        return path

    def write(self, rel: str, text: str) -> Path:
        return self._staged(rel, lambda path: path.write_text(text, encoding="utf-8"))

    def copy(self, source: Path, rel: str) -> Path:
        data = Path(source).read_bytes()  # byte for byte, like the packaged records; a source that cannot be read is named
        return self._staged(rel, lambda path: path.write_bytes(data))

    def notebook(self, folder: str, ref: str, record: Record, runs: SharedRuns, *, instructor: bool = False, solution=None) -> Path:
        """One notebook in `folder`, its outputs from `runs`; a record given by path is copied beside it, as `notebook` does."""
        if record.packaged:
            in_notebook = record.id
        else:
            in_notebook = f"records/{record.id}.json"
            self.copy(Path(ref), f"{folder}/{in_notebook}")
        with isolation_default(self.isolation):  # build_notebook takes no isolation of its own
            nb = build_notebook(record, in_notebook, instructor=instructor, solution=solution, platform=self.platform, runs=runs.for_record(record))
        return self.write(f"{folder}/{record.id}.ipynb", writes(nb) + "\n")


def _names(rels: list[str], limit: int = 6) -> str:
    return ", ".join(rels[:limit]) + (f" and {len(rels) - limit} more" if len(rels) > limit else "")


def _left_with_learners(out_dir: Path, written: list[str]) -> list[str]:
    """Files someone else put where answers would be (an older layout, a copy by hand): left alone, but said."""
    ours = set(written)
    left = [
        rel for rel in folder_files(out_dir, skip=(MANIFEST,))
        if rel.startswith(("notebooks/instructor/", "failuremap_edu/references/")) and rel not in ours
    ]
    if not left:
        return []
    return [f"{out_dir}: {_names(left)} not written by this command, left alone: remove them if they hold solutions (learners get this folder)"]


def default_instructor_dir(out_dir: Path) -> Path:
    """``OUT-instructor`` beside the learners' folder, also for ``-o .`` or ``-o ..``."""
    named = out_dir if out_dir.name not in ("", "..") else out_dir.resolve()
    if not named.name:
        raise WorkshopError(f"{out_dir}: cannot hold the learners' folder (it has no name to put -instructor after); choose another -o DIR")
    return named.with_name(named.name + "-instructor")


def write_workshop(
    refs: list[str],
    out_dir: Path,
    title: str | None = None,
    solutions_dir: str | None = None,
    progress: Callable[[int, int], None] | None = None,
    *,
    instructor_dir: Path | None = None,
    with_solutions: bool = False,
    repo: str | None = None,
    branch: str | None = None,
    hub: str | None = None,
    env_repo: str | None = None,
    force: bool = False,
    isolation: str | None = None,
    runs: SharedRuns | None = None,
) -> Workshop:
    """Write the learners' folder `out_dir` and the instructor's folder (default: ``OUT-instructor`` beside it).

    `repo` (with `branch`) is where the instructor will push `out_dir`: it fills the
    Binder badge, and with `hub` or `env_repo` the README gets a JupyterHub or a
    Binder nbgitpuller link for each notebook. `isolation` is the runner's, for every
    run that builds a notebook (``sandbox``: ``workshop --sandbox``). A record's notebooks share its runs: `runs`,
    or a `SharedRuns` made for this workshop.
    """
    out_dir = Path(out_dir)
    runs = SharedRuns() if runs is None else runs
    instructor_dir = Path(instructor_dir) if instructor_dir is not None else default_instructor_dir(out_dir)
    if repo is not None:
        _check_url(repo, "--repo", ("https", "http", "file", "ssh", "git"))
    if (hub or env_repo) and not repo:
        raise WorkshopError(f"{'--hub' if hub else '--env-repo'} needs --repo: the repository learners pull the notebooks from")
    if hub is not None:
        _check_url(hub, "--hub", ("https", "http"), needs_path=False)
    if env_repo is not None:
        _check_url(env_repo, "--env-repo", ("https", "http"))
    a, b = out_dir.resolve(), instructor_dir.resolve()
    if a == b or a in b.parents or b in a.parents:
        raise WorkshopError(f"{instructor_dir}: the instructor's folder must be outside the learners' folder {out_dir} (and not hold it)")
    if not refs:
        raise WorkshopError("no records: give RECORDs and/or --records-dir")

    license_text = _license()
    records, warnings = _load_all(list(refs))
    solutions = {}
    for _, record in records:
        given = Path(solutions_dir) / f"{record.id}.py" if solutions_dir else None
        if given is not None and given.is_file():  # only from there: nothing is looked up beside the package (a learner may run this too)
            solutions[record.id] = load_solution(given)
    if with_solutions and len(solutions) < len(records):
        missing = ", ".join(record.id for _, record in records if record.id not in solutions)
        where = f"no {missing}.py in {solutions_dir}" if solutions_dir else "no --solutions DIR given"
        raise WorkshopError(f"--with-solutions puts a reference solution beside every exercise, and there is none for {missing} ({where}): "
                            "pass --solutions DIR with DIR/ID.py")

    parent = out_dir.resolve().parent
    parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".failuremap-workshop-", dir=parent) as staging:
        # Where the learners' notebooks run: a hub alone, Binder alone, or either (both links): then the texts that hold on both.
        learners = _Folder(Path(staging) / "learners", "hub" if hub and not env_repo else "binder" if repo and not hub else "server", out_dir,
                           isolation)
        teacher = _Folder(Path(staging) / "instructor", destination=instructor_dir, isolation=isolation)
        learner_nbs, instructor_nbs, copied, entries, record_refs = [], [], [], [], []
        for done, (ref, record) in enumerate(records):
            if progress is not None:
                progress(done, len(records))
            path = learners.notebook("notebooks", ref, record, runs)
            learner_nbs.append(out_dir / path.relative_to(learners.root))
            entries.append((record.id, record.category, path.name))
            record_refs.append(record.id if record.packaged else f"records/{record.id}.json")
            solution = solutions.get(record.id)
            if solution is None:
                continue
            path = teacher.notebook("notebooks", ref, record, runs, instructor=True, solution=solution)
            instructor_nbs.append(instructor_dir / path.relative_to(teacher.root))
            copied.append(instructor_dir / teacher.write(f"solutions/{record.id}.py", solution.source).relative_to(teacher.root))
            if with_solutions:
                path = learners.notebook("notebooks/instructor", ref, record, runs, instructor=True, solution=solution)
                instructor_nbs.append(out_dir / path.relative_to(learners.root))
        if progress is not None:
            progress(len(records), len(records))
        title = title or "Failure Map workshop"
        learners.write(START, writes(build_start_here(entries, title, record_refs, platform=learners.platform)) + "\n")
        learner_nbs.insert(0, out_dir / START)
        _package_copy(learners, with_solutions)
        learners.write("pyproject.toml", _WORKSHOP_PYPROJECT)
        learners.write("binder/requirements.txt", _binder_requirements(pull=bool(hub)))
        learners.write("binder/runtime.txt", "python-3.11\n")
        learners.write(".gitignore", GITIGNORE)
        learners.write("LICENSE", license_text)
        skipped = tuple(record.id for _, record in records if record.id not in solutions)
        links = _links(entries, repo, branch, hub, env_repo)
        learners.write("README.md", _learner_readme(title, entries, repo, branch, links, with_solutions, learners.platform))
        teacher.write("README.md", _instructor_notes(title, out_dir, entries, solutions, skipped, links, hub))
        if hub:
            teacher.write(HUB_CONFIG, hub_config(hub, title=title))
            teacher.write(LEARNERS_ENV_SCRIPT, learners_env_script(out_dir))
            teacher.write(Z2JH_CONFIG, z2jh_config(title=title))
            # A hub started here leaves its database and secrets beside the config: never commit them.
            teacher.write(".gitignore", "jupyterhub.sqlite\njupyterhub_cookie_secret\njupyterhub-proxy.pid\n*.pid\njupyterhub_config_local.py\nfailuremap-runs.sqlite*\n")

        # Both checked before either is touched: a refusal leaves both as they were.
        learners_target = check_target(out_dir, learners.files, force, MANIFEST, "workshop")
        teacher_target = check_target(instructor_dir, teacher.files, force, MANIFEST, "workshop")
        warnings += learners_target.warnings + teacher_target.warnings
        for folder, target in ((learners, learners_target), (teacher, teacher_target)):
            try:
                install(folder.root, folder.files, target, MANIFEST)
            except OSError as exc:  # the manifest is written before anything in the folder changes
                raise WriteError(folder.destination, exc, True, kept=f"{folder.destination} is as it was") from None
        if not with_solutions:
            warnings += _left_with_learners(out_dir, learners.files)

    return Workshop(
        out_dir, instructor_dir, tuple(record.id for _, record in records), tuple(learner_nbs), tuple(instructor_nbs),
        tuple(copied), skipped, tuple(warnings), with_solutions,
    )


def _package_copy(folder: _Folder, with_solutions: bool) -> None:
    """The kernel side of this package, for Binder's ``.`` line to install: never `instructor/` (nor the CLI's ``__main__``); our reference solutions only if asked."""
    root = Path(__file__).resolve().parents[1]
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if not path.is_file() or "__pycache__" in rel.parts or path.suffix == ".pyc":
            continue
        if rel.parts[0] in ("instructor", "__main__.py") or (rel.parts[0] == "references" and not with_solutions):
            continue
        folder.copy(path, f"failuremap_edu/{rel.as_posix()}")


def _links(entries, repo, branch, hub, env_repo) -> list[tuple[str, str | None, str | None]]:
    """(notebook, JupyterHub link, Binder link) for the start-here notebook and each exercise."""
    if not repo or not (hub or env_repo):
        return []
    paths = [START] + [f"notebooks/{name}" for _, _, name in entries]
    return [
        (path, nbgitpuller_url(hub, repo, path, branch) if hub else None, binder_pull_url(env_repo, repo, path, branch) if env_repo else None)
        for path in paths
    ]


def _link_lines(links) -> list[str]:
    if not links:
        return []
    hub, binder = any(h for _, h, _ in links), any(b for _, _, b in links)
    head = "| notebook |" + (" JupyterHub |" if hub else "") + (" Binder |" if binder else "")
    rows = [head, "|---|" + ("---|" if hub else "") + ("---|" if binder else "")]
    for path, h, b in links:
        rows.append(f"| {md(path.split('/')[-1])} |" + (f" [open]({h}) |" if hub else "") + (f" [open]({b}) |" if binder else ""))
    return rows


def _learner_readme(title, entries, repo, branch, links, with_solutions, platform="server") -> str:
    lines = [f"# {md(title, 200)}", ""]
    binder_badge = platform != "hub" and urlsplit(repo or "").scheme in ("https", "http")  # Binder cannot build a file:// repository
    if binder_badge:
        lines += [f"[![Binder](https://mybinder.org/badge_logo.svg)]({binder_url(repo, branch)})", ""]
    lines += [
        "Open `notebooks/00-start-here.ipynb` first. Each exercise notebook gives you a function `solve` to fix: "
        "edit it in the cell with the line `@fm.exercise(...)` right above `def solve`, and run that cell (Shift+Enter).",
        "",
        "| exercise | what fails |",
        "|---|---|",
        *[f"| [{md(record_id)}](notebooks/{name}) | {md(text, 200)} |" for record_id, text, name in entries],
        "",
    ]
    if links:
        lines += ["## Links that open the notebooks", "", "Each link starts your server, pulls this repository into it and opens the notebook.", ""]
        lines += _link_lines(links) + [""]
    lines += [
        "## Keep your work",
        "",
        keep_work(platform) + " The exercise panel's links download your `solve` (.py) and your results (.json).",
        "",
    ]
    if with_solutions:
        lines += ["Reference solutions are in `notebooks/instructor/`: try first, then compare.", ""]
    if platform != "hub" and not binder_badge:
        lines += ["<!-- No Binder badge: rebuild with `failuremap-edu workshop ... --repo URL` (an https URL) once the repository exists. -->", ""]
    return "\n".join(lines)


def _instructor_notes(title, out_dir, entries, solutions, skipped, links, hub) -> str:
    lines = [
        f"# {md(title, 200)}: instructor material",
        "",
        f"Not for learners: keep this folder out of the learners' repository (`{md(str(out_dir))}`), which holds no reference solution.",
        "",
        "## Instructor notebooks",
        "",
    ]
    if solutions:
        lines += [
            "`notebooks/` holds one instructor notebook per exercise with a reference solution (`solutions/`): the reference "
            "filled in, every hint open, and presenter aids in the panel: reveal or hide everything at once. For the back of "
            "the room, JupyterLab's *View → Appearance → Presentation Mode* and *Settings → Theme → Increase Content Font Size* "
            "enlarge the notebook. Run them where `failuremap-edu` is installed (for example `pip install -e` of the learners' folder). "
            "Runs marked as an instructor's are left out of the class report.",
            "",
        ]
    lines += [f"- {md(record_id)}: `notebooks/{record_id}.ipynb`, `solutions/{record_id}.py`" for record_id, _, _ in entries if record_id in solutions]
    if skipped:
        lines += ["", "No instructor notebook for " + ", ".join(md(s) for s in skipped) + ": no reference solution was given "
                  "(pass `--solutions DIR` with `DIR/ID.py`)."]
    lines += [""]
    if links:
        lines += ["## Links for the learners", "", "The same links are in the learners' README."]
        if hub:
            lines += [
                f"The learners' servers run the environment `sh {LEARNERS_ENV_SCRIPT}` builds: `failuremap-edu` from a wheel of the "
                "learners' folder (no reference solution in it) and `nbgitpuller`, never your own, whose editable install has "
                "the reference solutions beside it. "
                f"`{HUB_CONFIG}` here is a JupyterHub configuration for one machine (the one failuremap_edu's hub test runs; "
                f"change the lines marked CHANGE), and `{Z2JH_CONFIG}` the Helm values for Zero to JupyterHub on Kubernetes, "
                "past one machine: about 60 MB of memory per learner, measured."
            ]
        lines += [""] + _link_lines(links) + [""] + (live_view_lines() if hub else [])
    lines += [
        "## Collecting results",
        "",
        "Learners hand in the results file (.json) that the panel downloads, or the file `failuremap-edu export` writes; "
        "both carry a pseudonymous learner id. Put them in one folder, then:",
        "",
        "```sh",
        "failuremap-edu report FOLDER                  # where the class got stuck, per exercise and check",
        "failuremap-edu report FOLDER --html report.html",
        "```",
        "",
    ]
    return "\n".join(lines)


_WORKSHOP_PYPROJECT = """[build-system]
requires = ["hatchling>=1.24"]
build-backend = "hatchling.build"

[project]
name = "failuremap-edu"
dynamic = ["version"]
requires-python = ">=3.11"
license = "MIT"
dependencies = ["jupyterlab>=4.2", "ipywidgets>=8.1", "matplotlib>=3.8", "nbformat>=5.9", "tqdm>=4.66", "psutil>=5.9; sys_platform != 'emscripten'"]

# The learner's commands only (check, export): the instructor's are not in this folder.
[project.scripts]
failuremap-edu = "failuremap_edu._command:main"

[tool.hatch.version]
path = "failuremap_edu/__init__.py"

[tool.hatch.build.targets.wheel]
packages = ["failuremap_edu"]

# Turns JupyterLab's news pop-up off in the environment the package is installed in.
[tool.hatch.build.targets.wheel.shared-data]
"failuremap_edu/_jupyter/page_config.json" = "etc/jupyter/labconfig/page_config.d/failuremap_edu.json"
"failuremap_edu/_jupyter/widgets_settings.json" = "share/jupyter/lab/settings/overrides.d/failuremap_edu.json"
"""


def _binder_requirements(pull: bool = False) -> str:
    """The pins this project's own binder/ is tested with, with comments that fit the workshop folder.

    With `pull` (a hub, or an environment repository that learners pull content into), nbgitpuller too:
    the image a hub runs (Zero to JupyterHub's, built by repo2docker from this folder) needs it."""
    ours = Path(__file__).resolve().parents[2] / "binder" / "requirements.txt"
    pins = [line for line in ours.read_text(encoding="utf-8").splitlines() if line.strip() and not line.startswith("#")] if ours.is_file() else []
    pins = [line for line in pins if line.strip() != "."] or ["jupyterlab", "ipywidgets", "matplotlib", "nbformat"]
    return (
        "# Binder (repo2docker) reads this folder. The versions failuremap-edu is tested with.\n"
        + "\n".join(pins)
        + ("\n# The links that open a notebook on a hub go through nbgitpuller, in the learner's server.\nnbgitpuller" if pull else "")
        + "\n# With binder/ present, repo2docker does not install the repository itself: this line does\n"
        "# (pip runs from the repository root, where the copy of failuremap_edu is).\n.\n"
    )


def _license() -> str:
    """The package's license text: from its installed metadata, or from the source tree."""
    from importlib import metadata

    try:
        for file in metadata.distribution("failuremap-edu").files or ():
            if file.name.upper().startswith(("LICENSE", "LICENCE")):
                return file.read_text(encoding="utf-8")
    except (metadata.PackageNotFoundError, OSError):
        pass
    ours = Path(__file__).resolve().parents[2] / "LICENSE"
    if ours.is_file():
        return ours.read_text(encoding="utf-8")
    raise WorkshopError("the package's LICENSE file is missing: reinstall failuremap-edu")
