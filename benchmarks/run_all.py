"""Run every benchmark in this folder (``make bench``). Exit 1 if a target is missed."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

BENCHMARKS = ["bench_cli", "bench_core", "bench_render", "bench_panel", "bench_panel_messages", "bench_catalog", "bench_report", "bench_collector", "bench_pyodide", "bench_hub", "bench_judge"]


def main() -> int:
    status = 0
    for name in BENCHMARKS:
        status |= importlib.import_module(name).main()
        print()
    return status


if __name__ == "__main__":
    sys.exit(main())
