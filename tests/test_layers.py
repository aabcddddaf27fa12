"""The layout keeps its roles: the kernel side stands apart from the instructor side, and layers only look down.

The kernel side is what a learner's kernel imports: everything under ``failuremap_edu``
but ``instructor/``. The instructor side (``failuremap_edu.instructor``: the notebook
generator, workshop, lite, catalog, report, collector, CLI) may import the kernel side,
never the other way round. Within the kernel side no module imports a module of a
higher layer, and the model never reaches its view or a front.

Read with `ast`, so a lazy import inside a function counts as much as one at the top.
The one exception is the display mixin's delegation to the renderers, which names them
in strings (`_display.Shown`), not in import statements.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "failuremap_edu"
INSTRUCTOR = "instructor"
"""The instructor side's subpackage; `__main__` (``python -m failuremap_edu``, the CLI) belongs to it too."""

LAYERS = [
    # the kernel side, bottom first; a module may import its own layer and the ones below it
    ("values", {"_errors", "_values", "_portable", "_same", "_display", "_atomic", "_logfile"}),
    ("source", {"_signature", "_code"}),
    ("records", {"_records"}),
    ("fixtures", {"_fixtures", "_check_rewrite", "_solution", "_record_helpers"}),
    ("results", {"_results"}),
    ("runner", {"runner"}),
    ("data", {"_parity", "_claims", "_call_claims", "_diff_model", "_diff_text", "_diff_items", "_diff_walk", "_diff", "_patterns", "_shift", "_rounded", "_outcomes",
              "_progress", "_progress_export", "_poster"}),
    ("renderers", {"render"}),
    ("teaching", {"_evidence", "_hints", "_story", "_download"}),
    ("model", {"_exercise", "_exercise_text", "_exercise_playground", "_rerun", "_live"}),
    ("view", {"_panel", "_panel_parts"}),
    ("fronts", {"_cell", "_command", "__init__"}),
    # the instructor side, above everything a kernel loads
    ("instructor", {INSTRUCTOR, "__main__"}),
]
RANK = {name: rank for rank, (_, names) in enumerate(LAYERS) for name in names}
MODEL = {"_exercise", "_exercise_text", "_exercise_playground", "_rerun", "_live"}
VIEWS = {"_panel", "_panel_parts", "_cell", "ipywidgets"}
"""What the model must never import, directly or through the modules it imports: its view, a front, the widget toolkit."""
SHELL = "IPython"
"""What the model must never import itself (the exception hook of `_errors`, below it, looks IPython up when it is loaded)."""

MAX_LINES = 500
TOO_LONG_TODAY: set[str] = set()
"""The shrinking allow-list of modules over MAX_LINES (empty: every module is under it). A module not listed may not pass MAX_LINES."""


def _unit(module: str) -> str:
    """The layer unit of a dotted module name under the package: a subpackage counts as one."""
    return module.split(".")[0] if module else "__init__"


def _side(module: str) -> str:
    return "instructor" if _unit(module) in (INSTRUCTOR, "__main__") else "kernel"


def _modules():
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).with_suffix("")
        if rel.parts[0] == "references":
            continue  # reference solutions: data for instructor notebooks, never imported
        yield ".".join(rel.parts), path


def _imports(module: str, path: Path):
    """(line, imported module) for every import of a failuremap_edu module, relative ones resolved; others as written."""
    package = module.split(".")[:-1]
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            base = package
            if node.level:
                base = package[: len(package) - (node.level - 1)] if node.level > 1 else package
                target = ".".join(base + ([node.module] if node.module else []))
            elif (node.module or "").startswith("failuremap_edu"):
                base = []
                target = node.module.partition(".")[2]
            else:
                yield node.lineno, f"<external>{node.module}"
                continue
            if node.module is None or target == ".".join(base):  # from . import _x, _y
                for alias in node.names:
                    yield node.lineno, ".".join(filter(None, [target, alias.name]))
            else:
                yield node.lineno, target
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("failuremap_edu."):
                    yield node.lineno, alias.name.partition(".")[2]
                elif alias.name != "failuremap_edu":
                    yield node.lineno, f"<external>{alias.name}"


def _edges():
    for module, path in _modules():
        for line, target in _imports(module, path):
            yield module, line, target


def _ours(edges):
    return [(m, line, t) for m, line, t in edges if not t.startswith("<external>")]


def kernel_imports_instructor(edges) -> list[str]:
    return [f"{m}:{line} imports {t} (the kernel side never imports the instructor side)"
            for m, line, t in _ours(edges) if _side(m) == "kernel" and _side(t) == "instructor"]


def upward(edges) -> list[str]:
    return [
        f"{m}:{line} imports {t} ({LAYERS[RANK[_unit(t)]][0]} is above {LAYERS[RANK[_unit(m)]][0]})"
        for m, line, t in _ours(edges)
        if _unit(t) in RANK and _unit(m) in RANK and RANK[_unit(t)] > RANK[_unit(m)]
    ]


def model_reaches_a_view(edges) -> list[str]:
    """Each view, front or toolkit the model imports, directly or through what it imports, with the path there."""
    graph: dict[str, set[str]] = {}
    for m, _, t in edges:
        graph.setdefault(_unit(m), set()).add(t.removeprefix("<external>").split(".")[0] if t.startswith("<external>") else _unit(t))
    found, paths = [], {m: [m] for m in MODEL}
    todo = list(MODEL)
    while todo:
        here = todo.pop()
        for there in sorted(graph.get(here, ())):
            if there in paths and not (there == SHELL and here in MODEL):
                continue
            paths[there] = paths[here] + [there]
            if there in VIEWS or (there == SHELL and here in MODEL):
                found.append(" -> ".join(paths[there]))
            elif there in graph:
                todo.append(there)
    return sorted(found)


def long_modules(modules) -> tuple[list[str], list[str]]:
    """(modules over MAX_LINES not on the allow-list, listed modules no longer over it)."""
    lines = {m: len(path.read_text().splitlines()) for m, path in modules}
    new = [f"{m}: {n} lines (split it; at most {MAX_LINES})" for m, n in sorted(lines.items()) if n > MAX_LINES and m not in TOO_LONG_TODAY]
    stale = [f"{m}: now {lines[m]} lines: take it off TOO_LONG_TODAY" for m in sorted(TOO_LONG_TODAY) if m in lines and lines[m] <= MAX_LINES]
    return new, stale


# ------------------------------------------------------------------ the checks


def test_every_module_has_a_layer():
    units = {_unit(module) for module, _ in _modules()}
    assert units - set(RANK) == set(), "add the new module to LAYERS in tests/test_layers.py"


def test_the_kernel_side_never_imports_the_instructor_side():
    assert kernel_imports_instructor(_edges()) == []


def test_no_module_imports_a_higher_layer():
    assert upward(_edges()) == []


def test_nothing_outside_the_runner_imports_its_modules():
    """The process boundary has one door: `failuremap_edu.runner`'s own names."""
    inside = [
        f"{module}:{line} imports {target}"
        for module, line, target in _ours(_edges())
        if _unit(target) == "runner" and target != "runner" and _unit(module) != "runner"
    ]
    assert inside == []


def test_the_model_never_imports_its_view_or_a_front():
    assert model_reaches_a_view(list(_edges())) == []


def test_no_module_is_over_500_lines_but_todays_listed_ones():
    new, stale = long_modules(_modules())
    assert new == [] and stale == []


# ---------------------------------------------------- the checks can fail


def _planted(tmp_path, monkeypatch, files: dict[str, str]):
    fake = tmp_path / "failuremap_edu"
    for name, text in files.items():
        (fake / name).parent.mkdir(parents=True, exist_ok=True)
        (fake / name).write_text(text)
    monkeypatch.setattr(sys.modules[__name__], "PACKAGE", fake)
    return list(_edges())


def test_the_checker_sees_an_upward_edge(tmp_path, monkeypatch):
    edges = _planted(tmp_path, monkeypatch, {"_values.py": "def f():\n    from ._exercise import Exercise\n", "_exercise.py": ""})
    assert upward(edges) == ["_values:2 imports _exercise (model is above values)"]


def test_the_checker_sees_the_kernel_side_import_the_instructor_side(tmp_path, monkeypatch):
    edges = _planted(tmp_path, monkeypatch, {
        "_cell.py": "from .instructor import _notebook\n",
        "_panel.py": "import failuremap_edu.instructor._cli\n",
        "instructor/__init__.py": "", "instructor/_notebook.py": "from .._cell import exercise\n", "instructor/_cli.py": "",
    })
    assert kernel_imports_instructor(edges) == [
        "_cell:1 imports instructor (the kernel side never imports the instructor side)",
        "_panel:1 imports instructor._cli (the kernel side never imports the instructor side)",
    ]  # and the instructor side importing the kernel side is not reported


def test_the_checker_sees_the_model_reach_its_view_through_another_module(tmp_path, monkeypatch):
    edges = _planted(tmp_path, monkeypatch, {
        "_exercise.py": "from ._hints import hint\n", "_hints.py": "def hint():\n    from ._panel_parts import part\n",
        "_live.py": "import IPython.display\n", "_panel_parts.py": "",
    })
    assert model_reaches_a_view(edges) == ["_exercise -> _hints -> _panel_parts", "_live -> IPython"]


def test_the_checker_sees_a_new_long_module_and_a_listed_one_that_shrank(tmp_path, monkeypatch):
    listed = "_exercise"
    monkeypatch.setattr(sys.modules[__name__], "TOO_LONG_TODAY", TOO_LONG_TODAY | {listed})
    _planted(tmp_path, monkeypatch, {"_new.py": "x = 1\n" * (MAX_LINES + 1), listed.replace(".", "/") + ".py": "x = 1\n" * MAX_LINES})
    new, stale = long_modules(_modules())
    assert new == [f"_new: {MAX_LINES + 1} lines (split it; at most {MAX_LINES})"]
    assert stale == [f"{listed}: now {MAX_LINES} lines: take it off TOO_LONG_TODAY"]


# ------------------------------------------- what a learner's kernel loads


def test_a_learners_notebook_loads_nothing_of_the_instructor_side(tmp_path):
    """A generated learner notebook, run in a fresh kernel, as it comes: its exercise cells load only the kernel side."""
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    nb = nbformat.read(PACKAGE.parent / "notebooks" / "FA-100786.ipynb", as_version=4)
    assert any("fm.exercise(" in cell.source for cell in nb.cells if cell.cell_type == "code")
    nb.cells.append(nbformat.v4.new_code_cell(
        "import json, sys\nprint(json.dumps(sorted(m for m in sys.modules if m.startswith('failuremap_edu'))))"
    ))
    nbclient.NotebookClient(nb, timeout=240, kernel_name="python3", allow_errors=False,
                            resources={"metadata": {"path": str(tmp_path)}}).execute()
    loaded = json.loads(nb.cells[-1].outputs[0]["text"])
    assert "failuremap_edu._exercise" in loaded and "failuremap_edu.runner" in loaded  # the exercise did run
    assert [m for m in loaded if m == "failuremap_edu.instructor" or m.startswith("failuremap_edu.instructor.")] == []


def test_import_failuremap_edu_and_an_exercise_load_nothing_of_the_instructor_side(tmp_path):
    """The same in a plain Python: the package, an exercise with a solve, a script's run_checks."""
    code = (
        "import json, sys\nimport failuremap_edu as fm\n"
        "@fm.exercise('FA-100786')\ndef solve(text, stops):\n    return (text, '')\n"
        "fm.run_checks('FA-100786', solve).summary()\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith('failuremap_edu'))))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=240, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    loaded = json.loads(done.stdout.splitlines()[-1])
    assert "failuremap_edu._exercise" in loaded
    assert [m for m in loaded if m.startswith("failuremap_edu.instructor")] == []
