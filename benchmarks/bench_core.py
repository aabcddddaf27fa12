"""Core benchmarks, measured side by side in one run (interleaved blocks, medians).

1. An isolated run of a record's checks against running the record's own script as
   a subprocess, which is what its harness does: the record's own solve (`replay`)
   and a notebook-style solve sent by value (`run_checks`), at a learner's pace (one
   run, then a pause, as after every edit: the target) and back to back (as when all
   five variants run at once).
2. The cost of isolation: a run in a worker process against the in-process
   fallback and a bare in-process loop over the same checks; and what the standby
   worker buys, against a worker fresh from the server for every run.
3. A run in a caller holding 2 GiB (a busy notebook kernel): the caller is never
   forked, so its size must not matter.
4. A solve that loops on every check, with the default time limit: how long until
   every check of a packaged record is reported.
5. The runner's size in lines, and ``import failuremap_edu``.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import failuremap_edu as fm
from failuremap_edu._fixtures import read_fixtures
from failuremap_edu.runner import _warm

ROUNDS = 40
BLOCK = 10
PACE = 0.05
"""Seconds between runs at a learner's pace (untimed; a learner never re-runs faster)."""
HEAVY = ("matplotlib", "ipywidgets", "nbformat", "IPython")
RUNNER = tuple(sorted(p.stem for p in (Path(fm.__file__).resolve().parent / "runner").glob("*.py")))
"""Every module of runner/ (the process boundary)."""
RUNNER_BEFORE = (1932, 1409)
"""Lines (all, and code alone) of the runner before the single worker path (_runner, _session, _channel, _worker, _byvalue, _warm)."""


def _median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def _time(fn) -> float:
    started = time.perf_counter()
    fn()
    return time.perf_counter() - started


def _notebook_style_solve(source: str | None = None):
    """The packaged reference solve, defined the way a notebook cell defines it (in __main__)."""
    from failuremap_edu.instructor._notebook import reference_path

    namespace = {"__name__": "__main__"}
    exec(compile(source or reference_path("FA-100786", Path(__file__).resolve().parents[1] / "references").read_text(encoding="utf-8"), "<cell>", "exec"), namespace)
    return namespace["solve"]


def _settle() -> None:
    """Let the standby the last run lined up get ready (untimed)."""
    _warm.warm_up()
    standby = _warm.pool().standby
    if standby is not None:
        standby.wait_pid()
    time.sleep(0.2)


def _interleaved(runs: dict, pace: float, rounds: int = ROUNDS, before=None) -> dict:
    """Each side in alternating blocks, so that every side sees the machine in the same states."""
    samples: dict[str, list[float]] = {name: [] for name in runs}
    for fn in runs.values():
        fn()
    _settle()
    for _ in range(rounds // BLOCK):
        for name, fn in runs.items():
            for _ in range(BLOCK):
                time.sleep(pace)
                if before is not None:
                    before(name)
                samples[name].append(_time(fn))
    return {name: _median_ms(values) for name, values in samples.items()}


def bench_isolated_vs_subprocess(record_id: str, pace: float, solve=None) -> dict:
    record = fm.load_record(record_id)
    with tempfile.TemporaryDirectory() as folder:
        script = Path(folder) / "script.py"
        script.write_text(record.implementations["attempt"].source, encoding="utf-8")
        runs = {
            "isolated_ms": (lambda: fm.replay(record, "attempt")) if solve is None else (lambda: fm.run_checks(record, solve)),
            "subprocess_ms": lambda: subprocess.run([sys.executable, str(script)], capture_output=True),
        }
        return _interleaved(runs, pace)


def _without_standby(name: str) -> None:
    if name == "fresh_ms":  # untimed: end the standby, so that the run asks the server for a fresh worker
        pool = _warm.pool()
        time.sleep(0.02)
        with pool.lock:
            standby, pool.standby = pool.standby, None
        if standby is not None:
            pool.stop(standby)


def bare_checks(fixtures, solve) -> list[tuple[str, bool]]:
    """The same checks as a plain loop: evaluate each fixture, compare, no isolation. (label, passed) of each."""
    verdicts: list[tuple[str, bool]] = []
    g = {"solve": solve, "N": 1, "__fm_variant__": 1, "__fm_wrap__": lambda f: f, "__fm_adopt__": lambda: None}
    g["__fm_check__"] = lambda site, label, actual, expected: verdicts.append((label(), actual() == expected()))
    exec(fixtures.program(replay=False), g)
    return verdicts


def bench_isolation_overhead(record_id: str) -> dict:
    record = fm.load_record(record_id)
    fixtures = read_fixtures(record)
    namespace: dict = {}
    exec(compile(fixtures.solve_source, "<solve>", "exec"), namespace)
    solve = namespace["solve"]

    runs = {
        "bare_ms": lambda: bare_checks(fixtures, solve),
        "inprocess_ms": lambda: fm.run_checks(record, solve, isolation="inprocess"),
        "process_ms": lambda: fm.run_checks(record, solve),
        "fresh_ms": lambda: fm.run_checks(record, solve),
    }
    return _interleaved(runs, PACE, before=_without_standby)


def bench_big_caller(gigabytes: int = 2) -> dict:
    """A run at a learner's pace in a caller that holds `gigabytes` of touched memory."""
    record = fm.load_record("FA-100786")
    solve = _notebook_style_solve()
    ballast = bytearray(gigabytes << 30)
    for i in range(0, len(ballast), 4096):  # touched pages, like a kernel's heap
        ballast[i] = 1
    try:
        return _interleaved({"run_ms": lambda: fm.run_checks(record, solve)}, PACE)
    finally:
        del ballast


def bench_loop_on_every_check(record_id: str, repeats: int = 3) -> dict:
    """Seconds from the start of a run until the last of its checks is reported (default limit)."""
    record = fm.load_record(record_id)
    params = ", ".join(p.name for p in record.params.positional)
    solve = _notebook_style_solve(f"def solve({params}):\n    while True:\n        pass\n")
    times, total = [], 0
    for _ in range(repeats):
        _settle()
        reported: list[float] = []
        started = time.monotonic()
        result = fm.run_checks(record, solve, progress=lambda o: reported.append(time.monotonic() - started))
        times.append(max(reported))
        total = len(result.observations)
        assert [o.status for o in result.observations] == ["timeout"] * total, result.summary()
    return {"seconds": statistics.median(times), "checks": total}


def runner_lines() -> dict:
    """Lines of each runner module, and of code alone (no docstrings, comments or blank lines)."""
    import ast

    package = Path(fm.__file__).resolve().parent
    lines, code = {}, 0
    for name in RUNNER:
        source = (package / "runner" / f"{name}.py").read_text(encoding="utf-8")
        strings = {n for node in ast.walk(ast.parse(source)) if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
                   for n in range(node.lineno, node.end_lineno + 1)}
        lines[name] = len(source.splitlines())
        code += sum(1 for i, line in enumerate(source.splitlines(), 1) if line.strip() and not line.strip().startswith("#") and i not in strings)
    return {"total": sum(lines.values()), "code": code, **lines}


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


def _verdict(met: bool) -> str:
    return "met" if met else "NOT met"


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
                ok &= ratio >= 10
                verdict = f" (target >= 10x: {_verdict(ratio >= 10)})"
            print(
                f"  {record_id} {what}, {regime}: isolated {r['isolated_ms']:.2f} ms vs harness subprocess"
                f" {r['subprocess_ms']:.2f} ms -> {ratio:.1f}x faster{verdict}"
            )
    o = bench_isolation_overhead("FA-100786")
    print(
        f"  isolation overhead, FA-100786 (learner's pace): bare loop {o['bare_ms']:.3f} ms,"
        f" in-process fallback {o['inprocess_ms']:.3f} ms, worker process {o['process_ms']:.3f} ms (standby);"
        f" a worker fresh from the server for every run {o['fresh_ms']:.3f} ms: the standby is {o['fresh_ms'] / o['process_ms']:.1f}x faster"
    )
    b = bench_big_caller()
    ok &= b["run_ms"] <= 10
    print(f"  a run of the 6 checks in a caller holding 2 GiB (learner's pace): {b['run_ms']:.2f} ms (target <= 10 ms: {_verdict(b['run_ms'] <= 10)})")
    for record_id in fm.list_records():
        loop = bench_loop_on_every_check(record_id)
        met = loop["seconds"] <= 4.0
        ok &= met
        print(
            f"  loops on every check, {record_id} (default 2 s limit): time until every check is reported"
            f" {loop['seconds']:.2f} s for {loop['checks']} checks, was {loop['checks'] * 2.0:.0f} s (target <= 4 s: {_verdict(met)})"
        )
    lines = runner_lines()
    parts = ", ".join(f"{name} {lines[name]}" for name in RUNNER)
    met = lines["total"] <= 1300
    print(
        f"  runner size: {lines['total']:,} lines, {lines['code']:,} of them code ({parts}); before: {RUNNER_BEFORE[0]:,} lines,"
        f" {RUNNER_BEFORE[1]:,} code (target about 1,300 lines: {_verdict(met)}; reported, not a gate: it is a guide, not a limit)"
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
