"""Code shown with the line numbers of the script it comes from, so an error's "(line N)" points at a line the reader sees."""

from __future__ import annotations

from html import escape

from .._values import text_safe

__all__ = ["code_details_html", "numbered_html", "numbered_lines", "source_lines"]


def source_lines(source: str, first: int) -> str:
    """``lines 12–15`` (or ``line 12``): where `source` stands in its script, when it begins on line `first`."""
    last = first + max(len(source.splitlines()), 1) - 1
    return f"line {first}" if last == first else f"lines {first}–{last}"


def numbered_lines(source: str, first: int) -> list[str]:
    """Each line of `source` after its number in the script, the numbers right-aligned: ``12  def solve(x):``."""
    lines = source.splitlines() or [""]
    width = len(str(first + len(lines) - 1))
    return [f"{n:>{width}}  {line}" for n, line in enumerate(lines, first)]


def numbered_html(source: str, first: int) -> str:
    """`numbered_lines` for a ``<pre>``, escaped, the numbers muted."""
    lines = source.splitlines() or [""]
    width = len(str(first + len(lines) - 1))
    return "\n".join(f'<span class="fm-muted">{n:>{width}}</span>  {escape(text_safe(line), quote=True)}' for n, line in enumerate(lines, first))


def code_details_html(name: str, source: str, first: int) -> str:
    """A folded ``The code of attempt (lines 12–15 of its script)`` with the code numbered inside."""
    return (f"<details><summary>The code of {escape(text_safe(name))} ({source_lines(source, first)} of its script)</summary>"
            f"<pre>{numbered_html(source, first)}</pre></details>")
