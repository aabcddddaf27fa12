"""Inside Pyodide under node (started by bench_pyodide.py through tests/pyodide/run.mjs).

Prints one JSON line: per packaged record, the median time of a run of its checks
with our reference solve; and the time to report a solve that loops on every check.
"""

from __future__ import annotations

import json
import os
import runpy
import statistics
import sys
import time

from pathlib import Path

import failuremap_edu as fm  # lazy: the runner is imported below, timed

MARK = "@@failuremap-bench@@ "


def main(rounds: int, limit: float) -> None:
    out = {"load_ms": float(os.environ.get("FAILUREMAP_PYODIDE_LOAD_MS", "nan")), "python": sys.version.split()[0], "records": {}}
    started = time.perf_counter()
    first = fm.run_checks(fm.load_record("FA-100786"), lambda text, stops: (text, ""))
    out["first_run_ms"] = (time.perf_counter() - started) * 1000  # imports the runner, reads the fixtures
    assert first.isolation == "inprocess", first.isolation
    for record_id in fm.list_records():
        record = fm.load_record(record_id)
        solve = runpy.run_path(str(Path(fm.__file__).parent.parent / "references" / f"{record_id}.py"))["solve"]
        fm.run_checks(record, solve)  # warm
        samples = []
        for _ in range(rounds):
            t = time.perf_counter()
            result = fm.run_checks(record, solve)
            samples.append(time.perf_counter() - t)
        out["records"][record_id] = {"median_ms": statistics.median(samples) * 1000, "summary": result.summary(), "isolation": result.isolation}

    def loop(*args, **kwargs):
        while True:
            pass

    record = fm.load_record("FA-100786")
    t = time.perf_counter()
    result = fm.run_checks(record, loop, timeout=limit)
    out["loop"] = {"seconds": time.perf_counter() - t, "summary": result.summary(), "limit": limit}
    print(MARK + json.dumps(out), flush=True)


if __name__ == "__main__":
    main(int(sys.argv[1]), float(sys.argv[2]))
