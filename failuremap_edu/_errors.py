"""The one base class for bad input: a record, a solution file, a notebook request.

Fronts (the CLI, the panel) catch it and show its one-line message, never a traceback.
"""

from __future__ import annotations

__all__ = ["InputError"]


class InputError(ValueError):
    """Bad input, described in one line that names the file and the problem."""


def show_input_errors_briefly() -> None:
    """In a notebook, show our InputError as one line, not as a traceback through our internals.

    A typo in a record id is the learner's input, not a bug of ours: it gets the
    one line that names the problem. It is still a real error (the cell fails,
    Run All stops, nbval reports it). Only when IPython is already running, and
    only when no other library has claimed IPython's custom exception hook.
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
        show = getattr(shell, "_showtraceback", None)
        if line is None:  # any other NameError: IPython's own traceback, as without us
            stb = shell.InteractiveTB.structured_traceback(etype, value, tb, tb_offset=tb_offset)
            show(etype, value, stb)
        elif show is not None:
            show(etype, value, [line])  # the kernel's error message, with a one-line traceback
        else:  # pragma: no cover - a shell without it
            print(line, file=sys.stderr)

    shell.set_custom_exc((InputError, NameError), one_line)


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
