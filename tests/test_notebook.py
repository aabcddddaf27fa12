"""The notebook generator: committed notebooks are current, any record works, nbval passes."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from conftest import OWN, own_params, record_path, solution_path
from failuremap_edu import load_record
from failuremap_edu.instructor._cli import main
from failuremap_edu.instructor._notebook import md, write_all, write_notebook

ROOT = Path(__file__).resolve().parents[1]


def test_committed_notebooks_are_up_to_date(tmp_path):
    fresh = write_all(tmp_path, references=ROOT / "references")  # as `make notebooks` writes them
    committed_dir = ROOT / "notebooks"
    names = sorted(str(p.relative_to(tmp_path)) for p in fresh)
    assert names == ["00-start-here.ipynb", "FA-100061.ipynb", "FA-100786.ipynb", "instructor/FA-100061.ipynb", "instructor/FA-100786.ipynb"]
    for name in names:
        committed = committed_dir / name
        assert committed.is_file(), f"{name} is missing: run `make notebooks`"
        assert _same_python(committed.read_text(encoding="utf-8")) == _same_python((tmp_path / name).read_text(encoding="utf-8")), f"{name} is stale: run `make notebooks`"


def _same_python(text: str) -> str:
    """The notebook's text with the generating Python's version (language_info) left out: that alone is not staleness."""
    return re.sub(r'("version": )"3\.\d+\.\d+[^"]*"', r'\1"3.x"', text)


def test_notebooks_carry_the_kernels_language_info_so_opening_them_changes_nothing():
    import platform

    info = nbformat.read(ROOT / "notebooks" / "FA-100786.ipynb", as_version=4).metadata["language_info"]
    assert info["pygments_lexer"] == "ipython3" and info["codemirror_mode"] == {"name": "ipython", "version": 3}
    assert info["version"].split(".")[:2] == platform.python_version().split(".")[:2]


def test_markdown_escaping():
    assert md("emit <stop> & $x$ *bold* [link](x) `code`") == r"emit &lt;stop&gt; &amp; \$x\$ \*bold\* \[link\](x) \`code\`"
    assert md("x" * 10_000, limit=10).startswith("xxxxxxxxx… (9,991 more characters")


def cells_of(path: Path):
    return nbformat.read(path, as_version=4).cells


JARGON = ("parity", "sha256", "evaluation split", "evaluation_group", "evaluation\\_group", "provenance")


def test_learner_notebook_structure():
    cells = cells_of(ROOT / "notebooks" / "FA-100786.ipynb")
    headings = [c.source.splitlines()[0] for c in cells if c.cell_type == "markdown"]
    assert headings == [
        "# Exercise FA-100786: Model output stopping rules",
        "## The contract", "## Watch it fail", "## Your turn", "## The playground in code", "## About this exercise",
    ]  # FA-100786's checks do not use N: no variants section
    solve_cell = next(c for c in cells if "def solve(" in c.source)
    assert solve_cell.source.splitlines()[:4] == ["import failuremap_edu as fm", "", "@fm.exercise('FA-100786')", "def solve(text, stops):"]
    assert "nbval-check-output" in solve_cell.metadata["tags"]
    # The panel, then the saved copy of the last results (shown after a reload that draws no widget): no printed summary.
    assert [o["output_type"] for o in solve_cell.outputs] == ["display_data", "display_data"]
    saved = solve_cell.outputs[1]["data"]
    assert saved["text/html"].startswith('<div class="fm-saved"><style>') and "run the cell to check again" in saved["text/plain"]
    # The widget's view is never stored; the results, as HTML and text, are the copy's (twice read as two reports).
    assert solve_cell.outputs[0]["data"] == {"text/plain": "(The live panel of this exercise shows here when the cell runs.)"}
    panel = saved["text/plain"].splitlines()
    assert panel[1] == "1/6 checks pass (5 fail)" and "Checking" not in "".join(panel)  # stored finished, never half-done
    assert "Keep the line `@fm.exercise('FA-100786')` right above `def solve`" in next(c for c in cells if c.source.startswith("## Your turn")).source
    assert "This exercise has one set of checks." in next(c for c in cells if c.source.startswith("## Your turn")).source
    story = next(c for c in cells if c.source == "import failuremap_edu as fm\n\nfm.watch_it_fail('FA-100786')")
    assert "attempt returned ('hel', 'lo<st')" in story.outputs[0]["data"]["text/plain"]


def _every_cell_stands_on_its_own(cells) -> None:
    """After a kernel restart a learner runs any cell: it may need only solve (from the solve cell), never another cell's names."""
    import ast
    import builtins

    for cell in (c for c in cells if c.cell_type == "code"):
        tree = ast.parse(cell.source)
        bound = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        bound |= {a.asname or a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom)) for a in n.names}
        bound |= {n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
        bound |= {a.arg for a in ast.walk(tree) if isinstance(a, ast.arg)}
        loaded = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
        assert loaded - bound - set(dir(builtins)) <= {"solve"}, (cell.source, loaded - bound - set(dir(builtins)))


@pytest.mark.parametrize("name", ["FA-100786.ipynb", "FA-100061.ipynb", "instructor/FA-100786.ipynb", "instructor/FA-100061.ipynb"])
def test_every_code_cell_works_on_its_own_after_a_restart(name):
    _every_cell_stands_on_its_own(cells_of(ROOT / "notebooks" / name))


def test_learner_notebooks_keep_jargon_folded_at_the_end():
    for name in ("FA-100786.ipynb", "FA-100061.ipynb"):
        cells = cells_of(ROOT / "notebooks" / name)
        *body, about = [c for c in cells if c.cell_type == "markdown"]
        assert about.source.startswith("## About this exercise\n\n<details><summary>")
        for cell in body + [c for c in cells if c.cell_type == "code"]:
            text = cell.source + "".join(str(o.get("data", {}).get("text/plain", "")) + o.get("text", "") for o in cell.get("outputs", []))
            assert not any(word in text.lower() for word in JARGON), (name, [w for w in JARGON if w in text.lower()])


def test_variants_are_offered_only_when_the_checks_use_n():
    cells = cells_of(ROOT / "notebooks" / "FA-100061.ipynb")
    assert any(c.source.startswith("## Variants") for c in cells)
    loop = next(c for c in cells if "for variant in range(1, 6)" in c.source)
    assert loop.outputs[0]["text"].splitlines()[0] == "N=1: 3/6 checks pass (3 fail)"


def test_instructor_notebook_tells_the_story_in_order():
    cells = cells_of(ROOT / "notebooks" / "instructor" / "FA-100786.ipynb")
    headings = [c.source.splitlines()[0] for c in cells if c.cell_type == "markdown" and c.source.startswith("## ")]
    assert headings == ["## The contract", "## 1. The attempt", "## 2. What broken and attempt return", "## 3. The hints", "## 4. The fix", "## About this record"]
    code = [c for c in cells if c.cell_type == "code"]
    attempt, story, hints, fix, check_all = code[1:6]
    assert "@fm.exercise('FA-100786', presenter=True, log_progress=False)" in attempt.source
    assert attempt.outputs[1]["data"]["text/plain"].splitlines()[1] == "1/6 checks pass (5 fail)"
    assert story.source == "import failuremap_edu as fm\n\nfm.watch_it_fail('FA-100786')"
    assert hints.source.endswith(".all_hints()")
    assert hints.outputs[0]["data"]["text/plain"].startswith("Hint 1: Where to look first: Start with the check 'partial marker held'")
    assert hints.outputs[0]["data"]["text/html"].count("<li>") >= 4  # HTML reflows at a projector's font size, where text broke mid-word
    assert "@reference.check" in fix.source and fix.outputs[1]["data"]["text/plain"].splitlines()[1] == "6/6 checks pass"
    assert "assert result.passed" in check_all.source


@pytest.mark.parametrize("record_id", own_params())
def test_generator_handles_other_record_shapes(record_id, tmp_path):
    learner = write_notebook(str(record_path(record_id)), tmp_path)
    instructor = write_notebook(str(record_path(record_id)), tmp_path / "instructor", instructor=True, solution_path=str(solution_path(record_id)))
    assert (tmp_path / "records" / f"{record_id}.json").is_file()
    assert f"fm.exercise('records/{record_id}.json')" in learner.read_text()
    _every_cell_stands_on_its_own(cells_of(learner))
    assert "checks pass" in instructor.read_text()


@pytest.mark.slow
def test_generated_notebooks_of_other_records_pass_nbval(tmp_path):
    for record_id in OWN:
        write_notebook(str(record_path(record_id)), tmp_path)
    write_notebook(str(record_path("TR-000101")), tmp_path / "instructor", instructor=True, solution_path=str(solution_path("TR-000101")))
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--nbval-lax", "--nbval-current-env", "-c", "/dev/null", str(tmp_path)],
        capture_output=True, text=True, timeout=600, cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stdout[-3000:]
    assert " passed" in proc.stdout and "failed" not in proc.stdout


WHERE = ("reference solutions are never looked up on their own, so pass --solution FILE, or --references DIR with DIR/{id}.py "
         "(the references/ folder of the failuremap_edu repository, or a workshop's instructor folder's solutions/)")


def test_instructor_without_reference_is_a_clear_error(capsys, tmp_path):
    code = main(["notebook", str(record_path("TR-000101")), "-o", str(tmp_path), "--instructor"])
    err = capsys.readouterr().err
    assert code == 2
    assert err == f"failuremap-edu: error: TR-000101: no reference solution; {WHERE.format(id='TR-000101')}\n"


def test_no_reference_is_looked_up_on_its_own_and_the_error_says_where_to_get_one(capsys, tmp_path):
    """As a learner on a hub would run it, also from an editable install of a checkout with references/ beside the package."""
    assert main(["notebook", "FA-100786", "-o", str(tmp_path), "--instructor"]) == 2
    assert capsys.readouterr().err == f"failuremap-edu: error: FA-100786: no reference solution; {WHERE.format(id='FA-100786')}\n"
    assert not list(tmp_path.iterdir())
    assert main(["notebook", "FA-100786", "-o", str(tmp_path), "--instructor", "--references", str(tmp_path / "none")]) == 2
    assert f"FA-100786: no reference solution in {tmp_path / 'none'}; " in capsys.readouterr().err
    assert main(["notebook", "FA-100786", "-o", str(tmp_path), "--instructor", "--references", str(ROOT / "references")]) == 0  # the instructor's folder
    assert "def solve" in (tmp_path / "FA-100786.ipynb").read_text()
    assert main(["notebook", "FA-100786", "-o", str(tmp_path), "--references", str(ROOT / "references")]) == 2
    assert "--references only applies with --instructor or --all-packaged" in capsys.readouterr().err
    assert main(["notebook", "--all-packaged", "-o", str(tmp_path / "all")]) == 2
    assert "--all-packaged writes instructor notebooks too: pass --references DIR" in capsys.readouterr().err
    assert not (tmp_path / "all").exists()


def test_reference_solutions_live_outside_the_package():
    package = ROOT / "failuremap_edu"
    assert not (package / "references").exists() and sorted(p.name for p in (ROOT / "references").glob("*.py")) == ["FA-100061.py", "FA-100786.py"]
    assert "notebook --all-packaged -o notebooks --references references" in (ROOT / "Makefile").read_text()


def test_instructor_with_a_wrong_reference_is_refused(capsys, tmp_path):
    wrong = tmp_path / "wrong.py"
    wrong.write_text("def solve(tokens, k=2, *, normalize=False):\n    return {}\n")
    code = main(["notebook", str(record_path("TR-000101")), "-o", str(tmp_path), "--instructor", "--solution", str(wrong)])
    assert code == 2
    assert "the reference solution does not pass every check" in capsys.readouterr().err


def test_cli_notebook_writes_one(capsys, tmp_path):
    assert main(["notebook", "FA-100061", "-o", str(tmp_path)]) == 0
    assert capsys.readouterr().out.strip() == str(tmp_path / "FA-100061.ipynb")


# Sentences that are false somewhere: each platform's notebooks must not say the ones false there.
_FALSE_IN = {
    "lite": ["terminal", "FAILUREMAP_PROGRESS", "Binder", "on this machine", "checking process", "failuremap-edu export", "home folder"],
    "hub": ["Binder ends", "Binder session", "On Binder", "on this machine", "in your browser"],
    "binder": ["home folder", "on this machine", "in your browser", "this site"],
    "server": ["On Binder your", "in your browser", "this site", "home folder on this hub"],
}
_TRUE_IN = {
    "lite": ["kept in this browser, for this site only", "saved in this browser, for this site only"],
    "hub": ["home folder on this hub"],
    "binder": ["Binder ends a session", "saved in this Binder session only"],
    "server": ["If this notebook runs on a hosted service", "saved on this machine"],
}


def _all_text(nb) -> str:
    return "\n".join(cell.source for cell in nb.cells)


@pytest.mark.parametrize("platform", ["server", "binder", "hub", "lite"])
def test_each_platform_says_only_what_holds_there(platform):
    from failuremap_edu import load_record
    from failuremap_edu.instructor._notebook import build_notebook, build_start_here

    record = load_record("FA-100786")
    text = _all_text(build_notebook(record, "FA-100786", platform=platform))
    text += "\n" + _all_text(build_start_here([("FA-100786", "t", "FA-100786.ipynb")], platform=platform))
    assert [s for s in _FALSE_IN[platform] if s in text] == []
    assert [s for s in _TRUE_IN[platform] if s not in text] == []
    assert "Every run of an exercise cell (the one with `@fm.exercise(...)`) is saved; calls of `fm.run_checks` and `fm.try_call` in other cells are not." in text


def test_an_unknown_platform_is_refused():
    from failuremap_edu import load_record
    from failuremap_edu.instructor._notebook import build_notebook

    with pytest.raises(ValueError, match="platform must be one of server, binder, hub, lite"):
        build_notebook(load_record("FA-100786"), "FA-100786", platform="kaggle")
def test_notebook_writes_through_no_link_out_of_its_folder(capsys, tmp_path):
    out, victim = tmp_path / "out", tmp_path / "victim"
    out.mkdir()
    victim.mkdir()
    (out / "records").symlink_to(victim)
    (tmp_path / "outside.txt").write_text("not yours\n")
    (out / "FA-100061.ipynb").symlink_to(tmp_path / "outside.txt")
    for ref, link in ((str(record_path("TR-000101")), out / "records"), ("FA-100061", out / "FA-100061.ipynb")):
        capsys.readouterr()
        code = main(["notebook", ref, "-o", str(out)])
        err = capsys.readouterr().err
        assert code == 2 and err.count("\n") == 1 and f"{link}: a symbolic link out of {out}" in err, err
    assert list(victim.iterdir()) == [] and (tmp_path / "outside.txt").read_text() == "not yours\n"
    assert not (out / "TR-000101.ipynb").exists()
@pytest.mark.parametrize("signature", [
    "text: '`) [click](javascript:alert(1)) `', stops",
    "text: '``$x$ <b>bold</b> `', stops",
])
def test_the_contract_signature_cannot_escape_its_code_span(signature, raw_record, write_record, tmp_path):
    """A backquote in `contract_signature` used to end the code span: what followed was live Markdown."""
    import html as html_module

    import mistune

    raw_record["contract_signature"] = signature
    path = write_notebook(str(write_record(raw_record)), tmp_path)
    (cell,) = [c for c in cells_of(path) if c.cell_type == "markdown" and c.source.startswith("## The contract")]
    html = mistune.html(cell.source)
    assert "<a " not in html and "<b>" not in html
    code = re.findall(r"<code>(.*?)</code>", html)
    assert [html_module.unescape(c) for c in code] == [f"solve({signature})"]  # verbatim, whole, and the only code span


def _shown_text(cell) -> str:
    """A cell's source and every stored output's text, as a learner sees them before and after running it."""
    outputs = cell.get("outputs", [])
    return cell.source + "".join(o.get("text", "") + "".join(map(str, o.get("data", {}).values())) for o in outputs)


@pytest.mark.parametrize("name", ["FA-100786.ipynb", "FA-100061.ipynb"])
def test_a_learner_notebook_keeps_the_records_title_for_its_end_and_the_instructor_shows_it_on_top(name):
    """The title names the fix ("the causal mask excludes the diagonal"): a learner trial found the answer printed on top."""
    import html as html_module

    record = load_record(name.removesuffix(".ipynb"))
    cells = cells_of(ROOT / "notebooks" / name)
    about = next(c for c in cells if c.source.startswith("## About this exercise"))
    assert cells.index(about) == len(cells) - 1
    assert cells[0].source.startswith(f"# Exercise {record.id}: {record.category}\n")
    title = record.title.split(" · ")[0]  # without '· case 01', which says nothing
    seen = [c for c in cells if title in html_module.unescape(_shown_text(c).replace("\\", ""))]
    assert seen == [about]
    assert about.source.index("<details>") < about.source.index("title")
    start = cells_of(ROOT / "notebooks" / "00-start-here.ipynb")
    assert not any(title in html_module.unescape(_shown_text(c).replace("\\", "")) for c in start)
    instructor = cells_of(ROOT / "notebooks" / "instructor" / name)
    assert html_module.unescape(instructor[0].source.splitlines()[0].replace("\\", "")) == f"# {record.title}"


def test_the_records_abstract_is_in_both_notebooks_folded_for_learners():
    """An author's required abstract appeared in neither notebook (instructor trial)."""
    from failuremap_edu import load_record
    from failuremap_edu.instructor._notebook import build_notebook
    from failuremap_edu._solution import load_solution

    record = load_record(record_path("TR-000101"))
    learner = build_notebook(record, "records/TR-000101.json")
    about = next(c.source for c in learner.cells if c.source.startswith("## About this exercise"))
    assert record.abstract in about and about.index("<details>") < about.index(record.abstract)
    assert [c for c in learner.cells if record.abstract in c.source and not c.source.startswith("## About this exercise")] == []
    instructor = build_notebook(record, "records/TR-000101.json", instructor=True, solution=load_solution(solution_path("TR-000101")))
    assert record.abstract in instructor.cells[2].source and instructor.cells[2].source.startswith("**What fails**")
def test_the_variant_line_says_how_many_checks_depend_on_n():
    """A learner trial: "each variant checks different values" where one check of six read N."""
    from failuremap_edu import replay
    from failuremap_edu.instructor._notebook_text import variant_words

    def words(record_id):
        record = load_record(record_path(record_id))
        return variant_words([replay(record, "attempt", v) for v in range(1, 6)])

    assert words("TR-001010") == "The checks use `N` (1 to 5): 2 of the 4 checks get different values in each variant."
    assert words("TR-001212") == "The checks use `N` (1 to 5) in one check only, 'span at the end'; the other checks are the same in every variant."
    assert words("TR-000202") == (
        "The checks use `N` (1 to 5): there are 5 to 9 checks, depending on N, and 5 of them get different values in each variant or run only in some."
    )
    assert words("TR-000101") == "The checks read `N` (1 to 5), but every variant checks the same values here."


def test_every_code_cell_of_a_learner_notebook_but_the_plot_has_a_stored_output():
    """'The outputs you see were stored when this notebook was made': the try_call cell had none (learner trial)."""
    nb = nbformat.read(str(ROOT / "notebooks" / "FA-100786.ipynb"), as_version=4)
    empty = [c.source.splitlines()[-1] for c in nb.cells if c.cell_type == "code" and not c.outputs]
    assert empty == []
    first = next(c for c in nb.cells if c.cell_type == "code")  # it printed nothing, and a learner trial was left guessing
    assert first.outputs[0].text == "Loaded Exercise FA-100786: Model output stopping rules: 6 checks. Your solve goes in the exercise cell below.\n"


def test_the_solve_cell_keeps_the_preambles_decorators_and_constants():
    """A @dataclass left behind made Span(0, 2, 'ab') a TypeError in every check of a trial record."""
    import dataclasses

    from failuremap_edu.instructor._solve_cell import learner_preamble as _learner_preamble

    record = load_record(str(ROOT / "tests" / "records" / "TR-001313.json"))
    kept = _learner_preamble(record)
    assert "@dataclass\nclass Span:\n    start: int" in "\n".join(kept)
    source = record.implementations["attempt"].source.replace("def solve(text):\n", "LIMIT = 3\nUNUSED = 4\ndef solve(text):\n    text = text[:LIMIT]\n", 1)
    changed = dataclasses.replace(record, implementations={**record.implementations, "attempt": dataclasses.replace(record.implementations["attempt"], source=source)})
    kept = _learner_preamble(changed)
    assert "LIMIT = 3" in kept and "UNUSED = 4" not in kept and not [k for k in kept if k.startswith(("N =", "observations"))]


def test_a_fixture_variable_named_like_a_parameter_stays_out_of_the_solve_cell():
    """`base = {...}` of the fixtures landed in the exercise cell because solve's parameter is named base (a trial)."""
    from failuremap_edu.instructor._solve_cell import learner_preamble as _learner_preamble

    kept = _learner_preamble(load_record(str(ROOT / "tests" / "records" / "TR-001414.json")))
    assert not [k for k in kept if k.startswith("base")], kept


@pytest.mark.parametrize("record_id", own_params("FA-100061", "FA-100786"))
def test_the_exercise_cell_as_shipped_gets_the_attempts_verdicts(record_id, tmp_path, monkeypatch, capsys):
    """The cell holds the record's attempt, and the notebook says so: run as shipped (its classes defined in the
    cell, so sent by value), it must fail and pass exactly the checks the attempt's own script did. A learner
    trial's named tuple made every run stop with CannotSend: 0/7, where the notebook promised the attempt's 3/7."""
    from failuremap_edu import _cell, _exercise, _live
    from failuremap_edu._exercise import exercise

    # Its own registry of exercises: later tests make the same packaged exercise and expect it to be new.
    live = _live.Live()
    monkeypatch.setattr(_exercise, "LIVE", live)
    monkeypatch.setattr(_cell, "LIVE", live)
    learner = write_notebook(str(record_path(record_id)) if record_id in OWN else record_id, tmp_path)
    cell = next(c.source for c in cells_of(learner) if c.cell_type == "code" and "@fm.exercise(" in c.source)
    monkeypatch.chdir(tmp_path)
    namespace = {"__name__": "__main__"}
    exec(compile("import failuremap_edu as fm\n" + cell, "<the exercise cell>", "exec"), namespace)
    reference = re.search(r"@fm\.exercise\((.+?)\)", cell).group(1)
    e = exercise(eval(reference))
    recorded = e.record.verification["attempt"]
    assert e.runs and e.runs[0].problem is None, e.text()
    if recorded.crashed:  # the script died at a check; the panel runs each check on its own and shows that one's error
        assert any(o.status == "error" for o in e.runs[0].observations), e.text()
        return
    assert [(o.check, o.passed) for o in e.runs[0].observations] == [(o.check, o.passed) for o in recorded.observations], e.text()


def test_notebook_o_refuses_to_overwrite_an_edited_notebook_naming_it_and_force_overwrites(tmp_path, capsys):
    out = tmp_path / "course"
    assert main(["notebook", "FA-100061", "-o", str(out)]) == 0
    path = out / "FA-100061.ipynb"
    fresh = path.read_bytes()
    assert main(["notebook", "FA-100061", "-o", str(out)]) == 0 and path.read_bytes() == fresh  # unchanged since: written again
    edited = fresh.replace(b"def solve", b"def solve  # my edit", 1)
    path.write_bytes(edited)
    capsys.readouterr()
    assert main(["notebook", "FA-100061", "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "FA-100061.ipynb" in err and "--force" in err and "another folder (-o DIR) to keep both" in err and path.read_bytes() == edited
    assert main(["notebook", "FA-100061", "-o", str(out), "--force"]) == 0 and path.read_bytes() == fresh
    assert "FA-100061.ipynb" in capsys.readouterr().err  # --force says what it overwrote
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "FA-100061.ipynb").write_text("{}")  # not written by `notebook` at all
    (mine / "notes.md").write_text("mine")  # anything else in the folder is no concern
    assert main(["notebook", "FA-100061", "-o", str(mine)]) == 2 and (mine / "FA-100061.ipynb").read_text() == "{}"
    assert main(["notebook", "FA-100786", "-o", str(mine)]) == 0 and (mine / "notes.md").read_text() == "mine"


def test_notebook_all_packaged_checks_every_file_before_writing_any(tmp_path, capsys):
    out = tmp_path / "notebooks"
    write_all(out, references=ROOT / "references")
    edited = out / "instructor" / "FA-100786.ipynb"
    edited.write_text("{}")
    start = out / "00-start-here.ipynb"
    start.write_text("{}\n")
    capsys.readouterr()
    assert main(["notebook", "--all-packaged", "-o", str(out), "--references", str(ROOT / "references")]) == 2
    err = capsys.readouterr().err
    assert "00-start-here.ipynb" in err and edited.read_text() == "{}" and start.read_text() == "{}\n"


def test_a_refused_notebook_writes_nothing(write_record, tmp_path, capsys):
    """A record whose replays do not match its recorded runs is refused, and nothing lands in the output folder."""
    import json

    data = json.loads(record_path("TR-000202").read_text(encoding="utf-8"))
    data["verification"]["attempt"]["observations"][0]["passed"] = True  # no longer what the harness said
    out = tmp_path / "out"
    assert main(["notebook", str(write_record(data)), "-o", str(out)]) != 0
    assert "replays do not match" in capsys.readouterr().err
    assert not out.exists() or list(out.rglob("*")) == []


@pytest.mark.parametrize("instructor", [False, True])
def test_the_generator_writes_what_nbformat_writes_and_nbformat_validates_it(instructor):
    """The generator builds and writes notebooks without importing nbformat (its jsonschema import was two thirds
    of `failuremap-edu notebook`'s time): nbformat is the judge of what it writes."""
    from failuremap_edu.instructor._notebook import _writes, build_notebook, build_start_here
    from failuremap_edu._solution import load_solution

    record = load_record("FA-100786")
    solution = load_solution(str(ROOT / "references" / "FA-100786.py")) if instructor else None
    for nb in (build_notebook(record, "FA-100786", instructor=instructor, solution=solution),
               build_start_here([("FA-100786", record.category, "FA-100786.ipynb")])):
        text = _writes(nb)
        node = nbformat.reads(text, as_version=4)
        nbformat.validate(node)
        assert text == nbformat.writes(node) + "\n"
        assert nb.cells[0].source == node.cells[0].source and nb.metadata.kernelspec.name == "python3"
