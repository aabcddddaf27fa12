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

Pure data: reading and counting here; text, JSON and HTML are in
`_render_report`. Runs of instructor notebooks (marked in the log) are skipped,
and no learner's code is kept unless it is asked for.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import stat
import statistics
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from ._errors import InputError
from ._progress import failure_reason
from ._results import STATUSES

__all__ = ["CheckStats", "ClassReport", "ExerciseStats", "Group", "ReportError", "build_report", "home_logs", "read_names", "read_results", "workshop_exercises"]

MAX_FILE_BYTES = 64 * 1024 * 1024
"""Handed-in files larger than this are refused (an export of a long course is a few MB)."""
TOP_REASONS = 3
TOP_GROUPS = 5
"""Groups of the same mistake kept per check (largest first)."""
MIN_PREFIX = 6
"""A name in --names may give a learner id by a unique prefix this long at least."""
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
    outcomes: tuple[dict | None, ...] = ()
    """Per check, what happened where it did not pass (`_progress.outcomes`); empty for files from before them."""
    cell: str | None = None
    """The run of the solve cell this line belongs to (its variants share it), when the log says."""

    @property
    def passed(self) -> bool:
        return bool(self.statuses) and all(s == "pass" for s in self.statuses)


@dataclass(frozen=True)
class Handin:
    """What one file holds: runs, and the solves they ran (by sha256)."""

    path: str
    runs: tuple[Run, ...]
    sources: dict[str, str] = field(default_factory=dict)
    learner: str | None = None
    """Set for a progress log: its learner counts as one who has not started anything yet when it has no runs."""
    skipped: str | None = None
    """What of the file was not used, in a few words (``lines 3 (not JSON), 5 (cut short)``), or None: all of it."""


@dataclass(frozen=True)
class Group:
    """Learners who fail one check the same way: by what their solve returned there (or its error, or the diff's kind)."""

    kind: str
    """``attempt``/``broken``/``attempt+broken`` (the value equals what that implementation returns), ``value``, ``timeout``, ``error`` or ``reason``."""
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


# ------------------------------------------------------------------ reading


def _files(paths: Iterable[str | os.PathLike]) -> list[Path]:
    out = []
    for p in map(Path, paths):
        out += sorted(q for q in p.rglob("*.json*") if q.suffix in (".json", ".jsonl") and q.is_file()) if p.is_dir() else [p]
    return out


def home_logs(pattern: str) -> tuple[list[Path], list[str]]:
    """Every learner's progress log under the home folders `pattern` matches (``/home/*``), and the homes without one.

    A log is where `_progress.progress_path` puts it under a home:
    ``~/.local/share/failuremap_edu/progress.jsonl``.
    """
    import glob

    found, without = [], []
    for home in sorted(glob.glob(os.path.expanduser(pattern))):
        if not os.path.isdir(home):
            continue
        log = Path(home, ".local", "share", "failuremap_edu", "progress.jsonl")
        if os.path.lexists(log):
            found.append(log)
        else:
            without.append(home)
    return found, without


def workshop_exercises(folder: str | os.PathLike) -> list[tuple[str, str]]:
    """The exercises of a learners' folder ``failuremap-edu workshop`` wrote: (record id, what loads the record).

    One per ``notebooks/ID.ipynb``, in the workshop's order (as its README lists them; others after, by name); a
    record of the instructor's own is ``notebooks/records/ID.json``. Raises ReportError when the folder has no exercise notebook.
    """
    import re

    notebooks = Path(folder) / "notebooks"
    if not notebooks.is_dir():
        raise ReportError(f"{folder}: not a workshop folder (no notebooks/ in it)")
    try:
        listed = re.findall(r"\]\(notebooks/([^)/]+)\.ipynb\)", (Path(folder) / "README.md").read_text(encoding="utf-8", errors="replace")[:1_000_000])
    except OSError:
        listed = []
    rank = {name: n for n, name in reversed(list(enumerate(listed)))}
    out = []
    for nb in sorted(notebooks.glob("*.ipynb"), key=lambda p: (rank.get(p.stem, len(rank)), p.name)):
        if nb.name.startswith("00-") or not nb.is_file():
            continue
        own = notebooks / "records" / f"{nb.stem}.json"
        out.append((nb.stem, str(own) if own.is_file() else nb.stem))
    if not out:
        raise ReportError(f"{folder}: no exercise notebooks in notebooks/")
    return out


def read_names(path: str | os.PathLike) -> dict[str, str]:
    """``id,name`` rows (a header row ``id,name`` may come first): learner id, or a prefix of it, -> name.

    For the instructor's eyes only: the names go into the report's output, never
    into anything learners see. Raises ReportError (one line) for a file that is not such a CSV.
    """
    import csv

    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise ReportError(f"--names {path}: cannot read it ({getattr(exc, 'strerror', None) or exc})") from None
    names: dict[str, str] = {}
    bad: list[str] = []
    try:
        for n, row in enumerate(csv.reader(text.splitlines()), 1):
            if not row or not "".join(row).strip():
                continue
            if len(row) != 2:
                bad.append(f"line {n} has {len(row)} fields")
                continue
            key, name = row[0].strip(), row[1].strip()
            if n == 1 and key.lower() in ("id", "learner", "learner id") and name.lower() == "name":
                continue
            if len(key) < MIN_PREFIX or not name:
                bad.append(f"line {n} needs an id of at least {MIN_PREFIX} characters and a name")
            elif key in names:
                bad.append(f"line {n} names {key} twice")
            else:
                names[key] = name[:80]
    except csv.Error as exc:
        raise ReportError(f"--names {path}: not a CSV file ({exc})") from None
    if bad:  # every problem at once, so that one fix of the file is enough
        raise ReportError(f"--names {path}: " + "; ".join(bad[:6]) + (f"; +{len(bad) - 6} more" if len(bad) > 6 else "")
                          + "; each line is: learner id,name")
    return names


_STATUS = {"enum": list(STATUSES)}
_TEXT = {"type": ["string", "null"]}
HANDIN_SCHEMAS = {
    "export": {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "export (what failuremap-edu export writes)",
        "type": "object",
        "required": ["attempts"],
        "properties": {
            "learner": {"type": "string"},
            "attempts": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["record"],
                    "anyOf": [{"required": ["checks"]}, {"required": ["statuses"]}],
                    "properties": {
                        "record": {"type": "string", "minLength": 1},
                        "variant": {"type": ["integer", "null"]},
                        "time": _TEXT,
                        "solve_sha256": _TEXT,
                        "instructor": {"type": "boolean"},
                        "statuses": {"type": "array", "items": _STATUS},
                        "checks": {
                            "type": "array",
                            "items": {"type": "object", "required": ["status"], "properties": {"status": _STATUS, "check": _TEXT, "reason": _TEXT}},
                        },
                    },
                },
            },
            "sources": {"type": "object", "additionalProperties": {"type": "string"}},
            "latest": {"type": "object"},
        },
    },
    "download": {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "results download (from the exercise panel)",
        "type": "object",
        "required": ["record", "runs"],
        "properties": {
            "record": {"type": "string", "minLength": 1},
            "learner": {"type": "string"},
            "solve": _TEXT,
            "outcomes": {"type": "array"},
            "runs": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["observations"],
                    "properties": {
                        "variant": {"type": ["integer", "null"]},
                        "observations": {
                            "type": "array",
                            "items": {"type": "object", "required": ["status"], "properties": {"status": _STATUS, "check": _TEXT}},
                        },
                    },
                },
            },
        },
    },
}
"""The two hand-in formats, as JSON Schemas: `read_results` validates a file with `jsonschema` before reading it,
so a file of the wrong shape is one line naming where it is wrong, and the formats are written down."""


def _check_shape(kind: str, data: Any) -> None:
    """Raise ValueError naming the first place where `data` is not a `kind` (export or download)."""
    import jsonschema

    error = jsonschema.exceptions.best_match(jsonschema.Draft202012Validator(HANDIN_SCHEMAS[kind]).iter_errors(data))
    if error is not None:
        where = "/".join(map(str, error.absolute_path)) or "the top"
        message = error.message if len(error.message) <= 160 else error.message[:159] + "…"
        raise ValueError(f"not a valid failuremap_edu {HANDIN_SCHEMAS[kind]['title'].split(' (')[0]}: at {where}: {message}")


def read_results(path: Path) -> Handin:
    """One handed-in file. Raises ValueError with a short reason when it is not ours or unreadable."""
    if path.suffix == ".jsonl":
        return _from_log(path)
    try:
        mode = path.stat().st_mode
        if not stat.S_ISREG(mode):
            raise ValueError("not a regular file")
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise ValueError(f"{size:,} bytes; files over {MAX_FILE_BYTES:,} bytes are refused")
        data = json.loads(path.read_bytes().decode("utf-8"))
    except OSError as exc:
        raise ValueError(f"cannot read: {exc.strerror or exc}") from None
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        if _looks_like_log(path):
            return _from_log(path)
        raise ValueError("not JSON") from None
    kind = "export" if isinstance(data, dict) and "attempts" in data else "download" if isinstance(data, dict) and "runs" in data and "record" in data else None
    if kind is not None:
        _check_shape(kind, data)  # one line naming where the file is wrong
    try:
        if kind == "export":
            return _from_export(path, data)
        if kind == "download":
            return _from_download(path, data)
        if isinstance(data, dict) and (str(data.get("log", "")).startswith("failuremap_edu progress") or isinstance(data.get("statuses"), list)):
            return _from_log(path)  # a progress log of one line
    except (TypeError, KeyError, AttributeError, ValueError):
        raise ValueError("a failuremap_edu file with fields of the wrong type") from None
    raise ValueError("not a failuremap_edu results download or export")


def _looks_like_log(path: Path) -> bool:
    """A progress log: JSON lines, the first one a learner id (or a run, for a log from before ids)."""
    from ._progress import _open_for_reading

    try:
        with _open_for_reading(path) as fh:
            first = fh.readline(64 * 1024)
        entry = json.loads(first.decode("utf-8"))
    except (OSError, ValueError, UnicodeDecodeError, RecursionError):
        return path.suffix == ".jsonl"
    return isinstance(entry, dict) and ("learner" in entry or "record" in entry)


def _from_log(path: Path) -> Handin:
    """A progress log (``progress.jsonl``), read as the learner's own notebook reads it (`read_progress`): every run."""
    from ._progress import _open_for_reading, _read_id, read_progress_lines

    try:
        _open_for_reading(path).close()
    except OSError as exc:
        raise ValueError(f"cannot read: {exc.strerror or exc}") from None
    entries, skipped = read_progress_lines(path)
    learner = _read_id(path) or f"file:{os.path.abspath(path)}"
    dropped = _skipped_lines(skipped, len(entries))
    if not entries and not learner.startswith("file:"):
        return Handin(str(path), (), {}, learner, dropped)
    if not entries:
        raise ValueError("a progress log with no readable run in it" + (f" ({dropped})" if dropped else ""))
    users = Counter(e["hub_user"] for e in entries if isinstance(e.get("hub_user"), str))
    if users:  # written under a hub: the learner is the hub user (the collector's copy of the same runs is the same learner)
        learner = "hub:" + users.most_common(1)[0][0]
    runs, sources = runs_from_entries(learner, entries)
    return Handin(str(path), tuple(runs), sources, None if entries else learner, dropped)


def runs_from_entries(learner: str, entries: list[dict]) -> tuple[list[Run], dict[str, str]]:
    """Progress-log lines (each already checked by `_progress._is_entry`) as `Run`s of `learner`, and the solves they ran.

    Instructor notebooks' runs are left out.
    """
    sources, runs = {}, []
    for e in entries:
        if e.get("instructor"):
            continue
        sha, source = e.get("solve_sha256"), e.get("solve_source")
        if isinstance(sha, str) and isinstance(source, str):
            sources.setdefault(sha, source)
        statuses = tuple(e.get("statuses") or ())
        labels = tuple(e.get("checks") or (None,) * len(statuses))
        reasons = tuple(e.get("reasons") or (None,) * len(statuses))
        cell = e.get("run") if isinstance(e.get("run"), str) else None
        runs.append(Run(learner, e["record"], e.get("variant"), e.get("time"), statuses, labels, reasons, sha, True,
                        _outcomes(e.get("outcomes"), len(statuses)), cell))
    return runs, sources


def _skipped_lines(skipped: list[tuple[int, str]], read: int, shown: int = 8) -> str | None:
    """``2 of 6 lines skipped as unreadable: line 3 (not JSON), line 5 (cut short)``: what a report leaves out of a log, or None."""
    if not skipped:
        return None
    lines = ", ".join(f"line {number} ({why})" for number, why in skipped[:shown])
    more = f" and {len(skipped) - shown} more" if len(skipped) > shown else ""
    return f"{len(skipped)} of {len(skipped) + read} lines skipped as unreadable: {lines}{more}"


def _outcomes(value: Any, width: int) -> tuple[dict | None, ...]:
    """Outcomes from a file, each checked for shape (`_progress._is_outcome`); a wrong one is dropped, never trusted."""
    from ._progress import _is_outcome

    if not isinstance(value, list):
        return ()
    return tuple(o if _is_outcome(o) else None for o in value[:width])


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
            found = _outcomes([c.get("outcome") for c in a["checks"]], len(statuses))
        else:  # an export from before check labels: statuses only
            statuses = _statuses(a["statuses"])
            labels = reasons = (None,) * len(statuses)
            found = ()
        runs.append(Run(learner, _record(a["record"]), _variant(a.get("variant")), _text(a.get("time")), statuses, labels, reasons, _text(a.get("solve_sha256")), True, found))
    for record_id, latest in (data.get("latest") or {}).items():  # exports from before "sources"
        if isinstance(latest, dict) and isinstance(latest.get("solve_source"), str) and latest.get("solve_sha256"):
            sources.setdefault(latest["solve_sha256"], latest["solve_source"])
    lost = data.get("skipped_lines")
    note = f"the learner's progress log had {lost} unreadable line{'s' if lost != 1 else ''}, left out of this export" if type(lost) is int and lost > 0 else None
    return Handin(str(path), tuple(runs), sources, skipped=note)


def _from_download(path: Path, data: dict) -> Handin:
    learner = _learner(data, path)
    source = data.get("solve") if isinstance(data.get("solve"), str) else None
    sha = hashlib.sha256(source.encode("utf-8", "replace")).hexdigest() if source else None
    runs = []
    found = data.get("outcomes") if isinstance(data.get("outcomes"), list) else []
    for n, run in enumerate(data["runs"]):
        observations = run["observations"]
        statuses = _statuses(o["status"] for o in observations)
        labels = tuple(_text(o.get("check")) for o in observations)
        reasons = tuple(_reason(o) for o in observations)
        outcomes = _outcomes(found[n], len(statuses)) if n < len(found) else ()
        runs.append(Run(learner, _record(data["record"]), _variant(run.get("variant")), _text(data.get("time")), statuses, labels, reasons, sha, False, outcomes))
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
    from ._records import RecordError, load_record

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
