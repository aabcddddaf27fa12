"""Plain-text rendering: for terminals, and the ``text/plain`` form of every result.

The two sides of a comparison are labelled "expected" and "got", never +/-.
Record text and learner output are untrusted: control characters (terminal
escape sequences among them) are shown escaped, never sent raw to a terminal.
"""

from __future__ import annotations

import re
import textwrap

import unicodedata

from .._diff import Budget, Diff, LineDetail, TextDetail, diff, type_only
from .._fixtures import FixtureScript

from .._records import Record
from .._results import COMPARED, FAIL, JUDGED_IN_SOLVE_PROCESS, PASS, TIMEOUT, Observation, RunResult, check_labels
from .._values import clip, is_not_computed, safe_repr
from ._claims import claim_text, left_out, says_total, whole_claims
from ._calls import calls_lines, helpers_lines, listed_calls, outcome_text, why_calls
from ._source import numbered_lines, source_lines
from ._style import STATUS_SYMBOLS

__all__ = [
    "COMPARISON_NOTE",
    "diff_text",
    "hint_ladder_text",
    "render_comparison",
    "render_diff",
    "render_hints",
    "render_observation",
    "render_record",
    "render_run",
    "render_story",
    "argument_note",
    "run_notes",
    "terminal_safe",
    "visible",
]

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
WIDTH = 88


def terminal_safe(text: str, limit: int = 2_000) -> str:
    """Escape control and bidi-override characters and lone surrogates, and clip to `limit` characters."""
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
        repeat = " (may run several times or not at all)" if site.dynamic else ""
        lines.append(terminal_safe(f"  line {site.lineno}{repeat}: {site.label}", 300))
        lines.append(terminal_safe(f"      {site.actual_source}  →  expected {site.expected_source}", 400))
    lines += ["", *_para("Limitations", record.limitations), *_para("Variants", record.variant_policy)]
    return "\n".join(lines)


def visible(text: str, changed: bool = False) -> str:
    """Text with escapes for line breaks and tabs, and invisible characters named.

    In a `changed` span every character must be seen: a space shows as ``␣`` and a
    combining mark sits on a dotted circle (``◌́``) instead of on its neighbour or
    on the mark around the span.
    """
    out = []
    for ch in text:
        if ch == "\n":
            out.append("\\n")
        elif ch == "\r":
            out.append("\\r")
        elif ch == "\t":
            out.append("\\t")
        elif ch == " ":
            out.append("␣" if changed else " ")
        elif unicodedata.category(ch) in ("Zs", "Zl", "Zp", "Cc", "Cf") or ch.isspace():
            out.append(f"⟨U+{ord(ch):04X}⟩")
        elif changed and unicodedata.category(ch) in ("Mn", "Me"):
            out.append("◌" + ch)
        else:
            out.append(ch)
    return "".join(out)


def text_sides(detail: TextDetail) -> tuple[str, str]:
    """The expected and got windows, changed parts in ⟦ ⟧ at the same place in both.

    An insertion is an empty ⟦⟧ in expected, a deletion an empty ⟦⟧ in got. A window
    that does not reach the start or end of its string begins or ends with "…"
    instead of a quote.
    """
    expected, got = [], []
    for edit in detail.edits:
        if edit.op == "equal":
            shown = visible(edit.expected)
            expected.append(shown)
            got.append(shown)
        else:
            expected.append(f"⟦{visible(edit.expected, changed=True)}⟧")
            got.append(f"⟦{visible(edit.actual, changed=True)}⟧")
    start = "…" if detail.clipped_before else "'"
    return (
        start + "".join(expected) + ("…" if detail.expected_clipped else "'"),
        start + "".join(got) + ("…" if detail.actual_clipped else "'"),
    )


def diff_text(result: Diff) -> str:
    """A diff as text: ``no difference``, or its lines (what ``str(diff)`` gives)."""
    return "\n".join(render_diff(result, indent="")) if not result.equal else "no difference"
def line_rows(detail: LineDetail) -> list[tuple[str, str, object]]:
    """The rows of a line diff as (side, line, edit): side is "expected", "got", "" for a
    line both texts have, or "…" for lines left out; `edit` is the LineEdit (None for "…").

    A changed line appears twice, expected then got; a line only one text has, once.
    """
    rows: list[tuple[str, str, object]] = []
    following = 1  # the next line of expected that the rows have not reached yet
    for edit in detail.edits:
        if edit.expected_line > following:
            rows.append(("…", "", None))
        if edit.op == "insert":
            rows.append(("got", edit.actual, edit))
            following = max(following, edit.expected_line)
            continue
        following = edit.expected_line + 1
        if edit.op == "equal":
            rows.append(("", edit.expected, edit))
        elif edit.op == "delete":
            rows.append(("expected", edit.expected, edit))
        else:
            rows.append(("expected", edit.expected, edit))
            rows.append(("got", edit.actual, edit))
    if detail.omitted or following <= detail.expected_lines:
        rows.append(("…", "", None))
    return rows


def render_lines(detail: LineDetail, indent: str) -> list[str]:
    """A line diff as text: each line quoted after its side, changed characters of a changed line in ⟦ ⟧."""
    lines = []
    for side, text, edit in line_rows(detail):
        if side == "…":
            lines.append(f"{indent}    {'':10}…")
            continue
        if edit.op == "replace" and edit.text is not None:
            expected, got = text_sides(edit.text)
            shown = expected if side == "expected" else got
        else:
            shown = f"'{visible(text)}'"
        label = f"{side}:" if side else ""
        lines.append(terminal_safe(f"{indent}    {label:10}{shown}", 1_000))
    if detail.omitted:
        lines[-1] += f" ({detail.omitted:,} more line{'s' if detail.omitted != 1 else ''} of the diff)"
    return lines


def grouped(differences) -> list[tuple[tuple[str, ...], object]]:
    """(where, difference): consecutive differences that say the same thing, with nothing more to show, once,
    with all their paths (``[0], [1], [2]: expected a list, got a tuple…``), not the same sentence per row."""
    out: list[tuple[list[str], object]] = []
    for d in differences:
        plain = d.text is None and d.lines is None and d.path
        if out and plain and out[-1][1].message == d.message and out[-1][1].text is None and out[-1][1].lines is None and out[-1][0]:
            out[-1][0].append(d.path)
            continue
        out.append(([d.path] if d.path else [], d))
    return [(tuple(paths), d) for paths, d in out]


def paths_text(paths, show=lambda p: p) -> str:
    """``[0], [1], [2]``; more than six as the first three, the last, and how many places in all
    (``[0], [1], [2], …, [11] (12 places)``), so that the counts below add up."""
    if len(paths) <= 6:
        return ", ".join(show(p) for p in paths)
    return ", ".join(show(p) for p in paths[:3]) + f", …, {show(paths[-1])} ({len(paths):,} places)"


def render_diff(result: Diff, indent: str = "  ", *, with_pattern: bool = True) -> list[str]:
    """The differences as lines, each rendered from its claim (`_claims`): a path, the reason, and for strings the
    two marked windows; the pattern claim first, the counts of what was left out last."""
    lines: list[str] = []
    patterns, counts = whole_claims(result)
    if result.hint:
        lines.append(f"{indent}hint: {result.hint}")
    if with_pattern:  # the pattern claim, verified on the values before it is said
        lines += [terminal_safe(f"{indent}{claim_text(c)}", 1_000) for c in patterns]
    for paths, d in grouped(result.differences):
        where = f"{paths_text(paths)}: " if paths else ""
        lines.append(terminal_safe(f"{indent}- {where}{d.message}", 1_000))
        if d.text is not None:
            expected, got = text_sides(d.text)
            lines.append(terminal_safe(f"{indent}    expected: {expected}", 1_000))
            lines.append(terminal_safe(f"{indent}    got:      {got}", 1_000))
        if d.lines is not None:
            lines += render_lines(d.lines, indent)
    lines += [f"{indent}- {text}" for text in left_out(result, counts)]
    return lines


def expected_text(o: Observation, limit: int) -> str:
    """The expected value, or why it is not known (the check ended before it was computed)."""
    if is_not_computed(o.expected):
        return f"(not known: {o.expected.reason})"
    return safe_repr(o.expected, limit)


def run_shift_of(result: RunResult) -> tuple[int, str] | None:
    """The shift that holds on several failing checks of a run (`_patterns.run_shift`): said on each check where it holds."""
    from .._patterns import run_shift

    return run_shift((o.expected, o.actual) for o in result.observations if o.status == FAIL and not why_calls(o))


def render_observation(o: Observation, budget: Budget | None = None, *, missing_return: bool = False,
                       prefer: tuple[int, str] | None = None) -> str:
    """One check: status and label, the call, expected and got, and why they differ."""
    budget = budget or Budget()
    line = f" (record line {o.lineno})" if o.lineno else ""
    lines = [terminal_safe(f"{STATUS_SYMBOLS[o.status]} {o.status}: {o.check}{line}", 300)]
    if o.compared:
        lines.append(terminal_safe(f"  compares: {o.compared}", 600))
        lines += [] if listed_calls(o) else [terminal_safe(f"  {call} returned: {safe_repr(value, RETURNED_LIMIT)}", 1_000) for call, value in o.shown_returns()]
    elif o.call:
        lines.append(terminal_safe(f"  call:     {o.call}", 600))
    lines += [terminal_safe(line, 1_000) for line in calls_lines(o) + helpers_lines(o)]
    lines.append(terminal_safe(f"  expected: {expected_text(o, budget.max_repr * 4)}", 1_000))
    if o.status in COMPARED:
        lines.append(terminal_safe(f"  got:      {safe_repr(o.actual, budget.max_repr * 4)}", 1_000))
    if o.status == FAIL and why_calls(o):  # an exception's name is not a string to diff: what solve raised, or that it raised nothing
        lines += ["  why:"] + [terminal_safe(f"    - {text}", 1_000) for text in why_calls(o)]
    elif o.status == FAIL:
        from ._grid import picture_text  # here: a run that passes (`check` on a right solution) never imports the pictures

        explained = diff(o.expected, o.actual, budget, missing_return=missing_return, prefer=prefer)
        lines += ["    " + terminal_safe(text, 1_000) for text in picture_text(o.expected, o.actual, counted=not says_total(explained))]
        lines += [terminal_safe(f"  pattern:  {claim_text(c)}", 1_000) for c in whole_claims(explained)[0]]
        if explained.differences or explained.hint:
            lines.append("  why:")
            lines += render_diff(explained, "    ", with_pattern=False)
    if o.error is not None:
        lines.append(terminal_safe(f"  error:    {o.error}", 1_000))
    if o.mutation:
        lines.append(terminal_safe(f"  note:     {o.mutation}", 600))
    if o.verdict_note:
        lines.append(terminal_safe(f"  note:     {o.verdict_note}", 600))
    if o.judged_in_solve_process and not o.unconfirmed:  # an unconfirmed verdict's note says so already
        lines.append(f"  note:     {JUDGED_IN_SOLVE_PROCESS}")
    if o.changed_note:
        lines.append(terminal_safe(f"  note:     {o.changed_note}", 600))
    lines += [terminal_safe(f"  note:     {note}", 600) for note in o.state_notes]
    if o.stale:
        lines.append(terminal_safe(f"  note:     {o.stale}", 600))
    if o.stdout:
        printed = o.stdout.splitlines()
        lines.append(f"  {printed_summary(o)}:")
        lines += ["    " + terminal_safe(text, 300) for text in printed[:20]]
        if len(printed) > 20:
            lines.append(f"    … {len(printed) - 20:,} more lines")
    return "\n".join(lines)


RETURNED_LIMIT = 300
"""What solve returned, beside a compared expression, is shown up to this many characters (folded in HTML)."""


def expression_label(item) -> str:
    """What a failing check of watch it fail compares: the expression when it is not the call itself."""
    return next((o.compared for _, o in item.outcomes if o.compared), item.call)


def printed_summary(o: Observation) -> str:
    """What solve printed, counted honestly: when output was cut, say how much was kept."""
    if not o.stdout_dropped:
        lines = o.stdout.count("\n") + (not o.stdout.endswith("\n"))
        return f"printed output ({lines:,} line{'s' if lines != 1 else ''})"
    kept = len(o.stdout.encode("utf-8"))
    return f"printed output (only the first {kept:,} bytes are kept; {o.stdout_dropped:,} more bytes were printed)"


def argument_note(result: RunResult) -> str | None:
    """What solve changed in its arguments over the run, and in which checks: a fact, neither right nor wrong (a
    contract may ask for it); None when it changed none."""
    mutated = [o for o in result.observations if o.mutation]
    if not mutated:
        return None
    where = f" (in {len(mutated)} checks)" if len(mutated) > 1 else f" (in the check '{clip(mutated[0].check, 60)}')"
    return f"{mutated[0].mutation}{where}"


def run_notes(result: RunResult) -> list[str]:
    """Notes about the whole run that must be seen even when every check passes (`argument_note` first)."""
    argument = argument_note(result)
    notes = [argument] if argument else []
    unconfirmed = [o for o in result.observations if o.unconfirmed]
    if unconfirmed:
        notes.append(f"{unconfirmed[0].verdict_note} (in {len(unconfirmed)} check{'s' if len(unconfirmed) > 1 else ''})")
    own_eq = [o for o in result.observations if o.status == PASS and o.verdict_note]  # passes are not listed below: say it here
    if own_eq:
        where = f"{len(own_eq)} checks pass" if len(own_eq) > 1 else f"the check '{clip(own_eq[0].check, 60)}' passes"
        notes.append(f"{where}, {own_eq[0].verdict_note}")
    loose = _passes_by_equality_alone(result)
    if loose:
        o, d = loose[0]
        where = f"{d.path}: " if d.path else ""
        which = (f"the check '{clip(o.check, 60)}' passes" if len(loose) == 1
                 else f"{len(loose)} checks pass ({', '.join(repr(clip(p.check, 40)) for p, _ in loose[:3])}{', …' if len(loose) > 3 else ''})")
        notes.append(f"{which} because == holds (as the record's own harness judges it), "
                     f"but the values differ in type{'' if len(loose) == 1 else f', as in {o.check!r}'}: {where}{d.message}")
    again = [c for o in result.observations if o.status == PASS for c in o.state if getattr(c, "kind", "") == "again"]
    if again:  # a failing check's rows say it already; a passing one's are not listed
        notes.append(str(again[0]))
    there = [o for o in result.observations if o.judged_in_solve_process and not o.unconfirmed]
    if there:
        notes.append(f"{len(there)} check{'s were' if len(there) > 1 else ' was'} {JUDGED_IN_SOLVE_PROCESS.replace('its values are', 'their values are' if len(there) > 1 else 'its values are')}")
    if result.isolation_note:
        notes.append(result.isolation_note)
    return notes + list(result.notes)


def _passes_by_equality_alone(result: RunResult) -> list:
    """Every passing check whose values are == but not the same (True == 1, 1 == 1.0, (1,) vs [1] never are), with that
    difference: the verdict stays the harness's, and the learner is told what a stricter reader of the contract would see."""
    found_all = []
    for o in result.observations:
        if o.status != PASS or o.verdict_note:
            continue
        try:
            found = type_only(o.expected, o.actual)
        except Exception:  # noqa: BLE001 - a note must never break the rendering
            continue
        if found is not None:
            found_all.append((o, found))
    return found_all


def render_run(result: RunResult, *, missing_return: bool = False, said: set[str] | None = None) -> str:
    """`K/N checks pass`, notes, then each check that did not pass, with why.

    `said`: notes already shown (for the runs of other variants), left out here; this run's are added to it.
    """
    lines = [result.summary()]
    notes = [note for note in run_notes(result) if said is None or note not in said]
    if said is not None:
        said.update(notes)
    lines += [terminal_safe(f"note: {note}", 1_000) for note in notes]
    prefer = run_shift_of(result)
    for o in result.observations:
        if o.status != PASS:
            lines += ["", render_observation(o, missing_return=missing_return, prefer=prefer)]
    if result.problem is not None and result.problem.traceback:
        lines += ["", "The run stopped:", terminal_safe(result.problem.traceback, 4_000)]
    return "\n".join(lines)


COMPARISON_NOTE = (
    "broken and attempt are the record's two implementations, run here by the same runner that checks your solve."
)


def render_variants_summary(runs) -> str:
    """One line over the runs of several variants: the checks that pass in all, and the variants with a check that does not."""
    passed, total = sum(r.passed_count for r in runs), sum(len(r.observations) for r in runs)
    failing = [str(r.variant) for r in runs if not r.passed]
    where = f"; not every check passes for N = {', '.join(failing)}" if failing else ": every variant passes"
    return f"== all {len(runs)} variants: {passed}/{total} checks pass{where}"


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




def first_reason(o: Observation) -> str:
    """The diff's one-line reason for a failed check ("" when there is none)."""
    if o.status != FAIL:
        return ""
    if why_calls(o):
        return why_calls(o)[0]
    explained = diff(o.expected, o.actual)
    if not explained.differences:
        return ""
    d = explained.differences[0]
    return f"{d.path}: {d.message}" if d.path else d.message


def story_reasons(o: Observation, budget: Budget | None = None) -> tuple[str, Diff | None]:
    """Why a failed check fails, for watch it fail: the same differences as the panel, under the same budget.

    One difference that needs no picture comes back as one line (and no Diff); several,
    or a text window, a line diff or a hint, as the Diff to draw in full.
    """
    if o.status != FAIL:
        return "", None
    if why_calls(o):
        return why_calls(o)[0], None
    explained = diff(o.expected, o.actual, budget or Budget())
    if not explained.differences and not explained.hint:
        return "", None
    if len(explained.differences) == 1 and not explained.omitted and not explained.omitted_items and not explained.hint:
        d = explained.differences[0]
        if d.text is None and d.lines is None:
            return (f"{d.path}: {d.message}" if d.path else d.message), None
    return "", explained


def story_sentences(story) -> list[str]:
    """What the story's table means and what to trust about it, in plain words."""
    sentences = [COMPARISON_NOTE]
    if story.parity is not None:
        if story.parity.ok:
            sentences.append("They behave exactly as they did when the record was made.")
        else:
            problems = "; ".join(problem for p in story.parity.implementations for problem in p.problems[:2])
            sentences.append(f"WARNING: these runs differ from the record's recorded runs: {problems}")
    else:
        sentences.append(
            f"The record's runs were recorded for N = {story.recorded_variant}; for N = {story.variant} there is no recording to compare with."
        )
    for crash in story.crashes:
        if crash.index is None:
            sentences.append(f"The record's own {crash.implementation} script crashed ({crash.error_type}) before printing its results.")
            continue
        position = crash.index + 1
        rest = crash.total - position
        never = (
            f", so check{'s' if rest > 1 else ''} {position + 1}{f'–{crash.total}' if rest > 1 else ''} never ran there"
            if rest > 0
            else ""
        )
        sentences.append(
            f"The record's own {crash.implementation} script crashed at check {position} ('{crash.label}') with "
            f"{crash.error_type}{never}. Here every check runs on its own, so the table shows what each one gives."
        )
    return sentences


def render_story(story) -> str:
    """Watch it fail, as text: the table, what it means, what each failing check returned, and the code."""
    variant = f" · variant N = {story.variant}" if story.uses_variant else ""
    lines = [f"Watch it fail · {story.record_id}{variant}", ""]
    lines.append(render_comparison(story.runs, story.names))
    lines.append("")
    lines += [textwrap.fill(terminal_safe(s, 2_000), WIDTH) for s in story_sentences(story)]
    failing = story.failing_checks()
    if failing:
        lines += ["", "Where they fail:"]
    if failing:
        from ._grid import outcome_picture_text  # only a failing check has a picture
    for item in failing:
        label = expression_label(item)
        lines.append(terminal_safe(f"  {item.check}" + (f": {label}" if label else ""), 600))
        lines.append(terminal_safe(f"    expected: {safe_repr(item.expected, 300)}", 600))
        for name, o in item.outcomes:
            reason, explained = story_reasons(o)
            lines.append(terminal_safe(f"    {name} {outcome_text(o)}" + (f" ({reason})" if reason else ":" if explained else ""), 1_000))
            lines += ["      " + terminal_safe(text, 1_000) for text in outcome_picture_text(o, explained is None or not says_total(explained))]
            if explained is not None:
                lines += render_diff(explained, "      ")
    lines += ["", "The code that fails:"]
    for name, source, first in story.sources:
        lines.append(f"  {name} ({source_lines(source, first)} of its script):")
        lines += ["    " + terminal_safe(line, 300) for line in numbered_lines(source, first)]
    return "\n".join(lines)


def hint_ladder_text(ladder) -> str:
    """All hints of a `HintLadder`, numbered."""
    return "\n".join(terminal_safe(f"Hint {i}: {h.title}: {h.text}", 2_000) for i, h in enumerate(ladder.hints, 1))


def render_hints(hints, shown: int) -> str:
    """The hints revealed so far, numbered, and how many remain."""
    lines = [terminal_safe(f"Hint {i}: {h.title}: {h.text}", 2_000) for i, h in enumerate(hints[:shown], 1)]
    left = len(hints) - shown
    lines.append(f"{left} more hint{'s' if left != 1 else ''} available." if left > 0 else "All hints are shown.")
    return "\n".join(lines)
