"""Who needs help now: per learner and exercise, runs, when they first failed and last ran, how long they are stuck, what they repeat.

Pure data from the report's runs (`_report.Run`, oldest first). A *run* here is a
run of the solve cell: the lines of its variants count once (lines without a cell
id count one each). *Stuck* starts at the first run that passed no larger share
of the checks than the best run before it, and lasts while no later run does
better; a learner who passed every check is not stuck. *Repeats* counts the
latest runs in a row in which the learner's solve returns, on some failing check,
what the record's attempt (or broken implementation) returns there.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Iterable

__all__ = ["Need", "by_need", "need_json", "needs", "pseudonym"]


@dataclass(frozen=True)
class Need:
    """One learner on one exercise."""

    learner: str
    """The learner's display name in the report."""
    record: str
    runs: int
    """Runs of the solve cell."""
    passed: bool
    """Some run passed every check."""
    checks_passed: int
    """The most checks one run (line) passed."""
    checks: int
    """Checks in the exercise's runs (the widest line)."""
    first_fail: str | None
    """Time of the first run that did not pass every check."""
    first_pass: str | None
    """Time of the first run that passed every check."""
    last_run: str | None
    stuck_since: str | None
    """Time of the first run without progress, if no run did better since (None: solved, or progressing)."""
    stuck_seconds: float | None
    """From `stuck_since` to the report's time (None when not stuck or the times cannot be read)."""
    repeats: int
    """The latest runs in a row that return what `repeats_of` returns on a failing check (0: the latest does not)."""
    repeats_of: str | None
    """``attempt`` or ``broken``: whose mistake is repeated."""
    timing_out: bool
    """The latest run timed out on some check."""


def _seconds(stamp: str | None) -> float | None:
    if not stamp:
        return None
    try:
        return datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%S%z").timestamp()
    except ValueError:
        return None


def _cells(runs: list) -> list[list]:
    """The lines grouped by run of the solve cell, in order of their first line."""
    groups: dict = {}
    for n, r in enumerate(runs):
        groups.setdefault(r.cell if r.cell else ("line", n), []).append(r)
    return list(groups.values())


def _share(cell: list) -> float:
    total = sum(len(r.statuses) for r in cell)
    return sum(r.statuses.count("pass") for r in cell) / total if total else 0.0


def _returns_like(cell: list, who: str) -> bool:
    return any(o and who in (o.get("same_as") or ()) for r in cell for i, o in enumerate(r.outcomes) if i < len(r.statuses) and r.statuses[i] != "pass")


def need_of(learner: str, record: str, runs: list, now: float) -> Need:
    """The `Need` of one learner's runs (oldest first) of one exercise."""
    cells = _cells(runs)
    best, stuck_at = -1.0, None
    for cell in cells:
        share = _share(cell)
        if share > best:
            best, stuck_at = share, None
        elif stuck_at is None:
            stuck_at = cell[0].time
    passed = any(r.passed for r in runs)
    if passed:
        stuck_at = None
    repeats, of = 0, None
    for who in ("attempt", "broken"):
        n = 0
        for cell in reversed(cells):
            if not _returns_like(cell, who):
                break
            n += 1
        if n > repeats:
            repeats, of = n, who
    since = _seconds(stuck_at)
    return Need(
        learner, record, len(cells), passed,
        max((r.statuses.count("pass") for r in runs), default=0), max((len(r.statuses) for r in runs), default=0),
        next((r.time for r in runs if not r.passed), None), next((r.time for r in runs if r.passed), None), runs[-1].time if runs else None,
        stuck_at, max(now - since, 0.0) if since is not None else None, repeats, of,
        any(s == "timeout" for r in cells[-1] for s in r.statuses) if cells else False,
    )


def needs(runs: Iterable, order: list[str], learners: list[str], shown: dict[str, str], now: float | None = None) -> tuple[Need, ...]:
    """Every learner × exercise with runs, exercises in `order`, learners in the report's order."""
    now = time.time() if now is None else now
    mine: dict[tuple[str, str], list] = {}
    for r in runs:
        mine.setdefault((r.record, r.learner), []).append(r)
    return tuple(need_of(shown[x], record, mine[(record, x)], now) for record in order for x in learners if (record, x) in mine)


def by_need(found: Iterable[Need]) -> list[Need]:
    """Who needs help first: the unsolved before the solved; then stuck longest, repeating the most, timing out, most runs."""
    return sorted(found, key=lambda n: (n.passed, -(n.stuck_seconds or 0.0), -n.repeats, not n.timing_out, -n.runs, n.learner, n.record))


def need_json(n: Need) -> dict:
    data = asdict(n)
    del data["learner"], data["record"]
    return data


def pseudonym(learner: str) -> str:
    """A stable name for a learner on a projector: the same learner gets the same one in every round and every report."""
    digest = hashlib.sha256(("failuremap pseudonym:" + learner).encode("utf-8", "surrogatepass")).digest()
    return f"{_ADJECTIVES[digest[0] % len(_ADJECTIVES)]}-{_ANIMALS[digest[1] % len(_ANIMALS)]}-{digest[2:4].hex()}"


_ADJECTIVES = ("amber", "brisk", "calm", "deft", "eager", "fond", "glad", "hardy", "keen", "lucid", "merry", "nimble", "open", "proud", "quiet", "rapid")
_ANIMALS = ("otter", "heron", "lynx", "finch", "badger", "gecko", "ibis", "koala", "lemur", "marten", "newt", "orca", "panda", "quail", "raven", "stoat")
