"""Inside Pyodide (started by run.mjs): run pytest and report every outcome as one JSON line.

The host (tests/test_pyodide.py) reads the line that starts with RESULTS_MARK: the
outcome of each test id, so it can require specific tests to have passed here, not
just count them. Hypothesis keeps no example database (the repository is mounted
from the host) and has no deadline: a browser's Python is slower than CPython.
"""

from __future__ import annotations

import json
import sys
import time

import pytest

RESULTS_MARK = "@@failuremap-pyodide-results@@ "


class Outcomes:
    """Each test id's worst outcome over setup, call and teardown; collection errors too."""

    def __init__(self) -> None:
        self.results: dict[str, str] = {}
        self.failures: dict[str, str] = {}

    RANK = {"passed": 0, "skipped": 1, "failed": 2, "error": 3}

    def pytest_runtest_logreport(self, report) -> None:
        outcome = "error" if report.failed and report.when != "call" else report.outcome
        if self.RANK[outcome] >= self.RANK[self.results.get(report.nodeid, "passed")]:
            self.results[report.nodeid] = outcome
        if report.failed:
            self.failures[report.nodeid] = str(report.longrepr)[-3000:]

    def pytest_configure(self, config) -> None:
        from hypothesis import settings  # here, after pytest loaded hypothesis's plugin (no rewrite warnings)

        settings.register_profile("pyodide", database=None, deadline=None)
        settings.load_profile("pyodide")

    def pytest_collectreport(self, report) -> None:
        if report.failed:
            self.results[report.nodeid or "<collection>"] = "error"
            self.failures[report.nodeid or "<collection>"] = str(report.longrepr)[-3000:]


def main(argv: list[str]) -> int:
    sys.path.insert(0, "/repo/tests")  # conftest's helpers and the corpus, as the host's tests import them
    outcomes = Outcomes()
    started = time.perf_counter()
    paths = [arg if arg.startswith("-") or arg.startswith("/") else f"/repo/{arg}" for arg in argv]
    code = pytest.main(["-c", "/repo/tests/pyodide/pytest.ini", "--rootdir", "/repo", "--confcutdir", "/repo", "-p", "no:cacheprovider", *paths], plugins=[outcomes])
    summary = {
        "exit_code": int(code),
        "seconds": round(time.perf_counter() - started, 1),
        "python": sys.version.split()[0],
        "platform": sys.platform,
        "results": outcomes.results,
        "failures": outcomes.failures,
    }
    sys.stdout.flush()
    print(RESULTS_MARK + json.dumps(summary), flush=True)
    return int(code)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
