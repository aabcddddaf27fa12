"""The failuremap-edu command: outputs, JSON schema, exit codes, one-line errors."""

from __future__ import annotations

import errno
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import LONE, REFERENCES, alive_with as _alive_with, record_path, solution_path, with_lone_surrogates
from failuremap_edu import load_record, run_checks
from failuremap_edu.instructor._cli import main

from failuremap_edu.instructor._notebook import reference_path
from failuremap_edu._progress import unsaved_note

REFERENCE = reference_path("FA-100786", REFERENCES).read_text()


@pytest.fixture
def solution(tmp_path):
    def write(source: str, name: str = "solution.py"):
        path = tmp_path / name
        path.write_text(source)
        return str(path)

    return write


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_list(capsys):
    code, out, _ = run(capsys, "list")
    assert code == 0
    assert out.splitlines() == [
        "FA-100061  6 checks  Preference pairs: replayed response IDs create duplicate pairs · case 01",
        "FA-100786  6 checks  Output stopping: Streaming buffer emits partial stop prefixes too early · case 01",
    ]
    code, out, _ = run(capsys, "list", "--json")
    assert [r["id"] for r in json.loads(out)] == ["FA-100061", "FA-100786"]


def test_show_text_and_json(capsys):
    code, out, _ = run(capsys, "show", "FA-100786")
    assert code == 0 and "solve(text, stops): For a stream suffix" in out
    assert "line 11: partial marker held" in out
    code, out, _ = run(capsys, "show", "FA-100786", "--json")
    data = json.loads(out)
    assert data["fixtures"][0] == {
        "label": "partial marker held", "line": 11, "call": "solve('hello<st', ['<stop>'])",
        "expected": "('hello', '<st')", "dynamic": False,
    }
    assert data["recorded"]["broken"] == {"passed": False, "exit_code": 1, "checks": 6, "crashed": False}


def test_show_escapes_terminal_control_sequences(capsys, raw_record, write_record):
    raw_record["title"] = "evil \x1b[31mred\x1b[0m title"
    code, out, _ = run(capsys, "show", str(write_record(raw_record)))
    assert code == 0 and "\x1b" not in out and "evil \\x1b[31mred" in out


def test_check_passing_solution(capsys, solution):
    code, out, _ = run(capsys, "check", "FA-100786", solution(REFERENCE))
    assert (code, out) == (0, "6/6 checks pass\n")


def test_check_of_checks_that_depend_on_n_says_which_n_ran(capsys, solution):
    """A trial's terminal printed "4/6 checks pass (2 fail)" and nothing said that N = 1 ran (its file had N = 3)."""
    code, out, _ = run(capsys, "check", "FA-100061", solution("def solve(candidates):\n    return None\n"), "--variant", "3")
    assert code == 1 and out.startswith("== variant N=3 (the checks depend on N: --variant N or --all-variants for the others)\n")
    code, out, _ = run(capsys, "check", "FA-100786", solution(REFERENCE))  # its checks do not read N: no such line
    assert out == "6/6 checks pass\n"


def test_check_failing_solution_text(capsys, solution):
    code, out, _ = run(capsys, "check", "FA-100786", solution("def solve(text, stops):\n    return text, ''\n"))
    assert code == 1
    assert out.startswith("4/6 checks pass (2 fail)\n")
    assert "✗ fail: partial marker held (record line 11)" in out and "expected: ('hello', '<st')" in out
    assert "    - [0]: expected 'hello', got 'hello<st'" in out


def test_check_json_schema(capsys, solution):
    code, out, _ = run(capsys, "check", "FA-100061", solution("def solve(candidates):\n    return None\n"), "--all-variants", "--json")
    assert code == 1
    data = json.loads(out)
    assert data["record"] == "FA-100061"
    assert [r["variant"] for r in data["runs"]] == [1, 2, 3, 4, 5]
    run0 = data["runs"][0]
    assert run0["passed"] is False and run0["summary"] == "2/6 checks pass (4 fail)"
    obs = run0["observations"][0]
    assert set(obs) == {
        "index", "check", "status", "passed", "actual", "expected", "actual_repr", "expected_repr", "call",
        "compared", "returned", "line", "error", "stdout", "stdout_dropped", "elapsed_ms", "mutation", "verdict_note",
        "judged_in_solve_process", "calls", "calls_omitted",
    }
    assert (obs["check"], obs["status"], obs["actual"], obs["expected"]) == ("replay same id", "fail", None, ["a1", "b1"])
    assert data["runs"][2]["observations"][0]["expected"] == ["a3", "b3"]


def test_check_json_reports_errors_and_timeouts(capsys, solution):
    src = "def solve(text, stops):\n    if text == 'x':\n        while True: pass\n    raise ValueError('<bad>')\n"
    code, out, _ = run(capsys, "check", "FA-100786", solution(src), "--timeout", "0.3", "--json")
    obs = json.loads(out)["runs"][0]["observations"]
    assert [o["status"] for o in obs] == ["error"] * 5 + ["timeout"]
    assert obs[0]["error"]["type"] == "ValueError" and obs[0]["error"]["message"] == "<bad>"
    assert obs[5]["error"]["type"] == "Timeout"


@pytest.mark.parametrize(
    "argv, message",
    [
        (["check", "FA-100786", "{missing}"], "solution.py: no such file"),
        (["check", "FA-100786", "{nosolve}"], "defines no top-level function 'solve'"),
        (["check", "FA-100786", "{wrongsig}"], "does not fit the contract solve(text, stops)"),
        (["check", "FA-000000", "{good}"], "FA-000000: no packaged record with this id"),
        (["show", "{badjson}"], "not valid JSON"),
        (["verify", "{badjson}"], "not valid JSON"),
    ],
)
def test_bad_input_exits_2_with_one_line(capsys, tmp_path, solution, argv, message):
    files = {
        "missing": str(tmp_path / "solution.py"),
        "nosolve": solution("x = 1\n", "nosolve.py"),
        "wrongsig": solution("def solve(text):\n    return text\n", "wrongsig.py"),
        "good": solution(REFERENCE, "good.py"),
        "badjson": solution("{", "bad.json"),
    }
    argv = [a.format(**files) for a in argv]
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and message in err and "Traceback" not in err


@pytest.mark.parametrize("argv", [[], ["frobnicate"], ["check", "FA-100786"], ["check", "FA-100786", "x.py", "--variant", "9"],
                                   ["check", "FA-100786", "x.py", "--variant", "2", "--all-variants"], ["check", "FA-100786", "x.py", "--timeout", "-1"]])
def test_bad_usage_exits_2(capsys, argv):
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert "error:" in err and "Traceback" not in err


def test_verify_all_packaged(capsys):
    code, out, _ = run(capsys, "verify")
    assert code == 0
    assert out.splitlines() == [
        "FA-100061: parity holds — attempt: 6 checks identical; broken: 6 checks identical",
        "FA-100786: parity holds — attempt: 6 checks identical; broken: 6 checks identical",
        "2 verified, 2 with parity, 0 broken, 0 unreadable",
    ]


def test_verify_json_and_broken_parity(capsys, write_record):
    data = json.loads(record_path("TR-000101").read_text())
    data["verification"]["attempt"]["observations"][0]["passed"] = True
    code, out, _ = run(capsys, "verify", "--json", "FA-100786", str(write_record(data)))
    assert code == 1
    report = json.loads(out)
    assert report["ok"] is False
    assert [r["ok"] for r in report["records"]] == [True, False]


def test_check_own_record_by_path_all_variants(capsys):
    code, out, _ = run(capsys, "check", str(record_path("TR-000202")), str(solution_path("TR-000202")), "--all-variants")
    assert code == 0
    assert [l for l in out.splitlines() if "checks pass" in l] == [
        "5/5 checks pass", "6/6 checks pass", "7/7 checks pass", "8/8 checks pass", "9/9 checks pass",
        "== all 5 variants: 35/35 checks pass: every variant passes",
    ]


def test_check_all_variants_sandboxed_says_the_sandbox_once_and_which_variants_fail(bwrap, tmp_path):
    path = tmp_path / "wrong.py"
    path.write_text(solution_path("TR-000202").read_text().replace("unicodedata.normalize('NFC', text)", "text"))
    code, out, _ = cli("check", record_path("TR-000202"), path, "--all-variants", "--sandbox")
    assert code == 1 and out.count("note: checks ran in a sandbox") == 1
    assert out.splitlines()[-1] == "== all 5 variants: 30/35 checks pass; not every check passes for N = 1, 2, 3, 4, 5"


def test_python_dash_m_entry_point():
    proc = subprocess.run([sys.executable, "-m", "failuremap_edu", "verify", "FA-100786"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and "parity holds" in proc.stdout and proc.stderr == ""


CHECKOUT = str(Path(__file__).resolve().parents[1])


@pytest.mark.parametrize("entry", [["-c", "from failuremap_edu.instructor._cli import main; main()"], ["-m", "failuremap_edu"]], ids=["script", "dash-m"])
def test_check_imports_a_module_beside_the_solution_file_from_another_folder(entry, tmp_path):
    """The console script has its bin folder first on sys.path (what `-c` run elsewhere reproduces); `-m` has the cwd."""
    (tmp_path / "sol").mkdir()
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "sol" / "fm_helper_beside.py").write_text(REFERENCE)
    (tmp_path / "sol" / "sol.py").write_text("from fm_helper_beside import solve as _solve\n\ndef solve(text, stops):\n    return _solve(text, stops)\n")
    env = {**os.environ, "PYTHONPATH": CHECKOUT}
    proc = subprocess.run([sys.executable, *entry, "check", "FA-100786", "../sol/sol.py", "--json"], capture_output=True, text=True,
                          timeout=120, cwd=tmp_path / "elsewhere", env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert [run["passed"] for run in json.loads(proc.stdout)["runs"]] == [True]


def test_show_and_check_take_the_packaged_record_over_a_same_named_folder(capsys, solution, tmp_path, monkeypatch):
    path = solution(REFERENCE)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "FA-100786").mkdir()  # what `record edit FA-100786` makes
    code, out, _ = run(capsys, "show", "FA-100786", "--json")
    assert code == 0 and json.loads(out)["id"] == "FA-100786"
    code, out, _ = run(capsys, "check", "FA-100786", path, "--json")
    assert code == 0 and [r["passed"] for r in json.loads(out)["runs"]] == [True]
    code, _, err = run(capsys, "show", "./FA-100786")
    assert code == 2 and "is a directory" in err


def test_check_writes_html_report_and_plot(capsys, solution, tmp_path):
    html, png = tmp_path / "report.html", tmp_path / "grid.png"
    code, out, err = run(capsys, "check", "FA-100786", solution(REFERENCE), "--html", str(html), "--plot", str(png))
    assert code == 0 and err == ""
    page = html.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and "&lt;stop&gt;" in page and "<stop>" not in page
    assert "yours" in page and "attempt" in page and "broken" in page
    assert png.read_bytes()[:4] == b"\x89PNG"


def test_check_plot_needs_png_or_svg(capsys, solution, tmp_path):
    code, out, err = run(capsys, "check", "FA-100786", solution(REFERENCE), "--plot", str(tmp_path / "grid.pdf"))
    assert code == 2 and "--plot needs a .png or .svg file name" in err


def test_verify_records_dir_reports_malformed_records_and_verifies_the_rest(capsys, tmp_path):
    import shutil

    from failuremap_edu._records import packaged_records_dir

    for path in [*packaged_records_dir().glob("*.json"), record_path("TR-000303")]:
        shutil.copy(path, tmp_path)
    (tmp_path / "broken.json").write_text("[1]")
    (tmp_path / "empty.json").write_text("")
    code, out, err = run(capsys, "verify", "--records-dir", str(tmp_path), "--jobs", "2")
    assert code == 2
    assert err.splitlines() == [
        f"failuremap-edu: error: {tmp_path / 'broken.json'}: expected a JSON object, got an array",
        f"failuremap-edu: error: {tmp_path / 'empty.json'}: empty file; expected a JSON object",
    ]
    assert out.splitlines()[-1] == "3 verified, 3 with parity, 0 broken, 2 unreadable"
    code, out, _ = run(capsys, "verify", "--records-dir", str(tmp_path), "--json")
    data = json.loads(out)
    assert code == 2 and data["ok"] is False and len(data["records"]) == 3 and len(data["errors"]) == 2


def test_list_records_dir(capsys, tmp_path):
    import shutil

    shutil.copy(record_path("TR-000101"), tmp_path)
    code, out, _ = run(capsys, "list", "--records-dir", str(tmp_path))
    assert code == 0 and out.startswith("TR-000101  6 checks  Top-k counts")



def test_check_html_to_an_unwritable_place_is_one_line(capsys, solution, tmp_path):
    code, out, err = run(capsys, "check", "FA-100786", solution(REFERENCE), "--html", str(tmp_path / "missing" / "r.html"))
    assert code == 2 and err.count("\n") == 1 and "cannot write" in err and "Traceback" not in err


def test_unwritable_outputs_are_one_line_errors(capsys, solution, tmp_path):
    missing = tmp_path / "no" / "such" / "folder"
    for argv in (["export", "--out", str(missing / "x.json")],
                 ["check", "FA-100786", solution(REFERENCE), "--plot", str(missing / "g.png")],
                 ["notebook", "FA-100786", "-o", str(tmp_path / "file.txt")]):
        if argv[0] == "notebook":
            (tmp_path / "file.txt").write_text("not a folder")
        code, out, err = run(capsys, *argv)
        assert code == 2 and err.count("\n") == 1 and "Traceback" not in err, (argv, err)


def test_a_closed_pipe_ends_the_command_quietly(tmp_path):
    """`failuremap-edu list | head -1`: the reader leaves early; no traceback, no 'Exception ignored'."""
    import os

    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader is gone before the command writes its first line
    try:
        proc = subprocess.run([sys.executable, "-m", "failuremap_edu", "list"], stdout=write_end, stderr=subprocess.PIPE, text=True, timeout=60)
    finally:
        os.close(write_end)
    assert proc.stderr == ""
    assert proc.returncode == 141  # 128 + SIGPIPE, what a shell reports for a writer whose reader left


def test_list_piped_into_head_in_a_real_shell(tmp_path):
    import os

    for i in range(800):  # more than a pipe buffer holds, so the writer is still writing when head leaves
        os.symlink(record_path("TR-000101"), tmp_path / f"r{i:04}.json")
    command = f"{sys.executable} -m failuremap_edu list --records-dir {tmp_path} | head -1"
    proc = subprocess.run(["bash", "-c", command], capture_output=True, text=True, timeout=120)
    assert proc.stdout == "TR-000101  6 checks  Top-k counts: ties broken by insertion order · <b>test</b> record\n"
    assert proc.stderr == "" and proc.returncode == 0


def _readme_schema() -> dict:
    from pathlib import Path

    section = (Path(__file__).resolve().parent.parent / "docs" / "reference" / "json-schema.md").read_text(encoding="utf-8")
    return json.loads(section.split("```json", 1)[1].split("```", 1)[0])


def test_check_json_has_exactly_the_keys_the_readme_documents(capsys, solution):
    """One schema: `check --json` is RunResult.to_json, and the docs' example (reference/json-schema.md) shows every key."""
    documented = _readme_schema()
    code, out, _ = run(capsys, "check", "FA-100786", solution("def solve(text, stops):\n    return text, ''\n"), "--json")
    data = json.loads(out)
    assert set(data) == set(documented)
    assert set(data["runs"][0]) == set(documented["runs"][0])
    assert set(data["runs"][0]["observations"][0]) == set(documented["runs"][0]["observations"][0])


def test_check_json_runs_are_run_result_to_json(capsys, solution, monkeypatch):
    from failuremap_edu import _results

    seen = []
    original = _results.RunResult.to_json
    monkeypatch.setattr(_results.RunResult, "to_json", lambda self: seen.append(self) or original(self))
    code, out, _ = run(capsys, "check", "FA-100786", solution(REFERENCE), "--all-variants", "--json")
    data = json.loads(out)
    assert [r.variant for r in seen] == [1, 2, 3, 4, 5]
    assert data["runs"] == [json.loads(json.dumps(original(r))) for r in seen]


def test_check_json_problem_is_an_error_object(capsys, solution):
    src = "raise RuntimeError('at import')\ndef solve(text, stops):\n    return text, ''\n"
    code, out, _ = run(capsys, "check", "FA-100786", solution(src), "--json")
    problem = json.loads(out)["runs"][0]["problem"]
    assert code == 1 and set(problem) == {"type", "message", "traceback"}
    assert problem["type"] == "RuntimeError" and problem["message"].endswith("failed while loading: at import")


def test_check_all_variants_plot_gets_the_whole_title_and_runs_by_variant(capsys, solution, tmp_path, monkeypatch):
    from failuremap_edu import load_record
    from failuremap_edu.render import _plot as _render_plot

    seen = {}
    monkeypatch.setattr(_render_plot, "save_status", lambda runs, path, names, title: seen.update(runs=runs, names=names, title=title))
    code, out, err = run(capsys, "check", "FA-100786", solution(REFERENCE), "--all-variants", "--plot", str(tmp_path / "g.png"))
    record = load_record("FA-100786")
    assert code == 0 and seen["title"] == f"{record.id}: {record.title}"  # never cut short ('· case')
    assert seen["names"] == ["broken", "attempt", "yours"] * 5
    assert [r.variant for r in seen["runs"]] == [v for v in range(1, 6) for _ in range(3)]


def _docs_page(name: str) -> str:
    """A page of docs/reference/ (the manual the README used to hold)."""
    from pathlib import Path

    return (Path(__file__).resolve().parents[1] / "docs" / "reference" / name).read_text(encoding="utf-8")


def test_the_docs_synopsis_is_the_parsers_own():
    """Generated from argparse: a command or option added without docs/reference/cli.md fails here (and `workshop`'s
    options can no longer end up under `lite`)."""
    from failuremap_edu.instructor._cli import synopsis

    text = _docs_page("cli.md")
    block = text[text.index("```text\n", text.index("# Command line")) + len("```text\n"):]
    block = block[: block.index("```\n")]
    assert block == synopsis(), "run: python -c 'from failuremap_edu.instructor._cli import synopsis; print(synopsis(), end=\"\")' and paste it"
    assert block.count("failuremap-edu list ") == 1


def test_the_docs_json_example_has_the_outputs_keys_and_values():
    import json as _json

    from failuremap_edu._results import ISOLATIONS

    text = _docs_page("json-schema.md")
    start = text.index("```json\n", text.index("# `check --json` schema")) + len("```json\n")
    example = _json.loads(text[start : text.index("```\n", start)])
    run = example["runs"][0]
    assert run["isolation"] in ISOLATIONS
    real = run_checks(load_record("FA-100786"), lambda text, stops: (text, ""))
    assert set(run) == set(real.to_json()) and set(run["observations"][0]) == set(real.to_json()["observations"][0])
# ------------------------------------------------------------------ no input crashes anything (issue 19, section 3)

ROOT = Path(__file__).resolve().parent.parent
SURROGATE_SOLVE = (
    "def solve(text, stops):\n"
    "    if text == 'abc':\n"
    "        raise ValueError('bad \\ud800 message')\n"
    "    return text + '\\ud800', ''\n"
)


def _env(**extra) -> dict:
    return {**os.environ, **extra, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}


def cli(*argv, env=None, timeout=120) -> tuple[int, str, str]:
    """The command as a user runs it, in its own process: exit code, stdout, stderr (both must be UTF-8)."""
    proc = subprocess.run([sys.executable, "-m", "failuremap_edu", *map(str, argv)], capture_output=True, env=_env(**(env or {})), timeout=timeout)
    return proc.returncode, proc.stdout.decode("utf-8"), proc.stderr.decode("utf-8")


@pytest.fixture
def surrogate_record(raw_record, write_record):
    return write_record(json.dumps(with_lone_surrogates(raw_record)), "surrogates.json")  # JSON escapes: "\\ud800"


def test_lone_surrogates_in_a_record_are_shown_escaped_by_show_list_and_notebook(surrogate_record, tmp_path):
    for argv in (["show", surrogate_record], ["show", surrogate_record, "--json"]):
        code, out, err = cli(*argv)
        assert code == 0 and "Traceback" not in err and err == "", (argv, err)
        assert "bad \\ud800 title" in out and "partial marker held \\ud800" in out
    assert json.loads(cli("show", surrogate_record, "--json")[1])["title"] == f"bad {LONE} title"  # JSON's own escape: the same string
    folder = tmp_path / "records"
    folder.mkdir()
    shutil.copy(surrogate_record, folder / "BAD.json")
    shutil.copy(record_path("TR-000101"), folder)
    code, out, err = cli("list", "--records-dir", folder)
    assert code == 0 and "Traceback" not in err
    assert out.splitlines() == ["FA-100786  6 checks  bad \\ud800 title", "TR-000101  6 checks  Top-k counts: ties broken by insertion order · <b>test</b> record"]
    code, out, err = cli("list", "--records-dir", folder, "--json")
    assert code == 0 and [r["title"] for r in json.loads(out)][0] == f"bad {LONE} title"
    code, out, err = cli("notebook", surrogate_record, "-o", tmp_path / "nb")
    assert code == 0 and "Traceback" not in err
    notebook = (tmp_path / "nb" / "FA-100786.ipynb").read_text(encoding="utf-8")
    assert "bad \\\\ud800 category" in notebook  # the escape as text: the notebook holds no lone surrogate
    assert LONE not in json.dumps(json.loads(notebook), ensure_ascii=False)


def test_lone_surrogates_from_solve_and_its_errors_are_shown_escaped_by_check(surrogate_record, solution, tmp_path):
    path = solution(SURROGATE_SOLVE)
    code, out, err = cli("check", "FA-100786", path)
    assert code == 1 and "Traceback" not in err
    assert "bad \\ud800 message" in out and "'hello<st\\ud800'" in out
    code, out, err = cli("check", surrogate_record, path, "--json", "--html", tmp_path / "r.html", "--plot", tmp_path / "g.png")
    assert code == 1 and "Traceback" not in err, err
    (run_json,) = json.loads(out)["runs"]
    assert run_json["observations"][0]["check"] == f"partial marker held {LONE}" and run_json["observations"][0]["actual"][0] == f"hello<st{LONE}"
    assert any(o["error"] and o["error"]["message"] == f"bad {LONE} message" for o in run_json["observations"])
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert "bad \\ud800 title" in page and "bad \\ud800 message" in page and (tmp_path / "g.png").stat().st_size > 0


def test_a_record_with_a_huge_integer_is_one_line_and_the_rest_is_listed_and_verified(tmp_path, raw_record):
    text = json.dumps(raw_record)
    assert '"checks": 6' in text
    (tmp_path / "huge.json").write_text(text.replace('"checks": 6', '"checks": ' + "9" * 5_000))  # over Python's 4,300 digits
    shutil.copy(record_path("TR-000101"), tmp_path)
    code, out, err = cli("list", "--records-dir", tmp_path)
    assert code == 2 and "Traceback" not in err and out.startswith("TR-000101  6 checks")
    assert err.splitlines() == [f"failuremap-edu: error: {tmp_path / 'huge.json'}: cannot be read: Exceeds the limit (4300 digits) for integer string conversion: value has 5000 digits"]
    code, out, err = cli("verify", "--records-dir", tmp_path, "--jobs", "1", "FA-100061")
    assert code == 2 and "Traceback" not in err and len(err.splitlines()) == 1 and "huge.json" in err
    assert out.splitlines()[-1] == "2 verified, 2 with parity, 0 broken, 1 unreadable"


def handin(folder: Path, name: str, learner: str, code: str = "def solve(x):\n    return 1\n", label: str = "keeps order") -> Path:
    """A results download as the panel writes it (JSON escapes for whatever the id holds)."""
    data = {"record": "FA-1", "learner": learner, "checked_at": "20261201-100000", "solve": code,
            "runs": [{"variant": 1, "observations": [{"check": label, "status": "pass"}, {"check": "second", "status": "error",
                                                      "error": {"type": "ZeroDivisionError", "message": "x", "traceback": ""}}]}]}
    path = folder / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_report_survives_lone_surrogates_and_shows_no_terminal_escape(tmp_path):
    folder = tmp_path / "handed-in"
    folder.mkdir()
    handin(folder, "a.json", f"{LONE}bad-id-0123456789", label=f"keeps {LONE} order")
    handin(folder, "b.json", "\x1b[2J\x1b]52;c;SGVsbG8=\x07rest-of-id", code="def solve(x):\n    return '\x1b[2J'  # \x1b]52;c;SGVsbG8=\x07\n")
    (folder / "evil-\x1b[2J-\x1b]52;c;SGVsbG8=\x07.json").write_text("{not json")
    code, out, err = cli("report", folder, "--with-code", "--html", tmp_path / "r.html")
    assert code == 2 and "Traceback" not in err
    assert err.splitlines() == [f"failuremap-edu: left out of the report: {folder}/evil-\\x1b[2J-\\x1b]52;c;SGVsbG8=\\x07.json: not JSON"]
    assert out.startswith("Class report: 2 learners, 1 exercise, from 2 files")
    assert "\x1b" not in out and "\x07" not in out and "\\ud800bad-i" in out and "keeps \\ud800 order" in out
    assert "-- code of \\x1b[2J\\x1b]:" in out and "return '\\x1b[2J'" in out
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert "\\ud800bad-i" in page and "keeps \\ud800 order" in page
    code, out, err = cli("report", folder, "--json")
    assert code == 2 and "Traceback" not in err and "\x1b" not in err
    assert sorted(x["name"] for x in json.loads(out)["learners"]) == sorted(["\x1b[2J\x1b]", f"{LONE}bad-i"])  # JSON holds the data, escaped by JSON


def test_export_of_a_log_with_lines_of_the_wrong_shape(tmp_path):
    log = tmp_path / "progress.jsonl"
    good = {"record": "FA-100786", "variant": 1, "passed": 1, "total": 2, "statuses": ["pass", "fail"], "time": "t"}
    lines = [good, {**good, "passed": 1e999, "total": 1e999}, {**good, "statuses": "pass"}, {**good, "passed": 3}]
    log.write_text("".join(json.dumps(line) + "\n" for line in lines).replace("Infinity", "1e999"))
    assert "1e999" in log.read_text()
    code, out, err = cli("export", "--out", tmp_path / "x.json", env={"FAILUREMAP_PROGRESS": str(log)})
    assert code == 0 and "Traceback" not in err and out.startswith(f"from the progress log {log}: {tmp_path / 'x.json'}: 1 runs"), err
    data = json.loads((tmp_path / "x.json").read_text())
    assert len(data["attempts"]) == 1 and data["skipped_lines"] == 3


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_progress_log_that_is_a_fifo_never_blocks_a_run(tmp_path, solution):
    log = tmp_path / "progress.jsonl"
    os.mkfifo(log)
    env = _env(FAILUREMAP_PROGRESS=str(log))
    code = (
        "import failuremap_edu as fm\n"
        "e = fm.Exercise('FA-100786', timeout=1.0)\n"
        "e.check(lambda text, stops: (text, ''))\n"
        "print('=>', e.summary()); print('=>', e.log_note)\n"
        "e.check(lambda text, stops: (text, ''))\n"
        "print('=>', e.summary()); print('=>', e.log_note)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=90)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    lines = [line[3:] for line in proc.stdout.splitlines() if line.startswith("=> ")]  # outside IPython the panel is printed too
    unsaved = unsaved_note(log, OSError(errno.EINVAL, "not a regular file"))
    assert lines == ["4/6 checks pass (2 fail)", unsaved] * 2  # the result stays; every run not saved says so
    code, out, err = cli("export", "--out", tmp_path / "x.json", env={"FAILUREMAP_PROGRESS": str(log)}, timeout=60)
    assert code == 0 and "Traceback" not in err and out.startswith(f"from the progress log {log}: {tmp_path / 'x.json'}: 0 runs")


def test_file_names_in_error_lines_reach_the_terminal_escaped(tmp_path):
    shutil.copy(record_path("TR-000101"), tmp_path)
    (tmp_path / "\x1b]52;c;SGVsbG8=\x07\x1b[2J.json").write_text("[1]")
    code, out, err = cli("list", "--records-dir", tmp_path)
    assert code == 2 and out.startswith("TR-000101  6 checks") and "\x1b" not in err and "\x07" not in err
    assert err.splitlines() == [f"failuremap-edu: error: {tmp_path}/\\x1b]52;c;SGVsbG8=\\x07\\x1b[2J.json: expected a JSON object, got an array"]


LEAVES_BUSY_PROCESSES = '''
import os, subprocess, sys
LOOP = "import os, sys\\nif sys.argv[2] == 'detach' and os.fork() == 0:\\n    os.setsid()\\nwhile True:\\n    pass\\n"
def solve(text, stops):
    if os.fork() == 0:  # a fork that keeps busy, under the marker
        os.execv(sys.executable, [sys.executable, "-c", LOOP, "MARKER", "stay"])
    subprocess.Popen([sys.executable, "-c", LOOP, "MARKER", "detach"])  # its child: setsid, busy
    return text, ""
'''


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="finds processes through /proc")
def test_nothing_a_solve_starts_outlives_the_check_command(solution):
    """Forks and setsid grandchildren: all ended before `check` exits (not later, by a sweep that never ran)."""
    import os
    import time
    import uuid

    marker = f"fm-left-{uuid.uuid4().hex}"
    path = solution(LEAVES_BUSY_PROCESSES.replace("MARKER", marker))
    try:
        for _ in range(3):
            out = subprocess.run([sys.executable, "-m", "failuremap_edu", "check", "FA-100786", path], capture_output=True, text=True, timeout=120)
            assert "checks pass" in out.stdout, out.stderr
            time.sleep(0.2)  # what is killed may still be on its way out
            assert _alive_with(marker) == [], "processes of the run outlived the command"
    finally:
        for pid in _alive_with(marker):
            os.kill(pid, 9)


def test_check_never_prints_a_traceback_at_exit():
    """The standby's launcher thread is joined at exit: a child half-started prints EOFError otherwise."""
    argv = [sys.executable, "-m", "failuremap_edu", "check", "FA-100786", str(reference_path("FA-100786", REFERENCES))]
    for _ in range(10):
        out = subprocess.run(argv, capture_output=True, text=True, timeout=120)
        assert out.returncode == 0 and "Traceback" not in out.stderr, out.stderr


def test_check_json_of_a_value_that_shares_references_is_bounded(capsys, solution):
    """``[b] * 40`` of a 1 MB string: 40 MB per check once expanded (240 MB of JSON before it was budgeted)."""
    path = solution("B = 'x' * 1_000_000\ndef solve(text, stops):\n    return [B] * 40, ''\n")
    code, out, _ = run(capsys, "check", "FA-100786", path, "--json")
    assert code == 1 and len(out.encode()) < 1_000_000
    assert {o["actual"] for o in json.loads(out)["runs"][0]["observations"]} == {None}


SANDBOX_PROBE = '''
import os, socket
def solve(text, stops):
    try:
        with open(PROBE, "w") as fh:
            fh.write("x")
        wrote = "wrote outside /tmp"
    except OSError as exc:
        wrote = exc.strerror
    try:
        socket.create_connection(("1.1.1.1", 53), timeout=2).close()
        net = "network reachable"
    except OSError as exc:
        net = exc.strerror or type(exc).__name__
    with open("/tmp/scratch", "w") as fh:  # its own /tmp is writable
        fh.write("ok")
    return f"{wrote}; {net}; pid {os.getpid()}", ""
'''


def test_check_sandbox_has_a_read_only_file_system_and_no_network(capsys, solution, bwrap):
    import uuid
    from pathlib import Path

    probe = Path(__file__).resolve().parent / f".sandbox-probe-{uuid.uuid4().hex}"  # outside /tmp: must stay unwritten
    try:
        code, out, _ = run(capsys, "check", "FA-100786", solution(SANDBOX_PROBE.replace("PROBE", repr(str(probe)))), "--sandbox", "--json")
        assert not probe.exists()
    finally:
        probe.unlink(missing_ok=True)
    result = json.loads(out)["runs"][0]
    assert result["isolation"] == "sandbox"
    # pid 3: solve runs in a process of its own, beside the judge (pid 2), in the sandbox's own PID namespace
    assert {o["actual"][0] for o in result["observations"]} == {"No such file or directory; Network is unreachable; pid 3"}  # its folder is not in the sandbox at all
    assert "FAILUREMAP_ISOLATION" not in os.environ, "the command's setting does not leak into its caller"


def test_check_sandbox_without_bubblewrap_is_one_line(capsys, solution, tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))  # no bwrap on it
    code, out, err = run(capsys, "check", "FA-100786", solution(REFERENCE), "--sandbox")
    assert code == 2 and out == ""
    assert err == "failuremap-edu: error: --sandbox needs bubblewrap (the bwrap command), which is not installed here: apt-get install bubblewrap\n"


def _log(home_dir: Path, statuses, actual=("a", ""), record="FA-1"):
    from failuremap_edu._progress import log_run
    from failuremap_edu._results import ErrorInfo, Observation, RunResult

    observations = tuple(
        Observation(i, f"check {i}", s, s == "pass", ("a", "b") if s == "pass" else actual if s == "fail" else None, ("a", "b"),
                    error=ErrorInfo("Timeout", "slow") if s == "timeout" else None)
        for i, s in enumerate(statuses)
    )
    log_run(RunResult(record, "yours", 1, observations, 1.0, "process"), "def solve(): pass\n", home_dir / ".local" / "share" / "failuremap_edu" / "progress.jsonl")


def test_report_watch_rereads_the_logs_every_round(tmp_path, capsys, monkeypatch):
    import time

    homes = tmp_path / "home"
    _log(homes / "ann", ("pass", "fail"))
    _log(homes / "bob", ("pass", "fail"))
    (homes / "cy").mkdir()
    slept = []

    def sleep(seconds):  # between rounds cy runs her first check
        slept.append(seconds)
        _log(homes / "cy", ("pass", "timeout"))

    monkeypatch.setattr(time, "sleep", sleep)
    assert main(["report", "--homes", str(homes / "*"), "--watch", "--watch-rounds", "2"]) == 0
    out = capsys.readouterr().out
    assert slept == [5.0] and "\x1b" not in out  # not a terminal: rounds printed one after the other
    first, second = out.split("---- round 2\n")
    assert first.startswith("---- round 1\nClass live view at ")
    assert "FA-1: 2 started, 0 pass every check" in first and "1 of 3 homes have no progress log" in first
    assert "FA-1: 3 started, 0 pass every check" in second and "homes have no progress log" not in second
    assert "       2 learners return ('a', '') (value)" in second and "       1 learner times out" in second
    assert "   1 check 0" in second and "3 of 3 pass" in second
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    assert main(["report", "--homes", str(homes / "*"), "--watch", "0.5", "--watch-rounds", "2"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("\x1b[H\x1b[2JClass live view") and out.count("\x1b[H\x1b[2J") == 2 and slept[-1] == 0.5  # redrawn in place


def test_report_watch_waits_for_the_first_log_and_holds_100_learners(tmp_path, capsys, monkeypatch):
    import time

    monkeypatch.setattr(time, "sleep", lambda seconds: None)
    homes = tmp_path / "home"
    (homes / "ann").mkdir(parents=True)
    assert main(["report", "--homes", str(homes / "*"), "--watch", "--watch-rounds", "1"]) == 0  # nobody started: it keeps watching
    assert "no progress log in any of the 1 homes" in capsys.readouterr().out
    for n in range(100):
        _log(homes / f"learner{n:03}", ("pass", "fail" if n % 3 else "pass"), actual=("a", str(n % 2)))
    assert main(["report", "--homes", str(homes / "*"), "--watch", "--watch-rounds", "1"]) == 0
    out = capsys.readouterr().out
    assert "FA-1: 100 started, 34 pass every check" in out and " 34 of 100 pass" in out
    assert "33 learners return ('a', '0') (value)" in out and "33 learners return ('a', '1') (value)" in out
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("Who needs help"))
    block = lines[start:next(i for i, line in enumerate(lines) if line.startswith("FA-1: 100 started"))]
    assert len(lines) - len(block) < 15  # a glance: the groups, not the names
    assert len(block) == 2 + 5 + 1 and block[-1] == "  … 61 more"  # who needs help: the first few, most first
    bad = tmp_path / "ids.csv"
    bad.write_text("abc,Ann\n")
    assert main(["report", "--homes", str(homes / "*"), "--watch", "--watch-rounds", "1", "--names", str(bad)]) == 2  # said once, not watched forever
    assert "at least 6 characters" in capsys.readouterr().err
    with pytest.raises(SystemExit) as stopped:
        main(["report", "--homes", str(homes / "*"), "--watch", "0", "--watch-rounds", "1"])
    assert stopped.value.code == 2 and "must be a positive number of seconds" in capsys.readouterr().err


def test_check_json_names_the_compared_expression_and_what_solve_returned(capsys, solution):
    """A check of `solve(N + 4, pad=N)[-1]` says so in --json, with the grid solve returned beside it."""
    record = str(Path(__file__).parent / "records" / "TR-000909.json")
    code, out, _ = run(capsys, "check", record, solution("def solve(n, pad=0):\n    return [[1] * n for _ in range(n)]\n"), "--json")
    obs = {o["check"]: o for o in json.loads(out)["runs"][0]["observations"]}
    last = obs["last row with padding"]
    assert last["call"] == "solve(5, pad=1)" and last["compared"] == "solve(5, pad=1)[-1]"
    assert last["returned"] == [{"call": "solve(5, pad=1)", "value_repr": repr([[1] * 5] * 5)}]
    whole = obs["mask of 4"]
    assert whole["compared"] == whole["call"] == "solve(4)" and whole["returned"] == []


FORGES_ITS_VERDICT = '''
import sys


def solve(text, stops):
    frame = sys._getframe(1)
    while frame is not None and "observations" not in frame.f_globals:
        frame = frame.f_back
    g = frame.f_globals

    def check(label, actual, expected):
        g["observations"].append({"check": label, "actual": actual, "expected": expected, "passed": True})

    g["check"] = check
    return "not it", ""
'''


def test_check_of_an_unconfirmed_verdict_exits_1_and_says_unconfirmed(capsys, solution):
    """A patched harness reports pass; the caller cannot confirm it: never a pass, in the exit code, the text or --json."""
    path = solution(FORGES_ITS_VERDICT)
    code, out, _ = run(capsys, "check", "FA-100786", path)
    assert code == 1 and out.splitlines()[0] == "0/6 checks pass (6 unconfirmed)"
    assert "? unconfirmed: partial marker held" in out
    code, out, _ = run(capsys, "check", "FA-100786", path, "--json")
    result = json.loads(out)["runs"][0]
    assert code == 1 and result["passed"] is False
    assert {(o["status"], o["passed"]) for o in result["observations"]} == {("unconfirmed", False)}


ALWAYS_EQUAL = '''
class Anything(tuple):
    def __eq__(self, other):
        return True

    __hash__ = tuple.__hash__


def solve(text, stops):
    return Anything(("not", "it"))
'''


def test_check_text_labels_a_pass_decided_by_a_class_own_eq(capsys, solution):
    """The text lists only the checks that did not pass: a note says these passes are the class's __eq__'s, as --json does."""
    code, out, _ = run(capsys, "check", "FA-100786", solution(ALWAYS_EQUAL))
    lines = out.splitlines()
    assert lines[0] == "6/6 checks pass"
    assert lines[1].startswith("note: 6 checks pass, compared by solution.Anything's own == (__eq__)")


@pytest.mark.skipif(not shutil.which("bwrap"), reason="needs bubblewrap (apt-get install bubblewrap)")
def test_check_sandbox_gives_a_forging_hand_in_its_real_verdicts(capsys, solution):
    """How an instructor re-checks a hand-in: its patched harness is in solve's process, never in the judge's."""
    source = FORGES_ITS_VERDICT.replace("    g = frame.f_globals", "    if frame is None:\n        return text, ''\n    g = frame.f_globals")
    code, out, _ = run(capsys, "check", "FA-100786", solution(source.replace('return "not it", ""', "return text, ''")), "--sandbox", "--json")
    result = json.loads(out)["runs"][0]
    assert code == 1 and result["summary"] == "4/6 checks pass (2 fail)"


@pytest.fixture
def isolations(monkeypatch):
    """The isolation each run of the runner was started with, and whether the environment named one then;
    the runs themselves go on in a plain worker process (no sandbox started)."""
    from failuremap_edu.runner import _api

    seen, execute = [], _api._execute

    def spy(plan, collector, mode):
        seen.append((mode, os.environ.get("FAILUREMAP_ISOLATION")))
        execute(plan, collector, "process")

    monkeypatch.setattr(_api, "_execute", spy)
    return seen


@pytest.mark.parametrize("argv", [
    ("check", "FA-100786", "SOLUTION", "--sandbox"),
    ("verify", "FA-100786", "--sandbox"),
    ("notebook", "FA-100786", "-o", "OUT", "--sandbox"),
    ("workshop", "FA-100786", "-o", "OUT", "--sandbox"),
])
def test_sandbox_reaches_every_run_as_a_parameter_and_leaves_the_environment_alone(capsys, solution, tmp_path, bwrap, isolations, argv):
    before = dict(os.environ)
    argv = [solution(REFERENCE) if a == "SOLUTION" else str(tmp_path / "out") if a == "OUT" else a for a in argv]
    code, _, err = run(capsys, *argv)
    assert code == 0, err
    assert isolations and set(isolations) == {("sandbox", None)}, "every run sandboxed, none told so through os.environ"
    assert dict(os.environ) == before
    isolations.clear()
    assert run(capsys, *[a for a in argv if a != "--sandbox"])[0] == 0
    assert "sandbox" not in {mode for mode, _ in isolations}  # (verify's replays share a worker then, past this spy)


def test_lite_sandbox_reaches_the_site_build_as_a_parameter(capsys, tmp_path, monkeypatch):
    from failuremap_edu.instructor import _lite

    asked = []
    monkeypatch.setattr(_lite, "build_site", lambda *args, **kwargs: asked.append(kwargs["isolation"]) or _NoSite())
    monkeypatch.setattr("shutil.which", lambda name: "/usr/bin/" + name)  # as if bubblewrap were installed
    before = dict(os.environ)
    assert run(capsys, "lite", "FA-100786", "-o", str(tmp_path), "--sandbox")[0] == 0
    assert run(capsys, "lite", "FA-100786", "-o", str(tmp_path))[0] == 0
    assert asked == ["sandbox", None] and dict(os.environ) == before


class _NoSite:
    path, notebooks, pyodide_version, wheels, warnings = "site", ("start",), "0", (), ()
