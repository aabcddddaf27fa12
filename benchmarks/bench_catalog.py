"""`verify` against running each record's scripts as subprocesses (what the harness does), paired.

The records are distinct: the packaged ones, our test records (tests/records/),
each once, and `GENERATED` records of the generator (tests/generate_records.py,
sealed by the real harness; not those that loop by design or call ``os._exit``,
which print no traceback to compare). Each round times `verify` over all of them and then the scripts, one at a time as
the harness does, over the same records, alternating which goes first; the figure
is the median of the rounds' ratios. Both sides must reach identical verdicts.
`synthesize` (copies of those records under fresh ids) is kept for scale tests.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RECORDS = 1_000
"""Records `synthesize` writes."""
ROUNDS = 5
GENERATED = 100
"""Generated records in the measured corpus, from seed `FIRST_SEED` on."""
FIRST_SEED = 1000


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


def distinct() -> list[str]:
    """Every packaged record and every test record, each once."""
    return [str(p) for p in sorted((ROOT / "failuremap_edu" / "records").glob("*.json")) + sorted((ROOT / "tests" / "records").glob("*.json"))]


def generated(folder: Path, count: int = GENERATED, first: int = FIRST_SEED) -> list[str]:
    """Up to `count` generated records (seeds from `first`), sealed and written to `folder`."""
    sys.path.insert(0, str(ROOT / "tests"))
    try:
        import generate_records as gen
    finally:
        sys.path.remove(str(ROOT / "tests"))
    refs = []
    for seed in range(first, first + count):
        spec = gen.generate(seed)
        if spec["slow"] or "os._exit" in spec["attempt"] + spec["broken"]:
            continue
        data = gen.seal(f"GEN-{seed:06d}", spec)
        if data is not None:
            path = folder / f"GEN-{seed:06d}.json"
            path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
            refs.append(str(path))
    return refs


def measure(refs: list[str], rounds: int = ROUNDS) -> dict:
    """Paired rounds of verify and of the scripts over the same records: seconds (medians), the median ratio, the verdicts."""
    from failuremap_edu.instructor._catalog import verify_many

    list(verify_many(refs[:2]))  # warm: the worker server is up
    ours_s, scripts_s, same = [], [], True
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for n in range(rounds):
            def ours():
                started = time.perf_counter()
                found = {e.ref: e.ok for e in verify_many(refs)}
                ours_s.append(time.perf_counter() - started)
                return found

            def scripts():
                started = time.perf_counter()
                found = {ref: subprocess_verdict(ref, work) for ref in refs}
                scripts_s.append(time.perf_counter() - started)
                return found

            first, second = (ours, scripts) if n % 2 == 0 else (scripts, ours)
            a, b = first(), second()
            same &= a == b
    ratios = [s / o for s, o in zip(scripts_s, ours_s)]
    return {"verify_s": statistics.median(ours_s), "scripts_s": statistics.median(scripts_s), "ratio": statistics.median(ratios),
            "identical": same, "records": len(refs)}


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        made = generated(Path(tmp))
        before = os.getloadavg()
        found = measure(distinct() + made)
        after = os.getloadavg()
    n = found["records"]
    print(f"catalog benchmark ({n} distinct records: packaged, tests/records and {len(made)} generated; {ROUNDS} paired rounds, medians)")
    print(f"  verify (over {os.cpu_count()} cores)        {found['verify_s'] * 1000:7.0f} ms  ({n / found['verify_s']:.1f} records/s)")
    print(f"  the scripts, one at a time     {found['scripts_s'] * 1000:7.0f} ms  ({n / found['scripts_s']:.1f} records/s)")
    print(f"  verify is {found['ratio']:.1f}x faster than the scripts, paired; identical verdicts: {found['identical']}")
    print(f"  load average (1 min) {before[0]:.1f} before, {after[0]:.1f} after")
    return 0 if found["identical"] else 1


if __name__ == "__main__":
    sys.exit(main())
