"""A catalog at scale: `verify` over 1,000 synthesized records against running each
record's scripts as subprocesses (what the harness does), side by side in one run.

The records are the packaged ones and our test records under fresh ids. The
subprocess side runs a sample of them (its per-record cost is flat), one script at
a time as the harness does, and also two at a time (one per core) for comparison.
Both sides must reach identical verdicts on every record they both checked.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RECORDS = 1_000
SAMPLE = 150


def synthesize(folder: Path) -> list[str]:
    bases = sorted((ROOT / "failuremap_edu" / "records").glob("*.json")) + sorted((ROOT / "tests" / "records").glob("*.json"))
    texts = [json.loads(p.read_text(encoding="utf-8")) for p in bases]
    refs = []
    for i in range(RECORDS):
        data = dict(texts[i % len(texts)])
        data["id"] = f"SYN-{i:06d}"
        path = folder / f"SYN-{i:06d}.json"
        path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
        refs.append(str(path))
    return refs


def _canonical(value) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def subprocess_verdict(ref: str, workdir: Path) -> bool:
    """Run both scripts as the harness does and compare with the recorded runs."""
    data = json.loads(Path(ref).read_text(encoding="utf-8"))
    ok = True
    for name in ("attempt", "broken"):
        script = workdir / f"{data['id']}-{name}.py"
        script.write_text(data["implementations"][name]["source"], encoding="utf-8")
        proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60)
        recorded = data["verification"][name]
        if recorded["observations"]:
            try:
                observations = json.loads(proc.stdout.splitlines()[-1])["observations"]
            except (IndexError, ValueError, KeyError):
                observations = None
            ok &= observations is not None and _canonical(observations) == _canonical(recorded["observations"])
        else:  # a recorded crash: the same exception type at the end of stderr
            ok &= proc.returncode != 0 and proc.stderr.strip().splitlines()[-1].split(":")[0] == recorded["stderr"].strip().splitlines()[-1].split(":")[0]
    return ok


def main() -> int:
    from failuremap_edu._catalog import verify_many

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        refs = synthesize(folder)
        list(verify_many(refs[:20]))  # warm up
        started = time.perf_counter()
        ours = {e.ref: e.ok for e in verify_many(refs)}
        ours_s = time.perf_counter() - started
        sample = refs[:SAMPLE]
        work = folder / "scripts"
        work.mkdir()
        started = time.perf_counter()
        serial = {ref: subprocess_verdict(ref, work) for ref in sample}
        serial_s = time.perf_counter() - started
        started = time.perf_counter()
        with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
            parallel = dict(zip(sample, pool.map(lambda r: subprocess_verdict(r, work), sample)))
        parallel_s = time.perf_counter() - started
    ours_rate = RECORDS / ours_s
    serial_rate = SAMPLE / serial_s
    parallel_rate = SAMPLE / parallel_s
    identical = all(ours[r] == serial[r] == parallel[r] for r in sample)
    print(f"catalog benchmarks ({RECORDS:,} synthesized records; subprocess side on {SAMPLE})")
    print(f"  verify (parallel over {os.cpu_count()} cores): {ours_rate:7.1f} records/s, {sum(ours.values()):,}/{RECORDS:,} with parity")
    print(f"  subprocess scripts, one at a time:  {serial_rate:7.1f} records/s -> verify is {ours_rate / serial_rate:.1f}x (target >= 10x: {'met' if ours_rate / serial_rate >= 10 else 'NOT met'})")
    print(f"  subprocess scripts, one per core:   {parallel_rate:7.1f} records/s -> verify is {ours_rate / parallel_rate:.1f}x")
    print(f"  identical verdicts on the {SAMPLE} records both checked: {identical}")
    return 0 if identical and ours_rate / serial_rate >= 10 and all(ours.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
