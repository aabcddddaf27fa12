"""The published figures page (docs/reference/figures.md): what `make bench` measured, with its date, in one place."""

from __future__ import annotations

import os
import platform
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "reference" / "figures.md"


@dataclass(frozen=True)
class Section:
    """One benchmark's printed output and whether it met its targets."""

    name: str
    output: str
    ok: bool
    measured: str = ""
    """When and where it ran, for a section written on its own (`merge`); empty when it ran with the whole page."""


def machine() -> str:
    """The machine the figures were measured on, in one line (cores and the load when measured)."""
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return f"{platform.system()} {platform.machine()}, {os.cpu_count()} cores, load {load:.1f}, Python {platform.python_version()}"


def test_counts(root: Path = ROOT) -> dict[str, int]:
    """How many tests `make test` and `make test-fast` collect (pytest --collect-only); {} when pytest cannot tell."""
    counts = {}
    for name, args in (("make test", []), ("make test-fast", ["-m", "not slow and not browser"])):
        done = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", *args],
                              cwd=root, capture_output=True, text=True, timeout=600)
        if (count := collected(done.stdout)) is not None:
            counts[name] = count
    return counts


def collected(pytest_output: str) -> int | None:
    """The number of tests a ``pytest --collect-only -q`` run selected, from its last line."""
    found = re.search(r"^(\d+)/\d+ tests? collected|^(\d+) tests? collected", pytest_output, re.M)
    return int(found.group(1) or found.group(2)) if found else None


def render(date: str, where: str, sections: list[Section], tests: dict[str, int]) -> str:
    """The page: its date and machine, the test counts, then each benchmark's output as it printed it."""
    lines = ["# Published figures", "",
             f"Written by `make bench` (`benchmarks/run_all.py`) on {date}; {where}. Do not edit: the next",
             "`make bench` rewrites this page. What each benchmark measures, and how, is in [Benchmarks](benchmarks.md).", ""]
    if tests:
        lines += ["## Test counts", "", "| command | tests collected |", "|---|---|"]
        lines += [f"| `{name}` | {count:,} |" for name, count in tests.items()] + [""]
    lines += ["## Benchmarks", ""]
    if not sections:
        lines += ["No benchmark has run since this page was introduced; the figures measured before it are in", "[Benchmarks](benchmarks.md).", ""]
    for s in sections:
        lines += [f"### {s.name}", ""] + ([f"Measured on {s.measured}.", ""] if s.measured else [])
        lines += [f"Targets: {'met' if s.ok else 'not met'}.", "", "```text", s.output.rstrip("\n").replace("```", "'''"), "```", ""]
    return "\n".join(lines).rstrip("\n") + "\n"


_SECTION = re.compile(r"^### (\S+)\n\n(?:Measured on (.+)\.\n\n)?Targets: (met|not met)\.\n\n```text\n(.*?)```\n", re.M | re.S)
_WRITTEN = re.compile(r"on (\d{4}-\d\d-\d\d \d\d:\d\d UTC); (.+?)\. Do not edit")


def sections_of(text: str) -> list[Section]:
    """The benchmark sections of a page `render` wrote, each dated (its own date, or the page's)."""
    written = _WRITTEN.search(text)
    page_date = f"{written.group(1)}; {written.group(2)}" if written else ""
    return [Section(m.group(1), m.group(4), m.group(3) == "met", m.group(2) or page_date) for m in _SECTION.finditer(text)]


def tests_of(text: str) -> dict[str, int]:
    """The test counts of a page `render` wrote."""
    return {m.group(1): int(m.group(2).replace(",", "")) for m in re.finditer(r"^\| `(make [\w-]+)` \| ([\d,]+) \|$", text, re.M)}


def merge(text: str, fresh: list[Section], order: list[str]) -> list[Section]:
    """The page's sections with `fresh` ones in place of those of the same name, in `order` (others after, as found)."""
    by_name = {s.name: s for s in sections_of(text)} | {s.name: s for s in fresh}
    return [by_name[name] for name in order if name in by_name] + [s for name, s in by_name.items() if name not in order]


def write(text: str, page: Path = PAGE) -> None:
    """Replace the page in one step (a reader never sees half of it)."""
    with tempfile.NamedTemporaryFile("w", encoding="utf-8", dir=page.parent, delete=False, suffix=".tmp") as fh:
        fh.write(text)
    os.replace(fh.name, page)
