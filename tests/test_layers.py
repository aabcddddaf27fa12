"""The layout shows the layers: no module imports a module of a higher layer.

Read with `ast`, so a lazy import inside a function counts as much as one at the
top. The one exception is the display mixin's delegation to the renderers, which
names them in strings (`_display.Shown`), not in import statements.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "failuremap_edu"

LAYERS = [
    # bottom first; a module may import its own layer and the ones below it
    ("values", {"_errors", "_values", "_display", "_atomic", "_logfile"}),
    ("source", {"_signature", "_code"}),
    ("records", {"_records"}),
    ("fixtures", {"_fixtures", "_solution", "_record_helpers"}),
    ("results", {"_results"}),
    ("runner", {"runner"}),
    ("data", {"_parity", "_claims", "_call_claims", "_diff_model", "_diff_text", "_diff_items", "_diff_walk", "_diff", "_patterns", "_progress", "_poster", "_store", "_need", "_handin", "_remote", "_report", "_authoring", "_weak_checks"}),
    ("renderers", {"render"}),
    ("teaching", {"_evidence", "_hints", "_story", "_download"}),
    ("model", {"_exercise", "_live"}),
    ("view", {"_panel", "_panel_parts"}),
    ("fronts", {"_cell", "_output", "_nbjson", "_notebook", "_workshop", "_release", "_preview", "_hub", "_lite", "_catalog", "_service", "_cli", "__main__", "__init__"}),
]
RANK = {name: rank for rank, (_, names) in enumerate(LAYERS) for name in names}


def _unit(module: str) -> str:
    """The layer unit of a dotted module name under the package: a subpackage counts as one."""
    return module.split(".")[0] if module else "__init__"


def _modules():
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).with_suffix("")
        if rel.parts[0] == "references":
            continue  # reference solutions: data for instructor notebooks, never imported
        yield ".".join(rel.parts), path


def _imports(module: str, path: Path):
    """(line, imported module) for every import of a failuremap_edu module, relative ones resolved."""
    package = module.split(".")[:-1] if not module.endswith("__init__") else module.split(".")[:-1]
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)] if node.level > 1 else package
                target = ".".join(base + ([node.module] if node.module else []))
            elif (node.module or "").startswith("failuremap_edu"):
                target = node.module.partition(".")[2]
            else:
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


def _edges():
    for module, path in _modules():
        for line, target in _imports(module, path):
            yield module, line, target


def test_every_module_has_a_layer():
    units = {_unit(module) for module, _ in _modules()}
    assert units - set(RANK) == set(), "add the new module to LAYERS in tests/test_layers.py"


def test_no_module_imports_a_higher_layer():
    upward = [
        f"{module}:{line} imports {target} ({LAYERS[RANK[_unit(target)]][0]} is above {LAYERS[RANK[_unit(module)]][0]})"
        for module, line, target in _edges()
        if _unit(target) in RANK and RANK[_unit(target)] > RANK[_unit(module)]
    ]
    assert upward == []


def test_nothing_outside_the_runner_imports_its_modules():
    """The process boundary has one door: `failuremap_edu.runner`'s own names."""
    inside = [
        f"{module}:{line} imports {target}"
        for module, line, target in _edges()
        if _unit(target) == "runner" and target != "runner" and _unit(module) != "runner"
    ]
    assert inside == []


@pytest.mark.parametrize("forbidden", ["_panel", "_cell", "ipywidgets", "IPython"])
def test_the_model_never_imports_its_view_or_a_front(forbidden):
    tree = ast.parse((PACKAGE / "_exercise.py").read_text())
    names = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    names |= {(n.module or "") for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert not any(forbidden in name.split(".") for name in names)


def test_the_checker_sees_an_upward_edge(tmp_path, monkeypatch):
    """The test above can fail: a values-layer module importing the model is caught."""
    fake = tmp_path / "failuremap_edu"
    fake.mkdir()
    (fake / "_values.py").write_text("from ._exercise import Exercise\n")
    (fake / "_exercise.py").write_text("")
    monkeypatch.setattr(__import__(__name__), "PACKAGE", fake)
    found = [(m, t) for m, _, t in _edges() if RANK[_unit(t)] > RANK[_unit(m)]]
    assert found == [("_values", "_exercise")]
