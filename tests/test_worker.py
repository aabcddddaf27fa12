"""What a worker process does to itself before it runs a solve, seen from inside that solve."""

from __future__ import annotations

import os
import sys

import pytest

from failuremap_edu import load_record, run_checks

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads its state from /proc (Linux)")


def _inside(text, stops):
    import resource
    import signal

    try:
        input()
        reads_input = True
    except EOFError:
        reads_input = False
    facts = {
        "pid": os.getpid(),
        "parent": os.getppid(),
        "own session": os.getsid(0) == os.getpid(),
        "descriptors": len(os.listdir("/proc/self/fd")) - 1,  # less the one listdir opens
        "address space limit": resource.getrlimit(resource.RLIMIT_AS)[0],
        "core dumps": resource.getrlimit(resource.RLIMIT_CORE)[0],
        "interrupts": signal.getsignal(signal.SIGINT) is signal.SIG_IGN,
        "reads input": reads_input,
        "main module": sys.modules["__main__"].__dict__.get("__file__"),
    }
    return repr(sorted(facts.items())), ""


def _facts(**kwargs) -> dict:
    result = run_checks(load_record("FA-100786"), _inside, **kwargs)
    return dict(eval(result.observations[0].actual[0]))


def test_a_worker_is_cut_off_from_the_caller():
    from failuremap_edu.runner import _warm

    facts = _facts()
    assert facts["pid"] != os.getpid() and facts["parent"] == _warm.pool().server._forkserver_pid
    assert facts["own session"] and os.getsid(0) != facts["pid"]
    assert facts["descriptors"] == 6, "stdin, stdout, stderr (all /dev/null), its plan, its log and its wake-up pipe"
    assert facts["interrupts"] and not facts["reads input"]
    assert facts["core dumps"] == 0
    assert facts["main module"] is None, "the caller's __main__ is not imported again"


def test_the_memory_budget_is_the_workers_size_plus_the_limit():
    small, large = _facts(memory_mb=100)["address space limit"], _facts(memory_mb=2048)["address space limit"]
    assert abs((large - small) - (2048 - 100) * 1024 * 1024) < 64 * 1024 * 1024  # its own size moves a little
    assert 100 * 1024 * 1024 < small < 1024 * 1024 * 1024


def _raises_its_memory_limit(text, stops):
    import mmap
    import resource

    try:
        resource.setrlimit(resource.RLIMIT_AS, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
        raised = "raised"
    except (ValueError, OSError):
        raised = "refused"
    try:  # mapped, never touched: no memory is used even where this succeeds
        mmap.mmap(-1, 6 * 1024**3).close()
        mapped = "mapped 6 GiB"
    except (OSError, MemoryError, OverflowError):
        mapped = "could not map 6 GiB"
    return f"{raised}, {mapped}", ""


def test_solve_cannot_raise_its_memory_limit_again():
    """The address-space limit is hard as well as soft: a solve that raises it and allocates is still stopped."""
    result = run_checks(load_record("FA-100786"), _raises_its_memory_limit)
    assert {o.actual[0] for o in result.observations} == {"refused, could not map 6 GiB"}
