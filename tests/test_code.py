"""Reading solve's source: can it fall off its end (and so return None by accident)?"""

from __future__ import annotations

import pytest

from failuremap_edu._code import can_fall_off_end
from failuremap_edu._solution import solution_from_source


@pytest.mark.parametrize(
    "source, falls_off",
    [
        ("def solve(x):\n    if x:\n        return 1\n", True),
        ("def solve(x):\n    pass\n", True),
        ("def solve(x):\n    for i in x:\n        return i\n", True),
        ("def solve(x):\n    try:\n        return 1\n    except ValueError:\n        pass\n", True),
        ("def solve(x):\n    while True:\n        if x:\n            break\n", True),
        ("def solve(x):\n    return 1 if x else None\n", False),
        ("def solve(x):\n    if x:\n        return 1\n    else:\n        return None\n", False),
        ("def solve(x):\n    if x:\n        return 1\n    raise ValueError(x)\n", False),
        ("def solve(x):\n    while True:\n        if x:\n            return 1\n", False),
        ("def solve(x):\n    while True:\n        for i in x:\n            break\n", False),
        ("def solve(x):\n    while True:\n        for i in x:\n            pass\n        else:\n            break\n", True),
        ("def solve(x):\n    try:\n        return 1\n    except ValueError:\n        return 2\n", False),
        ("def solve(x):\n    with open(x) as f:\n        return f.read()\n", False),
        ("def solve(x):\n    match x:\n        case 1:\n            return 1\n        case _:\n            return 2\n", False),
        ("def solve(x):\n    match x:\n        case 1:\n            return 1\n", True),
        ("def solve(x):\n    def helper():\n        return 1\n", True),
        ("def solve(x):\n    yield x\n", False),
    ],
)
def test_paths_that_end_without_a_return(source, falls_off):
    assert can_fall_off_end(source) is falls_off
    assert can_fall_off_end(solution_from_source(source)) is falls_off


def _live(text, stops):
    if stops:
        return text, ""


def test_live_functions_and_unreadable_sources():
    assert can_fall_off_end(_live) is True
    assert can_fall_off_end(len) is False  # a builtin: no source, no hint
    assert can_fall_off_end(lambda x: x) is False
    assert can_fall_off_end("def solve(:\n") is False
