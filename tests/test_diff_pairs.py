"""Comparison pairs, in the categories of pytest's own comparison tests, checked for the truth.

Every pair goes through `portable` as a check's values do (the worker sends plain data),
then through the diff. Generic checks then hold every explanation against the two
values themselves: a path named as differing really differs, an index really holds
different items, "the same items in a different order" is said only of a
rearrangement, "the items are the same" only when they are, a type only when the
types differ (a frozenset equals a set: no type there), a line only where the texts
really have that line. Two different values are never explained by silence, and
"no difference" is never said of two different values.
The cases of issue 21 section 4 are also rendered and checked against exact strings.
"""

from __future__ import annotations

import ast
import collections
import dataclasses
import math
import re
from typing import Any, NamedTuple

import pytest

from failuremap_edu._diff import Diff, Difference, diff
from failuremap_edu.render._text import render_diff
from failuremap_edu._claims import equal
from failuremap_edu._values import Opaque
from failuremap_edu._portable import portable

# ----------------------------------------------------------------- the values


@dataclasses.dataclass
class Point:
    x: int
    y: int


@dataclasses.dataclass
class Run:
    name: str
    scores: list
    origin: Point
    comment: str = dataclasses.field(default="", compare=False)


@dataclasses.dataclass
class Other:
    x: int
    y: int


class Span(NamedTuple):
    start: int
    end: int


Pair = collections.namedtuple("Pair", "left right")


class Config(collections.abc.Mapping):
    """A Mapping that is no dict: == compares it as one."""

    def __init__(self, data):
        self._data = dict(data)

    def __getitem__(self, key):
        return self._data[key]

    def __iter__(self):
        return iter(self._data)

    def __len__(self):
        return len(self._data)


long_a = list(range(300))
long_b = long_a[:-1] + [1000]
grid = [[0, 1, 1], [0, 0, 1], [0, 0, 0]]
wide = [[i] * 100 for i in range(300)]
wide_changed = [row[:] for row in wide]
wide_changed[-1][50] = -1
long_text = "x" * 300

PAIRS: list[tuple[str, Any, Any]] = [
    # text
    ("text one letter", "spam", "spbm"),
    ("text extra letter", "abc", "abxc"),
    ("text missing letter", "hello world", "hello wrld"),
    ("text whole word", "spam", "eggs"),
    ("text words of different length", "hello", "world!"),
    ("text empty", "", "abc"),
    ("text to empty", "abc", ""),
    ("text case", "Hello", "hello"),
    ("text long common prefix", "x" * 500 + "abc", "x" * 500 + "abd"),
    ("text huge", "y" * 200_000 + "a", "y" * 200_000 + "b"),
    ("text several edits", "abcdef", "xbyyez"),
    ("text in list", ["a1", "b1"], ["a1", "c1"]),
    # multi-line text
    ("lines inserted", "a\nb\nc\n", "a\nX\nY\nZ\nb\nc\n"),
    ("lines removed", "one\ntwo\nthree\n", "one\nthree\n"),
    ("line changed", "spam\neggs\nham\n", "spam\nbacon\nham\n"),
    ("line changed by a space", "a\nb", "a \nb"),
    ("lines far apart", "\n".join(map(str, range(30))), "\n".join("five" if i == 5 else "25!" if i == 25 else str(i) for i in range(30))),
    ("lines final break", "a\nb", "a\nb\n"),
    ("lines many changed", "\n".join(f"line {i}" for i in range(100)), "\n".join(f"line {i * 2}" for i in range(100))),
    ("lines crlf", "a\r\nb\r\n", "a\nb\n"),
    # whitespace
    ("trailing space", "abc ", "abc"),
    ("leading space", " abc", "abc"),
    ("tab against spaces", "a\tb", "a    b"),
    ("double space", "a  b", "a b"),
    ("no-break space", "a b", "a\u00a0b"),
    ("zero-width space", "ab", "a\u200bb"),
    # Unicode
    ("combining accent", "caf\u00e9", "cafe\u0301"),
    ("accented letter", "café", "cafe"),
    ("greek", "αβγ", "αβδ"),
    ("emoji", "ok 👍", "ok 👎"),
    ("cjk in a list", ["東京", "大阪"], ["東京", "京都"]),
    # lists
    ("list one item", [1, 2, 3], [1, 2, 4]),
    ("list missing item", [1, 2, 3, 4], [1, 3, 4]),
    ("list extra item", [1, 2], [1, 2, 5]),
    ("list reordered", ["b1", "a1"], ["a1", "b1"]),
    ("list not a rearrangement", [1, 2, 2], [2, 1, 1]),
    ("list empty", [], [1]),
    ("list of floats", [0.1, 0.2, 0.3], [0.1, 0.2, 0.30000000000000004]),
    ("list int against float", [1, 2], [1.0, 2]),
    ("list of bools", [True, False], [True, True]),
    ("list against None", [1], None),
    ("list long strings changed in the middle", [long_text, "b"], ["b", long_text[:150] + "X" + long_text[151:]]),
    ("list long strings aligned", [long_text, "b", "c"], [long_text[:150] + "X" + long_text[151:], "c"]),
    # tuples
    ("tuple against list, same items", ("hello", "<st"), ["hello", "<st"]),
    ("list against tuple, same items", [1, 2], (1, 2)),
    ("tuple against list, different items", (1, 2, 3), [1, 2, 4]),
    ("tuple against list, int against float", (1,), [1.0]),
    ("tuple of tuples against lists", [(0, 3), (4, 6)], [[0, 3], [4, 7]]),
    ("tuple swapped", ("hello", ""), ("", "hello")),
    ("tuple shorter", ("hello", "<st"), ("hello<st",)),
    # dicts
    ("dict value", {"a": 1, "b": 2}, {"a": 1, "b": 3}),
    ("dict missing key", {"a": 1, "b": 2}, {"a": 1}),
    ("dict extra key", {"a": 1}, {"a": 1, "z": 0}),
    ("dict key type", {1: "a"}, {True: "a"}),
    ("dict nested", {"lr": 0.1, "opt": {"name": "adam", "m": [1, 2]}}, {"lr": 0.1, "opt": {"name": "sgd", "m": [1, 3]}, "x": 1}),
    ("dict per class", {"cat": {"p": 0.5, "r": 1.0}, "dog": {"p": 1.0, "r": 0.5}}, {"cat": {"p": 1.0, "r": 0.5}, "dog": {"p": 0.5, "r": 1.0}}),
    ("ordered dict order", collections.OrderedDict(a=1, b=2), collections.OrderedDict(b=2, a=1)),
    ("ordered dict value", collections.OrderedDict(a=1, b=2), collections.OrderedDict(a=1, b=3)),
    ("defaultdict", collections.defaultdict(int, a=1), collections.defaultdict(int, a=2)),
    ("mapping class", Config({"a": 1, "b": 2}), Config({"a": 1, "b": 3})),
    ("mapping class against dict", {"a": 1}, Config({"a": 2})),
    ("keys view", {"a": 1, "b": 2}.keys(), {"a": 1, "c": 2}.keys()),
    ("items view", {"a": 1}.items(), {"a": 2}.items()),
    ("keys view against set", {"a", "b"}, {"a": 1, "c": 2}.keys()),
    ("keys view against frozenset", frozenset({"a", "b"}), {"a": 1, "c": 2}.keys()),
    # sets
    ("set members", {1, 2}, {2, 3}),
    ("frozenset against set", frozenset({0, 1}), {0, 2}),
    ("set against frozenset", {0, 1}, frozenset({0, 1, 2})),
    ("set member type", {1, 2}, {1.0, 3}),
    ("set of tuples", {(1, 2), (3, 4)}, {(1, 2), (3, 5)}),
    # nested
    ("nested list of dicts", [{"a": [1, {"b": 2}]}], [{"a": [1, {"b": 3}]}]),
    ("nested grid", grid, [[0, 1, 1], [0, 0, 1], [0, 0, 1]]),
    ("nested grid row", grid, [[0, 1, 1], [0, 1, 1], [0, 0, 0]]),
    ("nested tuples in a dict", {"spans": [(0, 3)]}, {"spans": [[0, 3]]}),
    # dataclasses
    ("dataclass field", Point(1, 2), Point(1, 3)),
    ("dataclass two fields", Point(1, 2), Point(0, 3)),
    ("dataclass nested", Run("a", [1, 2], Point(0, 0)), Run("a", [1, 3], Point(0, 1))),
    ("dataclass other class", Point(1, 2), Other(1, 2)),
    ("dataclass compare=False field", Run("a", [1], Point(0, 0), "x"), Run("b", [1], Point(0, 0), "y")),
    ("dataclass in a list", [Point(0, 0), Point(1, 1)], [Point(0, 0), Point(1, 2)]),
    ("dataclass against None", Point(1, 2), None),
    # named tuples
    ("named tuple field", Span(0, 3), Span(0, 4)),
    ("collections namedtuple", Pair("a", [1]), Pair("a", [2])),
    ("named tuple against tuple", (0, 3), Span(0, 4)),
    ("tuple against named tuple", Span(0, 3), (0, 4)),
    ("named tuples in a list", [Span(0, 3), Span(4, 6)], [Span(0, 3), Span(4, 7)]),
    ("list against named tuple", [0, 3], Span(0, 4)),
    # long sequences
    ("long list last item", long_a, long_b),
    ("long list of rows last item", wide, wide_changed),
    ("long list shorter", list(range(1000)), list(range(999))),
    ("long list every item", list(range(100)), [x + 1 for x in range(100)]),
    ("huge list one item", list(range(100_000)), list(range(50_000)) + [-1] + list(range(50_001, 100_000))),
    ("long tuple shifted", tuple(range(50)), tuple(range(1, 51))),
    # bytes
    ("bytes one byte", b"spam", b"spbm"),
    ("bytes longer", b"spam", b"spam!!"),
    ("bytes shorter", b"spam", b"sp"),
    ("bytes several", b"\x00\x01\x02\x03", b"\x00\xff\x02\xfe"),
    ("bytes against str", b"abc", "abc"),
    # numbers
    ("int", 1, 2),
    ("int against float same value", 1, 1.0),
    ("int against float", 1, 1.5),
    ("float near miss", 0.6667, 0.6666),
    ("float nan", float("nan"), 1.0),
    ("float inf", float("inf"), 1e308),
    ("float tiny", 0.0, 1e-12),
    ("complex", 1 + 2j, 1 + 3j),
    ("bool against int", True, 1),
    ("str against int", "1", 1),
    ("big int", 10**30, 10**30 + 1),
]


# ---------------------------------------------------------------- path reading

MISSING = object()
_SEGMENT = re.compile(r"\.([A-Za-z_]\w*)|\[")


def _plain(value):
    return value.plain if isinstance(value, Opaque) and value.plain is not None else value


def _step(value, segment):
    kind, key = segment
    if kind == "field":
        if not isinstance(value, Opaque) or value.fields is None:
            return MISSING
        return dict(value.fields).get(key, MISSING)
    value = _plain(value)
    try:
        return value[key]
    except (KeyError, IndexError, TypeError):
        return MISSING


def segments(path: str) -> list[tuple[str, Any]]:
    """``[0]['a'].x`` as [("item", 0), ("item", "a"), ("field", "x")], reading keys as literals."""
    out, i = [], 0
    while i < len(path):
        match = _SEGMENT.match(path, i)
        assert match, f"unreadable path {path!r} at {i}"
        if match.group(1):
            out.append(("field", match.group(1)))
            i = match.end()
            continue
        # a literal key: find the closing bracket that ends a valid literal
        for end in range(i + 2, len(path) + 1):
            if path[end - 1] == "]":
                try:
                    out.append(("item", ast.literal_eval(path[i + 1 : end - 1])))
                    break
                except (ValueError, SyntaxError):
                    continue
        else:
            raise AssertionError(f"unreadable key in {path!r}")
        i = end
    return out


def at(value, path: str):
    for segment in segments(path):
        value = _step(value, segment)
        if value is MISSING:
            return MISSING
    return value


# ----------------------------------------------------------- what is true here


def deep_same(a, b) -> bool:
    """Equal by == (on the portable view): what "no difference" means; a type that == ignores is none."""
    return equal(a, b)


def rearrangement(a, b) -> bool:
    """b holds the same items as a (with their types), each as often, in another order."""
    rest = list(b)
    for item in a:
        for n, other in enumerate(rest):
            if deep_same(item, other):
                del rest[n]
                break
        else:
            return False
    return not rest


def type_of(value) -> str:
    return value.type_name if isinstance(value, Opaque) else type(value).__name__


def literal(text: str):
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return MISSING


def check_text_detail(e: str, a: str, d: Difference) -> None:
    t = d.text
    assert e[: t.index] == a[: t.index], f"{d.path}: the strings differ before index {t.index}"
    assert t.index == min(len(e), len(a)) or e[t.index] != a[t.index], f"{d.path}: index {t.index} is not where they part"
    assert (t.expected_length, t.actual_length) == (len(e), len(a))
    shown_e = "".join(x.expected for x in t.edits)
    shown_a = "".join(x.actual for x in t.edits)
    assert shown_e == e[t.clipped_before : len(e) - t.expected_clipped], f"{d.path}: the expected window is not expected's text"
    assert shown_a == a[t.clipped_before : len(a) - t.actual_clipped], f"{d.path}: the got window is not got's text"
    for x in t.edits:
        assert e[x.expected_index : x.expected_index + len(x.expected)] == x.expected
        assert a[x.actual_index : x.actual_index + len(x.actual)] == x.actual
        if x.op == "equal":
            assert x.expected == x.actual
        else:
            assert x.expected != x.actual
    for index in map(int, re.findall(r"at index (\d+)(?! \()", d.message)):
        assert index < max(len(e), len(a)), f"{d.path}: index {index} is past both strings"


def check_lines(e: str, a: str, d: Difference) -> None:
    e_lines, a_lines = e.splitlines(keepends=True), a.splitlines(keepends=True)
    lines = d.lines
    assert (lines.expected_lines, lines.actual_lines) == (len(e_lines), len(a_lines))

    def shown(line):
        return line.removesuffix("\n")

    for x in lines.edits:
        if x.op in ("equal", "replace", "delete"):
            assert shown(e_lines[x.expected_line - 1]).startswith(x.expected.rstrip("…")), f"line {x.expected_line} is not expected's"
        if x.op in ("equal", "replace", "insert"):
            assert shown(a_lines[x.actual_line - 1]).startswith(x.actual.rstrip("…")), f"line {x.actual_line} is not got's"
        if x.op == "equal":  # lines are compared without their final line break
            assert shown(e_lines[x.expected_line - 1]) == shown(a_lines[x.actual_line - 1])
        if x.op == "replace":
            assert shown(e_lines[x.expected_line - 1]) != shown(a_lines[x.actual_line - 1])
    if e.endswith("\n") != a.endswith("\n"):  # ... and a difference there is said in words
        assert "ends with a line break, the other does not" in d.message
    assert [shown(x) for x in e_lines] != [shown(x) for x in a_lines], "a line diff of texts whose lines are the same"
    for first, last in re.findall(r"lines? ([\d,]+)(?:–([\d,]+))? differs?", d.message):
        for n in range(int(first), int(last or first) + 1):
            assert n > len(e_lines) or n > len(a_lines) or e_lines[n - 1] != a_lines[n - 1] or len(e_lines) != len(a_lines), f"line {n} does not differ"
    for first, last in re.findall(r"got is missing lines? ([\d,]+)(?:–([\d,]+))? of expected", d.message):
        assert int(last or first) <= len(e_lines)
    for first, last in re.findall(r"extra lines? at lines? ([\d,]+)(?:–([\d,]+))?", d.message):
        assert int(last or first) <= len(a_lines)


def check_difference(exp, act, d: Difference) -> None:
    """One explanation, held against the two values it explains."""
    message = d.message
    if d.kind == "depth":
        return
    if message.startswith(("key ", "member ")):  # a claim about the type of a key or a member
        assert d.kind == "type"
        holder = parent_and_last_path(d.path) if message.startswith("key ") else d.path
        key = literal(d.expected)
        stored = {k: k for k in _plain(at(act, holder))}
        assert key in stored and type(stored[key]) is not type(key), f"{d.path}: the key types do not differ"
        return
    if d.kind in ("missing", "extra") and message.startswith(("missing member", "extra member")):
        container_e, container_a = _plain(at(exp, d.path)), _plain(at(act, d.path))
        member = literal(message.split(" member ", 1)[1])
        if member is not MISSING:
            has, lacks = (container_e, container_a) if d.kind == "missing" else (container_a, container_e)
            assert member in has and member not in lacks, f"{d.path}: {message} is false"
        return
    if d.kind == "missing":
        assert at(exp, d.path) is not MISSING, f"{d.path}: expected has nothing there"
        if message.startswith(("missing key", "missing field")):
            assert at(act, d.path) is MISSING, f"{d.path}: got has it"
        return
    if d.kind == "extra":
        assert at(act, d.path) is not MISSING, f"{d.path}: got has nothing there"
        if message.startswith(("extra key", "extra field")):
            assert at(exp, d.path) is MISSING, f"{d.path}: expected has it"
        return
    e, a = at(exp, d.path), at(act, d.path)
    assert e is not MISSING and a is not MISSING, f"{d.path}: not a path into both values"
    if d.kind == "length":
        e_len, a_len = len(_plain(e)), len(_plain(a))
        assert e_len != a_len
        assert message == f"expected {e_len:,} item{'s' if e_len != 1 else ''}, got {a_len:,}"
        return
    assert not deep_same(e, a), f"{d.path}: named as differing, but the values there are the same: {message}"
    if d.kind == "order":
        e_plain, a_plain = _plain(e), _plain(a)
        if isinstance(e_plain, dict):
            assert e_plain == a_plain and list(e_plain) != list(a_plain)
        else:
            assert rearrangement(e_plain, a_plain), f"{d.path}: not the same items: {message}"
    if "the items are the same" in message:
        assert deep_same(list(_plain(e)), list(_plain(a))), f"{d.path}: the items are not the same"
    if d.kind in ("type", "opaque"):
        assert type_of(e) != type_of(a), f"{d.path}: the types are the same: {message}"
        assert {type(e), type(a)} - {set, frozenset}, f"{d.path}: a frozenset equals a set: {message}"
    if d.kind == "none":
        assert (e is None) != (a is None)
    if d.kind in ("text", "invisible"):
        e, a = _plain(e), _plain(a)  # a str subclass is compared as the str it is
        assert type(e) is str and type(a) is str
        if d.text is not None:
            check_text_detail(e, a, d)
        if getattr(d, "lines", None) is not None:
            check_lines(e, a, d)
    if isinstance(e, bytes) and isinstance(a, bytes):
        for index in map(int, re.findall(r"at index (\d+)", message)):
            assert e[:index] == a[:index] and (index == min(len(e), len(a)) or e[index] != a[index]), f"byte {index} is not where they part"
        byte = re.search(r"expected the byte (b'.+?') \(0x([0-9a-f]{2})\) but got (b'.+?') \(0x([0-9a-f]{2})\)", message)
        if byte:
            index = int(re.search(r"at index (\d+)", message).group(1))
            assert literal(byte.group(1)) == e[index : index + 1] and int(byte.group(2), 16) == e[index]
            assert literal(byte.group(3)) == a[index : index + 1] and int(byte.group(4), 16) == a[index]
    if d.kind == "number":
        assert e != a
    if d.kind == "nan":
        assert isinstance(e, float) and (math.isnan(e) or math.isnan(a))


def parent_and_last_path(path: str) -> str:
    """The path of the dict that holds the key named last in `path`."""
    parts = segments(path)
    rebuilt = ""
    for kind, key in parts[:-1]:
        rebuilt += f".{key}" if kind == "field" else f"[{key!r}]"
    return rebuilt


def check_diff(original_e, original_a, result: Diff, exp, act) -> None:
    if result.equal:
        assert _eq(original_e, original_a), "no difference is said of two different values"
    if not _eq(original_e, original_a):
        assert not result.equal and (result.differences or result.hint), "two different values are explained by silence"
    for d in result.differences:
        check_difference(exp, act, d)
    check_complete(exp, act, result)


def check_complete(exp, act, result: Diff) -> None:
    """Within the budget, every differing item of two lists of one length, or value of one key, is named."""
    if result.omitted or any(d.kind in ("order", "depth") or d.text or getattr(d, "lines", None) for d in result.differences):
        return
    e, a = _plain(exp), _plain(act)
    if any(isinstance(v, Opaque) and v.own_eq for v in (exp, act)):
        return  # its own == decides: the fields may not be what it compares, and none is named
    if isinstance(exp, Opaque) and isinstance(act, Opaque) and exp.fields is not None and act.fields is not None:
        fields = dict(act.fields)
        children = [(f".{name}", v, fields[name]) for name, v in exp.fields if name in fields]
    elif isinstance(e, (list, tuple)) and isinstance(a, (list, tuple)) and len(e) == len(a):
        children = [(f"[{i}]", x, y) for i, (x, y) in enumerate(zip(e, a))]
    elif isinstance(e, dict) and isinstance(a, dict):
        children = [(f"[{k!r}]", v, a[k]) for k, v in e.items() if k in a]
    else:
        return
    named = [d.path for d in result.differences]
    for path, x, y in children:
        if not deep_same(x, y):
            assert any(p == path or p.startswith((path + "[", path + ".")) for p in named), f"{path} differs but is not named"


def _eq(a, b) -> bool:
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001
        return False


@pytest.mark.parametrize("name, expected, actual", PAIRS, ids=[p[0] for p in PAIRS])
def test_no_explanation_is_false(name, expected, actual):
    exp, act = portable(expected), portable(actual)
    result = diff(exp, act)
    check_diff(expected, actual, result, exp, act)
    for d in result.differences:
        assert d.message and len(d.expected) <= 160 and len(d.actual) <= 160
    assert len("\n".join(render_diff(result))) < 4_000  # the budget bounds what is shown, whatever the values


def test_there_are_enough_pairs_in_every_category():
    assert len(PAIRS) >= 60
    words = " ".join(name for name, _, _ in PAIRS)
    for category in ("text", "lines", "list", "tuple", "dict", "set", "nested", "dataclass", "named tuple", "long", "bytes",
                     "float", "int", "space", "combining", "mapping"):
        assert category in words, category


# ---------------------------------------------- the cases of section 4, exactly


def why(expected, actual) -> list[str]:
    return render_diff(diff(portable(expected), portable(actual)), "")


@pytest.mark.parametrize(
    "expected, actual, lines",
    [
        pytest.param(Point(1, 2), Point(1, 3), ["- .y: expected 2, got 3"], id="dataclass field by name"),
        pytest.param(
            Run("a", [1, 2], Point(0, 0)), Run("a", [1, 3], Point(0, 1)),
            ["- .scores[1]: expected 2, got 3", "- .origin.y: expected 0, got 1"], id="dataclass nested fields",
        ),
        pytest.param(Point(1, 2), Other(1, 2), ["- expected a test_diff_pairs.Point object, got a test_diff_pairs.Other object"], id="dataclass of another class"),
        pytest.param(Span(0, 3), Span(0, 4), ["- .end: expected 3, got 4"], id="named tuple field by name"),
        pytest.param(
            Span(0, 3), (0, 4),
            ["- [1]: expected 3, got 4"], id="named tuple against tuple",
        ),
        pytest.param(
            [0, 3], Span(0, 4),
            ["- expected a list, got a test_diff_pairs.Span object (and a tuple never equals a list, even with the same items)",
             "- [1]: expected 3, got 4"],
            id="list against named tuple, then the items",
        ),
        pytest.param(Config({"a": 1, "b": 2}), Config({"a": 1, "b": 3}), ["- ['b']: expected 2, got 3"], id="mapping class"),
        pytest.param(
            {"a": 1}, Config({"a": 2}),
            ["- ['a']: expected 1, got 2"], id="dict against mapping",
        ),
        pytest.param({"a": 1, "b": 2}.keys(), {"a": 1, "c": 2}.keys(), ["- missing member 'b'", "- extra member 'c'"], id="keys views"),
        pytest.param(
            {"a", "b"}, {"a": 1, "c": 2}.keys(),
            ["- missing member 'b'", "- extra member 'c'"],
            id="set against keys view",
        ),
        pytest.param(b"spam", b"spbm", ["- at index 2, expected the byte b'a' (0x61) but got b'b' (0x62)"], id="bytes one byte"),
        pytest.param(
            b"\x00\x01\x02\x03", b"\x00\xff\x02\xfe",
            ["- at index 1, expected the byte b'\\x01' (0x01) but got b'\\xff' (0xff); 2 bytes differ in all"], id="bytes several",
        ),
        pytest.param(b"spam", b"spam!!", ["- got has 2 extra bytes b'!!' at index 4"], id="bytes longer"),
        pytest.param(b"spam", b"spa", ["- got is missing the byte b'm' (0x6d) at index 3"], id="bytes shorter"),
        pytest.param(
            "a\nb\nc\n", "a\nX\nY\nZ\nb\nc\n",
            ["- got has 3 extra lines at lines 2–4", "              'a'", "    got:      'X'", "    got:      'Y'", "    got:      'Z'",
             "              'b'", "              …"],
            id="three inserted lines",
        ),
        pytest.param(
            "one\ntwo\nthree\nfour\n", "one\nthree\nfour\nfive\n",
            ["- 2 changes: got is missing line 2 of expected; got has an extra line at line 4", "              'one'",
             "    expected: 'two'", "              'three'", "              'four'", "    got:      'five'"],
            id="a line missing and a line extra",
        ),
        pytest.param(
            "spam\neggs\nham\n", "spam\nbacon\nham\n",
            ["- line 2: at index 0, expected 'eggs' but got 'bacon'", "              'spam'", "    expected: '⟦eggs⟧'",
             "    got:      '⟦bacon⟧'", "              'ham'"],
            id="one changed line",
        ),
        pytest.param("spam", "eggs", ["- at index 0, expected 'spam' but got 'eggs'", "    expected: '⟦spam⟧'", "    got:      '⟦eggs⟧'"], id="whole words"),
        pytest.param(
            collections.OrderedDict(a=1, b=2), collections.OrderedDict(b=2, a=1),
            [("- the same keys and values in a different order: an OrderedDict compares the order of its keys too; "
              "expected keys ['a', 'b'], got ['b', 'a']")],
            id="ordered dict order",
        ),
        pytest.param(frozenset({0, 1}), {0, 2}, ["- missing member 1", "- extra member 2"], id="frozenset against set"),
        pytest.param(long_a, long_b, ["Only the last position differs.", "- [299]: expected 299, got 1000"], id="300 items, the last differs"),
        pytest.param(wide, wide_changed, ["- [299][50]: expected 299, got -1"], id="300 long rows, the last differs"),
        pytest.param(
            (1, 2, 3), [1, 2, 4],
            ["- expected a tuple, got a list (and a tuple never equals a list, even with the same items)", "- [2]: expected 3, got 4"],
            id="tuple against list, then the items",
        ),
        pytest.param(
            (1,), [1.0],
            ["- expected a tuple, got a list: the items are the same, but a tuple never equals a list, so == fails"],
            id="tuple against list, the items equal but not the same",
        ),
        pytest.param(
            [(0, 3), (4, 6)], [[0, 3], [4, 7]],
            ["- [0]: expected a tuple, got a list: the items are the same, but a tuple never equals a list, so == fails",
             "- [1]: expected a tuple, got a list (and a tuple never equals a list, even with the same items)",
             "- [1][1]: expected 6, got 7"],
            id="tuples against lists, every item",
        ),
    ],
)
def test_section_4_cases_read_exactly(expected, actual, lines):
    assert why(expected, actual) == lines


def test_attrs_classes_are_compared_by_field():
    attrs = pytest.importorskip("attrs")

    @attrs.define
    class Box:
        w: int
        h: int = attrs.field(eq=False)

    assert why(Box(1, 2), Box(3, 4)) == ["- .w: expected 1, got 3"]
