"""What the panel costs the kernel and the browser: messages, bytes and time of the exercise cell, beside a bare run_checks.

In one real IPython kernel (jupyter_client, tests/kernelkit.py), interleaved
round after round at a learner's pace: a trivial cell, the same solve checked by
a bare ``fm.run_checks`` call (its summary printed), and the exercise cell
(``@fm.exercise`` over ``def solve``: the panel). Counted for each: the IOPub
messages of the cell (status, execute_input, widget updates, display), the bytes
of their content as JSON, and the seconds from sending the cell to the message
that carries its ``K/N checks pass`` line. The exercise cell runs twice per
round: the same failing solve again (a re-run: the panel changes its status line
and its downloads), and a different solve (a new result: more of the panel changes).
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

ROUNDS = 10
PACE = 1.05
"""Seconds between cells: a learner's pace (and the re-run note, to the second, changes as it would)."""
FIRST_ROUNDS = 3
"""Fresh kernels per side for the first Shift+Enter (each starts a kernel: slow)."""
FIRST_TARGET_RATIO, FIRST_TARGET_MESSAGES, FIRST_TARGET_BYTES = 1.3, 15, 25_000
EARLIER = "import failuremap_edu as fm\nexercise = fm.exercise('FA-100786')\n"
"""The notebook's cell before the solve cell (`_notebook`): it loads the record and starts the checking process."""
TARGET_MESSAGES = 6
TARGET_BYTES = 12_000
TARGET_RATIO = 2.0
OTHER = "    return text.upper(), ''\n"
"""A second failing solve: a new result after the attempt, so more of the panel changes."""


def _range(values: list[float], fmt: str = "{:.0f}") -> str:
    low, high = min(values), max(values)
    return fmt.format(low) if fmt.format(low) == fmt.format(high) else f"{fmt.format(low)}-{fmt.format(high)}"


def first_run(rounds: int = FIRST_ROUNDS, pause: float = 2.0) -> dict:
    """A learner's first Shift+Enter on the exercise cell against a first ``run_checks`` + print, each in a fresh kernel
    after the notebook's earlier cell and a pause to read, alternately: seconds to idle (medians), their median ratio,
    and the exercise cell's messages and bytes."""
    from kernelkit import ATTEMPT, EXERCISE_CELL, RUN_CHECKS_CELL, Kernel

    sides = {"exercise": EXERCISE_CELL.format(body=ATTEMPT), "run_checks": RUN_CHECKS_CELL.format(body=ATTEMPT)}
    seconds: dict[str, list[float]] = {name: [] for name in sides}
    cells = []
    for n in range(rounds):
        for name in sorted(sides, reverse=n % 2 == 1):
            with Kernel() as kernel:
                kernel.run(EARLIER)
                time.sleep(pause)
                cell = kernel.run(sides[name])
            seconds[name].append(cell.arrived[-1] - cell.started)
            if name == "exercise":
                cells.append(cell)
    return {"exercise_s": statistics.median(seconds["exercise"]), "run_checks_s": statistics.median(seconds["run_checks"]),
            "ratio": statistics.median(e / r for e, r in zip(seconds["exercise"], seconds["run_checks"])),
            "messages": max(c.count for c in cells), "bytes": max(c.bytes for c in cells), "kinds": cells[-1].kinds()}


def main() -> int:
    from kernelkit import ATTEMPT, EXERCISE_CELL, RUN_CHECKS_CELL, Kernel

    first = first_run()
    ok_first = (first["ratio"] <= FIRST_TARGET_RATIO, first["messages"] <= FIRST_TARGET_MESSAGES, first["bytes"] <= FIRST_TARGET_BYTES)
    print(f"first Shift+Enter (fresh kernels after the fm.exercise cell, {FIRST_ROUNDS} each, alternating; cell sent -> idle)")
    print(f"  exercise cell {first['exercise_s'] * 1000:.0f} ms, run_checks + print {first['run_checks_s'] * 1000:.0f} ms: "
          f"{first['ratio']:.2f}x (target <= {FIRST_TARGET_RATIO:g}x: {'met' if ok_first[0] else 'NOT met'}); "
          f"{first['messages']} messages (<= {FIRST_TARGET_MESSAGES}: {'met' if ok_first[1] else 'NOT met'}), "
          f"{first['bytes'] / 1000:.1f} KB (<= {FIRST_TARGET_BYTES // 1000} KB: {'met' if ok_first[2] else 'NOT met'}); {first['kinds']}")

    cells = {
        "print(1)": "print(1)",
        "fm.run_checks(...) + print": RUN_CHECKS_CELL.format(body=ATTEMPT),
        "exercise cell, re-run": EXERCISE_CELL.format(body=ATTEMPT),
        "exercise cell, new solve": EXERCISE_CELL.format(body=OTHER),
    }
    got: dict[str, list] = {name: [] for name in cells}
    with Kernel() as kernel:
        kernel.run("import failuremap_edu as fm")
        for code in cells.values():  # warm: the panel exists, the worker's standby is up
            kernel.run(code)
        for _ in range(ROUNDS):
            kernel.run(cells["exercise cell, re-run"])  # the attempt's result, so the next is a re-run
            for name, code in cells.items():
                time.sleep(PACE)
                got[name].append(kernel.run(code))
    print(f"panel messages (one kernel, {ROUNDS} rounds at a learner's pace, FA-100786; cell sent -> its summary line)")
    seconds = {}
    for name, runs in got.items():
        times = [r.summary_seconds() for r in runs]
        times = [t for t in times if t is not None] or [r.arrived[-1] - r.started for r in runs]
        seconds[name] = statistics.median(times)
        updates = [len(r.updates()) for r in runs]
        print(f"  {name:<27} {_range([r.count for r in runs]):>5} messages ({_range(updates)} widget updates), "
              f"{_range([r.bytes / 1000 for r in runs], '{:.1f}'):>9} KB, {seconds[name] * 1000:6.1f} ms")
    rerun = got["exercise cell, re-run"]
    ratio = seconds["exercise cell, re-run"] / seconds["fm.run_checks(...) + print"]
    ratio_new = seconds["exercise cell, new solve"] / seconds["fm.run_checks(...) + print"]
    print(f"  exercise cell / run_checks: re-run {ratio:.2f}x, new solve {ratio_new:.2f}x")
    count, size = max(r.count for r in rerun), max(r.bytes for r in rerun)
    ok_messages, ok_bytes, ok_ratio = count <= TARGET_MESSAGES, size <= TARGET_BYTES, ratio <= TARGET_RATIO
    print(f"  (targets for a re-run: <= {TARGET_MESSAGES} messages: {'met' if ok_messages else 'NOT met'}; "
          f"<= {TARGET_BYTES // 1000} KB: {'met' if ok_bytes else 'NOT met'}; "
          f"<= {TARGET_RATIO:g}x run_checks: {'met' if ok_ratio else 'NOT met'})")
    return 0 if ok_messages and ok_bytes and ok_ratio and all(ok_first) else 1


if __name__ == "__main__":
    sys.exit(main())
