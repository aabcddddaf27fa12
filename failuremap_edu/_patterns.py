"""What the differences between two values have in common, in one sentence, only when it is exactly true.

Pure functions on the two values (expected, got), decided on values, never on
reprs. Each pattern is checked exactly; when none holds, there is no sentence:
a sentence that is nearly true sends a learner the wrong way. The patterns are
those learners looked for by hand:

- the differing cells of a grid are exactly its diagonal, or all lie in one row
  or one column;
- the differing positions of a sequence are exactly its first or last k;
- got is expected shifted by k positions, or reversed;
- two keys' values are swapped (in a dict, or at every label of a dict of dicts);
- every number is off by the same amount, or by the same factor.
"""

from __future__ import annotations

import math
from typing import Any

__all__ = ["differing_cells", "is_grid", "is_number_sequence", "pattern"]

_NUMBER = (int, float)


def _same(a: Any, b: Any) -> bool:
    """The harness's equality, guarded: a value whose ``==`` raises counts as different."""
    try:
        return bool(a == b)
    except BaseException:  # noqa: BLE001
        return False


def _is_number(value: Any) -> bool:
    return type(value) in _NUMBER or type(value) is bool


def is_grid(value: Any) -> bool:
    """A list (or tuple) of at least one row, the rows lists or tuples of one length (at least 1) of numbers or booleans."""
    if type(value) not in (list, tuple) or not value:
        return False
    if any(type(row) not in (list, tuple) for row in value):
        return False
    width = len(value[0])
    return width > 0 and all(len(row) == width and all(_is_number(cell) for cell in row) for row in value)


def is_number_sequence(value: Any) -> bool:
    """A list (or tuple) of numbers or booleans (at least one)."""
    return type(value) in (list, tuple) and len(value) > 0 and all(_is_number(x) for x in value)


def differing_cells(expected: Any, got: Any) -> set[tuple[int, int]]:
    """(row, column) of every cell where two grids differ; a cell only one grid has differs too."""
    cells = set()
    for i in range(max(len(expected), len(got))):
        e_row = expected[i] if i < len(expected) else ()
        g_row = got[i] if i < len(got) else ()
        for j in range(max(len(e_row), len(g_row))):
            if j >= len(e_row) or j >= len(g_row) or not _same(e_row[j], g_row[j]):
                cells.add((i, j))
    return cells


PATTERN_LIMIT = 10_000
"""Values longer than this get no pattern sentence: a picture of a value that size is not read, and looking costs."""


def pattern(expected: Any, got: Any) -> str | None:
    """One sentence saying what the differences have in common, or None when no pattern holds exactly."""
    if any(hasattr(v, "__len__") and len(v) > PATTERN_LIMIT for v in (expected, got)):
        return None
    if _same(expected, got) and type(expected) is type(got):
        return None
    for find in (_swapped, _reversed, _grid_cells, _one_value, _offset, _factor, _shifted, _sequence_ends):
        try:
            sentence = find(expected, got)
        except (TypeError, ValueError, OverflowError, ZeroDivisionError, RecursionError):
            sentence = None
        if sentence:
            return sentence
    return None


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


def _swapped(expected: Any, got: Any) -> str | None:
    # Two keys swapped inside every label first: with two labels of two keys ({'cat': {'p', 'r'}, 'dog': ...}),
    # p and r exchanged at both labels can also read as 'cat' and 'dog' exchanged, and the keys inside are the
    # mistake (a learner trial's record: precision and recall swapped).
    return _swapped_at_every_label(expected, got) or _swapped_pair(expected, got)


def _swapped_pair(expected: Any, got: Any) -> str | None:
    pair = _swap_pair(expected, got)
    if pair is not None:
        return f"The values of {pair[0]!r} and {pair[1]!r} are swapped; every other key is right."
    return None


def _swapped_at_every_label(expected: Any, got: Any) -> str | None:
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
    return f"At every label, the values of {a!r} and {b!r} are swapped; everything else is right."


# ------------------------------------------------------------ sequences


def _plain_sequence(value: Any) -> bool:
    return type(value) in (list, tuple, str)


def _reversed(expected: Any, got: Any) -> str | None:
    if not (_plain_sequence(expected) and type(got) is type(expected)) or len(expected) < 2 or len(got) != len(expected):
        return None
    if _same(list(got), list(expected)):
        return None
    if _same(list(got), list(expected)[::-1]):
        return "got is expected reversed: the same items in the opposite order."
    return None


def _constant(items: list) -> bool:
    return all(_same(x, items[0]) for x in items)


def _shifted(expected: Any, got: Any) -> str | None:
    if not (_plain_sequence(expected) and _plain_sequence(got)) or type(expected) is str or type(got) is str:
        return None
    e, g = list(expected), list(got)
    n = len(e)
    if n < 3 or len(g) != n or _constant(e):
        return None
    rows = is_grid(expected) and is_grid(got)
    differing = sum(1 for x, y in zip(e, g) if not _same([x], [y]))
    # The overlap outnumbers the items shifted out: 2 of 4 matching after a shift of 2 named a shift that the record
    # did not make (a learner trial's [-100, 5, 6, 7] against [6, 7, 8, -100]).
    for k in range(1, (n + 1) // 2):
        if differing <= k:
            break  # k cells or fewer differ: a shift would say more than is there (a window one too wide is not shifted)
        s = "s" if k > 1 else ""
        if _same(g[k:], e[:-k]) and not _constant(e[:-k]):
            what = f"got's rows are expected's rows shifted down by {k} row{s}" if rows else f"got is expected shifted right by {k} position{s}"
            return f"{what}: got[{k}:] equals expected[:-{k}]."
        if _same(g[:-k], e[k:]) and not _constant(e[k:]):
            what = f"got's rows are expected's rows shifted up by {k} row{s}" if rows else f"got is expected shifted left by {k} position{s}"
            return f"{what}: got[:-{k}] equals expected[{k}:]."
    return None


def _sequence_ends(expected: Any, got: Any) -> str | None:
    if not (is_number_sequence(expected) and is_number_sequence(got)) or len(expected) != len(got) or len(expected) < 3:
        return None
    differing = [i for i, (e, g) in enumerate(zip(expected, got)) if not _same(e, g)]
    n, k = len(expected), len(differing)
    if not differing or k >= n:
        return None
    if differing == list(range(k)):
        return "Only the first position differs." if k == 1 else f"Only the first {k} positions differ (0 to {k - 1}); the rest are right."
    if differing == list(range(n - k, n)):
        return "Only the last position differs." if k == 1 else f"Only the last {k} positions differ ({n - k} to {n - 1}); the rest are right."
    return None


# ---------------------------------------------------------------- grids


def _grid_cells(expected: Any, got: Any) -> str | None:
    if not (is_grid(expected) and is_grid(got)) or len(expected) != len(got) or len(expected[0]) != len(got[0]):
        return None
    cells = differing_cells(expected, got)
    rows, columns = len(expected), len(expected[0])
    if len(cells) < 2:
        return None  # one cell: the diff names it already
    diagonal = {(i, i) for i in range(min(rows, columns))}
    if cells == diagonal:
        return f"The differing cells are exactly the diagonal (row i, column i, all {len(diagonal)} of them); every other cell is right."
    if cells < diagonal:
        return f"All {len(cells)} differing cells are on the diagonal (row i, column i); every other cell is right."
    if len({i for i, _ in cells}) == 1 and rows > 1:  # in a grid of one row, "only row 0" says nothing (a trial's softmax)
        row = next(iter(cells))[0]
        if len(cells) == columns:
            return f"Only row {row} differs (counting from 0), in every one of its {columns} cells."
        return f"All {len(cells)} differing cells are in row {row} (counting from 0)."
    if len({j for _, j in cells}) == 1 and columns > 1:
        column = next(iter(cells))[1]
        if len(cells) == rows:
            return f"Only column {column} differs (counting from 0), in every one of its {rows} cells."
        return f"All {len(cells)} differing cells are in column {column} (counting from 0)."
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


def _paired_numbers(expected: Any, got: Any) -> list[tuple[float, float]] | None:
    """(expected, got) for every number, when both values have exactly the same shape; else None."""
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


def _one_value(expected: Any, got: Any) -> str | None:
    """Every number got is the same one (and expected's are not all it). Said before "off by the same amount":
    when both sides are constant an offset holds too, but it read as "subtract 0.5" where every value was 1.0,
    a softmax divided by its own sum over the wrong axis (a learner trial)."""
    pairs = _paired_numbers(expected, got)
    if pairs is None:
        return None
    value = pairs[0][1]
    if not all(y == value for _, y in pairs) or sum(x != value for x, _ in pairs) < 2:
        return None  # one differing value: the diff names it
    expected_values = {x for x, _ in pairs}
    where = f" where {_number(next(iter(expected_values)))} is expected" if len(expected_values) == 1 else ""
    return f"Every value is {_number(value)}{where}, in all {len(pairs)} values."


def _offset(expected: Any, got: Any) -> str | None:
    pairs = _paired_numbers(expected, got)
    if pairs is None:
        return None
    shift = pairs[0][1] - pairs[0][0]
    if _close(shift, 0) or not all(_close(y - x, shift) for x, y in pairs):
        return None
    sign = "+" if shift > 0 else "-"
    return f"Every value is off by the same amount: got = expected {sign} {_number(abs(shift))}, in all {len(pairs)} values."


def _factor(expected: Any, got: Any) -> str | None:
    pairs = _paired_numbers(expected, got)
    if pairs is None:
        return None
    nonzero = [(x, y) for x, y in pairs if x != 0]
    if len(nonzero) < 2 or any(y != 0 for x, y in pairs if x == 0):
        return None
    factor = nonzero[0][1] / nonzero[0][0]
    if _close(factor, 1) or _close(factor, 0) or not all(_close(y / x, factor) for x, y in nonzero):
        return None
    return f"Every value is off by the same factor: got = expected × {_number(factor)}, in all {len(pairs)} values."
