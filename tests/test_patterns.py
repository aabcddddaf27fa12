"""The pattern sentences: each one where it is exactly true, and none where it is only nearly true."""

from __future__ import annotations

import pytest

from failuremap_edu._patterns import differing_cells, is_grid, is_number_sequence, pattern
from hypothesis import given
from hypothesis import strategies as st

import failuremap_edu as fm
from failuremap_edu._claims import Pattern, Reordered

R1 = "got is expected shifted right by 1 position, 1 step behind: got[i] equals expected[i - 1] (got[1:] equals expected[:-1]); got's first item is "


def mask(n, strict=False, pad=0):
    return [[1 if pad <= j and (j < i if strict else j <= i) else 0 for j in range(n)] for i in range(n)]


def test_the_diagonal():
    assert pattern(mask(4), mask(4, strict=True)) == (
        "The differing cells are exactly the diagonal (row i, column i, all 4 of them); every other cell is right."
    )
    # Padding leaves the first cells of the diagonal alone: on the diagonal, but not the whole of it.
    assert pattern(mask(6, pad=2), mask(6, strict=True, pad=2)) == (
        "All 4 differing cells are on the diagonal (row i, column i); every other cell is right."
    )


def test_one_row_and_one_column():
    grid = [[0, 0, 0], [0, 0, 0], [0, 0, 0]]
    assert pattern(grid, [[0, 0, 0], [1, 1, 1], [0, 0, 0]]) == "Only row 1 differs (counting from 0), in every one of its 3 cells."
    assert pattern(grid, [[0, 0, 0], [1, 0, 1], [0, 0, 0]]) == "All 2 differing cells are in row 1 (counting from 0)."
    assert pattern(grid, [[0, 0, 7], [0, 0, 7], [0, 0, 7]]) == "Only column 2 differs (counting from 0), in every one of its 3 cells."
    assert pattern(grid, [[0, 0, 7], [0, 0, 0], [0, 0, 7]]) == "All 2 differing cells are in column 2 (counting from 0)."


def test_first_and_last_positions():
    assert pattern([5, 6, 7, 8, 9], [0, 0, 7, 8, 9]) == "Only the first 2 positions differ (0 to 1); the rest are right."
    assert pattern([5, 6, 7, 8, 9], [5, 6, 7, 8, 0]) == "Only the last position differs."
    assert pattern([5, 6, 7, 8, 9], [5, 6, 0, 0, 0]) == "Only the last 3 positions differ (2 to 4); the rest are right."


def test_shift():
    expected = [0.0025, 0.005, 0.0075, 0.01, 0.01, 0.01]
    assert pattern(expected, [0.0, 0.0025, 0.005, 0.0075, 0.01, 0.01]) == (
        "got is expected shifted right by 1 position, 1 step behind: got[i] equals expected[i - 1] (got[1:] equals "
        "expected[:-1]); got's first item is 0.0."
    )
    assert pattern([1, 2, 3, 4, 9], [3, 4, 9, 0, 0]) == (
        "got is expected shifted left by 2 positions, 2 steps ahead: got[i] equals expected[i + 2] (got[:-2] equals "
        "expected[2:]); got's last 2 items are [0, 0]."
    )


def test_reversed():
    assert pattern(["a", "b", "c", "d"], ["d", "c", "b", "a"]) == "got is expected reversed: the same items in the opposite order."
    assert pattern((1, 5, 2, 7), (7, 2, 5, 1)) == "got is expected reversed: the same items in the opposite order."
    # Two positions exchanged are no more than that: "reversed" would name a cause the values do not show.
    assert pattern(["a", "b", "c"], ["c", "b", "a"]) is None and pattern(["a", "b"], ["b", "a"]) is None


def test_two_keys_swapped_at_every_label():
    expected = {"cat": {"p": 1.0, "r": 0.5}, "dog": {"p": 2 / 3, "r": 1.0}}
    got = {"cat": {"p": 0.5, "r": 1.0}, "dog": {"p": 1.0, "r": 2 / 3}}
    assert pattern(expected, got) == "At every label, the values of 'p' and 'r' are swapped; everything else is right."
    assert pattern({"p": 1, "r": 2, "f": 3}, {"p": 2, "r": 1, "f": 3}) == "The values of 'p' and 'r' are swapped; every other key is right."
    # Two labels whose p and r are swapped also have their whole values exchanged: the keys inside are the mistake.
    third = 1 / 3
    two_labels = ({"cat": {"p": third, "r": 1.0}, "dog": {"p": 1.0, "r": third}}, {"cat": {"p": 1.0, "r": third}, "dog": {"p": third, "r": 1.0}})
    assert pattern(*two_labels) == "At every label, the values of 'p' and 'r' are swapped; everything else is right."
    assert pattern({"cat": {"p": 1, "r": 2}, "dog": {"p": 3, "r": 4}}, {"cat": {"p": 3, "r": 4}, "dog": {"p": 1, "r": 2}}) == (
        "The values of 'cat' and 'dog' are swapped; every other key is right."
    )


def test_same_amount_and_same_factor():
    assert pattern([1, 2, 3], [1.5, 2.5, 3.5]) == "Every value is off by the same amount: got = expected + 0.5, in all 3 values."
    assert pattern({"a": [1, 2], "b": [3, 4]}, {"a": [0, 1], "b": [2, 3]}) == (
        "Every value is off by the same amount: got = expected - 1, in all 4 values."
    )
    assert pattern([[1, 2], [3, 0]], [[2, 4], [6, 0]]) == "Every value is off by the same factor: got = expected × 2, in all 4 values."


@pytest.mark.parametrize(
    "expected, got",
    [
        # equal values: nothing to say
        ([1, 2, 3], [1, 2, 3]),
        # one differing cell: the diff names it, a "pattern" of one says nothing
        ([[0, 0], [0, 0]], [[0, 1], [0, 0]]),
        # diagonal plus one more cell: not the diagonal
        ([[0, 0, 0]] * 3, [[1, 0, 0], [0, 1, 1], [0, 0, 1]]),
        # two rows and two columns, off the diagonal
        ([[0, 0, 0]] * 3, [[0, 1, 0], [1, 0, 0], [0, 0, 0]]),
        # first and last positions at once: neither "first k" nor "last k"
        ([5, 6, 7, 8, 9], [0, 6, 7, 8, 0]),
        # every position differs: not "first k"
        ([5, 6, 7], [0, 2, 1]),
        # shifted, but with a wrong item in the overlap
        ([1, 2, 3, 4, 5], [0, 1, 2, 9, 4]),
        # reversed and one item changed
        ([1, 2, 3, 4], [4, 3, 2, 0]),
        # a palindrome "reversed" is itself (and equal)
        ([1, 2, 1], [1, 2, 1]),
        # swapped at one label only, the other label wrong in another way
        ({"cat": {"p": 1, "r": 2}, "dog": {"p": 3, "r": 4}}, {"cat": {"p": 2, "r": 1}, "dog": {"p": 3, "r": 5}}),
        # three keys rotated, not two swapped
        ({"a": 1, "b": 2, "c": 3}, {"a": 2, "b": 3, "c": 1}),
        # offsets that are not all the same
        ([1.0, 2.0, 3.0], [1.5, 2.5, 3.6]),
        # factors that are not all the same
        ([1, 2, 4], [3, 4, 9]),
        # a zero that becomes nonzero breaks "the same factor"
        ([0, 2, 4], [1, 4, 8]),
        # types differ only: [(0, 2)] against [[0, 2]] has no pattern
        ([(0, 2)], [[0, 2]]),
        # booleans are not numbers to offset
        ([True, False, False], [False, True, True]),
        # shapes differ
        ([[1, 2], [3, 4]], [[1, 2, 0], [3, 4, 0]]),
    ],
)
def test_no_sentence_where_no_pattern_holds_exactly(expected, got):
    assert pattern(expected, got) is None


def test_a_shift_is_named_only_where_more_items_overlap_than_shift_out():
    assert pattern([6, 7, 8, -100], [-100, 5, 6, 7]) is None or "shifted" not in pattern([6, 7, 8, -100], [-100, 5, 6, 7])
    assert pattern([5, 1, 4, 2], [0, 5, 1, 4]) == f"{R1}0."
    assert pattern([5, 1, 4, 2], [0, 0, 5, 1]) is None  # 2 of 4 after a shift of 2: not enough to say so


def test_a_constant_sequence_is_never_called_shifted():
    # [0, 7, 7, 7] is [7, 7, 7, 7] "shifted right by 1" only because every item is the same: say what is true instead.
    assert pattern([7, 7, 7, 7], [0, 7, 7, 7]) == "Only the first position differs."


def test_hostile_values_never_raise():
    class Bad:
        def __eq__(self, other):
            raise RuntimeError("no")

    assert pattern([Bad(), Bad()], [Bad(), Bad()]) is None


def test_shapes():
    assert is_grid([[0, 1], [1, 0]]) and is_grid(((True, False),)) and not is_grid([[0, 1], [1]]) and not is_grid([["a"]])
    assert not is_grid([]) and not is_grid([[]])
    assert is_number_sequence([0.5, 1]) and not is_number_sequence([[1]]) and not is_number_sequence("ab")
    assert differing_cells([[1, 2]], [[1, 3], [4, 5]]) == {(0, 1), (1, 0), (1, 1)}


def test_a_row_with_one_extra_one_is_not_called_shifted():
    """[0, 1, 1, 1, 1] against [0, 0, 1, 1, 1] is a window one too wide; 'shifted left' sent a learner to an index offset."""
    from failuremap_edu._patterns import pattern

    text = pattern([0, 0, 1, 1, 1], [0, 1, 1, 1, 1]) or ""
    assert "shifted" not in text
    assert "shifted right by 1" in (pattern(["a", "b", "c", "d", "e"], ["z", "a", "b", "c", "d"]) or "")


def test_values_past_the_limit_get_no_pattern_and_cost_nothing():
    """A 5 MB string made a list of 5 million characters to test 'reversed' (260 ms a render, make bench)."""
    from failuremap_edu._patterns import PATTERN_LIMIT, pattern

    big = "x" * (PATTERN_LIMIT + 1)
    assert pattern(big + "a", big + "b") is None and pattern(list(range(PATTERN_LIMIT + 1)), []) is None
    assert pattern("abcd", "dcba") == "got is expected reversed: the same items in the opposite order."


def test_one_row_or_one_column_of_a_grid_of_that_shape_is_no_pattern():
    """"Only row 0 differs" of a grid of one row says nothing, and hides what does hold (here: the same factor)."""
    assert pattern([[0.25, 0.5]], [[0.5, 1.0]]) == "Every value is off by the same factor: got = expected × 2, in all 2 values."
    assert pattern([[0.25], [0.75]], [[0.5], [0.5]]) == "Every value is 0.5, in all 2 values."  # not "only column 0"
    assert pattern([[0, 0], [0, 0]], [[1, 1], [0, 0]]) == "Only row 0 differs (counting from 0), in every one of its 2 cells."


def test_a_got_of_one_value_is_said_as_that_before_any_offset():
    """"got = expected + 0.5" read as a constant to subtract, where every value was 1.0 (a softmax over the wrong axis)."""
    assert pattern([[0.5, 0.5]], [[1.0, 1.0]]) == "Every value is 1 where 0.5 is expected, in all 2 values."
    assert pattern([0.25, 0.5, 0.25], [1.0, 1.0, 1.0]) == "Every value is 1, in all 3 values."
    assert pattern([1, 2, 3], [2, 3, 4]) == "Every value is off by the same amount: got = expected + 1, in all 3 values."  # not one value
    assert pattern([1.0, 1.0, 2.0], [1.0, 1.0, 1.0]) == "Only the last position differs."  # not "every value is 1"
    assert pattern([5, 6, 7], [0, 0, 0]) == "Every value is 0, in all 3 values."


# ------------------------------------------------ shifts (issue 33, the TT-500005 trial: a schedule one step early)

CYCLE = [0.0, 0.25, 0.5, 0.75, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0] * 3


def _found(expected, got, **kw):
    from failuremap_edu._patterns import find_pattern

    return find_pattern(expected, got, **kw)


def test_a_rotation_by_one_is_a_shift_not_a_reversal():
    """[0, 1, 1, 1] * 2 one step ahead is also its reversal: the simpler explanation, the shift, is said."""
    expected, got = [0.0, 1.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0, 0.0]
    assert _found(expected, got) == Pattern("shifted", (1, "left", False, (0.0,)))
    assert pattern(expected, got) == (
        "got is expected shifted left by 1 position, 1 step ahead: got[i] equals expected[i + 1] "
        "(got[:-1] equals expected[1:]); got's last item is 0.0."
    )


def test_a_cyclic_schedule_one_step_ahead_is_a_shift_not_another_order():
    for expected in (CYCLE, [p / 8 for p in range(8)] * 3):
        got = expected[1:] + expected[:1]
        assert _found(expected, got).kind == "shifted"
        said = fm.diff(expected, got)
        assert not any(isinstance(c, Reordered) for c in said.claims)
        assert said.pattern.startswith("got is expected shifted left by 1 position")


def test_a_shift_with_new_items_shifted_in_names_them():
    assert _found([1, 2, 3, 4, 9], [3, 4, 9, 0, 7]) == Pattern("shifted", (2, "left", False, (0, 7)))
    assert pattern([5, 1, 4, 2], [0, 5, 1, 4]).endswith("got's first item is 0.")


def test_a_shift_found_on_other_checks_is_preferred_on_a_tiny_window():
    """Two values one step ahead are also 'got = expected + 0.25': alone, the offset; in a run of shifts, the shift."""
    assert _found([0.0, 0.25], [0.25, 0.5]).kind == "offset"
    assert _found([0.0, 0.25], [0.25, 0.5], prefer=(1, "left")) == Pattern("shifted", (1, "left", False, (0.5,)))
    assert getattr(_found([0.0, 0.25], [0.0, 0.5], prefer=(1, "left")), "kind", None) != "shifted"  # only where it holds


def test_the_run_s_shift_is_the_one_found_on_two_or_more_checks_and_no_other():
    from failuremap_edu._patterns import run_shift

    one_ahead = [(CYCLE, CYCLE[1:] + CYCLE[:1]), ([0.0, 1.0, 1.0, 1.0] * 2, [1.0, 1.0, 1.0, 0.0] * 2), ([0.0, 0.25], [0.25, 0.5])]
    assert run_shift(one_ahead) == (1, "left")
    assert run_shift(one_ahead[:1]) is None  # one check: no run-wide explanation
    assert run_shift([*one_ahead, ([1, 2, 3, 4, 9], [3, 4, 9, 0, 7])]) is None  # another shift elsewhere: none preferred


@given(
    st.lists(st.integers(0, 5), min_size=3, max_size=12).filter(lambda xs: len(set(xs)) > 1),
    st.integers(1, 5), st.booleans(), st.booleans(), st.lists(st.integers(-3, 8), min_size=5, max_size=5),
)
def test_every_shift_said_is_verified_and_a_sequence_shifted_is_recognised(xs, k, left, rotate, new):
    """Shifted by k (rotated, or with new items shifted in): a pattern is found, and a shift said verifies."""
    from failuremap_edu._patterns import verify
    from failuremap_edu._shift import shift_of

    k = min(k, (len(xs) - 1) // 2)
    incoming = xs[:k] if left and rotate else xs[-k:] if rotate else new[:k]
    got = xs[k:] + incoming if left else incoming + xs[:-k]
    found = _found(xs, got)
    if got != xs and shift_of(xs, got, lambda a, b: a == b) is not None:
        assert found is not None
    if found is not None:
        assert verify(found, xs, got), found
    if found is not None and found.kind == "shifted":
        f_k, way, _, shifted_in = found.params
        g = got[:-f_k] if way == "left" else got[f_k:]
        assert g == (xs[f_k:] if way == "left" else xs[:-f_k])
        assert list(shifted_in) == (got[-f_k:] if way == "left" else got[:f_k])
        assert not verify(Pattern("shifted", (f_k, way, False, (99,) * f_k)), xs, got)  # the items shifted in are checked


def test_the_trial_schedule_one_step_early_is_said_as_a_shift_on_every_sequence_check():
    """TR-005005 (the trial's TT-500005): its attempt counts steps from 1. Every failing check of a sequence says the
    shift, in the text and the HTML; none says reversed, an offset or another order."""
    from conftest import record_path

    from failuremap_edu import load_record, replay
    from failuremap_edu.render._html import run_html
    from failuremap_edu.render._text import render_run

    run = replay(load_record(record_path("TR-005005")), "attempt")
    for text in (render_run(run), run_html(run)):
        assert text.count("pattern:  got is expected shifted left by 1 position, 1 step ahead") + text.count(
            '<p class="fm-pattern">pattern: got is expected shifted left by 1 position, 1 step ahead') == 4, text
        assert "reversed" not in text and "off by the same amount" not in text and "different order" not in text


def test_windows_one_reading_late_and_one_short_are_one_offset_over_the_items_both_have():
    """The TT-500001 trial's run 4: every window one reading late, the last one missing."""
    expected, got = [[0, 1, 2, 3], [2, 3, 4, 5], [4, 5, 6, 7], [6, 7, 8, 9]], [[1, 2, 3, 4], [3, 4, 5, 6], [5, 6, 7, 8]]
    said = fm.diff(expected, got)
    assert [c for c in said.claims if isinstance(c, Pattern)] == [Pattern("offset_common", (1, 12, 4, 3))]
    # no count of its own: the 12 values are not the diff's 14 differences, and one total is said, once (below the list)
    assert said.pattern == ("In the 3 items both have, every value is off by the same amount: got = expected + 1; "
                            "expected has 4 items, got 3.")
    assert pattern([1, 2, 3], [2, 3]) is None  # a run of the other: an item missing, not an offset


@given(st.lists(st.floats(0.05, 50, allow_nan=False), min_size=3, max_size=40), st.sampled_from([2, 3, 4, 6]),
       st.sampled_from([0.5, 2, 3, 10, 0.25]))
def test_a_factor_is_found_in_values_a_record_rounded_and_verified_within_that_rounding(true, places, factor):
    """An EMA without its (1 - beta) is 1/(1 - beta) times too large; a helper rounds both sides to 6 places, so no
    ratio is exact: the factor is still said, to the places the values are given to, and its verifier holds."""
    from failuremap_edu._patterns import find_pattern, verify

    expected = [round(v, places) for v in true]
    got = [round(factor * v, places) for v in true]
    found = find_pattern(expected, got)
    if sum(abs(x) >= 100 * 0.5 * 10 ** -places for x in expected) < 2 or len(set(got)) < 2:
        return  # too coarse beside the rounding to say anything; one value everywhere is said as that (one_value)
    assert found is not None and found.kind in ("factor", "factor_rounded"), (expected, got, found)
    assert found.params[0] == pytest.approx(factor) and verify(found, expected, got)
    if found.kind == "factor_rounded":
        assert f"to the {found.params[1]} decimal places" in str(fm.diff(expected, got))


def test_values_that_are_not_a_factor_apart_within_their_rounding_get_no_factor():
    from failuremap_edu._patterns import find_pattern

    expected = [2.58, 2.504978, 2.43487, 2.3689]
    got = [25.8, 25.049778, 24.3487, 23.7]  # the last is 0.011 off × 10: beyond 6 places' rounding
    found = find_pattern(expected, got)
    assert found is None or found.kind not in ("factor", "factor_rounded")
