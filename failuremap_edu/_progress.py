"""A local progress log: one JSON line per check run, so progress survives the notebook.

The log lives in the user's data folder (``$FAILUREMAP_PROGRESS`` overrides the
file path). Writing never breaks a notebook: an unwritable location is reported
once and then ignored; unreadable lines are skipped when reading.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path

from ._results import RunResult

__all__ = ["ProgressOverview", "export_progress", "latest_by_record", "log_run", "progress_overview", "progress_path", "read_progress"]

_warned: set[str] = set()
MAX_SOURCE = 100_000
"""Characters of a solve's source kept per log line (enough for any exercise)."""


def progress_path() -> Path:
    override = os.environ.get("FAILUREMAP_PROGRESS")
    if override:
        return Path(override).expanduser()
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / "failuremap_edu" / "progress.jsonl"


def log_run(result: RunResult, solve_source: str | None = None, path: Path | None = None) -> str | None:
    """Append one line for `result`. Returns a message the first time writing fails, else None."""
    target = path or progress_path()
    entry = {
        "record": result.record_id,
        "variant": result.variant,
        "passed": result.passed_count,
        "total": result.total,
        "statuses": [o.status for o in result.observations],
        "time": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "solve_sha256": hashlib.sha256(solve_source.encode("utf-8", "replace")).hexdigest() if solve_source else None,
        "solve_source": solve_source[:MAX_SOURCE] if solve_source else None,
    }
    line = (json.dumps(entry, ensure_ascii=False) + "\n").encode("utf-8")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(target, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, line)  # one write of one line: concurrent writers do not interleave
        finally:
            os.close(fd)
    except OSError as exc:
        key = str(target)
        if key in _warned:
            return None
        _warned.add(key)
        return f"progress is not being saved: cannot write {target} ({exc.strerror or exc}); set FAILUREMAP_PROGRESS to a writable file"
    return None


def read_progress(path: Path | None = None) -> tuple[list[dict], int]:
    """All readable entries, oldest first, and how many lines were skipped as unreadable."""
    target = path or progress_path()
    entries, skipped = [], 0
    try:
        with open(target, "rb") as fh:
            for raw in fh:
                try:
                    entry = json.loads(raw.decode("utf-8"))
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

    def __repr__(self) -> str:
        lines = [f"{'exercise':<12} {'latest':<22} runs"]
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
            '<div class="fm-root"><table><thead><tr><th>exercise</th><th>title</th><th>latest run</th><th>runs</th></tr></thead>'
            f"<tbody>{body}</tbody></table>{note}</div>"
        )


def progress_overview(records: list[str] | None = None, path: Path | None = None) -> ProgressOverview:
    """The exercises (packaged ones by default) with the latest logged result of each."""
    from ._records import RecordError, list_records, load_record

    entries, skipped = read_progress(path)
    latest = latest_by_record(entries)
    counts: dict[str, int] = {}
    for entry in entries:
        counts[entry["record"]] = counts.get(entry["record"], 0) + 1
    rows = []
    ids = []
    for ref in records if records is not None else list_records():
        try:
            record = load_record(ref)
        except RecordError:
            continue
        record_id, title = record.id, record.title
        ids.append(record_id)
        entry = latest.get(record_id)
        if entry is None:
            status = "not started"
        else:
            mark = "✓ all pass" if entry["passed"] == entry["total"] and entry["total"] else "✗"
            status = f"{mark} {entry['passed']}/{entry['total']} (N={entry.get('variant', '?')})"
        rows.append((record_id, title, status, counts.get(record_id, 0)))
    chosen = set(ids)
    return ProgressOverview(rows, skipped, path or progress_path(), [e for e in entries if e["record"] in chosen])


def export_progress(out: Path, path: Path | None = None) -> dict:
    """Write every logged attempt, and the latest solve of each exercise, to one JSON file."""
    entries, skipped = read_progress(path)
    latest = {
        record_id: {k: entry.get(k) for k in ("variant", "passed", "total", "statuses", "time", "solve_source")}
        for record_id, entry in latest_by_record([e for e in entries if e.get("solve_source")]).items()
    }
    attempts = [{k: v for k, v in e.items() if k != "solve_source"} for e in entries]
    data = {"source": str(path or progress_path()), "attempts": attempts, "latest": latest, "skipped_lines": skipped}
    out.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return data
