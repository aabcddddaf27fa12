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

What the folders say and link to (READMEs, notes, Binder and nbgitpuller links) is
`_workshop_text`'s.
"""

from __future__ import annotations

import dataclasses
import json
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from .._atomic import WriteError
from ._hub import HUB_CONFIG, LEARNERS_ENV_SCRIPT, Z2JH_CONFIG, hub_config, learners_env_script, z2jh_config
from ._nbjson import writes
from ._notebook import SharedRuns, build_notebook, build_start_here
from ._output import check_target, folder_files, install
from .._records import Record, list_records, load_record, packaged_records_dir
from ..runner import isolation_default
from .._solution import load_solution
from ._workshop_text import (START, WorkshopError, _binder_requirements, _check_url, _instructor_notes, _learner_readme, _license, _links,
                             _WORKSHOP_PYPROJECT, binder_pull_url, binder_url, clone_folder, nbgitpuller_url)

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
GITIGNORE = ".ipynb_checkpoints/\n__pycache__/\n.venv/\n"


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
