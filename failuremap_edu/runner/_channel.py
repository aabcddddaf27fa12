"""Worker -> supervisor messages: length-prefixed pickles on pipes, read through an allow-list.

One frame per message, written with one ``os.write`` as soon as the worker
knows something, so a worker that is killed or dies has told all it knew (which
pipe a frame takes is `_worker._Sink`'s business). The worker ran untrusted
code, and that code can write to the pipes too: the supervisor unpickles only
allow-listed classes, refuses oversized frames, and trusts nothing after the
first bytes it cannot decode (`Undecodable`, which the runner counts as the
worker's death). Nothing a worker writes can raise in the caller.
"""

from __future__ import annotations

import io
import pickle
import struct
import time
from typing import Any

_HEADER = struct.Struct("!I")
MAX_FRAME = 256 * 1024 * 1024
"""A frame that claims more is garbage (results are clipped long before this)."""

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


class Undecodable(Exception):
    """Bytes from a worker that are not a message we sent: the worker is not to be trusted any more."""


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


def frame(message: Any) -> bytes:
    """One message as it goes down the pipe, stamped with the sender's ``time.monotonic()``.

    The clock is the same in every process, so a supervisor that reads late still
    measures a check's time from when it really began.
    """
    payload = pickle.dumps((time.monotonic(), message), protocol=pickle.HIGHEST_PROTOCOL)
    return _HEADER.pack(len(payload)) + payload


class Reader:
    """The supervisor's side: feed it bytes as they arrive, get whole messages back in order."""

    def __init__(self, allowed: frozenset[tuple[str, str]] = ALLOWED) -> None:
        self.allowed = allowed
        self.buffer = bytearray()
        self.broken: str | None = None
        """Set at the first bytes that are no message: everything from there on is refused."""

    def feed(self, data: bytes) -> list[tuple[float, Any]]:
        """The (stamp, message) pairs completed by `data`, up to any garbage (then `broken` says what)."""
        self.buffer += data
        messages = []
        while self.broken is None and len(self.buffer) >= _HEADER.size:
            (size,) = _HEADER.unpack_from(self.buffer)
            if size > MAX_FRAME:
                self.broken = f"a frame of {size:,} bytes"
                break
            if len(self.buffer) < _HEADER.size + size:
                break
            payload = bytes(self.buffer[_HEADER.size : _HEADER.size + size])
            del self.buffer[: _HEADER.size + size]
            try:
                stamp, message = safe_loads(payload, self.allowed)
                if type(stamp) is not float:
                    raise TypeError("no timestamp")
            except Exception as exc:  # noqa: BLE001 - any garbage at all
                self.broken = f"{type(exc).__name__}: {exc}"
                break
            messages.append((stamp, message))
        return messages

    def check(self) -> None:
        """Raises Undecodable once garbage has been seen."""
        if self.broken is not None:
            raise Undecodable(self.broken)
