"""Numbers given to a few decimal places (as a record's helper rounds them): how many, and a factor that holds within that rounding."""

from __future__ import annotations

import math
from typing import Iterable

__all__ = ["MAX_DECIMALS", "decimals", "fits_factor", "rounded_factor"]

MAX_DECIMALS = 8
"""Values given to more decimal places than this are taken as exact: their rounding says nothing."""


def decimals(numbers: Iterable[float]) -> int | None:
    """The most decimal places in these numbers' shortest reprs (an int has none), when none has more than
    `MAX_DECIMALS`; None for a float in exponent form, NaN or an infinity."""
    most = 0
    for x in numbers:
        if type(x) is not float:
            continue
        text = repr(x)
        if not math.isfinite(x) or "e" in text:
            return None
        most = max(most, len(text.partition(".")[2].rstrip("0")))
        if most > MAX_DECIMALS:
            return None
    return most


def fits_factor(pairs: list[tuple[float, float]], factor: float, places: int) -> bool:
    """Whether every got is expected × `factor`, both sides rounded to `places` decimal places (half a unit each)."""
    grain = 0.5 * 10.0 ** -places
    return all(abs(y - factor * x) <= grain * (1 + abs(factor)) * (1 + 1e-9) for x, y in pairs)


def rounded_factor(pairs: list[tuple[float, float]], places: int) -> float | None:
    """The factor with the fewest significant digits that `fits_factor` at `places` decimal places; None where none does,
    or where fewer than two expected values are large enough beside the rounding for a factor to mean anything."""
    grain = 0.5 * 10.0 ** -places
    telling = [(x, y) for x, y in pairs if abs(x) >= 100 * grain]
    if len(telling) < 2:
        return None
    x0, y0 = max(telling, key=lambda pair: abs(pair[0]))
    for digits in range(1, 8):
        factor = float(f"{y0 / x0:.{digits}g}")
        if fits_factor(pairs, factor, places):
            return factor
    return None
