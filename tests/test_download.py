"""What a download of the learner's solve carries, so that it runs on its own."""

from __future__ import annotations

import linecache

from conftest import record_path, solution_path
from failuremap_edu import load_record, load_solution, run_checks
from failuremap_edu._download import solve_source


def _cell(source: str, name: str = "<ipython-input-7-dl>") -> dict:
    """A notebook cell: run as IPython runs it (its text in linecache, nothing importable)."""
    linecache.cache[name] = (len(source), None, source.splitlines(True), name)
    namespace = {"__name__": "__main__", "fm": type("fm", (), {"exercise": staticmethod(lambda *a, **k: (lambda f: f))})}
    exec(compile(source, name, "exec"), namespace)
    return namespace


def test_a_cells_dataclass_travels_with_its_decorator_and_imports(tmp_path):
    """The .py of a trial lacked Span and its imports: pasted back after a restart, every check was a NameError."""
    cell = ("from dataclasses import astuple, dataclass, field\n\n\n@dataclass\nclass Span:\n    start: int\n    end: int\n"
            "    token: str = field(default='')\n\n\n@fm.exercise('records/TR-001313.json')\n" + solution_path("TR-001313").read_text().split("\n\n\n")[-1])
    py = solve_source(_cell(cell)["solve"])
    assert "@dataclass\nclass Span:" in py and "from dataclasses import dataclass" in py and "from dataclasses import field" in py
    assert "@fm.exercise" not in py.replace("# for the line @fm.exercise(...) above def solve", "")
    path = tmp_path / "solve.py"
    path.write_text(py)
    assert run_checks(load_record(record_path("TR-001313")), load_solution(path)).summary() == "5/5 checks pass"


def test_only_our_decorator_is_dropped():
    cell = "import functools\n\n\n@fm.exercise('x')\n@functools.lru_cache(maxsize=None)\ndef solve(n):\n    return n\n"
    py = solve_source(_cell(cell, "<ipython-input-8-dl>")["solve"].__wrapped__)
    assert "@functools.lru_cache(maxsize=None)\ndef solve(n):" in py and "import functools" in py


def test_a_cached_helper_travels_with_its_decorator(tmp_path):
    """A helper under @lru_cache (or @cache) was left out: the download's solve met a NameError."""
    cell = ("from functools import cache, lru_cache\n\n\n@lru_cache(maxsize=None)\ndef _stop_prefixes(stops):\n"
            "    return frozenset(s[:i] for s in stops for i in range(1, len(s)))\n\n\n@cache\ndef _longest(stops):\n"
            "    return max(map(len, stops), default=0)\n\n\n@fm.exercise('FA-100786')\ndef solve(text, stops):\n"
            "    prefixes = _stop_prefixes(tuple(stops))\n    for start in range(max(len(text) - _longest(tuple(stops)), 0), len(text)):\n"
            "        if text[start:] in prefixes:\n            return text[:start], text[start:]\n    return text, ''\n")
    namespace = _cell(cell, "<ipython-input-9-dl>")
    py = solve_source(namespace["solve"])
    assert "@lru_cache(maxsize=None)\ndef _stop_prefixes(stops):" in py and "@cache\ndef _longest(stops):" in py
    assert "from functools import lru_cache" in py and "from functools import cache" in py and "# note" not in py
    path = tmp_path / "solve.py"
    path.write_text(py)
    assert run_checks("FA-100786", load_solution(path)).summary() == run_checks("FA-100786", namespace["solve"]).summary() == "6/6 checks pass"
