"""Live checks: re-running the solve cell 50 times must not slow down or grow memory.

Measures, in one run, the first and the last ten re-runs of `@exercise.check`
(with the panel built, as in a notebook) and the memory Python holds before and
after, with tracemalloc.
"""

from __future__ import annotations

import gc
import os
import statistics
import sys
import tempfile
import time
import tracemalloc


def main() -> int:
    os.environ.setdefault("FAILUREMAP_PROGRESS", os.path.join(tempfile.mkdtemp(), "progress.jsonl"))
    import failuremap_edu as fm
    from failuremap_edu._panel import panel_for
    from failuremap_edu.instructor._notebook import reference_path
    import runpy
    from pathlib import Path

    solve = runpy.run_path(str(reference_path("FA-100786", Path(__file__).resolve().parents[1] / "references")))["solve"]
    exercise = fm.Exercise("FA-100786")
    panel_for(exercise)
    import contextlib

    times = []
    with open(os.devnull, "w") as devnull, contextlib.redirect_stdout(devnull):  # outside IPython the panel prints
        exercise.check(solve)
        gc.collect()
        tracemalloc.start()
        before = tracemalloc.get_traced_memory()[0]
        for _ in range(50):
            started = time.perf_counter()
            exercise.check(solve)
            times.append(time.perf_counter() - started)
        gc.collect()
        after = tracemalloc.get_traced_memory()[0]
        tracemalloc.stop()
    first, last = statistics.median(times[:10]) * 1000, statistics.median(times[-10:]) * 1000
    growth_kb = (after - before) / 1024
    print("widget benchmarks (50 re-runs of the solve cell, panel built)")
    print(f"  first 10 re-runs {first:.2f} ms, last 10 {last:.2f} ms -> ratio {last / first:.2f}; memory growth {growth_kb:.0f} KiB")
    ok = last / first < 1.5 and growth_kb < 2_048
    print(f"  (target: no slowdown beyond 1.5x and under 2 MiB growth: {'met' if ok else 'NOT met'})")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
