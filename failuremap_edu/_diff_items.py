"""The items of two containers, for the walk: which are rearranged, how many differences lie past the budget,
and the keys that sequences are aligned on. Decided on values (`_claims.equal`), never on reprs alone."""

from __future__ import annotations

import difflib
from typing import Any

from ._claims import equal
from ._values import Opaque, safe_repr

_CONTAINERS = (list, tuple, dict, set, frozenset)


def _rearranged(exp: list, act: list, limit: int) -> bool:
    """The same items in another order: decided on the positions that differ (the others cancel out), at least two."""
    differing = [i for i, (e, a) in enumerate(zip(exp, act)) if not (e is a or equal(e, a))]
    return len(differing) > 1 and _same_items([exp[i] for i in differing], [act[i] for i in differing], limit)


def _differing_leaves(exp: Any, act: Any, budget: list[int], depth: int = 0) -> int | None:
    """How many differences the diff would list for two values of one shape: lists and tuples of one length and
    dicts of the same keys, item by item, down to values that are not such containers. None when the shapes differ
    anywhere (missing items are aligned, and counted otherwise) or the budget of items runs out."""
    budget[0] -= 1
    if budget[0] < 0 or depth > 50:
        return None
    if equal(exp, act):
        return 0
    kind = type(exp)
    if kind is not type(act):
        shaped = (*_CONTAINERS, Opaque)
        return None if kind in shaped or type(act) in shaped else 1
    if kind is Opaque:
        if exp.own_eq or act.own_eq:
            return 1
        if exp.fields is not None and act.fields is not None:
            same_kind = exp.type_name == act.type_name or (exp.plain is not None and act.plain is not None)
            if not same_kind or [n for n, _ in exp.fields] != [n for n, _ in act.fields]:
                return None
            exp, act, kind = tuple(v for _, v in exp.fields), tuple(v for _, v in act.fields), tuple
        elif exp.plain is not None and act.plain is not None and type(exp.plain) in (list, tuple):
            exp, act = exp.plain, act.plain
            kind = type(exp)
        elif exp.plain is not None or act.plain is not None:
            return None
        else:
            return 1
    if kind in (list, tuple) or kind is dict:
        if len(exp) != len(act) or (kind is dict and exp.keys() != act.keys()):
            return None
        pairs = zip(exp, act) if kind is not dict else ((exp[k], act[k]) for k in exp)
        total = 0
        for e, a in pairs:
            if _no_difference(e, a, 1_000):
                continue
            counted = _differing_leaves(e, a, budget, depth + 1)
            if counted is None:
                return None
            total += counted
        return total
    if kind in (set, frozenset):
        return None
    return 0 if _same(exp, act, False) else 1


def _no_difference(exp: Any, act: Any, limit: int) -> bool:
    """Equal, and of the same types all the way down: an item the diff has nothing to say about."""
    return exp is act or equal(exp, act)


def _same(exp: Any, act: Any, top: bool) -> bool:
    """``==`` as the harness applies it: containers treat an identical object as equal."""
    try:
        if not top and exp is act:
            return True
        return bool(exp == act)
    except Exception:  # noqa: BLE001
        return False


def _same_types_inside(exp: Any, act: Any, limit: int) -> bool:
    """Whether two equal values also have the same types all the way down (bounded)."""
    stack = [(exp, act)]
    seen = 0
    while stack:
        e, a = stack.pop()
        if type(e) is not type(a):
            return False
        seen += 1
        if seen > limit:
            return True
        if type(e) in (list, tuple):
            if len(e) != len(a):
                return False
            stack.extend(zip(e, a))
        elif type(e) is dict:
            if len(e) != len(a):
                return False
            stored = {k: k for k in a}  # equal keys may differ in type (1, 1.0, True)
            for key in e:
                if key not in stored or type(stored[key]) is not type(key):
                    return False
                stack.append((e[key], a[key]))
        elif type(e) in (set, frozenset):
            stored = {k: k for k in a}
            if any(k not in stored or type(stored[k]) is not type(k) for k in e):
                return False
    return True


def _same_items(exp, act, limit: int) -> bool:
    """The same items, counted with their types, in another order: decided on the values.

    Clipped reprs only group the candidates; each item must then be equal, with the
    same types inside, to an item of the other side not matched yet.
    """
    try:
        groups: dict[str, list] = {}
        for item in act:
            groups.setdefault(_align_key(item), []).append(item)
        for item in exp:
            candidates = groups.get(_align_key(item))
            if not candidates:
                return False
            for n, other in enumerate(candidates):
                if _same(item, other, False) and _same_types_inside(item, other, limit):
                    del candidates[n]
                    break
            else:
                return False
        return True
    except Exception:  # noqa: BLE001 - a repr or == that fails: say nothing about order
        return False


def _align_key(value: Any) -> str:
    return f"{type(value).__name__}:{safe_repr(value, 200, keep_end=True)}"


_ALIGN_HASHED = 25
"""Past `Budget.align_items`, the differing middle of two sequences is still aligned on hashed items up to this
many times that budget: a deletion in 1,000 items is one missing item, not 500 differences."""


def aligned_items(exp: Any, act: Any, align_items: int) -> list[tuple[int | None, int | None]] | None:
    """How the diff lines up two sequences of different lengths, item by item: ``(i, j)`` pairs expected[i] with
    got[j], ``(i, None)`` is an item only expected has and ``(None, j)`` one only got has, in order (the common
    prefix and suffix first, then the middle aligned on its items' keys). None when they do not line up well enough
    (then they are compared position by position)."""
    n = min(len(exp), len(act))
    prefix = 0
    while prefix < n and (exp[prefix] is act[prefix] or equal(exp[prefix], act[prefix])):
        prefix += 1
    suffix = 0
    while suffix < n - prefix and (exp[-1 - suffix] is act[-1 - suffix] or equal(exp[-1 - suffix], act[-1 - suffix])):
        suffix += 1
    e_mid, a_mid = exp[prefix : len(exp) - suffix], act[prefix : len(act) - suffix]
    if len(e_mid) + len(a_mid) > 2 * align_items * _ALIGN_HASHED:
        return None
    matcher = difflib.SequenceMatcher(None, [_align_key(x) for x in e_mid], [_align_key(x) for x in a_mid], autojunk=False)
    matched = prefix + suffix + sum(size for _, _, size in matcher.get_matching_blocks())
    if 2 * matched < 0.5 * (len(exp) + len(act)):
        return None
    pairs: list[tuple[int | None, int | None]] = [(i, i) for i in range(prefix)]
    for op, e1, e2, a1, a2 in matcher.get_opcodes():
        e1, e2, a1, a2 = e1 + prefix, e2 + prefix, a1 + prefix, a2 + prefix
        if op == "equal" or (op == "replace" and e2 - e1 == a2 - a1):
            pairs += zip(range(e1, e2), range(a1, a2))  # equal keys (clipped reprs): the values decide
            continue
        pairs += [(i, None) for i in range(e1, e2)] + [(None, j) for j in range(a1, a2)]
    return pairs + [(len(exp) - suffix + k, len(act) - suffix + k) for k in range(suffix)]
