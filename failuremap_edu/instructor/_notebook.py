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
from dataclasses import dataclass
from pathlib import Path

from .._errors import InputError
from .._code import first_line
from .._cell import LIVE_PANEL, saved_copy_bundle
from .._exercise import Exercise, loaded_note
from .._fixtures import VARIANTS, read_fixtures
from ._nbjson import Node, new_code_cell, new_markdown_cell, new_notebook, new_output, writes
from ._output import check_files, save_files
from .._records import Record, list_records, load_record
from ..runner import parse_call_arguments, replay, run_checks, try_call
from .._solution import Solution, SolutionError, load_solution, solution_from_source
from .._story import watch_it_fail
from .._values import text_safe

__all__ = ["NotebookError", "build_notebook", "build_start_here", "reference_path", "write_all", "write_notebook"]

MANIFEST = ".failuremap-notebook.json"
"""In a folder `notebook -o` wrote: the sha256 of each file it wrote, so an edited one is never overwritten silently."""

CHECK_OUTPUT = "nbval-check-output"
TEXT_LIMIT = 5_000


class NotebookError(InputError):
    """A notebook cannot be built (for example, no reference solution for an instructor notebook)."""


IMPORT = "import failuremap_edu as fm\n\n"
"""Each code cell starts with it: every cell works on its own after a kernel restart."""


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


def md(text: str, limit: int = TEXT_LIMIT) -> str:
    """Record text made safe for a Markdown cell: HTML-escaped, Markdown and math neutralised."""
    text = " ".join(str(text).split())
    if len(text) > limit:
        text = text[: limit - 1] + f"… ({len(text) - limit + 1:,} more characters not shown)"
    text = html.escape(text_safe(text), quote=False)
    return re.sub(r"([\\`*_\[\]{}#|$~])", r"\\\1", text)


def code_span(text: str, limit: int = 300) -> str:
    """Record text as one Markdown code span, shown verbatim, that nothing inside it can end.

    CommonMark ends a code span only at a run of backquotes as long as the one
    that opened it: the fence is one longer than the longest run in `text`. Inside,
    nothing is Markdown, HTML or math (JupyterLab leaves ``$`` in code spans alone).
    """
    text = " ".join(text_safe(str(text)).split())
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    fence = "`" * (max((len(run) for run in re.findall(r"`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


@dataclass
class _Cells:
    record_id: str
    cells: list
    count: int = 0

    def _id(self) -> str:
        return f"{re.sub(r'[^A-Za-z0-9-]', '-', self.record_id)[:40]}-{len(self.cells):02d}"

    def markdown(self, source: str) -> None:
        self.cells.append(new_markdown_cell(source.strip(), id=self._id()))

    def code(self, source: str, output: str | None = None, tags: tuple[str, ...] = (), display: dict | None = None, result: dict | None = None,
             displays: list[dict] = ()) -> None:
        """A code cell with the outputs it gives when run: `display`, `displays` and `result` (mime bundles), `output` (printed text)."""
        cell = new_code_cell(source.strip(), id=self._id())
        self.count += 1
        cell.execution_count = self.count  # every cell numbered in order, as after one Run All (nbval compares only numbered cells)
        if tags:
            cell.metadata["tags"] = list(tags)
        for bundle in ([display] if display is not None else []) + list(displays):
            cell.outputs.append(new_output("display_data", data=bundle))
        if output is not None:
            cell.outputs.append(new_output("stream", name="stdout", text=output if output.endswith("\n") else output + "\n"))
        if result is not None:
            cell.outputs.append(new_output("execute_result", data=result, execution_count=self.count))
        self.cells.append(cell)


def _learner_preamble(record: Record) -> list[str]:
    """What the attempt's solve relies on: the script's helper functions and the imports they use.

    The solve cell holds these above `solve`, so that it stands on its own.
    The harness (`check`, `observations`, `N`) and the fixtures stay out.
    """
    source = record.implementations["attempt"].source
    tree = ast.parse(source)
    defined = {n.name: n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef)) and n.name != "check"}
    reached, queue = {"solve"}, ["solve"]
    while queue:  # only what solve reaches: a fixture helper that calls check() stays out
        for name in sorted({n.id for n in ast.walk(defined[queue.pop()]) if isinstance(n, ast.Name)} & defined.keys() - reached):
            reached.add(name)
            queue.append(name)
    helpers = [defined[name] for name in defined if name in reached and name != "solve"]
    used = set().union(*(_globals_read(defined[name]) for name in reached))
    keep = []
    lines = source.splitlines()
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            bound = {(a.asname or a.name).split(".")[0] for a in node.names}
            if bound & used:
                keep.append(ast.get_source_segment(source, node) or ast.unparse(node))
        elif node in helpers:
            # From the first decorator: a node's own lines start at `class`, and a @dataclass left behind made
            # Span(0, 2, 'ab') a TypeError in every check.
            first = first_line(node)
            keep.append("\n".join(lines[first - 1 : node.end_lineno]))
        elif isinstance(node, (ast.Assign, ast.AnnAssign)) and _assigned(node) & used and not _assigned(node) & {"N", "observations"}:
            keep.append(ast.get_source_segment(source, node) or ast.unparse(node))  # a constant solve or a helper reads
    return keep


def _globals_read(node: ast.AST) -> set[str]:
    """Names a definition reads that are not its own parameters or locals: `base`, solve's parameter, is not the
    fixtures' `base = {...}`, which an exercise cell must not show as if it mattered."""
    names = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return names
    a = node.args
    local = {x.arg for x in [*a.posonlyargs, *a.args, *a.kwonlyargs, *([a.vararg] if a.vararg else []), *([a.kwarg] if a.kwarg else [])]}
    local |= {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    declared = {name for n in ast.walk(node) if isinstance(n, ast.Global) for name in n.names}
    return {name for name in names if name not in local or name in declared}


def _assigned(node: ast.stmt) -> set[str]:
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    return {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}


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


def _bundle(value) -> dict:
    """What IPython would show for `value`: its text/plain and, when it has one, its text/html."""
    data = {"text/plain": str(value)}
    html_form = getattr(value, "_repr_html_", None)
    if html_form is not None:
        data["text/html"] = html_form()
    return data


def variant_words(runs) -> str:
    """What the variants change, counted from runs of every variant: only claim "different values" when it is so.

    A check depends on N when its label, what it compares or its expected value
    differs between variants (decided on values), or when only some variants run it.
    """
    longest = max((run.total for run in runs), default=0)
    depends = []
    for i in range(longest):
        seen = [run.observations[i] for run in runs if i < run.total]
        first = seen[0]
        differs = len(seen) < len(runs) or any(
            (o.check, o.expression) != (first.check, first.expression) or type(o.expected) is not type(first.expected) or not _equal(o.expected, first.expected)
            for o in seen[1:]
        )
        if differs:
            depends.append(first.check)
    counts = sorted({run.total for run in runs})
    if len(depends) > 1 and len(counts) > 1:
        return (f"The checks use `N` (1 to 5): there are {counts[0]} to {counts[-1]} checks, depending on N, and {len(depends)} "
                "of them get different values in each variant or run only in some.")
    if len(depends) > 1:
        return f"The checks use `N` (1 to 5): {len(depends)} of the {counts[0]} checks get different values in each variant."
    if depends:
        return f"The checks use `N` (1 to 5) in one check only, '{md(depends[0], 100)}'; the other checks are the same in every variant."
    return "The checks read `N` (1 to 5), but every variant checks the same values here."


def _equal(a, b) -> bool:
    try:
        return bool(a == b)
    except BaseException:  # noqa: BLE001 - a record's value with a hostile __eq__: count it as different
        return False


def _about(record: Record, *, learner: bool = False) -> str:
    """The record's facts and fine print, folded at the end: for the curious, not in the way.

    For a learner it starts with the record's title, which the notebook's top leaves out, since it often names the fix."""
    r = record
    facts = [("id", r.id), ("category", r.category), ("family", r.family), ("verified by its author", "yes" if r.verified else "no"), ("license", r.license)]
    provenance = "\n".join(f"| {md(k, 100)} | {md(v, 300)} |" for k, v in sorted(r.provenance.items()))
    parts = [
        f"**The record's title** (it names what fails, and often the fix). {md(r.title, 300)}" if learner else "",
        "| fact | value |\n|---|---|\n" + "\n".join(f"| {name} | {md(value, 300) or '—'} |" for name, value in facts),
        f"**What fails, in the record's words** (this gives part of the answer away). {md(r.abstract)}" if r.abstract else "",
        f"**Limitations.** {md(r.limitations) or '—'}",
        f"**Variants, as the record states them.** {md(r.variant_policy)}" if r.variant_policy else "",
        "" if read_fixtures(r).uses_variant else "(The checks here never read `N`, so every variant runs the same checks: there is one set.)",
        f"**Method.** {md(r.method)}" if r.method else "",
        f"**Why it matters.** {md(r.relevance)}" if r.relevance else "",
        f"| provenance | |\n|---|---|\n{provenance}" if provenance else "",
    ]
    body = "\n\n".join(p for p in parts if p)
    heading, summary = ("About this exercise", "The record's title, facts, limitations and provenance") if learner else ("About this record", "Facts, limitations and provenance")
    return f"## {heading}\n\n<details><summary>{summary}</summary>\n\n{body}\n\n</details>"


def _solve_cell(record_ref: str, preamble: list[str], body: str, decorator: str | None = None) -> str:
    decorator = decorator or f"@fm.exercise({record_ref!r})"
    return _in_cell(_cell_top(preamble), decorator, body)


def _cell_top(preamble: list[str]) -> str:
    return "\n".join(["import failuremap_edu as fm", *preamble]).strip()


def _in_cell(top: str, middle: str, body: str) -> str:
    """A cell defining solve: its imports and preamble, the lines that hand solve over (`middle`), solve's body."""
    return f"{top}\n\n{middle}\n{body.strip()}\n"


def _ran(record: Record, solve, **options) -> Exercise:
    """The exercise as the solve cell leaves it in the kernel, for `solve`: its checks run."""
    shown = Exercise(record, log_progress=False, **options)
    shown.solve = solve
    shown.run()
    return shown


def _panel_text(shown: Exercise) -> list[dict]:
    """What the solve cell shows when it runs: the panel, whose text form stands for it here (nbval compares both
    outputs; the widget's view it skips), then the saved copy of the last results (static HTML)."""
    return [{"text/plain": LIVE_PANEL}, saved_copy_bundle(shown)]


PLATFORMS = ("server", "binder", "hub", "lite")
"""Where a notebook will run: any Jupyter server (the committed notebooks, ``make lab``),
Binder, a JupyterHub, or a JupyterLite site in the browser. Each says only what holds there."""

_LOADS = {
    "server": "loads the record and starts the checking process while you read",
    "lite": "loads the record (the checks run in this page's Python, in your browser)",
}
_KEEP_WORK = {
    "server": "If this notebook runs on a hosted service (Binder, a JupyterHub), its session can end: keep your work with the panel's download links.",
    "binder": "Binder ends a session after a while without activity, and keeps nothing of it: keep your work with the panel's download links.",
    "hub": "Your notebooks stay in your home folder on this hub between sessions; the panel's download links give you copies to keep or hand in.",
    "lite": (
        "Your notebooks are kept in this browser, for this site only (clearing the site's data erases them): "
        "the panel's download links are the only way to take your work elsewhere."
    ),
}
_SAVED = (
    "Every run of an exercise cell (the one with `@fm.exercise(...)`) is saved; calls of `fm.run_checks` and "
    "`fm.try_call` in other cells are not."
)
_PROGRESS_WHERE = {
    "server": (
        "They are saved on this machine, in one file that the table below names when you run it: by default "
        "`~/.local/share/failuremap_edu/progress.jsonl`, which everyone who uses this home folder shares. "
        "Set `FAILUREMAP_PROGRESS` before starting Jupyter to choose the file; a relative name, such as "
        "`FAILUREMAP_PROGRESS=failuremap-progress.jsonl`, gives each notebook folder a file of its own. On a hosted service (Binder, a JupyterHub) the session can end: keep your work with the "
        "panel's download links, or run `failuremap-edu export` in a terminal, which writes every run to one file."
    ),
    "binder": (
        "They are saved in this Binder session only, which ends after a while without activity: keep your work with the "
        "panel's download links, or run `failuremap-edu export` in a terminal (*File → New → Terminal*), which writes "
        "every run to one file that you can download from the file browser."
    ),
    "hub": "They are saved in your home folder on this hub, so they stay between sessions; the panel's download links give you copies to hand in.",
    "lite": (
        "They are saved in this browser, for this site only (the file `failuremap-progress.jsonl` in the file browser): "
        "clearing the site's data erases them, and the panel's download links are the only way to take your work elsewhere."
    ),
}


def keep_work(platform: str) -> str:
    """One sentence: where the learner's work is kept on `platform`, and what keeps a copy."""
    return _KEEP_WORK[_platform(platform)]


def _platform(platform: str) -> str:
    if platform not in PLATFORMS:
        raise ValueError(f"platform must be one of {', '.join(PLATFORMS)}, got {platform!r}")
    return platform


def build_notebook(record: Record, record_ref: str, *, instructor: bool = False, solution: Solution | None = None, platform: str = "server"):
    """The notebook for one record. `record_ref` is what its cells pass to load_record and fm.exercise."""
    if instructor:
        if solution is None:
            raise NotebookError(f"{record.id}: an instructor notebook needs a reference solution (--solution FILE)")
        return _instructor_notebook(record, record_ref, solution)
    return _learner_notebook(record, record_ref, _platform(platform))


def _notebook(cells: _Cells):
    nb = new_notebook(cells.cells)
    nb.metadata = Node(
        kernelspec=Node({"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}), language_info=Node(language_info()),
    )
    return nb


def language_info() -> dict:
    """What the Python kernel reports about itself, so that opening a notebook changes nothing.

    JupyterLab copies the kernel's language_info into the notebook when the kernel
    starts, and marks the notebook modified if that changes anything. The version
    is this interpreter's: a kernel of another Python version still marks it.
    """
    import platform

    return {
        "codemirror_mode": {"name": "ipython", "version": 3},
        "file_extension": ".py",
        "mimetype": "text/x-python",
        "name": "python",
        "nbconvert_exporter": "python",
        "pygments_lexer": "ipython3",
        "version": platform.python_version(),
    }


def _header(cells: _Cells, record: Record, kind: str, title: str) -> None:
    r = record
    cells.markdown(
        f"# {md(title, 300)}\n\n*{kind} · Failure Map record {md(r.id)}*\n\n"
        "Until you run a cell, the output under it is the one stored when this notebook was made, so you can read it before running anything. "
        "*Run → Run All Cells* runs it for you."
    )
    cells.markdown(f"## The contract\n\n{code_span(f'solve({r.contract_signature})', 300)}\n\n{md(r.contract)}")


def _verified_story(record: Record):
    story = watch_it_fail(record)
    if story.parity is not None and not story.parity.ok:
        raise NotebookError(f"{record.id}: replays do not match the recorded runs, so the notebook would not pass: {story.parity.summary()}")
    return story


def _learner_notebook(record: Record, record_ref: str, platform: str = "server"):
    r = record
    fixtures = read_fixtures(r)
    cells = _Cells(r.id, [])
    _header(cells, r, "Exercise", r.neutral_title)
    cells.code(f"{IMPORT}exercise = fm.exercise({record_ref!r})  # {_LOADS.get(platform, _LOADS['server'])}\nprint(exercise.loaded_note())",
               output=loaded_note(r, fixtures))
    cells.markdown(
        "## Watch it fail\n\nThe record comes with two plausible implementations of `solve` that fail: `broken` and "
        "`attempt`. Here they run through the same runner that will check yours. Look at what they return where they fail."
    )
    cells.code(f"{IMPORT}fm.watch_it_fail({record_ref!r})", result=_bundle(_verified_story(r)), tags=(CHECK_OUTPUT,))

    preamble = _learner_preamble(r)
    attempt = _define(preamble, fixtures.solve_source, "attempt", f"@fm.exercise({record_ref!r})")
    one_set = "" if fixtures.uses_variant else " This exercise has one set of checks."
    cells.markdown(
        "## Your turn\n\n"
        "The cell below holds the record's **attempt**. Edit `solve` and run the cell (Shift+Enter): the checks run "
        "and the panel below the cell shows each one, with *why* it fails, hints one at a time, and a playground. "
        f"Keep the line `@fm.exercise({record_ref!r})` right above `def solve`: it is what runs the checks. "
        "Every code cell of this notebook works on its own, also after a kernel restart (the cells below this one use "
        "your `solve`, so run this one first). A `solve` that loops forever only gets a *timeout*; "
        f"your notebook keeps working.{one_set}\n\n"
        f"{_KEEP_WORK[platform]} "
        "A downloaded `.py` pasted back into this cell works again: keep the `@fm.exercise` line right above `def solve`."
    )
    cells.code(_solve_cell(record_ref, preamble, fixtures.solve_source), displays=_panel_text(_ran(r, attempt)), tags=(CHECK_OUTPUT,))

    example = _example_arguments(r)
    if example is not None:
        cells.markdown(
            "## The playground in code\n\nThe panel's playground calls your `solve`, the attempt and the broken one on "
            "inputs you type. In a cell, `fm.try_call` calls one of them at a time (yours, or `implementation='attempt'` "
            "or `'broken'`), as safely as the checks:"
        )
        import ast

        stored = try_call(r, attempt, ast.literal_eval(example))  # what the cell shows for the attempt: "the outputs you see were stored"
        cells.code(f"{IMPORT}fm.try_call({record_ref!r}, solve, {example})", result=_bundle(stored))
    if fixtures.uses_variant:
        variant_runs = [run_checks(r, attempt, variant=v) for v in VARIANTS]
        variant_lines = [run.summary() for run in variant_runs]
        cells.markdown("## Variants\n\n" + variant_words(variant_runs) + " Choose a variant in the panel, or run them all here:")
        cells.code(
            f"{IMPORT}for variant in range(1, 6):\n    print(f'N={{variant}}:', fm.run_checks({record_ref!r}, solve, variant=variant).summary())",
            output="\n".join(f"N={v}: {line}" for v, line in zip(VARIANTS, variant_lines)),
            tags=(CHECK_OUTPUT,),
        )
    cells.markdown(_about(r, learner=True))
    return _notebook(cells)


def _instructor_notebook(record: Record, record_ref: str, solution: Solution):
    """The demo in story order: contract, the attempt failing, what broken and attempt return, hints, the fix."""
    r = record
    fixtures = read_fixtures(r)
    cells = _Cells(r.id + "-instructor", [])
    _header(cells, r, "Instructor notebook", r.title)
    if r.abstract:
        cells.markdown(f"**What fails** (the record's abstract, for you; learners find it folded at the end of their notebook). {md(r.abstract)}")
    cells.markdown(
        "Run the cells one at a time in front of the room: each step of the story is one cell. Your demo runs are not "
        "saved in your progress log. The panel's *Reveal everything* button opens every hint and check at once."
    )
    options = "presenter=True, log_progress=False"
    cells.code(f"{IMPORT}exercise = fm.exercise({record_ref!r}, {options})  # loads the record and starts the checking process")

    preamble = _learner_preamble(r)
    attempt = _define(preamble, fixtures.solve_source, "attempt", f"@fm.exercise({record_ref!r}, {options})")
    cells.markdown("## 1. The attempt\n\nThe record's plausible attempt, exactly as learners get it. Its failing checks show *why* they fail.")
    presented = _ran(r, attempt, presenter=True)
    cells.code(
        _solve_cell(record_ref, preamble, fixtures.solve_source, f"@fm.exercise({record_ref!r}, {options})"),
        displays=_panel_text(presented),
        tags=(CHECK_OUTPUT,),
    )
    cells.markdown("## 2. What broken and attempt return\n\nBoth of the record's implementations, with what they return where they fail and their code.")
    cells.code(f"{IMPORT}fm.watch_it_fail({record_ref!r})", result=_bundle(_verified_story(r)), tags=(CHECK_OUTPUT,))
    cells.markdown("## 3. The hints\n\nThe hints a learner whose solve is still the attempt can open in the panel, one at a time; all at once here.")
    cells.code(f"{IMPORT}fm.exercise({record_ref!r}, {options}).all_hints()", result=_bundle(presented.all_hints()), tags=(CHECK_OUTPUT,))

    ref_imports, solve_body = _split_imports(_reference_body(solution))
    reference_preamble = list(dict.fromkeys(preamble + ref_imports))
    handover = f"reference = fm.Exercise({record_ref!r}, {options})\n\n@reference.check"
    reference = _define(reference_preamble, solve_body, "reference", handover)
    results = [run_checks(r, reference, variant=v) for v in VARIANTS]
    if not all(result.passed for result in results):
        failing = next(result for result in results if not result.passed)
        raise NotebookError(f"{r.id}: the reference solution does not pass every check (N={failing.variant}: {failing.summary()})")
    cells.markdown("## 4. The fix\n\nOur reference solution, in a panel of its own: every check turns green.")
    cells.code(
        _in_cell(_cell_top(reference_preamble), handover, solve_body),
        displays=_panel_text(_ran(r, reference, presenter=True)),
        tags=(CHECK_OUTPUT,),
    )
    cells.code(
        f"{IMPORT}# The notebook checks its own story: the reference passes every check on every variant.\n"
        "for variant in range(1, 6):\n"
        f"    result = fm.run_checks({record_ref!r}, solve, variant=variant)\n"
        "    assert result.passed, result\n"
        "    print(f'N={variant}:', result.summary())",
        output="\n".join(f"N={v}: {result.summary()}" for v, result in zip(VARIANTS, results)),
        tags=(CHECK_OUTPUT,),
    )
    cells.markdown(_about(r))
    return _notebook(cells)


def _define(preamble: list[str], body: str, label: str, handover: str) -> Solution:
    """solve as the notebook's cell defines it, as a Solution: it only ever runs in the runner's worker.

    Its lines are the cell's (the lines that hand solve over to the checks left blank), so a line number the
    stored outputs show, of an error solve raised, is the one the cell shows when it runs."""
    return solution_from_source(_in_cell(_cell_top(preamble), "\n" * handover.count("\n"), body), f"<{label}>")


def _example_arguments(record: Record) -> str | None:
    """The first check's arguments, as a tuple literal a learner could type (None if they are not literals)."""
    run = replay(record, "attempt", read_fixtures(record).default_variant)
    call = run.observations[0].call if run.observations else ""
    if not call.startswith("solve(") or not call.endswith(")"):
        return None
    try:
        args, kwargs = parse_call_arguments(call[len("solve(") : -1])
    except ValueError:
        return None
    return None if kwargs else repr(args)


def build_start_here(
    entries: list[tuple[str, str, str]], title: str = "failuremap_edu: how ML-systems code fails", record_refs: list[str] | None = None,
    platform: str = "server",
):
    """The start notebook: what this is, how to use it, the exercises, and progress.

    `entries`: (record id, its topic, the notebook's path) each. The topic is the record's category, never its title,
    which often names the fix."""
    cells = _Cells("start-here", [])
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
        f"## Your progress\n\n{_SAVED} {_PROGRESS_WHERE[_platform(platform)]}"
    )
    refs = f"{record_refs!r}" if record_refs is not None else ""
    cells.code(f"import failuremap_edu as fm\nimport matplotlib.pyplot as plt\n\noverview = fm.progress_overview({refs})\noverview")
    cells.code("fig, ax = plt.subplots(figsize=(7, 3))\nfm.plot_progress(overview.entries, ax)\nplt.show()")
    return _notebook(cells)


def write_notebook(record_ref: str, out_dir: Path, *, instructor: bool = False, solution_path: str | None = None, references: str | Path | None = None,
                   platform: str = "server", force: bool = False, warnings: list[str] | None = None, manifest: bool = True) -> Path:
    """Build and write one notebook; a record given by path is copied beside it.

    An instructor notebook's reference solution: `solution_path`, else ``ID.py`` in
    `references`; with neither, NotebookError (nothing is looked up beside the package).
    A notebook (or record copy) edited since this command wrote it is refused in one
    line naming it (`_output.check_files`, by the folder's `MANIFEST`), unless `force`;
    then the line naming it is appended to `warnings`. `manifest` False: no manifest (a staged folder).
    """
    out_dir = Path(out_dir)
    files = _notebook_files(record_ref, out_dir, instructor=instructor, solution_path=solution_path, references=references, platform=platform)
    found = check_files(out_dir, files, force, MANIFEST, "notebook")
    save_files(out_dir, files, MANIFEST if manifest else None)
    if warnings is not None:
        warnings += found
    return out_dir / next(rel for rel in files if rel.endswith(".ipynb"))


def _notebook_files(record_ref: str, out_dir: Path, *, instructor: bool, solution_path: str | None, references: str | Path | None,
                    platform: str) -> dict[str, bytes]:
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
    nb = build_notebook(record, ref, instructor=instructor, solution=solution, platform=platform)
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
    for record_id in list_records():
        learners.update(_notebook_files(record_id, out_dir, instructor=False, solution_path=None, references=None, platform="server"))
        teachers.update(_notebook_files(record_id, out_dir / "instructor", instructor=True, solution_path=None, references=references, platform="server"))
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
