"""Pyodide under node (what a JupyterLite kernel runs) next to fork mode, in one run.

1. A run of the 6 checks of each packaged record, with our reference solve: the
   median over ROUNDS runs inside Pyodide (in-process, the only mode it has) and
   here with ``fork`` isolation (warm worker), at a learner's pace.
2. The time to report a solve that loops on every check, with a LIMIT per check:
   six limits are unavoidable, the rest is overhead. Target: under six limits plus
   one second on both sides.

Pyodide runs in node from the npm package installed by `make` (node_modules/pyodide),
through tests/pyodide/run.mjs, so nothing is fetched. Node and the host share the
machine's two cores, one after the other, never at once.
"""

from __future__ import annotations

import json
import runpy
import shutil
import statistics
import subprocess
import time
from pathlib import Path

import failuremap_edu as fm
from failuremap_edu.instructor._notebook import reference_path
from failuremap_edu.runner._warm import warm_up

ROOT = Path(__file__).resolve().parents[1]
ROUNDS = 30
LIMIT = 0.5
PACE = 0.05
MARK = "@@failuremap-bench@@ "


def in_pyodide() -> dict:
    node = shutil.which("node")
    if node is None or not (ROOT / "node_modules" / "pyodide" / "pyodide.mjs").is_file():
        raise SystemExit("bench_pyodide: needs node and node_modules/pyodide (make bench installs it)")
    started = time.perf_counter()
    done = subprocess.run(
        [node, "tests/pyodide/run.mjs", "benchmarks/_pyodide_inner.py", str(ROUNDS), str(LIMIT)],
        cwd=ROOT, capture_output=True, text=True, timeout=900,
    )
    line = next((line for line in done.stdout.splitlines() if line.startswith(MARK)), None)
    if line is None:
        raise SystemExit(f"bench_pyodide: no result from Pyodide (exit {done.returncode}): {done.stderr[-2000:]}")
    data = json.loads(line[len(MARK):])
    data["process_s"] = time.perf_counter() - started
    return data


def in_fork_mode() -> dict:
    out = {"records": {}}
    warm_up()
    for record_id in fm.list_records():
        record = fm.load_record(record_id)
        solve = runpy.run_path(str(reference_path(record_id, ROOT / "references")))["solve"]
        fm.run_checks(record, solve, isolation="fork")
        time.sleep(0.5)  # the warm server's standbys are ready
        samples = []
        for _ in range(ROUNDS):
            time.sleep(PACE)
            t = time.perf_counter()
            result = fm.run_checks(record, solve, isolation="fork")
            samples.append(time.perf_counter() - t)
        out["records"][record_id] = {"median_ms": statistics.median(samples) * 1000, "summary": result.summary(), "isolation": result.isolation}

    def loop(*args, **kwargs):
        while True:
            pass

    t = time.perf_counter()
    result = fm.run_checks(fm.load_record("FA-100786"), loop, timeout=LIMIT, isolation="fork")
    out["loop"] = {"seconds": time.perf_counter() - t, "summary": result.summary(), "limit": LIMIT}
    return out


def main() -> int:
    print(f"Pyodide under node vs fork mode ({ROUNDS} runs each, medians; a loop on every check with a {LIMIT:g} s limit)")
    pyodide = in_pyodide()
    fork = in_fork_mode()
    print(
        f"  Pyodide {pyodide['python']} in node: starts in {pyodide['load_ms'] / 1000:.1f} s,"
        f" its first run (importing the runner, reading the fixtures) takes {pyodide['first_run_ms']:.0f} ms"
        f" (the whole node process: {pyodide['process_s']:.1f} s)"
    )
    for record_id, theirs in pyodide["records"].items():
        ours = fork["records"][record_id]
        print(
            f"  {record_id}, 6 checks ({theirs['summary']}): Pyodide in-process {theirs['median_ms']:.2f} ms,"
            f" fork mode {ours['median_ms']:.2f} ms -> Pyodide is {theirs['median_ms'] / ours['median_ms']:.2f}x the time"
        )
    ok = True
    bound = 6 * LIMIT + 1
    for name, side in (("Pyodide in-process", pyodide["loop"]), ("fork mode", fork["loop"])):
        met = side["seconds"] < bound and side["summary"] == "0/6 checks pass (6 timeout)"
        ok &= met
        print(
            f"  a loop on every check, {name}: {side['summary']} after {side['seconds']:.2f} s"
            f" ({side['seconds'] - 6 * LIMIT:+.2f} s over six limits; target < {bound:g} s: {'met' if met else 'NOT met'})"
        )
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
