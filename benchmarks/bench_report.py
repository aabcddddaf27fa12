"""The class report over 100 learners' progress logs: read and counted, then shown, paired with its floor
(reading the same logs with ``json.loads``, line by line), in the same rounds. Targets: the text report, as
`report --watch` redraws it every few seconds, under 0.5 s; the HTML page with its heatmap under 1 s."""

from __future__ import annotations

import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

from failuremap_edu._progress import log_run
from failuremap_edu.instructor._report import build_report
from failuremap_edu._results import ErrorInfo, Observation, RunResult
from failuremap_edu.instructor.render._report import report_page, report_text, watch_text

LEARNERS = 100
EXERCISES = 3
CHECKS = 6
RUNS = 12
"""Runs per learner and exercise: 3,600 log lines in all."""
ROUNDS = 5
TEXT_TARGET_S = 0.5
HTML_TARGET_S = 1.0


def _run(record: str, rng: random.Random, attempt: RunResult) -> RunResult:
    observations = []
    for i in range(CHECKS):
        roll = rng.random()
        status = "pass" if roll < 0.6 else "fail" if roll < 0.9 else "timeout" if roll < 0.95 else "error"
        actual = ("a", "b") if status == "pass" else rng.choice([("a", ""), ["a", "b"], ("x", str(i))]) if status == "fail" else None
        error = ErrorInfo("Timeout", "slow") if status == "timeout" else ErrorInfo("KeyError", "'x'") if status == "error" else None
        observations.append(Observation(i, f"check {i} of {record}", status, status == "pass", actual, ("a", "b"), error=error))
    return RunResult(record, "yours", 1, tuple(observations), 1.0, "process")


def _logs(folder: Path, learners: int = LEARNERS) -> list[Path]:
    rng = random.Random(22)
    attempt = RunResult("x", "attempt", 1, tuple(Observation(i, "c", "fail", False, ("a", ""), ("a", "b")) for i in range(CHECKS)), 1.0, "process")
    paths = []
    for n in range(learners):
        log = folder / f"home{n:03}" / ".local" / "share" / "failuremap_edu" / "progress.jsonl"
        for e in range(EXERCISES):
            for r in range(RUNS):
                log_run(_run(f"FA-{e + 1}", rng, attempt), f"def solve(text, stops):\n    return {n}, {r}\n", log, replays=(attempt,))
        paths.append(log)
    return paths


def _measure(fn, rounds: int = ROUNDS) -> float:
    samples = []
    for _ in range(rounds):
        started = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - started)
    return statistics.median(samples)


def measure(learners: int = LEARNERS, rounds: int = ROUNDS) -> dict:
    """Paired medians: the floor (json.loads of every line), the text report, one --watch round, the HTML page."""
    import json

    from failuremap_edu.instructor._report import home_logs

    with tempfile.TemporaryDirectory(prefix="bench-report-") as tmp:
        started = time.perf_counter()
        _logs(Path(tmp), learners)
        made = time.perf_counter() - started
        pattern = str(Path(tmp) / "home*")

        def floor() -> int:
            logs, _ = home_logs(pattern)
            return sum(len(json.loads(line)) for log in logs for line in Path(log).read_text(encoding="utf-8").splitlines() if line)

        def text() -> str:
            logs, without = home_logs(pattern)
            return report_text(build_report(logs, homes_without_log=without))

        def live() -> str:
            logs, without = home_logs(pattern)
            return watch_text(build_report(logs, homes_without_log=without))

        def html() -> str:
            logs, without = home_logs(pattern)
            return report_page(build_report(logs, homes_without_log=without))

        assert f"{learners} learners, {EXERCISES} exercises" in text()
        html()  # matplotlib imported, fonts cached: as in a second report of the same session
        samples: dict[str, list[float]] = {"floor": [], "text": [], "live": [], "html": []}
        for _ in range(rounds):
            for name, fn in (("floor", floor), ("text", text), ("live", live), ("html", html)):
                samples[name].append(_measure(fn, 1))
        size = len(html().encode())
    found = {f"{name}_s": statistics.median(values) for name, values in samples.items()}
    found.update({f"{name}_ratio": statistics.median(v / f for v, f in zip(samples[name], samples["floor"])) for name in ("text", "live", "html")})
    return {**found, "bytes": size, "made_s": made}


def main() -> int:
    found = measure()
    text_s, live_s, html_s = found["text_s"], found["live_s"], found["html_s"]
    ok_text, ok_html = text_s < TEXT_TARGET_S and live_s < TEXT_TARGET_S, html_s < HTML_TARGET_S
    print(f"report benchmarks ({LEARNERS} learners' logs, {EXERCISES} exercises x {CHECKS} checks x {RUNS} runs = "
          f"{LEARNERS * EXERCISES * RUNS:,} log lines, written in {found['made_s']:.1f} s; {ROUNDS} paired rounds, medians)")
    print(f"  floor: json.loads of every line    {found['floor_s'] * 1000:7.1f} ms")
    print(f"  text report (read + count + text)  {text_s * 1000:7.1f} ms  {found['text_ratio']:5.1f}x the floor  "
          f"(target < {TEXT_TARGET_S * 1000:.0f} ms: {'met' if text_s < TEXT_TARGET_S else 'NOT met'})")
    print(f"  one --watch round                  {live_s * 1000:7.1f} ms  {found['live_ratio']:5.1f}x the floor  "
          f"(target < {TEXT_TARGET_S * 1000:.0f} ms: {'met' if live_s < TEXT_TARGET_S else 'NOT met'})")
    print(f"  HTML page with heatmap             {html_s * 1000:7.1f} ms  {found['html_ratio']:5.1f}x the floor, {found['bytes']:,} bytes  "
          f"(target < {HTML_TARGET_S * 1000:.0f} ms: {'met' if ok_html else 'NOT met'})")
    return 0 if ok_text and ok_html else 1


if __name__ == "__main__":
    sys.exit(main())
