"""Core benchmarks, measured side by side in one run (interleaved, medians).

1. An isolated run of a record's checks against running the record's own script as
   a subprocess, which is what its harness does: the record's own solve (`replay`)
   and a notebook-style solve sent by value (`run_checks`), each at a learner's pace
   (one run, then a pause, as after every edit: the target) and back to back (as
   when all five variants run at once).
2. The cost of isolation: forked `run_checks` against the in-process fallback and
   against a bare in-process loop over the same checks.
3. ``import failuremap_edu`` against a bare interpreter start, and which heavy
   modules the import pulls in (none should be).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import failuremap_edu as fm
from failuremap_edu._warm import warm_up as fm_warm_up

ROUNDS = 40
BLOCK = 10
HEAVY = ("matplotlib", "ipywidgets", "nbformat", "IPython")


def _median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def _time(fn) -> float:
    started = time.perf_counter()
    fn()
    return time.perf_counter() - started


def _forking_the_caller(record, solve) -> None:
    """run_checks the fallback way: warm workers off, the caller is forked for the run."""
    os.environ["FAILUREMAP_WARM"] = "0"
    try:
        fm.run_checks(record, solve)
    finally:
        del os.environ["FAILUREMAP_WARM"]


PACE = 0.05
"""Seconds between runs at a learner's pace (untimed; a learner never re-runs faster)."""


def _notebook_style_solve():
    """The packaged reference solve, defined the way a notebook cell defines it (in __main__)."""
    from failuremap_edu._notebook import reference_path

    namespace = {"__name__": "__main__"}
    exec(compile(reference_path("FA-100786").read_text(encoding="utf-8"), "<cell>", "exec"), namespace)
    return namespace["solve"]


def bench_isolated_vs_subprocess(record_id: str, pace: float, solve=None) -> dict:
    record = fm.load_record(record_id)
    with tempfile.TemporaryDirectory() as folder:
        script = Path(folder) / "script.py"
        script.write_text(record.implementations["attempt"].source, encoding="utf-8")
        subprocess_run = lambda: subprocess.run([sys.executable, str(script)], capture_output=True)  # noqa: E731
        if solve is None:
            isolated_run = lambda: fm.replay(record, "attempt")  # noqa: E731
        else:
            isolated_run = lambda: fm.run_checks(record, solve)  # noqa: E731
        fm_warm_up()
        isolated_run(), subprocess_run()  # warm caches (and let the warm server start)
        time.sleep(0.5)
        ours, theirs = [], []
        for _ in range(ROUNDS // BLOCK):  # alternating blocks: each side runs warm, both share the machine's state
            for _ in range(BLOCK):
                time.sleep(pace)
                ours.append(_time(isolated_run))
            for _ in range(BLOCK):
                time.sleep(pace)
                theirs.append(_time(subprocess_run))
    return {"isolated_ms": _median_ms(ours), "subprocess_ms": _median_ms(theirs)}


def bench_isolation_overhead(record_id: str) -> dict:
    record = fm.load_record(record_id)
    fixtures = fm.read_fixtures(record)
    namespace: dict = {}
    exec(compile(fixtures.solve_source, "<solve>", "exec"), namespace)
    solve = namespace["solve"]

    def bare() -> None:
        # The same checks as a plain loop: evaluate each fixture, compare, no isolation.
        g = {"solve": solve, "N": 1, "__fm_variant__": 1, "__fm_wrap__": lambda f: f}
        g["__fm_check__"] = lambda site, label, actual, expected: (label(), actual() == expected())
        exec(fixtures.program(replay=False), g)

    forked_caller = lambda: _forking_the_caller(record, solve)  # noqa: E731
    warm = lambda: fm.run_checks(record, solve)  # noqa: E731
    inprocess = lambda: fm.run_checks(record, solve, isolation="inprocess")  # noqa: E731
    runs = (("bare_ms", bare), ("warm_ms", warm), ("forked_ms", forked_caller), ("inprocess_ms", inprocess))
    for _, fn in runs:
        fn()
    samples: dict[str, list[float]] = {name: [] for name, _ in runs}
    for _ in range(ROUNDS // BLOCK):
        for name, fn in runs:
            for _ in range(BLOCK):
                time.sleep(PACE)
                samples[name].append(_time(fn))
    return {name: _median_ms(values) for name, values in samples.items()}


def bench_big_caller(megabytes: int = 150) -> dict:
    """Warm worker vs forking the caller when the caller is as big as a busy notebook kernel."""
    record = fm.load_record("FA-100786")
    solve = _notebook_style_solve()
    ballast = [bytearray(4096) for _ in range(megabytes * 256)]  # touched pages, like a kernel's heap

    forked_caller = lambda: _forking_the_caller(record, solve)  # noqa: E731
    warm = lambda: fm.run_checks(record, solve)  # noqa: E731
    samples: dict[str, list[float]] = {"warm_ms": [], "forked_ms": []}
    warm(), forked_caller()
    for _ in range(2):
        for name, fn in (("warm_ms", warm), ("forked_ms", forked_caller)):
            for _ in range(BLOCK):
                time.sleep(PACE)
                samples[name].append(_time(fn))
    del ballast
    return {name: _median_ms(values) for name, values in samples.items()}


def bench_import() -> dict:
    probe = "import sys, failuremap_edu; print(','.join(m for m in %r if m in sys.modules))" % (HEAVY,)
    bare, package, heavy = [], [], ""
    for _ in range(15):
        bare.append(_time(lambda: subprocess.run([sys.executable, "-c", "pass"], capture_output=True)))
        started = time.perf_counter()
        proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
        package.append(time.perf_counter() - started)
        heavy = proc.stdout.strip()
    return {"python_start_ms": _median_ms(bare), "with_import_ms": _median_ms(package), "heavy_modules": heavy}


def main() -> int:
    ok = True
    print(f"core benchmarks ({ROUNDS} runs per side in alternating blocks of {BLOCK}, medians; learner's pace = {PACE * 1000:.0f} ms between runs)")
    cases = [(record_id, "replay", None) for record_id in fm.list_records()]
    cases.append(("FA-100786", "notebook solve", _notebook_style_solve()))
    for record_id, what, solve in cases:
        for regime, pace in (("learner's pace", PACE), ("back to back", 0.0)):
            r = bench_isolated_vs_subprocess(record_id, pace, solve)
            ratio = r["subprocess_ms"] / r["isolated_ms"]
            verdict = ""
            if regime == "learner's pace":
                met = ratio >= 10
                ok &= met
                verdict = f" (target >= 10x: {'met' if met else 'NOT met'})"
            print(
                f"  {record_id} {what}, {regime}: isolated {r['isolated_ms']:.2f} ms vs harness subprocess"
                f" {r['subprocess_ms']:.2f} ms -> {ratio:.1f}x faster{verdict}"
            )
    o = bench_isolation_overhead("FA-100786")
    print(
        f"  isolation overhead, FA-100786 (learner's pace): bare loop {o['bare_ms']:.3f} ms,"
        f" in-process fallback {o['inprocess_ms']:.3f} ms ({o['inprocess_ms'] / o['bare_ms']:.0f}x),"
        f" warm worker {o['warm_ms']:.3f} ms ({o['warm_ms'] / o['bare_ms']:.0f}x),"
        f" forking the caller {o['forked_ms']:.3f} ms ({o['forked_ms'] / o['bare_ms']:.0f}x);"
        f" warm vs forking the caller: {o['forked_ms'] / o['warm_ms']:.2f}x faster"
    )
    b = bench_big_caller()
    print(
        f"  in a caller holding 150 MB more (a busy kernel): warm worker {b['warm_ms']:.2f} ms,"
        f" forking the caller {b['forked_ms']:.2f} ms -> warm is {b['forked_ms'] / b['warm_ms']:.1f}x faster"
    )
    i = bench_import()
    cost = i["with_import_ms"] - i["python_start_ms"]
    print(
        f"  import failuremap_edu: {cost:.1f} ms on top of a {i['python_start_ms']:.1f} ms interpreter start"
        f" ({i['with_import_ms'] / i['python_start_ms']:.2f}x); heavy modules loaded: {i['heavy_modules'] or 'none'}"
    )
    ok &= not i["heavy_modules"]
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
