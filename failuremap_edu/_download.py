"""What a download of the learner's solve holds: its source, with what it needs to run alone.

A download must work on its own: checked again with ``failuremap-edu check``, or
pasted into a fresh kernel. So it carries the imports solve uses, the helper
functions and classes of the same notebook it calls (and theirs), and constants
that are plain literals; anything else it uses is named in a comment, never
silently left out. Read from the live function with `inspect` and `dis`; nothing
is run.
"""

from __future__ import annotations

import builtins
import inspect
import textwrap
import types
from typing import Any, Callable

from ._code import first_line
from .runner import global_names

__all__ = ["solve_source"]


def solve_source(solve: Callable | None) -> str | None:
    """The solve's source without its decorator, with what it needs from the notebook.

    A download must work on its own (checked again with `check`, or pasted into a
    fresh kernel): so it carries the imports solve uses, the helper functions and
    classes of the same cell or notebook it calls (and theirs), and constants that
    are plain literals. Anything else it uses is named in a comment, never silently
    left out.
    """
    if solve is None:
        return None
    body = _definition_source(solve)
    if body is None:
        return None
    namespace = getattr(solve, "__globals__", {})
    cell = getattr(getattr(solve, "__code__", None), "co_filename", None)
    imports, helpers, constants, missing = set(), [], [], []
    seen, queue = {"solve"}, [getattr(solve, "__code__", None), frozenset(_names_in(body))]
    while queue:
        for name in sorted(_names_read(queue.pop(0)) - seen):
            seen.add(name)
            if name not in namespace:
                continue  # a builtin, or a name solve never reaches
            value = namespace[name]
            if name in vars(builtins) and not _from_notebook(value, solve):
                continue  # exit, quit: IPython puts its own in the notebook's namespace
            if isinstance(value, types.ModuleType):
                module = value.__name__
                imports.add(f"import {module}" if module == name else f"import {module} as {name}")
            elif _from_notebook(value, solve):
                source = _definition_source(value, cell)
                if source is None:
                    missing.append(name)
                else:
                    helpers.append(source)
                    queue.append(getattr(_cached(value), "__code__", None) or _class_code(value))
                    queue.append(frozenset(_names_in(source)))  # its decorators and class body: @dataclass, field(...)
            elif (module := _importable_from(value)) is not None:
                imports.add(f"from {module} import {value.__name__}" + ("" if value.__name__ == name else f" as {name}"))
            elif _is_literal(value):
                constants.append(f"{name} = {value!r}")
            else:
                missing.append(name)
    imports.add("import failuremap_edu as fm  # for the line @fm.exercise(...) above def solve, in the notebook")
    parts = ["\n".join(sorted(imports, key=lambda line: (line.startswith("from"), not line.startswith("import failuremap_edu"), line)))]
    parts += ["\n".join(constants)] if constants else []
    parts += [h.rstrip("\n") for h in helpers]
    if missing:
        parts.append("\n".join(f"# note: solve uses {name}, which is not in this file: define it above solve" for name in sorted(missing)))
    return "\n\n".join(parts + [body.rstrip("\n")]) + "\n"


def _definition_source(obj: Any, cell: str | None = None) -> str | None:
    """A function's or class's source, dedented, with its decorators but ours (``@fm.exercise(...)``).

    Other decorators stay: a class without its ``@dataclass`` is another class (a downloaded file's Span could not be
    built). A class made in a notebook cell has no file `inspect` can read; its cell's text is in linecache (`cell`:
    the file name of the cell that defined solve).
    """
    import ast

    try:
        text = textwrap.dedent(inspect.getsource(obj))
    except (OSError, TypeError):
        text = _source_in_cell(obj, cell)
        if text is None:
            return None
    try:
        node = ast.parse(text).body[0]
    except (SyntaxError, IndexError, ValueError):
        return None
    lines = text.splitlines()
    ours = {i for d in getattr(node, "decorator_list", []) if _is_ours(d) for i in range(d.lineno - 1, (d.end_lineno or d.lineno))}
    return "\n".join(line for i, line in enumerate(lines) if i not in ours) + "\n"


def _is_ours(decorator) -> bool:
    """``@fm.exercise(...)``, ``@exercise(...)``: the notebook's own line, which a download must not carry over as code."""
    import ast

    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    return (isinstance(target, ast.Attribute) and target.attr == "exercise") or (isinstance(target, ast.Name) and target.id == "exercise")


def _source_in_cell(obj: Any, cell: str | None) -> str | None:
    """The definition of `obj` (by name, at the top level) in the cell's text that linecache keeps, decorators included."""
    import ast
    import linecache

    name = getattr(obj, "__name__", None)
    if not cell or not isinstance(name, str):
        return None
    text = "".join(linecache.getlines(cell))
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    lines = text.splitlines()
    for node in reversed(tree.body):  # the last definition in the cell is the one that holds
        if isinstance(node, (ast.ClassDef, ast.FunctionDef)) and node.name == name:
            first = first_line(node)
            return textwrap.dedent("\n".join(lines[first - 1 : node.end_lineno])) + "\n"
    return None


def _names_in(source: str) -> set[str]:
    """The names a definition reads outside its code objects: a function's decorators; a class's decorators and body
    (``field(...)``, annotations), which run once and leave no code behind."""
    import ast

    try:
        node = ast.parse(source).body[0]
    except (SyntaxError, ValueError, IndexError):
        return set()
    parts = [node] if isinstance(node, ast.ClassDef) else list(getattr(node, "decorator_list", []))
    return {n.id for part in parts for n in ast.walk(part) if isinstance(n, ast.Name)}


def _from_notebook(value: Any, solve: Callable) -> bool:
    """A function or class defined where solve was (a notebook cell), not imported from a package; a function
    under ``@lru_cache`` or ``@cache`` too (its source is read through the cache, decorator included)."""
    return isinstance(_cached(value), (types.FunctionType, type)) and getattr(value, "__module__", None) == getattr(solve, "__module__", None)


def _cached(value: Any) -> Any:
    """The function inside functools' cache, or `value` itself."""
    import functools

    return value.__wrapped__ if type(value) is functools._lru_cache_wrapper else value


def _importable_from(value: Any) -> str | None:
    """The module to import a function or class from: its public name (functools, not _functools)."""
    import sys

    module, name = getattr(value, "__module__", None), getattr(value, "__name__", None)
    if not isinstance(module, str) or not isinstance(name, str) or module in ("__main__", "builtins") or not callable(value):
        return None
    for candidate in (module.lstrip("_"), module):
        if getattr(sys.modules.get(candidate), name, None) is value:
            return candidate
    return None


def _is_literal(value: Any) -> bool:
    """True when repr(value) reads back as an equal value (ast.literal_eval), so it can be written out."""
    import ast

    if not isinstance(value, (int, float, complex, str, bytes, bool, type(None), tuple, list, dict, set, frozenset)):
        return False
    try:
        text = repr(value)
        return len(text) <= 10_000 and ast.literal_eval(text) == value
    except (ValueError, SyntaxError, RecursionError, MemoryError, TypeError):
        return False


def _class_code(cls: type) -> tuple:
    """The code objects of a class's methods."""
    return tuple(code for member in vars(cls).values() if (code := getattr(member, "__code__", None)) is not None)


def _names_read(code) -> set[str]:
    """The global names a function (or the methods of a class, a tuple of code objects) uses.

    The runner's by-value pickler asks the same question of the same code, so both use
    `global_names`: names, not attribute names (the exit of sys.exit is not a global).
    """
    if code is None:
        return set()
    if isinstance(code, frozenset):  # names read from a definition's source (its decorators, a class body)
        return set(code)
    if isinstance(code, tuple):
        return set().union(*(global_names(c)[0] for c in code)) if code else set()
    return set(global_names(code)[0])
