"""Values across the judge split (`_judge`): plain data both ways, rebuilt on the receiving side.

A value leaves either process as `_portable.portable` makes it. The receiver takes
it back as itself where that runs nobody's code: plain data as is, a stand-in
whose ``==`` is its plain type's (a named tuple) as that plain value, and a
dataclass instance, which travels as its compared fields, as an instance of the
receiver's own class of that name (the record's ``Span`` in the judge, the
solution's ``Span`` in solve's process), built without calling ``__init__``. What
cannot be rebuilt so (a generator, an always-equal object, a class the receiver
does not have) is `NOT_PLAIN`: that check is judged in solve's process instead.
"""

from __future__ import annotations

import builtins
import contextlib
import dataclasses
from typing import Any

from .._values import Opaque, Reported, safe_repr

NOT_PLAIN = object()
"""What `rebuilt` gives for a value that cannot be taken back as itself."""


def rebuilt(value: Any, namespace: dict) -> Any:
    """`value` (as received) with its stand-ins rebuilt where that runs no one's code, else `NOT_PLAIN`."""
    kind = type(value)
    if kind is Opaque:
        if value.plain_eq and value.plain is not None:
            return rebuilt(value.plain, namespace)
        return _instance(value, namespace)
    if kind in (list, tuple, set, frozenset):
        items = [rebuilt(item, namespace) for item in value]
        if any(item is NOT_PLAIN for item in items):
            return NOT_PLAIN
        try:
            return items if kind is list else kind(items)
        except TypeError:  # an unhashable instance in a set
            return NOT_PLAIN
    if kind is dict:
        pairs = [(rebuilt(k, namespace), rebuilt(v, namespace)) for k, v in value.items()]
        if any(k is NOT_PLAIN or v is NOT_PLAIN for k, v in pairs):
            return NOT_PLAIN
        try:
            return dict(pairs)
        except TypeError:
            return NOT_PLAIN
    return value


def _instance(o: Opaque, namespace: dict) -> Any:
    """An instance of the namespace's dataclass named as `o`'s class, with `o`'s fields: its fields set, no ``__init__`` run."""
    name = o.type_name.rsplit(".", 1)[-1]
    cls = namespace.get(name)
    if o.fields is None or not isinstance(cls, type) or cls.__name__ != name or not dataclasses.is_dataclass(cls):
        return NOT_PLAIN
    fields = [f for f in cls.__dict__.get("__dataclass_fields__", {}).values() if getattr(getattr(f, "_field_type", None), "name", "_FIELD") == "_FIELD"]
    if [f.name for f in fields if f.compare] != [field for field, _ in o.fields]:
        return NOT_PLAIN
    values = {field: rebuilt(v, namespace) for field, v in o.fields}
    if any(v is NOT_PLAIN for v in values.values()):
        return NOT_PLAIN
    for f in fields:  # the ones == does not compare: their defaults
        if f.name not in values:
            if f.default is dataclasses.MISSING:
                return NOT_PLAIN
            values[f.name] = f.default
    try:
        obj = object.__new__(cls)
        for field, v in values.items():
            object.__setattr__(obj, field, v)
    except (TypeError, AttributeError):
        return NOT_PLAIN
    return obj


def crossable(value: Any) -> bool:
    """Whether every stand-in in `value` may be rebuilt on the other side (plain ``==``, or a dataclass's fields)."""
    return all(o.plain_eq or o.fields is not None for o in _stand_ins(value))


def class_names(value: Any) -> frozenset[str]:
    """The names of the dataclasses whose instances `value` holds (as stand-ins with fields)."""
    return frozenset(o.type_name.rsplit(".", 1)[-1] for o in _stand_ins(value) if o.fields is not None)


def receivers_classes(theirs: dict, sent: dict) -> dict:
    """Where solve's process rebuilds instances: the solution's own dataclass of a name (it replaces the record's, as if
    pasted into the script), else the record's, sent by value from the judge (a solution file need not define it)."""
    namespace = dict(sent)
    for name in sent:
        mine = theirs.get(name)
        if isinstance(mine, type) and dataclasses.is_dataclass(mine):
            namespace[name] = mine
    return namespace


def first_stand_in(value: Any) -> str:
    """The first stand-in in `value`, for a message: ``a generator: <generator object …>``."""
    found = next(iter(_stand_ins(value)), None)
    return "" if found is None else f"a {found.type_name}: {safe_repr(found, 80)}"


def _stand_ins(value: Any) -> list[Opaque]:
    found, pending = [], [value]
    while pending:
        item = pending.pop()
        if type(item) is Opaque:
            found.append(item)
            pending += [v for _, v in item.fields or ()]
        elif type(item) is dict:
            pending += [*item.keys(), *item.values()]
        elif type(item) in (list, tuple, set, frozenset):
            pending += list(item)
    return found


def copy_back(target: Any, value: Any) -> None:
    """Make the caller's argument `target` hold `value` (the argument after the call, plain data), in place where it is mutable."""
    if value is None or type(value) is Opaque:
        return
    if type(target) is list and type(value) is list:
        if len(target) == len(value):
            for i, (mine, theirs) in enumerate(zip(target, value)):
                if type(mine) in (list, dict, set) and type(theirs) is type(mine):
                    copy_back(mine, theirs)
                elif type(mine) is tuple and type(theirs) is tuple and len(mine) == len(theirs):  # lists inside a tuple
                    copy_back(list(mine), list(theirs))
                elif not _stand_ins(theirs) and (type(mine) is not type(theirs) or mine != theirs):
                    target[i] = theirs
        elif not _stand_ins(value):
            target[:] = value
    elif type(target) is dict and type(value) is dict and not _stand_ins(value):
        for key in [k for k in target if k not in value]:
            del target[key]
        for key, theirs in value.items():
            mine = target.get(key)
            if type(mine) in (list, dict, set) and type(theirs) is type(mine):
                copy_back(mine, theirs)
            else:
                target[key] = theirs
    elif type(target) is set and type(value) is set and target != value:
        target.clear()
        target.update(value)


def raised(error: dict) -> BaseException:
    """The exception solve raised: a builtin one as itself (fixtures may catch it), any other as `Reported`."""
    kind = getattr(builtins, error["type"], None)
    exc: BaseException = Reported(error)
    if isinstance(kind, type) and issubclass(kind, Exception) and kind.__module__ == "builtins":
        with contextlib.suppress(Exception):
            exc = kind(error["message"])
            exc.__fm_reported__ = dict(error)  # type: ignore[attr-defined]
    return exc
