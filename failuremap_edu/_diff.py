"""Diffs that explain *why* expected and actual differ: pure data, no HTML, no colour.

`diff(expected, actual)` turns both values into the portable structural view the
worker sends (`_values.portable`: a dataclass, a named tuple or a Mapping becomes an
`Opaque` with its fields or its plain equivalent), walks them with one comparer per
type (`_diff_walk`) and records each difference with the path to it (``[1]``,
``['em']``, ``[0][2]``) and the claim it states (`_claims`): a type difference only
where ``==`` cares about it (the tuple-versus-list moment), missing and extra items or
keys, the first differing character of a string with character-level edits around it
(`_diff_text`), invisible differences named by code point, numeric near misses, NaN,
a class whose own ``==`` decides, and a None that suggests a missing ``return``.
A pattern that holds exactly over every difference (`_patterns`) is a claim too.

The diff only explains; the verdict stays the harness's ``actual == expected``.
Huge values are handled within a frozen `Budget`: work and output are bounded,
windows are centred on the first difference, and what was left out is counted.
"""

from __future__ import annotations

from typing import Any

from ._claims import Count, Differs
from ._diff_model import DEFAULT_BUDGET, Budget, Diff, Difference, LineDetail, LineEdit, TextDetail, TextEdit
from ._diff_text import describe_char, describe_lines, describe_text
from ._diff_walk import ROOT, Walker, type_word
from ._values import Opaque, portable

__all__ = [
    "Budget", "Diff", "Difference", "LineDetail", "LineEdit", "TextDetail", "TextEdit",
    "describe_char", "describe_lines", "describe_text", "diff", "type_word",
]

MISSING_RETURN = "solve returned None: is a return statement missing, or does a branch fall off the end?"


def _raw_equal(expected: Any, actual: Any) -> bool:
    try:
        return bool(actual == expected)
    except Exception:  # noqa: BLE001 - an == that raises: explained, not trusted
        return False


_PLAIN = (type(None), bool, int, float, complex, str, bytes)
_PLAIN_TYPES = set(_PLAIN)


def _viewed(value: Any) -> tuple[Any, bool]:
    """The portable view of a value (`portable`), without copying one that is plain data already, and whether the
    value was a view already (it holds an `Opaque`: it came from a worker, and ``==`` on it is not the verdict)."""
    stack, seen = [value], set()
    view = False
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is Opaque:
            view = True
            continue
        if kind in _PLAIN:
            continue
        if kind not in (list, tuple, dict, set, frozenset) or id(item) in seen or len(seen) > 2_000_000:
            return portable(value), False  # another type, a shared or a cyclic part: the portable view decides
        seen.add(id(item))
        if kind is not dict and set(map(type, item)) <= _PLAIN_TYPES:
            continue  # a row of scalars, told in C
        stack.extend((*item.keys(), *item.values()) if kind is dict else item)
    return value, view


def _first_own_eq(walker: Walker, e: Any, a: Any, path: Any, budget: list[int]) -> bool:
    """Find the first pair of instances of a class with its own ``==`` in two equal views, and say so there."""
    budget[0] -= 1
    if budget[0] < 0:
        return False
    if walker._own_eq(e, a, path):
        return True
    if type(e) is Opaque and type(a) is Opaque and e.fields is not None and a.fields is not None:
        return any(_first_own_eq(walker, x, y, path.step("attr", n, f".{n}"), budget) for (n, x), (_, y) in zip(e.fields, a.fields))
    if type(e) in (list, tuple) and type(a) is type(e):
        return any(_first_own_eq(walker, x, y, path.step("index", i, f"[{i}]"), budget) for i, (x, y) in enumerate(zip(e, a)))
    if type(e) is dict and type(a) is dict:
        return any(_first_own_eq(walker, e[k], a[k], path.step("key", k, f"[{walker.r(k)}]"), budget) for k in e if k in a)
    return False


def diff(expected: Any, actual: Any, budget: Budget = DEFAULT_BUDGET, *, missing_return: bool = False,
         prefer: tuple[int, str] | None = None) -> Diff:
    """Explain how `actual` differs from `expected`. Never raises.

    Values that are equal by ``==`` have no difference. `missing_return`: the caller has
    read solve's source and knows it can fall off its end. Only then does a None get the
    hint that a ``return`` may be missing; a solve that returns None on purpose must not
    be told it forgot one. `prefer`: a shift that holds on other checks of the run (`_patterns.run_shift`),
    said here too wherever it holds.
    """
    from ._patterns import find_pattern, sentence

    (e_view, e_was_view), (a_view, a_was_view) = _viewed(expected), _viewed(actual)
    raw = not (e_was_view or a_was_view)  # the caller's own values: their == is the verdict
    if raw and _raw_equal(expected, actual):
        return Diff((), budget=budget)
    expected, actual = e_view, a_view
    walker = Walker(budget)
    try:
        walker.compare(expected, actual, ROOT, 0, top=True)
    except RecursionError:
        walker.add(ROOT, "depth", Differs((), expected, actual))
    if not walker.kept and _first_own_eq(walker, expected, actual, ROOT, [10_000]):
        pass  # the views are equal, but a class's own == may not be: said where it is
    elif raw and not walker.kept:
        # == found them different, and their views are equal: say that much, never silence
        walker.add(ROOT, "eq", Differs((), expected, actual), walker.r(expected), walker.r(actual))
    hint = None
    if actual is None and expected is not None and missing_return:
        hint = MISSING_RETURN
    elif isinstance(actual, Opaque) and actual.type_name == "generator":
        hint = "solve returned a generator: wrap it in list(...) or tuple(...), or use a list comprehension."
    claims = [d.claim for d in walker.kept if d.claim is not None]
    if walker.omitted:
        claims.append(Count("differences", walker.omitted))
    if walker.omitted_items:
        claims.append(Count("items", walker.omitted_items))
    found = find_pattern(expected, actual, claims=tuple(claims), prefer=prefer) if walker.kept else None
    if found is not None:
        claims.append(found)
    return Diff(tuple(walker.kept), walker.omitted, walker.omitted_items, hint, budget, tuple(claims),
                sentence(found) if found is not None else None)


def type_only(expected: Any, actual: Any, limit: int = 100_000) -> Difference | None:
    """For two values that ``==`` finds equal, the first place where their types differ (``[0][0]``: an int
    against a bool), or None. Not a difference the diff states (``==`` ignores it): a note for a passing check."""
    stack: list[tuple[Any, Any, str]] = [(expected, actual, "")]
    seen = 0
    while stack and seen <= limit:
        e, a, path = stack.pop()
        seen += 1
        if type(e) is not type(a):
            if type(e) in (set, frozenset) and type(a) in (set, frozenset):
                continue
            return Difference(path, "type", repr(e)[:160], repr(a)[:160], note=f"expected {type_word(e)}, got {type_word(a)}")
        if type(e) in (list, tuple) and len(e) == len(a):
            stack.extend((x, y, f"{path}[{i}]") for i, (x, y) in reversed(list(enumerate(zip(e, a)))))
        elif type(e) is dict:
            stored = {k: k for k in a}
            for key in reversed(list(e)):
                if key in stored:
                    stack.append((e[key], a[key], f"{path}[{key!r}]"))
                    stack.append((key, stored[key], f"{path} key {key!r}"))
    return None
