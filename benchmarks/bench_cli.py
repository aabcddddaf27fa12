"""The one-shot command against its floor, paired: ``failuremap-edu check RECORD sol.py`` beside the record's own
script run as ``python -c SCRIPT`` (what its harness does), alternately, in the same rounds (target: at most 1.5x).

Each pair runs back to back, so both see the machine in the same state; the figure is the median of the
per-pair ratios. The solution checked is the packaged reference (every check passes, as the attempt's script
would if it were right), and the interpreter is this one, with its byte-code caches as an installed package has them.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ROUNDS = 20
TARGET = 1.5
RECORDS = ("FA-100786", "FA-100061")


def _env() -> dict:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}  # as installed: compiled once
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH", "")]))
    return env


def _time(argv: list[str], env: dict) -> tuple[float, int]:
    started = time.perf_counter()
    code = subprocess.run(argv, capture_output=True, env=env, cwd=ROOT).returncode
    return time.perf_counter() - started, code


def measure(record_id: str, rounds: int = ROUNDS) -> dict:
    """Paired seconds of the record's script and of `check` on its reference solution; the median ratio."""
    from failuremap_edu import load_record

    script = load_record(record_id).implementations["attempt"].source
    env = _env()
    check = [sys.executable, "-m", "failuremap_edu", "check", record_id, str(ROOT / "references" / f"{record_id}.py")]
    _time(check, env), _time([sys.executable, "-c", script], env)  # byte-code compiled, files cached
    scripts, checks = [], []
    for _ in range(rounds):
        seconds, _ = _time([sys.executable, "-c", script], env)
        scripts.append(seconds)
        seconds, code = _time(check, env)
        if code != 0:
            raise RuntimeError(f"check {record_id} on its reference solution exited with {code}")
        checks.append(seconds)
    return {"script_s": statistics.median(scripts), "check_s": statistics.median(checks),
            "ratio": statistics.median(c / s for c, s in zip(checks, scripts))}


def main() -> int:
    print(f"one-shot check against the record's own script (python -c), paired, {ROUNDS} rounds, medians")
    ok = True
    for record_id in RECORDS:
        found = measure(record_id)
        ok &= found["ratio"] <= TARGET
        print(f"  {record_id}: script {found['script_s'] * 1000:6.1f} ms, check {found['check_s'] * 1000:6.1f} ms: "
              f"{found['ratio']:.2f}x  (target <= {TARGET:g}x: {'met' if found['ratio'] <= TARGET else 'NOT met'})")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
