"""What a solve's source says about it, read with `ast` and never run.

One question for now: can ``solve`` reach the end of its body without a
``return``? Only then is "solve returned None" worth the hint that a return may be
missing; a solve that returns None on purpose (``return x if ok else None``) must
not be told it forgot one.
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from typing import Any

__all__ = ["can_fall_off_end", "first_line"]


def can_fall_off_end(solve: Any) -> bool:
    """True when some path through solve's body ends without ``return`` or ``raise``.

    `solve` is a function, a `Solution` (anything with ``.source``), or source
    text. Unknown (no readable source, a lambda, a generator) counts as False:
    no hint rather than a wrong one.
    """
    source = _source_of(solve)
    if source is None:
        return False
    try:
        tree = ast.parse(textwrap.dedent(source))
    except (SyntaxError, ValueError):
        return False
    defs = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == getattr(solve, "__name__", "solve")]
    if not defs:
        defs = [n for n in tree.body if isinstance(n, ast.FunctionDef)]
    if not defs:
        return False
    fn = defs[-1] if isinstance(solve, str) or hasattr(solve, "source") else defs[0]
    if any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in _own_nodes(fn)):
        return False
    return not _ends(fn.body)


def _source_of(solve: Any) -> str | None:
    if isinstance(solve, str):
        return solve
    source = getattr(solve, "source", None)
    if isinstance(source, str):
        return source
    try:
        return inspect.getsource(solve)
    except (OSError, TypeError):
        return None


def _own_nodes(fn: ast.FunctionDef):
    """The function's nodes, not those of functions or classes nested in it."""
    stack = list(fn.body)
    while stack:
        node = stack.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
                stack.append(child)


def _ends(body: list[ast.stmt]) -> bool:
    """Whether running `body` can never fall through to the statement after it."""
    return any(_stmt_ends(stmt) for stmt in body)


def _stmt_ends(stmt: ast.stmt) -> bool:
    if isinstance(stmt, (ast.Return, ast.Raise)):
        return True
    if isinstance(stmt, ast.If):
        return _ends(stmt.body) and _ends(stmt.orelse)
    if isinstance(stmt, (ast.With, ast.AsyncWith)):
        return _ends(stmt.body)
    if isinstance(stmt, ast.Try) or type(stmt).__name__ == "TryStar":
        if stmt.finalbody and _ends(stmt.finalbody):
            return True
        body_ends = _ends(stmt.body) or bool(stmt.orelse) and _ends(stmt.orelse)
        return body_ends and all(_ends(h.body) for h in stmt.handlers)
    if isinstance(stmt, ast.While):
        forever = isinstance(stmt.test, ast.Constant) and bool(stmt.test.value)
        return forever and not any(isinstance(n, ast.Break) for n in _loop_own_nodes(stmt))
    if isinstance(stmt, ast.Match):
        exhaustive = any(isinstance(c.pattern, ast.MatchAs) and c.pattern.pattern is None and c.guard is None for c in stmt.cases)
        return exhaustive and all(_ends(c.body) for c in stmt.cases)
    return False


def _loop_own_nodes(loop: ast.While):
    """Nodes of a loop's body that belong to it, not to loops nested inside (their breaks are theirs).

    A nested loop's ``else`` still belongs to this loop: a break there ends this one.
    """
    stack = list(loop.body)
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
            stack.extend(node.orelse)
            continue
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
                stack.append(child)


def first_line(node: ast.stmt) -> int:
    """Where a statement's source starts: its first decorator's line, since a node's own line is that of
    ``class``/``def`` (a @dataclass left behind is another class)."""
    return min([d.lineno for d in getattr(node, "decorator_list", [])] + [node.lineno])
