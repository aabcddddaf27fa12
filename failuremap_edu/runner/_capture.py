"""What solve prints while checks run: kept up to a limit, the rest counted."""

from __future__ import annotations

import io
import sys


class _BoundedSink(io.RawIOBase):
    """Keeps the first `limit` bytes written to it and counts the rest."""

    def __init__(self, limit: int) -> None:
        super().__init__()
        self.limit, self.kept, self.dropped = limit, bytearray(), 0

    def writable(self) -> bool:
        return True

    def write(self, data) -> int:
        room = max(self.limit - len(self.kept), 0)
        self.kept += bytes(data[:room])
        self.dropped += max(len(data) - room, 0)
        return len(data)


class OutputCapture:
    """A bounded stand-in for stdout and stderr while checks run.

    `stream` is a real text stream (C-level writes, buffered), so a solve that
    prints a million lines stays fast; its bytes reach Python code only once per
    64 KiB, where the first `limit` bytes are kept and the rest only counted.
    """

    def __init__(self, limit: int) -> None:
        self.limit, self._sink = limit, _BoundedSink(limit)
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
