"""The diff's claims in words: one renderer per claim kind per output (text, HTML), in a registry.

The walk states claims (`_claims`) and keeps the details a renderer draws (text and
line edits); every sentence about a difference is made here, from the claim and its
values. The widget panel shows the HTML output. A caller may rely on
`difference_text(d)` being what ``d.message`` and ``str(d)`` give, and on
`claim_html` escaping everything it is given.
"""

from __future__ import annotations

import math
from html import escape
from typing import Any, Callable

from .._claims import Count, Differs, Extra, Length, Missing, OwnEquality, Pattern, Reordered, TypeDiffers
from .._diff_model import Difference
from .._diff_text import _byte, _common_prefix, _invisible_reasons, _items, describe_lines, describe_text
from .._diff_walk import _article, type_word
from .._values import Opaque, safe_repr

__all__ = ["HTML", "TEXT", "claim_html", "claim_text", "count_text", "difference_html", "difference_text", "left_out", "says_total", "type_words", "whole_claims"]

_NAMED_TYPES = {
    "list": "a list", "tuple": "a tuple", "dict": "a dict", "set": "a set", "frozenset": "a frozenset", "str": "a string",
    "bytes": "bytes", "int": "an int", "float": "a float", "complex": "a complex number", "bool": "a bool", "NoneType": "None",
}


def type_words(name: str) -> str:
    """A type's name as `TypeDiffers` holds it, in words: ``a list``, ``an NT1 object``."""
    return _NAMED_TYPES.get(name) or f"{_article(name)} object"


def _r(d: Difference, value: Any) -> str:
    return safe_repr(value, d.budget.max_repr, keep_end=True)


def _scalar(value: Any) -> bool:
    return type(value) in (bool, int, float, complex) or (type(value) in (str, bytes) and len(value) <= 40)


# ------------------------------------------------------------------ Differs


def _number(e: Any, a: Any, d: Difference) -> str:
    es, as_ = d.expected or _r(d, e), d.actual or _r(d, a)
    if isinstance(e, float) and isinstance(a, float):
        if math.isnan(e) and math.isnan(a):
            return "both are NaN, and NaN never equals anything, not even NaN"
        if math.isnan(e) or math.isnan(a):
            return f"expected {es}, got {as_}: NaN never equals a number"
    if isinstance(e, float) and not (math.isinf(e) or math.isinf(a)):
        gap = a - e
        if e != 0 and math.isclose(e, a, rel_tol=1e-3):
            sign = " (note the sign of zero)" if a == 0 and math.copysign(1, a) < 0 else ""
            return (f"close but not equal: expected {es}, got {as_} (off by {gap:.3g}, {abs(gap / e):.2g} relative); "
                    f"== needs exact equality: rounding, float precision, or order of operations?{sign}")
        if e == 0 and a != 0 and abs(a) < 1e-9:
            return f"expected {es}, got {as_}: a tiny rounding error, but == needs exactly 0"
    return f"expected {es}, got {as_}"


def _bytes(e: bytes, a: bytes, d: Difference) -> str:
    index = _common_prefix(e, a)
    if index == min(len(e), len(a)):  # one is the other plus more bytes at the end
        rest = a[index:] if len(a) > len(e) else e[index:]
        what = f"{len(rest):,} bytes {_r(d, rest)}" if len(rest) > 1 else f"the byte {_byte(rest[0])}"
        if len(a) > len(e):
            return f"got has {'an extra byte ' + _byte(rest[0]) if len(rest) == 1 else what.replace('bytes', 'extra bytes', 1)} at index {index}"
        return f"got is missing {what} at index {index}"
    message = f"at index {index}, expected the byte {_byte(e[index])} but got {_byte(a[index])}"
    if len(e) != len(a):
        return message + f" (expected {len(e):,} bytes, got {len(a):,})"
    if len(e) <= d.budget.text_analysis:
        count = sum(1 for x, y in zip(e, a) if x != y)
        if count > 1:
            message += f"; {count:,} bytes differ in all"
    return message


def _text(e: str, a: str, d: Difference) -> str:
    if d.lines is not None:
        message = describe_lines(d.lines)
        if e.endswith("\n") != a.endswith("\n"):
            message += f"; {'got' if a.endswith(chr(10)) else 'expected'} ends with a line break, the other does not"
        return message
    if d.text is None:  # a short plain string inside a container: one value to a learner
        return f"expected {e!r}, got {a!r}"
    reasons = _invisible_reasons(e, a, _common_prefix(e, a), d.budget)
    message = describe_text(d.text)
    return message + ("; " + "; ".join(reasons) if reasons else "")


def _different_types(e: Any, a: Any, d: Difference) -> str:
    es, as_ = d.expected or _r(d, e), d.actual or _r(d, a)
    numbers = (bool, int, float, complex)
    if isinstance(e, numbers) and isinstance(a, numbers):  # == ignores these types: only the values differ
        return f"expected {type_word(e)} {es}, got {type_word(a)} {as_}"
    if isinstance(e, str) and isinstance(a, (int, float)) or isinstance(a, str) and isinstance(e, (int, float)):
        looks = " that prints the same" if str(e) == str(a) else ""
        return f"expected {type_word(e)}, got {type_word(a)}{looks}: {es} vs {as_}"
    values = f": expected {es}, got {as_}" if _scalar(e) and _scalar(a) and not (isinstance(e, Opaque) or isinstance(a, Opaque)) else ""
    return f"expected {type_word(e)}, got {type_word(a)}{values}"


def _differs_text(c: Differs, d: Difference) -> str:
    e, a = c.expected, c.got
    if d.kind == "depth":
        return f"nested deeper than {d.budget.max_depth} levels; not compared further" if c.path else "the values are nested too deeply to compare further"
    if d.kind == "eq":
        return f"== finds them different: expected {d.expected}, got {d.actual}"
    if e is None or a is None:
        other = e if a is None else a
        word = type_word(other) + (f" {_r(d, other)}" if _scalar(other) else "")
        return f"expected {word}, got None" if a is None else f"expected None, got {word}"
    if d.kind == "order":  # two mappings with the same items, keys in another order
        ordered = e.type_name == a.type_name == "collections.OrderedDict"
        why = ": an OrderedDict compares the order of its keys too" if ordered else ""
        return f"the same keys and values in a different order{why}; expected keys {_r(d, list(e.plain))}, got {_r(d, list(a.plain))}"
    if type(e) is not type(a):
        return _different_types(e, a, d)
    if type(e) is str:
        return _text(e, a, d)
    if type(e) is bytes:
        return _bytes(e, a, d)
    if type(e) in (float, complex):
        return _number(e, a, d)
    if type(e) is Opaque:
        return f"expected {e.repr}, got {a.repr}"
    return f"expected {d.expected or _r(d, e)}, got {d.actual or _r(d, a)}"


# ------------------------------------------------------------ the others


def _where(c: Any) -> tuple[str, Any]:
    step = c.path[-1] if c.path else ("index", None)
    return step[0], step[1]


def _missing_text(c: Missing, d: Difference) -> str:
    step, where = _where(c)
    shown = d.expected or _r(d, c.expected)
    if step == "attr":
        return f"missing field {where} (expected value {shown})"
    if step == "key":
        return f"missing key {_r(d, where)} (expected value {shown})"
    if step == "member":
        return f"missing member {shown}"
    return f"missing item: expected {shown}"


def _extra_text(c: Extra, d: Difference) -> str:
    step, where = _where(c)
    shown = d.actual or _r(d, c.got)
    if step == "attr":
        return f"extra field {where} (got value {shown})"
    if step == "key":
        return f"extra key {_r(d, where)} (got value {shown})"
    if step == "member":
        return f"extra member {shown}"
    return f"extra item: got {shown}"


def _type_text(c: TypeDiffers, d: Difference) -> str:
    message = f"expected {type_words(c.expected_type)}, got {type_words(c.got_type)}"
    if c.items_equal is True:
        return message + ": the items are the same, but a tuple never equals a list, so == fails"
    if c.items_equal is False:
        return message + " (and a tuple never equals a list, even with the same items)"
    return message


def _length_text(c: Length, d: Difference) -> str:
    return f"expected {_items(c.expected)}, got {c.got}"


def _reordered_text(c: Reordered, d: Difference) -> str:
    return f"the same items in a different order: expected {d.expected}, got {d.actual}"


def _own_eq_text(c: OwnEquality, d: Difference) -> str:
    return f"{c.type_name} defines its own ==, and its fields may not be what it compares: expected {d.expected}, got {d.actual}"


def count_text(c: Count, total: int | None = None) -> str:
    """A count of what the diff left out; `total`, when given, is every difference found, said once."""
    if c.what == "differences":
        more = f"… and {c.n:,} more difference{'s' if c.n != 1 else ''}"
        return more + (f" ({total:,} in all)" if total is not None else "")
    if c.what == "not_compared":
        return f"{c.n:,} more items not compared (budget of the diff)"
    return f"… and {c.n:,} more item{'s' if c.n != 1 else ''} that differ{'s' if c.n == 1 else ''}, not looked into"


def whole_claims(result: Any) -> tuple[list, list]:
    """The claims about the diff as a whole, apart from those of its differences: (patterns, counts)."""
    own = {id(d.claim) for d in result.differences}
    rest = [c for c in result.claims if id(c) not in own]
    return [c for c in rest if isinstance(c, Pattern)], [c for c in rest if isinstance(c, Count)]


def left_out(result: Any, counts: list) -> list[str]:
    """The diff's counts of what it left out, each once; the count of differences with the total it adds up to
    (the differences listed, and these)."""
    listed = len(result.differences)
    return [count_text(c, listed + c.n if c.what == "differences" and listed else None) for c in counts]


def says_total(result: Any) -> bool:
    """Whether `left_out` says the diff's total of differences ("… and 2 more differences (14 in all)"): then a
    picture beside it says no count of its own, in cells or positions, that would not add up with it."""
    return bool(result.differences) and any(isinstance(c, Count) and c.what == "differences" for c in result.claims)


def _count_text(c: Count, d: Difference | None) -> str:
    if d is not None:  # a container's items past the budget, where the walk stopped
        return f"{c.n:,} more items not compared (budget of {d.budget.max_items:,})"
    return count_text(c)


def _pattern_text(c: Pattern, d: Difference | None) -> str:
    from .._patterns import sentence  # only a failing check has a pattern to say

    return sentence(c)


TEXT: dict[type, Callable[[Any, Any], str]] = {
    Differs: _differs_text, Missing: _missing_text, Extra: _extra_text, TypeDiffers: _type_text, Length: _length_text,
    Reordered: _reordered_text, OwnEquality: _own_eq_text, Count: _count_text, Pattern: _pattern_text,
}
"""Claim kind → its text renderer, called with the claim and the difference that carries it (None for a claim
about the whole diff)."""


def _escaped(render: Callable[[Any, Any], str]) -> Callable[[Any, Any], str]:
    return lambda claim, d: escape(render(claim, d), quote=True)


def _pattern_html(c: Pattern, d: Difference | None) -> str:
    from .._patterns import sentence

    return f'<p class="fm-pattern">pattern: {escape(sentence(c), quote=True)}</p>'


def _count_html(c: Count, d: Difference | None) -> str:
    return f"<li>{escape(_count_text(c, d), quote=True)}</li>" if d is None else escape(_count_text(c, d), quote=True)


HTML: dict[type, Callable[[Any, Any], str]] = {
    **{kind: _escaped(render) for kind, render in TEXT.items()}, Pattern: _pattern_html, Count: _count_html,
}
"""Claim kind → its HTML renderer (escaped; a pattern is its own paragraph, a count of the whole diff a list item)."""


def claim_text(claim: Any, d: Difference | None = None) -> str:
    return TEXT[type(claim)](claim, d)


def claim_html(claim: Any, d: Difference | None = None) -> str:
    return HTML[type(claim)](claim, d)


def difference_text(d: Difference) -> str:
    """One difference in words, from its claim (a difference without a claim has its note)."""
    return TEXT[type(d.claim)](d.claim, d) if d.claim is not None else d.note


def difference_html(d: Difference) -> str:
    return HTML[type(d.claim)](d.claim, d) if d.claim is not None else escape(d.note, quote=True)
