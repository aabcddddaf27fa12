"""Big values diff and render fast (issue 37): a 300×300 grid with one differing cell and lists of 10^4 to 10^6
ints with one change, against a small value in the same run. Targets are ratios to the size of the value: the time
per item stays within 4× of the 10^4-item list's (linear, not quadratic), and a 300×300 grid renders in under
20 ms per 10^4 cells."""

from __future__ import annotations

import statistics
import sys
import time

from failuremap_edu import diff
from failuremap_edu._results import Observation
from failuremap_edu.render._text import render_observation

ROUNDS = 3


def _measure(fn) -> float:
    samples = []
    for _ in range(ROUNDS):
        started = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - started)
    return statistics.median(samples) * 1000


def main() -> int:
    grid = [[0] * 300 for _ in range(300)]
    changed = [row[:] for row in grid]
    changed[150][150] = 1
    cases = {"300×300 grid, one cell": (grid, changed, 90_000)}
    for n in (10_000, 100_000, 1_000_000):
        e = list(range(n))
        a = list(e)
        a[n // 2] = -1
        cases[f"{n:,} ints, one changed"] = (e, a, n)
    e = list(range(100_000))
    cases["100,000 ints, one deleted"] = (e, e[:50_000] + e[50_001:], 100_000)
    print(f"diff benchmarks ({ROUNDS} rounds, medians)")
    per_item, text_per_item = {}, {}
    ok = True
    for name, (e, a, size) in cases.items():
        o = Observation(index=0, check="big", status="fail", passed=False, expected=e, actual=a)
        diff_ms = _measure(lambda: diff(e, a))
        text_ms = _measure(lambda: render_observation(o))
        per_item[name] = diff_ms / size
        text_per_item[name] = text_ms / size
        print(f"  {name:28} diff {diff_ms:8.1f} ms   text {text_ms:8.1f} ms   {1e6 * diff_ms / size:6.2f} ns/item")
    base = per_item["10,000 ints, one changed"]
    for name in ("100,000 ints, one changed", "1,000,000 ints, one changed"):
        ratio = per_item[name] / base
        print(f"  {name}: {ratio:.2f}× the time per item of 10,000 (target < 4)")
        ok &= ratio < 4
    ratio = text_per_item["300×300 grid, one cell"] / text_per_item["100,000 ints, one changed"]
    print(f"  300×300 grid text: {ratio:.2f}× the time per item of 100,000 ints (target < 4)")
    ok &= ratio < 4
    print("  targets met" if ok else "  TARGET MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
