"""A learner's solution file: read and checked, never executed here.

Its code runs only inside an isolated worker (see `_worker`), so a file that
loops or exits at import time cannot hang or end the caller. It lives below the
runner so that the worker can recognise one with ``isinstance``.
"""

from __future__ import annotations

import ast
import os
from dataclasses import dataclass
from pathlib import Path

from ._errors import InputError
from ._signature import Params

__all__ = ["Solution", "SolutionError", "load_solution", "solution_from_source"]


class SolutionError(InputError):
    """A `solve` that cannot be run: missing, not a function, or the wrong parameters."""


@dataclass(frozen=True)
class Solution:
    """A learner's solution file, read and checked but not yet executed.

    Its code runs only inside the isolated worker, so a file that loops or exits
    at import time cannot hang or end the caller.
    """

    path: str
    source: str
    params: Params | None
    """The parameters of ``def solve`` when it is a plain top-level def."""


def load_solution(path: str | os.PathLike) -> Solution:
    """Read a ``.py`` file that defines `solve`, without running it."""
    label = str(path)
    try:
        raw = Path(path).read_bytes()
    except FileNotFoundError:
        raise SolutionError(f"{label}: no such file") from None
    except IsADirectoryError:
        raise SolutionError(f"{label}: is a directory, not a Python file") from None
    except OSError as exc:
        raise SolutionError(f"{label}: cannot read: {exc.strerror or exc}") from None
    try:
        source = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SolutionError(f"{label}: not UTF-8 text (byte 0x{raw[exc.start]:02x} at offset {exc.start})") from None
    return solution_from_source(source, label)


def solution_from_source(source: str, label: str = "<solution>") -> Solution:
    """Like load_solution, for source text: parsed and checked, run only in the worker."""
    try:
        tree = ast.parse(source, filename=label)
    except SyntaxError as exc:
        raise SolutionError(f"{label}: syntax error at line {exc.lineno}: {exc.msg}") from None
    except ValueError as exc:
        raise SolutionError(f"{label}: cannot be parsed: {exc}") from None
    params = None
    defines = False
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == "solve":
            params, defines = Params.from_ast(node.args), True
        elif isinstance(node, ast.AsyncFunctionDef) and node.name == "solve":
            raise SolutionError(f"{label}: 'solve' is async; write a plain def")
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == "solve" for t in targets):
                params, defines = None, True
        elif isinstance(node, ast.ImportFrom) and any((a.asname or a.name) == "solve" for a in node.names):
            params, defines = None, True
    if not defines:
        raise SolutionError(f"{label}: defines no top-level function 'solve'")
    return Solution(path=label, source=source, params=params)
