"""Run every benchmark in this folder (``make bench``) and write docs/reference/figures.md. Exit 1 if a target is missed.

``python benchmarks/run_all.py NAME ...`` runs only those benchmarks and rewrites only their sections of the page,
each dated; the other sections and the test counts stay as they were.
"""

from __future__ import annotations

import contextlib
import datetime
import importlib
import io
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

BENCHMARKS = ["bench_cli", "bench_core", "bench_render", "bench_diff", "bench_panel", "bench_panel_messages", "bench_catalog", "bench_report", "bench_collector", "bench_pyodide", "bench_hub", "bench_judge", "bench_evidence"]


class _Tee(io.TextIOBase):
    """Prints as it goes (a benchmark takes minutes) and keeps a copy for the figures page."""

    def __init__(self, out) -> None:
        self.out, self.kept = out, io.StringIO()

    def write(self, text: str) -> int:
        self.out.write(text)
        self.out.flush()
        return self.kept.write(text)


def main(benchmarks: list[str] = BENCHMARKS, page: Path | None = None, count_tests: bool = True, only: bool = False) -> int:
    """Run `benchmarks` and write the page; with `only`, their sections replace those of the same name in the page as it is."""
    import _figures

    page = page or _figures.PAGE
    status = 0
    sections = []
    for name in benchmarks:
        tee = _Tee(sys.stdout)
        with contextlib.redirect_stdout(tee):
            code = importlib.import_module(name).main()
        status |= code
        sections.append(_figures.Section(name, tee.kept.getvalue(), code == 0))
        print()
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    if only:
        before = page.read_text(encoding="utf-8") if page.exists() else ""
        dated = [_figures.Section(s.name, s.output, s.ok, f"{date}; {_figures.machine()}") for s in sections]
        tests = _figures.test_counts() if count_tests and not _figures.tests_of(before) else _figures.tests_of(before)
        text = _figures.render(date, _figures.machine(), _figures.merge(before, dated, BENCHMARKS), tests)
    else:
        text = _figures.render(date, _figures.machine(), sections, _figures.test_counts() if count_tests else {})
    _figures.write(text, page)
    print(f"wrote {page}")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:], only=True) if sys.argv[1:] else main())
