"""The process tree as containment reads it: children, a tree's size, states, a user's threads (psutil)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import psutil
import pytest

from failuremap_edu.runner import _procs


@pytest.fixture(params=["kernel lists", "psutil alone"])
def tree(request, monkeypatch):
    """Each test twice: with Linux's own lists of children, and with psutil alone (as on macOS)."""
    if request.param == "psutil alone":
        monkeypatch.setattr(_procs, "_kernel_lists_children", lambda: False)
    elif not _procs._kernel_lists_children():
        pytest.skip("this kernel lists no children in /proc")
    return request.param


@pytest.fixture
def family():
    """A child that has two children of its own, all sleeping; ended afterwards."""
    code = "import os, time\nfor _ in range(2):\n    if os.fork() == 0:\n        time.sleep(60)\n        os._exit(0)\ntime.sleep(60)\n"
    parent = subprocess.Popen([sys.executable, "-c", code], start_new_session=True)
    deadline = time.monotonic() + 10
    while len(psutil.Process(parent.pid).children()) < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    yield parent
    os.killpg(parent.pid, signal.SIGKILL)
    parent.wait()


def test_children_and_the_size_of_a_tree(tree, family):
    grandchildren = {p.pid for p in psutil.Process(family.pid).children()}
    assert len(grandchildren) == 2
    assert _procs.children(family.pid) == grandchildren
    assert family.pid in _procs.children(os.getpid())
    assert _procs.tree_size(family.pid, 10) == 2
    assert _procs.tree_size(os.getpid(), 0) >= 1  # stops counting just past the limit
    assert _procs.children(None) == set() and _procs.children(2**22 + 1) == set()  # no such process: none


def test_states_stopped_alive_and_gone(family):
    pid = family.pid
    assert _procs.alive(pid) and not _procs.stopped(pid)
    os.kill(pid, signal.SIGSTOP)
    try:
        deadline = time.monotonic() + 5
        while not _procs.stopped(pid) and time.monotonic() < deadline:
            time.sleep(0.005)
        assert _procs.stopped(pid) and _procs.status(pid) == "stopped"
    finally:
        os.kill(pid, signal.SIGCONT)
    os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + 5
    while _procs.alive(pid) and time.monotonic() < deadline:
        time.sleep(0.005)
    assert _procs.status(pid) == "zombie" and not _procs.alive(pid)  # not reaped yet: ended all the same
    family.wait()
    assert _procs.status(pid) is None and not _procs.alive(pid) and not _procs.stopped(pid)


def test_a_users_threads_are_counted():
    mine = _procs.user_threads(os.getuid())
    assert mine is not None and mine >= psutil.Process().num_threads()
    assert _procs.user_threads(2**31 - 7) == 0  # a user with no process
