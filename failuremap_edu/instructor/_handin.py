"""Reading what a class hands in: panel downloads, exports and progress logs, each untrusted, as `Run`s of `Handin`s.

A file that is not ours, of the wrong shape (checked against `HANDIN_SCHEMAS` with
`jsonschema`) or unreadable is a ValueError with a short reason, never a
traceback; a progress log's unreadable lines are named and skipped. Each file
carries the pseudonymous learner id of the learner's progress log; a log written
on a hub names the hub user, who is then the learner (``hub:NAME``). Counting is
in `_report`.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import stat
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from .._errors import InputError
from .._outcomes import failure_reason
from .._results import NOT_CONFIRMED, STATUSES, UNCONFIRMED

__all__ = ["HANDIN_SCHEMAS", "Handin", "ReportError", "Run", "home_logs", "read_names", "read_results", "runs_from_entries", "workshop_exercises"]

MAX_FILE_BYTES = 64 * 1024 * 1024
"""Handed-in files larger than this are refused (an export of a long course is a few MB)."""

MIN_PREFIX = 6
"""A name in --names may give a learner id by a unique prefix this long at least."""


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
    """Per check, what happened where it did not pass (`_outcomes.outcomes`); empty for files from before them."""
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
    from .._progress import _open_for_reading

    try:
        with _open_for_reading(path) as fh:
            first = fh.readline(64 * 1024)
        entry = json.loads(first.decode("utf-8"))
    except (OSError, ValueError, UnicodeDecodeError, RecursionError):
        return path.suffix == ".jsonl"
    return isinstance(entry, dict) and ("learner" in entry or "record" in entry)


def _from_log(path: Path) -> Handin:
    """A progress log (``progress.jsonl``), read as the learner's own notebook reads it (`read_progress`): every run."""
    from .._progress import _open_for_reading, _read_id, read_progress_lines

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
    """``2 unreadable lines skipped (4 runs read): line 3 (not JSON), line 5 (cut short)``: what a report leaves out of a log, or None.

    Line numbers count every line of the file, its first (the learner's id) included.
    """
    if not skipped:
        return None
    lines = ", ".join(f"line {number} ({why})" for number, why in skipped[:shown])
    more = f" and {len(skipped) - shown} more" if len(skipped) > shown else ""
    unreadable = f"{len(skipped)} unreadable line{'s' if len(skipped) != 1 else ''}"
    return f"{unreadable} skipped ({read} run{'s' if read != 1 else ''} read): {lines}{more}"


def _outcomes(value: Any, width: int) -> tuple[dict | None, ...]:
    """Outcomes from a file, each checked for shape (`_progress._is_outcome`); a wrong one is dropped, never trusted."""
    from .._progress import _is_outcome

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
        statuses = _statuses(_download_status(o) for o in observations)
        labels = tuple(_text(o.get("check")) for o in observations)
        reasons = tuple(_reason(o) for o in observations)
        outcomes = _outcomes(found[n], len(statuses)) if n < len(found) else ()
        runs.append(Run(learner, _record(data["record"]), _variant(run.get("variant")), _text(data.get("time")), statuses, labels, reasons, sha, False, outcomes))
    return Handin(str(path), tuple(runs), {sha: source} if sha and source else {})


def _download_status(o: dict) -> Any:
    """A downloaded check's status; a pass whose verdict could not be confirmed (a file from before that status) is ``unconfirmed``."""
    note = o.get("verdict_note")
    if o.get("status") == "pass" and isinstance(note, str) and note.startswith(UNCONFIRMED):
        return NOT_CONFIRMED
    return o.get("status")


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
        return failure_reason(str(_download_status(o)), error_type=error_type)
    return failure_reason("fail", _value(o.get("expected"), o.get("expected_repr")), _value(o.get("actual"), o.get("actual_repr")))


def _value(plain: Any, text: Any) -> Any:
    """A value back from a download: its repr read as a literal (tuples stay tuples), else its JSON form.

    `ast.literal_eval` only builds literals; nothing in a handed-in file runs.
    """
    from .._values import Opaque

    if isinstance(text, str) and len(text) <= 20_000:
        try:
            return ast.literal_eval(text)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            if plain is None and text != "None":
                return Opaque("object", text, "not a literal")
    return plain
