"""A catalog of records at scale: folders of records, verified in parallel, with progress.

A malformed record is one line of trouble, never the end of the run: every other
record is still loaded and verified, and the caller learns what went wrong where.
"""

from __future__ import annotations

import os
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Iterator

from .._fixtures import read_fixtures
from .._parity import ParityReport, parity_report, verify_record
from .._records import Record, RecordError, list_records, load_record
from ..runner import replay_many

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


CHUNK = 10
"""Records whose replays share one worker (`_runner.replay_many`)."""


def _verify_chunk(refs: list[str], isolation: str | None = None) -> list[CatalogEntry]:
    """`_verify_one` for each, with the replays of all of them in one worker."""
    loaded: list[tuple[str, Record | str]] = []
    for ref in refs:
        try:
            loaded.append((ref, load_record(ref)))
        except RecordError as exc:
            loaded.append((ref, str(exc)))
    try:
        variants = [(ref, r, read_fixtures(r).default_variant) for ref, r in loaded if not isinstance(r, str)]
        names = [(ref, r, v, [n for n in r.verification if n in r.implementations]) for ref, r, v in variants]
        results = iter(replay_many([(r, n, v) for _, r, v, ns in names for n in ns], isolation=isolation))
        reports = {ref: parity_report(r, v, {n: next(results) for n in ns}) for ref, r, v, ns in names}
    except RecordError:
        return [_verify_one(ref, isolation) for ref in refs]  # one of them cannot be read as a script: each says so itself
    return [CatalogEntry(ref, error=r) if isinstance(r, str) else CatalogEntry(ref, reports[ref]) for ref, r in loaded]


def verify_many(refs: list[str], jobs: int | None = None, progress: Callable[[int, int], None] | None = None, *,
                isolation: str | None = None) -> Iterator[CatalogEntry]:
    """Verify records, `jobs` at a time (default: one per core), yielding entries in order.

    Every replay takes the runner's own path: a worker from its clean server, with
    a time limit per check; the replays of `CHUNK` records share a worker
    (`_runner.replay_many`). Nothing here forks the caller, which has threads (the
    runner's own, a notebook's): Python 3.12 warns that such a fork may deadlock.
    Chunks run side by side on threads, each waiting on its own worker process;
    where checks run in-process (no fork: Windows, Pyodide) one at a time.
    `isolation` is the runner's, for every replay (``sandbox``: ``verify --sandbox``).
    """
    from functools import partial

    from ..runner import INPROCESS, chosen_isolation

    total = len(refs)
    jobs = jobs or os.cpu_count() or 1
    chunks = [refs[i : i + CHUNK] for i in range(0, total, CHUNK)]
    threads = ThreadPoolExecutor(max_workers=jobs) if jobs > 1 and len(chunks) > 1 and chosen_isolation(isolation) != INPROCESS else None
    verify = partial(_verify_chunk, isolation=isolation)
    results: Iterable[list[CatalogEntry]] = threads.map(verify, chunks) if threads is not None else map(verify, chunks)
    done = 0
    try:
        for entries in results:
            for entry in entries:
                done += 1
                if progress:
                    progress(done, total)
                yield entry
    finally:
        if threads is not None:
            threads.shutdown(cancel_futures=True)


class ProgressBar:
    """A progress callback ``(done, total)`` drawn by tqdm on stderr, and only when stderr is a terminal
    (tqdm's own rule, ``disable=None``): a log file or a pipe gets no bar."""

    def __init__(self, label: str, stream=None, unit: str = "record") -> None:
        self.stream = stream or sys.stderr
        self.label = label
        self.unit = unit
        self._bar = None

    def __call__(self, done: int, total: int) -> None:
        if total <= 0:
            return
        if self._bar is None:
            from tqdm import tqdm

            self._bar = tqdm(total=total, desc=self.label, unit=self.unit, file=self.stream, disable=None, leave=True)
        bar = self._bar
        if bar.total != total:
            bar.total = total
        bar.update(done - bar.n)
        if done >= total:
            bar.close()
