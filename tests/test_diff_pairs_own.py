"""Comparison pairs of the project's own, in the categories of pytest's comparison tests (issue 33).

Each pair is diffed twice: by the public `fm.diff` on the raw values and by the panel's
path (the worker's `portable` view, then the diff). Both must say the same, every claim
must verify on the values, and the generic checks of `test_diff_pairs` must hold: 0 false
and 0 misleading statements.
"""

from __future__ import annotations

import collections
import dataclasses
from typing import Any, NamedTuple

import pytest

import failuremap_edu as fm
from failuremap_edu import _patterns
from failuremap_edu._claims import Count, OwnEquality, Pattern, TypeDiffers, verify
from failuremap_edu._diff import diff
from failuremap_edu._portable import portable
from test_diff_pairs import check_diff


@dataclasses.dataclass
class Box:
    width: float
    height: float
    label: str = ""


@dataclasses.dataclass
class Shelf:
    name: str
    boxes: list


@dataclasses.dataclass
class Keyed:
    key: int
    cache: dict

    def __eq__(self, other):
        return isinstance(other, Keyed) and self.key == other.key

    __hash__ = None


class Token(NamedTuple):
    text: str
    start: int


class Slot(NamedTuple):
    word: str
    at: int


class Label(str):
    pass


def _ring(value):
    ring = [value]
    ring.append(ring)
    return ring


PAIRS: list[tuple[str, Any, Any]] = [
    # text
    ("text a typo", "receive", "recieve"),
    ("text trailing space", "done", "done "),
    ("text no-break space", "a b", "a\u00a0b"),
    ("text combining accent", "café", "cafe\u0301"),
    ("text one-script words", "東京", "大阪"),
    ("text case only", "Hello", "hello"),
    ("lines one changed", "a\nb\nc\n", "a\nB\nc\n"),
    ("lines one missing", "one\ntwo\nthree", "one\nthree"),
    ("text str subclass", "spam", Label("eggs")),
    # lists, tuples
    ("list one item", [1, 2, 3], [1, 2, 4]),
    ("list longer", [1, 2], [1, 2, 3]),
    ("list bools for ints", [1, 0, 1], [True, False, False]),
    ("list shifted", [5, 8, 13, 21], [0, 5, 8, 13]),
    ("list doubled", [1.5, 2.0, 4.0], [3.0, 4.0, 8.0]),
    ("list reordered", ["a", "b", "c"], ["c", "a", "b"]),
    ("tuple against list", (1, 2), [1, 2]),
    ("tuple one item", ("a", 1), ("a", 2)),
    # dicts, mappings
    ("dict one value", {"p": 0.5, "r": 0.25}, {"p": 0.5, "r": 0.2}),
    ("dict swapped", {"p": 0.5, "r": 0.25}, {"p": 0.25, "r": 0.5}),
    ("dict missing key", {"a": 1, "b": 2}, {"a": 1}),
    ("dict int keys for bools", {1: "x", 0: "y"}, {True: "x", False: "z"}),
    ("mapping counter", collections.Counter("aab"), collections.Counter("abb")),
    ("mapping chainmap", collections.ChainMap({"a": 1}, {"b": 2}), collections.ChainMap({"a": 1}, {"b": 3})),
    ("mapping ordered against dict", collections.OrderedDict(a=1), {"a": 2}),
    # sets
    ("set one member", {"x", "y"}, {"x", "z"}),
    ("set ints against floats", {1, 2}, {1.0, 3.0}),
    # nested
    ("nested grid transposed", [[1, 2], [3, 4], [5, 6]], [[1, 3, 5], [2, 4, 6]]),
    ("nested grid diagonal", [[1, 0], [0, 1]], [[0, 0], [0, 0]]),
    ("nested rows of tuples", [(0, 1), (2, 3)], [[0, 1], [2, 3]]),
    ("nested dict of lists", {"a": [1, [2, 3]]}, {"a": [1, [2, 4]]}),
    ("nested cycle", _ring(1), _ring(2)),
    # dataclasses, named tuples, own ==
    ("dataclass one field", Box(1.0, 2.0), Box(1.0, 2.5)),
    ("dataclass nested list", Shelf("s", [Box(1, 1)]), Shelf("s", [Box(1, 2)])),
    ("dataclass own eq", Keyed(1, {}), Keyed(2, {})),
    ("named tuple field", Token("a", 0), Token("a", 1)),
    ("named tuple of another class", Token("a", 0), Slot("a", 1)),
    ("named tuple against tuple", Token("a", 0), ("a", 2)),
    ("named tuple against list", Token("a", 0), ["a", 0]),
    # long, bytes, numbers
    ("long list one deleted", list(range(800)), list(range(400)) + list(range(401, 800))),
    ("long list one inserted", list(range(800)), list(range(300)) + [-1] + list(range(300, 800))),
    ("long list many changed", list(range(500)), [x * 2 for x in range(500)]),
    ("bytes one byte", b"\x00\x01", b"\x00\x02"),
    ("float near miss", 0.3, 0.1 + 0.2),
    ("float nan", [float("nan")], [0.0]),
    ("int against float", 1, 1.5),
    ("none against float", None, 1.0),
    ("deque one item", collections.deque([1, 2]), collections.deque([1, 3])),
]


def _said(result) -> list:
    return [(d.path, d.kind, d.message) for d in result.differences]


@pytest.mark.parametrize("name, expected, actual", PAIRS, ids=[p[0] for p in PAIRS])
def test_no_statement_is_false_or_misleading_on_either_path(name, expected, actual):
    assert expected != actual, "a pair of values == finds different"
    public = fm.diff(expected, actual)
    exp, act = portable(expected), portable(actual)
    panel = diff(exp, act)
    assert _said(public) == _said(panel) and public.pattern == panel.pattern, "the public diff and the panel's disagree"
    check_diff(expected, actual, panel, exp, act)
    assert not public.equal and public.differences
    for claim in public.claims:
        if isinstance(claim, Pattern):
            assert _patterns.verify(claim, exp, act), claim
        elif not isinstance(claim, Count):
            assert verify(claim, exp, act), claim
    if any(isinstance(c, OwnEquality) for c in public.claims):  # a class's own ==: no field is blamed
        assert not any(d.path.startswith(".") for d in public.differences)
    for d in public.differences:  # misleading: a type said where == ignores it, or "the same" of values that differ
        if isinstance(d.claim, TypeDiffers):
            assert {d.claim.expected_type, d.claim.got_type} - {"bool", "int", "float"}, d.message


def test_the_pairs_cover_pytests_categories():
    words = " ".join(name for name, _, _ in PAIRS)
    for category in ("text", "lines", "list", "tuple", "dict", "mapping", "set", "nested", "dataclass", "named tuple",
                     "long", "bytes", "float", "int", "own eq", "cycle"):
        assert category in words, category
