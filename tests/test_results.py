"""Results say what actually happened: the isolation label is one of a closed set, and shown truthfully."""

from __future__ import annotations

import pytest

from failuremap_edu import run_checks
from failuremap_edu._parity import recorded_run
from failuremap_edu._results import ISOLATIONS, Observation, RunResult


def _run(isolation: str) -> RunResult:
    return RunResult("FA-1", "yours", 1, (Observation(0, "a", "pass", True),), 2.0, isolation)


@pytest.mark.parametrize("label", ["fork", "warm", "", "Process"])
def test_isolation_is_a_closed_set(label):
    with pytest.raises(ValueError, match=f"isolation must be one of process, inprocess, sandbox, recorded, got {label!r}"):
        _run(label)


def test_each_label_says_what_happened(stopping):
    assert set(ISOLATIONS) == {"process", "inprocess", "sandbox", "recorded"}
    assert run_checks(stopping, lambda text, stops: (text, "")).isolation == "process"
    assert run_checks(stopping, lambda text, stops: (text, ""), isolation="inprocess").isolation == "inprocess"
    recorded = recorded_run(stopping, "attempt")
    assert recorded.isolation == "recorded"
    assert "note: as recorded in the record; nothing ran here" in str(recorded)
    assert "in-process" not in str(recorded) and "in-process" not in recorded._repr_html_()
    assert "note:" not in str(_run("process"))
    assert "note: checks ran in-process (weaker isolation on this platform)" in str(_run("inprocess"))


def test_two_equal_calls_of_solve_in_one_check_show_what_it_returned_once():
    """`solve(x)['b']['r'] > solve(x)['b']['p']` calls solve twice alike: one line, not the same line twice (a learner trial)."""
    from failuremap_edu._results import Observation

    value = {"b": {"p": 1.0, "r": 0.5}}
    o = Observation(0, "recall beats precision", "fail", False, actual=False, expected=True, call="solve(x)",
                    compared="solve(x)['b']['r'] > solve(x)['b']['p']", returned=(("solve(x)", value), ("solve(x)", dict(value))))
    assert o.shown_returns() == (("solve(x)", value),)
    other = Observation(0, "c", "fail", False, actual=False, expected=True, call="solve(x)", compared="solve(x) == solve(x)",
                        returned=(("solve(x)", [1]), ("solve(x)", (1,))))
    assert len(other.shown_returns()) == 2  # a list and a tuple differ: both lines stay


def test_a_call_result_says_whose_solve_ran():
    from failuremap_edu._results import CallResult

    assert CallResult("solve(1)", "returned", 2).whose == "your solve"
    broken = CallResult("solve(1)", "error", solver="broken")
    assert broken.whose == "the record's broken (your solve was not called)" and repr(broken).endswith("ran: the record's broken (your solve was not called)")
