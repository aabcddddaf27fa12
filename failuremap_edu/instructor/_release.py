"""Reference solutions released after class into the learners' folder, beside (never over) the learners' notebooks.

``failuremap-edu workshop -o DIR --release-solutions`` copies the reference solution of
each exercise in DIR (its ``notebooks/ID.ipynb``) into ``DIR/solutions/ID.py``, from the
instructor's folder's ``solutions/`` (or ``--solutions``). Only new paths are written, so
the instructor commits and pushes them and nbgitpuller's next pull merges them into
every learner's clone without touching a learner's edits. The released files have a
manifest of their own (`MANIFEST`): a release again rewrites them only while they are as
it left them, and a workshop rebuild, whose manifest does not list them, leaves them alone.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .._errors import InputError
from ._output import check_files, save_files
from .._solution import load_solution

__all__ = ["MANIFEST", "Release", "release_solutions"]

FOLDER = "solutions"
MANIFEST = ".failuremap-solutions.json"
"""In the learners' folder: each released file with its sha256."""


@dataclass(frozen=True)
class Release:
    """What `release_solutions` wrote."""

    out_dir: Path
    written: tuple[Path, ...]
    """``solutions/ID.py`` per exercise released, and the folder's README."""
    missing: tuple[str, ...]
    """Exercises of the folder without a reference solution where they were looked for."""
    warnings: tuple[str, ...]

    def __str__(self) -> str:
        n = len(self.written) - 1
        return f"{self.out_dir}: {n} reference solution{'s' if n != 1 else ''} in {FOLDER}/; learners' notebooks untouched"


def exercise_ids(out_dir: Path) -> list[str]:
    """The exercises of a learners' folder: its ``notebooks/ID.ipynb``, the start-here notebook aside."""
    notebooks = Path(out_dir) / "notebooks"
    if not notebooks.is_dir():
        raise InputError(f"{out_dir}: not a learners' folder written by `failuremap-edu workshop` (no notebooks/ in it)")
    return sorted(p.stem for p in notebooks.glob("*.ipynb") if not p.name.startswith("00-"))


def release_solutions(out_dir: Path, solutions_dir: Path, *, force: bool = False) -> Release:
    """Write ``solutions/ID.py`` for each exercise of `out_dir` that `solutions_dir` has ``ID.py`` for.

    Raises `InputError` in one line when none is found, or when a released file was
    edited since (unless `force`); nothing is written then.
    """
    out_dir, solutions_dir = Path(out_dir), Path(solutions_dir)
    ids = exercise_ids(out_dir)
    found, missing = {}, []
    for record_id in ids:
        path = solutions_dir / f"{record_id}.py"
        if path.is_file():
            found[record_id] = load_solution(path).source  # refuses a file without a solve, in one line
        else:
            missing.append(record_id)
    if not found:
        raise InputError(f"{solutions_dir}: no reference solution for {', '.join(ids) or 'any exercise'} (ID.py): nothing released")
    files = {f"{FOLDER}/{record_id}.py": source.encode("utf-8") for record_id, source in found.items()}
    files[f"{FOLDER}/README.md"] = _readme(sorted(found)).encode("utf-8")
    warnings = check_files(out_dir, files, force, MANIFEST, "workshop --release-solutions")
    written = save_files(out_dir, files, MANIFEST)
    return Release(out_dir, tuple(written), tuple(missing), tuple(warnings))


def _readme(ids: list[str]) -> str:
    lines = ["# Reference solutions", "", "Released after class. Your notebooks are as you left them: compare your `solve` with these.", ""]
    lines += [f"- `{record_id}.py`: for `notebooks/{record_id}.ipynb`" for record_id in ids]
    return "\n".join(lines) + "\n"
