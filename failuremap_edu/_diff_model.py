"""The diff's model: the frozen `Budget` it works within, and what it returns (`Diff`, `Difference`, text and line details).

Pure data: no walking, no wording. `Diff.claims` holds what the diff says as typed
claims (`_claims`), each of which a verifier can check against the two values.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ._display import Shown

@dataclass(frozen=True)
class Budget:
    """Limits on the work a diff does and on what it keeps, passed in, never global."""

    max_differences: int = 12
    """Differences kept; the rest are only counted."""
    max_depth: int = 40
    max_items: int = 1_000_000
    """Items per container examined; beyond this they are only counted."""
    max_repr: int = 160
    """Characters of any value's repr that a difference keeps."""
    text_context: int = 32
    """Characters of shared context shown before the first and after the last edit."""
    text_align: int = 4_000
    """Differing middles (after the shared prefix and suffix) up to this many characters
    are aligned character by character; longer ones are shown as one replacement."""
    text_window: int = 200
    """Characters of edits kept per side in a text window."""
    text_analysis: int = 100_000
    """Strings longer than this skip whole-string checks such as Unicode normalization."""
    align_items: int = 400
    """Sequences up to this length are aligned to find missing and extra items."""
    text_lines: int = 40
    """Lines a line diff keeps (changed lines and one line of context around them)."""
    line_align: int = 5_000
    """Texts of up to this many lines (and at most `text_analysis` characters) get a line diff."""


DEFAULT_BUDGET = Budget()


@dataclass(frozen=True)
class TextEdit:
    """One piece of two aligned strings: the same on both sides, or an edit.

    Renderers draw expected and got from the same list of edits, so the marks in
    both lines sit at the same place: an insertion is an empty mark in expected,
    a deletion an empty mark in got.
    """

    op: str
    """``equal``, ``insert`` (only in got), ``delete`` (only in expected) or ``replace``."""
    expected: str
    """The expected side's characters ("" for ``insert``)."""
    actual: str
    """The got side's characters ("" for ``delete``)."""
    expected_index: int
    """Where this piece starts in expected (0-based)."""
    actual_index: int
    """Where this piece starts in got."""


@dataclass(frozen=True)
class TextDetail:
    """Where two strings part ways, as aligned edits around the changes, with context."""

    index: int
    """First differing character (0-based; the common prefix is this long)."""
    expected_length: int
    actual_length: int
    edits: tuple[TextEdit, ...]
    """The window: some shared context, the edits (clipped for huge strings), more context."""
    clipped_before: int
    """Characters of the shared prefix left out before the window (both sides)."""
    expected_clipped: int
    """Characters of expected after the window that are not shown."""
    actual_clipped: int
    changes: int
    """How many edits (not ``equal``) the two strings differ by, including any beyond the window."""


@dataclass(frozen=True)
class LineEdit:
    """One line of a line diff: the same in both texts, only in one, or changed."""

    op: str
    """``equal``, ``delete`` (only in expected), ``insert`` (only in got) or ``replace``."""
    expected: str
    """The expected line, without its line break ("" for ``insert``)."""
    actual: str
    """The got line ("" for ``delete``)."""
    expected_line: int
    """Its line number in expected (1-based; for ``insert``, the line it comes before)."""
    actual_line: int
    text: TextDetail | None = None
    """For ``replace``: where the two lines differ, character by character."""


@dataclass(frozen=True)
class LineDetail:
    """Two texts of several lines compared line by line, as difflib's ndiff does."""

    edits: tuple[LineEdit, ...]
    """Changed lines with a line of context around each change; renderers show a gap where line numbers jump."""
    changes: int
    """How many groups of changed lines there are, including any beyond the budget."""
    omitted: int
    """Lines of the diff (changed or context) not kept because of the budget."""
    expected_lines: int
    actual_lines: int
    runs: tuple[tuple[LineEdit, int], ...] = ()
    """The first runs of changed lines (each run's first line and its length), counted over
    every changed line, kept or not: what the message names."""


@dataclass(frozen=True)
class Difference(Shown):
    """One reason why expected and actual are not the same: the claim it states, and what a renderer draws.

    ``str()`` and `message` give it in words, rendered from `claim` (`render._claims`).
    """

    _text_renderer = "render._claims:difference_text"
    _html_renderer = "render._claims:difference_html"

    path: str
    """Where, as an index path from the root: ``""`` is the whole value."""
    kind: str
    """``type``, ``none``, ``length``, ``missing``, ``extra``, ``order``, ``value``, ``text``, ``invisible``,
    ``number``, ``nan``, ``opaque``, ``own_eq``, ``budget``, ``eq`` (only ``==`` tells them apart) or ``depth``."""
    expected: str = ""
    """A short repr of the expected part (empty for ``extra``)."""
    actual: str = ""
    """A short repr of the actual part (empty for ``missing``)."""
    text: TextDetail | None = None
    lines: LineDetail | None = None
    """For texts of several lines: the line diff (then `text` is None)."""
    claim: Any = field(default=None, compare=False)
    """What this difference states, as a typed claim (`_claims`) that `_claims.verify` checks on the values."""
    note: str = ""
    """The words of a difference that states no claim (a type that ``==`` ignores, for a passing check)."""
    budget: Budget = field(default=DEFAULT_BUDGET, repr=False, compare=False)
    """The budget the diff worked within (how long a repr its words keep)."""

    @property
    def message(self) -> str:
        """The explanation in plain words, with "expected" and "got"."""
        return str(self)


@dataclass(frozen=True)
class Diff(Shown):
    """All the differences found within the budget, first found first. ``str()`` gives its text form."""

    _text_renderer = "render._text:diff_text"

    differences: tuple[Difference, ...]
    omitted: int = 0
    """Differences found but not kept because of the budget."""
    omitted_items: int = 0
    """Items found to differ but not looked into because of the budget, whose differences were not counted
    (their shapes differ: a count would guess). They are said apart."""
    hint: str | None = None
    """One overall hint, e.g. that solve returned a generator."""
    budget: Budget = field(default=DEFAULT_BUDGET, repr=False)
    claims: tuple = field(default=(), repr=False, compare=False)
    """Everything the diff says as typed claims (`_claims`): one per difference kept, then the counts of what was
    left out, any pattern (`_patterns`) and any class whose own ``==`` decides. The text form renders from these."""
    pattern: str | None = field(default=None, repr=False, compare=False)
    """The pattern claim in one sentence, when one holds exactly (`_patterns.sentence`)."""

    @property
    def equal(self) -> bool:
        """No difference: the values are equal and of the same types throughout."""
        return not self.differences and not self.omitted and not self.omitted_items
