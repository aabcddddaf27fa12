"""Worker -> supervisor messages: in order, nothing lost, whether logged or piped."""

from __future__ import annotations

import os
import time

import pytest

from failuremap_edu._channel import Channel, WorkerDied

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")


def _child(channel: Channel, messages: list[tuple], then_exit: bool = True) -> int:
    pid = os.fork()
    if pid == 0:  # pragma: no cover - child
        try:
            channel.worker_side()
            for message in messages:
                channel.post(message, last=message[0] == "done")
        finally:
            os._exit(0)
    channel.supervisor_side()
    return pid


def _read_all(channel: Channel) -> list[tuple]:
    seen = []
    deadline = time.monotonic() + 10
    while True:
        try:
            seen += [message for _, message in channel.wait(deadline)]
        except WorkerDied:
            return seen
        assert time.monotonic() < deadline


@pytest.mark.parametrize("wake_each", [False, True])
def test_messages_arrive_in_order_with_the_workers_timestamps(wake_each):
    channel = Channel(wake_each=wake_each)
    sent = [("begin", i, i, f"check {i}") for i in range(50)] + [("done", 50)]
    before = time.monotonic()
    pid = _child(channel, sent)
    stamped = []
    deadline = time.monotonic() + 10
    while True:
        try:
            stamped += channel.wait(deadline)
        except WorkerDied:
            break
    os.waitpid(pid, 0)
    channel.close()
    assert [message for _, message in stamped] == sent
    stamps = [stamp for stamp, _ in stamped]
    assert before <= stamps[0] and stamps == sorted(stamps) and stamps[-1] <= time.monotonic()


def test_a_full_log_hands_over_to_the_pipe_without_reordering():
    channel = Channel(log_bytes=4096)
    sent = [("result", {"index": i, "blob": "x" * 1000}) for i in range(20)] + [("done", 20)]
    pid = _child(channel, sent)
    received = _read_all(channel)
    os.waitpid(pid, 0)
    channel.close()
    assert received == sent


def test_what_a_worker_logged_before_dying_is_still_read():
    channel = Channel()
    pid = _child(channel, [("begin", 0, 0, "first")])  # and then it exits without "done"
    first = channel.wait(time.monotonic() + 10)
    os.waitpid(pid, 0)
    assert [m for _, m in first] == [("begin", 0, 0, "first")]
    with pytest.raises(WorkerDied):
        channel.wait(time.monotonic() + 10)
    channel.close()


def test_nothing_new_before_the_deadline_is_an_empty_list():
    channel = Channel()
    read_fd, write_fd = channel.read_fd, channel.write_fd
    started = time.monotonic()
    assert channel.wait(started + 0.1) == []
    assert time.monotonic() - started >= 0.1
    assert (read_fd, write_fd) == (channel.read_fd, channel.write_fd)
    channel.close()


def test_only_plain_data_is_accepted_from_a_worker():
    import pickle

    from failuremap_edu._channel import safe_loads

    with pytest.raises(pickle.UnpicklingError, match="refusing posix.system"):
        safe_loads(pickle.dumps(os.system))
    assert safe_loads(pickle.dumps({"a": {1, 2}, "b": frozenset({3})})) == {"a": {1, 2}, "b": frozenset({3})}
