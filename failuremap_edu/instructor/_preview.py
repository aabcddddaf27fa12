"""An author's preview: the panel's text for a solve, against the record a source folder builds, with no notebook built.

``failuremap-edu record preview DIR --solve FILE`` builds the record as ``record build``
does (running the folder's code, writing nothing), checks FILE's ``solve`` against it
as the panel would, and gives the panel's ``text/plain`` form (`Exercise.text`). The
run is an author's: it is neither logged to a progress file nor sent to a collector.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from ._authoring import build_record
from .._exercise import Exercise
from .._solution import load_solution
from ..runner import DEFAULT_TIMEOUT

__all__ = ["Preview", "preview"]


@dataclass(frozen=True)
class Preview:
    """What `preview` found: the record built, and the panel's text for the solve."""

    record_id: str
    passed: bool
    """Every check of every variant run passed."""
    text: str
    """The panel's text form, as a static viewer or nbval gets it."""
    warnings: tuple[str, ...]
    """`record build`'s warnings about the folder."""

    def __str__(self) -> str:
        return self.text


def preview(folder: str | os.PathLike, solve_file: str | os.PathLike, *, variant: int | str | None = None,
            timeout: float = DEFAULT_TIMEOUT, build_timeout: float = 10.0) -> Preview:
    """Build `folder`'s record and check `solve_file` against it; raises `InputError` in one line for bad input.

    The solve file is read before the folder's code runs, so a missing or broken one is said at once.
    `variant` is N (1-5) or ``"all"``; the default is the record's own.
    """
    solution = load_solution(solve_file)
    built = build_record(folder, timeout=build_timeout)
    exercise = Exercise(built.record, timeout=timeout, variant=variant, log_progress=False)
    exercise.solve = solution
    runs = exercise.run()
    passed = bool(runs) and all(run.passed for run in runs)
    return Preview(built.record.id, passed, exercise.text(results_only=True), built.warnings)

