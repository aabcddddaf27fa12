"""The class collector's storage: every learner's runs, each stored once by (hub user, run id), in any SQLAlchemy database.

SQLite by default: one file, in WAL mode (readers never wait for the writer, and a
crash of the service loses no committed run). PostgreSQL or any other SQLAlchemy
URL works the same. Instructor side only: the kernel never imports it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from sqlalchemy import Column, Integer, MetaData, String, Table, Text, UniqueConstraint, create_engine, event, select
from sqlalchemy.exc import IntegrityError

__all__ = ["RunStore", "StoredRun"]

_META = MetaData()
RUNS = Table(
    "runs",
    _META,
    Column("seq", Integer, primary_key=True, autoincrement=True),
    Column("user", String(255), nullable=False),
    Column("run_id", String(80), nullable=False),
    Column("received", String(40), nullable=False),
    Column("body", Text, nullable=False),
    UniqueConstraint("user", "run_id", name="one_run_once"),
)


@dataclass(frozen=True)
class StoredRun:
    """One run as the collector holds it: who sent it (from their token), its id, and the progress-log line."""

    seq: int
    """Its place in arrival order (1, 2, …): ``since=seq`` reads only what came after."""
    user: str
    run_id: str
    received: str
    entry: dict


class RunStore:
    """Runs in a database at `url` (``sqlite:///path.sqlite``, ``postgresql://…``); the table is made when missing."""

    def __init__(self, url: str) -> None:
        kwargs = {"connect_args": {"check_same_thread": False}} if url.startswith("sqlite") else {}
        self.engine = create_engine(url, **kwargs)
        if self.engine.dialect.name == "sqlite":
            event.listen(self.engine, "connect", _sqlite_pragmas)
        _META.create_all(self.engine)

    def add(self, user: str, runs: list[tuple[str, dict]], received: str) -> list[str]:
        """Store each (run id, entry) of `user` not stored yet, in order, in one transaction; returns every id now held.

        A run sent again (same user, same id) is not stored twice, and its first copy stays as it was.
        """
        ids = [run_id for run_id, _ in runs]
        with self.engine.begin() as conn:
            held = {row[0] for row in conn.execute(select(RUNS.c.run_id).where(RUNS.c.user == user, RUNS.c.run_id.in_(ids)))}
            fresh, seen = [], set(held)
            for run_id, entry in runs:
                if run_id not in seen:
                    seen.add(run_id)
                    fresh.append({"user": user, "run_id": run_id, "received": received, "body": json.dumps(entry, ensure_ascii=False)})
            if fresh:
                try:
                    with conn.begin_nested():
                        conn.execute(RUNS.insert(), fresh)
                except IntegrityError:  # another process stored some of them meanwhile: one at a time
                    for row in fresh:
                        try:
                            with conn.begin_nested():
                                conn.execute(RUNS.insert(), [row])
                        except IntegrityError:
                            pass
        return list(dict.fromkeys(ids))

    def runs(self, user: str | None = None, since: int = 0) -> list[StoredRun]:
        """Stored runs in arrival order, after `since`; only `user`'s when given."""
        query = select(RUNS).where(RUNS.c.seq > since).order_by(RUNS.c.seq)
        if user is not None:
            query = query.where(RUNS.c.user == user)
        with self.engine.connect() as conn:
            return [StoredRun(r.seq, r.user, r.run_id, r.received, json.loads(r.body)) for r in conn.execute(query)]

    def count(self) -> int:
        from sqlalchemy import func

        with self.engine.connect() as conn:
            return conn.execute(select(func.count()).select_from(RUNS)).scalar_one()

    def close(self) -> None:
        self.engine.dispose()


def _sqlite_pragmas(dbapi_connection, _record) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")  # in WAL mode: durable at each checkpoint, never corrupt
    cursor.execute("PRAGMA busy_timeout=5000")
    cursor.close()
