"""The text renderer, tested against exact strings."""

from __future__ import annotations

import pytest

from failuremap_edu._diff import diff
from failuremap_edu._results import Comparison, ErrorInfo, Observation, RunResult
from failuremap_edu._values import not_computed
from failuremap_edu.render._text import render_diff, render_observation, render_run, run_notes, terminal_safe, visible


def obs(index, status, check="partial marker held", **kw):
    base = dict(index=index, check=check, status=status, passed=status == "pass", expected=("hello", "<st"),
                call="solve('hello<st', ['<stop>'])", lineno=11 + index)
    base.update(kw)
    return Observation(**base)


def run(*observations, solver="yours", problem=None):
    return RunResult("FA-100786", solver, 1, tuple(observations), 2.0, "process", problem)


def test_failing_check_explains_why():
    o = obs(0, "fail", actual=("hello<st", ""))
    assert render_observation(o) == """\
✗ fail: partial marker held (record line 11)
  call:     solve('hello<st', ['<stop>'])
  expected: ('hello', '<st')
  got:      ('hello<st', '')
  why:
    - [0]: expected 'hello', got 'hello<st'
    - [1]: expected '<st', got ''"""


@pytest.mark.parametrize(
    "expected, actual, lines",
    [
        ("abc", "abxc", ["- got has an extra 'x' at index 2", "    expected: 'ab⟦⟧c'", "    got:      'ab⟦x⟧c'"]),
        ("hello world", "hello  world", ["- got has an extra U+0020 SPACE at index 6", "    expected: 'hello ⟦⟧world'", "    got:      'hello ⟦␣⟧world'"]),
        ("a\nb", "a \nb", ["- line 1: got has an extra U+0020 SPACE at index 1", "    expected: 'a⟦⟧'", "    got:      'a⟦␣⟧'", "              'b'"]),
        ("ab\n", "a b\n", ["- got has an extra U+0020 SPACE at index 1", "    expected: 'a⟦⟧b\\n'", "    got:      'a⟦␣⟧b\\n'"]),
        ("ab", "b", ["- got is missing 'a' at index 0", "    expected: '⟦a⟧b'", "    got:      '⟦⟧b'"]),
        ("e", "e\u0301", ["- got has an extra U+0301 COMBINING ACUTE ACCENT at index 1", "    expected: 'e⟦⟧'", "    got:      'e⟦◌\u0301⟧'"]),
        ("x" * 40 + "abc", "x" * 40 + "abd", ["- at index 42, expected 'c' but got 'd'", "    expected: …" + "x" * 30 + "ab⟦c⟧'", "    got:      …" + "x" * 30 + "ab⟦d⟧'"]),
    ],
)
def test_text_diffs_mark_the_change_at_the_same_place_in_both_lines(expected, actual, lines):
    assert render_diff(diff(expected, actual), "") == lines


def test_a_timed_out_check_shows_its_call_and_expected_value():
    o = obs(2, "timeout", check="same text distinct IDs", expected=["a1", "b1"], call="solve([['a1', 'same', 1], ['b1', 'same', 0]])",
            error=ErrorInfo("Timeout", "no result after 2 s"))
    assert render_observation(o) == """\
◷ timeout: same text distinct IDs (record line 13)
  call:     solve([['a1', 'same', 1], ['b1', 'same', 0]])
  expected: ['a1', 'b1']
  error:    Timeout: no result after 2 s"""


def test_an_unknown_expected_value_is_said_to_be_unknown_not_shown_as_none():
    why = "this check did not finish, and its expected value can only be computed after solve returns"
    o = obs(0, "timeout", call="", expected=not_computed(why), error=ErrorInfo("Timeout", "no result after 2 s"))
    assert render_observation(o).splitlines()[1] == f"  expected: (not known: {why})"


def test_list_instead_of_tuple():
    o = obs(0, "fail", check="no prefix emits all", expected=("hello", ""), actual=["hello", ""], call="solve('hello', ['<stop>'])")
    assert render_observation(o) == """\
✗ fail: no prefix emits all (record line 11)
  call:     solve('hello', ['<stop>'])
  expected: ('hello', '')
  got:      ['hello', '']
  why:
    - expected a tuple, got a list: the items are the same, but a tuple never equals a list, so == fails"""


def test_error_with_output_and_mutation():
    o = obs(1, "error", error=ErrorInfo("ValueError", "bad <x>", "Traceback ..."), stdout="line one\nline two\n",
            stdout_dropped=1234, mutation="solve modified its argument 'stops'")
    assert render_observation(o) == """\
! error: partial marker held (record line 12)
  call:     solve('hello<st', ['<stop>'])
  expected: ('hello', '<st')
  error:    ValueError: bad <x>
  note:     solve modified its argument 'stops'
  printed output (only the first 18 bytes are kept; 1,234 more bytes were printed):
    line one
    line two"""


def test_none_gets_the_missing_return_hint_only_when_solve_can_fall_off_its_end():
    o = obs(0, "fail", actual=None)
    assert render_observation(o, missing_return=True).splitlines()[4:] == [
        "  why:",
        "    hint: solve returned None: is a return statement missing, or does a branch fall off the end?",
        "    - expected a tuple, got None",
    ]
    assert render_observation(o).splitlines()[4:] == ["  why:", "    - expected a tuple, got None"]


def test_a_mutation_is_noted_on_the_run_even_when_every_check_passes():
    note = "solve modified its argument 'stops': it was ['<stop>'] and became []. The checks see the changed value, as the record's own harness does."
    result = run(obs(0, "pass", actual=("hello", "<st"), mutation=note), obs(1, "pass", actual=("hello", "<st"), mutation=note))
    assert render_run(result).splitlines() == ["2/2 checks pass", f"note: {note} (in 2 checks)"]


def test_run_lists_only_checks_that_did_not_pass():
    text = render_run(run(obs(0, "pass", actual=("hello", "<st")), obs(1, "timeout", check="short input",
                                                                          error=ErrorInfo("Timeout", "no result after 2 s"))))
    assert text == """\
1/2 checks pass (1 timeout)

◷ timeout: short input (record line 12)
  call:     solve('hello<st', ['<stop>'])
  expected: ('hello', '<st')
  error:    Timeout: no result after 2 s"""


def test_comparison_table():
    broken = run(obs(0, "fail", actual=("x",)), obs(1, "fail", check="short input", actual=("x",)), solver="broken")
    yours = run(obs(0, "pass", actual=("hello", "<st")), obs(1, "error", check="short input", error=ErrorInfo("E", "")))
    comparison = Comparison("FA-100786", (broken, yours), ("broken", "yours"))
    assert str(comparison) == """\
check                broken     yours
partial marker held  ✗ fail     ✓ pass
short input          ✗ fail     ! error
passing              0/2        1/2"""
    assert repr(comparison) == "Comparison('FA-100786', broken: 0/2, yours: 1/2)"


def test_terminal_safe_and_visible():
    assert terminal_safe("a\x1b[2Jb\tc\nd\u202e") == "a\\x1b[2Jb\tc\nd\\u202e"
    assert terminal_safe("x" * 20, limit=10) == "xxxxxxxxx… [11 more characters]"
    assert visible("a\u00a0b\t\r\n\u200b") == "a⟨U+00A0⟩b\\t\\r\\n⟨U+200B⟩"
    assert visible("a b\u0301") == "a b\u0301"
    assert visible("a b\u0301", changed=True) == "a␣b◌\u0301"


def test_result_reprs():
    r = run(obs(0, "pass", actual=("hello", "<st")))
    assert repr(r) == "RunResult('FA-100786', solver='yours', variant=1, '1/1 checks pass')"
    assert repr(r.observations[0]) == "Observation(0, 'partial marker held', pass)"
    assert str(r) == "1/1 checks pass"


def test_text_of_several_lines_gets_a_line_diff_labelled_expected_and_got():
    o = obs(0, "fail", check="report", expected="loss 0.5\nacc 0.9\n", actual="loss 0.5\nlr 0.1\nacc 0.8\n", call="solve()")
    assert render_observation(o) == """\
✗ fail: report (record line 11)
  call:     solve()
  expected: 'loss 0.5\\nacc 0.9\\n'
  got:      'loss 0.5\\nlr 0.1\\nacc 0.8\\n'
  why:
    - 2 changes: got has an extra line at line 2; line 2 (line 3 in got): at index 6, expected '9' but got '8'
                  'loss 0.5'
        got:      'lr 0.1'
        expected: 'acc 0.⟦9⟧'
        got:      'acc 0.⟦8⟧'"""


def test_a_line_diff_beyond_its_budget_counts_what_it_leaves_out():
    from failuremap_edu._diff import Budget

    assert render_diff(diff("\n".join(map(str, range(20))), "\n".join(map(str, range(1, 21))), Budget(text_lines=2)), "") == [
        "- 2 changes: got is missing line 1 of expected; got has an extra line at line 20",
        "    expected: '0'",
        "              '1'",
        "              … (2 more lines of the diff)",
    ]
    assert render_diff(diff("a\nb\nc", "a\nc", Budget(text_lines=2)), "")[-1] == "              … (1 more line of the diff)"


def test_a_dataclass_is_explained_field_by_field():
    import dataclasses

    from failuremap_edu._values import portable

    @dataclasses.dataclass
    class Window:
        start: int
        end: int

    o = obs(0, "fail", check="window", expected=portable(Window(0, 4)), actual=portable(Window(1, 4)), call="solve(4)")
    assert render_observation(o).splitlines()[2:] == [
        "  expected: test_a_dataclass_is_explained_field_by_field.<locals>.Window(start=0, end=4)",
        "  got:      test_a_dataclass_is_explained_field_by_field.<locals>.Window(start=1, end=4)",
        "  why:",
        "    - .start: expected 0, got 1",
    ]


def test_watch_it_fail_shows_every_difference_under_the_panel_budget():
    from failuremap_edu._diff import Budget
    from failuremap_edu.render._text import story_reasons

    o = obs(0, "fail", expected=[(0, 3), (4, 6)], actual=[[0, 3], [4, 7]])
    reason, explained = story_reasons(o)
    assert reason == "" and render_diff(explained, "      ") == [
        "      - [0]: expected a tuple, got a list: the items are the same, but a tuple never equals a list, so == fails",
        "      - [1]: expected a tuple, got a list (and a tuple never equals a list, even with the same items)",
        "      - [1][1]: expected 6, got 7",
    ]
    assert story_reasons(obs(0, "fail", expected=[1, 2], actual=[1, 3])) == ("[1]: expected 2, got 3", None)
    _, bounded = story_reasons(obs(0, "fail", expected=list(range(30)), actual=list(range(1, 31))), Budget(max_differences=2))
    assert len(bounded.differences) == 2 and bounded.omitted == 28
# ------------------------------------------- checks on an expression of the result, pictures (issue 21 §1, §3)


def test_a_check_on_an_expression_names_it_and_shows_what_solve_returned():
    grid = [[0, 0, 0, 0], [0, 1, 0, 0], [0, 1, 1, 0], [0, 1, 1, 1]]
    o = obs(0, "fail", check="last row", call="solve(4, pad=1)", compared="solve(4, pad=1)[-1]",
            returned=(("solve(4, pad=1)", grid),), expected=[0, 1, 1, 1], actual=[0, 1, 1, 0])
    assert render_observation(o) == """\
✗ fail: last row (record line 11)
  compares: solve(4, pad=1)[-1]
  solve(4, pad=1) returned: [[0, 0, 0, 0], [0, 1, 0, 0], [0, 1, 1, 0], [0, 1, 1, 1]]
  expected: [0, 1, 1, 1]
  got:      [0, 1, 1, 0]
    index     0  1  2  3
    expected  0  1  1 [1]
    got       0  1  1 [0]
    [ ] marks the position that differs
  pattern:  Only the last position differs.
  why:
    - [3]: expected 1, got 0"""


def test_a_failing_grid_is_drawn_as_expected_beside_got_with_its_pattern():
    full = [[1 if j <= i else 0 for j in range(3)] for i in range(3)]
    strict = [[1 if j < i else 0 for j in range(3)] for i in range(3)]
    text = render_observation(obs(0, "fail", check="mask", call="solve(3)", expected=full, actual=strict))
    assert """\
  got:      [[0, 0, 0], [1, 0, 0], [1, 1, 0]]
       expected  | got
        0  1  2  |  0  1  2
    0  [1] 0  0  | [0] 0  0
    1   1 [1] 0  |  1 [0] 0
    2   1  1 [1] |  1  1 [0]
    [ ] marks the 3 cells that differ
  pattern:  The differing cells are exactly the diagonal (row i, column i, all 3 of them); every other cell is right.
""" in text


def test_watch_it_fail_names_the_compared_expression_and_says_gave_not_returned():
    from conftest import record_path
    from failuremap_edu import load_record, watch_it_fail

    text = str(watch_it_fail(load_record(record_path("TR-001010"))))
    assert "  first step nonzero: solve(1, peak=0.01, warmup=4)[0] > 0\n    expected: True\n" in text
    assert "    attempt gave False; solve(1, peak=0.01, warmup=4) returned [0.0] (expected True, got False)" in text
    assert "attempt returned False" not in text


def test_a_check_that_passes_only_because_eq_holds_gets_a_note():
    """Bools where the contract says 0/1 ints pass (True == 1, as the harness judges): said, never silent (learner trial)."""
    passing = Observation(index=0, check="one token", status="pass", passed=True, expected=[[1]], actual=[[True]])
    run = RunResult("TW-1", "yours", 1, (passing,), 2.0, "process")
    assert run_notes(run) == ["the check 'one token' passes because == holds (as the record's own harness judges it), "
                              "but the values differ in type: [0][0]: expected an int, got a bool"]
    same = Observation(index=0, check="one token", status="pass", passed=True, expected=[[1]], actual=[[1]])
    assert run_notes(RunResult("TW-1", "yours", 1, (same,), 2.0, "process")) == []


def test_the_same_sentence_at_sibling_paths_is_said_once_with_every_path():
    """Rows of tuples against rows of lists: one line naming [0], [1], [2], not the sentence per row (instructor trial)."""
    assert render_diff(diff([[1, 0], [1, 1], [0, 1]], [(1, 0), (1, 1), (0, 1)]), indent="") == [
        "- [0], [1], [2]: expected a list, got a tuple: the items are the same, but a tuple never equals a list, so == fails"
    ]
    rows = render_diff(diff([[0]] * 9, [(0,)] * 9), indent="")
    assert rows == ["- [0], [1], [2], …, [8] (9 places): expected a list, got a tuple: the items are the same, but a tuple never equals a list, so == fails"]
    assert render_diff(diff([1, 2], [3, 5]), indent="") == ["- [0]: expected 1, got 3", "- [1]: expected 2, got 5"]  # different sentences stay apart


def test_the_note_on_passes_by_eq_alone_counts_every_such_check():
    """Five checks returned 1 where 1.0 is expected: the note says five, never one."""
    checks = [Observation(index=i, check=f"check {i}", status="pass", passed=True, expected=1.0, actual=1) for i in range(5)]
    checks.append(Observation(index=5, check="exact", status="pass", passed=True, expected=1.0, actual=1.0))
    note = run_notes(RunResult("TW-1", "yours", 1, tuple(checks), 2.0, "process"))[0]
    assert note.startswith("5 checks pass ('check 0', 'check 1', 'check 2', …) because == holds")
    assert note.endswith("but the values differ in type, as in 'check 0': expected a float, got an int")
