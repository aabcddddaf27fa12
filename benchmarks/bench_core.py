"""Core benchmarks, measured side by side in one run (interleaved, medians).

1. An isolated run of a record's checks (`replay`, forked worker) against running the
   record's own script as a subprocess, which is what its harness does.
2. The cost of isolation: forked `run_checks` against the in-process fallback and
   against a bare in-process loop over the same checks.
3. ``import failuremap_edu`` against a bare interpreter start, and which heavy
   modules the import pulls in (none should be).
"""

from __future__ import annotations

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


def bench_isolated_vs_subprocess(record_id: str) -> dict:
    record = fm.load_record(record_id)
    with tempfile.TemporaryDirectory() as folder:
        script = Path(folder) / "script.py"
        script.write_text(record.implementations["attempt"].source, encoding="utf-8")
        subprocess_run = lambda: subprocess.run([sys.executable, str(script)], capture_output=True)  # noqa: E731
        isolated_run = lambda: fm.replay(record, "attempt")  # noqa: E731
        fm_warm_up()
        isolated_run(), subprocess_run()  # warm caches (and let the warm server start)
        time.sleep(0.5)
        ours, theirs = [], []
        for _ in range(ROUNDS // BLOCK):  # alternating blocks: each side runs warm, both share the machine's state
            ours += [_time(isolated_run) for _ in range(BLOCK)]
            theirs += [_time(subprocess_run) for _ in range(BLOCK)]
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

    forked = lambda: fm.run_checks(record, solve)  # noqa: E731
    inprocess = lambda: fm.run_checks(record, solve, isolation="inprocess")  # noqa: E731
    for fn in (bare, forked, inprocess):
        fn()
    samples = {"bare_ms": [], "forked_ms": [], "inprocess_ms": []}
    for _ in range(ROUNDS // BLOCK):
        for name, fn in (("bare_ms", bare), ("forked_ms", forked), ("inprocess_ms", inprocess)):
            samples[name] += [_time(fn) for _ in range(BLOCK)]
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
    print(f"core benchmarks ({ROUNDS} runs per side in alternating blocks of {BLOCK}, medians)")
    for record_id in fm.list_records():
        r = bench_isolated_vs_subprocess(record_id)
        ratio = r["subprocess_ms"] / r["isolated_ms"]
        met = ratio >= 10
        ok &= met
        print(
            f"  {record_id} isolated replay {r['isolated_ms']:.2f} ms vs harness subprocess {r['subprocess_ms']:.2f} ms"
            f" -> {ratio:.1f}x faster (target >= 10x: {'met' if met else 'NOT met'})"
        )
    o = bench_isolation_overhead("FA-100786")
    print(
        f"  isolation overhead, FA-100786: bare loop {o['bare_ms']:.3f} ms, in-process fallback {o['inprocess_ms']:.3f} ms"
        f" ({o['inprocess_ms'] / o['bare_ms']:.1f}x), forked {o['forked_ms']:.3f} ms ({o['forked_ms'] / o['bare_ms']:.1f}x);"
        f" per check: +{(o['forked_ms'] - o['bare_ms']) / 6:.3f} ms"
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
