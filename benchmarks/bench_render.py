"""Rendering budgets: huge values render fast and small (target: a 5 MB actual in well
under 100 ms and under 20 KB of HTML), measured beside a small value in one run."""

from __future__ import annotations

import statistics
import sys
import time

from failuremap_edu.render._html import observation_html
from failuremap_edu.render._text import render_observation
from failuremap_edu._results import Observation

ROUNDS = 15


def _obs(expected, actual) -> Observation:
    return Observation(index=0, check="huge", status="fail", passed=False, expected=expected, actual=actual)


def _measure(fn) -> float:
    samples = []
    for _ in range(ROUNDS):
        started = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - started)
    return statistics.median(samples) * 1000


def main() -> int:
    big = "x" * 5_000_000
    deep_e = deep_a = 0
    for _ in range(300):
        deep_e, deep_a = [deep_e], [deep_a]
    cases = {
        "small tuple": _obs(("hello", "<st"), ("hel", "lo<st")),
        "5 MB string": _obs(big + "a", big + "b"),
        "100,000-item list": _obs(list(range(100_000)), list(range(50_000)) + [-1] + list(range(50_001, 100_000))),
        "300-deep nesting": _obs(deep_e, [deep_a, 1]),
    }
    ok = True
    print(f"render benchmarks ({ROUNDS} rounds, medians)")
    small_ms = None
    for name, o in cases.items():
        html_ms = _measure(lambda o=o: observation_html(o))
        text_ms = _measure(lambda o=o: render_observation(o))
        size = len(observation_html(o).encode())
        small_ms = small_ms or html_ms
        met = html_ms < 100 and size < 20_000
        ok &= met if name == "5 MB string" else True
        print(
            f"  {name:18s} HTML {html_ms:7.2f} ms ({html_ms / small_ms:6.1f}x the small case), {size:6,} bytes;"
            f" text {text_ms:7.2f} ms" + (f"  (target < 100 ms and < 20 KB: {'met' if met else 'NOT met'})" if name == "5 MB string" else "")
        )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
