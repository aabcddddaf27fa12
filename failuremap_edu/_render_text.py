"""Plain-text rendering: for terminals, and the ``text/plain`` form of every result.

The two sides of a comparison are labelled "expected" and "got", never +/-.
Record text and learner output are untrusted: control characters (terminal
escape sequences among them) are shown escaped, never sent raw to a terminal.
"""

from __future__ import annotations

import re
import textwrap

from ._fixtures import FixtureScript
from ._records import Record
from ._results import RunResult
from ._sandbox import safe_repr

__all__ = ["render_record", "render_run", "terminal_safe"]

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_SYMBOL = {"pass": "✓", "fail": "✗", "error": "!", "timeout": "⏱"}
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


def render_run(result: RunResult) -> str:
    """`K/N checks pass`, then each check that did not pass, with what it got."""
    lines = [result.summary()]
    if result.isolation != "fork":
        lines.append("note: checks ran in-process (weaker isolation on this platform)")
    for o in result.observations:
        if o.status == "pass":
            continue
        lines.append("")
        lines.append(terminal_safe(f"{_SYMBOL[o.status]} {o.status.upper()}: {o.check}", 300))
        if o.call:
            lines.append(terminal_safe(f"  call:     {o.call}", 600))
        lines.append(terminal_safe(f"  expected: {safe_repr(o.expected)}", 2_000))
        if o.status == "fail":
            lines.append(terminal_safe(f"  got:      {safe_repr(o.actual)}", 2_000))
        if o.error is not None:
            lines.append(terminal_safe(f"  error:    {o.error}", 2_000))
        if o.mutation:
            lines.append(terminal_safe(f"  note:     {o.mutation}", 600))
        if o.stdout:
            more = f" (+{o.stdout_dropped:,} bytes not shown)" if o.stdout_dropped else ""
            lines.append(f"  printed{more}:")
            lines += ["    " + terminal_safe(line, 300) for line in o.stdout.splitlines()[:20]]
    if result.problem is not None and result.problem.traceback:
        lines += ["", "The run stopped:", terminal_safe(result.problem.traceback, 4_000)]
    return "\n".join(lines)
