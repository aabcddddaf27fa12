"""What a diff says, as typed claims, each with a verifier that decides from the two values alone whether it holds.

Pure data, below the diff and the renderers. A claim's `path` is a tuple of steps
from the root: ``("index", 3)``, ``("key", "em")``, ``("attr", "x")`` (a field of
a dataclass, attrs instance or named tuple) or ``("member", 1)`` (of a set). The
values are the ones the diff compared: the portable view (`_portable.portable`), in
which a named tuple, a dataclass or a Mapping is an `Opaque` with its plain
equivalent or its fields. `equal` is ``==`` on that view, as ``==`` decides on the
original values. `verify(claim, expected, got)` is True exactly when the claim holds;
`apply(expected, claims)` replays the differences on expected (it equals got when the
diff kept every difference).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

from ._values import Opaque

__all__ = [
    "Count", "Differs", "Extra", "Length", "MISSING", "Missing", "OwnEquality", "Pattern", "Reordered",
    "TypeDiffers", "apply", "equal", "explains", "path_name", "resolve", "type_name", "verify",
]

Path = tuple


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING = _Missing()
"""What `resolve` gives for a path that does not lead into a value."""


@dataclass(frozen=True)
class Differs:
    """The values at `path` are unequal by ``==``: expected holds `expected`, got holds `got`."""

    path: Path
    expected: Any
    got: Any


@dataclass(frozen=True)
class Missing:
    """Expected has `expected` at `path` (an index of expected, a key, a field or a member) that got lacks."""

    path: Path
    expected: Any


@dataclass(frozen=True)
class Extra:
    """Got has `got` at `path` (an index of got, a key, a field or a member) that expected lacks."""

    path: Path
    got: Any


@dataclass(frozen=True)
class TypeDiffers:
    """The types at `path` differ and ``==`` cares about that (a tuple never equals a list; bool and int it ignores)."""

    path: Path
    expected_type: str
    got_type: str
    items_equal: bool | None = None
    """For sequences (a tuple against a list): whether their items are equal, one by one; None when not said."""


@dataclass(frozen=True)
class Length:
    """The sequences at `path` have these lengths, and they differ."""

    path: Path
    expected: int
    got: int


@dataclass(frozen=True)
class Reordered:
    """The lists at `path` hold the same items, counted, in another order."""

    path: Path
    expected: Any
    got: Any


@dataclass(frozen=True)
class OwnEquality:
    """The values at `path` are instances of a class whose ``==`` is its own: its fields may not be what it compares."""

    path: Path
    type_name: str


@dataclass(frozen=True)
class Count:
    """`n` more of `what` (``differences``: found but not kept; ``items``: differing items not looked into)."""

    what: str
    n: int


@dataclass(frozen=True)
class Pattern:
    """What the differences have in common: `kind` with its `params` (see `_patterns`)."""

    kind: str
    params: tuple = ()


# ------------------------------------------------------------------ the view


def type_name(value: Any) -> str:
    """The name of a value's type as the view knows it (an Opaque's own type, not Opaque)."""
    return value.type_name if type(value) is Opaque else type(value).__name__


def _plain_eq(value: Any) -> Any:
    """An Opaque whose ``==`` is its plain type's (a named tuple, a str subclass) as that plain value."""
    while type(value) is Opaque and value.plain_eq and value.plain is not None:
        value = value.plain
    return value


def equal(e: Any, a: Any, depth: int = 0) -> bool:
    """``==`` on portable views, as it decides on the original values (a named tuple equals a tuple)."""
    if (depth and e is a) or (type(e) is type(a) and _eq(e, a)):
        return True  # == inside a container takes the same object as equal (a NaN too); at the top it does not
    e, a = _plain_eq(e), _plain_eq(a)
    if (type(e) is Opaque) != (type(a) is Opaque):  # a Mapping equals a dict, a keys view a set: by the plain value
        e, a = _as_plain(e), _as_plain(a)
    if depth > 300:
        return _eq(e, a)
    te, ta = type(e), type(a)
    if te is Opaque and ta is Opaque and e.fields is not None and a.fields is not None and not (e.own_eq or a.own_eq):
        return e.type_name == a.type_name and len(e.fields) == len(a.fields) and all(
            n == m and equal(x, y, depth + 1) for (n, x), (m, y) in zip(e.fields, a.fields)
        )
    if te in (list, tuple) or ta in (list, tuple):
        return te is ta and len(e) == len(a) and all(equal(x, y, depth + 1) for x, y in zip(e, a))
    if te is dict or ta is dict:
        if te is not ta or len(e) != len(a):
            return False
        try:
            return all(k in a and equal(v, a[k], depth + 1) for k, v in e.items())
        except TypeError:
            return False
    return _eq(e, a)


def _as_plain(value: Any) -> Any:
    if type(value) is Opaque and value.plain is not None and not value.own_eq and value.type_name != "collections.deque":
        return value.plain
    return value


def _eq(e: Any, a: Any) -> bool:
    try:
        return bool(e == a)
    except Exception:  # noqa: BLE001 - an == that raises: not equal
        return False


def _container(value: Any) -> Any:
    """What a step goes into: the value, or an Opaque's plain equivalent."""
    if type(value) is Opaque and value.plain is not None:
        return value.plain
    return value


def resolve(value: Any, path: Path, side: str = "got") -> Any:
    """The part of `value` at `path`, or `MISSING`. An index step of an aligned sequence, ``("index", j, i)``,
    is at j in got and at i in expected (`side`)."""
    for step, where, *other in path:
        if other and side == "expected":
            where = other[0]
        if step == "attr":
            fields = dict(value.fields) if type(value) is Opaque and value.fields is not None else None
            if fields is None or where not in fields:
                return MISSING
            value = fields[where]
            continue
        inner = _container(value)
        if step == "index":
            if type(inner) not in (list, tuple) or not 0 <= where < len(inner):
                return MISSING
            value = inner[where]
        elif step == "key":
            if type(inner) is not dict:
                return MISSING
            try:
                if where not in inner:
                    return MISSING
            except TypeError:
                return MISSING
            value = inner[where]
        elif step == "member":
            if type(inner) not in (set, frozenset):
                return MISSING
            stored = {m: m for m in inner}
            if where not in stored:
                return MISSING
            value = stored[where]
        else:
            return MISSING
    return value


_NUMBERS = {"bool", "int", "float", "complex"}
_SETS = {"set", "frozenset"}


def type_matters(e: Any, a: Any) -> bool:
    """Whether ``==`` cares that the two types differ: not between numbers, sets and frozensets, or a class
    whose ``==`` is its plain base's and that base."""
    e, a = _plain_eq(e), _plain_eq(a)
    te, ta = type_name(e), type_name(a)
    if te == ta:
        return False
    if te in _NUMBERS and ta in _NUMBERS or te in _SETS and ta in _SETS:
        return False
    return True


def _steps_text(path: Path, side: str, show_key: Any) -> str:
    out = []
    for kind, where, *other in path:
        if kind == "index":
            out.append(f"[{other[0] if other and side == 'expected' else where}]")
        elif kind == "key":
            out.append(f"[{show_key(where)}]")
        elif kind == "attr":
            out.append(f".{where}")
    return "".join(out)


def path_name(claim: Any, show_key: Any = repr) -> str:
    """Where a claim is, in words, from its path's steps alone: ``[3][0]``, ``['em']``, ``.x`` (a set's member is
    said by the claim, not here). When an aligned step's index differs on the two sides, each side is named with its
    own indices (``expected[3] / got[2]``), a `Missing` item on expected's side only (``expected[3][0]``) and an
    `Extra` item on got's (``got[2][1]``): one item has one name, and every index said is one the verifier resolves."""
    path = claim.path
    if not any(len(step) > 2 for step in path):
        return _steps_text(path, "got", show_key)
    if isinstance(claim, Missing):
        return "expected" + _steps_text(path, "expected", show_key)
    if isinstance(claim, Extra):
        return "got" + _steps_text(path, "got", show_key)
    return f"expected{_steps_text(path, 'expected', show_key)} / got{_steps_text(path, 'got', show_key)}"


# ---------------------------------------------------------------- verifiers


def _same_object(x: Any, y: Any, active: set | None = None) -> bool:
    """The same value, part for part (a claim's value against the one at its path): a NaN is the same NaN, and a
    value that holds itself is the same where both hold themselves at the same place."""
    if x is y:
        return True
    if type(x) is float and type(y) is float and math.isnan(x) and math.isnan(y):
        return True
    active = set() if active is None else active
    if (id(x), id(y)) in active:
        return True
    if type(x) is type(y) and type(x) in (list, tuple, dict) and len(x) == len(y) and len(active) < 10_000:
        active.add((id(x), id(y)))
        if type(x) is dict:
            return x.keys() == y.keys() and all(_same_object(x[k], y[k], active) for k in x)
        return all(_same_object(i, j, active) for i, j in zip(x, y))
    return equal(x, y) and type_name(_plain_eq(x)) == type_name(_plain_eq(y))


def verify(claim: Any, expected: Any, got: Any) -> bool:
    """True exactly when `claim` holds of the two values (for `Count` and `Pattern`, see `_patterns.verify`)."""
    kind = type(claim)
    if kind is Differs or kind is Reordered:
        e, a = resolve(expected, claim.path, "expected"), resolve(got, claim.path)
        if e is MISSING or a is MISSING or equal(e, a, 1 if claim.path else 0):
            return False
        if not (_same_object(e, claim.expected) and _same_object(a, claim.got)):
            return False
        if kind is Reordered:
            return type(e) is list and type(a) is list and _rearranged(e, a)
        return True
    if kind is Missing or kind is Extra:
        if claim.path and len(claim.path[-1]) != 2:
            return False  # the item itself is on one side only (expected's for Missing, got's for Extra)
        holder, other = (expected, got) if kind is Missing else (got, expected)
        sides = ("expected", "got") if kind is Missing else ("got", "expected")
        there = resolve(holder, claim.path, sides[0])
        if there is MISSING or not _same_object(there, claim.expected if kind is Missing else claim.got):
            return False
        if claim.path and claim.path[-1][0] != "index":
            there_parent = resolve(other, claim.path[:-1], sides[1])
            return there_parent is not MISSING and resolve(other, claim.path, sides[1]) is MISSING
        parent_here, parent_there = resolve(holder, claim.path[:-1], sides[0]), resolve(other, claim.path[:-1], sides[1])
        return parent_there is not MISSING and not equal(parent_here, parent_there)
    if kind is TypeDiffers:
        e, a = resolve(expected, claim.path, "expected"), resolve(got, claim.path)
        if e is MISSING or a is MISSING or equal(e, a, 1 if claim.path else 0):
            return False
        if claim.items_equal is not None:
            try:
                if equal(list(_container(e)), list(_container(a))) != claim.items_equal:
                    return False
            except TypeError:
                return False
        return (type_name(e), type_name(a)) == (claim.expected_type, claim.got_type) and type_matters(e, a)
    if kind is Length:
        e, a = _container(resolve(expected, claim.path, "expected")), _container(resolve(got, claim.path))
        try:
            return (len(e), len(a)) == (claim.expected, claim.got) and claim.expected != claim.got
        except TypeError:
            return False
    if kind is OwnEquality:
        e, a = resolve(expected, claim.path, "expected"), resolve(got, claim.path)
        return any(type(v) is Opaque and v.own_eq and v.type_name == claim.type_name for v in (e, a))
    raise TypeError(f"no verifier here for {kind.__name__}")


def _rearranged(e: list, a: list) -> bool:
    if len(e) != len(a) or equal(e, a):
        return False
    left = list(a)
    for item in e:
        for n, other in enumerate(left):
            if _same_object(item, other):
                del left[n]
                break
        else:
            return False
    return True


# ------------------------------------------------------ patterns over claims


_NUMBER_TYPES = (bool, int, float)


def _index(step: tuple) -> Any:
    return step[1] if step[0] == "index" else None


def explains(found: Pattern, claim: Any) -> bool:
    """Whether the pattern accounts for this difference claim (`_claims`): the claim lies where the pattern says
    the values differ, and is of a kind the pattern speaks of (a type difference only a whole-value pattern can hold)."""
    if isinstance(claim, (Count, Pattern)):
        return True
    if isinstance(claim, OwnEquality):
        return False
    kind, p, path = found.kind, found.params, claim.path
    if kind == "swapped":
        return isinstance(claim, Differs) and len(path) >= 1 and path[0][0] == "key" and path[0][1] in p
    if kind == "swapped_at_every_label":
        return isinstance(claim, Differs) and len(path) >= 2 and path[0][0] == "key" and path[1][0] == "key" and path[1][1] in p
    if kind == "transposed":
        return not (isinstance(claim, TypeDiffers) and not path)
    if kind in ("reversed", "shifted"):
        if not path:  # a reversal is the same items reordered; a string reversed or shifted differs as a whole
            same_kind = isinstance(claim, Differs) and type(claim.expected) is type(claim.got) is str
            return same_kind or kind == "reversed" and isinstance(claim, Reordered)
        return not isinstance(claim, (Length, Missing, Extra)) or len(path) > 1
    if kind in ("first", "last"):
        if not path and isinstance(claim, Reordered):
            return True  # the same items, and only the first (last) k positions differ: both hold
        if not (isinstance(claim, Differs) and len(path) >= 1 and _index(path[0]) is not None):
            return False
        i = _index(path[0])
        return i < p[0] if kind == "first" else i >= p[1] - p[0]
    if kind in ("diagonal", "on_diagonal", "row", "column"):
        if not (isinstance(claim, Differs) and len(path) == 2 and None not in (_index(path[0]), _index(path[1]))):
            return False
        i, j = _index(path[0]), _index(path[1])
        if kind in ("diagonal", "on_diagonal"):
            return i == j
        return (i if kind == "row" else j) == p[0]
    if kind == "offset_common":  # the items both have differ by the offset; the rest are missing or extra
        common = min(p[2], p[3])
        if not path:
            return isinstance(claim, Length)
        i = _index(path[0])
        if i is None or len(path[0]) > 2:
            return False
        if len(path) == 1 and isinstance(claim, (Missing, Extra)):
            return i >= common
        return i < common and isinstance(claim, Differs) and type(claim.expected) in _NUMBER_TYPES and type(claim.got) in _NUMBER_TYPES
    if kind in ("offset", "factor", "factor_rounded", "one_value"):
        return isinstance(claim, Differs) and type(claim.expected) in _NUMBER_TYPES and type(claim.got) in _NUMBER_TYPES
    return False


# -------------------------------------------------------------------- apply


def apply(expected: Any, claims: tuple) -> Any:
    """Expected with the differences the claims state made: it equals got when no difference was left out."""
    stated = [c for c in claims if isinstance(c, (Differs, Missing, Extra, TypeDiffers, Reordered))]
    return _apply(expected, [replace(c, path=tuple(step[:2] for step in c.path)) for c in stated], (), {})


def _apply(value: Any, claims: list, here: Path, got_types: dict) -> Any:
    depth = len(here)
    for c in claims:
        if isinstance(c, (Differs, Reordered)) and c.path == here:
            return c.got
    mine = [c for c in claims if len(c.path) > depth and c.path[:depth] == here]
    typed = [c for c in claims if isinstance(c, TypeDiffers) and c.path == here]
    if not mine and not typed:
        return value
    into_sequence = bool(typed) and typed[0].got_type in ("list", "tuple") or any(c.path[depth][0] == "index" for c in mine)
    if type(value) is Opaque and value.fields is not None and not into_sequence:
        fields = dict(value.fields)
        for c in mine:
            if len(c.path) == depth + 1 and isinstance(c, Missing):
                fields.pop(c.path[-1][1], None)
        for c in mine:
            if len(c.path) == depth + 1 and isinstance(c, Extra):
                fields[c.path[-1][1]] = c.got
        for name in list(fields):
            fields[name] = _apply(fields[name], mine, (*here, ("attr", name)), got_types)
        name = typed[0].got_type if typed else value.type_name
        plain = tuple(fields.values()) if value.plain is not None else None
        return replace(value, type_name=name, fields=tuple(fields.items()), plain=plain)
    inner = _container(value)
    if type(inner) in (list, tuple):
        gone = {c.path[-1][1] for c in mine if len(c.path) == depth + 1 and isinstance(c, Missing)}
        items = [x for i, x in enumerate(inner) if i not in gone]
        for c in sorted((c for c in mine if len(c.path) == depth + 1 and isinstance(c, Extra)), key=lambda c: c.path[-1][1]):
            items.insert(c.path[-1][1], c.got)
        items = [_apply(x, mine, (*here, ("index", j)), got_types) for j, x in enumerate(items)]
        kind = type(inner)
        if typed:
            kind = {"list": list, "tuple": tuple}.get(typed[0].got_type, kind)
        result = items if kind is list else tuple(items)
        if type(value) is Opaque and not typed:
            return replace(value, plain=result, fields=None if value.fields is None else tuple(zip(dict(value.fields), result)))
        return result
    if type(inner) is dict:
        result = dict(inner)
        for c in mine:
            if len(c.path) == depth + 1 and isinstance(c, Missing):
                result.pop(c.path[-1][1], None)
            elif len(c.path) == depth + 1 and isinstance(c, Extra):
                result[c.path[-1][1]] = c.got
        result = {k: _apply(v, mine, (*here, ("key", k)), got_types) for k, v in result.items()}
        if type(value) is Opaque:
            return replace(value, plain=result)
        return result
    if type(inner) in (set, frozenset):
        result = set(inner)
        for c in mine:
            if isinstance(c, Missing):
                result.discard(c.path[-1][1])
            elif isinstance(c, Extra):
                result.add(c.path[-1][1])
        return type(inner)(result) if type(value) is not Opaque else replace(value, plain=type(inner)(result))
    return value
