"""What weighing a match costs: the mutants of attempt and broken, against the replays of attempt and broken, paired.

An exercise replays attempt and broken once per variant; when your results match
one of them, it also runs the mutants once per variant (`_evidence.run_mutants`).
Each round times, for every record, the two replays and the mutants side by side,
alternating which goes first; the figure is the median of the rounds' ratios
(mutants / replays). Target: at most 3x, so weighing a match costs less than three
replays more, once per record and variant.
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path

from failuremap_edu import load_record
from failuremap_edu._evidence import run_mutants
from failuremap_edu.runner import DEFAULT_TIMEOUT, replay, warm_up

ROOT = Path(__file__).resolve().parents[1]
ROUNDS = 3
TARGET = 3.0


def _records(limit: int | None = None) -> list:
    paths = sorted((ROOT / "failuremap_edu" / "records").glob("*.json")) + sorted((ROOT / "tests" / "records").glob("*.json"))
    return [load_record(str(p)) for p in paths[:limit]]


def measure(records: int | None = None, rounds: int = ROUNDS) -> dict:
    """{"replays_s", "mutants_s", "mutants", "ratio"}: seconds per round over the records, mutants run per round, median ratio."""
    chosen = _records(records)
    warm_up()
    ratios, replay_s, mutant_s, count = [], [], [], 0
    for n in range(rounds):
        r = m = 0.0
        count = 0
        for k, record in enumerate(chosen):
            def replays(record=record) -> float:
                started = time.perf_counter()
                replay(record, "attempt", 1, DEFAULT_TIMEOUT)
                replay(record, "broken", 1, DEFAULT_TIMEOUT)
                return time.perf_counter() - started

            def mutants(record=record) -> tuple[float, int]:
                started = time.perf_counter()
                tally = run_mutants(record, 1, DEFAULT_TIMEOUT)
                return time.perf_counter() - started, len(tally.runs)

            if (n + k) % 2:
                r += replays()
                dm, c = mutants()
            else:
                dm, c = mutants()
                r += replays()
            m += dm
            count += c
        replay_s.append(r)
        mutant_s.append(m)
        ratios.append(m / r)
    return {"replays_s": statistics.median(replay_s), "mutants_s": statistics.median(mutant_s), "mutants": count,
            "ratio": statistics.median(ratios)}


def main() -> int:
    found = measure()
    met = found["ratio"] <= TARGET
    print(f"evidence: mutants of attempt and broken against their replays ({ROUNDS} rounds, medians, {len(_records())} records)")
    print(f"  two replays per record: {found['replays_s']:.2f} s in all")
    print(f"  {found['mutants']} mutants:             {found['mutants_s']:.2f} s in all")
    print(f"  ratio mutants / replays: {found['ratio']:.2f}x (target <= {TARGET:g}x) {'met' if met else 'MISSED'}")
    return 0 if met else 1


if __name__ == "__main__":
    raise SystemExit(main())
