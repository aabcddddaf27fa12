"""Notes a run says once: a part of a note that an earlier listed check of the run says in full is said by reference after it.

The checks of one run often carry the same explanation (why state carries over between calls, what a shared object means):
said in full under the first check that shows it, and as ``(see the note under check 'x')`` under each later one, so a
row's own difference stays in view. Only parts of at least `LONG` characters are shortened: a short one costs less than
the reference. Passing checks are not listed by the displays, so they never hold the full text.
"""

from __future__ import annotations

import re
from dataclasses import replace

from .._results import PASS, Observation

LONG = 60
"""Parts of a note shorter than this are said again in full."""
_PARTS = re.compile(r"(?<=\.) |(?<=:) ")


def said_once(observations: list[Observation]) -> list[Observation]:
    """`observations` with `Observation.said` set on each listed check whose notes repeat a long part an earlier one says."""
    first: dict[str, str] = {}
    out = []
    for o in observations:
        if o.status == PASS or not o.state:
            out.append(o)
            continue
        repeated = []
        for note in o.state_notes:
            for part in _PARTS.split(note):
                if len(part) < LONG:
                    continue
                where = first.setdefault(part, o.check)
                if where != o.check:
                    repeated.append((part, where))
        out.append(replace(o, said=tuple(dict.fromkeys(repeated))) if repeated else o)
    return out
