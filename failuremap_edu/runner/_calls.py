"""Every call of solve a check made, recorded in the worker: arguments, what it returned or raised, how long it took.

A `CallLog` lives in the `_session.Session` for one check at a time. The session's
wrapper of solve calls `returned` or `raised` once per call of the check (calls the
record's helpers make included: they call the same wrapped name), so a call a helper
wrapped in ``try``/``except`` is recorded with its exception all the same. The log
keeps the first `CALLS_KEPT` calls and counts the rest; keeping one costs two clock
reads and an append (what a call returned is converted to plain data only after the
check is judged, outside its time limit). `payload` is what travels in the check's
result message: plain data only.
"""

from __future__ import annotations

import traceback
from typing import Any

from .._values import error_payload, portable

CALLS_KEPT = 6
"""At most this many calls of solve are kept per check; the others are only counted."""


class CallLog:
    """The calls of solve in one check, in the order they were entered; the first `CALLS_KEPT` of them with their outcome."""

    __slots__ = ("kept", "count")

    def __init__(self) -> None:
        self.kept: list[list] = []
        """[call text, returned value, exception or None, seconds], in order."""
        self.count = 0

    def returned(self, call: str, value: Any, seconds: float) -> None:
        self.count += 1
        if len(self.kept) < CALLS_KEPT:
            self.kept.append([call, value, None, seconds])

    def raised(self, call: str, exc: BaseException, seconds: float) -> None:
        self.count += 1
        if len(self.kept) < CALLS_KEPT:
            self.kept.append([call, None, exc, seconds])

    def payload(self, check_raised: BaseException | None) -> tuple[list[dict], int]:
        """The kept calls as plain data, and how many more there were. `check_raised` is the exception the check ended with:
        a call that raised any other was caught on the way (by a helper such as ``raises``, or by the check's own expression)."""
        calls = []
        for call, value, exc, seconds in self.kept:
            entry: dict = {"call": call, "seconds": float(seconds), "returned": None, "raised": None, "caught": False}
            if exc is None:
                entry["returned"] = portable(value)
            else:
                error = error_payload(exc)
                entry["raised"] = {"type": error["type"], "message": error["message"], "line": _raise_line(exc)}
                entry["caught"] = exc is not check_raised and type(exc).__name__ != "CheckTimeout"  # a time limit is never caught
            calls.append(entry)
        return calls, self.count - len(self.kept)


def _raise_line(exc: BaseException) -> int:
    """The line of solve's own file that raised (its innermost frame in the file solve is defined in), or 0."""
    from .._values import SOLVE_FRAME

    frames = traceback.extract_tb(exc.__traceback__)
    cut = max((i for i, f in enumerate(frames) if f.name == SOLVE_FRAME), default=-1)
    inner = frames[cut + 1 :]
    if not inner:
        return 0
    own = [f for f in inner if f.filename == inner[0].filename]
    return int(own[-1].lineno or 0)


def received_calls(data: dict) -> tuple[tuple, int]:
    """In the caller: the ``calls`` of a check's result message as `Call`s, and the count left out.
    Raises ValueError for anything but what `CallLog.payload` sends (a worker's message is not trusted)."""
    from .._results import Call, ErrorInfo
    from .._values import received

    entries, omitted = data.get("calls", []), data.get("calls_omitted", 0)
    if type(entries) is not list or len(entries) > CALLS_KEPT or type(omitted) is not int or omitted < 0:
        raise ValueError("unexpected message")
    calls = []
    for entry in entries:
        if type(entry) is not dict or type(entry.get("call")) is not str or type(entry.get("seconds")) is not float or type(entry.get("caught")) is not bool:
            raise ValueError("unexpected message")
        raised = entry.get("raised")
        if raised is None:
            calls.append(Call(entry["call"], received(entry.get("returned"))[0], seconds=entry["seconds"]))
            continue
        if type(raised) is not dict or not all(type(raised.get(k)) is str for k in ("type", "message")) or type(raised.get("line")) is not int:
            raise ValueError("unexpected message")
        calls.append(Call(entry["call"], None, ErrorInfo(raised["type"], raised["message"]), raised["line"], entry["seconds"], entry["caught"]))
    return tuple(calls), omitted
