"""Writing a file whole or not at all: a temporary file beside it, fsync, rename onto its name.

Every file the project produces (hand-ins, exports, reports, notebooks, records,
manifests) is written this way, so a kill, a crash or a full disk leaves either
the old file, unchanged, or the new one, complete; never a torn or empty one.

- The temporary file is in the same folder (``.NAME.XXXX.tmp``), so the rename
  stays on one file system and is atomic. It is fsynced before the rename, and the
  folder after it, so the new name survives a power cut too.
- A file that existed keeps its permission bits; a new one gets what ``open``
  would give it (0o666 less the umask), not mkstemp's 0o600.
- A symbolic link at the name is replaced by the file, never written through.
- Any failure removes the temporary file and raises `WriteError`: one line that
  names the destination (not the temporary file, not a source being copied) and
  says that the old file is unchanged.
"""

from __future__ import annotations

import errno
import os
import stat
import tempfile
import threading
from pathlib import Path
from typing import BinaryIO, Callable

from ._errors import InputError

__all__ = ["WriteError", "copy_file", "fsync_folder", "write_bytes", "write_text", "write_with"]

_umask: list[int] = []
_umask_lock = threading.Lock()


class WriteError(OSError, InputError):
    """A file could not be written (full disk, no permission, ...); the old file, if any, is unchanged.

    An OSError (errno and strerror of the cause, `filename` the destination) and an
    InputError, so a front shows its one line, never a traceback.
    """

    def __init__(self, path: str | os.PathLike, cause: BaseException, existed: bool, kept: str | None = None) -> None:
        reason = getattr(cause, "strerror", None) or str(cause) or type(cause).__name__
        super().__init__(getattr(cause, "errno", None), reason, str(path))
        self.kept = kept or ("the old file is unchanged" if existed else "nothing was written there")
        """What is still as it was, in a few words (a folder's writer says so for the folder)."""

    def __str__(self) -> str:
        return f"{self.filename}: cannot write: {self.strerror} ({self.kept})"

    def __reduce__(self):  # pickles (a worker process) like any OSError
        return (_rebuild, (self.filename, self.errno, self.strerror, self.kept))


def _rebuild(path, errno_, strerror, kept) -> WriteError:
    return WriteError(path, OSError(errno_, strerror), True, kept)


def _new_file_mode() -> int:
    """What ``open(..., "w")`` gives a new file: 0o666 less the umask (read once, under a lock: umask has no getter)."""
    with _umask_lock:
        if not _umask:
            mask = os.umask(0o022)
            os.umask(mask)
            _umask.append(mask)
    return 0o666 & ~_umask[0]


def fsync_folder(folder: str | os.PathLike) -> None:
    """Make a rename in `folder` durable; a no-op where folders cannot be opened or fsynced (Windows, some file systems)."""
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_with(path: str | os.PathLike, fill: Callable[[BinaryIO], object], *, new: bool = False) -> Path:
    """Write `path` whole or not at all: `fill` writes the content into the binary file it is given.

    Returns the path. Raises `WriteError` (naming `path`) when anything fails; then
    no temporary file is left and the old file, if any, is as it was. `new`: only
    where nothing is yet (a file that appeared there meanwhile is never replaced:
    the whole file is linked into place where the system has hard links).
    """
    path = Path(path)
    folder = path.parent
    try:
        st = os.lstat(path)
        existed = True
        mode = stat.S_IMODE(st.st_mode) if stat.S_ISREG(st.st_mode) else _new_file_mode()
    except FileNotFoundError:
        existed, mode = False, _new_file_mode()
    except OSError as exc:
        raise WriteError(path, exc, True) from None
    temporary = None
    try:
        fd, temporary = tempfile.mkstemp(prefix=f".{path.name[:80]}.", suffix=".tmp", dir=folder)
        with os.fdopen(fd, "wb") as fh:
            fill(fh)
            fh.flush()
            if hasattr(os, "fchmod"):  # not on Windows
                os.fchmod(fh.fileno(), mode)
            os.fsync(fh.fileno())
        if not new or not _linked(temporary, path):
            os.replace(temporary, path)
            temporary = None
    except OSError as exc:
        raise WriteError(path, exc, existed) from None
    finally:
        if temporary is not None:
            try:
                os.unlink(temporary)
            except OSError:
                pass
    fsync_folder(folder)
    return path


def _linked(temporary: str, path: Path) -> bool:
    """Link `temporary` to the free name `path` (FileExistsError when taken); False: no hard links here, and it is free."""
    if hasattr(os, "link"):  # Pyodide has none
        try:
            os.link(temporary, path)
            return True
        except FileExistsError:
            raise
        except OSError as exc:
            if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EMLINK):
                raise
    if os.path.lexists(path):
        raise FileExistsError(errno.EEXIST, "File exists", str(path))
    return False


def write_bytes(path: str | os.PathLike, data: bytes) -> Path:
    """`data` as the whole content of `path`, written whole or not at all (`write_with`)."""
    return write_with(path, lambda fh: fh.write(data))


def write_text(path: str | os.PathLike, text: str, encoding: str = "utf-8", *, new: bool = False) -> Path:
    """`text` as the whole content of `path` (no newline translation), written whole or not at all (`write_with`).

    The text is encoded before anything is written: a character the encoding cannot
    take fails with the old file untouched.
    """
    data = text.encode(encoding)
    return write_with(path, lambda fh: fh.write(data), new=new)


def copy_file(source: str | os.PathLike, path: str | os.PathLike) -> Path:
    """`source`'s bytes as the whole content of `path` (`write_with`); a failure to write names `path`.

    Read whole first (records, notebooks and package files are small): a `source` that
    cannot be read raises its own OSError, naming the source, and nothing is written.
    """
    return write_bytes(path, Path(source).read_bytes())
