"""What the differences between two values have in common, in one sentence, only when it is exactly true.

Pure functions on the two values (expected, got), decided on values, never on
reprs. Each pattern is checked exactly; when none holds, there is no sentence:
a sentence that is nearly true sends a learner the wrong way. The patterns are
those learners looked for by hand:

- the differing cells of a grid are exactly its diagonal, or all lie in one row
  or one column;
- the differing positions of a sequence are exactly its first or last k;
- got is expected shifted by k positions (`_shift`), or reversed;
- two keys' values are swapped (in a dict, or at every label of a dict of dicts);
- every number is off by the same amount, or by the same factor.
"""

from __future__ import annotations

import math
from typing import Any

from ._claims import Pattern, explains
from ._rounded import decimals, fits_factor, rounded_factor
from ._shift import find_shift, shift_sentence, verify_shift

__all__ = ["differing_cells", "find_pattern", "is_grid", "is_number_sequence", "pattern", "run_shift", "sentence", "verify"]

_NUMBER = (int, float)
_NUMBER_TYPES = {int, float, bool}


def _same(a: Any, b: Any) -> bool:
    """The harness's equality, guarded: a value whose ``==`` raises counts as different."""
    try:
        return bool(a == b)
    except BaseException:  # noqa: BLE001
        return False



def is_grid(value: Any) -> bool:
    """A list (or tuple) of at least one row, the rows lists or tuples of one length (at least 1) of numbers or booleans."""
    if type(value) not in (list, tuple) or not value:
        return False
    if any(type(row) not in (list, tuple) for row in value):
        return False
    width = len(value[0])
    return width > 0 and all(len(row) == width and set(map(type, row)) <= _NUMBER_TYPES for row in value)


def is_number_sequence(value: Any) -> bool:
    """A list (or tuple) of numbers or booleans (at least one)."""
    return type(value) in (list, tuple) and len(value) > 0 and set(map(type, value)) <= _NUMBER_TYPES


def differing_cells(expected: Any, got: Any) -> set[tuple[int, int]]:
    """(row, column) of every cell where two grids differ; a cell only one grid has differs too."""
    cells = set()
    for i in range(max(len(expected), len(got))):
        e_row = expected[i] if i < len(expected) else ()
        g_row = got[i] if i < len(got) else ()
        if len(e_row) == len(g_row) and _same(e_row, g_row):
            continue  # a row == finds equal (compared in C): no cell of it differs
        for j in range(max(len(e_row), len(g_row))):
            if j >= len(e_row) or j >= len(g_row) or not _same(e_row[j], g_row[j]):
                cells.add((i, j))
    return cells


PATTERN_LIMIT = 10_000
"""Values of more leaves than this (numbers, strings, items, counted at every depth) get no pattern sentence:
a picture of a value that size is not read, and looking costs."""


def _leaf_count(value: Any, limit: int, work: list[int]) -> int:
    """How many leaves a value has, counting stops past `limit` (each one counted is one step of `work`)."""
    count, stack = 0, [value]
    while stack and count <= limit:
        item = stack.pop()
        work[0] += 1
        if type(item) in (list, tuple):
            stack.extend(item)
        elif type(item) is dict:
            stack.extend(item.values())
        else:
            count += 1
    return count


def pattern(expected: Any, got: Any) -> Pattern | None:
    """One sentence saying what the differences have in common, or None when no pattern holds exactly."""
    found = find_pattern(expected, got)
    return sentence(found) if found is not None else None


def find_pattern(expected: Any, got: Any, work: list[int] | None = None, claims: tuple = (),
                 prefer: tuple[int, str] | None = None) -> Pattern | None:
    """The most specific pattern claim that holds exactly over the values and explains every one of `claims` (the
    differences the diff states, types included), or None.

    A shift explains a sequence before a reversal does (the same items one step ahead are also a rotation, and
    sometimes a reversal); the patterns that explain every value (an offset, a factor, one value, a transpose, a
    grid's diagonal, row or column) come before it, since a shift leaves the items shifted in unexplained. `prefer`, a shift (k, ``left`` or ``right``) that holds on other checks of the run, is tried first
    of all, on an overlap of one item or more: the one explanation said wherever it holds.

    `work`, if given, counts the leaves looked at to bound the search (at most about
    `PATTERN_LIMIT` for each value, whatever its size, and a few passes over them).
    """
    work = [0] if work is None else work
    if any(_leaf_count(v, PATTERN_LIMIT, work) > PATTERN_LIMIT for v in (expected, got)):
        return None
    if _same(expected, got) and type(expected) is type(got):
        return None
    try:
        pairs = _paired_numbers(expected, got)
    except (TypeError, ValueError, OverflowError, RecursionError):
        pairs = None
    if pairs is not None:
        work[0] += len(pairs)
    def preferred(e: Any, g: Any) -> Pattern | None:
        return _shifted(e, g, prefer) if prefer is not None else None

    numeric = (_one_value, _offset, _factor)
    finders = (preferred, _swapped, *numeric, _offset_common, _transposed, _grid_cells, _shifted, _reversed, _sequence_ends)
    for find in finders:
        try:
            found = find(expected, got, pairs) if find in numeric else find(expected, got)
        except (TypeError, ValueError, OverflowError, ZeroDivisionError, RecursionError):
            found = None
        if found and verify(found, expected, got) and all(explains(found, c) for c in claims):
            return found
    return None


def run_shift(pairs) -> tuple[int, str] | None:
    """The shift (k, ``left`` or ``right``) found on at least two of these (expected, got) pairs of a run's failing
    checks, when no other shift is found on any of them: what `find_pattern`'s `prefer` takes for each check."""
    shifts = []
    for expected, got in pairs:
        found = find_pattern(expected, got)
        if found is not None and found.kind == "shifted":
            shifts.append(found.params[:2])
    return shifts[0] if len(shifts) >= 2 and len(set(shifts)) == 1 else None


def _transposed(expected: Any, got: Any) -> Pattern | None:
    """Got is expected's transpose (rows for columns), and expected is not its own transpose."""
    if not (is_grid(expected) and is_grid(got)) or len(got) != len(expected[0]) or len(got[0]) != len(expected):
        return None
    flipped = [list(column) for column in zip(*expected)]
    if len(expected) * len(expected[0]) < 2 or _same(flipped, [list(row) for row in expected]):
        return None
    if _same([list(row) for row in got], flipped):
        return Pattern("transposed", (len(expected), len(expected[0])))
    return None


def sentence(found: Pattern) -> str:
    """A pattern claim in one sentence."""
    kind, p = found.kind, found.params
    if kind == "swapped":
        return f"The values of {p[0]!r} and {p[1]!r} are swapped; every other key is right."
    if kind == "swapped_at_every_label":
        return f"At every label, the values of {p[0]!r} and {p[1]!r} are swapped; everything else is right."
    if kind == "reversed":
        return "got is expected reversed: the same items in the opposite order."
    if kind == "transposed":
        return f"got is expected transposed: got's rows are expected's columns ({p[0]}×{p[1]} against {p[1]}×{p[0]})."
    if kind == "shifted":
        return shift_sentence(found)
    if kind == "first":
        k = p[0]
        return "Only the first position differs." if k == 1 else f"Only the first {k} positions differ (0 to {k - 1}); the rest are right."
    if kind == "last":
        k, n = p
        return "Only the last position differs." if k == 1 else f"Only the last {k} positions differ ({n - k} to {n - 1}); the rest are right."
    if kind == "diagonal":
        return f"The differing cells are exactly the diagonal (row i, column i, all {p[0]} of them); every other cell is right."
    if kind == "on_diagonal":
        return f"All {p[0]} differing cells are on the diagonal (row i, column i); every other cell is right."
    if kind in ("row", "column"):
        where, count, size = p
        if count == size:
            return f"Only {kind} {where} differs (counting from 0), in every one of its {size} cells."
        return f"All {count} differing cells are in {kind} {where} (counting from 0)."
    if kind == "one_value":
        value, expected_value, n = p
        where = f" where {_number(expected_value)} is expected" if expected_value is not None else ""
        return f"Every value is {_number(value)}{where}, in all {n} values."
    if kind == "offset":
        shift, n = p
        return f"Every value is off by the same amount: got = expected {'+' if shift > 0 else '-'} {_number(abs(shift))}, in all {n} values."
    if kind == "offset_common":
        shift, n, e_len, g_len = p
        sign = "+" if shift > 0 else "-"
        both = "In the one item both have" if min(e_len, g_len) == 1 else f"In the {min(e_len, g_len):,} items both have"
        return (f"{both}, every value is off by the same amount: got = expected {sign} "
                f"{_number(abs(shift))}; expected has {e_len:,} items, got {g_len:,}.")
    if kind == "factor":
        return f"Every value is off by the same factor: got = expected × {_number(p[0])}, in all {p[1]} values."
    if kind == "factor_rounded":
        return (f"Every value is off by the same factor, to the {p[1]} decimal places the values are given to: "
                f"got = expected × {_number(p[0])}, in all {p[2]} values.")
    raise ValueError(f"no sentence for the pattern {kind!r}")


def verify(found: Pattern, expected: Any, got: Any) -> bool:
    """Whether a pattern claim holds exactly of the two values, decided on them (types included)."""
    kind, p = found.kind, found.params
    try:
        if kind == "shifted":
            return verify_shift(found, expected, got, _same)
        if kind == "reversed":
            return type(expected) is type(got) and _same(list(got), list(expected)[::-1]) and not _same(list(got), list(expected))
        if kind == "transposed":
            return _same([list(r) for r in got], [list(c) for c in zip(*expected)]) and all(type(r) is type(expected[0]) for r in got) and type(got) is type(expected)
        if kind == "offset_common":
            return found == _offset_common(expected, got)
        if kind in ("offset", "factor", "factor_rounded", "one_value"):
            pairs = _paired_numbers(expected, got)
            if pairs is None or len(pairs) != p[-1] or not _same_container_types(expected, got):
                return False
            if kind == "offset":
                return all(_close(y - x, p[0]) for x, y in pairs) and not _close(p[0], 0)
            if kind == "factor":
                return all(_close(y, x * p[0]) for x, y in pairs)
            if kind == "factor_rounded":
                return decimals(v for pair in pairs for v in pair) == p[1] and fits_factor(pairs, p[0], p[1])
            return all(y == p[0] for _, y in pairs)
        if kind in ("diagonal", "on_diagonal", "row", "column"):
            if not _same_container_types(expected, got):
                return False
            cells = differing_cells(expected, got)
            if kind == "diagonal":
                return cells == {(i, i) for i in range(p[0])}
            if kind == "on_diagonal":
                return len(cells) == p[0] and all(i == j for i, j in cells)
            axis = 0 if kind == "row" else 1
            return len(cells) == p[1] and all(cell[axis] == p[0] for cell in cells)
        if kind in ("first", "last"):
            differing = [i for i, (e, g) in enumerate(zip(expected, got)) if not _same(e, g)]
            n = len(expected)
            want = list(range(p[0])) if kind == "first" else list(range(n - p[0], n))
            return type(expected) is type(got) and len(got) == n and differing == want
        if kind in ("swapped", "swapped_at_every_label"):
            return found == (_swapped_pair(expected, got) if kind == "swapped" else _swapped_at_every_label(expected, got))
    except (TypeError, ValueError, IndexError, OverflowError, ZeroDivisionError, RecursionError):
        return False
    return False


def _same_container_types(expected: Any, got: Any, depth: int = 0) -> bool:
    """The same containers at every place: a pattern of numbers says nothing of a tuple where a list is expected."""
    if type(expected) is not type(got) and (type(expected) in (list, tuple, dict) or type(got) in (list, tuple, dict)):
        return False
    if type(expected) in (list, tuple) and depth < 50:
        return len(expected) == len(got) and all(_same_container_types(e, g, depth + 1) for e, g in zip(expected, got))
    if type(expected) is dict and depth < 50:
        return expected.keys() == got.keys() and all(_same_container_types(expected[k], got[k], depth + 1) for k in expected)
    return True


# ---------------------------------------------------------------- dicts


def _swap_pair(expected: dict, got: dict) -> tuple[Any, Any] | None:
    """The one pair of keys whose values are exchanged (and differ), all other keys equal; None if not exactly that."""
    if type(expected) is not dict or type(got) is not dict or expected.keys() != got.keys():
        return None
    differing = [k for k in expected if not _same(expected[k], got[k])]
    if len(differing) != 2:
        return None
    a, b = differing
    if _same(got[a], expected[b]) and _same(got[b], expected[a]):
        return a, b
    return None


def _swapped(expected: Any, got: Any) -> Pattern | None:
    # Two keys swapped inside every label first: with two labels of two keys ({'cat': {'p', 'r'}, 'dog': ...}),
    # p and r exchanged at both labels can also read as 'cat' and 'dog' exchanged, and the keys inside are the
    # mistake (precision and recall swapped at every label).
    return _swapped_at_every_label(expected, got) or _swapped_pair(expected, got)


def _swapped_pair(expected: Any, got: Any) -> Pattern | None:
    pair = _swap_pair(expected, got)
    if pair is not None:
        return Pattern("swapped", pair)
    return None


def _swapped_at_every_label(expected: Any, got: Any) -> Pattern | None:
    if type(expected) is not dict or type(got) is not dict or expected.keys() != got.keys() or len(expected) < 2:
        return None
    if not all(type(v) is dict for v in (*expected.values(), *got.values())):
        return None
    pairs = {_swap_pair(expected[label], got[label]) for label in expected if not _same(expected[label], got[label])}
    if len(pairs) != 1 or None in pairs:
        return None
    a, b = pairs.pop()
    for label in expected:  # where the two values are equal, swapping them changes nothing: still "swapped"
        e, g = expected[label], got[label]
        if e.keys() != g.keys() or a not in e or b not in e:
            return None
        if not (_same(g[a], e[b]) and _same(g[b], e[a]) and all(_same(g[k], e[k]) for k in e if k not in (a, b))):
            return None
    return Pattern("swapped_at_every_label", (a, b))


# ------------------------------------------------------------ sequences


def _plain_sequence(value: Any) -> bool:
    return type(value) in (list, tuple, str)


def _reversed(expected: Any, got: Any) -> Pattern | None:
    if not (_plain_sequence(expected) and type(got) is type(expected)) or len(expected) < 2 or len(got) != len(expected):
        return None
    if _same(list(got), list(expected)):
        return None
    differing = sum(1 for x, y in zip(expected, got) if not _same([x], [y]))
    if differing >= 3 and _same(list(got), list(expected)[::-1]):  # two positions exchanged are no more than a swap
        return Pattern("reversed")
    return None


def _shifted(expected: Any, got: Any, prefer: tuple[int, str] | None = None) -> Pattern | None:
    if not (_plain_sequence(expected) and _plain_sequence(got)) or type(expected) is str or type(got) is str:
        return None
    return find_shift(expected, got, _same, prefer)


def _sequence_ends(expected: Any, got: Any) -> Pattern | None:
    if not (is_number_sequence(expected) and is_number_sequence(got)) or len(expected) != len(got) or len(expected) < 3:
        return None
    differing = [i for i, (e, g) in enumerate(zip(expected, got)) if not _same(e, g)]
    n, k = len(expected), len(differing)
    if not differing or k >= n:
        return None
    if differing == list(range(k)):
        return Pattern("first", (k,))
    if differing == list(range(n - k, n)):
        return Pattern("last", (k, n))
    return None


# ---------------------------------------------------------------- grids


def _grid_cells(expected: Any, got: Any) -> Pattern | None:
    if not (is_grid(expected) and is_grid(got)) or len(expected) != len(got) or len(expected[0]) != len(got[0]):
        return None
    cells = differing_cells(expected, got)
    rows, columns = len(expected), len(expected[0])
    if len(cells) < 2:
        return None  # one cell: the diff names it already
    diagonal = {(i, i) for i in range(min(rows, columns))}
    if cells == diagonal:
        return Pattern("diagonal", (len(diagonal),))
    if cells < diagonal:
        return Pattern("on_diagonal", (len(cells),))
    if len({i for i, _ in cells}) == 1 and rows > 1:  # in a grid of one row, "only row 0" says nothing
        row = next(iter(cells))[0]
        return Pattern("row", (row, len(cells), columns))
    if len({j for _, j in cells}) == 1 and columns > 1:
        column = next(iter(cells))[1]
        return Pattern("column", (column, len(cells), rows))
    return None


# -------------------------------------------------------------- numbers


def _leaves(value: Any, out: list, path: tuple = ()) -> list | None:
    """The numbers of a nested value with their places, or None if it holds anything but numbers and containers."""
    if type(value) in _NUMBER:
        out.append((path, value))
    elif type(value) in (list, tuple):
        for i, item in enumerate(value):
            if _leaves(item, out, (*path, (type(value), len(value), i))) is None:
                return None
    elif type(value) is dict:
        for key in value:
            if _leaves(value[key], out, (*path, (dict, tuple(value), key))) is None:
                return None
    else:
        return None
    return out


def _flat_pairs(expected: Any, got: Any) -> list[tuple[Any, Any]] | None:
    """The pairs of two sequences of ints and floats of one type and length, or of two such grids, without building
    a path for every leaf; None for any other shape (then `_leaves` decides)."""
    if type(expected) is not type(got) or type(expected) not in (list, tuple) or len(expected) != len(got):
        return None
    numbers = {int, float}
    if set(map(type, expected)) <= numbers and set(map(type, got)) <= numbers:
        return list(zip(expected, got))
    pairs: list[tuple[Any, Any]] = []
    for e_row, g_row in zip(expected, got):
        if type(e_row) is not type(g_row) or type(e_row) not in (list, tuple) or len(e_row) != len(g_row):
            return None
        if not (set(map(type, e_row)) <= numbers and set(map(type, g_row)) <= numbers):
            return None
        pairs += zip(e_row, g_row)
    return pairs


def _paired_numbers(expected: Any, got: Any) -> list[tuple[float, float]] | None:
    """(expected, got) for every number, when both values have exactly the same shape; else None."""
    flat = _flat_pairs(expected, got)
    if flat is not None:
        return flat if len(flat) >= 2 and all(map(math.isfinite, (x for pair in flat for x in pair))) else None
    e, g = _leaves(expected, []), _leaves(got, [])
    if e is None or g is None or len(e) < 2 or [p for p, _ in e] != [p for p, _ in g]:
        return None
    if not all(math.isfinite(x) for _, x in (*e, *g)):
        return None
    return [(x, y) for (_, x), (_, y) in zip(e, g)]


def _close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


def _number(x: float) -> str:
    return repr(int(x)) if float(x).is_integer() and abs(x) < 1e15 else f"{x:.6g}"


def _one_value(expected: Any, got: Any, pairs: list | None) -> Pattern | None:
    """Every number got is the same one (and expected's are not all it). Said before "off by the same amount":
    when both sides are constant an offset holds too, but "subtract 0.5" where every value is 1.0 hides the
    mistake (a softmax divided by its own sum over the wrong axis gives all ones)."""
    if pairs is None:
        return None
    value = pairs[0][1]
    if not all(y == value for _, y in pairs) or sum(x != value for x, _ in pairs) < 2:
        return None  # one differing value: the diff names it
    expected_values = {x for x, _ in pairs}
    return Pattern("one_value", (value, next(iter(expected_values)) if len(expected_values) == 1 else None, len(pairs)))


def _offset(expected: Any, got: Any, pairs: list | None) -> Pattern | None:
    if pairs is None:
        return None
    shift = pairs[0][1] - pairs[0][0]
    if _close(shift, 0) or not all(_close(y - x, shift) for x, y in pairs):
        return None
    return Pattern("offset", (shift, len(pairs)))


def _offset_common(expected: Any, got: Any) -> Pattern | None:
    """Sequences of different lengths whose common items (the first min(len) of each) are all off by one amount."""
    if type(expected) not in (list, tuple) or type(got) is not type(expected) or len(expected) == len(got):
        return None
    common = min(len(expected), len(got))
    short, long = (list(expected), list(got)) if len(expected) < len(got) else (list(got), list(expected))
    if any(_same(long[s:s + common], short) for s in range(len(long) - common + 1)):
        return None  # the shorter is a run of the longer: items missing or extra, which the diff names, not an offset
    head_e, head_g = expected[:common], got[:common]
    if not _same_container_types(head_e, head_g):
        return None
    found = _offset(head_e, head_g, _paired_numbers(head_e, head_g))
    return Pattern("offset_common", (found.params[0], found.params[1], len(expected), len(got))) if found else None


def _factor(expected: Any, got: Any, pairs: list | None) -> Pattern | None:
    if pairs is None:
        return None
    nonzero = [(x, y) for x, y in pairs if x != 0]
    if len(nonzero) < 2 or any(y != 0 for x, y in pairs if x == 0):
        return None
    factor = nonzero[0][1] / nonzero[0][0]
    if _close(factor, 1) or _close(factor, 0) or not all(_close(y / x, factor) for x, y in nonzero):
        places = decimals(v for pair in pairs for v in pair)  # values rounded by the record: exact ratios are lost
        factor = rounded_factor(pairs, places) if places else None
        if factor is None or _close(factor, 1) or _close(factor, 0):
            return None
        return Pattern("factor_rounded", (factor, places, len(pairs)))
    return Pattern("factor", (factor, len(pairs)))
