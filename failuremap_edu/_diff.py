"""Diffs that explain *why* expected and actual differ: pure data, no HTML, no colour.

`diff(expected, actual)` walks both values with one comparer per type and
records each difference with the path to it (``[1]``, ``['em']``, ``[0][2]``):
a type mismatch even when the items are equal (the tuple-versus-list moment),
missing and extra items or keys, the first differing character of a string with
character-level edits around it, invisible differences named by code point,
numeric near misses, NaN, and a None that suggests a missing ``return``.

The diff only explains; the verdict stays the harness's ``actual == expected``.
Huge values are handled within a frozen `Budget`: work and output are bounded,
windows are centred on the first difference, and what was left out is counted.
"""

from __future__ import annotations

import difflib
import math
import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any

from ._display import Shown
from ._values import Opaque, safe_repr

__all__ = ["Budget", "Diff", "Difference", "LineDetail", "LineEdit", "TextDetail", "TextEdit", "describe_char", "describe_text", "diff"]


@dataclass(frozen=True)
class Budget:
    """Limits on the work a diff does and on what it keeps, passed in, never global."""

    max_differences: int = 12
    """Differences kept; the rest are only counted."""
    max_depth: int = 40
    max_items: int = 1_000_000
    """Items per container examined; beyond this they are only counted."""
    max_repr: int = 160
    """Characters of any value's repr that a difference keeps."""
    text_context: int = 32
    """Characters of shared context shown before the first and after the last edit."""
    text_align: int = 4_000
    """Differing middles (after the shared prefix and suffix) up to this many characters
    are aligned character by character; longer ones are shown as one replacement."""
    text_window: int = 200
    """Characters of edits kept per side in a text window."""
    text_analysis: int = 100_000
    """Strings longer than this skip whole-string checks such as Unicode normalization."""
    align_items: int = 400
    """Sequences up to this length are aligned to find missing and extra items."""
    text_lines: int = 40
    """Lines a line diff keeps (changed lines and one line of context around them)."""
    line_align: int = 5_000
    """Texts of up to this many lines (and at most `text_analysis` characters) get a line diff."""


DEFAULT_BUDGET = Budget()


@dataclass(frozen=True)
class TextEdit:
    """One piece of two aligned strings: the same on both sides, or an edit.

    Renderers draw expected and got from the same list of edits, so the marks in
    both lines sit at the same place: an insertion is an empty mark in expected,
    a deletion an empty mark in got.
    """

    op: str
    """``equal``, ``insert`` (only in got), ``delete`` (only in expected) or ``replace``."""
    expected: str
    """The expected side's characters ("" for ``insert``)."""
    actual: str
    """The got side's characters ("" for ``delete``)."""
    expected_index: int
    """Where this piece starts in expected (0-based)."""
    actual_index: int
    """Where this piece starts in got."""


@dataclass(frozen=True)
class TextDetail:
    """Where two strings part ways, as aligned edits around the changes, with context."""

    index: int
    """First differing character (0-based; the common prefix is this long)."""
    expected_length: int
    actual_length: int
    edits: tuple[TextEdit, ...]
    """The window: some shared context, the edits (clipped for huge strings), more context."""
    clipped_before: int
    """Characters of the shared prefix left out before the window (both sides)."""
    expected_clipped: int
    """Characters of expected after the window that are not shown."""
    actual_clipped: int
    changes: int
    """How many edits (not ``equal``) the two strings differ by, including any beyond the window."""


@dataclass(frozen=True)
class LineEdit:
    """One line of a line diff: the same in both texts, only in one, or changed."""

    op: str
    """``equal``, ``delete`` (only in expected), ``insert`` (only in got) or ``replace``."""
    expected: str
    """The expected line, without its line break ("" for ``insert``)."""
    actual: str
    """The got line ("" for ``delete``)."""
    expected_line: int
    """Its line number in expected (1-based; for ``insert``, the line it comes before)."""
    actual_line: int
    text: TextDetail | None = None
    """For ``replace``: where the two lines differ, character by character."""


@dataclass(frozen=True)
class LineDetail:
    """Two texts of several lines compared line by line, as difflib's ndiff does."""

    edits: tuple[LineEdit, ...]
    """Changed lines with a line of context around each change; renderers show a gap where line numbers jump."""
    changes: int
    """How many groups of changed lines there are, including any beyond the budget."""
    omitted: int
    """Lines of the diff (changed or context) not kept because of the budget."""
    expected_lines: int
    actual_lines: int
    runs: tuple[tuple[LineEdit, int], ...] = ()
    """The first runs of changed lines (each run's first line and its length), counted over
    every changed line, kept or not: what the message names."""


@dataclass(frozen=True)
class Difference:
    """One reason why expected and actual are not the same."""

    path: str
    """Where, as an index path from the root: ``""`` is the whole value."""
    kind: str
    """``type``, ``none``, ``length``, ``missing``, ``extra``, ``order``, ``value``,
    ``text``, ``invisible``, ``number``, ``nan``, ``opaque`` or ``depth``."""
    message: str
    """The explanation in plain words, with "expected" and "got"."""
    expected: str = ""
    """A short repr of the expected part (empty for ``extra``)."""
    actual: str = ""
    """A short repr of the actual part (empty for ``missing``)."""
    text: TextDetail | None = None
    lines: LineDetail | None = None
    """For texts of several lines: the line diff (then `text` is None)."""


@dataclass(frozen=True)
class Diff(Shown):
    """All the differences found within the budget, first found first. ``str()`` gives its text form."""

    _text_renderer = "render._text:diff_text"

    differences: tuple[Difference, ...]
    omitted: int = 0
    """Differences found but not kept because of the budget."""
    omitted_items: int = 0
    """Items found to differ but not looked into because of the budget, whose differences were not counted
    (their shapes differ: a count would guess). Said apart: "… and 7 more differences" for 13 cells misled a trial."""
    hint: str | None = None
    """One overall hint, e.g. that solve returned a generator."""
    budget: Budget = field(default=DEFAULT_BUDGET, repr=False)

    @property
    def equal(self) -> bool:
        """No difference: the values are equal and of the same types throughout."""
        return not self.differences and not self.omitted and not self.omitted_items


def describe_char(ch: str) -> str:
    """``U+00A0 NO-BREAK SPACE``: a character named so that invisible ones can be seen."""
    name = unicodedata.name(ch, None)
    if name is None:
        name = {"\n": "LINE FEED", "\r": "CARRIAGE RETURN", "\t": "TAB"}.get(ch, unicodedata.category(ch))
    return f"U+{ord(ch):04X} {name}"


_CONTAINERS = (list, tuple, dict, set, frozenset)
_BLANKS = re.compile(r"[ \t]+")
_INVISIBLE_CATEGORIES = {"Zs", "Zl", "Zp", "Cc", "Cf", "Mn", "Me"}


_TYPE_WORDS = {
    list: "a list", tuple: "a tuple", dict: "a dict", set: "a set", frozenset: "a frozenset", str: "a string",
    bytes: "bytes", int: "an int", float: "a float", complex: "a complex number", bool: "a bool", type(None): "None",
}


def _type_word(value: Any) -> str:
    if isinstance(value, Opaque):
        return f"a {value.type_name} object"
    return _TYPE_WORDS.get(type(value), f"a {type(value).__name__}")


MISSING_RETURN = "solve returned None: is a return statement missing, or does a branch fall off the end?"


def diff(expected: Any, actual: Any, budget: Budget = DEFAULT_BUDGET, *, missing_return: bool = False) -> Diff:
    """Explain how `actual` differs from `expected`. Never raises.

    `missing_return`: the caller has read solve's source and knows it can fall off
    its end. Only then does a None get the hint that a ``return`` may be missing;
    a solve that returns None on purpose must not be told it forgot one.
    """
    walker = _Walker(budget)
    try:
        walker.compare(expected, actual, "", 0, top=True)
    except RecursionError:
        walker.add(Difference("", "depth", "the values are nested too deeply to compare further"))
    hint = None
    if actual is None and expected is not None and missing_return:
        hint = MISSING_RETURN
    elif isinstance(actual, Opaque) and actual.type_name == "generator":
        hint = "solve returned a generator: wrap it in list(...) or tuple(...), or use a list comprehension."
    return Diff(tuple(walker.kept), walker.omitted, walker.omitted_items, hint, budget)


class _Walker:
    """One comparer per type; recurses and labels the path to each differing child."""

    def __init__(self, budget: Budget) -> None:
        self.budget = budget
        self.kept: list[Difference] = []
        self.omitted = 0
        self.omitted_items = 0

    def add(self, difference: Difference) -> None:
        if len(self.kept) < self.budget.max_differences:
            self.kept.append(difference)
        else:
            self.omitted += 1

    def r(self, value: Any) -> str:
        return safe_repr(value, self.budget.max_repr, keep_end=True)

    def compare(self, exp: Any, act: Any, path: str, depth: int, top: bool = False) -> None:
        if depth > self.budget.max_depth:
            if not _same(exp, act, top):
                self.add(Difference(path, "depth", f"nested deeper than {self.budget.max_depth} levels; not compared further"))
            return
        te, ta = type(exp), type(act)
        if te is not ta:
            self._different_types(exp, act, path, depth)
            return
        if _same(exp, act, top) and _same_types_inside(exp, act, self.budget.max_items):
            return
        if te is str:
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
            self.add(Difference(path, "value", f"expected {self.r(exp)}, got {self.r(act)}", self.r(exp), self.r(act)))

    def _opaque(self, exp: Opaque, act: Opaque, path: str, depth: int) -> None:
        """Two stand-ins: by their fields (dataclass, attrs, named tuple), else by their plain equivalents."""
        named_tuples = exp.plain is not None and act.plain is not None
        if exp.fields is not None and act.fields is not None:
            e_fields, a_fields = dict(exp.fields), dict(act.fields)
            if exp.type_name != act.type_name and not named_tuples:
                self.add(Difference(path, "type", f"expected {_type_word(exp)}, got {_type_word(act)}", self.r(exp), self.r(act)))
            if named_tuples and list(e_fields) != list(a_fields):
                self.compare(exp.plain, act.plain, path, depth + 1)  # == compares them as tuples
                return
            for name, e in e_fields.items():
                if name not in a_fields:
                    self.add(Difference(f"{path}.{name}", "missing", f"missing field {name} (expected value {self.r(e)})", self.r(e), ""))
                    continue
                a = a_fields[name]
                if not _same(e, a, False) or not _same_types_inside(e, a, self.budget.max_items):
                    self.compare(e, a, f"{path}.{name}", depth + 1)
            for name, a in a_fields.items():
                if name not in e_fields:
                    self.add(Difference(f"{path}.{name}", "extra", f"extra field {name} (got value {self.r(a)})", "", self.r(a)))
            return
        if exp.plain is not None and act.plain is not None:
            e_plain, a_plain = exp.plain, act.plain
            if (
                type(e_plain) is dict and type(a_plain) is dict and e_plain == a_plain and list(e_plain) != list(a_plain)
            ):
                ordered = exp.type_name == act.type_name == "collections.OrderedDict"
                why = ": an OrderedDict compares the order of its keys too" if ordered else ""
                self.add(Difference(
                    path, "order",
                    f"the same keys and values in a different order{why}; expected keys {self.r(list(e_plain))}, got {self.r(list(a_plain))}",
                    self.r(exp), self.r(act),
                ))
                return
            self.compare(e_plain, a_plain, path, depth + 1)
            return
        if exp.type_name != act.type_name:
            self.add(Difference(path, "type", f"expected {_type_word(exp)}, got {_type_word(act)}", self.r(exp), self.r(act)))
            return
        self.add(Difference(path, "value", f"expected {exp.repr}, got {act.repr}", self.r(exp), self.r(act)))

    # -- types -----------------------------------------------------------------

    def _different_types(self, exp: Any, act: Any, path: str, depth: int) -> None:
        e, a = self.r(exp), self.r(act)
        if act is None:
            self.add(Difference(path, "none", f"expected {_type_word(exp)}, got None", e, a))
            return
        if exp is None:
            self.add(Difference(path, "none", f"expected None, got {_type_word(act)}", e, a))
            return
        if type(exp) in (set, frozenset) and type(act) in (set, frozenset):
            # A frozenset equals a set with the same members: only the members can differ.
            self._set(exp, act, path)
            return
        if isinstance(act, Opaque) or isinstance(exp, Opaque):
            message = f"expected {_type_word(exp)}, got {_type_word(act)}"
            opaque, other = (act, exp) if isinstance(act, Opaque) else (exp, act)
            sets = (set, frozenset)
            plain = opaque.plain is not None and (type(opaque.plain) is type(other) or type(opaque.plain) in sets and type(other) in sets)
            sequences = type(opaque.plain) in (list, tuple) and type(other) in (list, tuple)
            if plain:
                message += f", which == compares as {'a set' if type(other) in sets else _type_word(other)}"
            elif sequences:  # a named tuple against a list: never equal, but the items can still be compared
                message += " (and a tuple never equals a list, even with the same items)"
            self.add(Difference(path, "opaque", message, e, a))
            if plain or sequences:
                pair = (exp, act.plain) if opaque is act else (exp.plain, act)
                if plain and (not _same(*pair, False) or not _same_types_inside(*pair, self.budget.max_items)):
                    self.compare(*pair, path, depth + 1)
                elif sequences and not (_same(list(pair[0]), list(pair[1]), False) and _same_types_inside(list(pair[0]), list(pair[1]), self.budget.max_items)):
                    self._sequence(*pair, path, depth)
            return
        sequences = (list, tuple)
        equal_anyway = _same(exp, act, False)
        if type(exp) in sequences and type(act) in sequences:
            # "The same items" only when they are, types inside included ((1,) against [1.0] is not).
            same_items = _same(list(exp), list(act), False) and _same_types_inside(list(exp), list(act), self.budget.max_items)
            note = (
                ": the items are the same, but a tuple never equals a list, so == fails"
                if same_items
                else " (and a tuple never equals a list, even with the same items)"
            )
            self.add(Difference(path, "type", f"expected {_type_word(exp)}, got {_type_word(act)}{note}", e, a))
            if not same_items:
                self._sequence(exp, act, path, depth)
            return
        if isinstance(exp, (int, float)) and isinstance(act, (int, float)) and not isinstance(exp, bool) and not isinstance(act, bool):
            if equal_anyway:
                message = f"expected {_type_word(exp)}, got {_type_word(act)} with the same value ({e} vs {a}); == treats them as equal"
                self.add(Difference(path, "type", message, e, a))
            else:
                self.add(Difference(path, "type", f"expected {_type_word(exp)} {e}, got {_type_word(act)} {a}", e, a))
            return
        if isinstance(exp, str) and isinstance(act, (int, float)) or isinstance(act, str) and isinstance(exp, (int, float)):
            looks = " that prints the same" if str(exp) == str(act) else ""
            self.add(Difference(path, "type", f"expected {_type_word(exp)}, got {_type_word(act)}{looks}: {e} vs {a}", e, a))
            return
        self.add(Difference(path, "type", f"expected {_type_word(exp)}, got {_type_word(act)}", e, a))

    # -- scalars -----------------------------------------------------------------

    def _number(self, exp: Any, act: Any, path: str) -> None:
        e, a = self.r(exp), self.r(act)
        if isinstance(exp, float):
            if math.isnan(exp) or math.isnan(act):
                message = (
                    "both are NaN, and NaN never equals anything, not even NaN"
                    if math.isnan(exp) and math.isnan(act)
                    else f"expected {e}, got {a}: NaN never equals a number"
                )
                self.add(Difference(path, "nan", message, e, a))
                return
            if math.isinf(exp) or math.isinf(act):
                self.add(Difference(path, "value", f"expected {e}, got {a}", e, a))
                return
            gap = act - exp
            if exp != 0 and math.isclose(exp, act, rel_tol=1e-3):
                sign = " (note the sign of zero)" if act == 0 and math.copysign(1, act) < 0 else ""
                message = (
                    f"close but not equal: expected {e}, got {a} (off by {gap:.3g}, {abs(gap / exp):.2g} relative); "
                    f"== needs exact equality: rounding, float precision, or order of operations?{sign}"
                )
                self.add(Difference(path, "number", message, e, a))
                return
            if exp == 0 and act != 0 and abs(act) < 1e-9:
                self.add(Difference(path, "number", f"expected {e}, got {a}: a tiny rounding error, but == needs exactly 0", e, a))
                return
            if act == 0 and exp == 0:  # only the sign of zero differs: == says equal
                return
        self.add(Difference(path, "value", f"expected {e}, got {a}", e, a))

    def _bytes(self, exp: bytes, act: bytes, path: str) -> None:
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
        self.add(Difference(path, "value", message, self.r(exp), self.r(act)))

    # -- text --------------------------------------------------------------------

    def _text(self, exp: str, act: str, path: str) -> None:
        budget = self.budget
        reasons = _invisible_reasons(exp, act, _common_prefix(exp, act), budget)
        if path and not reasons and _short_and_plain(exp) and _short_and_plain(act):
            # A short string inside a container is one value to a learner: "expected
            # 'b1', got 'a1'", not a character index inside an item index.
            self.add(Difference(path, "value", f"expected {exp!r}, got {act!r}", self.r(exp), self.r(act)))
            return
        lines = _line_detail(exp, act, budget) if not reasons and _several_lines(exp, act, budget) else None
        if lines is not None:
            message = describe_lines(lines)
            if exp.endswith("\n") != act.endswith("\n"):
                message += f"; {'got' if act.endswith(chr(10)) else 'expected'} ends with a line break, the other does not"
            self.add(Difference(path, "text", message, self.r(exp), self.r(act), lines=lines))
            return
        detail = _text_detail(exp, act, budget)
        message = describe_text(detail)
        changed = "".join(e.expected + e.actual for e in detail.edits if e.op != "equal")
        unseen = any(reason != _CASE_ONLY for reason in reasons) or (changed and all(map(_notable, changed)))
        kind = "invisible" if unseen else "text"
        if reasons:
            message += "; " + "; ".join(reasons)
        self.add(Difference(path, kind, message, self.r(exp), self.r(act), detail))

    # -- containers --------------------------------------------------------------

    def _sequence(self, exp: list | tuple, act: list | tuple, path: str, depth: int) -> None:
        budget = self.budget
        # Only lists: a tuple is a record whose positions mean different things, and
        # "the same items in another order" would send the learner swapping them.
        if type(exp) is list and type(act) is list and 1 < len(exp) == len(act) <= budget.align_items and _same_items(exp, act, budget.max_items):
            self.add(Difference(path, "order", f"the same items in a different order: expected {self.r(exp)}, got {self.r(act)}", self.r(exp), self.r(act)))
            return
        if len(exp) != len(act):
            self.add(
                Difference(path, "length", f"expected {_items(len(exp))}, got {len(act)}", self.r(exp), self.r(act))
            )
            if max(len(exp), len(act)) <= budget.align_items and self._align(exp, act, path, depth):
                return
        common = min(len(exp), len(act))
        compared = min(common, budget.max_items)
        for i in range(compared):
            e, a = exp[i], act[i]
            if _no_difference(e, a, budget.max_items):
                continue
            if len(self.kept) >= budget.max_differences:
                counted = _differing_leaves(e, a, [budget.max_items])  # a row of a grid is its differing cells, not one
                if counted is None:
                    self.omitted_items += 1
                else:
                    self.omitted += counted
                continue
            self.compare(e, a, f"{path}[{i}]", depth + 1)
        if common > compared:
            self.add(Difference(path, "value", f"{common - compared:,} more items not compared (budget of {budget.max_items:,})"))
            return
        for i in range(len(act), len(exp)):
            if len(self.kept) >= budget.max_differences:
                self.omitted += len(exp) - i
                break
            self.add(Difference(f"{path}[{i}]", "missing", f"missing item: expected {self.r(exp[i])}", self.r(exp[i]), ""))
        for i in range(len(exp), len(act)):
            if len(self.kept) >= budget.max_differences:
                self.omitted += len(act) - i
                break
            self.add(Difference(f"{path}[{i}]", "extra", f"extra item: got {self.r(act[i])}", "", self.r(act[i])))

    def _align(self, exp, act, path: str, depth: int) -> bool:
        """For sequences of different lengths, name the missing and extra items.

        Returns False when the two do not line up well enough for that to help.
        """
        keys_e = [_align_key(x) for x in exp]
        keys_a = [_align_key(x) for x in act]
        matcher = difflib.SequenceMatcher(None, keys_e, keys_a, autojunk=False)
        if matcher.ratio() < 0.5:
            return False
        for op, e1, e2, a1, a2 in matcher.get_opcodes():
            if op == "equal":
                for i, j in zip(range(e1, e2), range(a1, a2)):  # equal clipped reprs: the values decide
                    if not _same(exp[i], act[j], False) or not _same_types_inside(exp[i], act[j], self.budget.max_items):
                        self.compare(exp[i], act[j], f"{path}[{j}]", depth + 1)
                continue
            if op == "replace" and e2 - e1 == a2 - a1:
                for i, j in zip(range(e1, e2), range(a1, a2)):
                    self.compare(exp[i], act[j], f"{path}[{j}]", depth + 1)
                continue
            for i in range(e1, e2):
                self.add(Difference(f"{path}[{i}]", "missing", f"missing item: expected {self.r(exp[i])} at [{i}]", self.r(exp[i]), ""))
            for j in range(a1, a2):
                self.add(Difference(f"{path}[{j}]", "extra", f"extra item: got {self.r(act[j])} at [{j}]", "", self.r(act[j])))
        return True

    def _mapping(self, exp: dict, act: dict, path: str, depth: int) -> None:
        missing = [k for k in exp if k not in act]
        extra = [k for k in act if k not in exp]
        for key in missing:
            self.add(Difference(f"{path}[{self.r(key)}]", "missing", f"missing key {self.r(key)} (expected value {self.r(exp[key])})", self.r(exp[key]), ""))
        for key in extra:
            self.add(Difference(f"{path}[{self.r(key)}]", "extra", f"extra key {self.r(key)} (got value {self.r(act[key])})", "", self.r(act[key])))
        stored = {k: k for k in act}
        for key in exp:
            if key in stored and type(stored[key]) is not type(key):
                self.add(Difference(f"{path}[{self.r(key)}]", "type", f"key {self.r(key)} is {_type_word(key)} in expected but {_type_word(stored[key])} ({self.r(stored[key])}) in got", self.r(key), self.r(stored[key])))
        checked = 0
        for key in exp:
            if key in act:
                checked += 1
                if checked > self.budget.max_items:
                    self.add(Difference(path, "value", f"more keys not compared (budget of {self.budget.max_items:,})"))
                    break
                e, a = exp[key], act[key]
                if not _same(e, a, False) or not _same_types_inside(e, a, self.budget.max_items):
                    self.compare(e, a, f"{path}[{self.r(key)}]", depth + 1)

    def _set(self, exp: set | frozenset, act: set | frozenset, path: str) -> None:
        stored = {k: k for k in act}
        for item in _sorted_for_display(k for k in exp if k in stored and type(stored[k]) is not type(k)):
            self.add(Difference(path, "type", f"member {self.r(item)} is {_type_word(item)} in expected but {_type_word(stored[item])} in got", self.r(item), self.r(stored[item])))
        for item in _sorted_for_display(exp - act):
            self.add(Difference(path, "missing", f"missing member {self.r(item)}", self.r(item), ""))
        for item in _sorted_for_display(act - exp):
            self.add(Difference(path, "extra", f"extra member {self.r(item)}", "", self.r(item)))


def _differing_leaves(exp: Any, act: Any, budget: list[int], depth: int = 0) -> int | None:
    """How many differences the diff would list for two values of one shape: lists and tuples of one length and
    dicts of the same keys, item by item, down to values that are not such containers. None when the shapes differ
    anywhere (missing items are aligned, and counted otherwise) or the budget of items runs out."""
    budget[0] -= 1
    if budget[0] < 0 or depth > 50:
        return None
    kind = type(exp)
    if kind is not type(act):
        return None if kind in _CONTAINERS or type(act) in _CONTAINERS else 1
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
    return type(exp) is type(act) and _same(exp, act, False) and (type(exp) not in _CONTAINERS or _same_types_inside(exp, act, limit))


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


def _align_key(value: Any) -> str:
    return f"{type(value).__name__}:{safe_repr(value, 200, keep_end=True)}"


def _sorted_for_display(items) -> list:
    try:
        return sorted(items)
    except TypeError:
        return sorted(items, key=repr)


def _common_prefix(a, b) -> int:
    """Length of the common prefix, comparing blocks in C before characters in Python."""
    n = min(len(a), len(b))
    block = 4096
    i = 0
    while i < n and a[i : i + block] == b[i : i + block]:
        i += block
    i = min(i, n)
    end = min(i + block, n)
    while i < end and a[i] == b[i]:
        i += 1
    return i


def _common_suffix(a, b, floor: int) -> int:
    """Length of the common suffix that does not reach into the first `floor` characters."""
    n = min(len(a), len(b)) - floor
    block = 4096
    i = 0
    while i + block <= n and a[len(a) - i - block : len(a) - i] == b[len(b) - i - block : len(b) - i]:
        i += block
    while i < n and a[len(a) - 1 - i] == b[len(b) - 1 - i]:
        i += 1
    return i


def _notable(ch: str) -> bool:
    """Characters a learner cannot see or tell apart in a repr: named by code point instead."""
    return ch.isspace() or unicodedata.category(ch) in _INVISIBLE_CATEGORIES


def _short_and_plain(text: str) -> bool:
    """A short one-line ASCII string, whose repr shows every character plainly.

    Not other letters: 'ﬁne' (a ligature) and 'fine' look the same on screen, and full-width 'ｈｅｌｌｏ'
    showed as boxes where the font had none (a learner trial): those get the characters named.
    """
    return (
        len(text) <= 30
        and text.isascii()
        and text == text.strip()
        and "  " not in text
        and all(ch == " " or unicodedata.category(ch)[0] in "LNPS" for ch in text)
    )


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


def _items(n: int) -> str:
    return f"{n:,} item" if n == 1 else f"{n:,} items"


def _describe_chars(text: str, limit: int = 24, name_all: bool = False) -> str:
    """``'x'``, ``U+0020 SPACE``, or ``'a b'`` followed by the names of its notable characters.

    `name_all` names every character (up to four): for a replacement where the two
    sides may look alike (``é`` against ``e`` plus a combining accent).
    """
    if len(text) == 1 and not name_all:
        return describe_char(text) if _notable(text) else safe_repr(text)
    shown = safe_repr(text) if len(text) <= limit else safe_repr(text[:limit])[:-1] + "…'"
    chosen = text[:limit] if name_all else [ch for ch in text[:limit] if _notable(ch)]
    named = list(dict.fromkeys(describe_char(ch) for ch in chosen))
    return shown + (f" ({', '.join(named[:4])}{', …' if len(named) > 4 else ''})" if named else "")


def _describe_edit(edit: TextEdit) -> str:
    if edit.op == "insert":
        n = len(edit.actual)
        what = f"an extra {_describe_chars(edit.actual)}" if n == 1 else f"{n:,} extra characters {_describe_chars(edit.actual)}"
        return f"got has {what} at index {edit.actual_index}"
    if edit.op == "delete":
        n = len(edit.expected)
        what = _describe_chars(edit.expected) if n == 1 else f"{n:,} characters {_describe_chars(edit.expected)}"
        return f"got is missing {what} at index {edit.expected_index}"
    where = f"at index {edit.expected_index}"
    if edit.actual_index != edit.expected_index:
        where += f" ({edit.actual_index} in got)"
    both = edit.expected + edit.actual
    lookalike = any(_notable(ch) or not ch.isascii() for ch in both)
    return f"{where}, expected {_describe_chars(edit.expected, name_all=lookalike)} but got {_describe_chars(edit.actual, name_all=lookalike)}"


def describe_text(detail: TextDetail) -> str:
    """The edits between two strings in plain words: what was inserted, is missing or was replaced, and where."""
    edits = [e for e in detail.edits if e.op != "equal"]
    parts = [_describe_edit(e) for e in edits[:3]]
    if detail.changes > len(parts):
        parts.append(f"and {detail.changes - len(parts):,} more")
    if detail.changes == 1:
        return parts[0]
    return f"{detail.changes:,} changes: " + "; ".join(parts)


def _text_detail(exp: str, act: str, budget: Budget) -> TextDetail:
    """Align the two strings around what differs: shared prefix and suffix first (cheap, for
    huge strings), then difflib's opcodes for the middle, kept within the window budget."""
    prefix = _common_prefix(exp, act)
    suffix = _common_suffix(exp, act, prefix)
    e_mid, a_mid = exp[prefix : len(exp) - suffix], act[prefix : len(act) - suffix]
    opcodes = [("replace", 0, len(e_mid), 0, len(a_mid))]
    if len(e_mid) + len(a_mid) <= budget.text_align:
        aligned = difflib.SequenceMatcher(None, e_mid, a_mid, autojunk=False).get_opcodes()
        shared = sum(e2 - e1 for op, e1, e2, _, _ in aligned if op == "equal")
        # Words that differ entirely ('spam', 'eggs') are one replacement, not edits around a
        # shared letter: the edits are kept only when at least a third of the middle is shared.
        if 6 * shared >= len(e_mid) + len(a_mid) or sum(op != "equal" for op, *_ in aligned) <= 1:
            opcodes = aligned
    context = budget.text_context
    start = max(0, prefix - context)
    edits: list[TextEdit] = []
    if prefix > start:
        edits.append(TextEdit("equal", exp[start:prefix], exp[start:prefix], start, start))
    room = budget.text_window  # characters of edits still shown, per side
    e_end = a_end = prefix
    changes = sum(1 for op, *_ in opcodes if op != "equal")
    for op, e1, e2, a1, a2 in opcodes:
        if room <= 0:
            break
        e_text, a_text = e_mid[e1:e2][:room], a_mid[a1:a2][:room]
        room -= max(len(e_text), len(a_text))
        edits.append(TextEdit(op, e_text, a_text, prefix + e1, prefix + a1))
        e_end, a_end = prefix + e1 + len(e_text), prefix + a1 + len(a_text)
    if room > 0:  # everything in the middle was shown: add the shared context after it
        tail = exp[len(exp) - suffix : len(exp) - suffix + context]
        if tail:
            edits.append(TextEdit("equal", tail, tail, len(exp) - suffix, len(act) - suffix))
        e_end, a_end = len(exp) - suffix + len(tail), len(act) - suffix + len(tail)
    return TextDetail(
        index=prefix,
        expected_length=len(exp),
        actual_length=len(act),
        edits=tuple(edits),
        clipped_before=start,
        expected_clipped=len(exp) - e_end,
        actual_clipped=len(act) - a_end,
        changes=changes,
    )


_CASE_ONLY = "only letter case differs"


def _invisible_reasons(exp: str, act: str, index: int, budget: Budget) -> list[str]:
    reasons: list[str] = []
    small = max(len(exp), len(act)) <= budget.text_analysis
    if exp.strip() == act.strip():
        sides = []
        if exp.lstrip() != exp or act.lstrip() != act:
            if len(exp) - len(exp.lstrip()) != len(act) - len(act.lstrip()):
                sides.append("leading")
        if len(exp) - len(exp.rstrip()) != len(act) - len(act.rstrip()):
            sides.append("trailing")
        reasons.append(f"only {' and '.join(sides) or 'surrounding'} whitespace differs")
    elif small and exp.replace("\r\n", "\n") == act.replace("\r\n", "\n"):
        which = "got" if "\r\n" in act else "expected"
        reasons.append(f"only line endings differ: {which} uses \\r\\n (CR LF) where the other uses \\n")
    elif small and ("\t" in exp) != ("\t" in act) and _BLANKS.sub(" ", exp) == _BLANKS.sub(" ", act):
        reasons.append("a tab on one side, spaces on the other")
    elif small and unicodedata.normalize("NFC", exp) == unicodedata.normalize("NFC", act):
        reasons.append("the same text after Unicode normalization (NFC): one side has a letter with a combining mark where the other has one combined character")
    elif small and exp.lower() == act.lower():
        reasons.append(_CASE_ONLY)
    return reasons


def _byte(value: int) -> str:
    """``b'a' (0x61)``: one byte as a bytes literal and in hex."""
    return f"{bytes([value])!r} (0x{value:02x})"


def _several_lines(exp: str, act: str, budget: Budget) -> bool:
    """Texts that get a line diff: one of them has several lines, and both are small enough."""
    if max(len(exp), len(act)) > budget.text_analysis:
        return False
    counts = (exp.count("\n"), act.count("\n"))
    if max(counts) > budget.line_align:
        return False
    return len(exp.splitlines()) > 1 or len(act.splitlines()) > 1


def _line_detail(exp: str, act: str, budget: Budget) -> LineDetail | None:
    """The lines of two texts aligned as difflib's ndiff aligns them, changed lines with one
    line of context, kept within `budget.text_lines`; None when no line differs (only the
    final line break: the character diff shows that).

    Lines are compared without their final ``\n`` (so a line break added after the last
    line does not make that line differ). In a block of changed lines of different
    sizes, a line is paired with its most similar counterpart, as ndiff pairs them.
    """
    e_lines, a_lines = exp.splitlines(keepends=True), act.splitlines(keepends=True)
    e_keys, a_keys = [_no_break(x) for x in e_lines], [_no_break(x) for x in a_lines]
    if e_keys == a_keys:
        return None
    opcodes: list[tuple[str, int, int, int, int]] = []
    for op, e1, e2, a1, a2 in difflib.SequenceMatcher(None, e_keys, a_keys, autojunk=False).get_opcodes():
        if op == "replace" and e2 - e1 != a2 - a1 and (e2 - e1) * (a2 - a1) <= 400:
            _pair_lines(e_keys, a_keys, e1, e2, a1, a2, opcodes, [_PAIRING_WORK])
        else:
            opcodes.append((op, e1, e2, a1, a2))
    rows: list[tuple[str, int, int]] = []  # (op, expected line, got line), 0-based, one per shown line
    for op, e1, e2, a1, a2 in opcodes:
        if op == "equal" or (op == "replace" and e2 - e1 == a2 - a1):
            rows += [(op, i, j) for i, j in zip(range(e1, e2), range(a1, a2))]
        else:
            rows += [("delete", i, a1) for i in range(e1, e2)]
            rows += [("insert", e2, j) for j in range(a1, a2)]
    changed = [k for k, row in enumerate(rows) if row[0] != "equal"]
    near = sorted({k + d for k in changed for d in (-1, 0, 1) if 0 <= k + d < len(rows)})

    def shown(line: str) -> str:
        line = _no_break(line)
        return line if len(line) <= budget.text_window else line[: budget.text_window - 1] + "…"

    edits: list[LineEdit] = []
    every: list[LineEdit] = []  # the kept ones and the rest, for counting runs
    for k in near:
        op, i, j = rows[k]
        kept = len(edits) < budget.text_lines
        if op == "equal":
            edit = LineEdit("equal", shown(e_lines[i]), shown(a_lines[j]), i + 1, j + 1)
        elif op == "replace":
            detail = _text_detail(_no_break(e_lines[i]), _no_break(a_lines[j]), budget) if kept else None
            edit = LineEdit("replace", shown(e_lines[i]), shown(a_lines[j]), i + 1, j + 1, detail)
        elif op == "delete":
            edit = LineEdit("delete", shown(e_lines[i]), "", i + 1, j + 1)
        else:
            edit = LineEdit("insert", "", shown(a_lines[j]), i + 1, j + 1)
        every.append(edit)
        if kept:
            edits.append(edit)
    runs = _line_runs(every)
    summary = tuple((run[0], len(run)) for run in runs[:3])
    return LineDetail(tuple(edits), len(runs), len(every) - len(edits), len(e_lines), len(a_lines), summary)


def _no_break(line: str) -> str:
    return line.removesuffix("\n")


_PAIRING_WORK = 4_000
"""Line pairs a changed block may weigh (ndiff's pairing is cubic); then the rest is left unpaired."""


def _pair_lines(e: list[str], a: list[str], e1: int, e2: int, a1: int, a2: int, out: list, work: list[int]) -> None:
    """ndiff's pairing of a changed block: the most similar pair of lines (ratio above 0.75)
    is a changed line, and the lines before and after it are paired the same way."""
    work[0] -= (e2 - e1) * (a2 - a1)
    if e1 >= e2 or a1 >= a2 or work[0] < 0:
        if e2 > e1:
            out.append(("delete", e1, e2, a1, a1))
        if a2 > a1:
            out.append(("insert", e2, e2, a1, a2))
        return
    best, pair = 0.75, None
    matcher = difflib.SequenceMatcher(autojunk=False)
    for j in range(a1, a2):
        matcher.set_seq2(a[j])
        for i in range(e1, e2):
            matcher.set_seq1(e[i])
            if matcher.real_quick_ratio() > best and matcher.quick_ratio() > best and matcher.ratio() > best:
                best, pair = matcher.ratio(), (i, j)
    if pair is None:
        out.append(("delete", e1, e2, a1, a1))
        out.append(("insert", e2, e2, a1, a2))
        return
    i, j = pair
    _pair_lines(e, a, e1, i, a1, j, out, work)
    out.append(("replace", i, i + 1, j, j + 1))
    _pair_lines(e, a, i + 1, e2, j + 1, a2, out, work)


def _line_range(first: int, count: int) -> str:
    return f"line {first:,}" if count == 1 else f"lines {first:,}–{first + count - 1:,}"


def _line_runs(edits) -> list[list[LineEdit]]:
    """Changed lines grouped into runs: consecutive lines with the same edit."""
    runs: list[list[LineEdit]] = []
    for edit in edits:
        if edit.op == "equal":
            continue
        last = runs[-1][-1] if runs else None
        if last is not None and last.op == edit.op and edit.expected_line - last.expected_line <= 1 and edit.actual_line - last.actual_line <= 1:
            runs[-1].append(edit)
        else:
            runs.append([edit])
    return runs


def describe_lines(detail: LineDetail) -> str:
    """The changed lines in plain words: which lines got has extra, is missing, or has changed."""
    parts: list[str] = []
    for first, n in detail.runs[:3]:
        if first.op == "insert":
            parts.append(f"got has {'an extra line' if n == 1 else f'{n:,} extra lines'} at {_line_range(first.actual_line, n)}")
        elif first.op == "delete":
            parts.append(f"got is missing {_line_range(first.expected_line, n)} of expected")
        else:
            where = f" ({_line_range(first.actual_line, n)} in got)" if first.actual_line != first.expected_line else ""
            if n == 1 and first.text is not None:  # one changed line: say how, within the line
                parts.append(f"{_line_range(first.expected_line, n)}{where}: {describe_text(first.text)}")
            else:
                parts.append(f"{_line_range(first.expected_line, n)} differ{'s' if n == 1 else ''}{where}")
    if detail.changes > len(parts):
        parts.append(f"and {detail.changes - len(parts):,} more")
    if detail.changes == 1:
        return parts[0]
    return f"{detail.changes:,} changes: " + "; ".join(parts)
