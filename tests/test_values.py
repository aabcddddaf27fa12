"""The bottom layer: clipping, calls as text, error payloads."""

from __future__ import annotations

from failuremap_edu._values import clip, render_call, safe_repr, text_safe

def test_clip_keeps_short_text_and_marks_a_cut():
    assert clip("abc", 3) == "abc"
    assert clip("abcdef", 4) == "abc…"
    assert clip("a\n  b\tc", 10, one_line=True) == "a b c"
    assert clip("a\n  b\tc", 10) == "a\n  b\tc"


def test_keep_end_shows_both_ends_of_a_long_value():
    text = safe_repr("x" * 500 + "END", 60, keep_end=True)
    assert len(text) <= 70 and text.startswith("'xxx") and text.endswith("END'") and " … " in text
    assert safe_repr([1, 2], 60, keep_end=True) == "[1, 2]"


def test_render_call_reads_like_the_call_a_learner_would_type():
    assert render_call(("hello<st", ["<stop>"]), {"strict": True}) == "solve('hello<st', ['<stop>'], strict=True)"
    assert render_call(("x" * 2_000,), {}).endswith("…)")


def test_a_sys_exit_says_what_happened_and_what_to_do():
    from failuremap_edu._values import error_payload

    for exc, shown in ((SystemExit(), "sys.exit()"), (SystemExit(3), "sys.exit(3)"), (SystemExit("bye"), "sys.exit('bye')")):
        payload = error_payload(exc)
        assert payload["type"] == "SystemExit"
        assert payload["message"] == (
            f"solve called {shown} (or exit()), which would end a whole program; here it only ended this call of solve. Return a value instead."
        )


# ------------------------------------------------ values that travel as fields

import collections
import dataclasses

import pytest

from failuremap_edu._values import Opaque, portable


@dataclasses.dataclass
class Span:
    start: int
    end: int
    note: str = dataclasses.field(default="", compare=False)


Pair = collections.namedtuple("Pair", "left right")


class Frozen(collections.abc.Mapping):
    def __init__(self, data):
        self._data = dict(data)

    def __getitem__(self, key):
        return self._data[key]

    def __iter__(self):
        return iter(self._data)

    def __len__(self):
        return len(self._data)


def test_a_dataclass_travels_with_the_fields_its_eq_compares():
    out = portable(Span(1, [2, 3], note="ignored by =="))
    assert type(out) is Opaque and out.type_name.endswith("Span") and out.plain is None
    assert out.fields == (("start", 1), ("end", [2, 3]))
    assert out == portable(Span(1, [2, 3], note="other")) and out != portable(Span(1, [2, 4]))


def test_attrs_and_named_tuples_travel_with_their_fields():
    attrs = pytest.importorskip("attrs")
    Box = attrs.define(type("Box", (), {"__annotations__": {"w": int, "h": int}}))
    assert portable(Box(1, 2)).fields == (("w", 1), ("h", 2))
    out = portable(Pair(1, (2,)))
    assert out.plain == (1, (2,)) and out.fields == (("left", 1), ("right", (2,)))


def test_a_named_tuple_prints_as_a_list_and_is_compared_as_a_tuple():
    """The harness's json.dumps prints a named tuple as a list: the replay must say the same (parity held 'null')."""
    from failuremap_edu._results import to_jsonable

    out = portable(Pair([1], "a"))
    assert (out.printable, out.plain_eq) == (True, True) and to_jsonable({"actual": out}) == {"actual": [[1], "a"]}
    ordered = portable(collections.OrderedDict(a=1))  # its == minds the order: not a plain dict's
    assert (ordered.printable, ordered.plain_eq) == (True, False)
    assert (portable(Frozen({"a": 1})).printable, portable(Frozen({"a": 1})).plain_eq) == (False, False)  # json.dumps refuses it
    assert to_jsonable(portable(Frozen({"a": 1}))) is None and to_jsonable(portable(Span(1, 2))) is None


def test_mappings_and_dict_views_travel_with_a_plain_equivalent():
    assert portable(Frozen({"a": [1]})).plain == {"a": [1]}
    assert portable({"a": 1}.keys()).plain == {"a"}
    assert portable({"a": 1}.items()).plain == {("a", 1)}
    assert portable({"a": [1]}.items()).plain is None  # unhashable items: no set, only the repr


def test_equal_reprs_do_not_make_equal_stand_ins():
    same_repr = Opaque("M", "<M>", "not a plain value", {"a": 1})
    assert same_repr != Opaque("M", "<M>", "not a plain value", {"a": 2})
    assert same_repr == Opaque("M", "<M>", "not a plain value", {"a": 1})


def test_a_hostile_field_leaves_only_the_repr():
    @dataclasses.dataclass
    class Sly:
        x: int

        def __getattribute__(self, name):
            if name == "x":
                raise RuntimeError("no")
            return object.__getattribute__(self, name)

    out = portable(Sly.__new__(Sly))
    assert type(out) is Opaque and out.fields is None


@dataclasses.dataclass(frozen=True)
class Key:
    a: int
    b: int


def test_many_stand_ins_in_a_set_hash_apart():
    out = portable({Key(i, i + 1) for i in range(5_000)} | {Pair(i, i) for i in range(5_000)})
    assert len(out) == 10_000 and len({hash(x) for x in out}) > 9_000
    equal = portable(Span(1, [2], note="a")), portable(Span(1, [2], note="b"))
    assert equal[0] == equal[1] and hash(equal[0]) == hash(equal[1])
def test_text_safe_shows_lone_surrogates_as_escapes_every_writer_can_write():
    import json

    text = "a\ud800b\udfff"
    assert text_safe(text) == "a\\ud800b\\udfff" and text_safe(text).encode("utf-8")
    assert text_safe("plain · ✓ 😀") == "plain · ✓ 😀"  # everything an encoding can write stays as it is
    data = {"label \udc00": ["x\ud800"]}
    assert json.loads(text_safe(json.dumps(data, ensure_ascii=False))) == data  # in JSON, the escape is JSON's own
def test_shared_references_count_by_their_expanded_size():
    """``[b] * 300`` is one string to pickle, but 300 to every display and to json.dumps: budget what it expands to."""
    from failuremap_edu._values import _MAX_STRING, Opaque, portable, received

    b = "x" * 1_000_000
    value = portable([b] * 300)
    kept = [item for item in value if type(item) is str]
    assert sum(map(len, kept)) <= _MAX_STRING and len(kept) == _MAX_STRING // len(b)
    assert all(type(item) is Opaque and "too large to show" in item.reason for item in value[len(kept) :])
    assert received(value)[1] is False, "what was cut is no plain data any more"
    assert received([[b] * 30, [b] * 30])[1] is False, "the budget spans the whole value"
    assert received(([1, "a"], {2: frozenset({3})})) == (([1, "a"], {2: frozenset({3})}), True)


def test_a_set_is_shown_with_its_members_in_order_whatever_the_hash_seed():
    """A set's own order follows string hashing, which changes per process: a notebook's stored output of a set of
    n-grams never matched a new run (nbval failed on TR-001717), and two runs showed one set two ways."""
    import subprocess
    import sys

    value = [{("b", "c"), ("c",), ("a", "b")}, frozenset({"z", "a"}), set(), frozenset(), {1, "a", None}]
    shown = safe_repr(value)
    assert shown == "[{('a', 'b'), ('b', 'c'), ('c',)}, frozenset({'a', 'z'}), set(), frozenset(), {'a', 1, None}]"
    code = f"from failuremap_edu._values import safe_repr; print(safe_repr({value!r}))"
    for seed in ("1", "2", "3"):
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env={**__import__("os").environ, "PYTHONHASHSEED": seed})
        assert out.stdout.strip() == shown, out.stderr
    assert safe_repr(set(range(500)), 60).startswith("{0, 1, 2, 3, 4")  # a long set is shown by its first members in order


def test_a_default_repr_is_shown_without_its_memory_address():
    def gen():
        yield 1

    assert safe_repr(gen()) == "<generator object test_a_default_repr_is_shown_without_its_memory_address.<locals>.gen>"
    assert safe_repr([iter([1])]) == "[<list_iterator object>]"


def test_objects_without_a_repr_inside_containers_are_shown_by_their_fields():
    """``solve([Param(grad=[3.0]), …])``, never ``[<Param object>, …]``: the values a check passed are visible."""
    from failuremap_edu._values import safe_repr

    class Param:
        def __init__(self, grad):
            self.grad = grad

    class Empty:
        pass

    assert safe_repr([Param([3.0]), Param([4.0])]) == "[Param(grad=[3.0]), Param(grad=[4.0])]"
    assert safe_repr({"p": (Param({2, 1}),)}) == "{'p': (Param(grad={1, 2}),)}"
    assert safe_repr([Empty()]).startswith("[<") and "object" in safe_repr([Empty()])  # no fields: its type, as before
    assert safe_repr([1, "a", (2,)]) == repr([1, "a", (2,)])
