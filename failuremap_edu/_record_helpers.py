"""The record's helpers a check uses: functions and classes its script defines above the checks, with their source.

Read with `ast` from the script (`_fixtures.FixtureScript.source`), never executed.
A check uses a helper when its actual or expected expression names it, or names a
helper that does (``first_batch_reads`` builds a ``Stream``): the closure over the
preamble's top-level ``def`` and ``class`` statements, in source order. The
record's ``solve`` and ``check`` are not helpers: every check uses them.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from ._code import first_line
from ._fixtures import CheckSite, FixtureScript

__all__ = ["Helper", "helpers_for"]

_NOT_HELPERS = frozenset({"solve", "check"})


@dataclass(frozen=True)
class Helper:
    """One function or class of the record's script that a check uses."""

    name: str
    kind: str
    """``function`` or ``class``."""
    source: str
    """Its source as the script has it (decorators included)."""
    lineno: int
    """Its first line in the record's script."""
    end_lineno: int

    def __str__(self) -> str:
        return f"{self.kind} {self.name} (record lines {self.lineno}–{self.end_lineno}):\n{self.source}"


def helpers_for(script: FixtureScript, site: CheckSite) -> tuple[Helper, ...]:
    """The helpers the check at `site` uses, directly or through other helpers, in source order; () when none."""
    defined = _defined(script)
    if not defined:
        return ()
    wanted = _names_in(site.actual_source) | _names_in(site.expected_source)
    found: set[str] = set()
    pending = [n for n in wanted if n in defined]
    while pending:
        name = pending.pop()
        if name in found:
            continue
        found.add(name)
        pending += [n for n in defined[name][1] if n in defined and n not in found]
    return tuple(sorted((defined[n][0] for n in found), key=lambda h: h.lineno))


def _defined(script: FixtureScript) -> dict[str, tuple[Helper, frozenset[str]]]:
    """name -> (the helper, the names its body reads), for the script's top-level defs and classes before its last check."""
    cache = script.__dict__.setdefault("_helpers", {})  # frozen dataclass: cached beside the fields, as its compiled code
    if "defined" in cache:
        return cache["defined"]
    found: dict[str, tuple[Helper, frozenset[str]]] = {}
    last = max((s.lineno for s in script.sites), default=0)
    try:
        body = ast.parse(script.source).body if script.source else []
    except SyntaxError:
        body = []
    lines = script.source.splitlines()
    for node in body:
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) or node.name in _NOT_HELPERS or node.lineno > last:
            continue
        start, end = first_line(node), node.end_lineno or node.lineno
        kind = "class" if isinstance(node, ast.ClassDef) else "function"
        reads = frozenset(n.id for n in ast.walk(node) if isinstance(n, ast.Name)) - {node.name}
        found[node.name] = (Helper(node.name, kind, "\n".join(lines[start - 1 : end]), start, end), reads)
    cache["defined"] = found
    return found


def _names_in(source: str) -> set[str]:
    try:
        return {n.id for n in ast.walk(ast.parse(source, mode="eval")) if isinstance(n, ast.Name)}
    except SyntaxError:
        return set()
