"""What a check did with solve, for every display: each call (returned or raised, and its time), the record's helpers, exceptions as exceptions.

One decision for the text form, the HTML, the widget and watch it fail (`listed_calls`):
a check whose one call the "call" and "got" rows already show lists nothing more; any
other check with recorded calls lists them all, in order, with the count of those left out.
A failed check whose value names an exception says what solve raised (`why_calls`,
from `_call_claims`) instead of a diff of the exception's name.
"""

from __future__ import annotations

from .._call_claims import call_claims
from .._results import COMPARED, ERROR, TIMEOUT, Call, Observation
from .._values import safe_repr

__all__ = ["call_text", "calls_html", "calls_lines", "helpers_html", "helpers_lines", "listed_calls", "outcome_text", "seconds_text", "why_calls"]


SLOW_CALL = 0.1
"""A call's time is said from this many seconds on, to a tenth of a second: what a learner can act on."""


def seconds_text(seconds: float) -> str:
    """A call's time in the unit that reads best: ``8 µs``, ``1.2 ms``, ``0.35 s``."""
    if seconds < 1e-3:
        return f"{max(seconds * 1e6, 1):.0f} µs"
    if seconds < 1:
        return f"{seconds * 1e3:.3g} ms"
    return f"{seconds:.3g} s"


def call_text(c: Call, limit: int = 200, timed: bool = True) -> str:
    """``solve(3, -1) raised AssertionError: … (line 4), caught by the check's code`` (with ``· 0.3 s`` for a call of at least `SLOW_CALL` seconds, when `timed`)."""
    from .._values import clip

    if c.raised is None:
        outcome = f"returned {safe_repr(c.returned, limit)}"
        later = c.changed_text(limit)
        outcome += f" when it returned; {later}" if later else ""
    else:
        outcome = f"raised {clip(str(c.raised), limit)}" + (f" (line {c.line})" if c.line else "")
        outcome += ", caught by the check's code" if c.caught else ""
    slow = timed and c.seconds >= SLOW_CALL  # a fast call's microseconds differ on every run and say nothing
    return f"{c.call} {outcome}" + (f" · {c.seconds:.1f} s" if slow else "")


def listed_calls(o: Observation) -> tuple[Call, ...]:
    """The calls a display lists for `o`: () when there are none, or when the rows show the one call already (the call
    and what it returned, or the error it raised, which the check ended with)."""
    if not o.calls:
        return ()
    if len(o.calls) == 1 and not o.calls_omitted:
        only = o.calls[0]
        if only.raised is None and (o.compares_return or o.shown_returns()) and o.status != ERROR:
            return ()  # the rows show what it returned; an error row shows no "got", so the call says it
        if only.raised is not None and not only.caught and o.error is not None and (o.error.type, o.error.message) == (only.raised.type, only.raised.message):
            return ()
    return o.calls


def _omitted(o: Observation) -> str:
    total = len(o.calls) + o.calls_omitted
    return f"… and {o.calls_omitted:,} more call{'s' if o.calls_omitted != 1 else ''} of solve ({total:,} in all)"


def why_calls(o: Observation) -> list[str]:
    """What solve's calls say of a failed check that measures exceptions (`_call_claims`); [] for any other check."""
    return [str(claim) for claim in call_claims(o)]


def calls_lines(o: Observation, indent: str = "  ") -> list[str]:
    """The text form's lines: ``calls:`` and one line per call, then the count left out."""
    calls = listed_calls(o)
    if not calls:
        return []
    lines = [f"{indent}calls:    {call_text(calls[0])}"] + [f"{indent}          {call_text(c)}" for c in calls[1:]]
    if o.calls_omitted:
        lines.append(f"{indent}          {_omitted(o)}")
    return lines


def calls_html(o: Observation) -> str:
    """The HTML form: a list of the calls, in order, then the count left out ("" when `listed_calls` lists none)."""
    from ._html import _e

    calls = listed_calls(o)
    if not calls:
        return ""
    items = "".join(f'<li class="fm-call{" fm-raised" if c.raised is not None else ""}">{_e(call_text(c))}</li>' for c in calls)
    if o.calls_omitted:
        items += f'<li class="fm-muted">{_e(_omitted(o))}</li>'
    return f'<div class="fm-calls"><strong class="fm-k">calls of solve</strong><ol>{items}</ol></div>'


def helpers_lines(o: Observation, indent: str = "  ") -> list[str]:
    """The text form: each helper of the record this check uses, by name, with its source under it."""
    lines = []
    for h in o.helpers:
        lines.append(f"{indent}uses:     {h.kind} {h.name} (record lines {h.lineno}–{h.end_lineno})")
        lines += [f"{indent}    | {line}" for line in h.source.splitlines()]
    return lines


def helpers_html(o: Observation) -> str:
    """The HTML form: each helper this check uses, its source folded (open when the check did not pass)."""
    from ._html import _e, _pre

    opened = "" if o.status == "pass" else " open"
    return "".join(
        f'<details class="fm-helper"{opened}><summary>uses the record\'s {_e(h.kind)} <code>{_e(h.name)}</code>'
        f' <span class="fm-muted">(record lines {h.lineno}–{h.end_lineno})</span></summary><pre>{_pre(h.source)}</pre></details>'
        for h in o.helpers
    )


def outcome_text(o: Observation, limit: int = 300) -> str:
    """What one implementation did on a check, in a few words: returned X, raised E, ran out of time."""
    calls = listed_calls(o)
    if calls and not why_calls(o):  # every call the check made, and what each did (a claim about them says it better)
        said = "; ".join(call_text(c, min(limit, 120), timed=False) for c in calls[:3])
        said += f"; and {len(calls) + o.calls_omitted - 3:,} more calls" if len(calls) + o.calls_omitted > 3 else ""
        if o.status in COMPARED:
            return f"gave {safe_repr(o.actual, limit)}; {said}"
        if o.status != TIMEOUT and o.error is not None:
            return f"{said}; then the check raised {o.error}" if all(c.caught or c.raised is None for c in calls) else said
    if o.status in COMPARED:
        if o.compared:  # the value is an expression of what solve returned, not the return value
            returns = "".join(f"; {call} returned {safe_repr(value, min(limit, 120))}" for call, value in o.shown_returns())
            return f"gave {safe_repr(o.actual, limit)}{returns}"
        return f"returned {safe_repr(o.actual, limit)}"
    if o.status == TIMEOUT:
        return "ran out of time (no result)"
    returned = o.shown_returns() if o.error is not None else ()
    if returned:  # solve returned; the check's expression of its result raised
        call, value = returned[0]
        return f"{call} returned {safe_repr(value, min(limit, 120))}, then {o.compared} raised {o.error}"
    return f"raised {o.error}" if o.error is not None else "stopped with an error"
