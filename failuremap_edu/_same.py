"""Whether two values are the same: equal, of the same types, nested.

`==` alone says ``[(0, 2)] == [[0, 2]]`` and ``1 == 1.0 == True``; a learner's value and
the record's are the same only when their types agree at every level as well. An
instance sent back by its fields (`Opaque`) is the same as another of the class of
the same local name (the module a script, a solution file or a cell gave it aside)
with the same fields. A hostile ``__eq__`` makes values not the same; it never raises.
"""

from __future__ import annotations

from ._values import Opaque

__all__ = ["container_types", "local_name", "same_value"]

_LOCAL_PREFIXES = ("__failuremap__.", "solution.", "__main__.")


def local_name(type_name: str) -> str:
    """A class's name without the module a script, a solution file or a cell gave it: the record's Span and the
    copy in the learner's cell are one class to a learner."""
    for prefix in _LOCAL_PREFIXES:
        if type_name.startswith(prefix):
            return type_name[len(prefix):]
    return type_name


def same_value(a, b, depth: int = 0) -> bool:
    """Equal values of the same types, nested; instances sent back by their fields compare by class name and fields."""
    if depth > 50:
        return False
    if type(a) is Opaque and type(b) is Opaque and a.fields is not None and b.fields is not None:
        return local_name(a.type_name) == local_name(b.type_name) and len(a.fields) == len(b.fields) and all(
            na == nb and same_value(va, vb, depth + 1) for (na, va), (nb, vb) in zip(a.fields, b.fields)
        )
    if type(a) in (list, tuple) and type(b) is type(a):
        return len(a) == len(b) and all(same_value(x, y, depth + 1) for x, y in zip(a, b))
    if type(a) is dict and type(b) is dict:
        return list(a) == list(b) and all(same_value(a[k], b[k], depth + 1) for k in a)
    try:
        return type(a) is type(b) and bool(a == b) and container_types(a) == container_types(b)
    except BaseException:  # noqa: BLE001 - a hostile __eq__: not the same
        return False


def container_types(value, depth: int = 0):
    """The value's container types, nested: [(0, 2)] and [[0, 2]] are equal to == only when the types agree."""
    if depth > 50 or type(value) not in (list, tuple, dict, set, frozenset):
        return type(value).__name__
    items = value.values() if type(value) is dict else value
    return (type(value).__name__, tuple(container_types(v, depth + 1) for v in list(items)[:1_000]))
