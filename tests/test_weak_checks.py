"""Weak checks said to the author: mutants of the attempt that no check tells apart from it (mutation testing)."""

from __future__ import annotations

import ast

from conftest import record_path
from failuremap_edu import load_record
from failuremap_edu.instructor._authoring import build_record
from failuremap_edu.instructor._cli import main
from failuremap_edu.instructor._weak_checks import MAX_MUTANTS, mutants, weak_checks
from test_authoring import ATTEMPT, BROKEN, CHECKS, TEXT, fill

KEEPS_FIRST = "check('first result kept', (first := solve([[1, 2]], 3), solve([[5]], 3), first)[2], [[1, 2]])\n"


def new_folder(tmp_path, **files):
    out = tmp_path / "exercise"
    assert main(["record", "new", "TR-AUTH-1", "-o", str(out)]) == 0
    return fill(out, **{"solve_attempt_py": ATTEMPT, "solve_broken_py": BROKEN, "checks_py": CHECKS, "record_toml": TEXT, **files})


def test_the_weak_record_lets_a_shared_list_through_and_says_so():
    found = weak_checks(load_record(record_path("TR-004242")))
    assert (found.tried, found.made) == (2, 2)  # the last item dropped, and one shared list
    [survivor] = found.survivors
    assert (survivor.kind, survivor.before, survivor.lineno) == ("shared object", "return text.split()", 7)
    text = str(found)
    assert text.startswith("weak checks: 1 of 2 mutants of the attempt pass and fail exactly the checks it does, so no check tells it apart:")
    assert "every call returns one shared object, its contents replaced: `return text.split()` (line 7)" in text


def test_a_check_that_compares_a_result_after_a_later_call_catches_the_shared_list(tmp_path, capsys):
    weak = build_record(new_folder(tmp_path)).weak_checks
    assert [m.kind for m in weak.survivors] == ["shared object"]
    assert str(weak).count("\n") == 2  # one short block: the line, the mutant, what would catch it
    assert f"({tmp_path}/exercise/solve_attempt.py:2)" in str(weak)  # the author's file and line, not the script's
    strong = build_record(new_folder(tmp_path / "strong", checks_py=CHECKS + KEEPS_FIRST)).weak_checks
    assert strong.survivors == () and strong.tried == strong.made == 2
    assert str(strong) == "weak checks: none found: every one of 2 mutants of the attempt is caught by a check"
    capsys.readouterr()
    assert main(["record", "build", str(tmp_path / "strong" / "exercise")]) == 0
    assert "weak checks" not in capsys.readouterr().err  # nothing to warn about: no block


def test_record_build_warns_with_one_block(tmp_path, capsys):
    folder = new_folder(tmp_path)
    capsys.readouterr()
    assert main(["record", "build", str(folder)]) == 0
    err = capsys.readouterr().err
    assert err == (
        "failuremap-edu: warning: weak checks: 1 of 2 mutants of the attempt pass and fail exactly the checks it does, so no check tells it apart:\n"
        f"  - every call returns one shared object, its contents replaced: `return [row[:max_len] for row in rows]` ({folder}/solve_attempt.py:2)\n"
        "  A check that catches one compares a result after a later call, or tries the boundary the change moved.\n"
    )


def test_each_mutant_changes_one_thing_and_stays_a_program():
    source = (
        "import json\n\nN = 1\nobservations = []\n"
        "def solve(xs, k=2):\n"
        "    out = [x for x in xs[:k] if x < 3 and x != 0]\n"
        "    for i in range(len(out)):\n"
        "        pass\n"
        "    return out\n"
        "check('x', solve([1]), [1])\n"
    )
    made = mutants(source)
    assert [(m.kind, m.before, m.after) for m, _ in made] == [
        ("dropped item", "return out", "return _fm_drop(out)"),
        ("shared object", "return out", "return _fm_shared(out, 4)"),
        ("off by one", "2", "3"),
        ("range one short", "range(len(out))", "range(len(out) - 1)"),
        ("and/or swapped", "x < 3 and x != 0", "x < 3 or x != 0"),
        ("flipped comparison", "x < 3", "x <= 3"),
        ("flipped comparison", "x != 0", "x == 0"),
        ("off by one", "3", "4"),
        ("off by one", "0", "1"),
    ]
    for mutant, script in made:
        tree = ast.parse(script)  # every mutant is a program
        assert script.startswith("import json\n\nN = 1\nobservations = []\n") and script.endswith("check('x', solve([1]), [1])\n")
        assert [n.name for n in tree.body if isinstance(n, ast.FunctionDef)] == ["_fm_drop", "_fm_shared", "solve"]
    assert len(mutants("def solve(x):\n    return [" + ", ".join(map(str, range(60))) + "]\n")) == MAX_MUTANTS  # bounded


def test_a_mutant_that_loops_is_stopped_and_counts_as_caught(tmp_path):
    counting = "def solve(rows, max_len):\n    i = 0\n    while i != max_len:\n        i += 1\n    return [row[-i:] if i else [] for row in rows]\n"
    folder = new_folder(tmp_path, solve_attempt_py=counting, checks_py=CHECKS.replace("3), [[1, 2]]", "3), [[1, 2, 3]]"))
    weak = build_record(folder).weak_checks
    assert weak.tried == weak.made  # the looping mutant (i += 2 never meets an odd max_len) was stopped, the rest still ran
    assert not any(m.before == "1" and m.lineno == 4 for m in weak.survivors)
