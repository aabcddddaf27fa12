"""`record preview DIR --solve FILE`: the panel's text for a solve, against the record a source folder builds."""

from __future__ import annotations

import pytest

from failuremap_edu.instructor._cli import main


@pytest.fixture
def folder(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("FAILUREMAP_PROGRESS", str(tmp_path / "progress.jsonl"))
    assert main(["record", "new", "FA-900001", "-o", str(tmp_path / "src")]) == 0
    capsys.readouterr()
    return tmp_path / "src"


def test_the_attempt_previews_as_the_panel_says_it(folder, tmp_path, capsys):
    assert main(["record", "preview", str(folder), "--solve", str(folder / "solve_attempt.py")]) == 1  # as check: a check fails
    lines = capsys.readouterr().out.splitlines()
    assert lines[:7] == [
        "Exercise FA-900001: Batching (variant N = 1)",  # the panel's neutral title: the record's own gives the fix away
        "2/5 checks pass (3 fail)",
        "  ✓ pass    exact multiple",
        "  ✗ fail    last batch is shorter",
        "  ✗ fail    fewer items than one batch",
        "  ✓ pass    empty input",
        "  ✗ fail    N items in batches of 2",
    ]
    assert lines[7].startswith("Your solve gets the same wrong results as the plausible attempt on 3 of 3 failing checks")
    assert not (tmp_path / "progress.jsonl").exists()  # an author's run is not a learner's progress
    assert sorted(p.name for p in folder.iterdir()) == ["checks.py", "record.toml", "solve_attempt.py", "solve_broken.py"]  # no record written


def test_a_fix_passes_every_check_of_every_variant(folder, tmp_path, capsys):
    fixed = tmp_path / "fixed.py"
    fixed.write_text("def solve(items, size):\n    return [items[i:i + size] for i in range(0, len(items), size)]\n", encoding="utf-8")
    assert main(["record", "preview", str(folder), "--solve", str(fixed), "--variant", "all"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "Exercise FA-900001: Batching (all variants)"
    assert out[1].startswith("25/25 checks pass across variants")


@pytest.mark.parametrize("make, expected", [
    (lambda tmp, src: ([str(src), "--solve", str(tmp / "nope.py")]), "nope.py: no such file"),
    (lambda tmp, src: ([str(tmp / "nodir"), "--solve", str(src / "solve_attempt.py")]), "nodir: not a folder (record new writes one)"),
    (lambda tmp, src: ((tmp / "x.py").write_text("x = 1\n") and [str(src), "--solve", str(tmp / "x.py")]), "x.py: defines no top-level function 'solve'"),
])
def test_bad_input_gets_one_line(folder, tmp_path, capsys, make, expected):
    assert main(["record", "preview", *make(tmp_path, folder)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and expected in err and "Traceback" not in err


def test_a_folder_that_does_not_build_is_said_in_one_line(folder, capsys):
    (folder / "solve_broken.py").write_text("def solve(items):\n    return []\n", encoding="utf-8")
    assert main(["record", "preview", str(folder), "--solve", str(folder / "solve_attempt.py")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "other parameters than" in err
