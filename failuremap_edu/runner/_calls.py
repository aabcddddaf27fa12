"""Every call of solve a check made, recorded in the worker: arguments, what it returned or raised, how long it took.

A `CallLog` lives in the `_session.Session` for one check at a time. The session's
wrapper of solve calls `returned` or `raised` once per call of the check (calls the
record's helpers make included: they call the same wrapped name), so a call a helper
wrapped in ``try``/``except`` is recorded with its exception all the same. The log
keeps the first `CALLS_KEPT` calls and counts the rest; keeping one costs two clock
reads and an append. What a call returned is converted to plain data after the check
is judged, outside its time limit, except a small result of plain builtin data
(at most `SNAPSHOT_ITEMS` items), which is copied when the call returns: a later call
that returns and changes the same object (one module-level dict) does not change what
this call is shown to have returned, and the change is said (`payload`'s ``later``).
`payload` is what travels in the check's result message: plain data only.
"""

from __future__ import annotations

import traceback
from typing import Any

from .._values import error_payload, portable, same_data

CALLS_KEPT = 6
"""At most this many calls of solve are kept per check; the others are only counted."""
SNAPSHOT_ITEMS = 2_000
"""A result of plain builtin data with at most this many items is copied as it was when its call returned; a bigger one is
shown as it was when the check ended."""
_SCALARS = (type(None), bool, int, float, complex, str, bytes)
_NO_SNAPSHOT = object()


class CallLog:
    """The calls of solve in one check, in the order they were entered; the first `CALLS_KEPT` of them with their outcome."""

    __slots__ = ("kept", "count")

    def __init__(self) -> None:
        self.kept: list[list] = []
        """[call text, returned value, exception or None, seconds, the value as plain data when it returned], in order."""
        self.count = 0

    def returned(self, call: str, value: Any, seconds: float) -> None:
        self.count += 1
        if len(self.kept) < CALLS_KEPT:
            self.kept.append([call, value, None, seconds, at_return(value)])

    def raised(self, call: str, exc: BaseException, seconds: float) -> None:
        self.count += 1
        if len(self.kept) < CALLS_KEPT:
            self.kept.append([call, None, exc, seconds, _NO_SNAPSHOT])

    def payload(self, check_raised: BaseException | None) -> tuple[list[dict], int]:
        """The kept calls as plain data, and how many more there were. `check_raised` is the exception the check ended with:
        a call that raised any other was caught on the way (by a helper such as ``raises``, or by the check's own expression)."""
        calls = []
        for i, (call, value, exc, seconds, then) in enumerate(self.kept):
            entry: dict = {"call": call, "seconds": float(seconds), "returned": None, "raised": None, "caught": False}
            if exc is None:
                entry["returned"] = now = portable(value)
                if then is not _NO_SNAPSHOT and not same_data(then, now):  # changed after its call returned: shown as it was then
                    by = next((c[0] for c in self.kept[i + 1:] if c[2] is None and c[1] is value), None)
                    entry["returned"], entry["later"] = then, {"value": now, "by": by}
            else:
                error = error_payload(exc)
                entry["raised"] = {"type": error["type"], "message": error["message"], "line": _raise_line(exc)}
                entry["caught"] = exc is not check_raised and type(exc).__name__ != "CheckTimeout"  # a time limit is never caught
            calls.append(entry)
        return calls, self.count - len(self.kept)


def at_return(value: Any) -> Any:
    """`value` as plain data now, when it is plain builtin data of at most `SNAPSHOT_ITEMS` items holding something that can
    change (a list, dict or set); otherwise a marker: an unchangeable value needs no copy, and a big one is not copied."""
    budget, mutable, stack = SNAPSHOT_ITEMS, False, [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind in _SCALARS:
            continue
        if kind not in (list, dict, set, tuple, frozenset):
            return _NO_SNAPSHOT  # a class whose copy could run learner code
        budget -= len(item) * (2 if kind is dict else 1)
        if budget < 0:
            return _NO_SNAPSHOT
        mutable = mutable or kind in (list, dict, set)
        stack += (*item.keys(), *item.values()) if kind is dict else item
    return portable(value) if mutable else _NO_SNAPSHOT


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
    from .._results import Call, ChangedAfter, ErrorInfo
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
            later = entry.get("later")
            if later is not None and (type(later) is not dict or set(later) != {"value", "by"} or type(later["by"]) not in (str, type(None))):
                raise ValueError("unexpected message")
            changed = None if later is None else ChangedAfter(received(later["value"])[0], later["by"])
            calls.append(Call(entry["call"], received(entry.get("returned"))[0], seconds=entry["seconds"], changed=changed))
            continue
        if type(raised) is not dict or not all(type(raised.get(k)) is str for k in ("type", "message")) or type(raised.get("line")) is not int:
            raise ValueError("unexpected message")
        calls.append(Call(entry["call"], None, ErrorInfo(raised["type"], raised["message"]), raised["line"], entry["seconds"], entry["caught"]))
    return tuple(calls), omitted
