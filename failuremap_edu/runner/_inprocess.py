"""The in-process fallback (``inprocess``, where there is no fork: Windows, Pyodide): checks in the caller, under a trace-function time limit.

It survives exceptions, ``sys.exit()`` and pure-Python infinite loops, but not
``os._exit()``, a loop inside a bare ``except:``, waits in C code, runaway
memory, or processes solve starts.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import os
import sys
import time

from ._collect import Collector
from ._session import CheckTimeout, OutputCapture, Plan, Session

__all__ = ["run_in_process", "trace_deadline"]


def run_in_process(plan: Plan, collector: Collector, guarded: bool = True) -> None:
    capture = OutputCapture(plan.output_chars)
    failed: list[BaseException] = []

    def sink(message: tuple) -> None:
        collector.accept(message)
        session.not_run = collector.not_run()
        try:
            collector.report()
        except BaseException as exc:  # noqa: BLE001 - the caller's progress callback: re-raised below
            failed.append(exc)
            raise

    session = Session(sink, plan, capture, guard=functools.partial(trace_deadline, collector) if guarded else None)
    saved = sys.stdout, sys.stderr
    capture.install()
    try:
        session.run(plan.solve)
    finally:
        sys.stdout, sys.stderr = saved
    if failed:
        raise failed[0]


@contextlib.contextmanager
def trace_deadline(collector: Collector, began: float | None = None):
    """A time limit for pure-Python code, enforced by a trace function, counted from `began` (else from now).

    A check's actual, its expected (which may call solve too) and its verdict
    share one limit, counted from the check's start, as in a worker process.

    Under CPython 3.11 a code object that jumps back within one line (``while True: pass``,
    a one-line comprehension) gets opcode events too, since 3.11 sends no line event per pass.

    The clock is read once per `_MAX_STRIDE` events while events come fast, so a loop
    stops at most that many events past its limit.

    Known limits of this fallback: CPython removes a trace function that raises,
    so a bare ``except:`` that swallows the first CheckTimeout inside a loop keeps
    the loop running; and C calls (``time.sleep``) are not interrupted. The
    process mode has neither limit.
    """
    limit = collector.limit()
    start = time.monotonic() if began is None else began
    deadline, clock, package = start + limit, time.monotonic, os.path.dirname(os.path.abspath(__file__))
    ours = os.path.dirname(package) + os.sep

    countdown, stride, last = 1, 1, start

    def tracer(frame, event, arg):
        nonlocal countdown, stride, last
        code = frame.f_code
        if event == "call" and (code.co_filename.startswith(ours) or code.co_filename == _COPY_FILE):
            return None  # our own bookkeeping (snapshots, reprs) is bounded: its lines are not traced
        if event == "call" and _NO_LINE_EVENT_PER_PASS and _loops_on_one_line(code):
            frame.f_trace_opcodes = True  # CPython 3.11 sends no line event per pass of `while True: pass`: opcode events do
        countdown -= 1
        if countdown > 0:
            return tracer
        now = clock()
        if now > deadline:
            if not code.co_filename.startswith(package):
                raise CheckTimeout(collector.timeout_error(limit).message)
            countdown = 1
            return tracer
        stride = min(stride * 2, _MAX_STRIDE) if now - last < _FAST_EVENTS else 1
        countdown, last = stride, now
        return tracer

    previous = sys.gettrace()
    sys.settrace(tracer)
    try:
        yield
    finally:
        sys.settrace(previous)


_COPY_FILE = copy.__file__
_MAX_STRIDE = 16
_FAST_EVENTS = 0.001
"""The clock is read at least every `_MAX_STRIDE` trace events, and at every event once events come 1 ms apart or more:
reading it costs more than the trace call itself under Pyodide, so a loop of fast events reads it once per 16."""

_NO_LINE_EVENT_PER_PASS = sys.version_info < (3, 12)
"""CPython 3.11 sends no line event per pass of a loop that jumps back within one line; 3.12 and later do, so opcode
events (costly: one trace call per instruction) are asked for only before 3.12."""

_BACKWARD_JUMPS = frozenset({"JUMP_BACKWARD", "JUMP_BACKWARD_NO_INTERRUPT", "JUMP_ABSOLUTE", "POP_JUMP_BACKWARD_IF_TRUE",
                             "POP_JUMP_BACKWARD_IF_FALSE", "POP_JUMP_BACKWARD_IF_NONE", "POP_JUMP_BACKWARD_IF_NOT_NONE"})


@functools.lru_cache(maxsize=4096)
def _loops_on_one_line(code) -> bool:
    """Whether `code` jumps back to an instruction of the same line: a loop that may send no line event per pass."""
    import dis

    lines, line = {}, None
    instructions = list(dis.get_instructions(code))
    for ins in instructions:
        positions = getattr(ins, "positions", None)
        line = positions.lineno if positions is not None and positions.lineno is not None else (ins.starts_line or line)
        lines[ins.offset] = line
    return any(ins.opname in _BACKWARD_JUMPS and isinstance(ins.argval, int) and ins.argval <= ins.offset
               and lines.get(ins.argval) == lines[ins.offset] for ins in instructions)
