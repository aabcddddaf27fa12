"""The notebook generator: a teaching notebook from a record and the results of its runs.

A thin front over the public API: every code cell it writes calls
``failuremap_edu`` the way a learner would. Cells whose output tells the story
(the ``K/N checks pass`` lines) are tagged ``nbval-check-output`` and carry the
output computed by `_notebook_runs` (plain data: nothing runs here, no front is
imported), so nbval fails when the story changes, and static viewers show it
before anything runs. Generation is deterministic (fixed cell ids, no
timestamps): a test regenerates the committed notebooks and compares.
"""

from __future__ import annotations

from pathlib import Path

from .._records import Record, list_records, load_record
from .._solution import Solution, SolutionError, load_solution
from ._nbjson import writes
from ._notebook_runs import (PRESENTER, InstructorResults, LearnerResults, NotebookError, NotebookRuns, SharedRuns, presenter_handover,
                             reference_cell_parts)
from ._notebook_text import (CHECK_OUTPUT, IMPORT, KEEP_WORK, LOADS, PLATFORMS, PROGRESS_WHERE, SAVED, Cells, about, checked_platform, header,
                             keep_work, md, notebook_of, variant_words)
from ._output import check_files, save_files
from ._solve_cell import in_cell, cell_top, learner_preamble, solve_cell
from .._fixtures import VARIANTS, read_fixtures
from .._values import text_safe

__all__ = ["NotebookError", "NotebookRuns", "SharedRuns", "PLATFORMS", "build_notebook", "build_start_here", "keep_work", "md", "reference_path", "write_all",
           "write_notebook"]

MANIFEST = ".failuremap-notebook.json"
"""In a folder `notebook -o` wrote: the sha256 of each file it wrote, so an edited one is never overwritten silently."""


def reference_path(record_id: str, references: str | Path) -> Path:
    """The reference solution ``ID.py`` in the folder `references`, which the caller names: none is ever found on its own.

    Reference solutions are the instructor's material (the repository's ``references/``, a
    workshop's instructor folder's ``solutions/``), never looked up beside the package: an
    editable install on a hub would hand them to every learner.
    """
    return Path(references) / f"{record_id}.py"


NO_REFERENCE = (
    "{id}: no reference solution{where}; reference solutions are never looked up on their own, so pass --solution FILE, "
    "or --references DIR with DIR/{id}.py (the references/ folder of the failuremap_edu repository, or a workshop's instructor folder's solutions/)"
)




def build_notebook(record: Record, record_ref: str, *, instructor: bool = False, solution: Solution | None = None, platform: str = "server",
                   runs: NotebookRuns | None = None):
    """The notebook for one record. `record_ref` is what its cells pass to load_record and fm.exercise.

    Its outputs come from `runs` (this record's `NotebookRuns`, which the caller may pass to every notebook
    it builds of the record, so that each run is made once), or from a `NotebookRuns` made for this notebook;
    runs of another record raise ValueError.
    """
    if runs is None:
        runs = NotebookRuns(record)
    elif runs.record.id != record.id:
        raise ValueError(f"the runs given are of {runs.record.id}, not of this record {record.id}")
    if instructor:
        if solution is None:
            raise NotebookError(f"{record.id}: an instructor notebook needs a reference solution (--solution FILE)")
        return _instructor_notebook(record, record_ref, solution, runs.instructor(solution))
    return _learner_notebook(record, record_ref, checked_platform(platform), runs.learner())


def _learner_notebook(record: Record, record_ref: str, platform: str, results: LearnerResults):
    r = record
    fixtures = read_fixtures(r)
    cells = Cells(r.id, [])
    header(cells, r, "Exercise", r.neutral_title)
    cells.code(f"{IMPORT}exercise = fm.exercise({record_ref!r})  # {LOADS.get(platform, LOADS['server'])}\nprint(exercise.loaded_note())",
               output=results.loaded_note)
    cells.markdown(
        "## Watch it fail\n\nThe record comes with two plausible implementations of `solve` that fail: `broken` and "
        "`attempt`. Here they run through the same runner that will check yours. Look at what they return where they fail."
    )
    cells.code(f"{IMPORT}fm.watch_it_fail({record_ref!r})", result=results.story, tags=(CHECK_OUTPUT,))

    preamble = learner_preamble(r)
    one_set = "" if fixtures.uses_variant else " This exercise has one set of checks."
    cells.markdown(
        "## Your turn\n\n"
        "The cell below holds the record's **attempt**. Edit `solve` and run the cell (Shift+Enter): the checks run "
        "and the panel below the cell shows each one, with *why* it fails, hints one at a time, and a playground. "
        f"Keep the line `@fm.exercise({record_ref!r})` right above `def solve`: it is what runs the checks. "
        "Every code cell of this notebook works on its own, also after a kernel restart (the cells below this one use "
        "your `solve`, so run this one first). A `solve` that loops forever only gets a *timeout*; "
        f"your notebook keeps working.{one_set}\n\n"
        f"{KEEP_WORK[platform]} "
        "A downloaded `.py` pasted back into this cell works again: keep the `@fm.exercise` line right above `def solve`."
    )
    cells.code(solve_cell(record_ref, preamble, fixtures.solve_source), displays=list(results.panel), tags=(CHECK_OUTPUT,))

    if results.example is not None:
        cells.markdown(
            "## The playground in code\n\nThe panel's playground calls your `solve`, the attempt and the broken one on "
            "inputs you type. In a cell, `fm.try_call` calls one of them at a time (yours, or `implementation='attempt'` "
            "or `'broken'`), as safely as the checks:"
        )
        cells.code(f"{IMPORT}fm.try_call({record_ref!r}, solve, {results.example})", result=results.tried)
    if fixtures.uses_variant:
        variant_lines = [run.summary() for run in results.variant_runs]
        cells.markdown("## Variants\n\n" + variant_words(results.variant_runs) + " Choose a variant in the panel, or run them all here:")
        cells.code(
            f"{IMPORT}for variant in range(1, 6):\n    print(f'N={{variant}}:', fm.run_checks({record_ref!r}, solve, variant=variant).summary())",
            output="\n".join(f"N={v}: {line}" for v, line in zip(VARIANTS, variant_lines)),
            tags=(CHECK_OUTPUT,),
        )
    cells.markdown(about(r, learner=True))
    return notebook_of(cells)


def _instructor_notebook(record: Record, record_ref: str, solution: Solution, results: InstructorResults):
    """The demo in story order: contract, the attempt failing, what broken and attempt return, hints, the fix."""
    r = record
    fixtures = read_fixtures(r)
    cells = Cells(r.id + "-instructor", [])
    header(cells, r, "Instructor notebook", r.title)
    if r.abstract:
        cells.markdown(f"**What fails** (the record's abstract, for you; learners find it folded at the end of their notebook). {md(r.abstract)}")
    cells.markdown(
        "Run the cells one at a time in front of the room: each step of the story is one cell. Your demo runs are not "
        "saved in your progress log. The panel's *Reveal everything* button opens every hint and check at once."
    )
    options = PRESENTER
    cells.code(f"{IMPORT}exercise = fm.exercise({record_ref!r}, {options})  # loads the record and starts the checking process")

    preamble = learner_preamble(r)
    cells.markdown("## 1. The attempt\n\nThe record's plausible attempt, exactly as learners get it. Its failing checks show *why* they fail.")
    cells.code(
        solve_cell(record_ref, preamble, fixtures.solve_source, f"@fm.exercise({record_ref!r}, {options})"),
        displays=list(results.panel),
        tags=(CHECK_OUTPUT,),
    )
    cells.markdown("## 2. What broken and attempt return\n\nBoth of the record's implementations, with what they return where they fail and their code.")
    cells.code(f"{IMPORT}fm.watch_it_fail({record_ref!r})", result=results.story, tags=(CHECK_OUTPUT,))
    cells.markdown("## 3. The hints\n\nThe hints a learner whose solve is still the attempt can open in the panel, one at a time; all at once here.")
    cells.code(f"{IMPORT}fm.exercise({record_ref!r}, {options}).all_hints()", result=results.hints, tags=(CHECK_OUTPUT,))

    reference_preamble, solve_body = reference_cell_parts(r, solution)
    cells.markdown("## 4. The fix\n\nOur reference solution, in a panel of its own: every check turns green.")
    cells.code(
        in_cell(cell_top(reference_preamble), presenter_handover(record_ref), solve_body),
        displays=list(results.reference_panel),
        tags=(CHECK_OUTPUT,),
    )
    cells.code(
        f"{IMPORT}# The notebook checks its own story: the reference passes every check on every variant.\n"
        "for variant in range(1, 6):\n"
        f"    result = fm.run_checks({record_ref!r}, solve, variant=variant)\n"
        "    assert result.passed, result\n"
        "    print(f'N={variant}:', result.summary())",
        output="\n".join(f"N={v}: {result.summary()}" for v, result in zip(VARIANTS, results.reference_runs)),
        tags=(CHECK_OUTPUT,),
    )
    cells.markdown(about(r))
    return notebook_of(cells)


def build_start_here(
    entries: list[tuple[str, str, str]], title: str = "failuremap_edu: how ML-systems code fails", record_refs: list[str] | None = None,
    platform: str = "server",
):
    """The start notebook: what this is, how to use it, the exercises, and progress.

    `entries`: (record id, its topic, the notebook's path) each. The topic is the record's category, never its title,
    which often names the fix."""
    cells = Cells("start-here", [])
    cells.markdown(
        f"# {md(title, 200)}\n\n"
        "Each exercise isolates one failure mechanism of ML-systems code. You get a contract for a function "
        "`solve`, a plausible attempt that fails, and the record's checks. Your job: make every check pass.\n\n"
        "**How to use a notebook.** Run a cell with Shift+Enter. Run everything from the top with *Run → Run All Cells*. "
        "In each exercise, edit `solve` in the cell with the line `@fm.exercise(...)` and run it: the panel right below "
        "shows which checks pass and, for each failing one, *why* (what your `solve` returned next to what was expected). "
        "Infinite loops and crashes in your code are caught per check; the notebook keeps working."
    )
    rows = "\n".join(f"| [{md(record_id)}]({path}) | {md(text, 200) or '—'} |" for record_id, text, path in entries)
    cells.markdown(f"## Exercises\n\n| exercise | topic |\n|---|---|\n{rows}")
    cells.markdown(
        f"## Your progress\n\n{SAVED} {PROGRESS_WHERE[checked_platform(platform)]}"
    )
    refs = f"{record_refs!r}" if record_refs is not None else ""
    cells.code(f"import failuremap_edu as fm\nimport matplotlib.pyplot as plt\n\noverview = fm.progress_overview({refs})\noverview")
    cells.code("fig, ax = plt.subplots(figsize=(7, 3))\nfm.plot_progress(overview.entries, ax)\nplt.show()")
    return notebook_of(cells)


def write_notebook(record_ref: str, out_dir: Path, *, instructor: bool = False, solution_path: str | None = None, references: str | Path | None = None,
                   platform: str = "server", force: bool = False, warnings: list[str] | None = None, manifest: bool = True,
                   runs: SharedRuns | None = None) -> Path:
    """Build and write one notebook; a record given by path is copied beside it.

    An instructor notebook's reference solution: `solution_path`, else ``ID.py`` in
    `references`; with neither, NotebookError (nothing is looked up beside the package).
    A notebook (or record copy) edited since this command wrote it is refused in one
    line naming it (`_output.check_files`, by the folder's `MANIFEST`), unless `force`;
    then the line naming it is appended to `warnings`. `manifest` False: no manifest (a staged folder).
    With `runs`, the record's runs are taken from there (and kept there): made once for every notebook built with it.
    """
    out_dir = Path(out_dir)
    files = _notebook_files(record_ref, out_dir, instructor=instructor, solution_path=solution_path, references=references, platform=platform,
                            runs=runs)
    found = check_files(out_dir, files, force, MANIFEST, "notebook")
    save_files(out_dir, files, MANIFEST if manifest else None)
    if warnings is not None:
        warnings += found
    return out_dir / next(rel for rel in files if rel.endswith(".ipynb"))


def _notebook_files(record_ref: str, out_dir: Path, *, instructor: bool, solution_path: str | None, references: str | Path | None,
                    platform: str, runs: SharedRuns | None = None) -> dict[str, bytes]:
    """What `write_notebook` writes in `out_dir`: path -> content (the notebook, and a record given by path, copied)."""
    record = load_record(record_ref)
    files = {}
    if record.packaged:
        ref = record.id
    else:
        ref = f"records/{record.id}.json"
        if Path(record_ref).resolve() != (out_dir / ref).resolve():
            files[ref] = Path(record_ref).read_bytes()
    solution = None
    if instructor:
        found = reference_path(record.id, references) if references is not None else None
        path = solution_path or (str(found) if found is not None and found.is_file() else None)
        if path is None:
            where = f" in {references}" if references is not None else ""
            raise NotebookError(NO_REFERENCE.format(id=record.id, where=where))
        try:
            solution = load_solution(path)
        except SolutionError as exc:
            raise NotebookError(str(exc)) from None
    nb = build_notebook(record, ref, instructor=instructor, solution=solution, platform=platform, runs=runs.for_record(record) if runs is not None else None)
    files[f"{record.id}.ipynb"] = _writes(nb).encode("utf-8")
    return files


def _writes(nb) -> str:
    """The notebook's JSON, every string in it first made writable (`text_safe`: a lone surrogate shows as ``\\ud800``)."""

    def clean(value):
        if isinstance(value, str):
            return text_safe(value)
        if isinstance(value, list):
            return [clean(v) for v in value]
        if isinstance(value, dict):
            return type(value)((clean(k), clean(v)) for k, v in value.items())
        return value

    return writes(clean(nb)) + "\n"


def write_all(out_dir: Path, references: str | Path | None = None, *, force: bool = False, warnings: list[str] | None = None) -> list[Path]:
    """The committed notebooks: start here, one learner notebook per packaged record, instructor versions.

    The instructor versions take their reference solutions from `references`, which must be given.
    Every file is checked (`write_notebook`'s rule on edited ones) before any is written.
    """
    if references is None:
        raise NotebookError("--all-packaged writes instructor notebooks too: pass --references DIR with DIR/ID.py (the repository's references/)")

    out_dir = Path(out_dir)
    learners: dict[str, bytes] = {}
    teachers: dict[str, bytes] = {}
    entries = []
    runs = SharedRuns()  # a record's learner and instructor notebooks share its runs
    for record_id in list_records():
        learners.update(_notebook_files(record_id, out_dir, instructor=False, solution_path=None, references=None, platform="server", runs=runs))
        teachers.update(_notebook_files(record_id, out_dir / "instructor", instructor=True, solution_path=None, references=references, platform="server",
                                        runs=runs))
        entries.append((record_id, load_record(record_id).category, f"{record_id}.ipynb"))
    start = {"00-start-here.ipynb": _writes(build_start_here(entries)).encode("utf-8")}
    learners = {**start, **learners}
    found = check_files(out_dir, learners, force, MANIFEST, "notebook") + check_files(out_dir / "instructor", teachers, force, MANIFEST, "notebook")
    save_files(out_dir, learners, MANIFEST)
    save_files(out_dir / "instructor", teachers, MANIFEST)
    if warnings is not None:
        warnings += found
    written = [out_dir / "00-start-here.ipynb"]  # then each record's learner and instructor notebook
    for _, _, name in entries:
        written += [out_dir / name, out_dir / "instructor" / name]
    return written
