"""The notebook generator: a teaching notebook from any valid record.

A thin front over the public API: every code cell it writes calls
``failuremap_edu`` the way a learner would. Cells whose output tells the story
(the ``K/N checks pass`` lines) are tagged ``nbval-check-output`` and carry the
output the generator computed, so nbval fails when the story changes, and static
viewers show it before anything runs. Generation is deterministic (fixed cell
ids, no timestamps): a test regenerates the committed notebooks and compares.
"""

from __future__ import annotations

import ast
import html
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from ._errors import InputError
from ._fixtures import VARIANTS, read_fixtures
from ._parity import verify_record
from ._records import Record, list_records, load_record
from ._runner import compare, run_checks
from ._solution import Solution, SolutionError, load_solution, solution_from_source
from ._widgets import CHECKING, Exercise

__all__ = ["NotebookError", "build_notebook", "build_start_here", "reference_path", "write_all", "write_notebook"]

CHECK_OUTPUT = "nbval-check-output"
TEXT_LIMIT = 5_000


class NotebookError(InputError):
    """A notebook cannot be built (for example, no reference solution for an instructor notebook)."""


def reference_path(record_id: str) -> Path:
    """Our own reference solution for a packaged record."""
    return Path(__file__).resolve().parent / "references" / f"{record_id}.py"


def md(text: str, limit: int = TEXT_LIMIT) -> str:
    """Record text made safe for a Markdown cell: HTML-escaped, Markdown and math neutralised."""
    text = " ".join(str(text).split())
    if len(text) > limit:
        text = text[: limit - 1] + f"… ({len(text) - limit + 1:,} more characters not shown)"
    text = html.escape(text, quote=False)
    return re.sub(r"([\\`*_\[\]{}#|$~])", r"\\\1", text)


@dataclass
class _Cells:
    record_id: str
    cells: list
    count: int = 0

    def _id(self) -> str:
        return f"{re.sub(r'[^A-Za-z0-9-]', '-', self.record_id)[:40]}-{len(self.cells):02d}"

    def markdown(self, source: str) -> None:
        from nbformat.v4 import new_markdown_cell

        self.cells.append(new_markdown_cell(source.strip(), id=self._id()))

    def code(self, source: str, output: str | None = None, tags: tuple[str, ...] = (), display: str | None = None) -> None:
        """A code cell; `display` (a text/plain display) and `output` (printed text) are its expected outputs."""
        from nbformat.v4 import new_code_cell, new_output

        cell = new_code_cell(source.strip(), id=self._id())
        self.count += 1
        if output is not None or display is not None:  # nbval compares only cells that look as if they ran
            cell.execution_count = self.count
        if tags:
            cell.metadata["tags"] = list(tags)
        if display is not None:
            cell.outputs.append(new_output("display_data", data={"text/plain": display}))
        if output is not None:
            cell.outputs.append(new_output("stream", name="stdout", text=output if output.endswith("\n") else output + "\n"))
        self.cells.append(cell)


def _learner_preamble(record: Record) -> list[str]:
    """What the attempt's solve relies on: the script's helper functions and the imports they use.

    The notebook's setup cell holds these, so the solve cell can hold only `solve`.
    The harness (`check`, `observations`, `N`) and the fixtures stay out.
    """
    source = record.implementations["attempt"].source
    tree = ast.parse(source)
    helpers = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef)) and n.name not in ("check",)]
    used = {n.id for fn in helpers for n in ast.walk(fn) if isinstance(n, ast.Name)}
    keep = []
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            bound = {(a.asname or a.name).split(".")[0] for a in node.names}
            if bound & used:
                keep.append(ast.get_source_segment(source, node) or ast.unparse(node))
        elif node in helpers and node.name != "solve":
            keep.append(ast.get_source_segment(source, node) or ast.unparse(node))
    return keep


def _solve_cell(body: str) -> str:
    return "@exercise.check\n" + body.strip() + "\n"


def _reference_body(solution: Solution) -> str:
    """The reference file without its module docstring."""
    tree = ast.parse(solution.source)
    body = tree.body
    if body and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant) and isinstance(body[0].value.value, str):
        lines = solution.source.splitlines()
        return "\n".join(lines[body[0].end_lineno :]).strip()
    return solution.source.strip()


def _split_imports(source: str) -> tuple[list[str], str]:
    """Pull top-level imports out of a solution, so the solve cell holds only the function."""
    tree = ast.parse(source)
    imports = [ast.unparse(n) for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
    lines = source.splitlines()
    keep = []
    drop = {i for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom)) for i in range(n.lineno, (n.end_lineno or n.lineno) + 1)}
    for number, line in enumerate(lines, start=1):
        if number not in drop:
            keep.append(line)
    return imports, "\n".join(keep).strip()


def build_notebook(record: Record, record_ref: str, *, instructor: bool = False, solution: Solution | None = None):
    """The notebook for one record. `record_ref` is what its load cell passes to load_record."""
    import nbformat

    fixtures = read_fixtures(record)
    r = record
    cells = _Cells(r.id + ("-instructor" if instructor else ""), [])
    if instructor and solution is None:
        raise NotebookError(f"{r.id}: an instructor notebook needs a reference solution (--solution FILE)")

    kind = "Instructor notebook" if instructor else "Exercise"
    facts = [("id", r.id), ("category", r.category), ("family", r.family), ("verified", "yes" if r.verified else "no"), ("license", r.license)]
    cells.markdown(
        f"# {md(r.title, 300)}\n\n*{kind} · Failure Map record {md(r.id)}*\n\n| fact | value |\n|---|---|\n"
        + "\n".join(f"| {name} | {md(value, 300) or '—'} |" for name, value in facts)
    )
    cells.markdown(f"## The contract\n\n`solve({md(r.contract_signature, 300).replace(chr(92), '')})`\n\n{md(r.contract)}")
    cells.markdown(
        "## Load the record\n\nThe record holds the contract, two implementations (`broken` and a plausible but wrong "
        "`attempt`), their recorded runs, and the teaching text. Loading it checks every source against its sha256."
    )
    cells.code(
        f"import failuremap_edu as fm\nimport matplotlib.pyplot as plt\n\nrecord = fm.load_record({record_ref!r})\nprint(record.id, '·', len(fm.read_fixtures(record).sites), 'checks')",
        output=f"{r.id} · {len(fixtures.sites)} checks",
        tags=(CHECK_OUTPUT,),
    )

    cells.markdown(
        "## Watch it fail\n\nBoth of the record's implementations, replayed through the same safe runner you will use, "
        "side by side with the runs the record's author recorded."
    )
    watch = compare(r)
    cells.code("watch = fm.compare(record)\nprint(watch)", output=str(watch), tags=(CHECK_OUTPUT,))
    report = verify_record(r)
    if not report.ok:
        raise NotebookError(f"{r.id}: replays do not match the recorded runs, so the notebook would not pass: {report.summary()}")
    cells.code(
        "# The notebook checks its own story: broken and attempt must fail exactly as recorded.\n"
        "print(fm.assert_recorded_failures(record).summary())",
        output=report.summary(),
        tags=(CHECK_OUTPUT,),
    )
    cells.code("fig, ax = plt.subplots(figsize=(7, 1.2 + 0.45 * len(watch.runs[0].observations)))\nfm.plot_status(watch.runs, ax, watch.names)\nplt.show()")

    opened = " open" if instructor else ""
    hints = Exercise(r, log_progress=False).hints
    cells.markdown(
        "## Why it fails\n\n"
        + ("All hints are open in the instructor notebook." if instructor else "Open one hint at a time: try again before you open the next.")
        + "\n\n"
        + "\n\n".join(f"<details{opened}><summary>Hint {i}: {title}</summary>\n\n{md(text)}\n\n</details>" for i, (title, text) in enumerate(hints, 1))
    )

    preamble = _learner_preamble(r)
    if instructor:
        ref_imports, solve_body = _split_imports(_reference_body(solution))
        preamble = list(dict.fromkeys(preamble + ref_imports))
    else:
        solve_body = fixtures.solve_source
    exec_solve = _define(preamble, solve_body, "instructor" if instructor else "attempt")
    create = "exercise = fm.Exercise(record, presenter=True)" if instructor else "exercise = fm.Exercise(record)"
    setup = "\n".join(preamble + ["", create]).strip()
    cells.markdown(
        "## Your turn\n\n"
        + (
            "The reference solution is filled in below. Run the cell: the panel shows every check passing."
            if instructor
            else "The cell below holds the record's **attempt**. Edit `solve` and run the cell (Shift+Enter): the checks run "
            "again and the panel below it updates. A `solve` that loops forever only gets a `timeout`; your notebook keeps working."
        )
    )
    cells.code(setup.strip())
    shown = Exercise(r, log_progress=False)
    shown.solve, shown.running = exec_solve, CHECKING
    pending = shown.text()  # what the panel says as it appears, before the checks finish
    shown.run()
    cells.code(_solve_cell(solve_body), output=shown.summary(), display=pending, tags=(CHECK_OUTPUT,))

    if instructor:
        side_by_side = compare(r, exec_solve)
        cells.markdown("### The attempt failing next to the reference passing")
        cells.code("print(fm.compare(record, solve))", output=str(side_by_side), tags=(CHECK_OUTPUT,))
        results = [run_checks(r, exec_solve, variant=v) for v in VARIANTS]
        if not all(result.passed for result in results):
            failing = next(result for result in results if not result.passed)
            raise NotebookError(f"{r.id}: the reference solution does not pass every check (N={failing.variant}: {failing.summary()})")
        lines = [result.summary() for result in results]
        cells.code(
            "# The instructor notebook checks its own story: the reference passes every check on every variant.\n"
            "for variant in range(1, 6):\n"
            "    result = fm.run_checks(record, solve, variant=variant)\n"
            "    assert result.passed, result\n"
            "    print(f'N={variant}:', result.summary())",
            output="\n".join(f"N={v}: {line}" for v, line in zip(VARIANTS, lines)),
            tags=(CHECK_OUTPUT,),
        )

    cells.markdown(
        "## Playground\n\nThe panel above has a playground: type arguments as Python literals and compare your `solve` "
        "with the attempt and the broken one as you type. The same works in code:"
    )
    example = _example_arguments(watch)
    if example is not None:
        cells.code(f"fm.try_call(record, solve, {example})")

    cells.markdown(
        f"## Variants\n\n{md(r.variant_policy) or 'The fixtures take N = 1 to 5.'}\n\n"
        + ("The fixtures use `N`, so each variant checks different values." if fixtures.uses_variant else "The fixtures do not use `N`: every variant runs the same checks.")
        + " Choose a variant in the panel, or run them all here:"
    )
    variant_lines = [run_checks(r, exec_solve, variant=v).summary() for v in VARIANTS]
    cells.code(
        "for variant in range(1, 6):\n    print(f'N={variant}:', fm.run_checks(record, solve, variant=variant).summary())",
        output="\n".join(f"N={v}: {line}" for v, line in zip(VARIANTS, variant_lines)),
        tags=(CHECK_OUTPUT,),
    )

    provenance = "\n".join(f"| {md(k, 100)} | {md(v, 300)} |" for k, v in sorted(r.provenance.items()))
    cells.markdown(
        f"## Limitations and provenance\n\n{md(r.limitations) or '—'}\n\n"
        + (f"**Method.** {md(r.method)}\n\n" if r.method else "")
        + (f"**Why it matters.** {md(r.relevance)}\n\n" if r.relevance else "")
        + (f"| provenance | |\n|---|---|\n{provenance}" if provenance else "")
    )
    nb = nbformat.v4.new_notebook(cells=cells.cells)
    nb.metadata = {
        "kernelspec": {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"},
        "language_info": {"name": "python"},
    }
    return nb


def _define(preamble: list[str], body: str, label: str) -> Solution:
    """solve as the notebook's cells define it, as a Solution: it only ever runs in the runner's worker."""
    return solution_from_source("\n\n".join(preamble + [body]) + "\n", f"<{label}>")


def _example_arguments(watch) -> str | None:
    call = watch.runs[1].observations[0].call if watch.runs[1].observations else ""
    if not call.startswith("solve(") or not call.endswith(")"):
        return None
    inner = call[len("solve(") : -1]
    try:
        tree = ast.parse(f"f({inner})", mode="eval").body
        args = tuple(ast.literal_eval(a) for a in tree.args)
        if tree.keywords:
            return None
    except (SyntaxError, ValueError):
        return None
    return repr(args)


def build_start_here(entries: list[tuple[str, str, str]], title: str = "failuremap_edu: how ML-systems code fails", record_refs: list[str] | None = None):
    """The start notebook: what this is, how to use it, the exercises, and progress."""
    import nbformat

    cells = _Cells("start-here", [])
    cells.markdown(
        f"# {md(title, 200)}\n\n"
        "Each exercise isolates one real failure mechanism from the Failure Map. You get a contract for a function "
        "`solve`, a plausible attempt that fails, and the record's checks. Your job: make every check pass.\n\n"
        "**How to use a notebook.** Run a cell with Shift+Enter. Run everything from the top with *Run → Run All Cells*. "
        "In each exercise, edit the cell that starts with `@exercise.check` and run it: the panel right below shows "
        "which checks pass and, for each failing one, *why* (a diff of expected against what your `solve` returned). "
        "Infinite loops and crashes in your code are caught per check; the notebook keeps working."
    )
    rows = "\n".join(f"| [{md(record_id)}]({path}) | {md(text, 200)} |" for record_id, text, path in entries)
    cells.markdown(f"## Exercises\n\n| exercise | what fails |\n|---|---|\n{rows}")
    cells.markdown(
        "## Your progress\n\nEvery check run in an exercise is saved on this machine (set `FAILUREMAP_PROGRESS` to choose the file). "
        "On Binder, sessions vanish: use the panel's download links to keep your work, or run `failuremap-edu export` in a terminal."
    )
    refs = f"{record_refs!r}" if record_refs is not None else ""
    cells.code(f"import failuremap_edu as fm\nimport matplotlib.pyplot as plt\n\noverview = fm.progress_overview({refs})\noverview")
    cells.code("fig, ax = plt.subplots(figsize=(7, 3))\nfm.plot_progress(overview.entries, ax)\nplt.show()")
    nb = nbformat.v4.new_notebook(cells=cells.cells)
    nb.metadata = {
        "kernelspec": {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"},
        "language_info": {"name": "python"},
    }
    return nb


def write_notebook(record_ref: str, out_dir: Path, *, instructor: bool = False, solution_path: str | None = None) -> Path:
    """Build and write one notebook; a record given by path is copied beside it."""
    import nbformat

    record = load_record(record_ref)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    if record.packaged:
        ref = record.id
    else:
        records = out_dir / "records"
        records.mkdir(exist_ok=True)
        target = records / f"{record.id}.json"
        if Path(record_ref).resolve() != target.resolve():
            shutil.copyfile(record_ref, target)
        ref = f"records/{record.id}.json"
    solution = None
    if instructor:
        path = solution_path or (str(reference_path(record.id)) if record.packaged and reference_path(record.id).is_file() else None)
        if path is None:
            raise NotebookError(f"{record.id}: no reference solution is packaged for this record; pass --solution FILE")
        try:
            solution = load_solution(path)
        except SolutionError as exc:
            raise NotebookError(str(exc)) from None
    nb = build_notebook(record, ref, instructor=instructor, solution=solution)
    path = out_dir / f"{record.id}.ipynb"
    path.write_text(nbformat.writes(nb) + "\n", encoding="utf-8")
    return path


def write_all(out_dir: Path) -> list[Path]:
    """The committed notebooks: start here, one learner notebook per packaged record, instructor versions."""
    import nbformat

    out_dir = Path(out_dir)
    written = []
    entries = []
    for record_id in list_records():
        written.append(write_notebook(record_id, out_dir))
        written.append(write_notebook(record_id, out_dir / "instructor", instructor=True))
        entries.append((record_id, load_record(record_id).title, f"{record_id}.ipynb"))
    start = out_dir / "00-start-here.ipynb"
    start.write_text(nbformat.writes(build_start_here(entries)) + "\n", encoding="utf-8")
    written.insert(0, start)
    return written
