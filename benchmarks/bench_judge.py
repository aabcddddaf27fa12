"""The judge split's cost (issue 31): ``check --sandbox`` with solve in a process apart from the checks, against
the same command with solve in the judge's process (`runner._judge.SPLIT` off), as a ratio of medians
(target: the split costs at most a quarter more, ratio <= 1.25)."""

from __future__ import annotations

import contextlib
import io
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ROUNDS = 15
TARGET = 1.25


def _check(solution: str) -> float:
    from failuremap_edu.instructor._cli import main

    started = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()):
        code = main(["check", "FA-100786", solution, "--sandbox"])
    elapsed = time.perf_counter() - started
    assert code == 0, "the reference solution must pass"
    return elapsed


def measure(rounds: int = ROUNDS) -> dict:
    """Median seconds of `check --sandbox` with the split and without, alternating, after one warm-up run of each."""
    from failuremap_edu.runner import _judge

    samples: dict[bool, list[float]] = {True: [], False: []}
    with tempfile.TemporaryDirectory() as tmp:
        solution = str(Path(tmp) / "solution.py")
        Path(solution).write_text((ROOT / "references" / "FA-100786.py").read_text(encoding="utf-8"), encoding="utf-8")
        saved = _judge.SPLIT
        try:
            for n in range(rounds + 1):
                for split in (True, False) if n % 2 else (False, True):
                    _judge.SPLIT = split
                    elapsed = _check(solution)
                    if n:  # the first round warms both up
                        samples[split].append(elapsed)
        finally:
            _judge.SPLIT = saved
    split_s, joint_s = statistics.median(samples[True]), statistics.median(samples[False])
    return {"split_s": split_s, "joint_s": joint_s, "ratio": split_s / joint_s}


def main() -> int:
    if shutil.which("bwrap") is None:
        print("judge split: skipped (needs bubblewrap)")
        return 0
    r = measure()
    met = r["ratio"] <= TARGET
    print(f"judge split ({ROUNDS} runs per side, alternating, medians): check --sandbox FA-100786 with solve apart from the judge"
          f" {r['split_s'] * 1000:.1f} ms vs in the judge's process {r['joint_s'] * 1000:.1f} ms -> {r['ratio']:.2f}x"
          f" (target <= {TARGET}x: {'met' if met else 'NOT met'})")
    return 0 if met else 1


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main())
