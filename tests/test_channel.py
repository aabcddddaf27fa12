"""Worker -> supervisor messages: whole frames in order, with stamps; garbage never passes as a message."""

from __future__ import annotations

import os
import pickle
import struct
import time

import pytest

from failuremap_edu.runner._channel import MAX_FRAME, Reader, Undecodable, frame, safe_loads


def test_messages_arrive_in_order_however_the_bytes_are_split():
    sent = [("begin", i, i, f"check {i}", None) for i in range(20)] + [("done", 20)]
    before = time.monotonic()
    data = b"".join(frame(m) for m in sent)
    reader, received = Reader(), []
    for i in range(0, len(data), 7):  # a pipe hands over bytes in arbitrary pieces
        received += reader.feed(data[i : i + 7])
    assert [m for _, m in received] == sent
    stamps = [s for s, _ in received]
    assert before <= stamps[0] and stamps == sorted(stamps) and stamps[-1] <= time.monotonic()
    assert reader.buffer == b"" and reader.broken is None
    reader.check()


def test_good_messages_before_garbage_are_kept_and_then_it_is_refused():
    reader = Reader()
    garbage = struct.pack("!I", 9) + b"\xffgarbage"
    assert [m for _, m in reader.feed(frame(("begin", 0, 0, "a", None)) + garbage + frame(("done", 1)))] == [("begin", 0, 0, "a", None)]
    with pytest.raises(Undecodable, match="UnpicklingError"):
        reader.check()
    assert reader.feed(frame(("done", 1))) == [], "nothing after garbage is trusted"


@pytest.mark.parametrize(
    "payload, words",
    [
        (pickle.dumps(("not", "stamped")), "no timestamp"),
        (pickle.dumps(os.system), "refusing posix.system"),
        (b"", "EOFError"),
    ],
)
def test_what_is_not_a_message_of_ours_is_undecodable(payload, words):
    reader = Reader()
    assert reader.feed(struct.pack("!I", len(payload)) + payload) == []
    with pytest.raises(Undecodable, match=words):
        reader.check()


def test_a_frame_that_claims_too_much_is_garbage_at_once():
    reader = Reader()
    reader.feed(struct.pack("!I", MAX_FRAME + 1))
    with pytest.raises(Undecodable, match="a frame of"):
        reader.check()


def test_only_plain_data_is_accepted_from_a_worker():
    with pytest.raises(pickle.UnpicklingError, match="refusing posix.system"):
        safe_loads(pickle.dumps(os.system))
    assert safe_loads(pickle.dumps({"a": {1, 2}, "b": frozenset({3})})) == {"a": {1, 2}, "b": frozenset({3})}


def test_a_stand_in_with_fields_and_a_plain_equivalent_comes_back_whole():
    from failuremap_edu._values import Opaque

    sent = Opaque("Span", "Span(start=1, end=2)", "not a plain value", None, (("start", 1), ("end", [2, {3}])))
    back = safe_loads(pickle.dumps([sent, Opaque("Pair", "Pair(a=1)", "not a plain value", (1,), (("a", 1),))]))
    assert back[0].fields == (("start", 1), ("end", [2, {3}])) and back[1].plain == (1,) and back[1].fields == (("a", 1),)
