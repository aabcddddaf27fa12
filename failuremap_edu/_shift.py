"""Whether got is expected shifted by k positions (got[i] == expected[i + k] over the overlap): find it, verify it, say it.

Pure functions on two sequences of one type and length, decided by the `same`
function the caller passes (``==`` as the harness applies it). A shift holds whatever
the k items shifted in are: new values, or the items shifted out (a rotation, which
is also "the same items in another order", and a shift says more). The smallest k
that holds is the one named; a shift is named only when the overlap outnumbers the
items shifted in, or, given a `preferred` shift (one that holds on other checks of
the run), whenever that shift holds on an overlap of at least one item.
"""

from __future__ import annotations

from typing import Any, Callable

from ._claims import Pattern
from ._values import safe_repr

__all__ = ["find_shift", "shift_of", "shift_sentence", "verify_shift"]

Same = Callable[[Any, Any], bool]


def _constant(items: list, same: Same) -> bool:
    return all(same(x, items[0]) for x in items)


def shift_of(expected: Any, got: Any, same: Same, preferred: tuple[int, str] | None = None) -> tuple[int, str] | None:
    """(k, ``left`` or ``right``) of the smallest shift that makes got from expected, or None.

    Left by k: got[:-k] equals expected[k:] (got is k steps ahead). Right by k: got[k:] equals expected[:-k].
    Not said when expected is constant, when k or fewer positions differ (the first or last k positions say
    it), or when the overlap is constant; `preferred` relaxes the overlap to one item for that shift only.
    """
    if type(expected) not in (list, tuple) or type(got) is not type(expected):
        return None
    e, g = list(expected), list(got)
    n = len(e)
    if len(g) != n or n < 2 or _constant(e, same):
        return None
    differing = sum(1 for x, y in zip(e, g) if not same([x], [y]))
    candidates = [(k, way) for k in range(1, (n + 1) // 2) for way in ("left", "right")]
    if preferred is not None and 0 < preferred[0] < n:
        candidates.insert(0, preferred)
    for k, way in candidates:
        relaxed = (k, way) == preferred
        if differing <= k or (n - k <= k and not relaxed):
            continue
        overlap_e = e[:-k] if way == "right" else e[k:]
        overlap_g = g[k:] if way == "right" else g[:-k]
        if (len(overlap_e) > 1 or not relaxed) and _constant(overlap_e, same):
            continue
        if same(overlap_g, overlap_e):
            return k, way
    return None


def _grid(value: Any) -> bool:
    from ._patterns import is_grid

    return is_grid(value)


def find_shift(expected: Any, got: Any, same: Same, preferred: tuple[int, str] | None = None) -> Pattern | None:
    """The shift claim for two sequences (not strings), with the items shifted in, or None."""
    found = shift_of(expected, got, same, preferred)
    if found is None:
        return None
    k, way = found
    g = list(got)
    shifted_in = tuple(g[:k] if way == "right" else g[-k:])
    return Pattern("shifted", (k, way, _grid(expected) and _grid(got), shifted_in))


def verify_shift(found: Pattern, expected: Any, got: Any, same: Same) -> bool:
    """Whether a shift claim holds exactly: the overlap, the items shifted in, the types and lengths."""
    k, way, _, shifted_in = found.params
    if type(expected) not in (list, tuple) or type(expected) is not type(got) or not 0 < k < len(expected):
        return False
    e, g = list(expected), list(got)
    if len(e) != len(g) or same(e, g):
        return False
    overlap = same(g[k:], e[:-k]) if way == "right" else same(g[:-k], e[k:])
    edge = g[:k] if way == "right" else g[-k:]
    return way in ("left", "right") and overlap and same(edge, list(shifted_in))


def _n(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def shift_sentence(found: Pattern) -> str:
    """A shift claim in one sentence: which way, by how much, what equals what, and the items shifted in."""
    k, way, rows, shifted_in = found.params
    unit, what = ("row", "got's rows are expected's rows shifted " + ("down" if way == "right" else "up")) if rows else (
        "position", f"got is expected shifted {way}")
    pace = f"{_n(k, 'step')} {'behind' if way == 'right' else 'ahead'}"
    rule = (f"got[i] equals expected[i - {k}] (got[{k}:] equals expected[:-{k}])" if way == "right"
            else f"got[i] equals expected[i + {k}] (got[:-{k}] equals expected[{k}:])")
    end = "first" if way == "right" else "last"
    shown = safe_repr(shifted_in[0], 80) if k == 1 else safe_repr(list(shifted_in), 160)
    item = "row" if rows else "item"
    edge = f"got's {end} {item} is {shown}" if k == 1 else f"got's {end} {k} {item}s are {shown}"
    return f"{what} by {_n(k, unit)}, {pace}: {rule}; {edge}."
