"""Watch it fail and the hints, as plain text: what a static viewer, nbval or a terminal shows of them.

Built on the run's text forms (`_text`): the same reasons, diffs and pictures,
so the text and the panel say the same.
"""

from __future__ import annotations

import textwrap

from .._values import safe_repr
from ._calls import outcome_text
from ._claims import says_total
from ._source import numbered_lines, source_lines
from ._text import WIDTH, expression_label, render_comparison, render_diff, story_reasons, story_sentences, terminal_safe

__all__ = ["hint_ladder_text", "render_hints", "render_story"]


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
