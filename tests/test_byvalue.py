"""Sending a notebook's solve by value: what travels, and what must not."""

from __future__ import annotations

import collections
from pathlib import Path
import math
import re

import pytest

from failuremap_edu.runner import _byvalue

LIMIT = 3
counter = {"calls": 0}


def _helper(x):
    return x * LIMIT


def _recursive(text):
    if len(text) > 3:
        return _recursive(text[:3])
    return [_helper(len(text)), math.sqrt(4), re.sub("a", "b", text), collections.Counter(text).most_common(1)]


def _counting():
    counter["calls"] += 1
    return counter["calls"]


def _roundtrip(obj):
    payload, modules = _byvalue.dumps(obj)
    return _byvalue.loads(payload), modules


def test_a_solve_with_helpers_recursion_and_modules_travels():
    solve, modules = _roundtrip(_recursive)
    assert solve is not _recursive
    assert solve("aaaab") == _recursive("aaaab") == [9, 2.0, "bbb", [("a", 3)]]
    assert {"math", "re", "collections"} <= modules


def test_closures_defaults_and_keyword_defaults_travel():
    def make(k):
        def solve(x, y=2, *, z=5):
            return x + y + z + k

        return solve

    solve, _ = _roundtrip(make(10))
    assert solve(1) == 18 and solve(1, 0, z=0) == 11


def test_functions_that_shared_globals_share_them_again():
    counting, reading = _roundtrip((_counting, lambda: counter["calls"]))[0]
    before = reading()
    counting()
    assert reading() == before + 1


def test_tracebacks_can_quote_a_cell_that_is_not_a_file():
    import linecache

    source = "def solve(x):\n    return 1 / x\n"
    filename = "<ipython-input-7-abc>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = {"__name__": "__main__"}
    exec(compile(source, filename, "exec"), namespace)
    payload, _ = _byvalue.dumps(namespace["solve"])
    del linecache.cache[filename]
    solve = _byvalue.loads(payload)
    with pytest.raises(ZeroDivisionError):
        solve(0)
    assert linecache.getline(filename, 2).strip() == "return 1 / x"


_CALLED: list[str] = []


class _LearnerClass:
    def __reduce__(self):  # pickling through this would run the learner's code in the caller
        _CALLED.append("__reduce__")
        return (object, ())

    def __getattribute__(self, name):  # so would any attribute read that goes through the class
        _CALLED.append(name)
        return object.__getattribute__(self, name)


_instance = _LearnerClass()
_instance.label = "kept"


def _uses_instance(x):
    return _instance


def test_a_learners_class_and_instance_travel_without_running_their_code():
    _CALLED.clear()
    payload, _ = _byvalue.dumps((_LearnerClass, _instance, _uses_instance))
    assert _CALLED == [], "nothing of the class ran while pickling"
    cls, obj, fn = _byvalue.loads(payload)  # in the worker, the class's code may run
    assert cls is not _LearnerClass and cls.__qualname__ == "_LearnerClass"
    assert type(obj) is cls and fn(0) is obj and obj.label == "kept"


class _Shape:
    sides = 0

    def __init__(self, name):
        self.name = name

    def describe(self):
        return f"{self.name} with {self.sides} sides, {self.area:.1f} square units"

    @property
    def area(self):
        return 0.0

    @staticmethod
    def unit():
        return "square units"

    @classmethod
    def make(cls, name):
        return cls(name)


class _Square(_Shape):
    sides = 4

    def __init__(self, name, side=2.0):
        super().__init__(name)
        self.side = side

    @property
    def area(self):
        return self.side**2


_BOARD = _Square.make("board")


def _describes(x):
    return _BOARD.describe(), _Square("tile", x).describe(), _Shape.unit(), isinstance(_BOARD, _Shape)


def test_plain_classes_travel_by_value_with_methods_properties_and_super():
    solve, _ = _roundtrip(_describes)
    assert solve(3.0) == _describes(3.0) == ("board with 4 sides, 4.0 square units", "tile with 4 sides, 9.0 square units", "square units", True)


def test_dataclasses_and_cached_helpers_travel():
    import dataclasses
    import functools

    @dataclasses.dataclass(frozen=True)
    class Point:
        x: int
        y: int = 0

    @functools.lru_cache(maxsize=8)
    def norm(x, y):
        return abs(x) + abs(y)

    def solve(a):
        p = Point(a, 2)
        return p, dataclasses.replace(p, y=5), norm(p.x, p.y), norm.cache_info().currsize

    got, _ = _roundtrip(solve)
    first, moved, length, cached = got(3)
    assert (repr(first), moved.y, length, cached) == (repr(Point(3, 2)), 5, 5, 1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        first.x = 4


class _Counts(dict):
    pass


class _Meta(type):
    pass


_WithMeta = _Meta("_WithMeta", (), {"__module__": "__main__"})  # defined in a notebook cell: nowhere to find it by name


class _BadSlots:
    pass


_BadSlots.__slots__ = ("a", 3)  # after the class statement, which would refuse it: the worker's would


@pytest.mark.parametrize(
    "obj, words",
    [
        (_BadSlots, "has __slots__ that are not a list of names"),
        (_Counts(a=1), "only instances of plain classes"),
        (_WithMeta, "has a metaclass (_Meta)"),
        (lambda: globals(), "looks names up dynamically (globals)"),
        (lambda x: eval(x), "looks names up dynamically (eval)"),
        ((x for x in ()), "TypeError"),
    ],
)
def test_what_cannot_travel_is_refused_without_running_it(obj, words):
    with pytest.raises(_byvalue.Unshippable) as caught:
        _byvalue.dumps(obj)
    assert words in str(caught.value)


def test_an_attribute_named_like_a_builtin_is_not_a_dynamic_lookup():
    class Frame:
        def eval(self, text):
            return text.upper()

    frame = Frame()
    solve, _ = _roundtrip(lambda text: frame.eval(text))
    assert solve("abc") == "ABC"


def test_a_huge_global_is_refused_early(monkeypatch):
    monkeypatch.setattr(_byvalue, "MAX_BYTES", 10_000)
    big = "x" * 50_000
    with pytest.raises(_byvalue.Unshippable, match="MB to send"):
        _byvalue.dumps(lambda: big)


def test_installed_modules_are_told_apart_from_the_learners():
    assert _byvalue.installed("json") and _byvalue.installed("math") and _byvalue.installed("pytest")
    assert _byvalue.installed("failuremap_edu.runner._api")
    assert not _byvalue.installed(__name__)  # this test file: shipped by value, never re-imported
    assert not _byvalue.installed("__main__")


def test_a_dataclass_defined_in_a_cell_keeps_its_fields_and_defaults():
    """dataclasses tests its markers with `is`: copies made fields() empty (astuple gave () in a learner trial)."""
    import dataclasses

    namespace = {"__name__": "__main__"}
    exec("from dataclasses import dataclass, field\n@dataclass\nclass Span:\n    start: int\n    end: int = field(default=0)\n", namespace)
    span = namespace["Span"]
    payload, _ = _byvalue.dumps(span(1, 2))
    back = _byvalue.loads(payload)
    assert [f.name for f in dataclasses.fields(back)] == ["start", "end"] and dataclasses.astuple(back) == (1, 2)
    assert type(back)(5).end == 0  # the default survived: MISSING is still MISSING


def test_named_tuples_and_classes_with_slots_defined_in_a_cell_travel():
    """A learner trial's cell defined the record's ``class Batch(NamedTuple)``: every run stopped with CannotSend
    ("class Batch uses __slots__"), and nothing on screen said how to go on."""
    namespace = {"__name__": "__main__"}
    exec(
        "import collections\nfrom typing import NamedTuple\n"
        "class Batch(NamedTuple):\n    inputs: list\n    targets: list = []\n"
        "    def __iter__(self):\n        raise RuntimeError('ran in the caller')\n"
        "Pair = collections.namedtuple('Pair', 'a b')\n"
        "class Point:\n    __slots__ = ('x', '__y')\n    def __init__(self):\n        self.x, self.__y = 1, 2\n"
        "    def total(self):\n        return self.x + self.__y\n"
        "EMPTY = Batch([], [9])\n"
        "def solve(t):\n    return Batch(list(t), [Pair(1, 2)]), Point().total(), EMPTY.targets\n",
        namespace,
    )
    solve, _ = _roundtrip(namespace["solve"])
    batch, total, empty = solve((1, 2))
    # (its own __iter__ raises: sending EMPTY read its items with tuple's code, not the class's)
    assert (type(batch).__name__, type(batch)._fields, batch.inputs, batch.targets) == ("Batch", ("inputs", "targets"), [1, 2], [(1, 2)])
    assert type(batch) is not namespace["Batch"] and type(batch).__slots__ == () and (total, empty) == (3, [9])
    assert type(batch)([5]).targets == []  # the field's default came too


COLORS = "from enum import Enum\n\n\nclass Color(Enum):\n    RED = 1\n    GREEN = 2\n"


def test_an_enum_from_a_module_beside_the_notebook_travels_by_name_with_its_members(tmp_path, monkeypatch):
    """A cell imports `Color` from colors.py next to the notebook: the worker imports colors afresh, by name."""
    import importlib
    import uuid

    from failuremap_edu import run_checks
    from failuremap_edu.instructor._notebook import reference_path

    name = f"fm_colors_{uuid.uuid4().hex[:8]}"
    (tmp_path / f"{name}.py").write_text(COLORS)
    monkeypatch.syspath_prepend(str(tmp_path))  # the notebook's folder: the kernel's working folder, on sys.path
    colors = importlib.import_module(name)
    cell = f"import {name} as palette\nfrom {name} import Color\nDEFAULT = Color.GREEN\n" + reference_path("FA-100786", Path(__file__).resolve().parent.parent / "references").read_text().replace(
        "def solve(text, stops):\n", "def solve(text, stops):\n    assert palette.Color.RED is Color.RED and DEFAULT is Color.GREEN\n")
    namespace = {"__name__": "__main__"}
    exec(compile(cell, "<cell>", "exec"), namespace)
    (cls, member), modules = _roundtrip((colors.Color, namespace["DEFAULT"]))
    assert cls is colors.Color and member is colors.Color.GREEN and name in modules
    result = run_checks("FA-100786", namespace["solve"], isolation="process")
    assert result.problem is None and [o.status for o in result.observations] == ["pass"] * 6
