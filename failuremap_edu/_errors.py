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
        line = f"{etype.__name__}: {value}"
        show = getattr(shell, "_showtraceback", None)
        if show is not None:
            show(etype, value, [line])  # the kernel's error message, with a one-line traceback
        else:  # pragma: no cover - a shell without it
            print(line, file=sys.stderr)

    shell.set_custom_exc((InputError,), one_line)
