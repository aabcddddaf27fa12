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

from ._values import Opaque, safe_repr

__all__ = ["Budget", "Diff", "Difference", "Segment", "TextDetail", "diff", "describe_char"]


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
    """Characters shown on each side of a string's first difference."""
    text_analysis: int = 100_000
    """Strings longer than this skip whole-string checks such as Unicode normalization."""
    align_items: int = 400
    """Sequences up to this length are aligned to find missing and extra items."""


DEFAULT_BUDGET = Budget()


@dataclass(frozen=True)
class Segment:
    """A run of characters in a text window: ``equal``, or only on one side (``changed``)."""

    text: str
    op: str


@dataclass(frozen=True)
class TextDetail:
    """Where two strings part ways, as windows that a renderer can mark up."""

    index: int
    """First differing character (0-based)."""
    expected_length: int
    actual_length: int
    window_start: int
    """Index in both strings where the windows begin (they share the prefix before it)."""
    expected: tuple[Segment, ...]
    actual: tuple[Segment, ...]
    expected_clipped: int
    """Characters of expected after the window that are not shown."""
    actual_clipped: int


@dataclass(frozen=True)
class Difference:
    """One reason why expected and actual are not the same."""

    path: str
    """Where, as an index path from the root: ``""`` is the whole value."""
    kind: str
    """``type``, ``none``, ``length``, ``missing``, ``extra``, ``value``, ``text``,
    ``invisible``, ``number``, ``nan``, ``opaque`` or ``depth``."""
    message: str
    """The explanation in plain words, with "expected" and "got"."""
    expected: str = ""
    """A short repr of the expected part (empty for ``extra``)."""
    actual: str = ""
    """A short repr of the actual part (empty for ``missing``)."""
    text: TextDetail | None = None


@dataclass(frozen=True)
class Diff:
    """All the differences found within the budget, first found first."""

    differences: tuple[Difference, ...]
    omitted: int = 0
    """Differences found but not kept because of the budget."""
    hint: str | None = None
    """One overall hint, e.g. that solve may be missing a ``return``."""
    budget: Budget = field(default=DEFAULT_BUDGET, repr=False)

    @property
    def equal(self) -> bool:
        """No difference: the values are equal and of the same types throughout."""
        return not self.differences and not self.omitted


def describe_char(ch: str) -> str:
    """``U+00A0 NO-BREAK SPACE``: a character named so that invisible ones can be seen."""
    name = unicodedata.name(ch, None)
    if name is None:
        name = {"\n": "LINE FEED", "\r": "CARRIAGE RETURN", "\t": "TAB"}.get(ch, unicodedata.category(ch))
    return f"U+{ord(ch):04X} {name}"


_CONTAINERS = (list, tuple, dict, set, frozenset)
_BLANKS = re.compile(r"[ \t]+")
_INVISIBLE_CATEGORIES = {"Zs", "Zl", "Zp", "Cc", "Cf", "Mn", "Me"}


def _is_invisible(ch: str) -> bool:
    return ch != " " and (unicodedata.category(ch) in _INVISIBLE_CATEGORIES or ch.isspace())


_TYPE_WORDS = {
    list: "a list", tuple: "a tuple", dict: "a dict", set: "a set", frozenset: "a frozenset", str: "a string",
    bytes: "bytes", int: "an int", float: "a float", complex: "a complex number", bool: "a bool", type(None): "None",
}


def _type_word(value: Any) -> str:
    if isinstance(value, Opaque):
        return f"a {value.type_name} object"
    return _TYPE_WORDS.get(type(value), f"a {type(value).__name__}")


def diff(expected: Any, actual: Any, budget: Budget = DEFAULT_BUDGET) -> Diff:
    """Explain how `actual` differs from `expected`. Never raises."""
    walker = _Walker(budget)
    try:
        walker.compare(expected, actual, "", 0, top=True)
    except RecursionError:
        walker.add(Difference("", "depth", "the values are nested too deeply to compare further"))
    hint = None
    if actual is None and expected is not None:
        hint = "solve returned None. Is a `return` missing, or does a branch fall off the end?"
    elif isinstance(actual, Opaque) and actual.type_name == "generator":
        hint = "solve returned a generator: wrap it in list(...) or tuple(...), or use a list comprehension."
    return Diff(tuple(walker.kept), walker.omitted, hint, budget)


class _Walker:
    """One comparer per type; recurses and labels the path to each differing child."""

    def __init__(self, budget: Budget) -> None:
        self.budget = budget
        self.kept: list[Difference] = []
        self.omitted = 0

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
            if exp.plain is not None and act.plain is not None:
                self.compare(exp.plain, act.plain, path, depth + 1)
            else:
                self.add(Difference(path, "value", f"expected {exp.repr}, got {act.repr}", self.r(exp), self.r(act)))
        else:
            self.add(Difference(path, "value", f"expected {self.r(exp)}, got {self.r(act)}", self.r(exp), self.r(act)))

    # -- types -----------------------------------------------------------------

    def _different_types(self, exp: Any, act: Any, path: str, depth: int) -> None:
        e, a = self.r(exp), self.r(act)
        if act is None:
            self.add(Difference(path, "none", f"expected {_type_word(exp)}, got None", e, a))
            return
        if exp is None:
            self.add(Difference(path, "none", f"expected None, got {_type_word(act)}", e, a))
            return
        if isinstance(act, Opaque):
            message = f"expected {_type_word(exp)}, got {_type_word(act)}"
            if act.plain is not None and type(act.plain) is type(exp):
                message += f" (a subclass of {type(exp).__name__}; the harness compares it as one)"
            self.add(Difference(path, "opaque", message, e, a))
            return
        sequences = (list, tuple)
        equal_anyway = _same(exp, act, False)
        if type(exp) in sequences and type(act) in sequences:
            same_items = list(exp) == list(act)
            note = (
                ": the items are the same, but a tuple never equals a list, so == fails"
                if same_items
                else " (and a tuple never equals a list, even with the same items)"
            )
            self.add(Difference(path, "type", f"expected {_type_word(exp)}, got {_type_word(act)}{note}", e, a))
            if not same_items:
                self._sequence(list(exp), list(act), path, depth)
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
        message = f"bytes differ at index {index}"
        if len(exp) != len(act):
            message += f" (expected {len(exp)} bytes, got {len(act)})"
        self.add(Difference(path, "value", message, self.r(exp), self.r(act)))

    # -- text --------------------------------------------------------------------

    def _text(self, exp: str, act: str, path: str) -> None:
        budget = self.budget
        detail = _text_detail(exp, act, budget)
        reasons = _invisible_reasons(exp, act, detail.index, budget)
        at = f"at index {detail.index}"
        if detail.index >= min(len(exp), len(act)):
            longer, shorter = ("got", "expected") if len(act) > len(exp) else ("expected", "got")
            base = f"{shorter} stops {at} where {longer} goes on ({len(exp)} vs {len(act)} characters)"
        else:
            base = f"first difference {at}: expected {_show_char(exp[detail.index])}, got {_show_char(act[detail.index])}"
        kind = "invisible" if reasons else "text"
        message = base + ("; " + "; ".join(reasons) if reasons else "")
        self.add(Difference(path, kind, message, self.r(exp), self.r(act), detail))

    # -- containers --------------------------------------------------------------

    def _sequence(self, exp: list | tuple, act: list | tuple, path: str, depth: int) -> None:
        budget = self.budget
        if len(exp) != len(act):
            self.add(
                Difference(path, "length", f"expected {len(exp)} items, got {len(act)}", self.r(exp), self.r(act))
            )
            if max(len(exp), len(act)) <= budget.align_items and self._align(exp, act, path, depth):
                return
        common = min(len(exp), len(act))
        compared = min(common, budget.max_items)
        for i in range(compared):
            e, a = exp[i], act[i]
            if type(e) is type(a) and _same(e, a, False) and (type(e) not in _CONTAINERS or _same_types_inside(e, a, budget.max_items)):
                continue
            if len(self.kept) >= budget.max_differences:
                self.omitted += 1
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
                for i, j in zip(range(e1, e2), range(a1, a2)):
                    if not _same_types_inside(exp[i], act[j], self.budget.max_items):
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


def _common_suffix(a: str, b: str, limit: int) -> int:
    n = min(len(a), len(b), limit)
    i = 0
    while i < n and a[-1 - i] == b[-1 - i]:
        i += 1
    return i


def _show_char(ch: str) -> str:
    if _is_invisible(ch):
        return describe_char(ch)
    return repr(ch)


def _text_detail(exp: str, act: str, budget: Budget) -> TextDetail:
    index = _common_prefix(exp, act)
    start = max(0, index - budget.text_context)
    span = 2 * budget.text_context
    suffix = _common_suffix(exp[index:], act[index:], span * 4)
    e_end = min(len(exp) - suffix, index + span * 4)
    a_end = min(len(act) - suffix, index + span * 4)
    e_mid, a_mid = exp[index:e_end], act[index:a_end]
    e_segments: list[Segment] = [Segment(exp[start:index], "equal")] if index > start else []
    a_segments: list[Segment] = list(e_segments)
    matcher = difflib.SequenceMatcher(None, e_mid, a_mid, autojunk=False)
    for op, e1, e2, a1, a2 in matcher.get_opcodes():
        if op == "equal":
            e_segments.append(Segment(e_mid[e1:e2], "equal"))
            a_segments.append(Segment(a_mid[a1:a2], "equal"))
        else:
            if e2 > e1:
                e_segments.append(Segment(e_mid[e1:e2], "changed"))
            if a2 > a1:
                a_segments.append(Segment(a_mid[a1:a2], "changed"))
    tail_e = exp[e_end : e_end + budget.text_context]
    tail_a = act[a_end : a_end + budget.text_context]
    if tail_e:
        e_segments.append(Segment(tail_e, "equal"))
    if tail_a:
        a_segments.append(Segment(tail_a, "equal"))
    return TextDetail(
        index=index,
        expected_length=len(exp),
        actual_length=len(act),
        window_start=start,
        expected=tuple(_clip_segments(e_segments, span * 3)),
        actual=tuple(_clip_segments(a_segments, span * 3)),
        expected_clipped=max(0, len(exp) - e_end - len(tail_e)),
        actual_clipped=max(0, len(act) - a_end - len(tail_a)),
    )


def _clip_segments(segments: list[Segment], limit: int) -> list[Segment]:
    out, used = [], 0
    for seg in segments:
        if used >= limit:
            break
        text = seg.text[: limit - used]
        out.append(Segment(text, seg.op))
        used += len(text)
    return out


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
        e_ch = exp[index : index + 2]
        a_ch = act[index : index + 2]
        reasons.append(
            "the same text after Unicode normalization (NFC): expected has "
            + " + ".join(describe_char(c) for c in e_ch)
            + ", got "
            + " + ".join(describe_char(c) for c in a_ch)
        )
    elif small and exp.lower() == act.lower():
        reasons.append("only letter case differs")
    near = set(exp[index : index + 8]) | set(act[index : index + 8])
    invisible = sorted(ch for ch in near if _is_invisible(ch) and ch not in "\n")
    named = [describe_char(ch) for ch in invisible if not (ch == "\t" and any("tab" in r for r in reasons))]
    if named and not any("normalization" in r for r in reasons):
        reasons.append("invisible character" + ("s" if len(named) > 1 else "") + " near the difference: " + ", ".join(named))
    return reasons
