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
    imports, helpers, constants, missing = set(), [], [], []
    seen, queue = {"solve"}, [getattr(solve, "__code__", None)]
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
                source = _definition_source(value)
                if source is None:
                    missing.append(name)
                else:
                    helpers.append(source)
                    queue.append(getattr(value, "__code__", None) or _class_code(value))
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


def _definition_source(obj: Any) -> str | None:
    """A function's or class's source, dedented, without decorators (ours among them)."""
    try:
        lines = textwrap.dedent(inspect.getsource(obj)).splitlines()
    except (OSError, TypeError):
        return None
    while lines and lines[0].lstrip().startswith("@"):
        lines.pop(0)
    return "\n".join(lines) + "\n"


def _from_notebook(value: Any, solve: Callable) -> bool:
    """A function or class defined where solve was (a notebook cell), not imported from a package."""
    return isinstance(value, (types.FunctionType, type)) and getattr(value, "__module__", None) == getattr(solve, "__module__", None)


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
    if isinstance(code, tuple):
        return set().union(*(global_names(c)[0] for c in code)) if code else set()
    return set(global_names(code)[0])
