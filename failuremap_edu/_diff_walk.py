"""The diff's walk: one comparer per type, recursing into containers and stating each difference as a claim.

Equality is ``==`` as the harness applies it, on the portable view (`_claims.equal`):
a type difference is stated only where ``==`` cares about it (a tuple against a list,
never a bool against an int); a class whose ``==`` is its own is said to be so, never
explained by its fields. Pairs of containers already being compared are not entered
again (cycles), and sequences are aligned after their common prefix and suffix.
"""

from __future__ import annotations

import difflib
import math
from dataclasses import replace
from typing import Any

from ._claims import Count, Differs, Extra, Length, Missing, OwnEquality, Reordered, TypeDiffers, equal, type_matters, type_name
from ._diff_model import Budget, Difference
from ._diff_text import (
    _CASE_ONLY, _byte, _common_prefix, _invisible_reasons, _items, _line_detail, _notable, _several_lines,
    _short_and_plain, _text_detail, describe_lines, describe_text,
)
from ._diff_items import _align_key, _differing_leaves, _rearranged
from ._values import Opaque, safe_repr

__all__ = ["Walker", "type_word"]

_ALIGN_HASHED = 25
"""Past `Budget.align_items`, the differing middle of two sequences is still aligned on hashed items up to this
many times that budget: a deletion in 1,000 items is one missing item, not 500 differences."""

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
    """A path as text (``[1]['em'].x``) that also holds its steps, for the claims."""

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


def _scalar(value: Any) -> bool:
    return type(value) in (bool, int, float, complex) or (type(value) in (str, bytes) and len(value) <= 40)


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

    def add(self, path: _P, kind: str, message: str, e: str = "", a: str = "", claim: Any = None, **details: Any) -> None:
        if len(self.kept) < self.budget.max_differences:
            self.kept.append(Difference(str(path), kind, message, e, a, claim=claim, **details))
        else:
            self.omitted += 1

    def r(self, value: Any) -> str:
        return safe_repr(value, self.budget.max_repr, keep_end=True)

    def compare(self, exp: Any, act: Any, path: _P, depth: int, top: bool = False) -> None:
        if depth > self.budget.max_depth:
            if not equal(exp, act):
                self.add(path, "depth", f"nested deeper than {self.budget.max_depth} levels; not compared further", claim=Differs(path.steps, exp, act))
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
            self.add(path, "value", f"expected {self.r(exp)}, got {self.r(act)}", self.r(exp), self.r(act), Differs(path.steps, exp, act))

    def _own_eq(self, exp: Any, act: Any, path: _P) -> bool:
        owner = next((v for v in (exp, act) if type(v) is Opaque and v.own_eq), None)
        if owner is None:
            return False
        self.notes.append(OwnEquality(path.steps, owner.type_name))
        self.add(
            path, "own_eq",
            f"{owner.type_name} defines its own ==, and its fields may not be what it compares: "
            f"expected {self.r(exp)}, got {self.r(act)}",
            self.r(exp), self.r(act), OwnEquality(path.steps, owner.type_name),
        )
        return True

    def _opaque(self, exp: Opaque, act: Opaque, path: _P, depth: int) -> None:
        """Two stand-ins: by their fields (dataclass, attrs, named tuple), else by their plain equivalents."""
        if self._own_eq(exp, act, path):
            return
        named_tuples = exp.plain is not None and act.plain is not None
        if exp.fields is not None and act.fields is not None:
            e_fields, a_fields = dict(exp.fields), dict(act.fields)
            if exp.type_name != act.type_name and not named_tuples:
                self.add(path, "type", f"expected {type_word(exp)}, got {type_word(act)}", self.r(exp), self.r(act),
                         TypeDiffers(path.steps, exp.type_name, act.type_name))
            if named_tuples and list(e_fields) != list(a_fields):
                self.compare(exp.plain, act.plain, path, depth + 1)  # == compares them as tuples
                return
            for name, e in e_fields.items():
                here = path.step("attr", name, f".{name}")
                if name not in a_fields:
                    self.add(here, "missing", f"missing field {name} (expected value {self.r(e)})", self.r(e), "", Missing(here.steps, e))
                    continue
                self.compare(e, a_fields[name], here, depth + 1)
            for name, a in a_fields.items():
                if name not in e_fields:
                    here = path.step("attr", name, f".{name}")
                    self.add(here, "extra", f"extra field {name} (got value {self.r(a)})", "", self.r(a), Extra(here.steps, a))
            return
        if exp.plain is not None and act.plain is not None:
            e_plain, a_plain = exp.plain, act.plain
            if type(e_plain) is dict and type(a_plain) is dict and e_plain == a_plain and list(e_plain) != list(a_plain):
                ordered = exp.type_name == act.type_name == "collections.OrderedDict"
                why = ": an OrderedDict compares the order of its keys too" if ordered else ""
                self.add(
                    path, "order",
                    f"the same keys and values in a different order{why}; expected keys {self.r(list(e_plain))}, got {self.r(list(a_plain))}",
                    self.r(exp), self.r(act), Differs(path.steps, exp, act),
                )
                return
            self.compare(e_plain, a_plain, path, depth + 1)
            return
        if exp.type_name != act.type_name:
            self.add(path, "type", f"expected {type_word(exp)}, got {type_word(act)}", self.r(exp), self.r(act),
                     TypeDiffers(path.steps, exp.type_name, act.type_name))
            return
        self.add(path, "value", f"expected {exp.repr}, got {act.repr}", self.r(exp), self.r(act), Differs(path.steps, exp, act))

    # -- types -----------------------------------------------------------------

    def _type_claim(self, exp: Any, act: Any, path: _P, inside: bool = False) -> Any:
        """`TypeDiffers` where ``==`` cares about the types and the items are compared next (`inside`); else the
        two values differ as wholes, and the claim carries them."""
        if inside and type_matters(exp, act):
            return TypeDiffers(path.steps, type_name(exp), type_name(act))
        return Differs(path.steps, exp, act)

    def _different_types(self, exp: Any, act: Any, path: _P, depth: int) -> None:
        e, a = self.r(exp), self.r(act)
        if act is None or exp is None:
            other = exp if act is None else act
            word = type_word(other) + (f" {self.r(other)}" if _scalar(other) else "")
            message = f"expected {word}, got None" if act is None else f"expected None, got {word}"
            self.add(path, "none", message, e, a, Differs(path.steps, exp, act))
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
            message = f"expected {type_word(exp)}, got {type_word(act)}"
            sequences = type(opaque.plain) in (list, tuple) and type(other) in (list, tuple)
            if sequences:  # a named tuple against a list: never equal, but the items can still be compared
                message += " (and a tuple never equals a list, even with the same items)"
            self.add(path, "opaque", message, e, a, self._type_claim(exp, act, path, inside=sequences))
            if sequences:
                pair = (exp, act.plain) if opaque is act else (exp.plain, act)
                if not equal(list(pair[0]), list(pair[1])):
                    self._sequence(*pair, path, depth)
            return
        if type(exp) in (list, tuple) and type(act) in (list, tuple):
            same_items = equal(list(exp), list(act))
            note = (
                ": the items are the same, but a tuple never equals a list, so == fails"
                if same_items
                else " (and a tuple never equals a list, even with the same items)"
            )
            self.add(path, "type", f"expected {type_word(exp)}, got {type_word(act)}{note}", e, a, self._type_claim(exp, act, path, inside=True))
            if not same_items:
                self._sequence(exp, act, path, depth)
            return
        numbers = (bool, int, float, complex)
        if isinstance(exp, numbers) and isinstance(act, numbers):  # == ignores these types: only the values differ
            self.add(path, "value", f"expected {type_word(exp)} {e}, got {type_word(act)} {a}", e, a, Differs(path.steps, exp, act))
            return
        if isinstance(exp, str) and isinstance(act, (int, float)) or isinstance(act, str) and isinstance(exp, (int, float)):
            looks = " that prints the same" if str(exp) == str(act) else ""
            self.add(path, "type", f"expected {type_word(exp)}, got {type_word(act)}{looks}: {e} vs {a}", e, a, self._type_claim(exp, act, path))
            return
        values = f": expected {e}, got {a}" if _scalar(exp) and _scalar(act) else ""
        self.add(path, "type", f"expected {type_word(exp)}, got {type_word(act)}{values}", e, a, self._type_claim(exp, act, path))

    # -- scalars -----------------------------------------------------------------

    def _number(self, exp: Any, act: Any, path: _P) -> None:
        e, a = self.r(exp), self.r(act)
        claim = Differs(path.steps, exp, act)
        if isinstance(exp, float):
            if math.isnan(exp) or math.isnan(act):
                message = (
                    "both are NaN, and NaN never equals anything, not even NaN"
                    if math.isnan(exp) and math.isnan(act)
                    else f"expected {e}, got {a}: NaN never equals a number"
                )
                self.add(path, "nan", message, e, a, claim)
                return
            if math.isinf(exp) or math.isinf(act):
                self.add(path, "value", f"expected {e}, got {a}", e, a, claim)
                return
            gap = act - exp
            if exp != 0 and math.isclose(exp, act, rel_tol=1e-3):
                sign = " (note the sign of zero)" if act == 0 and math.copysign(1, act) < 0 else ""
                message = (
                    f"close but not equal: expected {e}, got {a} (off by {gap:.3g}, {abs(gap / exp):.2g} relative); "
                    f"== needs exact equality: rounding, float precision, or order of operations?{sign}"
                )
                self.add(path, "number", message, e, a, claim)
                return
            if exp == 0 and act != 0 and abs(act) < 1e-9:
                self.add(path, "number", f"expected {e}, got {a}: a tiny rounding error, but == needs exactly 0", e, a, claim)
                return
        self.add(path, "value", f"expected {e}, got {a}", e, a, claim)

    def _bytes(self, exp: bytes, act: bytes, path: _P) -> None:
        index = _common_prefix(exp, act)
        if index == min(len(exp), len(act)):  # one is the other plus more bytes at the end
            rest = act[index:] if len(act) > len(exp) else exp[index:]
            what = f"{len(rest):,} bytes {self.r(rest)}" if len(rest) > 1 else f"the byte {_byte(rest[0])}"
            if len(act) > len(exp):
                message = f"got has {'an extra byte ' + _byte(rest[0]) if len(rest) == 1 else what.replace('bytes', 'extra bytes', 1)} at index {index}"
            else:
                message = f"got is missing {what} at index {index}"
        else:
            message = f"at index {index}, expected the byte {_byte(exp[index])} but got {_byte(act[index])}"
            if len(exp) != len(act):
                message += f" (expected {len(exp):,} bytes, got {len(act):,})"
            elif len(exp) <= self.budget.text_analysis:
                count = sum(1 for x, y in zip(exp, act) if x != y)
                if count > 1:
                    message += f"; {count:,} bytes differ in all"
        self.add(path, "value", message, self.r(exp), self.r(act), Differs(path.steps, exp, act))

    # -- text --------------------------------------------------------------------

    def _text(self, exp: str, act: str, path: _P) -> None:
        budget = self.budget
        claim = Differs(path.steps, exp, act)
        reasons = _invisible_reasons(exp, act, _common_prefix(exp, act), budget)
        if path and not reasons and _short_and_plain(exp) and _short_and_plain(act):
            # A short string inside a container is one value to a learner: "expected
            # 'b1', got 'a1'", not a character index inside an item index.
            self.add(path, "value", f"expected {exp!r}, got {act!r}", self.r(exp), self.r(act), claim)
            return
        lines = _line_detail(exp, act, budget) if not reasons and _several_lines(exp, act, budget) else None
        if lines is not None:
            message = describe_lines(lines)
            if exp.endswith("\n") != act.endswith("\n"):
                message += f"; {'got' if act.endswith(chr(10)) else 'expected'} ends with a line break, the other does not"
            self.add(path, "text", message, self.r(exp), self.r(act), claim, lines=lines)
            return
        detail = _text_detail(exp, act, budget)
        message = describe_text(detail)
        changed = "".join(e.expected + e.actual for e in detail.edits if e.op != "equal")
        unseen = any(reason != _CASE_ONLY for reason in reasons) or (changed and all(map(_notable, changed)))
        kind = "invisible" if unseen else "text"
        if reasons:
            message += "; " + "; ".join(reasons)
        self.add(path, kind, message, self.r(exp), self.r(act), claim, text=detail)

    # -- containers --------------------------------------------------------------

    def _sequence(self, exp: list | tuple, act: list | tuple, path: _P, depth: int) -> None:
        budget = self.budget
        # Only lists: a tuple is a record whose positions mean different things, and
        # "the same items in another order" would send the learner swapping them.
        if type(exp) is list and type(act) is list and 1 < len(exp) == len(act) <= budget.align_items and _rearranged(exp, act, budget.max_items):
            self.add(path, "order", f"the same items in a different order: expected {self.r(exp)}, got {self.r(act)}",
                     self.r(exp), self.r(act), Reordered(path.steps, exp, act))
            return
        if len(exp) != len(act):
            self.add(path, "length", f"expected {_items(len(exp))}, got {len(act)}", self.r(exp), self.r(act), Length(path.steps, len(exp), len(act)))
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
            self.add(path, "value", f"{common - compared:,} more items not compared (budget of {budget.max_items:,})", claim=Count("items", common - compared))
            return
        for i in range(len(act), len(exp)):
            if len(self.kept) >= budget.max_differences:
                self.omitted += len(exp) - i
                break
            here = path.step("index", i, f"[{i}]")
            self.add(here, "missing", f"missing item: expected {self.r(exp[i])}", self.r(exp[i]), "", Missing(here.steps, exp[i]))
        for i in range(len(exp), len(act)):
            if len(self.kept) >= budget.max_differences:
                self.omitted += len(act) - i
                break
            here = path.step("index", i, f"[{i}]")
            self.add(here, "extra", f"extra item: got {self.r(act[i])}", "", self.r(act[i]), Extra(here.steps, act[i]))

    def _align(self, exp, act, path: _P, depth: int) -> bool:
        """For sequences of different lengths, name the missing and extra items: the common prefix and suffix first
        (linear), then the middle aligned on its items' keys, within the budget.

        Returns False when the two do not line up well enough for that to help.
        """
        n = min(len(exp), len(act))
        prefix = 0
        while prefix < n and (exp[prefix] is act[prefix] or equal(exp[prefix], act[prefix])):
            prefix += 1
        suffix = 0
        while suffix < n - prefix and (exp[-1 - suffix] is act[-1 - suffix] or equal(exp[-1 - suffix], act[-1 - suffix])):
            suffix += 1
        e_mid, a_mid = exp[prefix : len(exp) - suffix], act[prefix : len(act) - suffix]
        if len(e_mid) + len(a_mid) > 2 * self.budget.align_items * _ALIGN_HASHED:
            return False
        matcher = difflib.SequenceMatcher(None, [_align_key(x) for x in e_mid], [_align_key(x) for x in a_mid], autojunk=False)
        matched = prefix + suffix + sum(size for _, _, size in matcher.get_matching_blocks())
        if 2 * matched < 0.5 * (len(exp) + len(act)):
            return False
        for op, e1, e2, a1, a2 in matcher.get_opcodes():
            e1, e2, a1, a2 = e1 + prefix, e2 + prefix, a1 + prefix, a2 + prefix
            if op == "equal" or (op == "replace" and e2 - e1 == a2 - a1):
                for i, j in zip(range(e1, e2), range(a1, a2)):  # equal keys (clipped reprs): the values decide
                    self.compare(exp[i], act[j], path.aligned(j, i), depth + 1)
                continue
            for i in range(e1, e2):
                here = path.step("index", i, f"[{i}]")
                self.add(here, "missing", f"missing item: expected {self.r(exp[i])} at [{i}]", self.r(exp[i]), "", Missing(here.steps, exp[i]))
            for j in range(a1, a2):
                here = path.step("index", j, f"[{j}]")
                self.add(here, "extra", f"extra item: got {self.r(act[j])} at [{j}]", "", self.r(act[j]), Extra(here.steps, act[j]))
        return True

    def _mapping(self, exp: dict, act: dict, path: _P, depth: int) -> None:
        for key in exp:
            if key not in act:
                here = path.step("key", key, f"[{self.r(key)}]")
                self.add(here, "missing", f"missing key {self.r(key)} (expected value {self.r(exp[key])})", self.r(exp[key]), "", Missing(here.steps, exp[key]))
        for key in act:
            if key not in exp:
                here = path.step("key", key, f"[{self.r(key)}]")
                self.add(here, "extra", f"extra key {self.r(key)} (got value {self.r(act[key])})", "", self.r(act[key]), Extra(here.steps, act[key]))
        checked = 0
        for key in exp:
            if key in act:
                checked += 1
                if checked > self.budget.max_items:
                    self.add(path, "value", f"more keys not compared (budget of {self.budget.max_items:,})", claim=Count("items", len(exp) - self.budget.max_items))
                    break
                self.compare(exp[key], act[key], path.step("key", key, f"[{self.r(key)}]"), depth + 1)

    def _set(self, exp: set | frozenset, act: set | frozenset, path: _P) -> None:
        for item in _sorted_for_display(exp - act):
            self.add(path, "missing", f"missing member {self.r(item)}", self.r(item), "", Missing((*path.steps, ("member", item)), item))
        for item in _sorted_for_display(act - exp):
            self.add(path, "extra", f"extra member {self.r(item)}", "", self.r(item), Extra((*path.steps, ("member", item)), item))


def _sorted_for_display(items) -> list:
    try:
        return sorted(items)
    except TypeError:
        return sorted(items, key=repr)


