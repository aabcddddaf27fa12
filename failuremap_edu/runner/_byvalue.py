"""Send a learner's `solve` to a worker process by value, or say why it cannot go.

What a notebook cell defines cannot be pickled by reference (the worker never
saw the cell), so what lives in ``__main__`` or nowhere importable travels by
value, recursively: a function as its code, defaults, closure and the globals
its bytecode uses; a plain class (made by ``type``; a named tuple too) as its
name, bases, ``__slots__`` and namespace; an instance of plain classes as its ``__dict__``;
``staticmethod``, ``classmethod``, ``property`` and ``lru_cache`` around them.
Modules travel by name and are imported afresh in the worker (a module of the
learner's too, from its file), and so does a class with a metaclass from a module
of the learner's (an ``Enum`` in ``colors.py`` beside the notebook), with its
members. Everything else pickles as usual.

The rule that keeps the caller safe: pickling never runs the learner's code in
the caller's process. No method of a learner's class is called: a class is read
through its ``__dict__``, an instance through ``object.__getattribute__`` on a
plain ``__dict__``, and only ``type(obj)`` is consulted, never ``__class__``.
Functions that look names up dynamically (``globals()``, ``eval``) are refused:
what they need cannot be known. The payload is size-capped.
"""

from __future__ import annotations

import builtins
import dis
import functools
import importlib
import importlib.util
import io
import linecache
import marshal
import os
import pickle
import sys
import types
from typing import Any

MAX_BYTES = 8 * 1024 * 1024
_DYNAMIC_NAMES = frozenset({"globals", "locals", "eval", "exec"})
_GLOBAL_OPS = frozenset({"LOAD_GLOBAL", "LOAD_NAME", "STORE_GLOBAL", "DELETE_GLOBAL"})
_HEAP_TYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE: a class made by a class statement or type(), not built in
_LOCAL_MODULES = frozenset({"__main__", "__failuremap__", "solution"})


def _dataclass_sentinels() -> dict[int, tuple[Any, str]]:
    """dataclasses' module-level markers, which it tests with `is`: a copy of `_FIELD` makes `fields()` of a
    dataclass sent by value empty (astuple gives ()), a copy of `MISSING` makes every field
    look as if it had a default."""
    import dataclasses

    names = ("_FIELD", "_FIELD_CLASSVAR", "_FIELD_INITVAR", "MISSING", "_HAS_DEFAULT_FACTORY")
    return {id(getattr(dataclasses, n)): (getattr(dataclasses, n), n) for n in names if hasattr(dataclasses, n)}


_SENTINELS = _dataclass_sentinels()


def _sentinel(name: str) -> Any:
    import dataclasses

    return getattr(dataclasses, name)


class Unshippable(Exception):
    """This object graph cannot be sent by value without risk."""


class _CappedBuffer(io.BytesIO):
    def write(self, data) -> int:  # type: ignore[override]
        if self.tell() + len(data) > MAX_BYTES:
            raise Unshippable(f"more than {MAX_BYTES // (1024 * 1024)} MB to send")
        return super().write(data)


def dumps(obj: Any) -> tuple[bytes, frozenset[str]]:
    """Pickle `obj`, carrying notebook-defined functions and classes by value. Raises Unshippable.

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
    except Exception as exc:  # noqa: BLE001 - anything pickle refuses cannot travel
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
        sentinel = _SENTINELS.get(id(obj))
        if sentinel is not None and sentinel[0] is obj:  # identity-checked singletons travel by name, never as copies
            return _sentinel, (sentinel[1],)
        if kind is types.FunctionType:
            if _importable(obj):
                self.modules.add(obj.__module__)
                return NotImplemented
            return self._function_by_value(obj)
        if kind is types.CodeType:
            return marshal.loads, (marshal.dumps(obj),)
        if kind is types.ModuleType:
            name = obj.__name__
            if sys.modules.get(name) is not obj or getattr(obj, "__spec__", None) is None or name.partition(".")[0] in _LOCAL_MODULES:
                raise Unshippable(f"module {name} cannot be imported by name")
            self.modules.add(name)
            if not installed(name):  # the learner's: found where the caller found it (the worker's sys.path comes later)
                return _import_beside, (name, _search_folder(obj))
            return importlib.import_module, (name,)
        if kind in (staticmethod, classmethod):
            return kind, (obj.__func__,)
        if kind is property:
            return property, (obj.fget, obj.fset, obj.fdel, obj.__doc__)
        if kind is types.MappingProxyType:  # a dataclass field's metadata, say
            return _mapping_proxy, (dict(obj),)
        # Only type(obj) is asked from here on: isinstance() could call a learner's __class__.
        if issubclass(kind, type):
            if _importable(obj):
                self.modules.add(_module_of(obj))
                return NotImplemented
            if kind is not type and (module := _learners_file(obj)) is not None:  # an Enum in colors.py: by name
                self.modules.add(module)
                return _from_module, (module, type.__getattribute__(obj, "__qualname__"), _search_folder(sys.modules[module]))
            return _class_by_value(obj)
        if kind is functools._lru_cache_wrapper and not _importable(obj):
            return _lru_cache, (obj.__wrapped__, obj.cache_parameters())
        if kind is types.CellType:
            raise Unshippable("a bare closure cell")
        if not installed(_module_of(kind) or "__main__"):
            member = _enum_member_name(obj, kind)
            if member is not None:  # Color.RED, its class found by name: the member is the worker's own
                return getattr, (kind, member)
            return _instance_by_value(obj)
        return NotImplemented

    def _function_by_value(self, fn: types.FunctionType) -> Any:
        code = fn.__code__
        names, imports = global_names(code)
        self.modules.update(imports)  # for the next worker to import ahead (see `_warm`)
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


def _class_by_value(cls: type) -> Any:
    if not cls.__flags__ & _HEAP_TYPE:
        raise Unshippable(f"the built-in type {cls.__qualname__} cannot be found by name")
    if type(cls) is not type:
        raise Unshippable(f"class {cls.__qualname__} has a metaclass ({type(cls).__qualname__})")
    namespace = dict(cls.__dict__)  # a mappingproxy read: no code of the class runs
    slots = _slot_names(cls, namespace)
    # A slot's descriptor is made again by the class statement in the worker, from __slots__.
    state = {k: v for k, v in namespace.items()
             if k not in ("__dict__", "__weakref__", "__module__", "__qualname__", "__slots__") and type(v) is not types.MemberDescriptorType}
    return _class_skeleton, (cls.__name__, cls.__bases__, cls.__module__, cls.__qualname__, slots), state, None, None, _fill_class


def _slot_names(cls: type, namespace: dict) -> tuple[str, ...] | None:
    """The class's own __slots__ as a tuple of names, or None when it has none.

    Every named tuple has ``__slots__ = ()`` (``class Batch(NamedTuple)`` is sent, not refused), and a
    class with slots can only be made with them, so they go with the class's name and bases.
    """
    if "__slots__" not in namespace:
        return None
    slots = namespace["__slots__"]
    names = (slots,) if type(slots) is str else tuple(slots) if type(slots) in (tuple, list, dict) else None
    if names is None or not all(type(name) is str for name in names):
        raise Unshippable(f"class {cls.__qualname__} has __slots__ that are not a list of names")
    return names


def _instance_by_value(obj: Any) -> Any:
    cls = type(obj)
    if cls.__mro__[-2:] == (tuple, object) and all(_no_slots(vars(k).get("__slots__")) for k in cls.__mro__[:-2]):
        # A named tuple (a tuple subclass with no fields of its own): its items, read by tuple's own code.
        return _new_tuple, (cls, tuple(tuple.__iter__(obj)))
    for klass in cls.__mro__[:-1]:
        own = vars(klass)
        if type(klass) is not type or _importable(klass) or "__slots__" in own or not isinstance(own.get("__dict__", _PLAIN_DICT), types.GetSetDescriptorType):
            raise Unshippable(f"a {cls.__qualname__} object: only instances of plain classes defined in the notebook can be sent")
    return _new_instance, (cls,), object.__getattribute__(obj, "__dict__")


class _Plain:
    pass


_PLAIN_DICT = vars(_Plain)["__dict__"]


def _class_skeleton(name: str, bases: tuple, module: str, qualname: str, slots: tuple[str, ...] | None = None) -> type:
    namespace = {"__module__": module, "__qualname__": qualname}
    if slots is not None:
        namespace["__slots__"] = slots
    return type(name, bases, namespace)


def _fill_class(cls: type, state: dict) -> None:
    for key, value in state.items():
        setattr(cls, key, value)


def _mapping_proxy(mapping: dict) -> types.MappingProxyType:
    return types.MappingProxyType(mapping)


def _new_instance(cls: type) -> Any:
    return object.__new__(cls)


def _no_slots(slots: Any) -> bool:
    return type(slots) in (tuple, list) and len(slots) == 0  # never ==: that could be the learner's own __eq__


def _new_tuple(cls: type, items: tuple) -> Any:
    return tuple.__new__(cls, items)


def _lru_cache(fn, parameters: dict):
    return functools.lru_cache(maxsize=parameters["maxsize"], typed=parameters["typed"])(fn)


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


@functools.lru_cache(maxsize=1024)
def global_names(code: types.CodeType) -> tuple[frozenset[str], frozenset[str]]:
    """The global names the code and its nested functions and classes use, and the modules they import."""
    names, imports = set(), set()
    for i in dis.get_instructions(code):
        if i.opname in _GLOBAL_OPS:
            names.add(i.argval)
        elif i.opname == "IMPORT_NAME":
            imports.add(i.argval)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            more = global_names(const)
            names |= more[0]
            imports |= more[1]
    return frozenset(names), frozenset(imports)


def _importable(obj: Any) -> bool:
    """Whether the receiving side can find `obj` by module and qualified name, cheaply.

    Only installed modules count (the standard library, site-packages, this
    package): the receiver may already have them, and importing them runs no
    learner code. A function from a module of the learner's (or a test file)
    travels by value instead, so the module is not imported again on every run.
    """
    module_name = _module_of(obj)
    qualname = type.__getattribute__(obj, "__qualname__") if isinstance(obj, type) else getattr(obj, "__qualname__", "")
    if not isinstance(module_name, str) or not isinstance(qualname, str) or "<" in qualname or not installed(module_name):
        return False
    module = sys.modules.get(module_name)
    if module is None:
        return False
    found: Any = module
    for part in qualname.split("."):
        found = getattr(found, part, None)
    return found is obj


def _learners_file(cls: type) -> str | None:
    """The module of the learner's, imported from a file, where `cls` is found by its top-level name; else None.

    A class with a metaclass (an Enum) cannot be rebuilt by value; from such a module the worker imports it by
    name, afresh. Read through the module's ``__dict__``: nothing of the learner's runs here.
    """
    module_name = _module_of(cls)
    qualname = type.__getattribute__(cls, "__qualname__")
    if not isinstance(module_name, str) or module_name.partition(".")[0] in _LOCAL_MODULES or not isinstance(qualname, str) or "." in qualname or "<" in qualname:
        return None
    module = sys.modules.get(module_name)
    origin = getattr(getattr(module, "__spec__", None), "origin", None)
    if type(module) is not types.ModuleType or not isinstance(origin, str) or not os.path.isfile(origin):
        return None
    return module_name if vars(module).get(qualname) is cls else None


def _from_module(module: str, name: str, folder: str | None = None) -> Any:
    return getattr(_import_beside(module, folder), name)


def _search_folder(module: types.ModuleType) -> str | None:
    """The sys.path folder the module was found in (the folder of ``colors.py``; above a package), read from its spec."""
    origin = getattr(getattr(module, "__spec__", None), "origin", None)
    if not isinstance(origin, str) or not os.path.isfile(origin):
        return None
    folder = os.path.dirname(os.path.abspath(origin))
    levels = module.__name__.count(".") + (os.path.basename(origin).startswith("__init__."))
    for _ in range(levels):
        folder = os.path.dirname(folder)
    return folder


def _import_beside(name: str, folder: str | None) -> types.ModuleType:
    """Import a learner's module by name, also from `folder`: a worker unpickles its plan before it takes the caller's
    sys.path and working folder from it (which then replace this search path)."""
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if folder is None or exc.name != name.partition(".")[0] or folder in sys.path:
            raise
    sys.path.append(folder)
    return importlib.import_module(name)


def _enum_member_name(obj: Any, kind: type) -> str | None:
    """The member's name, when `obj` is a member of an Enum that travels by name (`_learners_file`); else None."""
    import enum

    if enum.Enum not in type.__getattribute__(kind, "__mro__") or _learners_file(kind) is None:
        return None
    name = object.__getattribute__(obj, "__dict__").get("_name_")
    return name if type(name) is str else None


def _module_of(obj: Any) -> str | None:
    """A function's or class's module, read without running a metaclass of the learner's."""
    try:
        return type.__getattribute__(obj, "__module__") if isinstance(obj, type) else getattr(obj, "__module__", None)
    except AttributeError:
        return None


@functools.lru_cache(maxsize=512)
def installed(module_name: str) -> bool:
    """Whether a module comes with Python, from site-packages, or is this package's own."""
    top = module_name.partition(".")[0]
    if top in _LOCAL_MODULES:
        return False  # whatever file __main__ came from, what it holds now is the learner's
    if top == __name__.partition(".")[0] or top in sys.builtin_module_names:
        return True
    module = sys.modules.get(top)
    if module is None:  # not imported here: where would it come from? (finding a top-level spec runs nothing)
        try:
            return installed_origin(getattr(importlib.util.find_spec(top), "origin", None))
        except (ImportError, ValueError):
            return False
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


SOURCE_LINES_LIMIT = 1 << 18
"""Characters of a function's file sent along with it, at most: larger files are quoted from disk, where seen."""


def _source_lines(filename: str) -> list[str] | None:
    """The lines of the file (or notebook cell) that defines a function, so tracebacks on the other side can quote them.

    Sent for files on disk too: a sandboxed worker does not see the caller's files.
    """
    lines = linecache.getlines(filename)
    return lines if lines and sum(map(len, lines)) <= SOURCE_LINES_LIMIT else None
