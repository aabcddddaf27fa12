"""What happened at each check that did not pass, in a few bounded fields: what a log line and a download carry of a run.

The reason in one word (`failure_reason`: the error's type, or the kind of the
diff's first difference) and an outcome (`outcomes`: a fingerprint of the returned
value, its repr clipped, and whether it equals what the record's attempt or broken
returns there): enough for a class report to group learners who make the same
mistake, without their whole values.
"""

from __future__ import annotations

import hashlib
from typing import Any, Sequence

from ._results import RunResult
from ._values import clip, safe_repr

__all__ = ["OUTCOME_REPR", "failure_reason", "outcomes"]


def failure_reason(status: str, expected: Any = None, actual: Any = None, error_type: str | None = None) -> str | None:
    """Why a check did not pass, in one word: the error's type, or the kind of the diff's first difference.

    None for a pass. Timeouts and dead workers have the error types ``Timeout`` and
    ``ProcessDied``. A failing check whose values show no difference is ``value``.
    """
    if status == "pass":
        return None
    if status != "fail":
        return error_type or status
    from ._diff import diff

    try:
        found = diff(expected, actual)
    except Exception:  # noqa: BLE001 - logging must never break a notebook
        return "value"
    return found.differences[0].kind if found.differences else "value"


OUTCOME_REPR = 80
"""Characters of a returned value's repr kept per check in a log line (its fingerprint is of the whole repr)."""
_FINGERPRINT_REPR = 10_000


def outcomes(result: RunResult, replays: Sequence[RunResult] = ()) -> list[dict | None]:
    """Per check: None for a pass, else what happened there, bounded (a class report groups learners by it).

    ``{"status", "value": sha256 of the returned value's safe repr (16 hex digits) or None,
    "repr": that repr clipped to `OUTCOME_REPR`, "same_as": ["attempt", ...]}``. `same_as`
    names the replays (the record's attempt and broken, run for the same variant) whose
    value at this check EQUALS the learner's, decided on the values (`_diff.diff`),
    never on the clipped text; an error is its type.
    """
    from ._diff import diff

    out: list[dict | None] = []
    for o in result.observations:
        if o.status == "pass":
            out.append(None)
            continue
        entry: dict = {"status": o.status, "value": None, "repr": None, "same_as": []}
        if o.status == "fail":
            text = safe_repr(o.actual, _FINGERPRINT_REPR)
            entry["value"] = hashlib.sha256(text.encode("utf-8", "backslashreplace")).hexdigest()[:16]
            entry["repr"] = clip(text, OUTCOME_REPR, one_line=True)
            for other in replays:
                theirs = next((t for t in other.observations if t.index == o.index), None)
                if theirs is None or theirs.status != "fail":
                    continue
                try:
                    same = diff(theirs.actual, o.actual).equal
                except Exception:  # noqa: BLE001 - logging must never break a notebook
                    same = False
                if same:
                    entry["same_as"].append(other.solver)
        elif o.error is not None:
            entry["repr"] = clip(o.error.type, OUTCOME_REPR, one_line=True)
        out.append(entry)
    return out
