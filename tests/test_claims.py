"""The diff's claims, held against their verifiers: on generated values (hypothesis) and on the cases of issue 33 §3.

Every claim the diff makes verifies on the two values (in the portable view it
compares); the differences are complete (replayed on expected they give got, within
the budget; past it, the counts say how many are left); the public `fm.diff` says what
the panel's path says, and never names a type that ``==`` ignores.
"""

from __future__ import annotations

import collections
import re
import dataclasses
from typing import NamedTuple

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import failuremap_edu as fm
from failuremap_edu import _patterns
from failuremap_edu._claims import (
    Count, Differs, Extra, Length, Missing, OwnEquality, Pattern, Reordered, TypeDiffers, apply, equal, explains, path_name, verify,
)
from failuremap_edu._diff import Budget, diff, type_word
from failuremap_edu._values import Opaque, safe_repr
from failuremap_edu._portable import portable

# ----------------------------------------------------------------- the values


@dataclasses.dataclass
class Point:
    x: object
    y: object


class Span(NamedTuple):
    start: object
    end: object


class Other(NamedTuple):
    left: object
    right: object


@dataclasses.dataclass
class Tagged:
    """Compares only `key`: its own ==, not the generated one."""

    key: int
    note: str

    def __eq__(self, other):
        return isinstance(other, Tagged) and self.key == other.key

    __hash__ = None


@dataclasses.dataclass(eq=False)
class ByIdentity:
    value: int


class Word(str):
    """A str subclass with its own repr: == compares it as a str."""

    def __repr__(self):
        return f"Word({str(self)!r})"


floats = st.floats(allow_nan=True, allow_infinity=True) | st.sampled_from([0.0, -0.0, float("nan"), 1.0, 0.1 + 0.2])
texts = st.text(alphabet=st.sampled_from("ab \t\n\u00a0é\u0301한국ﬁ"), max_size=12)
scalars = st.none() | st.booleans() | st.integers(-5, 5) | floats | texts | st.binary(max_size=6)
hashables = st.integers(-5, 5) | st.text(alphabet="abc", max_size=3)


def _grammar(children):
    return (
        st.lists(children, max_size=5)
        | st.lists(children, max_size=4).map(tuple)
        | st.dictionaries(hashables, children, max_size=4)
        | st.sets(hashables, max_size=5)
        | st.frozensets(hashables, max_size=4)
        | st.builds(Point, children, children)
        | st.builds(Span, children, children)
    )


values = st.recursive(scalars, _grammar, max_leaves=12)


@st.composite
def pairs(draw):
    """Two values: unrelated, or one and a few edits of it (the usual case: a mistake changes a little)."""
    e = draw(values)
    if draw(st.booleans()):
        return e, draw(values)
    return e, draw(_edited(e))


@st.composite
def _edited(draw, value, depth=0):
    if type(value) in (list, tuple) and value and depth < 4:
        items = list(value)
        i = draw(st.integers(0, len(items) - 1))
        choice = draw(st.sampled_from(["change", "delete", "insert", "deep"]))
        if choice == "change":
            items[i] = draw(values)
        elif choice == "delete":
            del items[i]
        elif choice == "insert":
            items.insert(i, draw(scalars))
        else:
            items[i] = draw(_edited(items[i], depth + 1))
        return items if type(value) is list else tuple(items)
    if type(value) is dict and value and depth < 4:
        changed = dict(value)
        key = draw(st.sampled_from(sorted(changed, key=repr)))
        changed[key] = draw(_edited(changed[key], depth + 1))
        return changed
    return draw(values)


@st.composite
def long_lists(draw):
    """A long list of ints and a copy with a few insertions, deletions or changes (past the alignment budget)."""
    n = draw(st.integers(300, 1_200))
    e = list(range(n))
    a = list(e)
    for _ in range(draw(st.integers(1, 3))):
        i = draw(st.integers(0, len(a) - 1))
        what = draw(st.sampled_from(["delete", "insert", "change"]))
        if what == "delete":
            del a[i]
        elif what == "insert":
            a.insert(i, -1)
        else:
            a[i] = -2
    return e, a


# -------------------------------------------------------------- properties


def _check_claims(e, a, result) -> None:
    pe, pa = portable(e), portable(a)
    for d in result.differences:  # the name printed is the verified path's, on each side it names
        if hasattr(d.claim, "path"):
            assert d.path == path_name(d.claim, lambda k: safe_repr(k, d.budget.max_repr, keep_end=True)), d
    for claim in result.claims:
        if isinstance(claim, Pattern):
            assert _patterns.verify(claim, pe, pa), claim
        elif isinstance(claim, Count):
            assert claim.n > 0
        else:
            assert verify(claim, pe, pa), claim
    assert result.equal == equal(pe, pa)


def _check_complete(e, a, result) -> None:
    pe, pa = portable(e), portable(a)
    if any(isinstance(c, Count) for c in result.claims):
        return
    if any(isinstance(c, TypeDiffers) and c.got_type not in ("list", "tuple") for c in result.claims):
        return  # replaying cannot build another class (a named tuple, a dataclass) from a type's name
    assert _same_values(apply(pe, result.claims), pa), result.claims


def _same_values(x, y) -> bool:
    """`equal`, except that a NaN where the other side has a NaN counts as the same (replaying a NaN gives a NaN)."""
    if type(x) is float and type(y) is float and x != x and y != y:
        return True
    if type(x) in (list, tuple) and type(y) is type(x):
        return len(x) == len(y) and all(_same_values(i, j) for i, j in zip(x, y))
    if type(x) is dict and type(y) is dict:
        return x.keys() == y.keys() and all(_same_values(v, y[k]) for k, v in x.items())
    return equal(x, y)


def _check_counts(e, a, result) -> None:
    """Past the budget, what is left is counted exactly: the kept and the counted add up to every difference."""
    if result.omitted_items:
        return  # items not looked into are counted as items, not as differences
    everything = diff(e, a, Budget(max_differences=10**6))
    assert len(result.differences) + result.omitted == len(everything.differences)
    counts = {c.what: c.n for c in result.claims if isinstance(c, Count)}
    assert counts.get("differences", 0) == result.omitted


FAST = settings(max_examples=150, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
SLOW = settings(max_examples=2_000, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FAST
@given(pairs())
def test_every_claim_verifies_and_the_differences_are_complete(pair):
    e, a = pair
    result = fm.diff(e, a)
    _check_claims(e, a, result)
    _check_complete(e, a, result)


@st.composite
def cyclic_pairs(draw):
    """Two values that hold themselves (a list or a dict that contains itself), one an edit of the other."""
    e, a = draw(st.lists(values, max_size=4)), None
    a = draw(_edited(e)) if e and draw(st.booleans()) else draw(st.lists(values, max_size=4))
    a = list(a)
    if draw(st.booleans()):
        e, a = {"items": e}, {"items": a}
        e["self"], a["self"] = e, a
    else:
        e.append(e)
        a.append(a)
    return e, a


@FAST
@given(cyclic_pairs())
def test_claims_about_values_that_hold_themselves_verify_and_are_counted(pair):
    e, a = pair
    result = fm.diff(e, a)
    if any(d.kind == "eq" for d in result.differences):
        return  # == itself recursed without end: only that is said, and no view can replay it
    _check_claims(e, a, result)
    _check_counts(e, a, diff(e, a, Budget(max_differences=1)))
    placed = [c for c in result.claims if hasattr(c, "path")]  # a Count has no place of its own
    assert len({(c.path, type(c)) for c in placed}) == len(placed)  # each said once


@FAST
@given(pairs())
def test_every_count_is_the_verifiers_count(pair):
    e, a = pair
    small = Budget(max_differences=2)
    _check_counts(e, a, diff(e, a, small))


_NAN = float("nan")


@pytest.mark.parametrize(
    "e, a",
    [(_NAN, _NAN), (float("nan"), float("nan")), ([_NAN], [_NAN]), ([float("nan")], [float("nan")]), ({"k": _NAN}, {"k": 1.0}),
     (Point(_NAN, 1), Point(_NAN, 2))],
    ids=["one-nan-object", "two-nans", "one-nan-in-lists", "two-nans-in-lists", "nan-in-a-dict", "one-nan-object-in-fields"],
)
def test_claims_about_nan_verify_as_the_harness_compares(e, a):
    """`==` says a NaN differs from itself at the top, and a list holding the same NaN object equals itself."""
    result = fm.diff(e, a)
    assert bool(result.differences) == (not e == a)
    _check_claims(e, a, result)
    _check_complete(e, a, result)
    _check_counts(e, a, diff(e, a, Budget(max_differences=1)))


@settings(max_examples=40, deadline=None, derandomize=True)
@given(long_lists())
def test_long_lists_with_a_few_edits_are_complete_and_counted(pair):
    e, a = pair
    result = fm.diff(e, a)
    _check_claims(e, a, result)
    _check_complete(e, a, result)
    _check_counts(e, a, result)


@pytest.mark.slow
@SLOW
@given(pairs())
def test_every_claim_verifies_on_many_values(pair):
    e, a = pair
    result = fm.diff(e, a)
    _check_claims(e, a, result)
    _check_complete(e, a, result)
    _check_counts(e, a, diff(e, a, Budget(max_differences=2)))


# ------------------------------------------- section 3: the public diff is the panel's


def _said(result) -> list:
    return [(d.path, d.kind) for d in result.differences]


@pytest.mark.parametrize(
    "expected, actual",
    [
        pytest.param(Point(1, 2), Point(1, 3), id="dataclass"),
        pytest.param(Span(1, 2), Span(1, 3), id="named tuple"),
        pytest.param(collections.OrderedDict(a=1, b=2), collections.OrderedDict(a=1, b=3), id="OrderedDict"),
        pytest.param(collections.defaultdict(int, a=1), collections.defaultdict(int, a=2), id="defaultdict"),
        pytest.param(collections.Counter(a=1), collections.Counter(a=2), id="Counter"),
        pytest.param(collections.ChainMap({"a": 1}), collections.ChainMap({"a": 2}), id="ChainMap"),
        pytest.param({"a": 1, "b": 2}.keys(), {"a": 1, "c": 2}.keys(), id="keys view"),
        pytest.param({"a": 1}.items(), {"a": 2}.items(), id="items view"),
    ],
)
def test_the_public_diff_looks_inside_as_the_panels_path_does(expected, actual):
    public = fm.diff(expected, actual)
    panel = diff(portable(expected), portable(actual))
    assert _said(public) == _said(panel) and public.differences
    assert all(d.kind not in ("value", "type", "opaque") or d.path for d in public.differences), public.differences


def test_attrs_classes_are_compared_by_field_and_named_with_the_right_article():
    attrs = pytest.importorskip("attrs")

    @attrs.define
    class AttrsOne:
        w: int

    @attrs.define
    class AttrsTwo:
        w: int

    assert _said(fm.diff(AttrsOne(1), AttrsOne(2))) == [(".w", "value")]
    assert type_word(Opaque("AttrsTwo", "AttrsTwo(w=1)", "not a plain value")) == "an AttrsTwo object"
    assert type_word(Opaque("NT1", "NT1()", "not a plain value")) == "an NT1 object"
    claims = fm.diff(AttrsOne(1), AttrsTwo(1)).claims
    assert [type(c) for c in claims] == [TypeDiffers]


def test_recursive_containers_report_one_difference_once():
    a, b = [1], [2]
    a.append(a)
    b.append(b)
    result = fm.diff(a, b)
    assert _said(result) == [("[0]", "value")] and result.omitted == 0
    d1, d2 = {"x": 1}, {"x": 2}
    d1["self"], d2["self"] = d1, d2
    assert _said(fm.diff(d1, d2)) == [("['x']", "value")]


@pytest.mark.parametrize(
    "expected, actual",
    [
        pytest.param("spam", Word("spam"), id="str subclass, equal value"),
        pytest.param(Span(1, 2), Other(1, 2), id="NT1 against NT2"),
        pytest.param((1, 2), Span(1, 2), id="tuple against named tuple"),
        pytest.param([1, 2.0], [True, 2], id="numbers of other types"),
        pytest.param({1, 2}, frozenset({1.0, 2}), id="set against frozenset"),
    ],
)
def test_values_that_eq_finds_equal_have_no_difference(expected, actual):
    assert expected == actual and fm.diff(expected, actual).equal


def test_no_type_is_named_that_eq_ignores():
    result = fm.diff([True, 2], [1, 3])
    assert result.claims == (Differs((("index", 1),), 2, 3),)
    assert not any(isinstance(c, TypeDiffers) for c in fm.diff(Word("spam"), "eggs").claims)
    assert not any(isinstance(c, TypeDiffers) for c in fm.diff((1, 5), Span(1, 2)).claims)
    assert [type(c) for c in fm.diff((1, 2), [1, 2]).claims] == [TypeDiffers]  # a tuple never equals a list: said


@pytest.mark.parametrize("expected, actual", [(Tagged(1, "a"), Tagged(2, "a")), (ByIdentity(1), ByIdentity(1))], ids=["own __eq__", "identity"])
def test_a_class_with_its_own_eq_is_said_to_have_it_and_no_field_is_blamed(expected, actual):
    assert expected != actual
    result = fm.diff(expected, actual)
    assert [type(c) for c in result.claims] == [OwnEquality]
    assert not any(d.path.startswith(".") for d in result.differences) and not result.equal


def test_on_the_panels_path_equal_fields_of_a_class_with_its_own_eq_are_said_to_be_its_eq():
    """The worker's verdict failed them; their fields are the same: "no difference" would be false."""
    for e, a in ((ByIdentity(1), ByIdentity(1)), ([0, ByIdentity(1)], [0, ByIdentity(1)])):
        result = diff(portable(e), portable(a))
        assert [type(c) for c in result.claims] == [OwnEquality] and not result.equal


def test_a_class_with_its_own_eq_that_finds_them_equal_has_no_difference():
    assert fm.diff(Tagged(1, "a"), Tagged(1, "b")).equal


@pytest.mark.parametrize("index", [0, 500, 999])
def test_one_deletion_in_a_long_list_is_one_missing_item(index):
    e = list(range(1_000))
    a = e[:index] + e[index + 1 :]
    result = fm.diff(e, a)
    assert result.claims == (Length((), 1_000, 999), Missing((("index", index),), index))


def test_one_insertion_in_a_long_list_is_one_extra_item():
    e = [f"line {i}" for i in range(2_000)]
    a = e[:700] + ["new"] + e[700:]
    assert fm.diff(e, a).claims == (Length((), 2_000, 2_001), Extra((("index", 700),), "new"))


@pytest.mark.parametrize(
    "expected, actual, kind",
    [
        ([3, 1, 4, 1, 5], [9, 3, 1, 4, 1], "shifted"),
        ([1, 2, 3], [2, 4, 6], "factor"),
        ([[1, 2], [3, 4]], [[0, 0], [0, 0]], "one_value"),
        ([[1, 2, 0], [3, 1, 4], [5, 6, 1]], [[0, 2, 0], [3, 0, 4], [5, 6, 0]], "diagonal"),
        ([[1, 2, 3], [4, 5, 6]], [[1, 4], [2, 5], [3, 6]], "transposed"),
    ],
)
def test_pattern_claims_are_said_in_the_text_form(expected, actual, kind):
    result = fm.diff(expected, actual)
    found = [c for c in result.claims if isinstance(c, Pattern)]
    assert [c.kind for c in found] == [kind]
    assert _patterns.sentence(found[0]) in str(result).splitlines()


def test_a_pattern_that_does_not_hold_over_the_types_is_not_claimed():
    """Row 1 differs, but row 0 is a tuple where a list is expected: "only row 1" would be false."""
    result = fm.diff([[1, 2], [3, 4]], [(1, 2), [0, 0]])
    assert not any(isinstance(c, Pattern) for c in result.claims)


def test_a_type_difference_shows_the_value_too():
    (d,) = fm.diff(None, 1.0).differences
    assert "1.0" in d.message
    assert "0.5" in fm.diff([0.5], [None]).differences[0].message


def test_a_deque_is_compared_as_a_sequence():
    result = fm.diff(collections.deque([1, 2, 3]), collections.deque([1, 2, 4]))
    assert result.claims == (Differs((("index", 2),), 3, 4),)
    assert not fm.diff(collections.deque([1]), [1]).equal  # a deque never equals a list


def test_different_words_of_one_script_are_not_named_code_point_by_code_point():
    (d,) = fm.diff(["안녕하세요"], ["감사합니다"]).differences
    assert "U+" not in d.message
    assert "U+0435 CYRILLIC SMALL LETTER IE" in fm.diff("hello", "h\u0435llo").differences[0].message  # a lookalike still is


# ------------------------------------------------------------------- issue 37


def test_the_pattern_search_looks_at_a_bounded_number_of_leaves():
    grid = [[0] * 300 for _ in range(300)]
    changed = [row[:] for row in grid]
    changed[150][150] = 1
    work = [0]
    assert _patterns.find_pattern(grid, changed, work) is None
    assert work[0] <= 2 * (_patterns.PATTERN_LIMIT + 400)
    work = [0]
    _patterns.find_pattern(list(range(100_000)), list(range(1, 100_001)), work)
    assert work[0] <= 2 * (_patterns.PATTERN_LIMIT + 1)


# ------------------------------------------------- counts said once, adding up

_PATH = r"(?:\[[^\]]*\]|\.\w+)+"
_LISTED = re.compile(rf"^- ({_PATH}(?:, {_PATH})*): ")
_FOLDED = re.compile(rf"^- {_PATH}, {_PATH}, {_PATH}, …, {_PATH} \(([\d,]+) places\): ")
_MORE = re.compile(r"^- … and ([\d,]+) more differences? \(([\d,]+) in all\)$")


def _shown_counts(text: str) -> tuple[int, int | None, int | None]:
    """(places the difference lines name, the "more" count, the "in all" count) read back from a diff's text form."""
    places, more, total = 0, None, None
    for line in text.splitlines():
        if not line.startswith("- "):
            continue  # a pattern sentence, a hint, or the marked windows under a difference
        if found := _MORE.match(line):
            more, total = (int(g.replace(",", "")) for g in found.groups())
        elif found := _FOLDED.match(line):
            places += int(found.group(1).replace(",", ""))
        elif found := _LISTED.match(line):
            places += found.group(1).count(", ") + 1
        else:
            places += 1  # a difference of the whole value
    return places, more, total


@st.composite
def many_differences(draw):
    """Pairs with many differences, often alike (a list of losses all off the same way), under a small budget."""
    n = draw(st.integers(1, 80))
    e = [draw(st.sampled_from([1.0, 2.0, 0.5])) for _ in range(n)]
    a = [draw(st.sampled_from([1.0, 0.02, 0.5])) for _ in range(n)]
    return e, a


@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(many_differences() | pairs(), st.integers(1, 14))
def test_the_counts_shown_add_up_to_every_difference(pair, kept):
    e, a = pair
    result = diff(e, a, Budget(max_differences=kept))
    if result.omitted_items or result.equal:
        return
    places, more, total = _shown_counts(str(result))
    assert places == len(result.differences)
    everything = len(diff(e, a, Budget(max_differences=10**6)).differences)
    if result.omitted:
        assert (more, total) == (result.omitted, everything) and places + more == total
    else:
        assert more is None and places == everything


def test_fifty_losses_read_as_twelve_places_and_thirty_eight_more():
    text = str(fm.diff([1.0] * 50, [0.02] * 50))
    assert _shown_counts(text) == (12, 38, 50)
    assert text.count("50") == 2  # the pattern's "in all 50 values" and the total: no other count to add up


# ------------------------------------------- patterns explain every difference


@st.composite
def number_pairs(draw):
    """Number sequences and grids and a mistake of them: an offset, a factor, one row, a shift, or a few cells,
    sometimes with a row turned into a tuple (a type difference no pattern of numbers explains)."""
    rows, columns = draw(st.integers(1, 5)), draw(st.integers(2, 6))
    e = [[draw(st.integers(-3, 9)) for _ in range(columns)] for _ in range(rows)]
    mistake = draw(st.sampled_from(["offset", "factor", "row", "shift", "cells"]))
    if mistake == "offset":
        a = [[x + 2 for x in row] for row in e]
    elif mistake == "factor":
        a = [[x * 3 for x in row] for row in e]
    elif mistake == "row":
        a = [list(row) for row in e]
        a[-1] = [x - 1 for x in a[-1]]
    elif mistake == "shift":
        a = [[-7] + row[:-1] for row in e]
    else:
        a = [[x if draw(st.booleans()) else x + 1 for x in row] for row in e]
    if draw(st.booleans()) and rows > 1:
        a[0] = tuple(a[0])
    if draw(st.booleans()):
        e, a = e[0], a[0] if type(a[0]) is list else list(a[0])
    return e, a


@st.composite
def reorderings(draw):
    """A list of distinct items and another order of it: what a set's iteration order does to a learner's list."""
    items = draw(st.lists(st.text(alphabet="abcdefgh", min_size=1, max_size=2) | st.integers(0, 50), min_size=2, max_size=8, unique_by=repr))
    return items, draw(st.permutations(items))


def _check_patterns(e, a, result) -> None:
    pe, pa = portable(e), portable(a)
    differences = [c for c in result.claims if not isinstance(c, (Pattern, Count))]
    for found in (c for c in result.claims if isinstance(c, Pattern)):
        assert _patterns.verify(found, pe, pa), found
        assert all(explains(found, c) for c in differences), (found, differences)
        for c in differences:  # the numbers at each differing place, held against the pattern itself
            if found.kind == "offset":
                assert c.got - c.expected == pytest.approx(found.params[0]), (found, c)
            elif found.kind == "factor":
                assert c.got == pytest.approx(c.expected * found.params[0]), (found, c)
            elif found.kind == "one_value":
                assert c.got == found.params[0], (found, c)


@FAST
@given(number_pairs() | pairs())
def test_every_pattern_said_explains_every_difference_types_included(pair):
    e, a = pair
    _check_patterns(e, a, fm.diff(e, a))


@FAST
@given(reorderings())
def test_another_order_of_the_same_items_is_a_shift_only_when_it_is_a_rotation(pair):
    """A rotation (every item k steps ahead) is said as a shift, the simpler explanation (issue 33, the TT-500005
    trial: a schedule one step early read as "the same items in a different order"); any other order as another order."""
    from failuremap_edu._shift import shift_of

    e, a = pair
    result = fm.diff(e, a)
    _check_patterns(e, a, result)
    said = [c.kind for c in result.claims if isinstance(c, Pattern)]
    rotation = shift_of(e, a, lambda x, y: x == y)
    assert ("shifted" in said) == (rotation is not None)
    if rotation is not None:
        assert not any(isinstance(c, Reordered) for c in result.claims)
    elif e != a:
        from failuremap_edu._diff_walk import mostly_distinct

        said_order = any(isinstance(c, Reordered) for c in result.claims)
        assert said_order == mostly_distinct(e) or len(e) - sum(x == y for x, y in zip(e, a)) < 2


@pytest.mark.parametrize(
    "expected, actual",
    [
        pytest.param(["b", "d", "c", "a"], ["a", "b", "c", "d"], id="moved and exchanged"),
        pytest.param(["x", "y", "z"], ["z", "y", "x"], id="three reversed: two exchanged"),
        pytest.param(["x", "y"], ["y", "x"], id="two reversed"),
    ],
)
def test_a_reordering_is_said_as_the_same_items_in_another_order(expected, actual):
    result = fm.diff(expected, actual)
    assert [type(c) for c in result.claims] == [Reordered]
    assert str(result).splitlines()[0].startswith("- the same items in a different order")


@pytest.mark.parametrize(
    "found, claim, holds",
    [
        (Pattern("row", (1, 2, 2)), Differs((("index", 1), ("index", 0)), 3, 0), True),
        (Pattern("row", (1, 2, 2)), TypeDiffers((("index", 0),), "list", "tuple", True), False),
        (Pattern("offset", (2, 4)), Differs((("index", 0),), 1, 3), True),
        (Pattern("offset", (2, 4)), Differs((("index", 0),), "1", 3), False),
        (Pattern("first", (2,)), Differs((("index", 3),), 1, 2), False),
        (Pattern("shifted", (1, "right", False)), Reordered((), [1, 2, 3], [3, 1, 2]), False),
        (Pattern("reversed"), Reordered((), [1, 2, 3, 4], [4, 3, 2, 1]), True),
        (Pattern("swapped", ("p", "r")), Differs((("key", "f"),), 1, 2), False),
        (Pattern("diagonal", (2,)), OwnEquality((("index", 0), ("index", 0)), "Cell"), False),
    ],
)
def test_a_pattern_explains_only_the_differences_where_it_says_they_are(found, claim, holds):
    assert explains(found, claim) is holds


def test_every_claim_kind_has_one_renderer_per_output():
    from failuremap_edu import _claims
    from failuremap_edu.render import _claims as words

    kinds = {getattr(_claims, name) for name in _claims.__all__ if isinstance(getattr(_claims, name), type) and name != "MISSING"}
    assert kinds == set(words.TEXT) == set(words.HTML)
    (d,) = fm.diff({"<k>": 1}, {}).differences
    assert words.difference_text(d) == d.message == "missing key '<k>' (expected value 1)"
    assert words.difference_html(d) == "missing key &#x27;&lt;k&gt;&#x27; (expected value 1)"
    assert words.claim_text(Count("differences", 3)) == "… and 3 more differences"


def test_an_item_aligned_across_the_sides_has_one_name_in_every_claim():
    """The TT-500001 trial's broken: got[2] = [8, 9] is aligned with expected[3] = [6, 7, 8, 9]. Its length line said
    '[2]' (got's index) and its missing items '[3][0]' (expected's): one item, two names. Where the indices differ,
    each side is named with its own, and a missing item on expected's side (an extra one on got's)."""
    expected = [[0, 1, 2, 3], [2, 3, 4, 5], [4, 5, 6, 7], [6, 7, 8, 9]]
    got = [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    result = fm.diff(expected, got)
    assert [(d.path, d.claim) for d in result.differences] == [
        ("", Length((), 4, 3)),
        ("[1]", Missing((("index", 1),), [2, 3, 4, 5])),
        ("expected[3] / got[2]", Length((("index", 2, 3),), 4, 2)),
        ("expected[3][0]", Missing((("index", 2, 3), ("index", 0)), 6)),
        ("expected[3][1]", Missing((("index", 2, 3), ("index", 1)), 7)),
    ]
    assert all(verify(c, expected, got) for c in result.claims if not isinstance(c, (Pattern, Count)))
    # the verifier checks both sides a name says: got[2] must be the item aligned with expected[3], and differ from it
    assert not verify(Missing((("index", 5, 3), ("index", 0)), 6), expected, got)  # got has no [5]
    assert not verify(Missing((("index", 1, 2), ("index", 0)), 4), expected, got)  # got[1] equals expected[2]
    assert not verify(Missing((("index", 2), ("index", 0)), 6), expected, got)  # expected[2][0] is 4
    assert not verify(Missing((("index", 2, 3), ("index", 0, 0)), 6), expected, got)  # the missing item is on one side
    extra = fm.diff([[9], [0], [1], [5, 6, 7]], [[0], [1], [5, 6, 7, 8]])
    assert [d.path for d in extra.differences] == ["", "[0]", "expected[3] / got[2]", "got[2][3]"]
