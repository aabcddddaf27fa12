"""One check session: a fixture program run one check at a time, reported as plain data.

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
import sys
import time
from typing import Any, Callable

from ._results import ERROR, FAIL, PASS, TIMEOUT
from ._values import error_payload, portable, render_call, safe_repr

MAX_CHECKS = 10_000
"""A run stops with a problem after this many checks (a fixture loop gone wrong)."""
_CALL_LIMIT = 500


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

        def solve_called_by_the_fixture(*args, **kwargs):  # the name is SOLVE_FRAME
            session._calls.append(render_call(args, kwargs))
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
