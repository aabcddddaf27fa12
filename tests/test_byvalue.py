"""Sending a notebook's solve by value: what travels, and what must not."""

from __future__ import annotations

import collections
import math
import re

import pytest

from failuremap_edu import _byvalue

LIMIT = 3
counter = {"calls": 0}


def _helper(x):
    return x * LIMIT


def _recursive(text):
    if len(text) > 3:
        return _recursive(text[:3])
    return [_helper(len(text)), math.sqrt(4), re.sub("a", "b", text), collections.Counter(text).most_common(1)]


def _counting():
    counter["calls"] += 1
    return counter["calls"]


def _roundtrip(obj):
    payload, modules = _byvalue.dumps(obj)
    return _byvalue.loads(payload), modules


def test_a_solve_with_helpers_recursion_and_modules_travels():
    solve, modules = _roundtrip(_recursive)
    assert solve is not _recursive
    assert solve("aaaab") == _recursive("aaaab") == [9, 2.0, "bbb", [("a", 3)]]
    assert {"math", "re", "collections"} <= modules


def test_closures_defaults_and_keyword_defaults_travel():
    def make(k):
        def solve(x, y=2, *, z=5):
            return x + y + z + k

        return solve

    solve, _ = _roundtrip(make(10))
    assert solve(1) == 18 and solve(1, 0, z=0) == 11


def test_functions_that_shared_globals_share_them_again():
    counting, reading = _roundtrip((_counting, lambda: counter["calls"]))[0]
    before = reading()
    counting()
    assert reading() == before + 1


def test_tracebacks_can_quote_a_cell_that_is_not_a_file():
    import linecache

    source = "def solve(x):\n    return 1 / x\n"
    filename = "<ipython-input-7-abc>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = {"__name__": "__main__"}
    exec(compile(source, filename, "exec"), namespace)
    payload, _ = _byvalue.dumps(namespace["solve"])
    del linecache.cache[filename]
    solve = _byvalue.loads(payload)
    with pytest.raises(ZeroDivisionError):
        solve(0)
    assert linecache.getline(filename, 2).strip() == "return 1 / x"


class _LearnerClass:
    def __reduce__(self):  # pickling this would run the learner's code in the caller
        raise AssertionError("must never be called")


_instance = _LearnerClass()


def _uses_instance(x):
    return _instance


@pytest.mark.parametrize(
    "obj, words",
    [
        (_LearnerClass, "is the learner's code"),
        (_instance, "its class is the learner's code"),
        (_uses_instance, "its class is the learner's code"),
        (lambda: globals(), "looks names up dynamically (globals)"),
        (lambda x: eval(x), "looks names up dynamically (eval)"),
        ((x for x in ()), "TypeError"),
    ],
)
def test_what_cannot_travel_is_refused_without_running_it(obj, words):
    with pytest.raises(_byvalue.Unshippable) as caught:
        _byvalue.dumps(obj)
    assert words in str(caught.value)


def test_a_huge_global_is_refused_early(monkeypatch):
    monkeypatch.setattr(_byvalue, "MAX_BYTES", 10_000)
    big = "x" * 50_000
    with pytest.raises(_byvalue.Unshippable, match="MB to send"):
        _byvalue.dumps(lambda: big)


def test_installed_modules_are_told_apart_from_the_learners():
    assert _byvalue.installed("json") and _byvalue.installed("math") and _byvalue.installed("pytest")
    assert _byvalue.installed("failuremap_edu._runner")
    assert not _byvalue.installed(__name__)  # this test file: shipped by value, never re-imported
    assert not _byvalue.installed("__main__")
