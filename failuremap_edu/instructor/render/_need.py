"""Who needs help now, shown: rows for the terminal, a table for the page, a live page for a projector, a CSV for a gradebook.

Every learner name and record id is untrusted text: escaped for the terminal and for HTML; CSV cells that a
spreadsheet would read as a formula are quoted with a leading ``'``.
"""

from __future__ import annotations

import csv
import io
from html import escape

from ...render._text import terminal_safe
from .._need import Need, by_need
from .._report import ClassReport
from ..._values import text_safe

__all__ = ["LIVE_ROWS", "duration", "live_page", "need_lines", "needs_csv", "needs_html", "why"]

LIVE_ROWS = 14
"""Rows of "who needs help" on the live page and in the live view (a 1280×720 projector shows them all)."""


def duration(seconds: float | None) -> str:
    """``45 s``, ``12 min``, ``1 h 05 min``."""
    if seconds is None:
        return "—"
    s = int(seconds)
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min"
    return f"{s // 3600} h {s % 3600 // 60:02d} min"


def _clock(stamp: str | None) -> str:
    """``10:42`` of ``2026-12-01T10:42:07+0000``."""
    return stamp[11:16] if stamp and len(stamp) >= 16 else "—"


def why(n: Need) -> str:
    """What makes this learner need help, in a few words (empty when nothing does)."""
    parts = []
    if n.stuck_seconds is not None:
        parts.append(f"stuck {duration(n.stuck_seconds)}")
    if n.repeats >= 2:
        parts.append(f"repeats the {n.repeats_of}'s mistake {n.repeats} runs in a row")
    if n.timing_out:
        parts.append("times out")
    return ", ".join(parts)


def _open(report: ClassReport) -> list[Need]:
    return [n for n in by_need(report.needs) if not n.passed]


def need_lines(report: ClassReport, limit: int | None = None) -> list[str]:
    """``Who needs help`` rows, most first: learner, exercise, checks, runs, first failing and last run, why."""
    rows = _open(report)
    if not rows:
        return ["Who needs help: nobody (every learner who ran an exercise passed it)" if report.needs else "Who needs help: nobody has run anything yet"]
    shown = rows if limit is None else rows[:limit]
    lines = [f"Who needs help, most first ({len(rows)} learner × exercise not passed):",
             f"  {'learner':<20} {'exercise':<14} {'checks':>7} {'runs':>4}  {'1st fail':>8}  {'last':>5}  why"]
    for n in shown:
        lines.append(terminal_safe(
            f"  {n.learner[:20]:<20} {n.record[:14]:<14} {f'{n.checks_passed}/{n.checks}':>7} {n.runs:>4}  {_clock(n.first_fail):>8}  "
            f"{_clock(n.last_run):>5}  {why(n) or '—'}", 300))
    if len(shown) < len(rows):
        lines.append(f"  … {len(rows) - len(shown)} more")
    return lines


def _rows_html(rows: list[Need]) -> str:
    return "".join(
        f"<tr><td>{escape(n.learner)}</td><td>{escape(n.record)}</td><td class=n>{n.checks_passed}/{n.checks}</td><td class=n>{n.runs}</td>"
        f"<td class=n>{escape(_clock(n.first_fail))}</td><td class=n>{escape(_clock(n.last_run))}</td>"
        f"<td class=n>{escape(duration(n.stuck_seconds))}</td><td>{escape(why(n) or '—')}</td></tr>"
        for n in rows
    )


_HEAD = ("<tr><th>learner</th><th>exercise</th><th>checks</th><th>runs</th><th>first failing run</th><th>last run</th>"
         "<th>stuck for</th><th>why</th></tr>")


def needs_html(report: ClassReport, limit: int | None = None) -> str:
    """The "who needs help" table (most first), or one sentence when nobody does."""
    rows = _open(report)
    if not rows:
        return "<h2>Who needs help</h2><p>Nobody: every learner who ran an exercise passed it.</p>" if report.needs else ""
    shown = rows if limit is None else rows[:limit]
    more = f"<p>… {len(rows) - len(shown)} more</p>" if len(shown) < len(rows) else ""
    return f"<h2>Who needs help, most first</h2><table><thead>{_HEAD}</thead><tbody>{_rows_html(shown)}</tbody></table>{more}"


_LIVE_CSS = """
body { font-family: system-ui, sans-serif; margin: 0; padding: 12px 20px; color: #111; background: #fff; font-size: 18px; }
h1 { font-size: 24px; margin: 0 0 6px; } h2 { font-size: 20px; margin: 12px 0 4px; }
table { border-collapse: collapse; width: 100%; }
th, td { border-bottom: 1px solid #bbb; padding: 3px 8px; text-align: left; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
.muted { color: #444; font-size: 15px; }
"""


def live_page(report: ClassReport | None, when: str, refresh: float, message: str = "") -> str:
    """A page that reloads itself every `refresh` seconds: who needs help, then each exercise's count; fits 1280×720.

    Without a report (nothing could be read this round), the page says `message` and keeps reloading.
    """
    if report is None:
        return text_safe(
            f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="{max(int(refresh), 1)}">'
            f"<title>Class live view</title><style>{_LIVE_CSS}</style></head><body><h1>Class live view at {escape(when)}</h1>"
            f"<p>{escape(message)}</p></body></html>\n"
        )
    rows = _open(report)
    table = (f"<table><thead>{_HEAD}</thead><tbody>{_rows_html(rows[:LIVE_ROWS])}</tbody></table>"
             + (f"<p class=muted>… {len(rows) - LIVE_ROWS} more (the report has them all)</p>" if len(rows) > LIVE_ROWS else "")
             if rows else "<p>Nobody needs help right now.</p>")
    exercises = "".join(
        f"<tr><td>{escape(e.record)}</td><td class=n>{e.learners}</td><td class=n>{e.reached_pass}</td><td>{escape(', '.join(e.stuck[:8]) or '—')}</td></tr>"
        for e in report.exercises
    )
    return text_safe(
        f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="{max(int(refresh), 1)}">'
        f"<title>Class live view</title><style>{_LIVE_CSS}</style></head><body>"
        f"<h1>Class live view at {escape(when)}</h1><p class=muted>{len(report.learners)} learners; refreshes every {refresh:g} s</p>"
        f"<h2>Who needs help, most first</h2>{table}"
        f"<h2>Exercises</h2><table><thead><tr><th>exercise</th><th>started</th><th>passed</th><th>not passed yet</th></tr></thead>"
        f"<tbody>{exercises}</tbody></table></body></html>\n"
    )


def _cell(text: str) -> str:
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def needs_csv(report: ClassReport) -> str:
    """learner × exercise: ``learner,exercise,passed,checks_passed,checks,runs,first_pass_time`` (exercises in the report's order)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["learner", "exercise", "passed", "checks_passed", "checks", "runs", "first_pass_time"])
    for n in report.needs:
        writer.writerow([_cell(n.learner), _cell(n.record), "yes" if n.passed else "no", n.checks_passed, n.checks, n.runs, n.first_pass or ""])
    return out.getvalue()
