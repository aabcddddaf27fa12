"""HTML rendering for notebooks and standalone reports.

Every piece of content is escaped: labels, values, errors, captured output and
record text (records contain strings like ``<stop>``). A difference is marked by
colour *and* by text: status words next to their symbols, changed characters in
``⟦ ⟧`` brackets and underlined, so the output works for colour-blind readers, in
print and in high-contrast themes. All CSS is scoped under ``.fm-root``.
"""

from __future__ import annotations

from html import escape
from typing import Sequence

from ._diff import Budget, Diff, Segment, TextDetail, diff
from ._records import Record
from ._render_text import visible
from ._results import CallResult, Observation, RunResult, check_labels
from ._values import STATUS_SYMBOLS, safe_repr

__all__ = [
    "CSS",
    "call_html",
    "checks_html",
    "comparison_html",
    "diff_html",
    "hints_html",
    "observation_html",
    "playground_html",
    "report_html",
    "run_html",
]


CSS = """
.fm-root{font-family:var(--jp-ui-font-family,system-ui,sans-serif);font-size:inherit;line-height:1.45;color:inherit;max-width:100%}
.fm-root code,.fm-root pre{font-family:var(--jp-code-font-family,ui-monospace,monospace);font-size:0.93em;white-space:pre-wrap;word-break:break-all}
.fm-root pre{margin:4px 0;padding:6px;border:1px solid rgba(128,128,128,.35);max-height:18em;overflow:auto}
.fm-root .fm-summary{font-weight:600;margin:4px 0}
.fm-root .fm-badge{display:inline-block;min-width:5.5em;padding:0 6px;border:1px solid currentColor;border-radius:3px;font-weight:600;white-space:nowrap}
.fm-root .fm-pass{color:#1a7f37}.fm-root .fm-fail{color:#cf222e}.fm-root .fm-error{color:#9a6700}.fm-root .fm-timeout{color:#8250df}
.fm-root table{border-collapse:collapse;margin:4px 0}
.fm-root th,.fm-root td{border:1px solid rgba(128,128,128,.35);padding:2px 6px;text-align:left;vertical-align:top}
.fm-root .fm-obs{border-left:3px solid rgba(128,128,128,.5);padding:2px 0 2px 8px;margin:8px 0}
.fm-root .fm-kv{display:grid;grid-template-columns:max-content 1fr;gap:0 8px;margin:2px 0}
.fm-root .fm-kv dt{font-weight:600}.fm-root .fm-kv dd{margin:0}
.fm-root .fm-why{margin:2px 0 2px 1.2em;padding:0}
.fm-root mark.fm-chg{background:rgba(255,196,0,.45);color:inherit;text-decoration:underline;text-decoration-thickness:2px;outline:1px dotted currentColor}
.fm-root .fm-hint{font-style:italic}
.fm-root details>summary{cursor:pointer}
"""


def _e(value: object) -> str:
    return escape(str(value), quote=True)


def _code(text: str) -> str:
    return f"<code>{_e(text)}</code>"


def _badge(status: str) -> str:
    return f'<span class="fm-badge fm-{_e(status)}">{STATUS_SYMBOLS.get(status, "?")} {_e(status)}</span>'


def _root(body: str, css: bool) -> str:
    style = f"<style>{CSS}</style>" if css else ""
    return f'<div class="fm-root">{style}{body}</div>'


def _window(detail: TextDetail, segments: tuple[Segment, ...], clipped: int) -> str:
    parts = ["…" if detail.window_start else "", "'"]
    for seg in segments:
        shown = _e(visible(seg.text))
        parts.append(f'<mark class="fm-chg">⟦{shown}⟧</mark>' if seg.op == "changed" else shown)
    if not any(seg.op == "changed" for seg in segments):
        parts.append('<mark class="fm-chg">⟦⟧</mark>')
    parts.append("'" + ("…" if clipped else ""))
    return "<code>" + "".join(parts) + "</code>"


def diff_html(result: Diff) -> str:
    """The differences as a list: path, reason, and for strings the two marked windows."""
    items = []
    if result.hint:
        items.append(f'<li class="fm-hint">hint: {_e(result.hint)}</li>')
    for d in result.differences:
        where = f"{_code(d.path)}: " if d.path else ""
        item = f"{where}{_e(d.message)}"
        if d.text is not None:
            t = d.text
            item += (
                f'<dl class="fm-kv"><dt>expected</dt><dd>{_window(t, t.expected, t.expected_clipped)}</dd>'
                f"<dt>got</dt><dd>{_window(t, t.actual, t.actual_clipped)}</dd></dl>"
            )
        items.append(f"<li>{item}</li>")
    if result.omitted:
        items.append(f"<li>… and {result.omitted:,} more difference{'s' if result.omitted != 1 else ''}</li>")
    return f'<ul class="fm-why">{"".join(items)}</ul>' if items else ""


def _observation_body(o: Observation, budget: Budget) -> str:
    rows = []
    if o.call:
        rows.append(("call", _code(o.call)))
    rows.append(("expected", _code(safe_repr(o.expected, budget.max_repr * 4))))
    if o.status in ("pass", "fail"):
        rows.append(("got", _code(safe_repr(o.actual, budget.max_repr * 4))))
    if o.error is not None:
        rows.append(("error", _code(str(o.error))))
    body = '<dl class="fm-kv">' + "".join(f"<dt>{_e(k)}</dt><dd>{v}</dd>" for k, v in rows) + "</dl>"
    if o.status == "fail":
        body += diff_html(diff(o.expected, o.actual, budget))
    if o.mutation:
        body += f"<p>note: {_e(o.mutation)}</p>"
    if o.error is not None and o.error.traceback:
        body += f"<details><summary>traceback</summary><pre>{_e(o.error.traceback)}</pre></details>"
    if o.stdout:
        more = f", {o.stdout_dropped:,} more bytes not shown" if o.stdout_dropped else ""
        lines = o.stdout.count("\n") + (not o.stdout.endswith("\n"))
        body += f"<details><summary>printed output ({lines:,} line{'s' if lines != 1 else ''}{more})</summary><pre>{_e(o.stdout)}</pre></details>"
    return body


def observation_html(o: Observation, budget: Budget | None = None, css: bool = True) -> str:
    """One check, with its diff; the error and printed output are folded away."""
    budget = budget or Budget()
    line = f' <span class="fm-line">(line {o.lineno})</span>' if o.lineno else ""
    head = f"<div>{_badge(o.status)} <strong>{_e(o.check)}</strong>{line}</div>"
    return _root(f'<div class="fm-obs">{head}{_observation_body(o, budget)}</div>', css)


def run_html(result: RunResult, budget: Budget | None = None, css: bool = True, title: str | None = None) -> str:
    """`K/N checks pass`, a row per check, then the details of every check that did not pass."""
    budget = budget or Budget()
    heading = f"<div><strong>{_e(title)}</strong></div>" if title else ""
    summary = f'<p class="fm-summary">{_e(result.summary())}</p>'
    if result.isolation_note:
        summary += f"<p>note: {_e(result.isolation_note)}</p>"
    rows = "".join(
        f"<tr><td>{_badge(o.status)}</td><td>{_e(o.check)}</td><td>{_code(o.call)}</td></tr>" for o in result.observations
    )
    table = f"<table><thead><tr><th>status</th><th>check</th><th>call</th></tr></thead><tbody>{rows}</tbody></table>"
    details = "".join(
        f'<div class="fm-obs"><div>{_badge(o.status)} <strong>{_e(o.check)}</strong></div>{_observation_body(o, budget)}</div>'
        for o in result.observations
        if o.status != "pass"
    )
    problem = ""
    if result.problem is not None:
        problem = f"<p>The run stopped: {_code(str(result.problem))}</p>"
        if result.problem.traceback:
            problem += f"<details><summary>traceback</summary><pre>{_e(result.problem.traceback)}</pre></details>"
    return _root(heading + summary + table + problem + details, css)


def comparison_html(runs: Sequence[RunResult], names: Sequence[str] | None = None, css: bool = True) -> str:
    """Checks × runs: which run passes which check, as badges."""
    names = list(names or [_run_name(r) for r in runs])
    labels = check_labels(runs)
    head = "<tr><th>check</th>" + "".join(f"<th>{_e(n)}</th>" for n in names) + "</tr>"
    body = []
    for i, label in enumerate(labels):
        cells = []
        for run in runs:
            o = run.observations[i] if i < len(run.observations) else None
            cells.append(f"<td>{_badge(o.status)}</td>" if o else "<td>—</td>")
        body.append(f"<tr><td>{_e(label)}</td>{''.join(cells)}</tr>")
    totals = "<tr><th>passing</th>" + "".join(f"<th>{r.passed_count}/{r.total}</th>" for r in runs) + "</tr>"
    return _root(f"<table><thead>{head}</thead><tbody>{''.join(body)}{totals}</tbody></table>", css)


def _run_name(run: RunResult) -> str:
    return f"{run.solver} (N={run.variant})"


def report_html(record: Record, runs: Sequence[RunResult], names: Sequence[str] | None = None) -> str:
    """A standalone HTML page (no external assets) for instructors to share."""
    facts = " · ".join(
        f"{k}: {_e(v)}" for k, v in (("id", record.id), ("category", record.category), ("license", record.license)) if v
    )
    header = (
        f"<h1>{_e(record.title)}</h1><p>{facts}</p>"
        f"<h2>Contract</h2><p>{_code('solve(' + record.contract_signature + ')')}: {_e(record.contract)}</p>"
        f"<h2>Checks side by side</h2>{comparison_html(runs, names, css=False)}"
    )
    sections = "".join(
        f"<h2>{_e(name)}</h2>{run_html(run, css=False)}" for name, run in zip(names or [_run_name(r) for r in runs], runs)
    )
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        f"<title>{_e(record.id)}: {_e(record.title)}</title><style>{CSS}</style></head>"
        f'<body><div class="fm-root">{header}{sections}</div></body></html>\n'
    )


def checks_html(runs: Sequence[RunResult], budget: Budget | None = None, css: bool = True, expand: bool = False) -> str:
    """Each check as a foldable row (open when it did not pass, or all with `expand`); for the exercise panel."""
    budget = budget or Budget()
    parts = []
    for run in runs:
        if len(runs) > 1:
            parts.append(f'<p class="fm-summary">N = {run.variant}: {_e(run.summary())}</p>')
        for o in run.observations:
            call = f" {_code(o.call)}" if o.call else ""
            opened = "" if o.status == "pass" and not expand else " open"
            parts.append(
                f'<details class="fm-obs"{opened}><summary>{_badge(o.status)} <strong>{_e(o.check)}</strong>{call}</summary>'
                f"{_observation_body(o, budget)}</details>"
            )
        if run.problem is not None:
            parts.append(f"<p>The run stopped: {_code(str(run.problem))}</p>")
    return _root("".join(parts), css)


def hints_html(hints: Sequence[tuple[str, str]], total: int, css: bool = True) -> str:
    """The hints revealed so far, in order, and how many remain."""
    items = "".join(f"<li><strong>{_e(title)}:</strong> {_e(text)}</li>" for title, text in hints)
    left = total - len(hints)
    note = f"<p>{left} more hint{'s' if left != 1 else ''} available.</p>" if left else "<p>All hints are shown.</p>"
    return _root((f"<ol>{items}</ol>" if items else "<p>No hints shown yet.</p>") + note, css)


def playground_html(rows: Sequence[tuple[str, str, str]], message: str = "", css: bool = True) -> str:
    """Outputs side by side: (who, status, what it returned or raised)."""
    if message:
        return _root(f"<p>{_e(message)}</p>", css)
    body = "".join(f"<tr><th>{_e(who)}</th><td>{_badge(status) if status in STATUS_SYMBOLS else _e(status)}</td><td>{_code(value)}</td></tr>" for who, status, value in rows)
    return _root(f'<table class="fm-playground"><tbody>{body}</tbody></table>', css)


def call_html(result: CallResult, css: bool = True) -> str:
    """One playground call: the call, then what it returned (or its error), and any output."""
    outcome = safe_repr(result.value, 2_000) if result.status == "returned" else str(result.error)
    badge = _badge(result.status) if result.status in STATUS_SYMBOLS else f'<span class="fm-badge">{_e(result.status)}</span>'
    body = f'<dl class="fm-kv"><dt>call</dt><dd>{_code(result.call)}</dd><dt>{badge}</dt><dd>{_code(outcome)}</dd></dl>'
    if result.stdout:
        body += f"<details><summary>printed output</summary><pre>{_e(result.stdout)}</pre></details>"
    return _root(body, css)
