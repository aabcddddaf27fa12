"""Warm workers: the same verdicts and the same safety as forking the caller, or a fallback."""

from __future__ import annotations

import os
import signal
import time

import pytest

from conftest import reference_solve
from test_runner import CORPUS
from failuremap_edu import _runner, _warm, run_checks

pytestmark = pytest.mark.skipif(not _warm.enabled(), reason="warm workers need Linux")

reference_stopping = reference_solve("FA-100786")


@pytest.fixture
def warm(monkeypatch):
    """A running warm server, and a guard that fails the test if the caller forks."""
    _warm.warm_up()
    client = _warm._client()
    deadline = time.monotonic() + 10
    while client is None or not client.ready:
        assert time.monotonic() < deadline, "the warm server never offered a standby"
        time.sleep(0.02)
        client = _warm._client()
        if client is not None:
            client._poll(0)
    forks = []
    original = _runner._Worker.start
    monkeypatch.setattr(_runner._Worker, "start", classmethod(lambda cls, plan, skip: forks.append(skip) or original.__func__(cls, plan, skip)))
    return forks


def test_a_run_on_a_standby_matches_a_forked_run(stopping, warm, monkeypatch):
    ours = run_checks(stopping, reference_stopping)
    assert ours.passed and warm == [], "the standby took the run"
    wrong = run_checks(stopping, lambda text, stops: text)
    assert warm == []
    warm_observations = [(o.check, o.status, o.actual, o.expected, o.passed) for o in wrong.observations]
    monkeypatch.setenv("FAILUREMAP_WARM", "0")  # turned off: the caller forks, with the same observations
    forked = run_checks(stopping, lambda text, stops: text)
    assert warm == [0]
    assert [(o.check, o.status, o.actual, o.expected, o.passed) for o in forked.observations] == warm_observations
    assert "fail" in [o.status for o in forked.observations]


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_standbys_are_as_safe_as_forked_workers(stopping, warm, name):
    solve, status, error_type, words = CORPUS[name]
    started = time.monotonic()
    result = run_checks(stopping, solve, timeout=0.5)
    assert [o.status for o in result.observations] == [status] * 6
    for o in result.observations:
        if error_type is None:
            assert o.error is None
        else:
            assert o.error.type == error_type and words in o.error.message
    assert time.monotonic() - started < 6 * 0.5 + 5
    # Every restart after a timeout or a death also used a standby; only a solve
    # that names a class of the learner's (the unpicklable object) ran in a fork.
    assert warm == ([0] if name == "unpicklable object" else [])
    assert run_checks(stopping, reference_stopping).passed


class _NotebookClass:
    pass


_TABLE = _NotebookClass()


def _uses_a_notebook_object(text, stops):
    return text if _TABLE else None


def test_a_solve_that_cannot_travel_still_runs_by_forking(stopping, warm):
    result = run_checks(stopping, _uses_a_notebook_object)
    assert len(result.observations) == 6
    assert warm == [0], "the caller forked instead"


def test_a_standby_that_cannot_load_the_solve_hands_back_to_a_fork(stopping, warm, monkeypatch):
    # A module that passes for installed here but exists only in this process:
    # the plan ships, the standby fails to import it and says so, the caller forks.
    import sys
    import types

    from failuremap_edu import _byvalue

    module = types.ModuleType("fm_only_here")
    module.__spec__ = types.SimpleNamespace(origin=None)
    module.SUFFIX = ()
    monkeypatch.setitem(sys.modules, "fm_only_here", module)
    real_installed = _byvalue.installed
    monkeypatch.setattr(_byvalue, "installed", lambda name: name == "fm_only_here" or real_installed(name))

    def solve(text, stops):
        return reference_stopping(text, stops) + fm_only_here.SUFFIX  # noqa: F821 - a global set below

    monkeypatch.setitem(solve.__globals__, "fm_only_here", module)
    assert _warm.ship(_runner.Plan(None, 1, solve, 1.0, 100, 100, ())) is not None, "it does ship"
    result = run_checks(stopping, solve)
    assert result.passed, result.observations[0].error
    assert warm == [0]


def test_a_solve_using_the_learners_own_module_runs_in_a_fork_of_the_kernel(stopping, warm, tmp_path, monkeypatch):
    import importlib
    import sys

    (tmp_path / "fm_learner_helper.py").write_text("SUFFIX = ()\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    helper = importlib.import_module("fm_learner_helper")
    monkeypatch.setitem(sys.modules, "fm_learner_helper", helper)
    helper.SUFFIX = ("changed in the kernel",)  # a fresh import elsewhere would not see this

    def solve(text, stops):
        return reference_stopping(text, stops) + helper.SUFFIX

    result = run_checks(stopping, solve)
    assert warm == [0]
    assert all(o.actual[-1] == "changed in the kernel" for o in result.observations)


def test_a_standby_killed_from_outside_is_skipped(stopping, warm):
    client = _warm._client()
    for pid, _, _ in list(client.ready):
        os.kill(pid, signal.SIGKILL)
    time.sleep(0.2)
    assert run_checks(stopping, reference_stopping).passed


def test_the_server_ends_with_its_caller():
    import subprocess
    import sys

    code = (
        "import time, failuremap_edu as fm; from failuremap_edu import _warm;"
        "_warm.warm_up(); time.sleep(0.5); print(_warm._CLIENT.process.pid, flush=True)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    server = int(out.stdout.split()[0])
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        try:
            os.kill(server, 0)
        except ProcessLookupError:
            return
        time.sleep(0.05)
    pytest.fail("the warm server outlived its caller")


def _huge(text, stops):
    return "x" * 5_000_000


def test_a_result_bigger_than_the_shared_log_still_arrives(stopping, warm):
    result = run_checks(stopping, _huge)
    assert warm == []
    assert [o.status for o in result.observations] == ["fail"] * 6
    assert all(len(o.actual) == 5_000_000 for o in result.observations)
