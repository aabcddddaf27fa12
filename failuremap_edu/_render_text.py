"""Plain-text rendering: for terminals, and the ``text/plain`` form of every result.

The two sides of a comparison are labelled "expected" and "got", never +/-.
Record text and learner output are untrusted: control characters (terminal
escape sequences among them) are shown escaped, never sent raw to a terminal.
"""

from __future__ import annotations

import re
import textwrap
import unicodedata

from ._diff import Budget, Diff, Segment, TextDetail, diff
from ._fixtures import FixtureScript
from ._records import Record
from ._results import Observation, RunResult, check_labels
from ._values import STATUS_SYMBOLS, safe_repr

__all__ = ["render_comparison", "render_diff", "render_observation", "render_record", "render_run", "terminal_safe", "visible"]

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
WIDTH = 88


def terminal_safe(text: str, limit: int = 2_000) -> str:
    """Escape control and bidi-override characters, and clip to `limit` characters."""
    text = _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}" if ord(m.group()) < 0x100 else f"\\u{ord(m.group()):04x}", text)
    if len(text) > limit:
        text = text[: limit - 1] + f"… [{len(text) - limit + 1:,} more characters]"
    return text


def _para(title: str, body: str, limit: int = 4_000) -> list[str]:
    body = terminal_safe(body, limit)
    wrapped = textwrap.fill(body, WIDTH - 2, initial_indent="  ", subsequent_indent="  ") if body else "  (none)"
    return [title, wrapped]


def render_record(record: Record, fixtures: FixtureScript) -> str:
    """A record's facts, contract, teaching text and checks. Runs nothing."""
    lines = [
        terminal_safe(f"{record.id} — {record.title}", 400),
        terminal_safe(
            f"category: {record.category or '-'} | family: {record.family or '-'} | "
            f"verified: {'yes' if record.verified else 'no'} | license: {record.license or '-'}",
            400,
        ),
        "",
        *_para("Contract", f"solve({record.contract_signature}): {record.contract}"),
        "",
        *_para("What goes wrong", record.abstract),
        *_para("The plausible attempt", record.failed_approach),
        *_para("Root cause", record.root_cause),
        "",
        f"Checks ({len(fixtures.sites)} in the script"
        + ("" if fixtures.uses_variant else "; the same for every variant")
        + "):",
    ]
    for site in fixtures.sites:
        repeat = " (in a loop)" if site.repeats else ""
        lines.append(terminal_safe(f"  line {site.lineno}{repeat}: {site.label}", 300))
        lines.append(terminal_safe(f"      {site.actual_source}  →  expected {site.expected_source}", 400))
    lines += ["", *_para("Limitations", record.limitations), *_para("Variants", record.variant_policy)]
    return "\n".join(lines)


def visible(text: str) -> str:
    """Text with escapes for line breaks and tabs, and invisible characters named."""
    out = []
    for ch in text:
        if ch == "\n":
            out.append("\\n")
        elif ch == "\r":
            out.append("\\r")
        elif ch == "\t":
            out.append("\\t")
        elif ch != " " and (unicodedata.category(ch) in ("Zs", "Zl", "Zp", "Cc", "Cf") or ch.isspace()):
            out.append(f"⟨U+{ord(ch):04X}⟩")
        else:
            out.append(ch)
    return "".join(out)


def _window(detail: TextDetail, segments: tuple[Segment, ...], clipped: int) -> str:
    text = "…" if detail.window_start else ""
    for seg in segments:
        shown = visible(seg.text)
        text += f"⟦{shown}⟧" if seg.op == "changed" else shown
    if not any(seg.op == "changed" for seg in segments):
        text += "⟦⟧"  # this side has nothing where the other has something
    return f"'{text}'" + ("…" if clipped else "")


def render_diff(result: Diff, indent: str = "  ") -> list[str]:
    """The differences as lines: a path, the reason, and for strings the two windows."""
    lines: list[str] = []
    if result.hint:
        lines.append(f"{indent}hint: {result.hint}")
    for d in result.differences:
        where = f"{d.path}: " if d.path else ""
        lines.append(terminal_safe(f"{indent}- {where}{d.message}", 1_000))
        if d.text is not None:
            t = d.text
            lines.append(terminal_safe(f"{indent}    expected: {_window(t, t.expected, t.expected_clipped)}", 1_000))
            lines.append(terminal_safe(f"{indent}    got:      {_window(t, t.actual, t.actual_clipped)}", 1_000))
    if result.omitted:
        lines.append(f"{indent}- … and {result.omitted:,} more difference{'s' if result.omitted != 1 else ''}")
    return lines


def render_observation(o: Observation, budget: Budget | None = None) -> str:
    """One check: status and label, the call, expected and got, and why they differ."""
    budget = budget or Budget()
    line = f" (line {o.lineno})" if o.lineno else ""
    lines = [terminal_safe(f"{STATUS_SYMBOLS[o.status]} {o.status}: {o.check}{line}", 300)]
    if o.call:
        lines.append(terminal_safe(f"  call:     {o.call}", 600))
    lines.append(terminal_safe(f"  expected: {safe_repr(o.expected, budget.max_repr * 4)}", 1_000))
    if o.status in ("pass", "fail"):
        lines.append(terminal_safe(f"  got:      {safe_repr(o.actual, budget.max_repr * 4)}", 1_000))
    if o.status == "fail":
        explained = diff(o.expected, o.actual, budget)
        if explained.differences or explained.hint:
            lines.append("  why:")
            lines += render_diff(explained, "    ")
    if o.error is not None:
        lines.append(terminal_safe(f"  error:    {o.error}", 1_000))
    if o.mutation:
        lines.append(terminal_safe(f"  note:     {o.mutation}", 600))
    if o.stdout:
        more = f" (+{o.stdout_dropped:,} bytes not shown)" if o.stdout_dropped else ""
        printed = o.stdout.splitlines()
        lines.append(f"  printed{more}:")
        lines += ["    " + terminal_safe(text, 300) for text in printed[:20]]
        if len(printed) > 20:
            lines.append(f"    … {len(printed) - 20:,} more lines")
    return "\n".join(lines)


def render_run(result: RunResult) -> str:
    """`K/N checks pass`, then each check that did not pass, with why."""
    lines = [result.summary()]
    if result.isolation_note:
        lines.append(f"note: {result.isolation_note}")
    for o in result.observations:
        if o.status != "pass":
            lines += ["", render_observation(o)]
    if result.problem is not None and result.problem.traceback:
        lines += ["", "The run stopped:", terminal_safe(result.problem.traceback, 4_000)]
    return "\n".join(lines)


def render_comparison(runs, names) -> str:
    """Checks × runs as a fixed-width table, status words next to their symbols."""
    labels = check_labels(runs)
    label_width = min(max([len("check"), *map(len, labels)]), 40)
    widths = [max(len(n), 9) for n in names]
    header = "check".ljust(label_width) + "  " + "  ".join(n.ljust(w) for n, w in zip(names, widths))
    lines = [terminal_safe(header.rstrip(), 400)]
    for i, label in enumerate(labels):
        cells = []
        for run, width in zip(runs, widths):
            o = run.observations[i] if i < len(run.observations) else None
            cells.append((f"{STATUS_SYMBOLS[o.status]} {o.status}" if o else "—").ljust(width))
        shown = label if len(label) <= label_width else label[: label_width - 1] + "…"
        lines.append(terminal_safe((shown.ljust(label_width) + "  " + "  ".join(cells)).rstrip(), 400))
    totals = "  ".join(f"{r.passed_count}/{r.total}".ljust(w) for r, w in zip(runs, widths))
    lines.append(("passing".ljust(label_width) + "  " + totals).rstrip())
    return "\n".join(lines)
