"""The line that tells a run from the one before it: "ran again at 10:42:07: same result", and its kin.

After Shift+Enter only the panel's count stays in view: a run that changed
nothing must still be seen to have happened, and a new solve must not read
as the same one run again.
"""

from __future__ import annotations

from ._hints import same_outcome
from ._results import RunResult

__all__ = ["rerun_note", "same_result"]


def same_result(before: tuple[RunResult, ...], after: tuple[RunResult, ...]) -> bool:
    """Whether two runs cover the same variants with the same outcome on every check (decided on values)."""
    if [r.variant for r in before] != [r.variant for r in after]:
        return False
    for old, new in zip(before, after):
        if old.total != new.total or (old.problem is None) != (new.problem is None):
            return False
        if not all(same_outcome(a, b) for a, b in zip(old.observations, new.observations)):
            return False
    return True


def rerun_note(previous: tuple[RunResult, ...], runs: tuple[RunResult, ...], *, same_solve: bool, from_cell: bool, at: str) -> str:
    """Say how `runs` (finished at `at`) relate to the `previous` ones, or "" when there is nothing to tell them apart by.

    `same_solve`: the same function, or one of the same source; `from_cell`: the
    solve cell ran (not the panel's button, which runs the solve the cell last ran).
    """
    if not previous:
        return ""
    if same_solve and same_result(previous, runs):
        # a re-run of the same solve that changes nothing must still be seen to have happened (a new solve is not "again")
        note = f"ran again at {at}: same result"
        if not from_cell:  # the panel's button: an edit typed in the cell since is not what ran
            note += " (the solve the cell last ran: to check an edit, run the cell)"
        return note
    if same_solve:
        # The same solve on other variants (the variant box): not a new solve.
        if runs and [r.variant for r in previous] != [r.variant for r in runs]:
            shown = "all variants" if len(runs) > 1 else f"N = {runs[0].variant}"
            return f"the same solve, checked at {at} on {shown}"
        return f"the same solve, checked again at {at}: other results"  # it draws random numbers, reads the clock, or ran out of time
    if [r.summary() for r in previous] == [r.summary() for r in runs]:
        # A new solve with the same count: after Shift+Enter only the count stays in view, and must not read as if nothing had run.
        return f"your new solve, checked at {at}: {'the same result' if same_result(previous, runs) else 'the same count, other results'}"
    return ""
