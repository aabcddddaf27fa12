"""The progress log read back for the learner: the overview table of exercises, and the export to hand in.

Reads the log through `_progress` (never writes it); the export is written whole
or not at all, and its download link is made only when asked for.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from pathlib import Path

from ._progress import EXPORT_FORMAT, _now, cell_runs, file_tag, learner_id, progress_path, read_progress, shown_path
from ._values import text_safe

__all__ = ["EXPORT_LINK_BYTES", "ProgressOverview", "export_data", "export_link_html", "export_progress", "latest_by_record", "progress_overview"]


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
        return text_safe("\n".join(lines))

    def _repr_html_(self) -> str:
        from html import escape

        body = "".join(
            f"<tr><td>{escape(record_id)}</td><td>{escape(title)}</td><td>{escape(latest)}</td><td>{runs}</td></tr>"
            for record_id, title, latest, runs in self.rows
        )
        note = f"<p>{self.skipped} unreadable lines skipped.</p>" if self.skipped else ""
        link = export_link_html(self.path) if self.entries else ""
        return text_safe(
            f'<div class="fm-root"><p>{escape(self.since())}</p><table><thead><tr><th>exercise</th><th>title</th><th>latest run</th><th>runs</th></tr></thead>'
            f"<tbody>{body}</tbody></table>{note}{link}</div>"
        )


def progress_overview(records: list[str] | None = None, path: Path | None = None) -> ProgressOverview:
    """The exercises (by default the packaged ones and any other run here) with the latest logged result of each."""
    from ._records import RecordError, list_records, load_record

    entries, skipped = read_progress(path)
    entries = [e for e in entries if not e.get("instructor")]  # an instructor's demo runs are not their progress
    latest = latest_by_record(entries)
    runs = cell_runs(entries)
    counts = Counter(record_id for record_id, _ in runs)
    # The run each latest result belongs to (the latest result of a variant is always among its run's results).
    last_run = {record_id: results for record_id, results in runs if any(e is latest[record_id] for e in results)}
    rows = []
    ids = []
    refs = list(records) if records is not None else list_records()
    if records is None:  # and every other exercise run here (notebooks made from records of your own)
        refs += [record_id for record_id in counts if record_id not in refs]
    for ref in refs:
        try:
            record = load_record(ref)
            record_id, title = record.id, record.neutral_title
        except RecordError:
            if ref not in counts:
                continue
            record_id, title = ref, (latest.get(ref) or {}).get("title") or "(a record of your own, not found here)"
        ids.append(record_id)
        entry = latest.get(record_id)
        if entry is None:
            status = "not started"
        else:
            together = last_run[record_id]
            passed, total = sum(e["passed"] for e in together), sum(e["total"] for e in together)
            solved = passed == total and total
            mark = "✓ all pass" if solved else "✗"
            which = f"{len(together)} variants" if len(together) > 1 else f"N={entry.get('variant', '?')}"
            status = f"{mark} {passed}/{total} ({which})"  # an all-variants run is one run: its whole result, not its last variant
            if not solved and any(e["record"] == record_id and e["total"] and e["passed"] == e["total"] for e in entries):
                status += ", all passed before"  # a later experiment must not make a solved exercise look unsolved
        rows.append((record_id, title, status, counts.get(record_id, 0)))
    chosen = set(ids)
    return ProgressOverview(rows, skipped, path or progress_path(), [e for e in entries if e["record"] in chosen])


def export_progress(out: Path, path: Path | None = None) -> dict:
    """Write every logged run, every distinct solve and the latest of each exercise to one JSON file (`export_data`)."""
    from ._atomic import write_text

    data = export_data(path)
    write_text(out, _export_text(data))  # whole or not at all: a kill or a full disk leaves the old file as it was
    return data


def _export_text(data: dict) -> str:
    return text_safe(json.dumps(data, ensure_ascii=False, indent=1)) + "\n"


def export_data(path: Path | None = None) -> dict:
    """Every logged run, every distinct solve and the latest of each exercise, as `export_progress` writes them.

    Each run lists its checks as ``{"check", "status", "reason", "outcome"}`` (`outcomes`). Sources are kept
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
        found = e.get("outcomes") if isinstance(e.get("outcomes"), list) else []
        attempt = {k: e.get(k) for k in ("record", "variant", "passed", "total", "time", "solve_sha256")}
        attempt["checks"] = [
            {
                "check": labels[i] if i < len(labels) else None,
                "status": status,
                "reason": reasons[i] if i < len(reasons) else None,
                **({"outcome": found[i]} if i < len(found) and found[i] is not None else {}),
            }
            for i, status in enumerate(statuses)
        ]
        if isinstance(e.get("run"), str):
            attempt["run"] = e["run"]  # the run of the solve cell it belongs to (one per variant share it)
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
        "source": shown_path(path or progress_path()),  # the learner's home folder names them: never in a hand-in
        "attempts": attempts,
        "sources": sources,
        "latest": latest,
        "skipped_lines": skipped,
    }
    return data


EXPORT_LINK_BYTES = 8 * 1024 * 1024
"""An export larger than this gets no download link (a notebook output that size slows the browser): the terminal command instead."""


def export_link_html(path: Path | None = None) -> str:
    """An "export everything" download link (a data: link of what ``failuremap-edu export`` writes); empty without runs.

    For learners without a terminal (a hub whose terminal lacks the command, a
    browser-only site): the browser saves the file into its downloads folder.
    """
    import base64
    from html import escape

    data = export_data(path)
    if not data["attempts"]:
        return ""
    text = _export_text(data).encode("utf-8")
    if len(text) > EXPORT_LINK_BYTES:
        return (f'<p class="fm-muted">Your export is {len(text):,} bytes, too large for a link here: run '
                "<code>failuremap-edu export</code> in a terminal and download the file it names.</p>")
    name = f"failuremap-export-{file_tag(path)}.json"
    href = "data:application/json;charset=utf-8;base64," + base64.b64encode(text).decode("ascii")
    return (f'<p><a class="fm-download" download="{escape(name)}" href="{href}">⬇ Export everything (.json)</a> '
            f'<span class="fm-muted">{_runs_in(data["attempts"])}, as of {time.strftime("%H:%M:%S")}: hand this file in to your instructor.</span></p>')


def _runs_in(attempts: list[dict]) -> str:
    """``5 runs`` as the progress table counts them (a run of the solve cell over all variants is one run), with the
    number of results when that differs (one per variant), so the two numbers a learner sees never disagree unexplained."""
    runs = len(cell_runs(attempts))
    text = f"{runs} run{'s' if runs != 1 else ''}"
    if runs == len(attempts):
        return text
    # Not "one per variant": a cell run also gets a result per variant change and per "Run checks again"
    # (one run with 5 variants can count 11 results).
    return f"{text} of the exercise cell, {len(attempts)} results (each variant checked and each re-run is one)"
