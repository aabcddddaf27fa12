"""A local progress log: one JSON line per check run, so progress survives the notebook.

The log lives in the user's data folder (``$FAILUREMAP_PROGRESS`` overrides the
file path). Writing never breaks a notebook: an unwritable location is reported
once and then ignored; unreadable lines are skipped when reading.

A log is born with a random, pseudonymous learner id in its first line. It names
nobody, yet lets an instructor count each learner once when a class hands in
downloads and exports (`failuremap-edu report`), and it keeps 30 downloads of the
same exercise from clashing (`file_tag`). Every line carries the check labels
next to the statuses, and for each check that did not pass the reason in one word
(the diff's kind, or the error's type): enough for a class report, without the
learner's values.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import time
from pathlib import Path
from typing import Any

from ._results import RunResult

__all__ = [
    "ProgressOverview",
    "export_progress",
    "failure_reason",
    "file_tag",
    "latest_by_record",
    "learner_id",
    "log_run",
    "progress_overview",
    "progress_path",
    "read_progress",
    "short_id",
]

_warned: set[str] = set()
MAX_SOURCE = 100_000
"""Characters of a solve's source kept per log line (enough for any exercise)."""
LOG_FORMAT = "failuremap_edu progress 2"
"""Written in a log's first line, next to the learner id."""
EXPORT_FORMAT = "failuremap_edu export 2"
_ids: dict[str, tuple[int, bytes, str]] = {}
_fallback_id: list[str] = []


def progress_path() -> Path:
    override = os.environ.get("FAILUREMAP_PROGRESS")
    if override:
        return Path(override).expanduser()
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / "failuremap_edu" / "progress.jsonl"


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S%z")


def _is_header(entry: Any) -> bool:
    return isinstance(entry, dict) and "record" not in entry and isinstance(entry.get("learner"), str)


def _read_id(target: Path) -> str | None:
    """The first learner id written into the log (the first one wins, should two processes race).

    Remembered with its place in the file; one small read confirms it is still
    there (the log may have been replaced), so a run does not rescan the log.
    """
    key = str(target)
    try:
        with open(target, "rb") as fh:
            known = _ids.get(key)
            if known is not None:
                offset, line, learner = known
                fh.seek(offset)
                if fh.read(len(line)) == line:
                    return learner
                fh.seek(0)
            offset = 0
            for raw in fh:
                try:
                    entry = json.loads(raw.decode("utf-8"))
                except (ValueError, UnicodeDecodeError):
                    entry = None
                if _is_header(entry):
                    _ids[key] = (offset, raw, entry["learner"])
                    return entry["learner"]
                offset += len(raw)
    except OSError:
        return None
    return None


def _append(target: Path, line: bytes) -> None:
    fd = os.open(target, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, line)  # one write of one line: concurrent writers do not interleave
    finally:
        os.close(fd)


def learner_id(path: Path | None = None) -> str:
    """The progress log's pseudonymous learner id, created with the log.

    Random (64 bits), so it names nobody; stable for as long as the log lives. When
    the log cannot be written, an id for this process only, so that downloads
    still get distinct names.
    """
    target = path or progress_path()
    found = _read_id(target)
    if found:
        return found
    header = (json.dumps({"learner": secrets.token_hex(8), "created": _now(), "log": LOG_FORMAT}) + "\n").encode("utf-8")
    link = getattr(os, "link", None)  # Pyodide (JupyterLite) has none
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        if link is not None:
            staged = target.with_name(f".{target.name}.{os.getpid()}.{secrets.token_hex(4)}")
            staged.write_bytes(header)
            try:
                link(staged, target)  # the log appears with its id in it, or it existed already
            except OSError:  # it existed, or this file system has no hard links
                pass
            finally:
                staged.unlink(missing_ok=True)
        if _read_id(target) is None:  # a log from before ids, or no hard links: appended, the first id wins
            _append(target, header)
    except OSError:
        pass
    found = _read_id(target)
    if found:
        return found
    if not _fallback_id:
        _fallback_id.append(secrets.token_hex(8))
    return _fallback_id[0]


def short_id(learner: str) -> str:
    """The first six characters of a learner id: enough to tell a class apart in file names."""
    return learner[:6]


def file_tag(path: Path | None = None, when: float | None = None) -> str:
    """``3f9a2c-20261130-064500``: the short learner id and a timestamp, for download and export names."""
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(when))
    return f"{short_id(learner_id(path))}-{stamp}"


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


def log_run(result: RunResult, solve_source: str | None = None, path: Path | None = None, *, instructor: bool = False, title: str | None = None,
            run: str | None = None) -> str | None:
    """Append one line for `result`. Returns a message the first time writing fails, else None.

    `run` names the run of the solve cell this result belongs to: the variants of
    one run, and the panel's re-runs of the same solve, share it, so the progress
    table counts runs of the cell (lines without it count one each).

    `instructor` marks the runs of an instructor notebook (a demo in front of the
    room, not learning): `failuremap-edu report` skips them.
    """
    target = path or progress_path()
    entry = {
        "record": result.record_id,
        "title": title,
        "variant": result.variant,
        "passed": result.passed_count,
        "total": result.total,
        "statuses": [o.status for o in result.observations],
        "checks": [o.check for o in result.observations],
        "reasons": [failure_reason(o.status, o.expected, o.actual, o.error.type if o.error else None) for o in result.observations],
        "time": _now(),
        "learner": learner_id(target),
        "solve_sha256": hashlib.sha256(solve_source.encode("utf-8", "replace")).hexdigest() if solve_source else None,
        "solve_source": solve_source[:MAX_SOURCE] if solve_source else None,
    }
    if run:
        entry["run"] = run
    if instructor:
        entry["instructor"] = True
    line = (json.dumps(entry, ensure_ascii=False) + "\n").encode("utf-8")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        _append(target, line)
    except OSError as exc:
        key = str(target)
        if key in _warned:
            return None
        _warned.add(key)
        return f"progress is not being saved: cannot write {target} ({exc.strerror or exc}); set FAILUREMAP_PROGRESS to a writable file"
    return None


def read_progress(path: Path | None = None) -> tuple[list[dict], int]:
    """All readable entries, oldest first, and how many lines were skipped as unreadable.

    The log's first line (the learner id) is not an entry.
    """
    target = path or progress_path()
    entries, skipped = [], 0
    try:
        with open(target, "rb") as fh:
            for raw in fh:
                try:
                    entry = json.loads(raw.decode("utf-8"))
                    if _is_header(entry):
                        continue
                    if not isinstance(entry, dict) or not isinstance(entry.get("record"), str):
                        raise ValueError
                    int(entry["passed"]), int(entry["total"])
                except (ValueError, KeyError, TypeError, UnicodeDecodeError):
                    skipped += 1
                    continue
                entries.append(entry)
    except OSError:
        return [], 0
    return entries, skipped


def latest_by_record(entries: list[dict]) -> dict[str, dict]:
    latest: dict[str, dict] = {}
    for entry in entries:
        latest[entry["record"]] = entry
    return latest


class ProgressOverview:
    """Which exercises pass, from the progress log: a table in HTML and in plain text."""

    def __init__(self, rows: list[tuple[str, str, str, int]], skipped: int, path: Path, entries: list[dict] | None = None) -> None:
        self.rows, self.skipped, self.path = rows, skipped, path
        self.entries = entries or []
        """The log lines of these exercises, oldest first (for `plot_progress`)."""

    def since(self) -> str:
        """Where the log is and since when it holds runs: history from before this session must not pass for yours."""
        first = min((e.get("time", "") for e in self.entries), default="")
        return f"Runs saved in {self.path}" + (f" since {first[:16].replace('T', ' ')}" if first else ": none yet")

    def __repr__(self) -> str:
        lines = [self.since(), f"{'exercise':<12} {'latest':<22} runs"]
        lines += [f"{record_id:<12} {latest:<22} {runs}" for record_id, _, latest, runs in self.rows]
        if self.skipped:
            lines.append(f"({self.skipped} unreadable line{'s' if self.skipped != 1 else ''} in {self.path} skipped)")
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        from html import escape

        body = "".join(
            f"<tr><td>{escape(record_id)}</td><td>{escape(title)}</td><td>{escape(latest)}</td><td>{runs}</td></tr>"
            for record_id, title, latest, runs in self.rows
        )
        note = f"<p>{self.skipped} unreadable lines skipped.</p>" if self.skipped else ""
        return (
            f'<div class="fm-root"><p>{escape(self.since())}</p><table><thead><tr><th>exercise</th><th>title</th><th>latest run</th><th>runs</th></tr></thead>'
            f"<tbody>{body}</tbody></table>{note}</div>"
        )


def progress_overview(records: list[str] | None = None, path: Path | None = None) -> ProgressOverview:
    """The exercises (by default the packaged ones and any other run here) with the latest logged result of each."""
    from ._records import RecordError, list_records, load_record

    entries, skipped = read_progress(path)
    entries = [e for e in entries if not e.get("instructor")]  # an instructor's demo runs are not their progress
    latest = latest_by_record(entries)
    runs: dict[str, set] = {}
    for i, entry in enumerate(entries):  # runs of the solve cell: the variants and re-runs of one run count once
        runs.setdefault(entry["record"], set()).add(entry.get("run") if isinstance(entry.get("run"), str) else i)
    counts = {record_id: len(found) for record_id, found in runs.items()}
    rows = []
    ids = []
    refs = list(records) if records is not None else list_records()
    if records is None:  # and every other exercise run here (notebooks made from records of your own)
        refs += [record_id for record_id in counts if record_id not in refs]
    for ref in refs:
        try:
            record = load_record(ref)
            record_id, title = record.id, record.title
        except RecordError:
            if ref not in counts:
                continue
            record_id, title = ref, (latest.get(ref) or {}).get("title") or "(a record of your own, not found here)"
        ids.append(record_id)
        entry = latest.get(record_id)
        if entry is None:
            status = "not started"
        else:
            solved = entry["passed"] == entry["total"] and entry["total"]
            mark = "✓ all pass" if solved else "✗"
            status = f"{mark} {entry['passed']}/{entry['total']} (N={entry.get('variant', '?')})"
            if not solved and any(e["record"] == record_id and e["total"] and e["passed"] == e["total"] for e in entries):
                status += ", all passed before"  # a later experiment must not make a solved exercise look unsolved
        rows.append((record_id, title, status, counts.get(record_id, 0)))
    chosen = set(ids)
    return ProgressOverview(rows, skipped, path or progress_path(), [e for e in entries if e["record"] in chosen])


def export_progress(out: Path, path: Path | None = None) -> dict:
    """Write every logged run, every distinct solve and the latest of each exercise to one JSON file.

    Each run lists its checks as ``{"check", "status", "reason"}``. Sources are kept
    once each, keyed by their sha256, so that a learner whose last run looped still
    hands in the passing code they had before (``latest[ID]["last_passing_sha256"]``).
    """
    entries, skipped = read_progress(path)
    sources: dict[str, str] = {}
    attempts = []
    latest: dict[str, dict] = {}
    for e in entries:
        sha, source = e.get("solve_sha256"), e.get("solve_source")
        if isinstance(sha, str) and isinstance(source, str):
            sources.setdefault(sha, source)
        statuses = e.get("statuses") if isinstance(e.get("statuses"), list) else []
        labels = e.get("checks") if isinstance(e.get("checks"), list) else []
        reasons = e.get("reasons") if isinstance(e.get("reasons"), list) else []
        attempt = {k: e.get(k) for k in ("record", "variant", "passed", "total", "time", "solve_sha256")}
        attempt["checks"] = [
            {"check": labels[i] if i < len(labels) else None, "status": status, "reason": reasons[i] if i < len(reasons) else None}
            for i, status in enumerate(statuses)
        ]
        if e.get("instructor"):
            attempt["instructor"] = True
        attempts.append(attempt)
        mine = latest.setdefault(e["record"], {"last_passing_sha256": None})
        mine.update({k: e.get(k) for k in ("variant", "passed", "total", "time", "solve_sha256")})
        mine["solve_source"] = sources.get(sha) if isinstance(sha, str) else None
        if e.get("total") and e.get("passed") == e.get("total") and isinstance(sha, str):
            mine["last_passing_sha256"] = sha
    data = {
        "format": EXPORT_FORMAT,
        "learner": learner_id(path),
        "exported": _now(),
        "source": str(path or progress_path()),
        "attempts": attempts,
        "sources": sources,
        "latest": latest,
        "skipped_lines": skipped,
    }
    out.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return data
