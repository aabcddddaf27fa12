"""HTML rendering for notebooks and standalone reports.

Every piece of content is escaped: labels, values, errors, captured output and
record text (records contain strings like ``<stop>``). A difference is marked by
colour *and* by a non-colour cue: status words next to their symbols; in text
diffs, expected and got on two aligned monospace lines, changed characters
highlighted and underlined, and an outlined empty box where one side has nothing.
So the output works for colour-blind readers, in print and in high-contrast
themes. All CSS is scoped under ``.fm-root``.
"""

from __future__ import annotations

import re
from html import escape
from typing import Sequence

from .._diff import Budget, Diff, LineDetail, TextDetail, diff
from .._records import Record
from ._calls import calls_html, helpers_html, listed_calls, why_calls
from ._source import code_details_html
from ._grid import GRID_CSS, outcome_picture_html, picture_html, scroll_region
from ._claims import claim_html, difference_html, left_out, says_total, whole_claims
from ._text import RETURNED_LIMIT, expected_text, grouped, paths_text, expression_label, line_rows, outcome_text, printed_summary, argument_note, run_notes, run_shift_of, story_reasons, story_sentences, visible
from .._results import COMPARED, FAIL, JUDGED_IN_SOLVE_PROCESS, PASS, CallResult, Observation, RunResult, check_labels, repeated_failures
from .._values import safe_repr, text_safe
from ._style import DARK_THEME, PLAYGROUND_UNCHECKED, STATUS_CSS, STATUS_CSS_DARK, STATUS_SYMBOLS, UI_CSS, UI_CSS_DARK

__all__ = [
    "CSS",
    "PANEL_CSS",
    "hint_ladder_html",
    "call_html",
    "checks_html",
    "comparison_html",
    "diff_html",
    "hints_html",
    "html_text",
    "lines_diff_html",
    "observation_html",
    "playground_html",
    "report_html",
    "run_html",
    "story_html",
    "text_diff_html",
]


def _palette(status: dict[str, str], ui: dict[str, str]) -> str:
    return ";".join([*(f"--fm-{k}:{v}" for k, v in status.items()), *(f"--fm-{k}:{v}" for k, v in ui.items())])


CSS = (
    # Colours follow the theme: a light palette, and a dark one under JupyterLab's dark-theme marker.
    f".fm-root,.fm-panel{{{_palette(STATUS_CSS, UI_CSS)}}}\n"
    f"{DARK_THEME} .fm-root,{DARK_THEME} .fm-panel{{{_palette(STATUS_CSS_DARK, UI_CSS_DARK)}}}"
) + """
.fm-root{font-family:var(--jp-ui-font-family,system-ui,sans-serif);font-size:var(--jp-content-font-size1,14px);line-height:1.45;color:inherit;max-width:100%}
.fm-root code,.fm-root pre{font-family:var(--jp-code-font-family,ui-monospace,monospace);font-size:var(--jp-code-font-size,13px);white-space:pre-wrap;overflow-wrap:anywhere}
.fm-root pre{margin:4px 0;padding:6px;border:1px solid rgba(128,128,128,.35);max-height:18em;overflow:auto}
.fm-root code{white-space:break-spaces}
.fm-root .fm-summary{font-weight:600;margin:4px 0}
.fm-root .fm-status{margin:4px 0}.fm-root .fm-status .fm-mark,.fm-root .fm-rerun{font-weight:600}
.fm-root .fm-badge{display:inline-block;min-width:5.5em;padding:0 6px;border:1px solid currentColor;border-radius:3px;font-weight:600;white-space:nowrap}
""" + "".join(f".fm-root .fm-{status}{{color:var(--fm-{status})}}" for status in STATUS_CSS) + """
.fm-root table{border-collapse:collapse;margin:4px 0;max-width:100%}
.fm-root th,.fm-root td{border:1px solid rgba(128,128,128,.35);padding:2px 4px;text-align:left;vertical-align:top;overflow-wrap:break-word}
.fm-root td>.fm-badge{min-width:0}
.fm-root .fm-obs{border-left:3px solid rgba(128,128,128,.5);padding:2px 0 2px 8px;margin:8px 0}
.fm-root .fm-kv{display:grid;grid-template-columns:minmax(6em,max-content) minmax(50%,1fr);gap:0 8px;margin:2px 0}
.fm-root .fm-kv>div{display:contents}.fm-root .fm-kv .fm-k{font-weight:600;overflow-wrap:anywhere;max-width:24em}.fm-root .fm-kv .fm-v{min-width:0}
.fm-root .fm-why{margin:2px 0 2px 1.2em;padding:0}
.fm-root .fm-textdiff{display:grid;grid-template-columns:max-content 1fr;gap:0 8px;margin:2px 0 4px;overflow-x:auto}
.fm-root .fm-textdiff code{white-space:pre}
.fm-root mark.fm-chg{background:rgba(255,196,0,.45);color:inherit;text-decoration:underline;text-decoration-thickness:2px;text-underline-offset:2px}
.fm-root mark.fm-gap{background:transparent;color:inherit;outline:1px dashed currentColor;outline-offset:-1px}
.fm-root .fm-note{margin:2px 0;padding:2px 6px;border-left:3px solid var(--fm-error);overflow-wrap:anywhere}
.fm-root .fm-fact{margin:2px 0;padding:2px 6px;border-left:3px solid var(--fm-muted);overflow-wrap:anywhere;white-space:pre-wrap}
.fm-root .fm-muted{color:var(--fm-muted)}
.fm-root a{color:var(--fm-link);text-decoration:underline;text-underline-offset:2px}
.fm-root a:focus-visible,.fm-root summary:focus-visible{outline:2px solid var(--fm-focus);outline-offset:2px}
.fm-root h2,.fm-root h3,.fm-root h4{font-size:1em;font-weight:600;margin:8px 0 2px}.fm-root h2{font-size:1.15em}
.fm-root .fm-stale{display:none;font-weight:600;padding:4px 6px;border:2px solid var(--fm-error)}
.jupyter-widgets-disconnected .fm-root .fm-stale{display:block}
.fm-root .fm-hint{font-style:italic}
.fm-root .fm-note,.fm-root .fm-hints li,.fm-root .fm-summary,.fm-root .fm-message,.fm-root .fm-k,.fm-root .fm-why li,.fm-root .fm-pattern{white-space:pre-wrap}
.fm-root .fm-pattern{margin:2px 0;font-weight:600}
.fm-root details>summary{cursor:pointer;overflow-wrap:anywhere;word-break:break-word}
""" + GRID_CSS

PANEL_CSS = """
.fm-panel .jupyter-button:focus-visible,.fm-panel input:focus-visible,.fm-panel select:focus-visible{outline:2px solid var(--fm-focus)!important;outline-offset:2px}
.fm-panel .widget-hbox{flex-wrap:wrap;max-width:100%}
.fm-panel .jupyter-button{max-width:100%;height:auto;min-height:var(--jp-widgets-inline-height,28px);white-space:normal;overflow-wrap:anywhere}
.fm-panel .widget-html,.fm-panel .widget-html-content{max-width:100%;min-width:0}
.fm-panel .widget-text{max-width:100%}
.fm-panel .fm-named-box .widget-label{position:absolute;width:1px;height:1px;margin:0;overflow:hidden;clip-path:inset(50%);white-space:nowrap}
.fm-panel .jupyter-widgets-disconnected::before{display:none}
"""
"""The exercise panel's own rules (its ipywidgets controls), scoped under .fm-panel: a focus ring of
at least 3:1 on every control, and rows and labels that wrap instead of scrolling or cutting off. When
the kernel is gone, ipywidgets marks every widget with a broken-link icon; inside the panel only its
own (the panel's) stays, with the one line that says what happened and what to do (`STALE`)."""


_COLLAPSIBLE = re.compile(r"[ \t\r\n]{2,}|[\t\r\n]")


def _e(value: object) -> str:
    """Text as HTML that keeps its whitespace, with or without our CSS.

    A notebook opened untrusted loses our <style>, and the browser then folds 'a  b' into 'a b', a
    different string. A run of spaces, or a line break, is wrapped in a
    span with its own inline white-space rule, which JupyterLab's sanitizer keeps. Not no-break spaces: a
    call copied from the page would paste other characters than the ones it shows.
    """
    return _COLLAPSIBLE.sub(lambda m: f'<span style="white-space:pre-wrap">{m.group()}</span>', escape(text_safe(str(value)), quote=True))


def _pre(value: object) -> str:
    """Text for a <pre>, which keeps its whitespace by itself."""
    return escape(text_safe(str(value)), quote=True)


def html_text(value: object) -> str:
    """Plain text as HTML whose spaces survive without our CSS: for the model's static copy of its results."""
    return _e(value)


def _code(text: str) -> str:
    return f"<code>{_e(text)}</code>"


def _badge(status: str) -> str:
    return f'<span class="fm-badge fm-{_e(status)}">{STATUS_SYMBOLS.get(status, "?")} {_e(status)}</span>'


def _root(body: str, css: bool) -> str:
    style = f"<style>{CSS}</style>" if css else ""
    return f'<div class="fm-root">{style}{body}</div>'


def text_diff_html(detail: TextDetail) -> str:
    """Expected over got in one monospace grid, each edit padded to the same width.

    Characters line up column for column, so the eye finds the change at once: a
    replaced or extra part is highlighted and underlined, and where one side has
    nothing the other has, an outlined empty box of the same width marks the spot.
    """
    expected, got, gaps = _marked_sides(detail)
    # A learner read the dashed box as a character of its own: say what it is, once, under the two lines.
    legend = f'<span></span><span class="fm-muted fm-legend">{_e(GAP_LEGEND)}</span>' if gaps else ""
    return (
        '<div class="fm-textdiff">'
        f'<span>expected</span><code>{expected}</code>'
        f'<span>got</span><code>{got}</code>'
        f"{legend}</div>"
    )


def _marked_sides(detail: TextDetail) -> tuple[str, str, bool]:
    """The expected and got windows as HTML with the edits marked, and whether there is an empty box."""
    expected, got = ["'" if not detail.clipped_before else "…"], ["'" if not detail.clipped_before else "…"]
    for edit in detail.edits:
        if edit.op == "equal":
            shown = _e(visible(edit.expected))
            expected.append(shown)
            got.append(shown)
            continue
        e_text, a_text = visible(edit.expected, changed=True), visible(edit.actual, changed=True)
        width = max(len(e_text), len(a_text))
        for side, text, gap_title in (
            (expected, e_text, "nothing here: got has extra characters"),
            (got, a_text, "nothing here: got is missing the characters above"),
        ):
            if text and len(text) < width:
                # Widened, not padded with a blank: 'straß e' reads as a space in the value, and a
                # copy pasted one. A width the sanitizer of an untrusted notebook keeps, as one inline style.
                side.append(f'<mark class="fm-chg" style="display:inline-block;min-width:{width}ch">{_e(text)}</mark>')
            elif text:
                side.append(f'<mark class="fm-chg">{_e(text)}</mark>')
            else:
                side.append(f'<mark class="fm-gap" title="{gap_title}">' + "&nbsp;" * width + "</mark>")
    expected.append("…" if detail.expected_clipped else "'")
    got.append("…" if detail.actual_clipped else "'")
    gaps = any(edit.op != "equal" and not (edit.expected and edit.actual) for edit in detail.edits)
    return "".join(expected), "".join(got), gaps


def lines_diff_html(detail: LineDetail) -> str:
    """A line diff in one monospace grid: each line after its side ("expected", "got", or
    nothing for a line both have, dimmed), a line only one side has highlighted whole, the
    changed characters of a changed line marked as in `text_diff_html`, "…" for lines left out."""
    rows, gaps = [], False
    for side, text, edit in line_rows(detail):
        if side == "…":
            rows.append('<span></span><code class="fm-muted">…</code>')
            continue
        if side == "":
            rows.append(f"<span></span><code class=\"fm-muted\">'{_e(visible(text))}'</code>")
            continue
        if edit.op == "replace" and edit.text is not None:
            expected, got, gap = _marked_sides(edit.text)
            gaps |= gap
            shown = expected if side == "expected" else got
        else:
            shown = f"'<mark class=\"fm-chg\">{_e(visible(text))}</mark>'" if text else "''"
        rows.append(f"<span>{side}</span><code>{shown}</code>")
    if detail.omitted:
        rows.append(f'<span></span><span class="fm-muted">{detail.omitted:,} more line{"s" if detail.omitted != 1 else ""} of the diff</span>')
    if gaps:
        rows.append(f'<span></span><span class="fm-muted fm-legend">{_e(GAP_LEGEND)}</span>')
    return f'<div class="fm-textdiff">{"".join(rows)}</div>'


GAP_LEGEND = "a dashed box holds nothing: it marks where the other line has characters this one lacks"


def diff_html(result: Diff) -> str:
    """The differences as a list, each rendered from its claim: path, reason, and for strings the aligned windows;
    the counts of what was left out last. (The pattern claim is the caller's: `pattern_html`.)"""
    items = []
    if result.hint:
        items.append(f'<li class="fm-hint">hint: {_e(result.hint)}</li>')
    for paths, d in grouped(result.differences):
        where = f"{paths_text(paths, _code)}: " if paths else ""
        item = f"{where}{difference_html(d)}"
        if d.text is not None:
            item += text_diff_html(d.text)
        if d.lines is not None:
            item += lines_diff_html(d.lines)
        items.append(f"<li>{item}</li>")
    items += [f"<li>{_e(text)}</li>" for text in left_out(result, whole_claims(result)[1])]
    return f'<ul class="fm-why">{"".join(items)}</ul>' if items else ""


def pattern_html(result: Diff) -> str:
    """The diff's pattern claims, each its own paragraph."""
    return "".join(claim_html(c) for c in whole_claims(result)[0])


KEY_CHARS = 28  # the longest call said in a row's label (the narrow column); a longer one wraps in the value column


def key_values(rows, escaped: bool = False) -> str:
    """Label and value pairs, aligned in two columns by the panel's CSS; without it, plain lines. Not a <dl>: an untrusted
    notebook loses our <style>, and JupyterLab's own rules float dt and dd at 20% and 80%, labels in the value column."""
    return '<div class="fm-kv">' + "".join(
        f'<div><strong class="fm-k">{k if escaped else _e(k)}</strong> <div class="fm-v">{v}</div></div>' for k, v in rows
    ) + "</div>"


def folded_value(value: object, short: int = 80) -> str:
    """A value as code, folded into a <details> when its repr is long: what solve returned, beside the compared value."""
    full = safe_repr(value, 4_000)
    if len(full) <= RETURNED_LIMIT // 2:
        return _code(full)
    return f"<details><summary>{_code(safe_repr(value, short))}</summary><pre>{_pre(full)}</pre></details>"


def _observation_body(o: Observation, budget: Budget, missing_return: bool = False, call: bool = True, traceback: bool = True, prefer=None) -> str:
    rows = []
    if o.compared and call:
        rows.append(("compares", _code(o.compared)))
    elif o.call and call:
        rows.append(("call", _code(o.call)))
    if o.compared and not listed_calls(o):
        rows += [(f"{call_text} returned", folded_value(value)) if len(call_text) <= KEY_CHARS  # a long call wraps in the value column
                 else ("returned", f"{_code(call_text)}: {folded_value(value)}") for call_text, value in o.shown_returns()]
    rows.append(("expected", _code(expected_text(o, budget.max_repr * 4))))
    if o.status in COMPARED:
        rows.append(("got", _code(safe_repr(o.actual, budget.max_repr * 4))))
    if o.error is not None:
        rows.append(("error", _code(str(o.error))))
    body = key_values(rows) + calls_html(o) + helpers_html(o)
    if o.status == FAIL and why_calls(o):  # what solve raised, or that it raised nothing: never a diff of exception names
        body += '<ul class="fm-why">' + "".join(f"<li>{_e(text)}</li>" for text in why_calls(o)) + "</ul>"
    elif o.status == FAIL:
        explained = diff(o.expected, o.actual, budget, missing_return=missing_return, prefer=prefer)
        body += picture_html(o.expected, o.actual, counted=not says_total(explained))
        body += pattern_html(explained)  # the diff's pattern claim, verified on the values
        body += diff_html(explained)
    if o.mutation:
        body += f'<p class="fm-fact">note: {_e(o.mutation)}</p>'
    if o.verdict_note:
        body += f'<p class="fm-note">note: {_e(o.verdict_note)}</p>'
    if o.judged_in_solve_process and not o.unconfirmed:
        body += f'<p class="fm-note">note: {_e(JUDGED_IN_SOLVE_PROCESS)}</p>'
    if o.changed_note:
        body += f'<p class="fm-note">note: {_e(o.changed_note)}</p>'
    body += "".join(f'<p class="fm-note">note: {_e(note)}</p>' for note in o.state_notes)
    if o.stale:
        body += f'<p class="fm-note">note: {_e(o.stale)}</p>'
    if traceback and o.error is not None and o.error.traceback:
        body += f"<details><summary>traceback</summary><pre>{_pre(o.error.traceback)}</pre></details>"
    if o.stdout:
        body += f"<details><summary>{_e(printed_summary(o))}</summary><pre>{_pre(o.stdout)}</pre></details>"
    return body


def observation_html(o: Observation, budget: Budget | None = None, css: bool = True, *, missing_return: bool = False) -> str:
    """One check, with its diff; the error and printed output are folded away."""
    budget = budget or Budget()
    line = f' <span class="fm-line">(record line {o.lineno})</span>' if o.lineno else ""
    head = f"<div>{_badge(o.status)} <strong>{_e(o.check)}</strong>{line}</div>"
    return _root(f'<div class="fm-obs">{head}{_observation_body(o, budget, missing_return)}</div>', css)


def notes_html(result: RunResult) -> str:
    argument = argument_note(result)  # a fact, not a warning: a contract may ask solve to change its argument
    return "".join(f'<p class="{"fm-fact" if note == argument else "fm-note"}">note: {_e(note)}</p>' for note in run_notes(result))


def run_html(result: RunResult, budget: Budget | None = None, css: bool = True, title: str | None = None, *, missing_return: bool = False) -> str:
    """`K/N checks pass`, notes, a row per check, then the details of every check that did not pass."""
    budget = budget or Budget()
    heading = f"<div><strong>{_e(title)}</strong></div>" if title else ""
    summary = f'<p class="fm-summary">{_e(result.summary())}</p>' + notes_html(result)
    rows = "".join(
        f"<tr><td>{_badge(o.status)}</td><td>{_e(o.check)}</td><td>{_code(o.expression)}</td></tr>" for o in result.observations
    )
    table = f"<table><thead><tr><th>status</th><th>check</th><th>compares</th></tr></thead><tbody>{rows}</tbody></table>"
    prefer = run_shift_of(result)
    details = "".join(
        f'<div class="fm-obs"><div>{_badge(o.status)} <strong>{_e(o.check)}</strong></div>{_observation_body(o, budget, missing_return, prefer=prefer)}</div>'
        for o in result.observations
        if o.status != PASS
    )
    problem = ""
    if result.problem is not None:
        problem = f"<p>The run stopped: {_code(str(result.problem))}</p>"
        if result.problem.traceback:
            problem += f"<details><summary>traceback</summary><pre>{_pre(result.problem.traceback)}</pre></details>"
    return _root(heading + summary + table + problem + details, css)


def comparison_html(runs: Sequence[RunResult], names: Sequence[str] | None = None, css: bool = True, caption: str | None = None) -> str:
    """Checks × runs: which run passes which check, as badges, with a caption that says what the columns are."""
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
    totals = '<tr><th scope="row">passing</th>' + "".join(f"<td>{r.passed_count}/{r.total}</td>" for r in runs) + "</tr>"
    cap = f"<caption>{_e(caption)}</caption>" if caption else ""
    table = f"<table>{cap}<thead>{head}</thead><tbody>{''.join(body)}{totals}</tbody></table>"
    return _root(scroll_region(table, caption or "which run passes which check"), css)  # many runs: it scrolls, not the panel


def _run_name(run: RunResult) -> str:
    return f"{run.solver} (N={run.variant})"


STORY_HEADING = 3
"""Watch it fail is shown under the notebook's "## Watch it fail": its own headings are one level below (an <h4>
after no <h3> was axe's heading-order violation)."""


def story_html(story, css: bool = True) -> str:
    """Watch it fail: the table, what it means, what each failing check returned and why, and the code, folded."""
    parts = [comparison_html(story.runs, story.names, css=False, caption=f"variant N = {story.variant}" if story.uses_variant else None)]
    parts += [f"<p>{_e(sentence)}</p>" for sentence in story_sentences(story)]
    failing = story.failing_checks()
    if failing:
        rows = []
        for item in failing:
            outcomes = "".join(
                f"<li><strong>{_e(name)}</strong> {_e(outcome_text(o))}" + _story_reasons_html(o, picture=True) + "</li>" for name, o in item.outcomes
            )
            label = expression_label(item)
            call = [("compares" if label != item.call else "call", _code(label))] if label else []
            rows.append(
                f'<div class="fm-obs"><div><strong>{_e(item.check)}</strong></div>'
                + key_values([*call, ("expected", _code(safe_repr(item.expected, 300)))])
                + f'<ul class="fm-why">{outcomes}</ul></div>'
            )
        parts.append(f"<h{STORY_HEADING}>Where they fail</h{STORY_HEADING}>" + "".join(rows))
    parts.append("".join(code_details_html(name, source, first) for name, source, first in story.sources))
    return _root("".join(parts), css)


def _story_reasons_html(o: Observation, picture: bool = False) -> str:
    """Why a check fails in watch it fail: the panel's differences, one line or the whole list (after its `picture`)."""
    reason, explained = story_reasons(o)
    return (outcome_picture_html(o, explained is None or not says_total(explained)) if picture else "") + (
        diff_html(explained) if explained is not None else f"<br><span>{_e(reason)}</span>" if reason else "")


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
    return text_safe(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        f"<title>{_e(record.id)}: {_e(record.title)}</title><style>{CSS}</style></head>"
        f'<body><div class="fm-root">{header}{sections}</div></body></html>\n'
    )


def checks_html(runs: Sequence[RunResult], budget: Budget | None = None, css: bool = True, expand: bool = False, *, missing_return: bool = False,
                traceback: bool = True) -> str:
    """Each check as a foldable row (open when it did not pass, or all with `expand`); for the exercise panel.

    ``traceback=False`` leaves tracebacks out (they name the kernel's temporary files): for the static form a notebook stores.
    """
    budget = budget or Budget()
    parts = []
    repeats = repeated_failures(runs) if len(runs) > 1 else {}
    occurs: dict[tuple[int, int], list[int]] = {}
    for (r, _), first in repeats.items():
        occurs.setdefault(first, [runs[first[0]].variant]).append(runs[r].variant)
    for r, run in enumerate(runs):
        if len(runs) > 1:
            parts.append(f'<p class="fm-summary">N = {run.variant}: {_e(run.summary())}</p>')
        parts.append(notes_html(run))
        same: list[tuple[str, int]] = []
        prefer = run_shift_of(run)
        for i, o in enumerate(run.observations):
            if (r, i) in repeats:  # a failure repeated from an earlier variant: shown once, there
                same.append((o.check, runs[repeats[(r, i)][0]].variant))
                continue
            call = f" {_code(o.expression)}" if o.expression else ""
            printed = ' <span class="fm-muted">· printed output</span>' if o.stdout else ""
            where = occurs.get((r, i))
            also = f' <span class="fm-muted">· the same failure in N = {", ".join(map(str, where))}</span>' if where else ""
            opened = "" if o.status == PASS and not expand else " open"
            parts.append(
                f'<details class="fm-obs"{opened}><summary>{_badge(o.status)} <strong>{_e(o.check)}</strong>{call}{printed}{also}</summary>'
                f"{_observation_body(o, budget, missing_return, call=False, traceback=traceback, prefer=prefer)}</details>"
            )
        if same:
            listed = "; ".join(f"'{label}' (shown under N = {variant})" for label, variant in same)
            parts.append(f'<p class="fm-muted">The same failures as in an earlier variant: {_e(listed)}</p>')
        if run.problem is not None:
            parts.append(f"<p>The run stopped: {_code(str(run.problem))}</p>")
    return _root("".join(parts), css)


def hint_ladder_html(ladder, css: bool = True) -> str:
    """All hints of a `HintLadder`, in order."""
    items = "".join(f"<li><strong>{_e(h.title)}:</strong> {_e(h.text)}</li>" for h in ladder.hints)
    return _root(f"<ol>{items}</ol>", css)


def hints_html(hints, shown: int, css: bool = True) -> str:
    """The hints revealed so far, in order, and how many remain."""
    items = "".join(f"<li><strong>{_e(h.title)}:</strong> {with_code(h.text, getattr(h, 'code', ()))}</li>" for h in hints[:shown])
    left = len(hints) - shown
    note = f"<p>{left} more hint{'s' if left != 1 else ''} available.</p>" if left > 0 else "<p>All hints are shown.</p>"
    return _root((f'<ol class="fm-hints">{items}</ol>' if items else "") + note, css)


def with_code(text: str, code: Sequence[str] = ()) -> str:
    """`text` escaped, each of its `code` parts (the first place it occurs, left to right) as <code>; whitespace is kept by CSS."""
    out, position = [], 0
    for part in code:
        found = text.find(part, position) if part else -1
        if found < 0:
            continue
        out += [_e(text[position:found]), _code(part)]
        position = found + len(part)
    out.append(_e(text[position:]))
    return "".join(out)


def playground_html(rows: Sequence[tuple[str, str, str]], message: str = "", css: bool = True, *, pictures: str = "") -> str:
    """Outputs side by side: (who, status, what it returned or raised); `pictures` (HTML of the grids returned) below them."""
    if message:
        return _root(f"<p>{_e(message)}</p>", css)
    body = "".join(f"<tr><th>{_e(who)}</th><td>{_badge(status) if status in STATUS_SYMBOLS else _e(status)}</td><td>{_code(value)}</td></tr>" for who, status, value in rows)
    return _root(f'<table class="fm-playground"><tbody>{body}</tbody></table>{pictures}<p class="fm-muted">{_e(PLAYGROUND_UNCHECKED)}</p>', css)


def call_html(result: CallResult, css: bool = True) -> str:
    """One playground call: the call, then what it returned (or its error), and any output."""
    outcome = safe_repr(result.value, 2_000) if result.status == "returned" else str(result.error)
    label = _badge(result.status) if result.status in STATUS_SYMBOLS else _e(result.status)  # "returned" is a label, not a verdict
    rows = [("call", _code(result.call)), ("ran", _e(result.whose)), (label, _code(outcome))]
    rows += [("note", _e(f"solve {result.mutation}"))] if result.mutation else []
    rows += [("note", _e(str(claim))) for claim in result.state]
    body = key_values(rows, escaped=True)
    if result.stdout:
        body += f"<details><summary>printed output</summary><pre>{_pre(result.stdout)}</pre></details>"
    return _root(body, css)
