"""Values as plain data: what crosses between the worker and the caller, and what the diff compares.

`portable` copies a value into plain Python data only (exact builtin types,
recursively); anything else becomes an `Opaque` with its type and repr, plus the
plain equivalent of a container subclass, a Mapping or a dict view, and the
compared fields of a dataclass, an attrs class or a named tuple. `received` bounds a
value that came from a worker again, and says whether it is plain throughout.
"""

from __future__ import annotations

import collections.abc
import dataclasses
from typing import Any

from ._values import _MAX_DEPTH, _MAX_NODES, _MAX_STRING, Opaque, _type_name, safe_repr

__all__ = ["portable", "received"]


def portable(value: Any) -> Any:
    """A copy of `value` made of plain Python data only, safe to pickle and unpickle.

    Exact builtin types pass through (recursively). Everything else becomes an
    Opaque with its type and repr, plus the plain equivalent for subclasses of
    builtin containers. Cycles, extreme depth and extreme size become Opaque too.

    Size is the *expanded* size, as every display and ``json.dumps`` sees it: a
    string held 300 times counts 300 times (``[b] * 300`` is one string for
    pickle, and 300 for everything after it). Past `_MAX_STRING` characters in
    all, what is left becomes an Opaque, and with it the value is no plain data.
    """
    budget = [_MAX_NODES, _MAX_STRING]
    return _portable(value, 0, budget, set())


def received(value: Any) -> tuple[Any, bool]:
    """A value as it came from a worker, bounded again (`portable`: a forged frame can share
    references too), and whether it is plain data throughout, with no `Opaque` anywhere in it.

    Plain data compares by the builtins' own ``==``, so its verdict can be recomputed
    where it is received; an Opaque stands for a value compared by its own ``__eq__``.
    """
    budget = [_MAX_NODES, _MAX_STRING, True]
    bounded = _portable(value, 0, budget, set())
    return bounded, budget[2] and type(bounded) is not Opaque


_SCALARS = (type(None), bool, int, float, complex)


def _portable(value: Any, depth: int, budget: list, active: set[int]) -> Any:
    converted = _convert(value, depth, budget, active)
    if type(converted) is Opaque and len(budget) > 2:
        budget[2] = False  # `received`: not plain data throughout
    return converted


def _convert(value: Any, depth: int, budget: list, active: set[int]) -> Any:
    kind = type(value)
    budget[0] -= 1
    if kind in _SCALARS:
        return value
    if kind is Opaque:  # as received from a worker: a stand-in already
        return value
    if kind is str or kind is bytes:
        budget[1] -= len(value)
        if len(value) > _MAX_STRING:
            return Opaque(kind.__name__, safe_repr(value[:200]) + "…", f"too large to show ({len(value):,} characters)")
        if budget[1] < 0:
            return Opaque(kind.__name__, safe_repr(value[:200]) + "…", f"too large to show (the value holds more than {_MAX_STRING:,} characters in all)")
        return value
    if budget[0] < 0:
        return Opaque(_type_name(kind), "…", "too large to show (over 2,000,000 items)")
    if depth > _MAX_DEPTH:
        return Opaque(_type_name(kind), "[…]", f"nested more than {_MAX_DEPTH} levels deep")
    if kind in (list, tuple, dict, set, frozenset):
        if id(value) in active:
            return Opaque(_type_name(kind), "[...]" if kind is list else "{...}", "contains itself")
        active.add(id(value))
        try:
            if kind is dict:
                return {
                    _portable(k, depth + 1, budget, active): _portable(v, depth + 1, budget, active)
                    for k, v in list(value.items())
                }
            items = [_portable(item, depth + 1, budget, active) for item in list(value)]
            return items if kind is list else kind(items)
        except TypeError:  # an unhashable stand-in as a key or set member
            return Opaque(_type_name(kind), safe_repr(value), "holds values that cannot be sent back")
        finally:
            active.discard(id(value))
    plain = _plain_equivalent(value, depth, budget, active)
    fields = _fields(value, depth, budget, active)
    printable = plain is not None and isinstance(value, (list, tuple, dict, str, int, float))
    plain_eq = plain is not None and any(
        isinstance(value, base) and getattr(kind, "__eq__", None) is base.__eq__
        for base in (list, tuple, dict, str, int, float, complex, bytes, set, frozenset)
    )
    own_eq = fields is not None and not plain_eq and _own_eq(kind)
    return Opaque(_type_name(kind), safe_repr(value), "not a plain value", plain, fields, printable, plain_eq, own_eq)


def _own_eq(kind: type) -> bool:
    """Whether a dataclass's, attrs class's or named tuple's ``==`` is neither generated from its fields nor tuple's."""
    eq = getattr(kind, "__eq__", None)
    if eq is tuple.__eq__:
        return False
    code = getattr(eq, "__code__", None)
    if code is None:
        return True  # object's identity (a dataclass with eq=False), or a builtin's
    generated = code.co_filename == "<string>" or code.co_filename.startswith("<attrs generated")
    return not generated


def _plain_equivalent(value: Any, depth: int, budget: list[int], active: set[int]) -> Any:
    for base in (bool, int, float, complex, str, bytes, tuple, list, dict, set, frozenset):
        if isinstance(value, base):
            try:
                return _portable(base(value), depth + 1, budget, active)
            except BaseException:  # noqa: BLE001 - a hostile subclass
                return None
    # Compared as what they are: a Mapping as a dict (Mapping.__eq__ does), a keys or
    # items view as a set (a view equals a set with the same members).
    if isinstance(value, collections.deque):  # compared as a sequence (though a deque never equals a list)
        try:
            return _portable(list(value), depth + 1, budget, active)
        except BaseException:  # noqa: BLE001
            return None
    for abc, base in ((collections.abc.Mapping, dict), (collections.abc.KeysView, set), (collections.abc.ItemsView, set)):
        if isinstance(value, abc):
            try:
                return _portable(base(value.items() if base is dict else value), depth + 1, budget, active)
            except BaseException:  # noqa: BLE001 - unhashable items, a hostile class
                return None
    return None


def _fields(value: Any, depth: int, budget: list[int], active: set[int]) -> tuple[tuple[str, Any], ...] | None:
    """The fields that a dataclass's, an attrs class's or a named tuple's ``==`` compares, by name."""
    kind = type(value)
    try:
        if dataclasses.is_dataclass(kind):
            # Not dataclasses.fields(): for a class that travelled by value to the worker, its
            # fields' markers are copies that fields() does not recognise; their names still tell.
            names = [
                f.name for f in kind.__dataclass_fields__.values()
                if getattr(getattr(f, "_field_type", None), "name", "_FIELD") == "_FIELD" and f.compare
            ]
        elif isinstance(getattr(kind, "__attrs_attrs__", None), tuple):
            names = [a.name for a in kind.__attrs_attrs__ if getattr(a, "eq", True)]
        elif isinstance(value, tuple) and isinstance(getattr(kind, "_fields", None), tuple):
            names = list(kind._fields)
            if len(names) != len(value):
                return None
            return tuple((str(n), _portable(v, depth + 1, budget, active)) for n, v in zip(names, tuple(value)))
        else:
            return None
        return tuple((name, _portable(getattr(value, name), depth + 1, budget, active)) for name in names)
    except BaseException:  # noqa: BLE001 - a hostile property or class: no fields, only the repr
        return None
