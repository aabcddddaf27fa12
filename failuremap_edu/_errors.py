"""The one base class for bad input: a record, a solution file, a notebook request.

Fronts (the CLI, the panel) catch it and show its one-line message, never a traceback.
"""

from __future__ import annotations

__all__ = ["InputError"]


class InputError(ValueError):
    """Bad input, described in one line that names the file and the problem."""

    def _render_traceback_(self) -> list[str]:
        """IPython's traceback of it: the one line (a typo in a record id is the learner's input, not our bug).

        IPython still records it as the last error (``%debug``) and enters ``%pdb``; the cell still fails.
        """
        return [f"{type(self).__name__}: {self}"]


def show_input_errors_briefly() -> None:
    """In a running IPython, explain a cell's NameError for `solve` in one line; leave every other error as IPython shows it.

    After a kernel restart, a cell that uses `solve` before the exercise cell ran is every learner's first
    NameError. Any other NameError takes IPython's own path (``showtraceback``: the last error for
    ``%debug``, the debugger under ``%pdb``), and so does the one line. Our InputError needs no hook
    (`InputError._render_traceback_`). Installed on first use of the public API, never at import, and
    only when no other library holds IPython's custom exception hook.
    """
    import sys

    if "IPython" not in sys.modules:
        return
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover
        return
    shell = get_ipython()
    if shell is None or shell.custom_exceptions:
        return

    def one_line(shell, etype, value, tb, tb_offset=None):
        line = brief(value)
        if line is not None:
            value._render_traceback_ = lambda: [line]  # an instance attribute: IPython shows it as this error's traceback
        shell.showtraceback((etype, value, tb), tb_offset=tb_offset)

    shell.set_custom_exc((NameError,), one_line)


NO_SOLVE = (
    "NameError: solve is not defined in this kernel yet: run the exercise cell (the one with @fm.exercise) first. "
    "After a kernel restart, nothing defined before it is kept."
)


def brief(error: BaseException) -> str | None:
    """The one line for an error we explain briefly, or None for any other.

    Ours (InputError); and a notebook cell that uses `solve` before the exercise
    cell ran, which after a kernel restart is every learner's first NameError.
    """
    if isinstance(error, InputError):
        return f"{type(error).__name__}: {error}"
    if isinstance(error, NameError) and getattr(error, "name", None) == "solve":
        return NO_SOLVE
    return None
