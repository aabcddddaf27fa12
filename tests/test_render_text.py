"""The text renderer, tested against exact strings."""

from __future__ import annotations

from failuremap_edu._results import Comparison, ErrorInfo, Observation, RunResult
from failuremap_edu._render_text import render_observation, render_run, terminal_safe, visible


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
✗ fail: partial marker held (line 11)
  call:     solve('hello<st', ['<stop>'])
  expected: ('hello', '<st')
  got:      ('hello<st', '')
  why:
    - [0]: expected stops at index 5 where got goes on (5 vs 8 characters)
        expected: 'hello⟦⟧'
        got:      'hello⟦<st⟧'
    - [1]: got stops at index 0 where expected goes on (3 vs 0 characters)
        expected: '⟦<st⟧'
        got:      '⟦⟧'"""


def test_list_instead_of_tuple():
    o = obs(0, "fail", check="no prefix emits all", expected=("hello", ""), actual=["hello", ""], call="solve('hello', ['<stop>'])")
    assert render_observation(o) == """\
✗ fail: no prefix emits all (line 11)
  call:     solve('hello', ['<stop>'])
  expected: ('hello', '')
  got:      ['hello', '']
  why:
    - expected a tuple, got a list: the items are the same, but a tuple never equals a list, so == fails"""


def test_error_with_output_and_mutation():
    o = obs(1, "error", error=ErrorInfo("ValueError", "bad <x>", "Traceback ..."), stdout="line one\nline two\n",
            stdout_dropped=1234, mutation="solve modified its argument 'stops'")
    assert render_observation(o) == """\
! error: partial marker held (line 12)
  call:     solve('hello<st', ['<stop>'])
  expected: ('hello', '<st')
  error:    ValueError: bad <x>
  note:     solve modified its argument 'stops'
  printed (+1,234 bytes not shown):
    line one
    line two"""


def test_none_gets_the_missing_return_hint():
    o = obs(0, "fail", actual=None)
    assert render_observation(o).splitlines()[4:] == [
        "  why:",
        "    hint: solve returned None. Is a `return` missing, or does a branch fall off the end?",
        "    - expected a tuple, got None",
    ]


def test_run_lists_only_checks_that_did_not_pass():
    text = render_run(run(obs(0, "pass", actual=("hello", "<st")), obs(1, "timeout", check="short input",
                                                                          error=ErrorInfo("Timeout", "no result after 2 s"))))
    assert text == """\
1/2 checks pass (1 timeout)

◷ timeout: short input (line 12)
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


def test_result_reprs():
    r = run(obs(0, "pass", actual=("hello", "<st")))
    assert repr(r) == "RunResult('FA-100786', solver='yours', variant=1, '1/1 checks pass')"
    assert repr(r.observations[0]) == "Observation(0, 'partial marker held', pass)"
    assert str(r) == "1/1 checks pass"
