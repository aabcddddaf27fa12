"""Values as everything above the runner shows them: plain data, reprs that never raise, clipped text.

The bottom layer. The session (in the worker) turns what `solve` returned into
plain data with `portable` and describes exceptions with `error_payload`; the
diff, the renderers and the exercise show values with `safe_repr` and text with
`clip`. One definition of each, so that every layer clips alike.
"""

from __future__ import annotations

import collections
import collections.abc
import dataclasses
import os
import re
import traceback
import unicodedata
from dataclasses import dataclass
from typing import Any

__all__ = [
    "Opaque",
    "Reported",
    "clip",
    "error_payload",
    "is_not_computed",
    "not_computed",
    "portable",
    "received",
    "render_call",
    "safe_repr",
    "same_data",
    "safe_str",
    "text_safe",
]

_REPR_LIMIT = 2_000
_CALL_LIMIT = 500
_MESSAGE_LIMIT = 2_000
_MAX_DEPTH = 200
_MAX_NODES = 2_000_000
_MAX_STRING = 32 * 1024 * 1024
_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
SOLVE_FRAME = "solve_called_by_the_fixture"
"""The name of the session's wrapper around solve: tracebacks are cut just inside it."""


def clip(text: str, limit: int, *, one_line: bool = False) -> str:
    """`text` cut to at most `limit` characters, ending in "…" when cut.

    `one_line` first collapses every run of whitespace (line breaks included) to
    one space: for table cells and headers.
    """
    text = str(text)
    if one_line:
        text = " ".join(text.split())
    return text if len(text) <= limit else text[: max(limit - 1, 0)] + "…"


_SURROGATE = re.compile("[\ud800-\udfff]")


def text_safe(text: str) -> str:
    """`text` with every lone surrogate (``"\\ud800"``) replaced by its visible escape, ``\\ud800``.

    A Python string may hold code points that no encoding can write: JSON's
    ``"\\ud800"`` decodes to one, and so can a learner's return value, an exception
    message or a hand-in's learner id. Every writer (the terminal, HTML, notebooks,
    JSON files, the progress log, the panel) passes its text through here first, so
    that one such character shows as an escape instead of raising
    UnicodeEncodeError. In JSON text the escape is JSON's own: a lone surrogate
    reads back as itself.
    """
    text = str(text)
    if _SURROGATE.search(text) is None:
        return text
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


NOT_COMPUTED = "not computed"
"""`Opaque.type_name` of an expected value that was never computed (`not_computed`)."""


@dataclass(frozen=True, eq=False)
class Opaque:
    """Stands in for a value that cannot leave the sandbox as itself.

    A generator, an open file, an instance of a class defined in the notebook, or a
    value too large to send back is described instead: its type, its repr, and,
    when it is a subclass of a plain container (a namedtuple, an OrderedDict) or
    another `Mapping`, or a dict's keys or items view, the plain equivalent so that
    diffs can still look inside. A dataclass, an attrs instance or a named tuple
    also brings its fields by name, so that diffs can name the differing field.
    """

    type_name: str
    repr: str
    reason: str
    plain: Any = None
    fields: tuple[tuple[str, Any], ...] | None = None
    """(name, plain value) of each field its ``==`` compares, for a dataclass, attrs instance or named tuple."""
    printable: bool = False
    """Whether ``json.dumps`` prints the value as `plain`: a subclass of a list, tuple, dict, str, int or float
    (a named tuple prints as a list). The record's harness prints its observations so; `to_jsonable` follows."""
    plain_eq: bool = False
    """Whether its ``==`` is its plain type's own (a named tuple's is tuple's): then `plain` decides the verdict,
    not the class's code, and no note says that the class's ``__eq__`` compared it."""
    own_eq: bool = False
    """Whether its class's ``==`` is its own code (or identity, ``eq=False``), not the one a dataclass or attrs
    generates from the fields, nor a plain base's: then `fields` may not be what ``==`` compares."""

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Opaque) or self.type_name != other.type_name or (self.fields is None) != (other.fields is None):
            return False
        if self.fields is not None:  # decide on the values, not on a repr
            return self.fields == other.fields
        if self.plain is not None and other.plain is not None and self.plain != other.plain:
            return False  # equal reprs (an address reused, a clipped repr) do not make equal values
        return self.repr == other.repr

    def __hash__(self) -> int:
        if self.fields is not None:
            try:
                return hash((self.type_name, self.fields))
            except TypeError:  # a field holds a list: equal stand-ins still hash alike
                return hash(self.type_name)
        return hash((self.type_name, self.repr))

    def __repr__(self) -> str:
        return self.repr


def not_computed(why: str) -> Opaque:
    """Stands in for an expected value that was never computed, saying why (never a bare None)."""
    return Opaque(NOT_COMPUTED, "(not computed)", why)


def is_not_computed(value: Any) -> bool:
    """True for the stand-in of `not_computed`: displays say why instead of showing a value."""
    return type(value) is Opaque and value.type_name == NOT_COMPUTED


_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+>")


def without_address(text: str) -> str:
    """A default repr without its memory address (``<generator object solve at 0x7f…>`` → ``<generator object solve>``):
    the address says nothing to a learner and differs on every run."""
    return _ADDRESS.sub(">", text) if " at 0x" in text else text


def safe_repr(value: Any, limit: int = _REPR_LIMIT, *, keep_end: bool = False) -> str:
    """repr() that never raises and never builds more than about `limit` characters.

    A 5 MB string or a 100,000-item list is not turned into a 5 MB repr only to be
    clipped: long strings and containers are shown by their beginning, counted.
    `keep_end` clips in the middle instead, so that both ends stay visible (diff
    messages, where the difference may be at the end).
    """
    kind = type(value)
    if isinstance(value, Opaque):
        return clip(without_address(value.repr), limit)
    if keep_end:
        return _middle_clip(value, limit)
    if kind in (str, bytes) and len(value) > limit:
        return _repr(value[:limit])[: limit - 1] + f"…  [{len(value):,} characters]"
    if kind in (list, tuple, set, frozenset, dict) and len(value) > limit // 2:
        count = max(limit // 8, 4)
        if kind is dict:
            shown = ", ".join(f"{safe_repr(k, 40)}: {safe_repr(v, 40)}" for k, v in list(value.items())[:count])
        else:
            first = _in_order(value)[:count] if kind in (set, frozenset) and len(value) <= 100_000 else list(value)[:count]
            shown = ", ".join(safe_repr(x, 40) for x in first)
        brackets = {list: "[]", tuple: "()", dict: "{}", set: "{}", frozenset: "{}"}[kind]
        text = f"{brackets[0]}{shown}, …{brackets[1]}  [{len(value):,} items]"
        return text if len(text) <= limit else text[: limit - 1] + "…"
    try:
        text = fields_repr(value, limit) or _repr(value, limit)
    except BaseException as exc:  # noqa: BLE001 - learner objects may break repr
        text = f"<{kind.__name__} object; repr() raised {type(exc).__name__}>"
    if not isinstance(text, str):
        text = f"<{kind.__name__} object>"
    text = without_address(text)
    return clip(text, limit)


_FIELDS_SHOWN = 12


def fields_repr(value: Any, limit: int = _REPR_LIMIT, _depth: int = 0) -> str | None:
    """``Stream(n=50, read=3)``: an object whose class keeps object's own repr (``<… object at 0x…>``) by its type and
    instance attributes (``__dict__`` or ``__slots__``, at most 12, each value shown by `safe_repr`, three levels deep); None for any other
    object, or one without attributes. The attributes are read without running the class's code (no properties, no
    ``__getattr__``)."""
    kind = type(value)
    if getattr(kind, "__repr__", None) is not object.__repr__ or kind is object:
        return None
    try:
        attributes = object.__getattribute__(value, "__dict__")
    except AttributeError:
        attributes = None
    pairs: list = []
    if type(attributes) is dict:
        pairs = [(k, v) for k, v in list(attributes.items())[: _FIELDS_SHOWN + 1] if type(k) is str]
    else:
        for cls in kind.__mro__:
            slots = cls.__dict__.get("__slots__", ())
            for name in (slots,) if isinstance(slots, str) else slots:
                descriptor = cls.__dict__.get(name)
                if type(name) is str and name not in ("__dict__", "__weakref__") and hasattr(descriptor, "__get__"):
                    try:
                        pairs.append((name, descriptor.__get__(value, kind)))
                    except AttributeError:  # an unset slot
                        continue
    if not pairs:
        return None
    name = str(getattr(kind, "__qualname__", None) or kind.__name__).rpartition("<locals>.")[2]
    if _depth >= 3:  # an object that holds itself, or a deep chain of them
        return f"{name}(…)"
    shown = ", ".join(f"{k}={fields_repr(v, 80, _depth + 1) or safe_repr(v, 80)}" for k, v in pairs[:_FIELDS_SHOWN])
    more = ", …" if len(pairs) > _FIELDS_SHOWN else ""
    return clip(f"{name}({shown}{more})", limit)


def _repr(value: Any, limit: int | None = None) -> str:
    """repr(), with combining marks escaped as well (``'cafe\\u0301'``).

    Python's repr already escapes what is unprintable (a no-break space shows as
    ``\\xa0``), but not a combining mark: ``'café'`` written with one looks exactly
    like ``'café'`` without, and an accent on its own sticks to the quote before it.
    The escaped form is still a valid repr of the same string.
    """
    text = _ordered_repr(value, 0) if _holds_a_set(value) else repr(value)  # a set, or an object shown by its fields
    if limit is not None and type(text) is str:
        text = text[: limit + 1]  # escaped after clipping: a repr of many megabytes is not walked character by character
    if type(text) is not str:
        return text
    return escape_marks(text)


def escape_marks(text: str) -> str:
    """Each combining mark as its ``\\uXXXX`` escape: alone it sticks to the character before it, unseen.
    Inside a string literal of a repr or of source code the escaped form means the same string."""
    if text.isascii():
        return text
    return "".join(f"\\u{ord(ch):04x}" if unicodedata.category(ch) in ("Mn", "Me") else ch for ch in text)


def _holds_a_set(value: Any, depth: int = 0, budget: list[int] | None = None) -> bool:
    """Whether a set or frozenset, or an object that `fields_repr` shows (``Param(grad=[3.0])``), is in the value,
    among plain containers (up to 10,000 items looked at): then `_ordered_repr` writes its repr."""
    budget = [10_000] if budget is None else budget
    kind = type(value)
    if kind in (set, frozenset) or (depth and getattr(kind, "__repr__", None) is object.__repr__ and kind is not object):
        return True
    if depth > 20 or kind not in (list, tuple, dict):
        return False
    items = value.items() if kind is dict else value
    for item in items:
        budget[0] -= 1
        if budget[0] < 0:
            return False
        if any(_holds_a_set(part, depth + 1, budget) for part in (item if kind is dict else (item,))):
            return True
    return False


def _ordered_repr(value: Any, depth: int) -> str:
    """repr() with the members of every set in order: a set's own order follows string hashing, which changes from
    one process to the next, so a stored output never matched a new run (nbval) and two runs showed one set two ways."""
    kind = type(value)
    if depth > 20 or kind not in (list, tuple, dict, set, frozenset):
        return (fields_repr(value) if depth else None) or repr(value)
    if kind is dict:
        return "{" + ", ".join(f"{_ordered_repr(k, depth + 1)}: {_ordered_repr(v, depth + 1)}" for k, v in value.items()) + "}"
    if kind in (list, tuple):
        inner = ", ".join(_ordered_repr(x, depth + 1) for x in value)
        return f"[{inner}]" if kind is list else f"({inner},)" if len(value) == 1 else f"({inner})"
    members = [_ordered_repr(x, depth + 1) for x in _in_order(value)]
    if not members:
        return "set()" if kind is set else "frozenset()"
    return "{" + ", ".join(members) + "}" if kind is set else "frozenset({" + ", ".join(members) + "})"


def _in_order(members: Any) -> list:
    """A set's members sorted by value, or by repr when they do not compare (mixed types)."""
    try:
        return sorted(members)
    except TypeError:
        return sorted(members, key=repr)


def _middle_clip(value: Any, limit: int) -> str:
    if type(value) in (str, bytes) and len(value) > limit:
        half = max(limit // 2 - 4, 4)
        # escapes (\n, \x00) make a repr longer than its text: cut the reprs, not only the text
        return f"{_repr(value[:half])[:-1][: half + 2]} … {_repr(value[-half:])[1:][-(half + 1):]}"
    if type(value) in (list, tuple, dict, set, frozenset) and len(value) > limit:
        return safe_repr(value, limit)
    text = safe_repr(value, max(limit * 4, 1_000))
    if len(text) <= limit:
        return text
    keep = max(limit - 12, 8)
    head = keep * 2 // 3
    return f"{text[:head]} … {text[-(keep - head):]}"


def safe_str(value: Any, limit: int = _MESSAGE_LIMIT) -> str:
    try:
        text = str(value)
    except BaseException:  # noqa: BLE001
        text = safe_repr(value, limit)
    return clip(text, limit)


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


def _type_name(kind: type) -> str:
    module = getattr(kind, "__module__", "") or ""
    name = getattr(kind, "__qualname__", None) or getattr(kind, "__name__", "object")
    return name if module in ("builtins", "__main__", "") else f"{module}.{name}"


class Reported(Exception):
    """An exception raised in another process and described there: `error_payload` gives that description."""

    def __init__(self, error: dict) -> None:
        super().__init__(error.get("message", ""))
        self.__fm_reported__ = dict(error)


def error_payload(exc: BaseException, *, program_filename: str | None = None) -> dict:
    """Describe an exception as plain data, with the traceback trimmed to user frames.

    Frames of this package are dropped. When the error came from inside `solve`,
    only frames from the solve call inward are kept: the learner's own code. An
    exception described in another process (`Reported`) keeps that description.
    """
    reported = getattr(exc, "__fm_reported__", None)
    if type(reported) is dict:
        return dict(reported)
    frames = traceback.extract_tb(exc.__traceback__)
    cut = None
    for i, frame in enumerate(frames):
        if frame.name == SOLVE_FRAME and frame.filename.startswith(_PACKAGE_DIR):
            cut = i
    if cut is not None:
        kept = frames[cut + 1 :]
    else:
        kept = [f for f in frames if not f.filename.startswith(_PACKAGE_DIR)]
    try:
        tail = "".join(traceback.format_exception_only(type(exc), exc))
    except BaseException:  # noqa: BLE001
        tail = f"{_type_name(type(exc))}: {safe_str(exc)}\n"
    body = "".join(traceback.StackSummary.from_list(kept).format()) if kept else ""
    text = ("Traceback (most recent call last):\n" + body if body else "") + tail
    if len(text) > 20_000:
        text = text[:9_000] + "\n[… traceback shortened …]\n" + text[-9_000:]
    message = safe_str(exc)
    if type(exc) is SystemExit:  # an empty message says nothing: say what happened and what to do
        code = "" if exc.code is None else safe_repr(exc.code, 40)
        message = f"solve called sys.exit({code}) (or exit()), which would end a whole program; here it only ended this call of solve. Return a value instead."
    return {"type": _type_name(type(exc)), "message": message, "traceback": text}


def render_call(args: tuple, kwargs: dict) -> str:
    """``solve('hello<st', ['<stop>'])``: a call as the learner would type it, clipped."""
    parts = [safe_repr(a, _CALL_LIMIT) for a in args]
    parts += [f"{k}={safe_repr(v, _CALL_LIMIT)}" for k, v in kwargs.items()]
    text = "solve(" + ", ".join(parts) + ")"
    return text if len(text) <= _CALL_LIMIT else text[: _CALL_LIMIT - 2] + "…)"


def same_data(a: Any, b: Any) -> bool:
    """Whether two plain values are the same data (types too: 1 and 1.0 print differently); NaN is itself."""
    if type(a) is not type(b):
        return False
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same_data(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return len(a) == len(b) and all(k in b and same_data(v, b[k]) for k, v in a.items())
    if isinstance(a, float):
        return a == b or (a != a and b != b)
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001
        return False
