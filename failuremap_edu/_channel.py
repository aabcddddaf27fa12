"""How a forked worker reports to its supervisor: a shared-memory log, and a pipe for the end.

Writing each message to a pipe wakes the sleeping supervisor every time, and on a
virtual machine each of those wake-ups costs the writer tens of microseconds (an
inter-processor interrupt). With a dozen messages per run that was a third of a
run's time. So the worker appends messages to a log in memory it shares with the
supervisor, which costs no system call, and writes to the pipe only its last
message (``done`` or ``problem``), or everything once the log is full.

The supervisor reads the log whenever it wakes: for that last message, at a
check's deadline, on its progress poll, or when the pipe closes because the worker
died. Nothing is lost when a worker dies mid-check: everything it logged before is
already in the supervisor's memory. Each message carries the worker's
``time.monotonic()``, which is the same clock in both processes, so deadlines are
measured from when a check really began.
"""

from __future__ import annotations

import io
import mmap
import os
import pickle
import select
import struct
import time
from typing import Any

LOG_BYTES = 4 * 1024 * 1024
"""Address space reserved for the log; pages are only used as messages fill them."""
_FRAME = struct.Struct("!I")
_COMMITTED = struct.Struct("=Q")  # bytes of complete frames, stored after each frame is written
_HEADER = 8


class WorkerTimeout(Exception):
    """Nothing new arrived before the deadline."""


class WorkerDied(Exception):
    """The pipe closed and the log holds nothing more: the worker has gone."""


ALLOWED = frozenset(
    {
        ("builtins", "set"),
        ("builtins", "frozenset"),
        ("builtins", "complex"),
        ("builtins", "slice"),
        ("failuremap_edu._values", "Opaque"),
    }
)
"""What a check worker may send back: plain builtins and our stand-in for anything else."""


class _SafeUnpickler(pickle.Unpickler):
    """Only the classes a channel allows may come back from a worker (it ran untrusted code)."""

    def __init__(self, file, allowed: frozenset[tuple[str, str]]) -> None:
        super().__init__(file)
        self.allowed = allowed

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) in self.allowed:
            return super().find_class(module, name)
        raise pickle.UnpicklingError(f"refusing {module}.{name} from a worker")


def safe_loads(payload: bytes, allowed: frozenset[tuple[str, str]] = ALLOWED) -> Any:
    return _SafeUnpickler(io.BytesIO(payload), allowed).load()


class Channel:
    """Made by the supervisor before forking; afterwards each side uses its own half."""

    def __init__(self, log_bytes: int = LOG_BYTES, *, wake_each: bool = False, allowed: frozenset[tuple[str, str]] = ALLOWED) -> None:
        # `wake_each`: send every message through the pipe, with no log. Cheaper when the
        # supervisor has just forked and is awake anyway: it then handles each message
        # while the worker goes on, instead of all of them at the end.
        # Otherwise the log is anonymous memory, shared with the child after fork.
        self._setup(None if wake_each else mmap.mmap(-1, log_bytes), *os.pipe(), wake_each=wake_each, allowed=allowed)

    @classmethod
    def shared(cls) -> tuple["Channel", int]:
        """A channel whose two halves live in different processes' hands, not parent and child.

        Returns the channel (for the worker, after fork) and the log's memfd, which
        travels with `read_fd` to the supervisor (see `supervise`).
        """
        log_fd = os.memfd_create("failuremap-log", getattr(os, "MFD_CLOEXEC", 0))
        os.ftruncate(log_fd, LOG_BYTES)
        channel = cls.__new__(cls)
        channel._setup(mmap.mmap(log_fd, LOG_BYTES), *os.pipe(), wake_each=False)
        return channel, log_fd

    @classmethod
    def supervise(cls, log_fd: int, read_fd: int) -> "Channel":
        """The supervisor's half of a `shared` channel, from the descriptors it received."""
        channel = cls.__new__(cls)
        try:
            log = mmap.mmap(log_fd, LOG_BYTES)
        finally:
            os.close(log_fd)
        channel._setup(log, read_fd, -1, wake_each=False)
        return channel

    def _setup(self, log, read_fd: int, write_fd: int, wake_each: bool, allowed: frozenset[tuple[str, str]] = ALLOWED) -> None:
        self.log, self.read_fd, self.write_fd, self.wake_each, self.allowed = log, read_fd, write_fd, wake_each, allowed
        self._write_at = _HEADER
        self._log_full = False
        self._read_at = _HEADER
        self._pipe_buffer = bytearray()
        self._pipe_closed = False

    # ------------------------------------------------------------------ worker

    def worker_side(self) -> None:
        os.close(self.read_fd)
        self.read_fd = -1

    def post(self, message: tuple, last: bool = False) -> None:
        """Send one message; `last` ones (and all, once the log is full) go through the pipe."""
        payload = pickle.dumps((time.monotonic(), message), protocol=pickle.HIGHEST_PROTOCOL)
        frame = _FRAME.pack(len(payload)) + payload
        if not last and not self._log_full and self.log is not None:
            end = self._write_at + len(frame)
            if end <= len(self.log):
                self.log[self._write_at : end] = frame
                _COMMITTED.pack_into(self.log, 0, end)
                self._write_at = end
                return
            self._log_full = True  # from now on the pipe carries everything, in order
        data = memoryview(frame)
        while data:
            written = os.write(self.write_fd, data)
            data = data[written:]

    # -------------------------------------------------------------- supervisor

    def supervisor_side(self) -> None:
        os.close(self.write_fd)
        self.write_fd = -1

    def wait(self, until: float) -> list[tuple[float, tuple]]:
        """Messages not yet seen, in the order they were posted; [] if `until` passed first.

        Raises WorkerDied once the pipe is closed and everything has been read.
        """
        while True:
            messages = self._logged() + self._piped()
            if messages:
                return messages
            if self._pipe_closed:
                raise WorkerDied
            remaining = until - time.monotonic()
            if remaining <= 0:
                return []
            try:
                ready, _, _ = select.select([self.read_fd], [], [], remaining)
            except InterruptedError:  # pragma: no cover - PEP 475 retries for us
                continue
            if ready:
                chunk = os.read(self.read_fd, 1 << 20)
                if chunk:
                    self._pipe_buffer += chunk
                else:
                    self._pipe_closed = True

    def close(self) -> None:
        for fd in (self.read_fd, self.write_fd):
            if fd < 0:
                continue
            try:
                os.close(fd)
            except OSError:
                pass
        if self.log is not None:
            self.log.close()

    def _logged(self) -> list[tuple[float, tuple]]:
        if self.log is None:
            return []
        (committed,) = _COMMITTED.unpack_from(self.log, 0)
        messages = []
        while self._read_at + _FRAME.size <= committed:
            (size,) = _FRAME.unpack_from(self.log, self._read_at)
            start = self._read_at + _FRAME.size
            if start + size > committed:
                break  # pragma: no cover - a frame is never committed before it is complete
            messages.append(safe_loads(self.log[start : start + size], self.allowed))
            self._read_at = start + size
        return messages

    def _piped(self) -> list[tuple[float, tuple]]:
        messages, buffer = [], self._pipe_buffer
        while len(buffer) >= _FRAME.size:
            (size,) = _FRAME.unpack_from(buffer)
            if len(buffer) < _FRAME.size + size:
                break
            messages.append(safe_loads(bytes(buffer[_FRAME.size : _FRAME.size + size]), self.allowed))
            del buffer[: _FRAME.size + size]
        return messages
