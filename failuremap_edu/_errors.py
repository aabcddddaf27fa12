"""The one base class for bad input: a record, a solution file, a notebook request.

Fronts (the CLI, the panel) catch it and show its one-line message, never a traceback.
"""

from __future__ import annotations

__all__ = ["InputError"]


class InputError(ValueError):
    """Bad input, described in one line that names the file and the problem."""
