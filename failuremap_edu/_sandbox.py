"""What runs where the learner's code runs: one check at a time, reported as plain data.

A `Session` executes a fixture program (see `_fixtures`) and turns each
``__fm_check__`` call into two messages for its sink: ``begin`` (so a supervisor
that has to kill a stuck worker still knows which check was running) and
``result`` (status, values, error, output, timing, mutation note). Values leave as
plain Python data only (`portable`), so the receiving side never unpickles an
object whose class it cannot trust.

The same Session serves both isolation modes: in a forked worker process (the
supervisor enforces time limits by killing it) and, as a weaker fallback, in the
calling process itself (a trace function enforces time limits).
"""

from __future__ import annotations

import copy
import io
import os
import sys
import time
import traceback
from typing import Any, Callable

from ._results import ERROR, FAIL, PASS, TIMEOUT, Opaque

MAX_CHECKS = 10_000
"""A run stops with a problem after this many checks (a fixture loop gone wrong)."""
_REPR_LIMIT = 2_000
_CALL_LIMIT = 500
_MESSAGE_LIMIT = 2_000
_MAX_DEPTH = 200
_MAX_NODES = 2_000_000
_MAX_STRING = 32 * 1024 * 1024
_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))


class CheckTimeout(BaseException):
    """Raised inside a check (in-process mode only) when it overruns its time limit."""


class TooManyChecks(Exception):
    """The fixture code ran more than MAX_CHECKS checks."""


class _BoundedSink(io.RawIOBase):
    """Keeps the first `limit` bytes written to it and counts the rest."""

    def __init__(self, limit: int) -> None:
        super().__init__()
        self.limit = limit
        self.kept = bytearray()
        self.dropped = 0

    def writable(self) -> bool:
        return True

    def write(self, data) -> int:
        n = len(data)
        room = self.limit - len(self.kept)
        if room >= n:
            self.kept += data
        else:
            if room > 0:
                self.kept += bytes(data[:room])
            self.dropped += n - max(room, 0)
        return n


class OutputCapture:
    """A bounded stand-in for stdout and stderr while checks run.

    `stream` is a real text stream (C-level writes, buffered), so a solve that
    prints a million lines stays fast; its bytes reach Python code only once per
    64 KiB, where the first `limit` bytes are kept and the rest only counted.
    """

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._sink = _BoundedSink(limit)
        self.stream = self._new_stream()

    def _new_stream(self) -> io.TextIOWrapper:
        return io.TextIOWrapper(io.BufferedWriter(self._sink, 1 << 16), encoding="utf-8", errors="backslashreplace")

    def install(self) -> None:
        sys.stdout = sys.stderr = self.stream

    def take(self) -> tuple[str, int]:
        """Return what was printed since the last take, and how many bytes were dropped."""
        sink = self._sink
        try:
            self.stream.flush()
        except (ValueError, OSError):  # solve closed sys.stdout: give it a new one
            closed, self._sink = self.stream, _BoundedSink(self.limit)
            self.stream = self._new_stream()
            if sys.stdout is closed or sys.stderr is closed:
                self.install()
        text = bytes(sink.kept).decode("utf-8", "replace")
        dropped = sink.dropped
        sink.kept, sink.dropped = bytearray(), 0
        return text, dropped


def safe_repr(value: Any, limit: int = _REPR_LIMIT) -> str:
    """repr() that never raises and never builds more than about `limit` characters.

    A 5 MB string or a 100,000-item list is not turned into a 5 MB repr only to be
    clipped: long strings and containers are shown by their beginning, counted.
    """
    kind = type(value)
    if kind in (str, bytes) and len(value) > limit:
        return repr(value[:limit])[: limit - 1] + f"…  [{len(value):,} characters]"
    if kind in (list, tuple, set, frozenset, dict) and len(value) > limit // 2:
        count = max(limit // 8, 4)
        if kind is dict:
            shown = ", ".join(f"{safe_repr(k, 40)}: {safe_repr(v, 40)}" for k, v in list(value.items())[:count])
        else:
            shown = ", ".join(safe_repr(x, 40) for x in list(value)[:count])
        brackets = {list: "[]", tuple: "()", dict: "{}", set: "{}", frozenset: "{}"}[kind]
        text = f"{brackets[0]}{shown}, …{brackets[1]}  [{len(value):,} items]"
        return text if len(text) <= limit else text[: limit - 1] + "…"
    try:
        text = repr(value)
    except BaseException as exc:  # noqa: BLE001 - learner objects may break repr
        text = f"<{kind.__name__} object; repr() raised {type(exc).__name__}>"
    if not isinstance(text, str):
        text = f"<{kind.__name__} object>"
    return text if len(text) <= limit else text[: limit - 1] + "…"


def safe_str(value: Any, limit: int = _MESSAGE_LIMIT) -> str:
    try:
        text = str(value)
    except BaseException:  # noqa: BLE001
        text = safe_repr(value, limit)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def portable(value: Any) -> Any:
    """A copy of `value` made of plain Python data only, safe to pickle and unpickle.

    Exact builtin types pass through (recursively). Everything else becomes an
    Opaque with its type and repr, plus the plain equivalent for subclasses of
    builtin containers. Cycles, extreme depth and extreme size become Opaque too.
    """
    budget = [_MAX_NODES]
    return _portable(value, 0, budget, set())


_SCALARS = (type(None), bool, int, float, complex)


def _portable(value: Any, depth: int, budget: list[int], active: set[int]) -> Any:
    kind = type(value)
    budget[0] -= 1
    if kind in _SCALARS:
        return value
    if kind is str or kind is bytes:
        if len(value) > _MAX_STRING:
            return Opaque(kind.__name__, safe_repr(value[:200]) + "…", f"too large to show ({len(value):,} characters)")
        return value
    if budget[0] < 0:
        return Opaque(_type_name(kind), "…", "too large to show (over 2,000,000 items)")
    if depth > _MAX_DEPTH:
        return Opaque(_type_name(kind), "[…]", f"nested more than {_MAX_DEPTH} levels deep")
    if kind in (list, tuple, dict, set, frozenset):
        if id(value) in active:
            return Opaque(_type_name(kind), "[...]" if kind is list else "{...}", "contains itself")
        active.add(id(value))
        try:
            if kind is dict:
                return {
                    _portable(k, depth + 1, budget, active): _portable(v, depth + 1, budget, active)
                    for k, v in list(value.items())
                }
            items = [_portable(item, depth + 1, budget, active) for item in list(value)]
            return items if kind is list else kind(items)
        except TypeError:  # an unhashable stand-in as a key or set member
            return Opaque(_type_name(kind), safe_repr(value), "holds values that cannot be sent back")
        finally:
            active.discard(id(value))
    return Opaque(_type_name(kind), safe_repr(value), "not a plain value", _plain_equivalent(value, depth, budget, active))


def _plain_equivalent(value: Any, depth: int, budget: list[int], active: set[int]) -> Any:
    for base in (bool, int, float, complex, str, bytes, tuple, list, dict, set, frozenset):
        if isinstance(value, base):
            try:
                return _portable(base(value), depth + 1, budget, active)
            except BaseException:  # noqa: BLE001 - a hostile subclass
                return None
    return None


def _type_name(kind: type) -> str:
    module = getattr(kind, "__module__", "") or ""
    name = getattr(kind, "__qualname__", None) or getattr(kind, "__name__", "object")
    return name if module in ("builtins", "__main__", "") else f"{module}.{name}"


def error_payload(exc: BaseException, *, program_filename: str | None = None) -> dict:
    """Describe an exception as plain data, with the traceback trimmed to user frames.

    Frames of this package are dropped. When the error came from inside `solve`,
    only frames from the solve call inward are kept: the learner's own code.
    """
    frames = traceback.extract_tb(exc.__traceback__)
    cut = None
    for i, frame in enumerate(frames):
        if frame.filename == __file__ and frame.name == "solve_called_by_the_fixture":
            cut = i
    if cut is not None:
        kept = frames[cut + 1 :]
    else:
        kept = [f for f in frames if not f.filename.startswith(_PACKAGE_DIR)]
    try:
        tail = "".join(traceback.format_exception_only(type(exc), exc))
    except BaseException:  # noqa: BLE001
        tail = f"{_type_name(type(exc))}: {safe_str(exc)}\n"
    body = "".join(traceback.StackSummary.from_list(kept).format()) if kept else ""
    text = ("Traceback (most recent call last):\n" + body if body else "") + tail
    if len(text) > 20_000:
        text = text[:9_000] + "\n[… traceback shortened …]\n" + text[-9_000:]
    return {"type": _type_name(type(exc)), "message": safe_str(exc), "traceback": text}


class Session:
    """Runs one fixture program and reports each check to `sink` as plain data."""

    def __init__(
        self,
        sink: Callable[[tuple], None],
        *,
        skip: int,
        capture: OutputCapture,
        param_names: tuple[str, ...],
        guard: Callable[[], Any] | None = None,
    ) -> None:
        self.sink = sink
        self.skip = skip
        self.capture = capture
        self.param_names = param_names
        self.guard = guard
        self.ordinal = 0
        self.globals: dict[str, Any] = {}
        self.extra_globals: dict[str, Any] = {}
        self._calls: list[str] = []
        self._mutation: str | None = None

    def run(self, code, variant: int, solve: Callable | None) -> None:
        """Execute the program (a code object, or several in turn); report ``done`` or a ``problem``."""
        g = self.globals
        g.update(
            {
                "__name__": "__failuremap__",
                "__builtins__": __builtins__,
                "N": variant,
                "__fm_variant__": variant,
                "__fm_check__": self.check,
                "__fm_wrap__": self.wrap,
            }
        )
        g.update(self.extra_globals)
        if solve is not None:
            g["solve"] = self.wrap(solve)
        try:
            for part in code if isinstance(code, tuple) else (code,):
                exec(part, g)
        except TooManyChecks:
            self.sink(("problem", {"type": "TooManyChecks", "message": f"the fixtures ran more than {MAX_CHECKS:,} checks", "traceback": ""}))
            return
        except BaseException as exc:  # noqa: BLE001 - the fixture code itself failed
            self.sink(("problem", error_payload(exc)))
            return
        self.sink(("done", self.ordinal))

    def wrap(self, solve: Callable) -> Callable:
        """Give every call a deep copy of its arguments, and notice mutation."""
        session = self

        def solve_called_by_the_fixture(*args, **kwargs):
            session._calls.append(_render_call(args, kwargs))
            try:
                fresh_args, fresh_kwargs = copy.deepcopy((args, kwargs))
            except Exception:  # noqa: BLE001 - uncopyable input: pass it as it is
                fresh_args, fresh_kwargs = args, kwargs
            result = solve(*fresh_args, **fresh_kwargs)
            if session._mutation is None:
                session._mutation = _describe_mutation(args, kwargs, fresh_args, fresh_kwargs, session.param_names)
            return result

        solve_called_by_the_fixture.__wrapped__ = solve  # type: ignore[attr-defined]
        return solve_called_by_the_fixture

    def check(self, site: int, label_thunk, actual_thunk, expected_thunk) -> None:
        ordinal = self.ordinal
        self.ordinal += 1
        if ordinal >= MAX_CHECKS:
            raise TooManyChecks
        if ordinal < self.skip:
            return  # an earlier worker already reported this check
        label = label_thunk()
        label_text = label if type(label) is str else safe_repr(label)
        self.sink(("begin", ordinal, site, label_text))
        self._calls, self._mutation = [], None
        self.capture.take()
        status, error, actual, passed = FAIL, None, None, False
        started = time.perf_counter()
        try:
            actual = self._guarded(actual_thunk)
        except CheckTimeout as exc:
            status, error = TIMEOUT, {"type": "Timeout", "message": str(exc), "traceback": ""}
        except BaseException as exc:  # noqa: BLE001 - includes SystemExit
            status, error = ERROR, error_payload(exc)
        expected, expected_error = self._expected(expected_thunk)
        if status == FAIL:
            if expected_error is not None:
                status, error = ERROR, expected_error
            else:
                try:
                    passed = self._guarded(lambda: self._verdict(label, actual, expected))
                    status = PASS if passed else FAIL
                except CheckTimeout as exc:
                    status, error = TIMEOUT, {"type": "Timeout", "message": str(exc), "traceback": ""}
                except BaseException as exc:  # noqa: BLE001 - a hostile __eq__
                    status, error = ERROR, error_payload(exc)
                    error["message"] = "comparing the result with the expected value raised: " + error["message"]
        elapsed_ms = (time.perf_counter() - started) * 1000
        output, dropped = self.capture.take()
        self.sink(
            (
                "result",
                {
                    "index": ordinal,
                    "site": site,
                    "check": label_text,
                    "status": status,
                    "passed": passed,
                    "actual": portable(actual) if status in (PASS, FAIL) else None,
                    "expected": portable(expected),
                    "call": "; ".join(self._calls)[:_CALL_LIMIT],
                    "error": error,
                    "stdout": output,
                    "stdout_dropped": dropped,
                    "elapsed_ms": elapsed_ms,
                    "mutation": self._mutation,
                },
            )
        )

    def _guarded(self, thunk):
        if self.guard is None:
            return thunk()
        with self.guard():
            return thunk()

    def _expected(self, expected_thunk) -> tuple[Any, dict | None]:
        try:
            return expected_thunk(), None
        except BaseException as exc:  # noqa: BLE001 - record code; report, don't die
            error = error_payload(exc)
            error["message"] = "the record's expected value could not be computed: " + error["message"]
            return None, error

    def _verdict(self, label: Any, actual: Any, expected: Any) -> bool:
        """The record's own harness decides: call its check() and read what it appended."""
        g = self.globals
        harness = g.get("check")
        observations = g.get("observations")
        before = len(observations) if isinstance(observations, list) else None
        if callable(harness):
            harness(label, actual, expected)
            if before is not None and len(observations) == before + 1:
                entry = observations[-1]
                if isinstance(entry, dict) and "passed" in entry:
                    return bool(entry["passed"])
        return bool(actual == expected)


def _render_call(args: tuple, kwargs: dict) -> str:
    parts = [safe_repr(a, _CALL_LIMIT) for a in args]
    parts += [f"{k}={safe_repr(v, _CALL_LIMIT)}" for k, v in kwargs.items()]
    text = "solve(" + ", ".join(parts) + ")"
    return text if len(text) <= _CALL_LIMIT else text[: _CALL_LIMIT - 2] + "…)"


def _describe_mutation(args, kwargs, fresh_args, fresh_kwargs, names: tuple[str, ...]) -> str | None:
    try:
        changed = [
            (names[i] if i < len(names) else f"argument {i + 1}", before, after)
            for i, (before, after) in enumerate(zip(args, fresh_args))
            if type(before) is not type(after) or before != after
        ]
        changed += [(k, kwargs[k], fresh_kwargs[k]) for k in kwargs if kwargs[k] != fresh_kwargs.get(k)]
    except BaseException:  # noqa: BLE001 - a hostile __eq__: say nothing rather than guess
        return None
    if not changed:
        return None
    name, before, after = changed[0]
    return (
        f"solve modified its argument {name!r}: it was {safe_repr(before, 120)} and became "
        f"{safe_repr(after, 120)}. Each check passes a fresh copy, so other checks are unaffected."
    )
