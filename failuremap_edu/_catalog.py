"""A catalog of records at scale: folders of records, verified in parallel, with progress.

A malformed record is one line of trouble, never the end of the run: every other
record is still loaded and verified, and the caller learns what went wrong where.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import sys
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from multiprocessing import get_context
from pathlib import Path
from typing import Callable, Iterable, Iterator

from .runner._channel import ALLOWED, Reader, frame
from ._parity import ParityReport, verify_record
from ._records import RecordError, list_records, load_record
from .runner._api import UNGUARDED

__all__ = ["CatalogEntry", "ProgressBar", "catalog_refs", "verify_many"]


@dataclass(frozen=True)
class CatalogEntry:
    """One record of a catalog: its verification report, or the error that stopped it."""

    ref: str
    report: ParityReport | None = None
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.report is not None and self.report.ok


def catalog_refs(records: Iterable[str] = (), records_dir: str | os.PathLike | None = None) -> list[str]:
    """What to work on: the given ids or paths, plus every ``*.json`` in `records_dir`.

    With neither, the packaged records.
    """
    refs = list(records)
    if records_dir is not None:
        folder = Path(records_dir)
        if not folder.is_dir():
            raise RecordError(str(folder), "", "--records-dir is not a folder")
        refs += [str(p) for p in sorted(folder.glob("*.json"))]
    elif not refs:
        refs = list_records()
    return refs


def _verify_one(ref: str, isolation: str | None = None) -> CatalogEntry:
    try:
        record = load_record(ref)
        return CatalogEntry(ref, verify_record(record, isolation=isolation))
    except RecordError as exc:
        return CatalogEntry(ref, error=str(exc))


CHUNK = 25
SECONDS_PER_RECORD = 5.0
"""A fast chunk child must finish each record within this; a record takes milliseconds."""


def _verify_chunk(refs: list[str]) -> list[CatalogEntry]:
    """Verify a chunk fast, safely: all replays in one forked child, in-process there.

    Forking once per chunk instead of once per replay, and running the record
    scripts without a trace-function time limit inside that child, is what makes a
    large catalog fast. The child is supervised record by record: if it dies or a
    record overruns SECONDS_PER_RECORD, the records it did not finish are verified
    again the careful way (a fork per replay, a time limit per check). Any record
    that does not come out clean is re-verified the careful way too, so the verdicts
    are exactly those of the careful path.
    """
    entries = _in_forked_child(refs)
    entries += [_verify_one(ref) for ref in refs[len(entries) :]]
    return [e if e.error is not None or e.ok else _verify_one(e.ref) for e in entries]


_ENTRY_CLASSES = ALLOWED | {
    ("failuremap_edu._catalog", "CatalogEntry"),
    ("failuremap_edu._parity", "ParityReport"),
    ("failuremap_edu._parity", "ImplementationParity"),
    ("failuremap_edu._parity", "RecordedCrash"),
    ("failuremap_edu._results", "RunResult"),
    ("failuremap_edu._results", "Observation"),
    ("failuremap_edu._results", "ErrorInfo"),
}
"""What a chunk child may send back. It ran record code unguarded, so nothing else is unpickled."""


def _in_forked_child(refs: list[str]) -> list[CatalogEntry]:
    """The entries a forked child verified before it finished, died or overran."""
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child reports through the pipe
        code = 0
        try:
            os.close(read_fd)
            for ref in refs:
                data = memoryview(frame(_verify_one(ref, isolation=UNGUARDED)))
                while data:
                    data = data[os.write(write_fd, data) :]
        except BaseException:  # noqa: BLE001
            code = 70
        finally:
            os._exit(code)
    os.close(write_fd)
    reader = Reader(_ENTRY_CLASSES)
    entries: list[CatalogEntry] = []
    try:
        while len(entries) < len(refs):
            poller = select.poll()
            poller.register(read_fd, select.POLLIN)
            if not poller.poll(SECONDS_PER_RECORD * 1000):
                break  # overran: the rest goes the careful way
            chunk = os.read(read_fd, 1 << 20)
            if not chunk:
                break  # died: the rest goes the careful way
            for _, entry in reader.feed(chunk):
                if not isinstance(entry, CatalogEntry):
                    return entries
                entries.append(entry)
            if reader.broken is not None:  # a damaged answer: the careful way from here
                break
    finally:
        os.close(read_fd)
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    return entries


def verify_many(refs: list[str], jobs: int | None = None, progress: Callable[[int, int], None] | None = None) -> Iterator[CatalogEntry]:
    """Verify records in parallel (one worker process per core), yielding entries in order."""
    jobs = jobs or os.cpu_count() or 1
    total = len(refs)
    if not hasattr(os, "fork"):
        for done, ref in enumerate(refs, start=1):
            entry = _verify_one(ref)
            if progress:
                progress(done, total)
            yield entry
        return
    chunks = [refs[i : i + CHUNK] for i in range(0, total, CHUNK)]
    done = 0
    if jobs <= 1 or len(chunks) <= 1:
        results: Iterable[list[CatalogEntry]] = map(_verify_chunk, chunks)
        pool = None
    else:
        pool = ProcessPoolExecutor(max_workers=jobs, mp_context=get_context("fork"))
        results = pool.map(_verify_chunk, chunks)
    try:
        for entries in results:
            for entry in entries:
                done += 1
                if progress:
                    progress(done, total)
                yield entry
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)


class ProgressBar:
    """A one-line progress bar on stderr, shown only when stderr is a terminal."""

    def __init__(self, label: str, stream=None, width: int = 30) -> None:
        self.stream = stream or sys.stderr
        self.label = label
        self.width = width
        self.enabled = hasattr(self.stream, "isatty") and self.stream.isatty()
        self._last = -1

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled or total <= 0:
            return
        filled = self.width * done // total
        if filled == self._last and done != total:
            return
        self._last = filled
        bar = "#" * filled + "-" * (self.width - filled)
        end = "\n" if done == total else ""
        self.stream.write(f"\r{self.label} [{bar}] {done}/{total}{end}")
        self.stream.flush()
