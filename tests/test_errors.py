"""Bad input in a notebook: one line that names the problem, and still a real error."""

from __future__ import annotations

import pytest

from failuremap_edu._errors import NO_SOLVE, show_input_errors_briefly

interactiveshell = pytest.importorskip("IPython.core.interactiveshell")


@pytest.fixture
def shell():
    """A fresh IPython shell with our brief errors installed, cleared afterwards."""
    shell = interactiveshell.InteractiveShell.instance()
    shell.custom_exceptions = ()
    show_input_errors_briefly()
    yield shell
    shell.custom_exceptions = ()
    interactiveshell.InteractiveShell.clear_instance()


def test_an_input_error_in_ipython_is_one_line_and_still_fails_the_cell(shell, capsys):
    result = shell.run_cell("import failuremap_edu as fm\nfm.exercise('FA-10061')", store_history=False)
    out = capsys.readouterr()
    shown = [line for line in (out.out + out.err).splitlines() if line.strip()]
    assert type(result.error_in_exec).__name__ == "RecordError"  # the cell fails: Run All stops, nbval reports it
    assert shown == [
        "RecordError: FA-10061: no packaged record with this id (packaged: FA-100061, FA-100786); pass a path to use another record"
    ]
    result = shell.run_cell("1 / 0", store_history=False)  # everything else keeps its full traceback
    assert "ZeroDivisionError" in capsys.readouterr().out and type(result.error_in_exec) is ZeroDivisionError


def test_a_cell_using_solve_before_the_exercise_cell_ran_says_what_to_run(shell, capsys):
    """After a kernel restart, the playground and variants cells meet no solve: one line says what to do."""
    result = shell.run_cell("import failuremap_edu as fm\nfm.try_call('FA-100786', solve, ('x', []))", store_history=False)
    out = capsys.readouterr()
    assert type(result.error_in_exec) is NameError  # still an error: Run All stops there
    assert [line for line in (out.out + out.err).splitlines() if line.strip()] == [NO_SOLVE]
    result = shell.run_cell("undefined_name + 1", store_history=False)  # any other NameError: IPython's full traceback
    out = capsys.readouterr().out
    assert type(result.error_in_exec) is NameError and "Traceback" in out and "undefined_name" in out and NO_SOLVE not in out


def test_another_librarys_handler_is_left_alone():
    shell = interactiveshell.InteractiveShell.instance()
    try:
        theirs = (KeyError,)
        shell.set_custom_exc(theirs, lambda *args, **kwargs: None)
        show_input_errors_briefly()
        assert shell.custom_exceptions == theirs
    finally:
        shell.custom_exceptions = ()
        interactiveshell.InteractiveShell.clear_instance()


@pytest.mark.parametrize("cell", ["import failuremap_edu as fm\nfm.exercise('FA-10061')", "import failuremap_edu as fm\nfm.try_call('FA-100786', solve, ('x', []))", "undefined_name + 1"])
def test_debug_and_pdb_see_every_error_ours_included(shell, capsys, monkeypatch, cell):
    """%debug reads the last error IPython recorded; %pdb enters the debugger after the traceback is shown."""
    import sys

    entered = []
    monkeypatch.setattr(shell, "debugger", lambda force=False: entered.append(force))
    monkeypatch.setattr(shell, "call_pdb", True)
    result = shell.run_cell(cell, store_history=False)
    capsys.readouterr()
    assert result.error_in_exec is not None and sys.last_value is result.error_in_exec
    assert entered == [True]


def test_import_claims_no_exception_hook():
    """Nothing at import: IPython's custom exception hook is still free after ``import failuremap_edu``."""
    import subprocess
    import sys

    code = ("from IPython.core.interactiveshell import InteractiveShell\nshell = InteractiveShell.instance()\n"
            "import failuremap_edu\nprint(repr(shell.custom_exceptions))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "()", out.stderr
