"""A class report: where a class got stuck, from the files learners hand in.

Learners hand in what the exercise panel downloads (``…-results.json``) and what
``failuremap-edu export`` writes; the report also reads progress logs themselves
(``progress.jsonl``), one path at a time or every learner's home at once (`home_logs`). Both carry the pseudonymous learner id of the
learner's progress log, so each learner counts once however many files they
send. For every exercise and check the report says how many learners reached a
pass, the median number of runs it took (and how many learners that median
covers: a panel download is a snapshot, not every run), the most common reasons
for failing (the diff's kind, or the error's type), the groups of learners who
fail it the same way (`Group`), and which learners are still stuck.

Pure data: counting here, reading the files in `_handin`; text, JSON and HTML are in
`_render_report`. Runs of instructor notebooks (marked in the log) are skipped,
and no learner's code is kept unless it is asked for.
"""

from __future__ import annotations

import hashlib
import os
import statistics
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Iterable

from ._handin import (  # noqa: F401 - reading is there; these names stay importable from here
    HANDIN_SCHEMAS,
    Handin,
    ReportError,
    Run,
    _file_names,
    _files,
    home_logs,
    read_names,
    read_results,
    runs_from_entries,
    workshop_exercises,
)
from .._results import NOT_CONFIRMED

__all__ = ["CheckStats", "ClassReport", "ExerciseStats", "Group", "ReportError", "build_report", "home_logs", "read_names", "read_results", "workshop_exercises"]

TOP_REASONS = 3
TOP_GROUPS = 5
"""Groups of the same mistake kept per check (largest first)."""
MAX_NAME = 24
"""Display names are at most this long: ids that only differ further on are told apart by a hash."""


@dataclass(frozen=True)
class Group:
    """Learners who fail one check the same way: by what their solve returned there (or its error, or the diff's kind)."""

    kind: str
    """``attempt``/``broken``/``attempt+broken`` (the value equals what that implementation returns), ``value``, ``timeout``, ``error``,
    ``unconfirmed`` or ``reason``."""
    text: str
    """What they do, e.g. ``return what the attempt returns ((1, 2))``."""
    learners: tuple[str, ...]
    """Display names, each learner by their latest failing run of this check."""
    stuck: int
    """How many of them have not passed it since."""


@dataclass(frozen=True)
class CheckStats:
    """One check of one exercise, across the class."""

    index: int
    label: str
    learners: int
    """Learners who ran this check."""
    reached_pass: int
    """Learners who saw it pass at least once."""
    median_runs_to_pass: float | None
    """Median, over those learners, of the runs up to and including the first pass (None when unknown)."""
    median_of: int
    """How many learners the median covers: of `reached_pass`, those whose every run is known (not a panel snapshot)."""
    reasons: tuple[tuple[str, int], ...]
    """Why it failed, most common first: (reason, learners who met it)."""
    stuck: tuple[str, ...]
    """Learners (display names) who ran it but never saw it pass."""
    cells: tuple[str | None, ...]
    """Per learner of the report, in order: ``pass`` if it ever passed, else the latest status; None if never run."""
    groups: tuple[Group, ...] = ()
    """The learners who failed it, grouped by how (largest first, `TOP_GROUPS` at most)."""


@dataclass(frozen=True)
class ExerciseStats:
    """One exercise across the class: the whole run passing, then each check."""

    record: str
    learners: int
    runs: int
    """Runs counted, all learners together (each handed-in run once)."""
    reached_pass: int
    """Learners with at least one run in which every check passed."""
    median_runs_to_pass: float | None
    median_of: int
    """How many learners the median covers (see `CheckStats.median_of`)."""
    stuck: tuple[str, ...]
    checks: tuple[CheckStats, ...]
    code: dict[str, str] = field(default_factory=dict)
    """Display name -> the learner's solve (their last passing one, else their latest); only with code."""
    title: str | None = None
    teaching: dict[str, str] = field(default_factory=dict)
    """``attempt``/``broken`` -> the record's text about that implementation (when the record could be loaded)."""


@dataclass(frozen=True)
class ClassReport:
    """The whole class: learners (display names, in order) and one entry per exercise."""

    learners: tuple[str, ...]
    exercises: tuple[ExerciseStats, ...]
    files: int
    """Files that were read."""
    problems: tuple[str, ...]
    """One line per file that could not be used, and per file of which a part was skipped (which lines, and why)."""
    with_code: bool = False
    notes: tuple[str, ...] = ()
    """One line each about what the report covers (homes without a log, names not matched)."""
    listed: bool = False
    """True when the exercises are the workshop's list (some may have nobody)."""
    named: bool = False
    """Whether --names or hub user names show who the learners are (the output is then for the instructor only)."""
    needs: tuple = ()
    """`_need.Need` per learner and exercise they ran, in the report's order (exercises, then learners)."""

    @property
    def started(self) -> int:
        """Exercises at least one learner ran."""
        return sum(1 for e in self.exercises if e.learners)

    def to_json(self) -> dict:
        from ._need import need_json

        return {
            "learners": [
                {"name": name, "exercises": {n.record: need_json(n) for n in self.needs if n.learner == name}} for name in self.learners
            ],
            "files": self.files,
            "problems": list(self.problems),
            "notes": list(self.notes),
            "exercises": [
                {
                    "record": e.record,
                    "learners": e.learners,
                    "runs": e.runs,
                    "reached_pass": e.reached_pass,
                    "median_runs_to_pass": e.median_runs_to_pass,
                    "median_of": e.median_of,
                    "stuck": list(e.stuck),
                    "checks": [
                        {
                            "index": c.index,
                            "check": c.label,
                            "learners": c.learners,
                            "reached_pass": c.reached_pass,
                            "median_runs_to_pass": c.median_runs_to_pass,
                            "median_of": c.median_of,
                            "groups": [{"kind": g.kind, "text": g.text, "learners": list(g.learners), "stuck": g.stuck} for g in c.groups],
                            "reasons": [{"reason": r, "learners": n} for r, n in c.reasons],
                            "stuck": list(c.stuck),
                            "cells": dict(zip(self.learners, c.cells)),
                        }
                        for c in e.checks
                    ],
                    "teaching": dict(e.teaching),
                    **({"code": dict(e.code)} if self.with_code else {}),
                }
                for e in self.exercises
            ],
        }


# ------------------------------------------------------------------ counting


def build_report(
    paths: Iterable[str | os.PathLike],
    *,
    with_code: bool = False,
    exercises: Iterable[tuple[str, str]] | None = None,
    names: dict[str, str] | None = None,
    homes_without_log: Iterable[str] = (),
    handins: Iterable[Handin] = (),
    anonymise: bool = False,
    now: float | None = None,
    problems: Iterable[str] = (),
) -> ClassReport:
    """Read every file (folders: every ``*.json`` and ``*.jsonl`` below them) and count the class.

    `exercises` (`workshop_exercises`): list every one of them, in this order, started or
    not. `names` (`read_names`): learner id or unique prefix -> the name to show.
    `homes_without_log`: said in one line. `handins`: read elsewhere (the class collector,
    `_remote.service_handins`). Learners known by their hub user name are shown by it, or
    with `anonymise` by a stable pseudonym (`_need.pseudonym`). `now` (seconds since the
    epoch, default: the clock) is what "stuck for" counts up to. A file that cannot be used becomes one
    line in `problems`; the rest still count. Raises ReportError when not one file
    could be used (and there is no exercise list to show).
    """
    paths = list(paths)
    files = _files(paths)
    given = list(handins)
    handins, problems = list(given), list(problems)
    for path in files:
        try:
            handins.append(read_results(path))
        except ValueError as exc:
            problems.append(f"{path}: {exc}")
            continue
        if handins[-1].skipped:  # the rest of the file counts; what was left out is named, never silently
            problems.append(f"{path}: {handins[-1].skipped}")
    homes_without_log = list(homes_without_log)
    notes = []
    if homes_without_log:
        notes.append(f"{len(homes_without_log)} of {len(homes_without_log) + len(files)} homes have no progress log (nothing run there yet): "
                     + ", ".join(homes_without_log[:8]) + (f" +{len(homes_without_log) - 8} more" if len(homes_without_log) > 8 else ""))
    listed = list(exercises) if exercises is not None else None
    if not handins and not listed and not given:
        if problems:
            raise ReportError("; ".join(problems[:3]))
        if homes_without_log:
            raise ReportError(f"no progress log in any of the {len(homes_without_log)} homes")
        raise ReportError("no .json or .jsonl files found in " + (", ".join(map(str, paths)) or "no path"))
    runs, sources = _merge(handins)
    learners = sorted({r.learner for r in runs} | {h.learner for h in handins if h.learner})
    shown = _display_names(learners)
    shown.update(_file_names(learners))
    shown.update({x: x[len("hub:"):] for x in learners if x.startswith("hub:")})
    if names:
        notes += _apply_names(names, learners, shown)
    if anonymise:
        from ._need import pseudonym

        shown = {x: pseudonym(x) for x in learners}
    records = dict(listed) if listed is not None else {}
    order = [record_id for record_id, _ in listed] if listed is not None else []
    order += sorted({r.record for r in runs} - set(order))
    out = []
    for record in order:
        mine = [r for r in runs if r.record == record]
        out.append(_exercise(record, mine, learners, shown, sources if with_code else None, records.get(record, record)))
    unknown = [e.record for e in out if e.learners and not e.teaching]
    if unknown:  # never silently without the records' own explanations
        notes.append(f"{', '.join(unknown[:5])}: not a packaged record, so the groups come without the record's own text; "
                     "pass --workshop DIR (its notebooks/records/ holds the record files)")
    from ._need import needs

    by_name = not anonymise and (bool(names) or any(x.startswith("hub:") for x in learners))
    found = needs(runs, order, learners, shown, now)
    return ClassReport(tuple(shown[x] for x in learners), tuple(out), len(handins), tuple(problems), with_code, tuple(notes), listed is not None,
                       by_name, found)


def _apply_names(names: dict[str, str], learners: list[str], shown: dict[str, str]) -> list[str]:
    """Show each named learner as ``name (short id)``; one note for the entries that name nobody or several."""
    unmatched, ambiguous = [], []
    ids = [x for x in learners if not x.startswith("file:")]
    for key, name in names.items():
        found = [x for x in ids if x == key] or [x for x in ids if x.startswith(key)]
        if len(found) == 1:
            shown[found[0]] = f"{name} ({shown[found[0]]})"
        elif found:
            ambiguous.append(key)
        else:
            unmatched.append(key)
    notes = []
    if ambiguous:
        notes.append(f"--names: {len(ambiguous)} id prefixes match several learners and were not used: {', '.join(ambiguous[:8])}")
    if unmatched:
        notes.append(f"--names: {len(unmatched)} {'id matches' if len(unmatched) == 1 else 'ids match'} no learner in this report")
    return notes


def _merge(handins: list[Handin]) -> tuple[list[Run], dict[str, str]]:
    """Each learner once: logged runs win over panel snapshots of the same exercise; repeats count once."""
    sources: dict[str, str] = {}
    logged = {(r.learner, r.record) for h in handins for r in h.runs if r.complete}
    seen, runs = set(), []
    for h in handins:
        sources.update(h.sources)
        repeats: Counter = Counter()  # the same run twice in one file (same second, same code) is two runs
        for r in h.runs:
            if not r.complete and (r.learner, r.record) in logged:
                continue
            key = (r.learner, r.record, r.variant, r.time, r.statuses, r.solve_sha256, r.complete)
            repeats[key] += 1
            if (key, repeats[key]) in seen:
                continue
            seen.add((key, repeats[key]))
            runs.append(r)
    runs.sort(key=lambda r: (r.time or ""))  # stable: file order where times are equal or missing
    return runs, sources


def _display_names(learners: list[str]) -> dict[str, str]:
    """Short ids, lengthened (two characters at a time) where two learners would share one.

    Linear in the length of the ids: in sorted order, the longest prefix an id
    shares with any other is the one it shares with a neighbour. An id that would
    need more than `MAX_NAME` characters (a crafted one: real ids are 16 hex
    digits) is shown by its beginning and a hash of the whole.
    """
    names = {learner: learner for learner in learners if learner.startswith("file:")}
    ids = sorted(learner for learner in learners if not learner.startswith("file:"))
    for i, learner in enumerate(ids):
        shared = max(_common(learner, ids[i - 1]) if i else 0, _common(learner, ids[i + 1]) if i + 1 < len(ids) else 0)
        width = 6 if shared < 6 else 6 + 2 * ((shared - 6) // 2 + 1)
        if width <= MAX_NAME or len(learner) <= MAX_NAME:
            names[learner] = learner[: min(width, len(learner))]
        else:
            names[learner] = f"{learner[:12]}…{hashlib.sha256(learner.encode('utf-8', 'surrogatepass')).hexdigest()[:10]}"
    return names


def _common(a: str, b: str) -> int:
    """The length of the longest common prefix of `a` and `b` (`os.path.commonprefix`: linear)."""
    return len(os.path.commonprefix([a, b]))


def _median(values: list[int]) -> float | None:
    return float(statistics.median(values)) if values else None


_LOADED: dict[str, Any] = {}


def _teaching(ref: str) -> tuple[str | None, dict[str, str]]:
    """The record's title and its text about each implementation, when it can be loaded (quietly none otherwise)."""
    from .._records import RecordError, load_record

    if ref not in _LOADED:
        try:
            _LOADED[ref] = load_record(ref)
        except (RecordError, OSError, ValueError):
            _LOADED[ref] = None
    record = _LOADED[ref]
    if record is None:
        return None, {}
    return record.title, {"attempt": record.failed_approach, "broken": record.root_cause}


_IMPLEMENTATION = {"attempt": "the attempt", "broken": "the broken implementation"}


def _groups(i: int, own_by_learner: list[tuple[str, list[Run], bool]]) -> tuple[Group, ...]:
    """Learners who failed check `i`, grouped by their latest failing run there (largest first)."""
    groups: dict[tuple, list] = {}
    for name, own, passed_since in own_by_learner:
        failing = [r for r in own if r.statuses[i] != "pass"]
        if not failing:
            continue
        r = failing[-1]
        outcome = r.outcomes[i] if i < len(r.outcomes) else None
        reason = r.reasons[i] if i < len(r.reasons) else None
        status = r.statuses[i]
        if outcome and outcome.get("same_as"):
            same = "+".join(sorted(set(outcome["same_as"])))
            text = "return what " + " and ".join(_IMPLEMENTATION.get(x, x) for x in sorted(set(outcome["same_as"]))) + " returns"
            key = (same, text + (f" ({outcome['repr']})" if outcome.get("repr") else ""))
        elif status == "timeout":
            key = ("timeout", "time out")
        elif status == NOT_CONFIRMED:
            key = (NOT_CONFIRMED, "get a verdict that could not be confirmed")
        elif status == "error":
            key = ("error", f"raise {reason or (outcome or {}).get('repr') or 'an error'}")
        elif outcome and outcome.get("value"):
            key = ("value", f"return {outcome.get('repr')}" + (f" ({reason})" if reason else ""), outcome["value"])
        else:
            key = ("reason", f"fail by {reason or 'value'}")
        entry = groups.setdefault(key, [[], 0])
        entry[0].append(name)
        entry[1] += 0 if passed_since else 1
    ordered = sorted(groups.items(), key=lambda kv: (-len(kv[1][0]), kv[0][1]))[:TOP_GROUPS]
    return tuple(Group(key[0], key[1], tuple(members), stuck) for key, (members, stuck) in ordered)


def _exercise(record: str, runs: list[Run], learners: list[str], names: dict[str, str], sources: dict[str, str] | None, ref: str | None = None) -> ExerciseStats:
    title, teaching = _teaching(ref or record)
    by_learner: dict[str, list[Run]] = {}
    for r in runs:
        by_learner.setdefault(r.learner, []).append(r)
    if not runs:
        return ExerciseStats(record, 0, 0, 0, None, 0, (), (), {}, title, teaching)
    width = max(len(r.statuses) for r in runs)
    labels = []
    for i in range(width):
        label = next((r.labels[i] for r in runs if i < len(r.labels) and r.labels[i]), None)
        labels.append(str(label) if label else f"check {i + 1}")
    checks = []
    for i, label in enumerate(labels):
        reached, to_pass, stuck, reasons, cells = 0, [], [], Counter(), []
        ran, mine = 0, []
        for learner in learners:
            own = [r for r in by_learner.get(learner, []) if i < len(r.statuses)]
            if not own:
                cells.append(None)
                continue
            ran += 1
            first = next((n for n, r in enumerate(own, 1) if r.statuses[i] == "pass"), None)
            last_fail = max((n for n, r in enumerate(own, 1) if r.statuses[i] != "pass"), default=0)
            mine.append((names[learner], own, first is not None and any(r.statuses[i] == "pass" for r in own[last_fail:])))
            if first is None:
                stuck.append(names[learner])
                cells.append(own[-1].statuses[i])
            else:
                reached += 1
                cells.append("pass")
                if all(r.complete for r in own):
                    to_pass.append(first)
            reasons.update({r.reasons[i] for r in own if r.statuses[i] != "pass" and i < len(r.reasons) and r.reasons[i]})
        top = tuple(sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0]))[:TOP_REASONS])
        checks.append(CheckStats(i, label, ran, reached, _median(to_pass), len(to_pass), top, tuple(stuck), tuple(cells), _groups(i, mine)))
    reached, to_pass, stuck, code = 0, [], [], {}
    for learner, own in by_learner.items():
        first = next((n for n, r in enumerate(own, 1) if r.passed), None)
        if first is None:
            stuck.append(names[learner])
        else:
            reached += 1
            if all(r.complete for r in own):
                to_pass.append(first)
        if sources is not None:
            chosen = next((r.solve_sha256 for r in reversed(own) if r.passed and r.solve_sha256 in sources), None)
            chosen = chosen or next((r.solve_sha256 for r in reversed(own) if r.solve_sha256 in sources), None)
            if chosen:
                code[names[learner]] = sources[chosen]
    return ExerciseStats(record, len(by_learner), len(runs), reached, _median(to_pass), len(to_pass), tuple(sorted(stuck)), tuple(checks), code, title, teaching)
