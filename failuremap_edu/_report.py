"""A class report: where a class got stuck, from the files learners hand in.

Learners hand in what the exercise panel downloads (``…-results.json``) and what
``failuremap-edu export`` writes. Both carry the pseudonymous learner id of the
learner's progress log, so each learner counts once however many files they
send. For every exercise and check the report says how many learners reached a
pass, the median number of runs it took, the most common reasons for failing
(the diff's kind, or the error's type) and which learners are still stuck.

Pure data: reading and counting here; text, JSON and HTML are in
`_render_report`. Runs of instructor notebooks (marked in the log) are skipped,
and no learner's code is kept unless it is asked for.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import statistics
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from ._errors import InputError
from ._progress import failure_reason
from ._results import STATUSES

__all__ = ["CheckStats", "ClassReport", "ExerciseStats", "ReportError", "build_report", "read_results"]

MAX_FILE_BYTES = 64 * 1024 * 1024
"""Handed-in files larger than this are refused (an export of a long course is a few MB)."""
TOP_REASONS = 3
MAX_NAME = 24
"""Display names are at most this long: ids that only differ further on are told apart by a hash."""


class ReportError(InputError):
    """No file could be read at all."""


@dataclass(frozen=True)
class Run:
    """One logged run of one learner's solve: the unit the report counts."""

    learner: str
    """The learner id, or ``file:NAME`` for a file without one (it then counts as its own learner)."""
    record: str
    variant: int | None
    time: str | None
    statuses: tuple[str, ...]
    labels: tuple[str | None, ...]
    reasons: tuple[str | None, ...]
    """For each check that did not pass: the diff's kind or the error's type."""
    solve_sha256: str | None
    complete: bool
    """True for a run from a progress log (every run is there); False for a panel download (one snapshot)."""

    @property
    def passed(self) -> bool:
        return bool(self.statuses) and all(s == "pass" for s in self.statuses)


@dataclass(frozen=True)
class Handin:
    """What one file holds: runs, and the solves they ran (by sha256)."""

    path: str
    runs: tuple[Run, ...]
    sources: dict[str, str] = field(default_factory=dict)


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
    reasons: tuple[tuple[str, int], ...]
    """Why it failed, most common first: (reason, learners who met it)."""
    stuck: tuple[str, ...]
    """Learners (display names) who ran it but never saw it pass."""
    cells: tuple[str | None, ...]
    """Per learner of the report, in order: ``pass`` if it ever passed, else the latest status; None if never run."""


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
    stuck: tuple[str, ...]
    checks: tuple[CheckStats, ...]
    code: dict[str, str] = field(default_factory=dict)
    """Display name -> the learner's solve (their last passing one, else their latest); only with code."""


@dataclass(frozen=True)
class ClassReport:
    """The whole class: learners (display names, in order) and one entry per exercise."""

    learners: tuple[str, ...]
    exercises: tuple[ExerciseStats, ...]
    files: int
    """Files that were read."""
    problems: tuple[str, ...]
    """One line per file that could not be used."""
    with_code: bool = False

    def to_json(self) -> dict:
        return {
            "learners": list(self.learners),
            "files": self.files,
            "problems": list(self.problems),
            "exercises": [
                {
                    "record": e.record,
                    "learners": e.learners,
                    "runs": e.runs,
                    "reached_pass": e.reached_pass,
                    "median_runs_to_pass": e.median_runs_to_pass,
                    "stuck": list(e.stuck),
                    "checks": [
                        {
                            "index": c.index,
                            "check": c.label,
                            "learners": c.learners,
                            "reached_pass": c.reached_pass,
                            "median_runs_to_pass": c.median_runs_to_pass,
                            "reasons": [{"reason": r, "learners": n} for r, n in c.reasons],
                            "stuck": list(c.stuck),
                            "cells": dict(zip(self.learners, c.cells)),
                        }
                        for c in e.checks
                    ],
                    **({"code": dict(e.code)} if self.with_code else {}),
                }
                for e in self.exercises
            ],
        }


# ------------------------------------------------------------------ reading


def _files(paths: Iterable[str | os.PathLike]) -> list[Path]:
    out = []
    for p in map(Path, paths):
        out += sorted(q for q in p.rglob("*.json") if q.is_file()) if p.is_dir() else [p]
    return out


def read_results(path: Path) -> Handin:
    """One handed-in file. Raises ValueError with a short reason when it is not ours or unreadable."""
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise ValueError(f"{size:,} bytes; files over {MAX_FILE_BYTES:,} bytes are refused")
        data = json.loads(path.read_bytes().decode("utf-8"))
    except OSError as exc:
        raise ValueError(f"cannot read: {exc.strerror or exc}") from None
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        raise ValueError("not JSON") from None
    try:
        if isinstance(data, dict) and isinstance(data.get("attempts"), list):
            return _from_export(path, data)
        if isinstance(data, dict) and isinstance(data.get("record"), str) and isinstance(data.get("runs"), list):
            return _from_download(path, data)
    except (TypeError, KeyError, AttributeError, ValueError):
        raise ValueError("a failuremap_edu file with fields of the wrong type") from None
    raise ValueError("not a failuremap_edu results download or export")


def _learner(data: dict, path: Path) -> str:
    """The file's learner id; without one, the file is its own learner, by its whole path (two folders' results.json are two)."""
    learner = data.get("learner")
    return learner if isinstance(learner, str) and learner else f"file:{os.path.abspath(path)}"


def _file_names(learners: list[str]) -> dict[str, str]:
    """``file:NAME`` for learners known only by their file: the shortest end of its path that no other such file shares."""
    parts = {x: Path(x[len("file:"):]).parts for x in learners if x.startswith("file:")}
    names, depth, pending = {}, 1, dict(parts)
    while pending:
        shared = Counter(p[-depth:] for p in parts.values())
        for learner, mine in list(pending.items()):
            if shared[mine[-depth:]] == 1 or depth >= len(mine):
                names[learner] = "file:" + "/".join(mine[-depth:])
                del pending[learner]
        depth += 1
    return names


def _from_export(path: Path, data: dict) -> Handin:
    learner = _learner(data, path)
    sources = {k: v for k, v in (data.get("sources") or {}).items() if isinstance(k, str) and isinstance(v, str)}
    runs = []
    for a in data["attempts"]:
        if a.get("instructor"):
            continue
        if "checks" in a:
            statuses = _statuses(c["status"] for c in a["checks"])
            labels = tuple(_text(c.get("check")) for c in a["checks"])
            reasons = tuple(_text(c.get("reason")) for c in a["checks"])
        else:  # an export from before check labels: statuses only
            statuses = _statuses(a["statuses"])
            labels = reasons = (None,) * len(statuses)
        runs.append(Run(learner, _record(a["record"]), _variant(a.get("variant")), _text(a.get("time")), statuses, labels, reasons, _text(a.get("solve_sha256")), True))
    for record_id, latest in (data.get("latest") or {}).items():  # exports from before "sources"
        if isinstance(latest, dict) and isinstance(latest.get("solve_source"), str) and latest.get("solve_sha256"):
            sources.setdefault(latest["solve_sha256"], latest["solve_source"])
    return Handin(str(path), tuple(runs), sources)


def _from_download(path: Path, data: dict) -> Handin:
    learner = _learner(data, path)
    source = data.get("solve") if isinstance(data.get("solve"), str) else None
    sha = hashlib.sha256(source.encode("utf-8", "replace")).hexdigest() if source else None
    runs = []
    for run in data["runs"]:
        observations = run["observations"]
        statuses = _statuses(o["status"] for o in observations)
        labels = tuple(_text(o.get("check")) for o in observations)
        reasons = tuple(_reason(o) for o in observations)
        runs.append(Run(learner, _record(data["record"]), _variant(run.get("variant")), _text(data.get("time")), statuses, labels, reasons, sha, False))
    return Handin(str(path), tuple(runs), {sha: source} if sha and source else {})


def _statuses(values) -> tuple[str, ...]:
    out = tuple(values)
    if not all(v in STATUSES for v in out):
        raise ValueError("unknown status")
    return out


def _text(value: Any) -> str | None:
    if value is not None and not isinstance(value, str):
        raise TypeError(type(value).__name__)
    return value


def _variant(value: Any) -> int | None:
    if value is not None and (not isinstance(value, int) or isinstance(value, bool)):
        raise TypeError("variant")
    return value


def _record(value: Any) -> str:
    if not isinstance(value, str) or not value:
        raise TypeError("record")
    return value


def _reason(o: dict) -> str | None:
    error = o.get("error")
    error_type = error.get("type") if isinstance(error, dict) else None
    if o.get("status") != "fail":
        return failure_reason(str(o.get("status")), error_type=error_type)
    return failure_reason("fail", _value(o.get("expected"), o.get("expected_repr")), _value(o.get("actual"), o.get("actual_repr")))


def _value(plain: Any, text: Any) -> Any:
    """A value back from a download: its repr read as a literal (tuples stay tuples), else its JSON form.

    `ast.literal_eval` only builds literals; nothing in a handed-in file runs.
    """
    from ._values import Opaque

    if isinstance(text, str) and len(text) <= 20_000:
        try:
            return ast.literal_eval(text)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            if plain is None and text != "None":
                return Opaque("object", text, "not a literal")
    return plain


# ------------------------------------------------------------------ counting


def build_report(paths: Iterable[str | os.PathLike], *, with_code: bool = False) -> ClassReport:
    """Read every file (folders: every ``*.json`` below them) and count the class.

    A file that cannot be used becomes one line in `problems`; the rest still count.
    Raises ReportError when not one file could be used.
    """
    files = _files(paths)
    handins, problems = [], []
    for path in files:
        try:
            handins.append(read_results(path))
        except ValueError as exc:
            problems.append(f"{path}: {exc}")
    if not handins:
        raise ReportError("; ".join(problems[:3]) if problems else "no .json files found in " + ", ".join(map(str, paths)))
    runs, sources = _merge(handins)
    learners = sorted({r.learner for r in runs})
    names = _display_names(learners)
    names.update(_file_names(learners))
    exercises = []
    for record in sorted({r.record for r in runs}):
        mine = [r for r in runs if r.record == record]
        exercises.append(_exercise(record, mine, learners, names, sources if with_code else None))
    return ClassReport(tuple(names[x] for x in learners), tuple(exercises), len(handins), tuple(problems), with_code)


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


def _exercise(record: str, runs: list[Run], learners: list[str], names: dict[str, str], sources: dict[str, str] | None) -> ExerciseStats:
    by_learner: dict[str, list[Run]] = {}
    for r in runs:
        by_learner.setdefault(r.learner, []).append(r)
    width = max(len(r.statuses) for r in runs)
    labels = []
    for i in range(width):
        label = next((r.labels[i] for r in runs if i < len(r.labels) and r.labels[i]), None)
        labels.append(str(label) if label else f"check {i + 1}")
    checks = []
    for i, label in enumerate(labels):
        reached, to_pass, stuck, reasons, cells = 0, [], [], Counter(), []
        ran = 0
        for learner in learners:
            own = [r for r in by_learner.get(learner, []) if i < len(r.statuses)]
            if not own:
                cells.append(None)
                continue
            ran += 1
            first = next((n for n, r in enumerate(own, 1) if r.statuses[i] == "pass"), None)
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
        checks.append(CheckStats(i, label, ran, reached, _median(to_pass), top, tuple(stuck), tuple(cells)))
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
    return ExerciseStats(record, len(by_learner), len(runs), reached, _median(to_pass), tuple(sorted(stuck)), tuple(checks), code)
