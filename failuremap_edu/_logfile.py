"""A file of JSON lines that several processes append to (the progress log): opened only when it is a regular file, appended whole.

A FIFO or a device at its place is never waited on (O_NONBLOCK, then refused as
"not a regular file"). Each line goes in with one ``O_APPEND`` write, whose count
is checked; a line torn by an earlier crash or a full disk never swallows the next.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

__all__ = ["append_line", "open_for_reading", "write_synced"]


def _open_regular(target: Path, flags: int) -> int:
    """A file descriptor for `target`, only if it is a regular file.

    Opened with O_NONBLOCK, so a FIFO (or a device) at the log's place is never
    waited on; it is then refused with an OSError that says what it is.
    """
    fd = os.open(target, flags | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0), 0o644)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a regular file", str(target))
    except BaseException:
        os.close(fd)
        raise
    return fd


def open_for_reading(target: Path):
    """`target` opened for reading in binary, only if it is a regular file (else OSError "not a regular file")."""
    try:
        return os.fdopen(_open_regular(target, os.O_RDONLY), "rb")
    except OSError as exc:
        if exc.errno == errno.ENXIO:  # a FIFO without a reader refuses O_NONBLOCK writers (and special files may)
            raise OSError(errno.EINVAL, "not a regular file", str(target)) from None
        raise


def append_line(target: Path, line: bytes) -> None:
    """Append `line` whole, with one write, or raise OSError: never a line cut short without saying so.

    One ``O_APPEND`` write per line, so two kernels appending at once do not
    interleave. When the file does not end in a newline (a line torn by an earlier
    crash or a full disk), the write starts with one, so the torn line costs only
    itself, never this run. A short write (the disk filled, a signal) is retried
    once as a new line; if that is short too, OSError says how much was written.
    """
    try:
        fd = _open_regular(target, os.O_RDWR | os.O_APPEND | os.O_CREAT)
    except PermissionError:
        fd = _open_regular(target, os.O_WRONLY | os.O_APPEND | os.O_CREAT)  # a log we may write but not read
    except OSError as exc:
        if exc.errno == errno.ENXIO:  # a FIFO nobody reads
            raise OSError(errno.EINVAL, "not a regular file", str(target)) from None
        raise
    try:
        for _ in range(2):
            data = line if _ends_a_line(fd) else b"\n" + line
            written = os.write(fd, data)
            if written == len(data):
                return
        raise OSError(errno.EIO, f"only {written} of {len(data)} bytes of the run were written (is the disk full?)", str(target))
    finally:
        os.close(fd)


def _ends_a_line(fd: int) -> bool:
    """Whether the file is empty or ends in a newline (True when it cannot be read: opened write-only)."""
    size = os.fstat(fd).st_size
    if size == 0:
        return True
    try:
        pread = getattr(os, "pread", None)
        if pread is not None:
            return pread(fd, 1, size - 1) == b"\n"
        os.lseek(fd, size - 1, os.SEEK_SET)  # the write appends wherever the offset is (O_APPEND)
        return os.read(fd, 1) == b"\n"
    except OSError:
        return True


def write_synced(path: Path, data: bytes) -> None:
    """A new file holding `data`, on the disk before it is linked into place (a crash never leaves an empty log)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    try:
        if os.write(fd, data) != len(data):
            raise OSError(errno.ENOSPC, "the learner id was not written whole", str(path))
        os.fsync(fd)
    finally:
        os.close(fd)
