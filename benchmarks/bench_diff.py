"""Big values diff and render fast (issue 37): grids and lists of ints with one change (and every item off by one),
each render paired with the diff of the same values (its floor), measured side by side in the same rounds.

Targets: every render (text and HTML) of a value up to the pattern budget (`_patterns.PATTERN_LIMIT` leaves) in
at most 0.2 s; past it, time growing linearly: the time per item of 10^5 and 10^6 items within 4x of 10^4's.
"""

from __future__ import annotations

import statistics
import sys
import time

from failuremap_edu import diff
from failuremap_edu._patterns import PATTERN_LIMIT
from failuremap_edu._results import Observation
from failuremap_edu.render._html import observation_html
from failuremap_edu.render._text import render_observation

ROUNDS = 3
RENDER_TARGET_S = 0.2
LINEAR_TARGET = 4.0
SIZES = (10_000, 100_000, 1_000_000)
GRIDS = (100, 300)


def cases(sizes=SIZES, grids=GRIDS) -> dict[str, tuple]:
    """name -> (expected, got, leaves)."""
    found = {}
    for side in grids:
        grid = [[0] * side for _ in range(side)]
        changed = [row[:] for row in grid]
        changed[side // 2][side // 2] = 1
        found[f"{side}x{side} grid, one cell"] = (grid, changed, side * side)
    for n in sizes:
        e = list(range(n))
        a = list(e)
        a[n // 2] = -1
        found[f"{n:,} ints, one changed"] = (e, a, n)
        found[f"{n:,} ints, all off by 1"] = (e, [x + 1 for x in e], n)
    return found


def measure(sizes=SIZES, grids=GRIDS, rounds: int = ROUNDS) -> dict[str, dict]:
    """Per case, medians of the diff, the text render and the HTML render, interleaved round by round."""
    rows = {}
    for name, (e, a, leaves) in cases(sizes, grids).items():
        o = Observation(index=0, check="big", status="fail", passed=False, expected=e, actual=a)
        samples: dict[str, list[float]] = {"diff": [], "text": [], "html": []}
        for _ in range(rounds):
            for side, fn in (("diff", lambda: diff(e, a)), ("text", lambda: render_observation(o)), ("html", lambda: observation_html(o))):
                started = time.perf_counter()
                fn()
                samples[side].append(time.perf_counter() - started)
        medians = {side: statistics.median(values) for side, values in samples.items()}
        ratios = {side: statistics.median(r / d for r, d in zip(samples[side], samples["diff"])) for side in ("text", "html")}
        rows[name] = {"leaves": leaves, **{f"{k}_s": v for k, v in medians.items()}, **{f"{k}_ratio": v for k, v in ratios.items()}}
    return rows


def verdicts(rows: dict[str, dict]) -> tuple[list[str], bool]:
    """The targets' lines and whether all are met."""
    lines, ok = [], True
    slow = [n for n, r in rows.items() if r["leaves"] <= PATTERN_LIMIT and max(r["text_s"], r["html_s"]) > RENDER_TARGET_S]
    ok &= not slow
    lines.append(f"  renders up to {PATTERN_LIMIT:,} leaves within {RENDER_TARGET_S * 1000:.0f} ms: "
                 + ("met" if not slow else f"NOT met ({', '.join(slow)})"))
    for kind in ("one changed", "all off by 1"):
        base = min((r for n, r in rows.items() if n.endswith(kind)), key=lambda r: r["leaves"], default=None)
        for name, r in rows.items():
            if base is None or not name.endswith(kind) or r is base:
                continue
            worst = max(r[f"{s}_s"] / r["leaves"] / (base[f"{s}_s"] / base["leaves"]) for s in ("text", "html"))
            ok &= worst < LINEAR_TARGET
            lines.append(f"  {name}: {worst:.2f}x the time per item of {base['leaves']:,} (target < {LINEAR_TARGET:g}: "
                         f"{'met' if worst < LINEAR_TARGET else 'NOT met'})")
    return lines, ok


def main() -> int:
    rows = measure()
    print(f"diff benchmarks (renders paired with the diff of the same values, {ROUNDS} rounds, medians)")
    for name, r in rows.items():
        print(f"  {name:28} diff {r['diff_s'] * 1000:8.1f} ms   text {r['text_s'] * 1000:8.1f} ms ({r['text_ratio']:4.1f}x the diff)"
              f"   HTML {r['html_s'] * 1000:8.1f} ms ({r['html_ratio']:4.1f}x)")
    lines, ok = verdicts(rows)
    print("\n".join(lines))
    print("  targets met" if ok else "  TARGET MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
