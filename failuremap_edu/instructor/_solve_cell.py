"""solve's cell: the code of a notebook cell that defines solve, made from the record's script or a reference solution.

Pure functions of source text (`ast`): the cell holds what solve relies on (its helpers and imports) and
no fixture code; `define` gives the same cell as a `Solution`, so what runs is what the cell shows.
"""

from __future__ import annotations

import ast

from .._code import first_line
from .._records import Record
from .._solution import Solution, solution_from_source

__all__ = ["cell_top", "define", "in_cell", "learner_preamble", "reference_body", "solve_cell", "split_imports"]


def learner_preamble(record: Record) -> list[str]:
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


def reference_body(solution: Solution) -> str:
    """The reference file without its module docstring."""
    tree = ast.parse(solution.source)
    body = tree.body
    if body and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant) and isinstance(body[0].value.value, str):
        lines = solution.source.splitlines()
        return "\n".join(lines[body[0].end_lineno :]).strip()
    return solution.source.strip()


def split_imports(source: str) -> tuple[list[str], str]:
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


def solve_cell(record_ref: str, preamble: list[str], body: str, decorator: str | None = None) -> str:
    """The exercise cell: the import, `preamble`, the ``@fm.exercise`` line (or `decorator`), solve's `body`."""
    decorator = decorator or f"@fm.exercise({record_ref!r})"
    return in_cell(cell_top(preamble), decorator, body)


def cell_top(preamble: list[str]) -> str:
    """A solve cell's first lines: the package's import, then `preamble`."""
    return "\n".join(["import failuremap_edu as fm", *preamble]).strip()


def in_cell(top: str, middle: str, body: str) -> str:
    """A cell defining solve: its imports and preamble, the lines that hand solve over (`middle`), solve's body."""
    return f"{top}\n\n{middle}\n{body.strip()}\n"


def define(preamble: list[str], body: str, label: str, handover: str) -> Solution:
    """solve as the notebook's cell defines it, as a Solution: it only ever runs in the runner's worker.

    Its lines are the cell's (the lines that hand solve over to the checks left blank), so a line number the
    stored outputs show, of an error solve raised, is the one the cell shows when it runs."""
    return solution_from_source(in_cell(cell_top(preamble), "\n" * handover.count("\n"), body), f"<{label}>")
