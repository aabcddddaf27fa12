"""Send a learner's `solve` to another process by value, or say why it cannot go.

A function defined in a notebook cell cannot be pickled by reference: the warm
worker (see `_warm`) never saw that cell. So functions that live in ``__main__``
(or nowhere importable) travel as their code object, defaults, closure and the
globals their code names, recursively; everything else pickles as usual.

The rule that keeps the caller safe: pickling must never run the learner's code in
the caller's process. Instances of classes defined in the notebook, and the
classes themselves, are refused (their ``__reduce__`` is the learner's code), so
are functions that look names up dynamically (``globals()``, ``eval``), whose
needs cannot be known. A refusal is not an error: the runner then forks the
caller as before. The payload is size-capped, so a huge global does not stall
the caller while being copied.
"""

from __future__ import annotations

import builtins
import functools
import importlib
import io
import linecache
import marshal
import os
import pickle
import sys
import types
from typing import Any

MAX_BYTES = 8 * 1024 * 1024
_DYNAMIC_NAMES = frozenset({"globals", "locals", "vars", "eval", "exec", "__import__"})
_LOCAL_MODULES = frozenset({"__main__", "__failuremap__", "solution"})


class Unshippable(Exception):
    """This object graph cannot be sent by value without risk; fork instead."""


class _CappedBuffer(io.BytesIO):
    def write(self, data) -> int:  # type: ignore[override]
        if self.tell() + len(data) > MAX_BYTES:
            raise Unshippable(f"more than {MAX_BYTES // (1024 * 1024)} MB to send")
        return super().write(data)


def dumps(obj: Any) -> tuple[bytes, frozenset[str]]:
    """Pickle `obj`, carrying notebook-defined functions by value. Raises Unshippable.

    Also returns the modules the receiver will import to load it.
    """
    buffer = _CappedBuffer()
    pickler = _Pickler(buffer)
    try:
        pickler.dump(obj)
    except Unshippable:
        raise
    except RecursionError:
        raise Unshippable("nested too deeply") from None
    except Exception as exc:  # noqa: BLE001 - anything pickle refuses means: fork instead
        raise Unshippable(f"{type(exc).__name__}: {exc}") from None
    return buffer.getvalue(), frozenset(pickler.modules)


def loads(payload: bytes) -> Any:
    return pickle.loads(payload)


class _Pickler(pickle.Pickler):
    def __init__(self, file) -> None:
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self._namespaces: dict[int, dict] = {}
        self.modules: set[str] = set()

    def reducer_override(self, obj: Any) -> Any:
        kind = type(obj)
        if kind is types.FunctionType:
            if _importable(obj):
                self.modules.add(obj.__module__)
                return NotImplemented
            return self._function_by_value(obj)
        if kind is types.CodeType:
            return marshal.loads, (marshal.dumps(obj),)
        if kind is types.ModuleType:
            name = obj.__name__
            if sys.modules.get(name) is not obj or getattr(obj, "__spec__", None) is None:
                raise Unshippable(f"module {name} cannot be imported by name")
            if not installed(name):
                # The learner's own module: the kernel's copy may have been changed
                # since it was imported; only a fork of the kernel sees those changes.
                raise Unshippable(f"module {name} is the learner's own")
            self.modules.add(name)
            return importlib.import_module, (name,)
        if isinstance(obj, type):
            if not _importable(obj):
                raise Unshippable(f"class {obj.__qualname__} is the learner's code")
            self.modules.add(obj.__module__)
            return NotImplemented
        if not installed(getattr(kind, "__module__", None) or "__main__"):
            raise Unshippable(f"a {kind.__qualname__} object (its class is the learner's code)")
        if kind is types.CellType:
            raise Unshippable("a bare closure cell")
        return NotImplemented

    def _function_by_value(self, fn: types.FunctionType) -> Any:
        code = fn.__code__
        names = _names(code)
        if names & _DYNAMIC_NAMES:
            raise Unshippable(f"{fn.__qualname__} looks names up dynamically ({', '.join(sorted(names & _DYNAMIC_NAMES))})")
        if fn.__dict__ and set(fn.__dict__) - {"__wrapped__"}:
            raise Unshippable(f"{fn.__qualname__} carries attributes")
        source_globals = fn.__globals__
        # Functions that shared a namespace share one again (one small dict per
        # source namespace, sent once), so a helper that updates a global is seen
        # by the solve that reads it. The names themselves follow in the state,
        # after the function exists, which is what lets a function refer to itself.
        namespace = self._namespaces.setdefault(id(source_globals), {"__name__": source_globals.get("__name__", "__main__")})
        closure = tuple(cell.cell_contents if _cell_filled(cell) else _EMPTY for cell in fn.__closure__ or ())
        state = {
            "globals": {name: source_globals[name] for name in sorted(names) if name in source_globals},
            "defaults": fn.__defaults__,
            "kwdefaults": fn.__kwdefaults__,
            "closure": closure,
            "qualname": fn.__qualname__,
            "module": fn.__module__,
            "doc": fn.__doc__,
            "lines": _source_lines(code.co_filename),
        }
        return _skeleton, (marshal.dumps(code), fn.__name__, len(closure), namespace), state, None, None, _fill


class _Empty:
    def __reduce__(self):
        return (_empty, ())


def _empty() -> "_Empty":
    return _EMPTY


_EMPTY = _Empty()


def _skeleton(code_bytes: bytes, name: str, cells: int, namespace: dict) -> types.FunctionType:
    namespace.setdefault("__builtins__", builtins)
    closure = tuple(types.CellType() for _ in range(cells)) or None
    return types.FunctionType(marshal.loads(code_bytes), namespace, name, None, closure)


def _fill(fn: types.FunctionType, state: dict) -> None:
    fn.__globals__.update(state["globals"])
    for cell, value in zip(fn.__closure__ or (), state["closure"]):
        if value is not _EMPTY:
            cell.cell_contents = value
    fn.__defaults__ = state["defaults"]
    fn.__kwdefaults__ = state["kwdefaults"]
    fn.__qualname__ = state["qualname"]
    fn.__module__ = state["module"]
    fn.__doc__ = state["doc"]
    lines, filename = state["lines"], fn.__code__.co_filename
    if lines and filename not in linecache.cache:
        linecache.cache[filename] = (sum(map(len, lines)), None, lines, filename)


def _cell_filled(cell: types.CellType) -> bool:
    try:
        cell.cell_contents  # noqa: B018
    except ValueError:
        return False
    return True


def _names(code: types.CodeType) -> frozenset[str]:
    """Every global (or attribute) name the code and its nested functions mention."""
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _names(const)
    return frozenset(names)


def _importable(obj: Any) -> bool:
    """Whether the receiving side can find `obj` by module and qualified name, cheaply.

    Only installed modules count (the standard library, site-packages, this
    package): the receiver may already have them, and importing them runs no
    learner code. A function from a module of the learner's (or a test file)
    travels by value instead, so the module is not imported again on every run.
    """
    module_name = getattr(obj, "__module__", None)
    qualname = getattr(obj, "__qualname__", "")
    if not module_name or "<" in qualname or not installed(module_name):
        return False
    module = sys.modules.get(module_name)
    if module is None:
        return False
    found: Any = module
    for part in qualname.split("."):
        found = getattr(found, part, None)
    return found is obj


@functools.lru_cache(maxsize=512)
def installed(module_name: str) -> bool:
    """Whether a module comes with Python, from site-packages, or is this package's own."""
    top = module_name.partition(".")[0]
    if top in _LOCAL_MODULES:
        return False  # whatever file __main__ came from, what it holds now is the learner's
    if top == __name__.partition(".")[0] or top in sys.builtin_module_names:
        return True
    module = sys.modules.get(top)
    return installed_origin(getattr(getattr(module, "__spec__", None), "origin", None))


def installed_origin(origin: Any) -> bool:
    """Whether a module spec's origin is built in or lies in the standard library or site-packages."""
    if origin in ("built-in", "frozen"):
        return True
    return isinstance(origin, str) and os.path.realpath(origin).startswith(_install_roots())


@functools.lru_cache(maxsize=1)
def _install_roots() -> tuple[str, ...]:
    import sysconfig

    roots = {sysconfig.get_path(key) for key in ("stdlib", "platstdlib", "purelib", "platlib")}
    return tuple(os.path.realpath(root) + os.sep for root in roots if root)


def _source_lines(filename: str) -> list[str] | None:
    """A notebook cell's lines, so tracebacks on the other side can still quote them."""
    if os.path.exists(filename):
        return None
    lines = linecache.getlines(filename)
    return lines or None
