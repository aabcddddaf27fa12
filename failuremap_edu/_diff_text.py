"""The diff's text parts: where two strings or two texts of several lines part ways, and those edits in plain words.

Character edits (shared prefix and suffix first, then difflib for the middle), line
diffs as difflib's ndiff pairs lines, invisible characters named by code point.
"""

from __future__ import annotations

import difflib
import re
import unicodedata

from ._diff_model import Budget, LineDetail, LineEdit, TextDetail, TextEdit
from ._values import safe_repr

def describe_char(ch: str) -> str:
    """``U+00A0 NO-BREAK SPACE``: a character named so that invisible ones can be seen."""
    name = unicodedata.name(ch, None)
    if name is None:
        name = {"\n": "LINE FEED", "\r": "CARRIAGE RETURN", "\t": "TAB"}.get(ch, unicodedata.category(ch))
    return f"U+{ord(ch):04X} {name}"


_BLANKS = re.compile(r"[ \t]+")


_INVISIBLE_CATEGORIES = {"Zs", "Zl", "Zp", "Cc", "Cf", "Mn", "Me"}


def _common_prefix(a, b) -> int:
    """Length of the common prefix, comparing blocks in C before characters in Python."""
    n = min(len(a), len(b))
    block = 4096
    i = 0
    while i < n and a[i : i + block] == b[i : i + block]:
        i += block
    i = min(i, n)
    end = min(i + block, n)
    while i < end and a[i] == b[i]:
        i += 1
    return i


def _common_suffix(a, b, floor: int) -> int:
    """Length of the common suffix that does not reach into the first `floor` characters."""
    n = min(len(a), len(b)) - floor
    block = 4096
    i = 0
    while i + block <= n and a[len(a) - i - block : len(a) - i] == b[len(b) - i - block : len(b) - i]:
        i += block
    while i < n and a[len(a) - 1 - i] == b[len(b) - 1 - i]:
        i += 1
    return i


def _notable(ch: str) -> bool:
    """Characters a learner cannot see or tell apart in a repr: named by code point instead."""
    return ch.isspace() or unicodedata.category(ch) in _INVISIBLE_CATEGORIES


def _short_and_plain(text: str) -> bool:
    """A short one-line ASCII string, whose repr shows every character plainly.

    Not other letters: 'ﬁne' (a ligature) and 'fine' look the same on screen, and full-width 'ｈｅｌｌｏ'
    can show as boxes where the font has none: those get the characters named.
    """
    return (
        len(text) <= 30
        and text.isascii()
        and text == text.strip()
        and "  " not in text
        and all(ch == " " or unicodedata.category(ch)[0] in "LNPS" for ch in text)
    )


def _items(n: int) -> str:
    return f"{n:,} item" if n == 1 else f"{n:,} items"


def _describe_chars(text: str, limit: int = 24, name_all: bool = False) -> str:
    """``'x'``, ``U+0020 SPACE``, or ``'a b'`` followed by the names of its notable characters.

    `name_all` names every character (up to four): for a replacement where the two
    sides may look alike (``é`` against ``e`` plus a combining accent).
    """
    if len(text) == 1 and not name_all:
        return describe_char(text) if _notable(text) else safe_repr(text)
    shown = safe_repr(text) if len(text) <= limit else safe_repr(text[:limit])[:-1] + "…'"
    chosen = text[:limit] if name_all else [ch for ch in text[:limit] if _notable(ch)]
    named = list(dict.fromkeys(describe_char(ch) for ch in chosen))
    return shown + (f" ({', '.join(named[:4])}{', …' if len(named) > 4 else ''})" if named else "")


def _script(ch: str) -> str:
    """The first word of a letter's Unicode name (LATIN, CYRILLIC, HANGUL, FULLWIDTH), or "" for others."""
    return unicodedata.name(ch, "").split(" ")[0] if ch.isalpha() else ""


def _lookalike(e: str, a: str) -> bool:
    """Whether two pieces of text may look alike on screen, so that their characters are named by code point:
    an invisible or combining character, a compatibility form ('ﬁ' against 'fi', full-width letters), or letters of
    different scripts ('а' of Cyrillic against 'a'). Two words of one script that simply differ are not."""
    both = e + a
    if any(_notable(ch) for ch in both):
        return True
    if both.isascii():
        return False
    if any(unicodedata.normalize("NFKC", ch) != ch for ch in both):
        return True
    return {_script(ch) for ch in e} - {""} != {_script(ch) for ch in a} - {""}


def _describe_edit(edit: TextEdit) -> str:
    if edit.op == "insert":
        n = len(edit.actual)
        what = f"an extra {_describe_chars(edit.actual)}" if n == 1 else f"{n:,} extra characters {_describe_chars(edit.actual)}"
        return f"got has {what} at index {edit.actual_index}"
    if edit.op == "delete":
        n = len(edit.expected)
        what = _describe_chars(edit.expected) if n == 1 else f"{n:,} characters {_describe_chars(edit.expected)}"
        return f"got is missing {what} at index {edit.expected_index}"
    where = f"at index {edit.expected_index}"
    if edit.actual_index != edit.expected_index:
        where += f" ({edit.actual_index} in got)"
    lookalike = _lookalike(edit.expected, edit.actual)
    return f"{where}, expected {_describe_chars(edit.expected, name_all=lookalike)} but got {_describe_chars(edit.actual, name_all=lookalike)}"


def describe_text(detail: TextDetail) -> str:
    """The edits between two strings in plain words: what was inserted, is missing or was replaced, and where."""
    edits = [e for e in detail.edits if e.op != "equal"]
    parts = [_describe_edit(e) for e in edits[:3]]
    if detail.changes > len(parts):
        parts.append(f"and {detail.changes - len(parts):,} more")
    if detail.changes == 1:
        return parts[0]
    return f"{detail.changes:,} changes: " + "; ".join(parts)


def _text_detail(exp: str, act: str, budget: Budget) -> TextDetail:
    """Align the two strings around what differs: shared prefix and suffix first (cheap, for
    huge strings), then difflib's opcodes for the middle, kept within the window budget."""
    prefix = _common_prefix(exp, act)
    suffix = _common_suffix(exp, act, prefix)
    e_mid, a_mid = exp[prefix : len(exp) - suffix], act[prefix : len(act) - suffix]
    opcodes = [("replace", 0, len(e_mid), 0, len(a_mid))]
    if len(e_mid) + len(a_mid) <= budget.text_align:
        aligned = difflib.SequenceMatcher(None, e_mid, a_mid, autojunk=False).get_opcodes()
        shared = sum(e2 - e1 for op, e1, e2, _, _ in aligned if op == "equal")
        # Words that differ entirely ('spam', 'eggs') are one replacement, not edits around a
        # shared letter: the edits are kept only when at least a third of the middle is shared.
        if 6 * shared >= len(e_mid) + len(a_mid) or sum(op != "equal" for op, *_ in aligned) <= 1:
            opcodes = aligned
    context = budget.text_context
    start = max(0, prefix - context)
    edits: list[TextEdit] = []
    if prefix > start:
        edits.append(TextEdit("equal", exp[start:prefix], exp[start:prefix], start, start))
    room = budget.text_window  # characters of edits still shown, per side
    e_end = a_end = prefix
    changes = sum(1 for op, *_ in opcodes if op != "equal")
    for op, e1, e2, a1, a2 in opcodes:
        if room <= 0:
            break
        e_text, a_text = e_mid[e1:e2][:room], a_mid[a1:a2][:room]
        room -= max(len(e_text), len(a_text))
        edits.append(TextEdit(op, e_text, a_text, prefix + e1, prefix + a1))
        e_end, a_end = prefix + e1 + len(e_text), prefix + a1 + len(a_text)
    if room > 0:  # everything in the middle was shown: add the shared context after it
        tail = exp[len(exp) - suffix : len(exp) - suffix + context]
        if tail:
            edits.append(TextEdit("equal", tail, tail, len(exp) - suffix, len(act) - suffix))
        e_end, a_end = len(exp) - suffix + len(tail), len(act) - suffix + len(tail)
    return TextDetail(
        index=prefix,
        expected_length=len(exp),
        actual_length=len(act),
        edits=tuple(edits),
        clipped_before=start,
        expected_clipped=len(exp) - e_end,
        actual_clipped=len(act) - a_end,
        changes=changes,
    )


_CASE_ONLY = "only letter case differs"


def _invisible_reasons(exp: str, act: str, index: int, budget: Budget) -> list[str]:
    reasons: list[str] = []
    small = max(len(exp), len(act)) <= budget.text_analysis
    if exp.strip() == act.strip():
        sides = []
        if exp.lstrip() != exp or act.lstrip() != act:
            if len(exp) - len(exp.lstrip()) != len(act) - len(act.lstrip()):
                sides.append("leading")
        if len(exp) - len(exp.rstrip()) != len(act) - len(act.rstrip()):
            sides.append("trailing")
        reasons.append(f"only {' and '.join(sides) or 'surrounding'} whitespace differs")
    elif small and exp.replace("\r\n", "\n") == act.replace("\r\n", "\n"):
        which = "got" if "\r\n" in act else "expected"
        reasons.append(f"only line endings differ: {which} uses \\r\\n (CR LF) where the other uses \\n")
    elif small and ("\t" in exp) != ("\t" in act) and _BLANKS.sub(" ", exp) == _BLANKS.sub(" ", act):
        reasons.append("a tab on one side, spaces on the other")
    elif small and unicodedata.normalize("NFC", exp) == unicodedata.normalize("NFC", act):
        reasons.append("the same text after Unicode normalization (NFC): one side has a letter with a combining mark where the other has one combined character")
    elif small and exp.lower() == act.lower():
        reasons.append(_CASE_ONLY)
    return reasons


def _byte(value: int) -> str:
    """``b'a' (0x61)``: one byte as a bytes literal and in hex."""
    return f"{bytes([value])!r} (0x{value:02x})"


def _several_lines(exp: str, act: str, budget: Budget) -> bool:
    """Texts that get a line diff: one of them has several lines, and both are small enough."""
    if max(len(exp), len(act)) > budget.text_analysis:
        return False
    counts = (exp.count("\n"), act.count("\n"))
    if max(counts) > budget.line_align:
        return False
    return len(exp.splitlines()) > 1 or len(act.splitlines()) > 1


def _line_detail(exp: str, act: str, budget: Budget) -> LineDetail | None:
    """The lines of two texts aligned as difflib's ndiff aligns them, changed lines with one
    line of context, kept within `budget.text_lines`; None when no line differs (only the
    final line break: the character diff shows that).

    Lines are compared without their final ``\n`` (so a line break added after the last
    line does not make that line differ). In a block of changed lines of different
    sizes, a line is paired with its most similar counterpart, as ndiff pairs them.
    """
    e_lines, a_lines = exp.splitlines(keepends=True), act.splitlines(keepends=True)
    e_keys, a_keys = [_no_break(x) for x in e_lines], [_no_break(x) for x in a_lines]
    if e_keys == a_keys:
        return None
    opcodes: list[tuple[str, int, int, int, int]] = []
    for op, e1, e2, a1, a2 in difflib.SequenceMatcher(None, e_keys, a_keys, autojunk=False).get_opcodes():
        if op == "replace" and e2 - e1 != a2 - a1 and (e2 - e1) * (a2 - a1) <= 400:
            _pair_lines(e_keys, a_keys, e1, e2, a1, a2, opcodes, [_PAIRING_WORK])
        else:
            opcodes.append((op, e1, e2, a1, a2))
    rows: list[tuple[str, int, int]] = []  # (op, expected line, got line), 0-based, one per shown line
    for op, e1, e2, a1, a2 in opcodes:
        if op == "equal" or (op == "replace" and e2 - e1 == a2 - a1):
            rows += [(op, i, j) for i, j in zip(range(e1, e2), range(a1, a2))]
        else:
            rows += [("delete", i, a1) for i in range(e1, e2)]
            rows += [("insert", e2, j) for j in range(a1, a2)]
    changed = [k for k, row in enumerate(rows) if row[0] != "equal"]
    near = sorted({k + d for k in changed for d in (-1, 0, 1) if 0 <= k + d < len(rows)})

    def shown(line: str) -> str:
        line = _no_break(line)
        return line if len(line) <= budget.text_window else line[: budget.text_window - 1] + "…"

    edits: list[LineEdit] = []
    every: list[LineEdit] = []  # the kept ones and the rest, for counting runs
    for k in near:
        op, i, j = rows[k]
        kept = len(edits) < budget.text_lines
        if op == "equal":
            edit = LineEdit("equal", shown(e_lines[i]), shown(a_lines[j]), i + 1, j + 1)
        elif op == "replace":
            detail = _text_detail(_no_break(e_lines[i]), _no_break(a_lines[j]), budget) if kept else None
            edit = LineEdit("replace", shown(e_lines[i]), shown(a_lines[j]), i + 1, j + 1, detail)
        elif op == "delete":
            edit = LineEdit("delete", shown(e_lines[i]), "", i + 1, j + 1)
        else:
            edit = LineEdit("insert", "", shown(a_lines[j]), i + 1, j + 1)
        every.append(edit)
        if kept:
            edits.append(edit)
    runs = _line_runs(every)
    summary = tuple((run[0], len(run)) for run in runs[:3])
    return LineDetail(tuple(edits), len(runs), len(every) - len(edits), len(e_lines), len(a_lines), summary)


def _no_break(line: str) -> str:
    return line.removesuffix("\n")


_PAIRING_WORK = 4_000
"""Line pairs a changed block may weigh (ndiff's pairing is cubic); then the rest is left unpaired."""


def _pair_lines(e: list[str], a: list[str], e1: int, e2: int, a1: int, a2: int, out: list, work: list[int]) -> None:
    """ndiff's pairing of a changed block: the most similar pair of lines (ratio above 0.75)
    is a changed line, and the lines before and after it are paired the same way."""
    work[0] -= (e2 - e1) * (a2 - a1)
    if e1 >= e2 or a1 >= a2 or work[0] < 0:
        if e2 > e1:
            out.append(("delete", e1, e2, a1, a1))
        if a2 > a1:
            out.append(("insert", e2, e2, a1, a2))
        return
    best, pair = 0.75, None
    matcher = difflib.SequenceMatcher(autojunk=False)
    for j in range(a1, a2):
        matcher.set_seq2(a[j])
        for i in range(e1, e2):
            matcher.set_seq1(e[i])
            if matcher.real_quick_ratio() > best and matcher.quick_ratio() > best and matcher.ratio() > best:
                best, pair = matcher.ratio(), (i, j)
    if pair is None:
        out.append(("delete", e1, e2, a1, a1))
        out.append(("insert", e2, e2, a1, a2))
        return
    i, j = pair
    _pair_lines(e, a, e1, i, a1, j, out, work)
    out.append(("replace", i, i + 1, j, j + 1))
    _pair_lines(e, a, i + 1, e2, j + 1, a2, out, work)


def _line_range(first: int, count: int) -> str:
    return f"line {first:,}" if count == 1 else f"lines {first:,}–{first + count - 1:,}"


def _line_runs(edits) -> list[list[LineEdit]]:
    """Changed lines grouped into runs: consecutive lines with the same edit."""
    runs: list[list[LineEdit]] = []
    for edit in edits:
        if edit.op == "equal":
            continue
        last = runs[-1][-1] if runs else None
        if last is not None and last.op == edit.op and edit.expected_line - last.expected_line <= 1 and edit.actual_line - last.actual_line <= 1:
            runs[-1].append(edit)
        else:
            runs.append([edit])
    return runs


def describe_lines(detail: LineDetail) -> str:
    """The changed lines in plain words: which lines got has extra, is missing, or has changed."""
    parts: list[str] = []
    for first, n in detail.runs[:3]:
        if first.op == "insert":
            parts.append(f"got has {'an extra line' if n == 1 else f'{n:,} extra lines'} at {_line_range(first.actual_line, n)}")
        elif first.op == "delete":
            parts.append(f"got is missing {_line_range(first.expected_line, n)} of expected")
        else:
            where = f" ({_line_range(first.actual_line, n)} in got)" if first.actual_line != first.expected_line else ""
            if n == 1 and first.text is not None:  # one changed line: say how, within the line
                parts.append(f"{_line_range(first.expected_line, n)}{where}: {describe_text(first.text)}")
            else:
                parts.append(f"{_line_range(first.expected_line, n)} differ{'s' if n == 1 else ''}{where}")
    if detail.changes > len(parts):
        parts.append(f"and {detail.changes - len(parts):,} more")
    if detail.changes == 1:
        return parts[0]
    return f"{detail.changes:,} changes: " + "; ".join(parts)
