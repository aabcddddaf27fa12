"""Authoring: `record new` writes a source folder, `record build` turns it into a record that teaches.

Every refusal is one line naming the file and the line; the built record loads,
holds parity, and works with `notebook` and `workshop` like any packaged record.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from conftest import own_params, record_path
from failuremap_edu import load_record, verify_record
from failuremap_edu.instructor._authoring import AuthoringError, _toml_string, assemble, build_record, split_script, write_folder
from failuremap_edu.instructor._cli import main
from failuremap_edu._records import packaged_records_dir

FILES = ["solve_attempt.py", "solve_broken.py", "checks.py", "record.toml"]

# The test's own exercise: keep the end of each sequence, not its start.
ATTEMPT = "def solve(rows, max_len):\n    return [row[:max_len] for row in rows]\n"
BROKEN = "def solve(rows, max_len):\n    return rows\n"
CHECKS = """\
check('short rows kept', solve([[1, 2]], 3), [[1, 2]])
check('long row keeps its end', solve([[1, 2, 3, 4]], 2), [[3, 4]])
check('zero length', solve([[1, 2]], 0), [[]])
check('N rows', solve([[7] * (N + 2)] * N, N), [[7] * N] * N)
check('mixed lengths', solve([[1], [1, 2, 3]], 2), [[1], [2, 3]])
"""
TEXT = """\
id = "TR-AUTH-1"
title = "Truncation keeps the start of each sequence, not its end"
category = "Sequence preprocessing"
contract = "Truncate each row of token ids to at most max_len tokens, keeping the last ones; rows that fit stay as they are."
abstract = "Slicing from the front drops the most recent tokens."
failed_approach = \"\"\"row[:max_len] is the first slice that comes to mind.
It keeps the oldest tokens.\"\"\"
root_cause = "Truncation direction is part of the contract: left truncation keeps the end."
license = "CC-BY-4.0"
author = "a test"
"""


def fill(folder: Path, **files: str) -> Path:
    """Replace files of a folder `record new` wrote (keyword: file name with '.' as '_')."""
    for key, text in files.items():
        name = key.replace("_py", ".py").replace("_toml", ".toml")
        assert name in FILES
        (folder / name).write_text(text, encoding="utf-8")
    return folder


@pytest.fixture
def folder(tmp_path) -> Path:
    """A folder written by `record new`, filled in with the test's exercise."""
    out = tmp_path / "exercise"
    assert main(["record", "new", "TR-AUTH-1", "-o", str(out)]) == 0
    return fill(out, solve_attempt_py=ATTEMPT, solve_broken_py=BROKEN, checks_py=CHECKS, record_toml=TEXT)


def without_weak_checks(err: str) -> str:
    """stderr without the weak-checks block (its own tests are below): the warning line and its indented lines."""
    out, inside = [], False
    for line in err.splitlines(keepends=True):
        inside = line.startswith("failuremap-edu: warning: weak checks:") or (inside and line.startswith("  "))
        if not inside:
            out.append(line)
    return "".join(out)


def refusal(folder: Path, **files: str) -> str:
    fill(folder, **files)
    with pytest.raises(AuthoringError) as info:
        build_record(folder, timeout=3.0)
    message = str(info.value)
    assert "\n" not in message
    return message


# --------------------------------------------------------------- the whole path


def test_record_new_writes_a_readable_folder_that_builds_as_it_is(tmp_path, capsys):
    out = tmp_path / "new"
    assert main(["record", "new", "TR-NEW-1", "-o", str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == sorted(FILES)
    text = tomllib.loads((out / "record.toml").read_text())
    assert text["id"] == "TR-NEW-1"
    raw = (out / "record.toml").read_text()
    for key in ("title", "category", "contract", "abstract", "failed_approach", "root_cause", "limitations", "variant_policy", "license"):
        assert key in text
        before = raw.split(f"\n{key} = ")[0].splitlines()[-1]
        assert before.startswith("# "), f"{key} has no comment explaining it"
    for name in ("solve_attempt.py", "solve_broken.py"):
        assert "def solve(items, size):" in (out / name).read_text()
    assert "check('exact multiple'" in (out / "checks.py").read_text()
    capsys.readouterr()
    assert main(["record", "build", str(out)]) == 0  # the worked example builds unchanged
    assert load_record(out / "TR-NEW-1.json").id == "TR-NEW-1"
    assert "parity holds" in capsys.readouterr().out


def test_a_filled_in_folder_builds_a_record_that_verifies_and_makes_a_notebook_and_a_workshop(folder, tmp_path, capsys):
    out = tmp_path / "TR-AUTH-1.json"
    assert main(["record", "build", str(folder), "-o", str(out)]) == 0
    printed = capsys.readouterr()
    assert without_weak_checks(printed.err) == ""
    assert f"{out}: record TR-AUTH-1, 5 checks; attempt fails 2 of 5 checks; broken fails 4 of 5 checks\n" in printed.out

    record = load_record(out)
    assert record.contract_signature == "rows, max_len" and record.checks == 5 and record.license == "CC-BY-4.0"
    assert record.failed_approach == "row[:max_len] is the first slice that comes to mind.\nIt keeps the oldest tokens."
    assert record.implementations["attempt"].source == assemble("", ATTEMPT.strip(), CHECKS.strip())
    assert record.provenance["created_by"] == "a test"
    recorded = record.verification["attempt"]
    assert (recorded.exit_code, recorded.passed) == (1, False)
    assert [o.passed for o in recorded.observations] == [True, False, True, True, False]
    assert recorded.observations[1].actual == [[1, 2]]
    assert json.loads(recorded.stdout)["observations"][1]["expected"] == [[3, 4]]
    assert verify_record(record).ok

    assert main(["verify", str(out)]) == 0
    assert main(["notebook", str(out), "-o", str(tmp_path / "nb")]) == 0
    notebook = tmp_path / "nb" / "TR-AUTH-1.ipynb"
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--nbval-lax", "--nbval-current-env", "-c", "/dev/null", str(notebook)],
        capture_output=True, text=True, timeout=600, cwd=tmp_path / "nb",
    )
    assert proc.returncode == 0, proc.stdout[-3000:]
    assert " passed" in proc.stdout and "failed" not in proc.stdout

    capsys.readouterr()
    solutions = tmp_path / "solutions"
    solutions.mkdir()
    (solutions / "TR-AUTH-1.py").write_text("def solve(rows, max_len):\n    return [row[len(row) - max_len:] if len(row) > max_len else row for row in rows]\n")
    assert main(["workshop", str(out), "-o", str(tmp_path / "day-1"), "--solutions", str(solutions)]) == 0
    assert "day-1: 1 exercise, 2 notebooks for learners" in capsys.readouterr().out
    assert (tmp_path / "day-1" / "notebooks" / "TR-AUTH-1.ipynb").is_file()
    assert json.loads((tmp_path / "day-1" / "notebooks" / "records" / "TR-AUTH-1.json").read_text()) == json.loads(out.read_text())
    assert "reference = fm.Exercise" in (tmp_path / "day-1-instructor" / "notebooks" / "TR-AUTH-1.ipynb").read_text()  # the instructor notebook


def test_build_writes_into_the_folder_by_default_and_replaces_only_its_own_file(folder, capsys):
    assert main(["record", "build", str(folder)]) == 0
    built = folder / "TR-AUTH-1.json"
    assert load_record(built).id == "TR-AUTH-1"
    assert main(["record", "build", str(folder)]) == 0  # its own file: rebuilt
    foreign = folder / "other.json"
    foreign.write_text('{"mine": true}\n')
    capsys.readouterr()
    assert main(["record", "build", str(folder), "-o", str(foreign)]) == 2
    assert without_weak_checks(capsys.readouterr().err) == (
        f"failuremap-edu: error: {foreign}: exists and was not written by record build; choose another -o FILE or pass --force\n"
    )
    assert foreign.read_text() == '{"mine": true}\n'
    assert main(["record", "build", str(folder), "-o", str(foreign), "--force"]) == 0


def test_record_new_needs_an_id_or_a_record_to_start_from(tmp_path, capsys):
    assert main(["record", "new", "-o", str(tmp_path / "x")]) == 2
    assert capsys.readouterr().err == "failuremap-edu: error: record new: give the new record's ID (or --from RECORD)\n"
    assert not (tmp_path / "x").exists()


def test_record_new_never_writes_into_a_folder_that_has_files(tmp_path, capsys):
    out = tmp_path / "taken"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    assert main(["record", "new", "TR-1", "-o", str(out)]) == 2
    assert capsys.readouterr().err == f"failuremap-edu: error: {out}: exists and is not an empty folder; record new writes only into a new or empty folder\n"
    assert sorted(p.name for p in out.iterdir()) == ["notes.txt"]


# ------------------------------------------------------------------- round trip


def test_round_trip_of_fa_100786_gives_its_implementations_and_verification(tmp_path, capsys):
    src = tmp_path / "fa"
    assert main(["record", "new", "--from", "FA-100786", "-o", str(src)]) == 0
    assert "def solve(text, stops):" in (src / "solve_attempt.py").read_text()
    out = tmp_path / "FA-100786.json"
    assert main(["record", "build", str(src), "-o", str(out)]) == 0
    packaged = json.loads((packaged_records_dir() / "FA-100786.json").read_text())
    built = json.loads(out.read_text())
    assert built["implementations"] == packaged["implementations"]  # sources and their sha256
    for name in ("attempt", "broken"):
        want, got = packaged["verification"][name], built["verification"][name]
        assert {k: v for k, v in got.items() if k != "elapsed_ms"} == {k: v for k, v in want.items() if k != "elapsed_ms"}
        assert got["elapsed_ms"] > 0
    for key in ("title", "contract", "contract_signature", "abstract", "failed_approach", "root_cause", "category", "checks"):
        assert built[key] == packaged[key]
    assert built["provenance"]["license"] == "CC0-1.0"


@pytest.mark.parametrize("record_id", own_params())
def test_round_trip_of_every_test_record(record_id, tmp_path):
    """Preambles with helpers, N loops, a crashing harness, := in checks: all come back byte for byte."""
    original = json.loads(record_path(record_id).read_text())
    write_folder(tmp_path / "src", from_record=str(record_path(record_id)))
    built = build_record(tmp_path / "src")
    assert built.data["implementations"] == original["implementations"]
    for name in ("attempt", "broken"):
        want, got = original["verification"][name], built.data["verification"][name]
        assert {k: v for k, v in got.items() if k != "elapsed_ms"} == {k: v for k, v in want.items() if k != "elapsed_ms"}
    assert built.data["contract_signature"] == original["contract_signature"]


def test_record_edit_writes_the_same_folder_as_new_from(tmp_path, capsys):
    assert main(["record", "edit", "FA-100061", "-o", str(tmp_path / "a")]) == 0
    assert main(["record", "new", "--from", "FA-100061", "-o", str(tmp_path / "b")]) == 0
    for name in FILES:
        assert (tmp_path / "a" / name).read_text() == (tmp_path / "b" / name).read_text()
    assert tomllib.loads((tmp_path / "a" / "record.toml").read_text())["id"] == "FA-100061"


def test_a_record_not_in_the_script_shape_cannot_become_a_folder(tmp_path):
    data = json.loads(record_path("TR-000101").read_text())
    source = data["implementations"]["broken"]["source"].replace("import json\n", "import json  # changed\n", 1)
    assert split_script(source) is None
    import hashlib

    data["implementations"]["broken"] = {"source": source, "sha256": hashlib.sha256(source.encode()).hexdigest()}
    path = tmp_path / "odd.json"
    path.write_text(json.dumps(data))
    with pytest.raises(AuthoringError, match=r"odd\.json: implementations\.broken\.source: not in the Failure Map's script shape"):
        write_folder(tmp_path / "src", from_record=str(path))
    assert not (tmp_path / "src").exists()


# --------------------------------------------------------------------- refusals


def test_refused_parameters_that_differ(folder):
    message = refusal(folder, solve_broken_py="import re\n\ndef solve(rows, limit):\n    return rows\n")
    assert message == (
        f"{folder}/solve_broken.py:3: solve(rows, limit) has other parameters than {folder}/solve_attempt.py:1: "
        "solve(rows, max_len); both must take the same"
    )


def test_refused_an_attempt_that_passes_every_check(folder):
    correct = "# looks right\n\ndef solve(rows, max_len):\n    return [row[len(row) - max_len:] if len(row) > max_len else row for row in rows]\n"
    message = refusal(folder, solve_attempt_py=correct)
    assert message == f"{folder}/solve_attempt.py:3: the attempt passes every check (5/5) (with every N from 1 to 5), so there is nothing to teach: it must fail at least one"


def test_refused_a_broken_that_passes_every_check(folder):
    correct = "def solve(rows, max_len):\n    return [row[len(row) - max_len:] if len(row) > max_len else row for row in rows]\n"
    message = refusal(folder, solve_broken_py=correct)
    assert message.startswith(f"{folder}/solve_broken.py:1: the broken implementation passes every check (5/5)")


def test_refused_an_expected_value_that_json_cannot_serialize(folder):
    checks = CHECKS + "check('as a set', solve([[1, 2]], 1), {2})\n"
    message = refusal(folder, checks_py=checks)
    assert message.startswith(f"{folder}/checks.py:6: the expected value of check 'as a set' is a set, which cannot be serialized as JSON")


@pytest.mark.parametrize("expected, what", [("b'x'", "a bytes"), ("float('nan')", "the float nan"), ("{(1, 2): 3}", "a dict with a tuple key"), ("[[1], {3}]", "a list holding a set")])
def test_refused_other_values_json_cannot_serialize(folder, expected, what):
    message = refusal(folder, checks_py=f"# the checks\n\ncheck('one', solve([[1]], 1), {expected})\n")
    assert message.startswith(f"{folder}/checks.py:3: the expected value of check 'one' is {what}, which cannot be serialized as JSON")


def test_a_record_over_the_size_cap_is_refused_from_the_scripts_runs_before_any_replay(folder, monkeypatch):
    """Its size is known once the two scripts have run: the replays and verification of such values (81 s at 10^6 ints) never start."""
    from failuremap_edu import _records
    from failuremap_edu.instructor import _authoring

    replays: list = []
    monkeypatch.setattr(_records, "MAX_RECORD_BYTES", 200_000)  # 10^4 ints stand for 10^6 under the real 64 MiB
    monkeypatch.setattr(_authoring, "replay", lambda *args, **kwargs: replays.append(args))
    message = refusal(folder, checks_py=CHECKS + "check('big', solve([list(range(10_000))], 10_000), [list(range(10_000))])\n")
    assert replays == []
    assert message.startswith(f"{folder}: the record would be ") and "records over 200,000 bytes are refused" in message, message
    assert "the expected value of check 'big'" in message or "the actual value of check 'big'" in message, message


def test_refused_fixtures_that_crash_before_the_first_check(folder):
    message = refusal(folder, checks_py="rows = make_rows(3)\n" + CHECKS)
    assert message == (
        f"{folder}/checks.py:1: the fixture code raised NameError: name 'make_rows' is not defined before the first check (in the attempt's script)"
    )


def test_refused_a_preamble_that_crashes(folder):
    message = refusal(folder, solve_broken_py="import no_such_module_here\n\ndef solve(rows, max_len):\n    return rows\n")
    assert message.startswith(f"{folder}/solve_broken.py:1: the fixture code raised ModuleNotFoundError")
    assert message.endswith("before the first check (in the broken implementation's script)")


def test_a_solve_that_raises_in_a_check_is_a_recorded_crash_not_a_refusal(folder):
    fill(folder, solve_broken_py="def solve(rows, max_len):\n    return rows[max_len]\n")
    built = build_record(folder)
    assert built.record.verification["broken"].crashed
    stderr = built.record.verification["broken"].stderr  # the first check: line 10; solve's return: line 7
    assert 'File "/tmp/failure_map_script.py", line 10, in <module>' in stderr and 'line 7, in solve' in stderr
    assert "crash reproduced" in built.parity


def test_refused_a_script_that_does_not_finish_within_the_limit(folder):
    looping = "def solve(rows, max_len):\n    out = []\n    while len(out) < len(rows): pass\n    return out\n"  # the loop: one line
    message = refusal(folder, solve_attempt_py=looping)
    assert message == (
        f"{folder}/checks.py:1: the attempt's script did not finish within 3 s (stopped in {folder}/solve_attempt.py:3); is there an infinite loop?"
    )


def test_refused_fixture_code_that_does_not_finish(folder):
    message = refusal(folder, checks_py=CHECKS + "while True:\n    pass\n")
    assert message == f"{folder}/checks.py:6: the attempt's script did not finish within 3 s; is there an infinite loop?"


def test_refused_a_script_that_exits_without_printing(folder):
    message = refusal(folder, solve_broken_py="import os\n\ndef solve(rows, max_len):\n    os._exit(0)\n")
    assert message.startswith(f"{folder}/solve_broken.py:3: the broken implementation's script ended with exit code 0 without printing")


def test_refusals_reach_the_cli_as_one_line(folder, capsys):
    fill(folder, solve_broken_py="def solve(rows):\n    return rows\n")
    assert main(["record", "build", str(folder)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"failuremap-edu: error: {folder}/solve_broken.py:1: solve(rows) has other parameters")
    assert not (folder / "TR-AUTH-1.json").exists()


@pytest.mark.parametrize(
    "files, expected",
    [
        (dict(checks_py="check('a', solve([1], 1), [[1]]\n"), "checks.py:1: syntax error: '(' was never closed"),
        (dict(checks_py="x = 1\n"), "checks.py: has no check('label', solve(...), expected) call"),
        (dict(checks_py="# help\n\ncheck('a', solve([1], 1))\n"), "checks.py:3: check() takes three values"),
        (dict(solve_attempt_py="def other(rows):\n    return rows\n"), "solve_attempt.py: defines no top-level def solve(...)"),
        (dict(record_toml=TEXT + 'titel = "typo"\n'), "record.toml:11: unknown field 'titel'"),
        (dict(record_toml='id = "TR-AUTH-1"\ntitle = ""\n'), "record.toml:2: title is empty; it is required"),
        (dict(record_toml='id = "TR-AUTH-1\n'), "record.toml:1: not valid TOML"),
        (dict(record_toml=TEXT.replace('license = "CC-BY-4.0"', "license = 4")), "record.toml:9: license must be a string, got int"),
    ],
)
def test_refused_unreadable_sources_name_the_file_and_line(folder, files, expected):
    assert refusal(folder, **files).startswith(f"{folder}/{expected}")


def test_a_missing_file_is_named(folder):
    (folder / "checks.py").unlink()
    with pytest.raises(AuthoringError, match=r"checks\.py: no such file \(record new writes it\)"):
        build_record(folder)


# --------------------------------------------------------------------- warnings


def test_a_warning_when_attempt_and_broken_fail_the_same_checks_the_same_way(folder, capsys):
    fill(folder, solve_attempt_py=BROKEN)
    assert main(["record", "build", str(folder)]) == 0
    err = without_weak_checks(capsys.readouterr().err)
    assert err.startswith(f"failuremap-edu: warning: {folder}: the attempt and the broken implementation fail exactly the same checks ")
    assert "the story needs them to differ" in err and err.count("\n") == 1


def test_no_warning_when_they_fail_differently(folder):
    assert build_record(folder).warnings == ()


# ------------------------------------------------------------------- the parts


def test_help_comments_are_left_out_and_the_authors_own_comments_kept(folder):
    attempt = "# my help text\n# more\n\n# keeps the start\nimport math\n\n\ndef solve(rows, max_len):\n    return [row[:max_len] for row in rows]\n"
    fill(folder, solve_attempt_py=attempt)
    source = build_record(folder).record.implementations["attempt"].source
    assert "my help text" not in source
    assert assemble("# keeps the start\nimport math\n", "def solve(rows, max_len):\n    return [row[:max_len] for row in rows]", CHECKS.strip()) == source


@pytest.mark.parametrize("text", ["plain", 'quo"te \\ back', "two\nlines", 'ends with a quote"', "tab\tand \x7f and \x01", "ünïcødé 🙂", '"""', "\n", ""])
def test_toml_strings_read_back_as_written(text):
    assert tomllib.loads(f"x = {_toml_string(text)}\n")["x"] == text


def test_split_script_takes_apart_what_assemble_puts_together():
    script = assemble("import re\n", "def solve(x):\n    return x", "check('a', solve(1), 1)")
    assert split_script(script) == ("import re\n", "def solve(x):\n    return x", "check('a', solve(1), 1)")
    for record_id in ("FA-100786", "FA-100061"):
        assert split_script(load_record(record_id).implementations["attempt"].source) is not None


def test_build_does_not_write_through_a_symbolic_link(folder, tmp_path, capsys):
    target = tmp_path / "elsewhere.json"
    target.write_text("theirs\n")
    (folder / "TR-AUTH-1.json").symlink_to(target)
    assert main(["record", "build", str(folder)]) == 2
    assert "is a symbolic link; record build does not write through it" in capsys.readouterr().err
    assert target.read_text() == "theirs\n"


def test_a_lone_surrogate_in_a_records_text_becomes_a_replacement_character(tmp_path):
    data = json.loads(record_path("TR-000101").read_text())
    data["title"] = "broken \ud800 text"
    path = tmp_path / "odd.json"
    path.write_text(json.dumps(data))  # ASCII-escaped: valid JSON holding a lone surrogate
    write_folder(tmp_path / "src", from_record=str(path))
    assert tomllib.loads((tmp_path / "src" / "record.toml").read_text())["title"] == "broken \ufffd text"


def test_an_attempt_that_passes_with_n_1_but_fails_other_variants_is_told_where(folder):
    """The record's own run uses N = 1; build checked only that and said nothing of the rest (instructor trial)."""
    fails_later = "def solve(rows, max_len):\n    out = [row[len(row) - max_len:] if len(row) > max_len else row for row in rows]\n    return out if len(rows) < 3 else out[:-1]\n"
    message = refusal(folder, solve_attempt_py=fails_later)
    assert message == (
        f"{folder}/solve_attempt.py:1: the attempt passes every check (5/5) (with N = 1, the variant the record's own run uses; "
        "it fails with N = 3, 4, 5: make it fail with N = 1 too), so there is nothing to teach: it must fail at least one"
    )


def test_a_check_whose_own_expression_raises_for_both_is_warned_and_the_summary_counts_the_checks(folder, capsys):
    """`solve([], 2)[0]` raises in the check itself: learners would see an error that is not theirs (instructor trial)."""
    fill(folder, checks_py=CHECKS + "check('empty batch', solve([], 2)[0], [])\n")
    assert main(["record", "build", str(folder)]) == 0
    out, err = capsys.readouterr()
    assert without_weak_checks(err) == (
        f"failuremap-edu: warning: {folder}/checks.py:6: check 'empty batch' raises IndexError for both the attempt and the broken "
        "implementation with N = 1: if that is the check's own expression and not solve, fix it, or learners get an error that is not theirs\n"
    )
    assert "attempt fails 3 of 6 checks (its own run stops at check 'empty batch': IndexError); broken fails 5 of 6 checks" in out


def test_a_failed_build_says_the_file_there_is_an_earlier_build(folder, capsys):
    assert main(["record", "build", str(folder)]) == 0
    fill(folder, solve_broken_py="def solve(rows, limit):\n    return rows\n")
    capsys.readouterr()
    assert main(["record", "build", str(folder)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.rstrip().endswith(f"; nothing was written ({folder}/TR-AUTH-1.json is an earlier build)")


def test_the_template_holds_plain_text_and_says_so(tmp_path):
    write_folder(tmp_path / "new", "TR-NEW-1")
    text = (tmp_path / "new" / "record.toml").read_text(encoding="utf-8")
    values = tomllib.loads(text)
    assert "`" not in values["contract"] and "`" not in values["limitations"]
    assert "plain text, shown as written (no Markdown" in text
