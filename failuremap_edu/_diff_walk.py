"""The diff's walk: one comparer per type, recursing into containers and stating each difference as a claim.

Equality is ``==`` as the harness applies it, on the portable view (`_claims.equal`):
a type difference is stated only where ``==`` cares about it (a tuple against a list,
never a bool against an int); a class whose ``==`` is its own is said to be so, never
explained by its fields. Pairs of containers already being compared are not entered
again (cycles), and sequences are aligned after their common prefix and suffix.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

from ._claims import (
    Count, Differs, Extra, Length, Missing, OwnEquality, Reordered, TypeDiffers, equal, path_name, type_matters, type_name,
)
from ._diff_model import Budget, Difference
from ._diff_text import (
    _CASE_ONLY, _common_prefix, _invisible_reasons, _line_detail, _notable, _several_lines, _short_and_plain, _text_detail,
)
from ._diff_items import _differing_leaves, _rearranged, aligned_items
from ._shift import shift_of
from ._values import Opaque, safe_repr

__all__ = ["Walker", "type_word"]

_TYPE_WORDS = {
    list: "a list", tuple: "a tuple", dict: "a dict", set: "a set", frozenset: "a frozenset", str: "a string",
    bytes: "bytes", int: "an int", float: "a float", complex: "a complex number", bool: "a bool", type(None): "None",
}


def _article(word: str) -> str:
    """``an AttrsTwo``, ``a Point``, and for a name spelled letter by letter (``NT1``, ``SVD``) by its first letter's sound."""
    name = word
    spelled = len(name) > 1 and name[:2].isupper() or name[1:2].isdigit()
    vowel = name[:1] in "FHLMNRSX" if spelled else name[:1].lower() in "aeiou"
    return f"an {word}" if name[:1] and vowel else f"a {word}"


def type_word(value: Any) -> str:
    """``a list``, ``an int``, ``an AttrsTwo object``: a value's type in words, with the right article."""
    if isinstance(value, Opaque):
        return f"{_article(value.type_name)} object"
    return _TYPE_WORDS.get(type(value), _article(type(value).__name__))


class _P(str):
    """A path as text (``[1]['em'].x``, got's indices) that also holds its steps, for the claims (an aligned step
    holds both sides' indices; `_claims.path_name` names a claim from them)."""

    steps: tuple = ()

    def step(self, kind: str, where: Any, text: str) -> "_P":
        new = _P(f"{self}{text}")
        new.steps = (*self.steps, (kind, where))
        return new

    def aligned(self, j: int, i: int) -> "_P":
        """Item j of got, aligned with item i of expected."""
        new = _P(f"{self}[{j}]")
        new.steps = (*self.steps, ("index", j) if i == j else ("index", j, i))
        return new



ROOT = _P("")


class Walker:
    """One comparer per type; recurses, labels the path to each differing child, and keeps the claims."""

    def __init__(self, budget: Budget) -> None:
        self.budget = budget
        self.kept: list[Difference] = []
        self.omitted = 0
        self.omitted_items = 0
        self.active: set[tuple[int, int]] = set()
        self.notes: list = []
        """Claims about the whole comparison that are no difference of their own (a class's own ==)."""

    def add(self, path: _P, kind: str, claim: Any, e: str = "", a: str = "", **details: Any) -> None:
        """Keep one difference stating `claim` (its words are the renderers', `render._claims`), or count it."""
        if len(self.kept) < self.budget.max_differences:
            where = path_name(claim, self.r) if hasattr(claim, "path") else str(path)
            self.kept.append(Difference(where, kind, e, a, claim=claim, budget=self.budget, **details))
        else:
            self.omitted += 1

    def r(self, value: Any) -> str:
        return safe_repr(value, self.budget.max_repr, keep_end=True)

    def compare(self, exp: Any, act: Any, path: _P, depth: int, top: bool = False) -> None:
        if depth > self.budget.max_depth:
            if not equal(exp, act):
                self.add(path, "depth", Differs(path.steps, exp, act))
            return
        if not top and exp is act:
            return  # == inside a container takes the same object as equal, a NaN too
        if (exp is not act or not top) and equal(exp, act):
            return
        pair = (id(exp), id(act))
        if pair in self.active:
            return  # a cycle: this pair is being compared further up
        self.active.add(pair)
        try:
            self._dispatch(exp, act, path, depth)
        finally:
            self.active.discard(pair)

    def _dispatch(self, exp: Any, act: Any, path: _P, depth: int) -> None:
        te, ta = type(exp), type(act)
        if te is not ta:
            self._different_types(exp, act, path, depth)
        elif te is str:
            self._text(exp, act, path)
        elif te is bytes:
            self._bytes(exp, act, path)
        elif te is float or te is complex:
            self._number(exp, act, path)
        elif te in (list, tuple):
            self._sequence(exp, act, path, depth)
        elif te is dict:
            self._mapping(exp, act, path, depth)
        elif te in (set, frozenset):
            self._set(exp, act, path)
        elif te is Opaque:
            self._opaque(exp, act, path, depth)
        else:
            self.add(path, "value", Differs(path.steps, exp, act), self.r(exp), self.r(act))

    def _own_eq(self, exp: Any, act: Any, path: _P) -> bool:
        owner = next((v for v in (exp, act) if type(v) is Opaque and v.own_eq), None)
        if owner is None:
            return False
        self.notes.append(OwnEquality(path.steps, owner.type_name))
        self.add(path, "own_eq", OwnEquality(path.steps, owner.type_name), self.r(exp), self.r(act))
        return True

    def _opaque(self, exp: Opaque, act: Opaque, path: _P, depth: int) -> None:
        """Two stand-ins: by their fields (dataclass, attrs, named tuple), else by their plain equivalents."""
        if self._own_eq(exp, act, path):
            return
        named_tuples = exp.plain is not None and act.plain is not None
        if exp.fields is not None and act.fields is not None:
            e_fields, a_fields = dict(exp.fields), dict(act.fields)
            if exp.type_name != act.type_name and not named_tuples:
                self.add(path, "type", TypeDiffers(path.steps, exp.type_name, act.type_name), self.r(exp), self.r(act))
            if named_tuples and list(e_fields) != list(a_fields):
                self.compare(exp.plain, act.plain, path, depth + 1)  # == compares them as tuples
                return
            for name, e in e_fields.items():
                here = path.step("attr", name, f".{name}")
                if name not in a_fields:
                    self.add(here, "missing", Missing(here.steps, e), self.r(e), "")
                    continue
                self.compare(e, a_fields[name], here, depth + 1)
            for name, a in a_fields.items():
                if name not in e_fields:
                    here = path.step("attr", name, f".{name}")
                    self.add(here, "extra", Extra(here.steps, a), "", self.r(a))
            return
        if exp.plain is not None and act.plain is not None:
            e_plain, a_plain = exp.plain, act.plain
            if type(e_plain) is dict and type(a_plain) is dict and e_plain == a_plain and list(e_plain) != list(a_plain):
                self.add(path, "order", Differs(path.steps, exp, act), self.r(exp), self.r(act))
                return
            self.compare(e_plain, a_plain, path, depth + 1)
            return
        if exp.type_name != act.type_name:
            self.add(path, "type", TypeDiffers(path.steps, exp.type_name, act.type_name), self.r(exp), self.r(act))
            return
        self.add(path, "value", Differs(path.steps, exp, act), self.r(exp), self.r(act))

    # -- types -----------------------------------------------------------------

    def _type_claim(self, exp: Any, act: Any, path: _P, items_equal: bool | None = None) -> Any:
        """`TypeDiffers` where ``==`` cares about the types of two sequences whose items are compared next
        (`items_equal` says whether they are equal); else the two values differ as wholes, and the claim carries them."""
        if items_equal is not None and type_matters(exp, act):
            return TypeDiffers(path.steps, type_name(exp), type_name(act), items_equal)
        return Differs(path.steps, exp, act)

    def _different_types(self, exp: Any, act: Any, path: _P, depth: int) -> None:
        e, a = self.r(exp), self.r(act)
        if act is None or exp is None:
            self.add(path, "none", Differs(path.steps, exp, act), e, a)
            return
        if type(exp) in (set, frozenset) and type(act) in (set, frozenset):
            self._set(exp, act, path)  # a frozenset equals a set with the same members: only the members can differ
            return
        if isinstance(act, Opaque) or isinstance(exp, Opaque):
            opaque, other = (act, exp) if isinstance(act, Opaque) else (exp, act)
            if self._own_eq(exp, act, path):
                return
            sets = (set, frozenset)
            plain = opaque.plain is not None and opaque.type_name != "collections.deque" and (
                type(opaque.plain) is type(other) or type(opaque.plain) in sets and type(other) in sets
            )
            if plain:  # == compares it as its plain equivalent: no type to name, only what differs inside
                self.compare(*((exp, act.plain) if opaque is act else (exp.plain, act)), path, depth + 1)
                return
            sequences = type(opaque.plain) in (list, tuple) and type(other) in (list, tuple)
            pair = (exp, act.plain) if opaque is act else (exp.plain, act)
            same_items = equal(list(pair[0]), list(pair[1])) if sequences else None
            # a named tuple against a list: never equal, but the items can still be compared
            self.add(path, "opaque", self._type_claim(exp, act, path, same_items), e, a)
            if sequences and not same_items:
                self._sequence(*pair, path, depth)
            return
        if type(exp) in (list, tuple) and type(act) in (list, tuple):
            same_items = equal(list(exp), list(act))
            self.add(path, "type", self._type_claim(exp, act, path, same_items), e, a)
            if not same_items:
                self._sequence(exp, act, path, depth)
            return
        numbers = (bool, int, float, complex)
        if isinstance(exp, numbers) and isinstance(act, numbers):  # == ignores these types: only the values differ
            self.add(path, "value", Differs(path.steps, exp, act), e, a)
            return
        self.add(path, "type", Differs(path.steps, exp, act), e, a)

    # -- scalars -----------------------------------------------------------------

    def _number(self, exp: Any, act: Any, path: _P) -> None:
        kind = "value"
        if isinstance(exp, float):
            if math.isnan(exp) or math.isnan(act):
                kind = "nan"
            elif not (math.isinf(exp) or math.isinf(act)) and (
                exp != 0 and math.isclose(exp, act, rel_tol=1e-3) or exp == 0 and act != 0 and abs(act) < 1e-9
            ):
                kind = "number"  # a near miss: == needs exact equality
        self.add(path, kind, Differs(path.steps, exp, act), self.r(exp), self.r(act))

    def _bytes(self, exp: bytes, act: bytes, path: _P) -> None:
        self.add(path, "value", Differs(path.steps, exp, act), self.r(exp), self.r(act))

    # -- text --------------------------------------------------------------------

    def _text(self, exp: str, act: str, path: _P) -> None:
        budget = self.budget
        claim = Differs(path.steps, exp, act)
        reasons = _invisible_reasons(exp, act, _common_prefix(exp, act), budget)
        if path and not reasons and _short_and_plain(exp) and _short_and_plain(act):
            # A short string inside a container is one value to a learner: "expected
            # 'b1', got 'a1'", not a character index inside an item index.
            self.add(path, "value", claim, self.r(exp), self.r(act))
            return
        lines = _line_detail(exp, act, budget) if not reasons and _several_lines(exp, act, budget) else None
        if lines is not None:
            self.add(path, "text", claim, self.r(exp), self.r(act), lines=lines)
            return
        detail = _text_detail(exp, act, budget)
        changed = "".join(e.expected + e.actual for e in detail.edits if e.op != "equal")
        unseen = any(reason != _CASE_ONLY for reason in reasons) or (changed and all(map(_notable, changed)))
        self.add(path, "invisible" if unseen else "text", claim, self.r(exp), self.r(act), text=detail)

    # -- containers --------------------------------------------------------------

    def _sequence(self, exp: list | tuple, act: list | tuple, path: _P, depth: int) -> None:
        budget = self.budget
        # Only lists: a tuple is a record whose positions mean different things, and
        # "the same items in another order" would send the learner swapping them. A shift (a rotation: every item
        # one step ahead) is not said as another order: its items differ position by position, and the pattern says why.
        # Nor a row of few distinct values (0s and 1s): any two with the same counts are "another order", which says
        # nothing of where the 1s went; the positions that differ do.
        if (type(exp) is list and type(act) is list and 1 < len(exp) == len(act) <= budget.align_items
                and _rearranged(exp, act, budget.max_items) and shift_of(exp, act, equal) is None and mostly_distinct(exp)):
            self.add(path, "order", Reordered(path.steps, exp, act), self.r(exp), self.r(act))
            return
        if len(exp) != len(act):
            self.add(path, "length", Length(path.steps, len(exp), len(act)), self.r(exp), self.r(act))
            if self._align(exp, act, path, depth):
                return
        common = min(len(exp), len(act))
        compared = min(common, budget.max_items)
        for i in range(compared):
            e, a = exp[i], act[i]
            if e is a or equal(e, a):
                continue
            if len(self.kept) >= budget.max_differences:
                counted = _differing_leaves(e, a, [budget.max_items])  # a row of a grid is its differing cells, not one
                if counted is None:
                    self.omitted_items += 1
                else:
                    self.omitted += counted
                continue
            self.compare(e, a, path.step("index", i, f"[{i}]"), depth + 1)
        if common > compared:
            self.add(path, "budget", Count("items", common - compared))
            return
        for i in range(len(act), len(exp)):
            if len(self.kept) >= budget.max_differences:
                self.omitted += len(exp) - i
                break
            here = path.step("index", i, f"[{i}]")
            self.add(here, "missing", Missing(here.steps, exp[i]), self.r(exp[i]), "")
        for i in range(len(exp), len(act)):
            if len(self.kept) >= budget.max_differences:
                self.omitted += len(act) - i
                break
            here = path.step("index", i, f"[{i}]")
            self.add(here, "extra", Extra(here.steps, act[i]), "", self.r(act[i]))

    def _align(self, exp, act, path: _P, depth: int) -> bool:
        """For sequences of different lengths, name the missing and extra items as `aligned_items` lines them up
        (the pictures draw the same alignment). Returns False when the two do not line up well enough for that to help."""
        pairs = aligned_items(exp, act, self.budget.align_items)
        if pairs is None:
            return False
        for i, j in pairs:
            if i is not None and j is not None:
                self.compare(exp[i], act[j], path.aligned(j, i), depth + 1)
            elif j is None:  # a missing item is at its place in expected, an extra one at its place in got
                here = path.step("index", i, f"[{i}]")
                self.add(here, "missing", Missing(here.steps, exp[i]), self.r(exp[i]), "")
            else:
                here = path.step("index", j, f"[{j}]")
                self.add(here, "extra", Extra(here.steps, act[j]), "", self.r(act[j]))
        return True

    def _mapping(self, exp: dict, act: dict, path: _P, depth: int) -> None:
        for key in exp:
            if key not in act:
                here = path.step("key", key, f"[{self.r(key)}]")
                self.add(here, "missing", Missing(here.steps, exp[key]), self.r(exp[key]), "")
        for key in act:
            if key not in exp:
                here = path.step("key", key, f"[{self.r(key)}]")
                self.add(here, "extra", Extra(here.steps, act[key]), "", self.r(act[key]))
        checked = 0
        for key in exp:
            if key in act:
                checked += 1
                if checked > self.budget.max_items:
                    self.add(path, "budget", Count("items", len(exp) - self.budget.max_items))
                    break
                self.compare(exp[key], act[key], path.step("key", key, f"[{self.r(key)}]"), depth + 1)

    def _set(self, exp: set | frozenset, act: set | frozenset, path: _P) -> None:
        for item in _sorted_for_display(exp - act):
            self.add(path, "missing", Missing((*path.steps, ("member", item)), item), self.r(item), "")
        for item in _sorted_for_display(act - exp):
            self.add(path, "extra", Extra((*path.steps, ("member", item)), item), "", self.r(item))


def _sorted_for_display(items) -> list:
    try:
        return sorted(items)
    except TypeError:
        return sorted(items, key=repr)


def mostly_distinct(items: list) -> bool:
    """Whether more than half of `items` are distinct values (by ==, the first 200 looked at): only then is "the same
    items in another order" worth saying."""
    head = items[:200]
    distinct: list = []
    for x in head:
        if not any(x is y or equal(x, y) for y in distinct):
            distinct.append(x)
            if 2 * len(distinct) > len(head):
                return True
    return 2 * len(distinct) > len(head)

