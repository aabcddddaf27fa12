"""What the worker sends back: plain data, bounded output, trimmed errors."""

from __future__ import annotations

import collections
import sys

from failuremap_edu._session import OutputCapture
from failuremap_edu._values import Opaque, error_payload, portable, safe_repr


def test_plain_values_pass_through_with_their_types():
    value = {"a": (1, 2.5, None, True), "b": [b"x", {1, 2}, frozenset({3})], "c": 1 + 2j, ("k", 1): "tuple key"}
    assert portable(value) == value
    assert type(portable(value)["a"]) is tuple


def test_non_plain_values_become_opaque_with_a_plain_equivalent():
    Point = collections.namedtuple("Point", "x y")
    out = portable([Point(1, 2), collections.OrderedDict(a=1)])
    assert isinstance(out[0], Opaque) and out[0].type_name.endswith("Point") and out[0].plain == (1, 2)
    assert out[0].repr == "Point(x=1, y=2)"
    assert out[1].plain == {"a": 1}


def test_cycles_depth_and_size_are_bounded():
    loop = []
    loop.append(loop)
    assert portable(loop)[0].reason == "contains itself"
    deep = current = []
    for _ in range(500):
        current.append([])
        current = current[0]
    out = portable(deep)
    for _ in range(201):
        out = out[0]
    assert isinstance(out, Opaque) and "nested more than 200 levels" in out.reason


def test_hostile_repr_is_contained():
    class Hostile:
        def __repr__(self):
            raise RuntimeError("no")

    assert safe_repr(Hostile()) == "<Hostile object; repr() raised RuntimeError>"
    assert portable(Hostile()).repr == "<Hostile object; repr() raised RuntimeError>"


def test_output_capture_keeps_a_head_and_counts_the_rest():
    capture = OutputCapture(10)
    capture.stream.write("héllo wörld, more text\n")
    text, dropped = capture.take()
    assert text == "héllo wö" and dropped == len("héllo wörld, more text\n".encode()) - 10
    assert capture.take() == ("", 0)


def test_output_capture_survives_a_closed_stream():
    capture = OutputCapture(100)
    saved = sys.stdout, sys.stderr
    try:
        capture.install()
        sys.stdout.close()
        capture.take()
        print("still here")
        text, _ = capture.take()
    finally:
        sys.stdout, sys.stderr = saved
    assert text == "still here\n"


def test_error_payload_names_the_exception_like_a_traceback():
    import json

    try:
        json.loads("{")
    except ValueError as exc:
        payload = error_payload(exc)
    assert payload["type"] == "json.decoder.JSONDecodeError"
    assert payload["traceback"].startswith("Traceback (most recent call last):")
    assert "failuremap_edu" not in payload["traceback"]
