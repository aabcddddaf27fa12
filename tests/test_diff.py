"""The diff model: pure data that explains why two values differ."""

from __future__ import annotations


import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from failuremap_edu import diff
from failuremap_edu._claims import Differs, Extra, Length, Missing, Reordered
from failuremap_edu._diff import Budget
from failuremap_edu._values import Opaque


def kinds(expected, actual):
    return [(d.path, d.kind) for d in diff(expected, actual).differences]


def messages(expected, actual):
    return [d.message for d in diff(expected, actual).differences]


def test_equal_values_have_no_differences():
    result = diff({"a": [1, (2, "x")]}, {"a": [1, (2, "x")]})
    assert result.equal and result.differences == () and result.hint is None


def test_tuple_versus_list_with_equal_items():
    assert messages(("hello", "<st"), ["hello", "<st"]) == [
        "expected a tuple, got a list: the items are the same, but a tuple never equals a list, so == fails"
    ]


def test_tuple_versus_list_with_different_items_drills_down():
    assert kinds(("a", "b"), ["a", "c"]) == [("", "type"), ("[1]", "value")]


def test_length_and_missing_item_are_named():
    assert diff([1, 2, 3, 4], [1, 3, 4]).claims == (Length((), 4, 3), Missing((("index", 1),), 2))
    assert diff([1, 2], [1, 2, 5]).claims == (Length((), 2, 3), Extra((("index", 2),), 5))
    assert messages([1, 2, 3, 4], [1, 3, 4]) == ["expected 4 items, got 3", "missing item: expected 2"]  # the path says where
    assert messages([1], [1, 2])[0] == "expected 1 item, got 2"


def test_one_tuple_missing_an_element():
    result = diff(("hello", "<st"), ("hello<st",))
    assert [(d.path, d.kind) for d in result.differences] == [("", "length"), ("[0]", "value"), ("[1]", "missing")]
    assert result.differences[1].message == "expected 'hello', got 'hello<st'"


def test_dict_keys_and_nested_paths():
    assert kinds({"lr": 0.1, "opt": {"name": "adam", "m": [1, 2]}}, {"lr": 0.1, "opt": {"name": "sgd", "m": [1, 3]}, "x": 1}) == [
        ("['x']", "extra"), ("['opt']['name']", "value"), ("['opt']['m'][1]", "value"),
    ]


def edits(expected, actual):
    return [(e.op, e.expected, e.actual, e.expected_index, e.actual_index) for e in diff(expected, actual).differences[0].text.edits]


@pytest.mark.parametrize(
    "expected, actual, message",
    [
        ("abc", "abxc", "got has an extra 'x' at index 2"),
        ("hello world", "hello  world", "got has an extra U+0020 SPACE at index 6"),
        ("a\nb", "a \nb", "line 1: got has an extra U+0020 SPACE at index 1"),
        ("ab", "b", "got is missing 'a' at index 0"),
        ("abc", "ab", "got is missing 'c' at index 2"),
        ("hello world", "hello wrld", "got is missing 'o' at index 7"),
        ("abc", "axc", "at index 1, expected 'b' but got 'x'"),
        ("abcdef", "abcXYZdef", "got has 3 extra characters 'XYZ' at index 3"),
        ("ab", "a\t b", "got has 2 extra characters '\\t ' (U+0009 TAB, U+0020 SPACE) at index 1"),
        ("abcdef", "xbyyez", "3 changes: at index 0, expected 'a' but got 'x'; at index 2, expected 'cd' but got 'yy'; at index 5, expected 'f' but got 'z'"),
    ],
)
def test_text_differences_name_the_edit_and_the_characters(expected, actual, message):
    assert messages(expected, actual) == [message]


def test_edits_align_both_sides_at_the_change():
    assert edits("abc", "abxc") == [("equal", "ab", "ab", 0, 0), ("insert", "", "x", 2, 2), ("equal", "c", "c", 2, 3)]
    assert edits("ab", "b") == [("delete", "a", "", 0, 0), ("equal", "b", "b", 1, 0)]
    assert edits("hello world", "hello  world") == [("equal", "hello ", "hello ", 0, 0), ("insert", "", " ", 6, 6), ("equal", "world", "world", 6, 7)]


def test_a_combining_mark_is_named_not_drawn_on_a_neighbour():
    d = diff("e", "e\u0301").differences[0]
    assert d.kind == "invisible"
    assert d.message == "got has an extra U+0301 COMBINING ACUTE ACCENT at index 1"


def test_short_strings_in_containers_are_whole_values():
    assert messages(["a1", "b1"], ["a1", "c1"]) == ["[1]: expected 'b1', got 'c1'".split(": ", 1)[1]]
    assert kinds(["a1", "b1"], ["a1", "c1"]) == [("[1]", "value")]
    # an invisible difference keeps the character-level detail, even in a short string
    assert kinds(["a b"], ["a\u00a0b"]) == [("[0]", "invisible")]
    assert kinds(["ab "], ["ab"]) == [("[0]", "invisible")]


def test_same_items_in_a_different_order():
    assert messages(["b1", "a1"], ["a1", "b1"]) == ["the same items in a different order: expected ['b1', 'a1'], got ['a1', 'b1']"]
    # a tuple's positions mean different things: no "order" there, and no list shown for a tuple
    assert messages(("hello", ""), ("", "hello")) == ["expected 'hello', got ''", "expected '', got 'hello'"]
    assert [d.path for d in diff(("<stop>", ""), ["", "<stop>"]).differences] == ["", "[0]", "[1]"]
    assert kinds([1, 2, 2], [2, 1, 1]) == [("[0]", "value"), ("[1]", "value"), ("[2]", "value")]  # not the same items


@pytest.mark.parametrize(
    "expected, actual, words",
    [
        ("abc ", "abc", "only trailing whitespace differs"),
        (" abc", "abc", "only leading whitespace differs"),
        ("a\r\nb", "a\nb", "only line endings differ: expected uses \\r\\n"),
        ("a\tb", "a    b", "a tab on one side, spaces on the other"),
        ("a b", "a\u00a0b", "U+00A0 NO-BREAK SPACE"),
        ("ab", "a\u200bb", "U+200B ZERO WIDTH SPACE"),
        ("caf\u00e9", "cafe\u0301", "expected 'é' (U+00E9 LATIN SMALL LETTER E WITH ACUTE) but got 'e\\u0301' (U+0065 LATIN SMALL LETTER E, U+0301 COMBINING ACUTE ACCENT); the same text after Unicode normalization (NFC)"),
        ("Hello", "hello", "only letter case differs"),
    ],
)
def test_invisible_differences_are_named(expected, actual, words):
    d = diff(expected, actual).differences[0]
    assert d.kind == ("text" if "case" in words else "invisible")
    assert words in d.message


def test_numbers():
    assert kinds(0.6667, 0.6666) == [("", "number")]
    assert "close but not equal" in messages(0.6667, 0.6666)[0]
    assert messages(float("nan"), float("nan")) == ["both are NaN, and NaN never equals anything, not even NaN"]
    assert diff(0.0, -0.0).equal  # == says equal; the sign of zero alone is no difference
    assert diff(1, 1.0).equal  # == ignores the type: no difference to name
    assert messages("1", 1) == ["expected a string, got an int that prints the same: '1' vs 1"]
    assert messages(0.0, 1e-12)[0].startswith("expected 0.0, got 1e-12: a tiny rounding error")


def test_none_gets_the_missing_return_hint_only_when_the_caller_knows_solve_can_fall_off_its_end():
    assert diff(["a1", "b1"], None, missing_return=True).hint == "solve returned None: is a return statement missing, or does a branch fall off the end?"
    assert diff(["a1", "b1"], None).hint is None
    assert messages(["a1", "b1"], None) == ["expected a list, got None"]


def test_generator_hint():
    result = diff((1, 2), Opaque("generator", "<generator object solve.<locals>.<genexpr>>", "not a plain value"))
    assert result.hint.startswith("solve returned a generator")
    assert result.differences[0].message == "expected a tuple, got a generator object"


def test_sets_and_key_types():
    assert messages({1, 2}, {2, 3}) == ["missing member 1", "extra member 3"]
    assert diff({1: "a"}, {True: "a"}).equal and diff([1], [True]).equal and diff({1}, {1.0}).equal  # == ignores these types


def test_budget_limits_differences_and_counts_the_rest():
    result = diff(list(range(100)), [x + 1 for x in range(100)], Budget(max_differences=5))
    assert len(result.differences) == 5 and result.omitted == 95 and not result.equal


def test_rows_past_the_budget_count_their_differing_cells_not_one_each():
    """A 14x14 mask with 25 wrong cells said "12 listed, and 7 more differences" (7 rows): a trial counted 19."""
    from failuremap_edu.render._text import diff_text

    n, w = 14, 3
    expected = [[1 if 0 <= i - j < w else 0 for j in range(n)] for i in range(n)]
    got = [[1 if abs(i - j) < w else 0 for j in range(n)] for i in range(n)]
    result = diff(expected, got)
    assert (len(result.differences), result.omitted, result.omitted_items) == (12, 13, 0)
    assert diff_text(result).splitlines()[-1] == "- … and 13 more differences (25 in all)"
    # Rows of other lengths past the budget: their differences are not guessed, the rows are counted and said apart.
    ragged = diff([[1, 2]] * 30, [[1, 2, 3]] * 30)
    assert (ragged.omitted, ragged.omitted_items) == (0, 24) and not ragged.equal
    assert diff_text(ragged).splitlines()[-1] == "- … and 24 more items that differ, not looked into"


def test_huge_string_window_is_centred_on_the_first_difference():
    expected = "x" * 5_000_000 + "a" + "y" * 100
    actual = "x" * 5_000_000 + "b" + "y" * 100
    d = diff(expected, actual).differences[0]
    assert d.message == "at index 5000000, expected 'a' but got 'b'"
    assert d.text.index == 5_000_000 and d.text.clipped_before == 5_000_000 - 32
    assert sum(len(e.expected) for e in d.text.edits) == 32 + 1 + 32 and d.text.expected_clipped == 68
    assert len(d.expected) <= 160 and " … " in d.expected


def test_huge_differing_middles_stay_within_the_window():
    d = diff("a" * 200_000, "b" * 300_000).differences[0]
    assert d.text.changes == 1 and d.text.edits[0].op == "replace"
    assert len(d.text.edits[0].expected) == 200 and d.text.expected_clipped == 200_000 - 200


def test_huge_list_and_deep_nesting_stay_bounded():
    big = list(range(100_000))
    result = diff(big, big[:50_000] + [-1] + big[50_001:])
    assert [(d.path, d.message) for d in result.differences] == [("[50000]", "expected 50000, got -1")]
    deep_e = deep_a = None
    for _ in range(100):
        deep_e, deep_a = [deep_e], [deep_a]
    deep_a_inner = deep_a
    for _ in range(99):
        deep_a_inner = deep_a_inner[0]
    deep_a_inner[0] = 1
    result = diff(deep_e, deep_a)
    assert result.differences[-1].kind == "depth"


# ----------------------------------------------------------------- properties

scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20)
json_like = st.recursive(
    scalars,
    lambda children: st.lists(children, max_size=5)
    | st.lists(children, max_size=5).map(tuple)
    | st.dictionaries(st.text(max_size=5) | st.integers(), children, max_size=5),
    max_leaves=25,
)


def same_types(a, b) -> bool:
    if type(a) is not type(b):
        return False
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same_types(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        keys_b = {k: k for k in b}
        return all(k in keys_b and type(keys_b[k]) is type(k) and same_types(v, b[k]) for k, v in a.items())
    return True


@settings(max_examples=300, deadline=None)
@given(json_like, json_like)
def test_diff_never_raises_and_is_empty_exactly_when_equal(a, b):
    result = diff(a, b)
    assert result.equal == (a == b)


@settings(max_examples=200, deadline=None)
@given(json_like)
def test_a_value_never_differs_from_itself(a):
    """Not only at the top, where equal values are a shortcut: beside a sibling that differs, inside a
    list and a dict, the walker goes through `a` and its copy and must find only the sibling."""
    import copy

    assert diff(a, a).equal
    inside_list = diff([a, 0], [copy.deepcopy(a), 1])
    assert [(d.path, d.kind) for d in inside_list.differences] == [("[1]", "value")], inside_list.differences
    inside_dict = diff({"k": a, "x": "a"}, {"k": copy.deepcopy(a), "x": "b"})
    assert [d.path for d in inside_dict.differences] == ["['x']"], inside_dict.differences


@settings(max_examples=200, deadline=None)
@given(json_like, json_like)
def test_every_difference_has_a_message_and_bounded_reprs(a, b):
    for d in diff(a, b).differences:
        assert d.message and len(d.expected) <= 160 and len(d.actual) <= 160


def test_nan_inside_containers_follows_identity_like_the_harness():
    nan = float("nan")
    assert diff([nan], [nan]).equal  # [nan] == [nan] is True: same object
    assert not diff(nan, nan).equal  # nan == nan is False


def test_items_whose_clipped_reprs_match_are_still_compared_by_value():
    long = "x" * 300
    changed = long[:150] + "y" + long[151:]
    result = diff([long, "b", "c"], [changed, "c"])
    assert [(d.path, d.kind) for d in result.differences] == [("", "length"), ("[0]", "text"), ("[1]", "missing")]
    assert result.differences[1].message == "at index 150, expected 'x' but got 'y'"
    assert not any(d.kind == "order" for d in diff([long, "b"], ["b", changed]).differences)


def test_a_short_word_in_a_list_that_looks_the_same_gets_its_characters_named():
    """'[0]: expected 'fine', got 'ﬁne'' read as two equal words (a ligature), and full-width letters showed as boxes."""
    ligature = diff(["fine"], ["\ufb01ne"]).differences[0]
    assert ligature.path == "[0]" and "U+FB01 LATIN SMALL LIGATURE FI" in ligature.message and ligature.text is not None
    wide = diff(["hello"], ["\uff48\uff45\uff4c\uff4c\uff4f"]).differences[0]
    assert "U+FF48 FULLWIDTH LATIN SMALL LETTER H" in wide.message
    assert diff(["b1"], ["a1"]).differences[0].message == "expected 'b1', got 'a1'"  # plain ASCII: one value, as before



def test_a_row_of_few_distinct_values_is_not_said_to_be_another_order():
    """[1, 1, 0, 1, 0] against [1, 0, 1, 1, 0]: any two rows of 0s and 1s with the same counts are 'another order',
    which says nothing of where the 1s went; the positions that differ are said instead. Distinct items still are."""
    from failuremap_edu import diff

    result = diff([1, 1, 0, 1, 0], [1, 0, 1, 1, 0])
    assert not any(isinstance(c, Reordered) for c in result.claims)
    assert sorted(d.path for d in result.differences) == ["[1]", "[2]"]
    assert any(isinstance(c, Reordered) for c in diff(["b", "d", "c", "a"], ["a", "b", "c", "d"]).claims)
