"""Supervision of worker processes: send a plan, read its messages, enforce the limits, go on with a fresh worker.

In the caller. A worker that overruns a check's limit is killed; one that dies,
sends garbage, or starts too many processes is noted; either way a fresh worker
carries on with the next check (`supervise`). The workers come from a pool:
`_warm` (a kernel), `_oneshot` (a one-shot command) or `_sandbox` (``--sandbox``).
"""

from __future__ import annotations

import signal
import time
from dataclasses import replace

from . import _byvalue, _judge
from ._channel import Undecodable
from ._collect import CANNOT_SEND_WAY, Collector
from .._results import ERROR, TIMEOUT, ErrorInfo
from ._session import Plan, import_timeout_message

__all__ = ["CONVERSION_LIMIT", "CROWD_EVERY", "HEARTBEAT", "SETUP_TIMEOUT", "describe_exit", "drain", "supervise"]

SETUP_TIMEOUT = 10.0
"""Limit for work outside any check (the fixture preamble, loading a solution file)."""
HEARTBEAT = 0.25
"""Seconds between calls of `run_checks`'s heartbeat while a check runs."""
CROWD_EVERY = 0.05
"""Seconds between counts of a run's processes while it waits for a worker (a fork loop is stopped)."""
CONVERSION_LIMIT = 30.0
"""Seconds a worker may take to convert one judged check's values to plain data (bounded by size: `_portable.portable`)."""


def supervise(plan: Plan, collector: Collector, sandbox: bool = False) -> None:
    """Run the plan in worker processes until every check is reported; then line up the next worker.

    With `sandbox`, each worker runs in a bubblewrap sandbox of its own (`_sandbox.SandboxPool`).
    """
    from . import _warm  # here, not at the top: platforms without fork never import multiprocessing
    from ._worker import Start

    if sandbox:  # only then: a one-shot command's every import counts (`_oneshot`)
        from ._sandbox import sandbox_pool
    pool, not_run, unsent = sandbox_pool(plan) if sandbox else _warm.pool(), None, 0
    split = sandbox and plan.solve is not None and _judge.SPLIT  # judged apart from solve (`_judge`)
    try:
        payload, modules = _byvalue.dumps(plan)
        if split:
            payload = _byvalue.dumps(_judge.judged(plan))[0]
    except _byvalue.Unshippable as exc:
        not_run = f"this check did not run: solve cannot be sent to the worker process that runs the checks ({exc})"
        collector.problem = ErrorInfo("CannotSend", f"solve cannot be sent to the worker process that runs the checks: {exc}. {CANNOT_SEND_WAY}")
        payload, modules = _byvalue.dumps(replace(plan, solve=None))  # still list the checks, without solve
        split = False
    sent_plan, interrupted = plan if not_run is None else replace(plan, solve=None), frozenset()
    first = True
    while True:
        worker, first = (pool.take(first) if not sandbox else pool.take()), False
        if collector.interrupted != interrupted:  # the fresh worker runs the earlier checks again, except these
            interrupted = frozenset(collector.interrupted)
            again = replace(sent_plan, interrupted=interrupted)
            payload = _byvalue.dumps(_judge.judged(again) if split else again)[0]
        try:
            if not worker.send(collector.next_ordinal, not_run or collector.not_run(), payload, time.monotonic() + SETUP_TIMEOUT):
                unsent += 1  # a standby that died before it could start (killed from outside, say)
                if unsent < 3:
                    pool.stop(worker)
                    continue
            drain(worker, plan, collector, pool)
        except BaseException:
            pool.stop(worker)  # an interrupt (the kernel's Stop button): the worker goes at once
            raise
        if collector.done:
            break
        pool.stop(worker)
    collector.notes += getattr(pool, "pop_notes", tuple)()  # a stopped server replaced, say
    rehearsal = replace(plan, solve=None, extra_globals=None)  # the record's code only: nothing of the learner's
    pool.finish(worker, Start(tuple(sorted(m for m in modules if _byvalue.installed(m))), plan.path, plan.cwd, rehearsal))


def drain(worker, plan: Plan, collector: Collector, pool) -> None:
    """Read one worker's messages until it finishes, overruns a limit, dies, sends garbage, or starts
    more than `_worker.MAX_PROCESSES` processes (counted every `CROWD_EVERY` while nothing arrives).

    Deadlines run from the worker's own timestamps: a check's limit starts when
    the check began, not when the supervisor happened to read about it.
    """
    from ._warm import WorkerDied
    from ._worker import MAX_PROCESSES

    setup_limit = max(SETUP_TIMEOUT, plan.timeout)
    last_event = started = last_beat = time.monotonic()
    limit = collector.limit()
    while True:
        if collector.current is not None:
            deadline = started + limit
        else:  # a solution file's import has the check limit; the record's own code outside the checks, the setup limit
            deadline = last_event + (plan.timeout if collector.loading else setup_limit)
        try:
            messages = worker.messages(min(deadline, time.monotonic() + CROWD_EVERY))
            for i, (stamp, message) in enumerate(messages):
                collector.accept(message)
                if collector.done:
                    worker.unread = messages[i + 1 :]  # the next run's, if several share the worker
                    return
                stamp = min(stamp, time.monotonic())  # never a deadline later than the worker could mean
                if message[0] == "begin":
                    started, limit = stamp, collector.limit()
                elif message[0] == "judged":  # from here on the worker converts values to plain data: bounded by size, not the check's limit
                    started, limit = stamp, CONVERSION_LIMIT
                last_event = stamp
        except (WorkerDied, Undecodable, ValueError, TypeError, KeyError, IndexError) as exc:
            what = describe_exit(worker.exitcode, worker.exit_note) if isinstance(exc, WorkerDied) else (
                "sent bytes that are not a message of ours (does solve write to a file it did not open?), so it was stopped")
            if collector.current is None:
                collector.problem, collector.done = ErrorInfo("WorkerDied", f"the check process ended outside any check: {what}"), True
            else:
                error = ErrorInfo("ProcessDied", f"the process running solve ended abruptly: {what}")
                collector.interrupt(ERROR, error, (time.monotonic() - started) * 1000)
            return
        finally:
            collector.report()
        if messages or time.monotonic() < deadline:
            if not messages and pool.crowded(MAX_PROCESSES):
                what = f"solve started more than {MAX_PROCESSES} processes (a loop that forks or starts processes?), so it was stopped"
                if collector.current is None:
                    collector.problem, collector.done = ErrorInfo("TooManyProcesses", f"the fixture code outside the checks: {what}"), True
                else:
                    collector.interrupt(ERROR, ErrorInfo("TooManyProcesses", what), (time.monotonic() - started) * 1000)
                return
            now = time.monotonic()
            if not messages and collector.heartbeat is not None and collector.current is not None and now - last_beat >= HEARTBEAT:
                last_beat = now
                collector.heartbeat()  # the caller's code: outside our error handling
            continue
        if collector.current is None:
            if collector.loading:
                collector.problem = ErrorInfo("Timeout", import_timeout_message(plan.solve.path, plan.timeout))
            elif not collector.restarts and getattr(pool, "stalled", lambda w, s: False)(worker, setup_limit):
                collector.restarts += 1  # the server's fault, not the record's: replaced, and the run goes on with a new worker
                return
            else:
                collector.problem = ErrorInfo("Timeout", f"the fixture code outside the checks took longer than {setup_limit:g} s")
            collector.done = True
        elif collector.judged:
            message = f"converting this check's values to plain data took longer than {CONVERSION_LIMIT:g} s, so it was stopped"
            collector.interrupt(TIMEOUT, ErrorInfo("Timeout", message), (time.monotonic() - started) * 1000)
        else:
            collector.interrupt(TIMEOUT, collector.timeout_error(limit), (time.monotonic() - started) * 1000)
        return


_SIGNAL_HINTS = {
    "SIGSEGV": "a crash, often from recursion deeper than the C stack",
    "SIGKILL": "killed, usually for using too much memory",
    "SIGXCPU": "it used too much CPU time",
    "SIGABRT": "it aborted",
}


def describe_exit(exitcode: int | None, note: str | None = None) -> str:
    """How a worker ended, for a run's message; `note` (the worker's `exit_note`) says it never started, and so blames no one's solve."""
    if note is not None:
        return note
    if exitcode is None:
        return "its exit status is unknown"
    if exitcode >= 0:
        return f"it exited with code {exitcode} (does solve call os._exit({exitcode})?)"
    try:
        name = signal.Signals(-exitcode).name
    except ValueError:
        name = f"signal {-exitcode}"
    return f"it was ended by {name}" + (f" ({_SIGNAL_HINTS[name]})" if name in _SIGNAL_HINTS else "")
