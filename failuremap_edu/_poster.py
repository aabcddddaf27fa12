"""Kernel side of the class collector: send the progress log's runs to the hub's ``failuremap`` service, in the background.

Only under a JupyterHub (``JUPYTERHUB_API_TOKEN`` in the environment, and a
service URL: ``FAILUREMAP_SERVICE_URL``, else derived from the hub's URLs). The
local progress log stays the source of truth: a small file beside it
(``progress.jsonl.sent``) lists the ids of the runs the service has stored, and
each send posts, oldest first, every run of the log not listed there. A run the
service did not get is sent again at the next run (or after `RETRY_SECONDS`), in
order; the service stores a run once by its id, so a resend never duplicates.

Sending happens on one daemon thread: `notify` returns at once, and a service
that is down or slow never delays or changes the panel's result. Standard
library only (`urllib.request`, a short timeout); it never imports the
instructor side (the service, tornado, SQLAlchemy); `urllib` is imported only to send (a browser-only Pyodide kernel
never does). Nothing happens at import.
"""

from __future__ import annotations

import json
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from ._logfile import append_line, open_for_reading
from ._progress import progress_path, read_progress, run_id

__all__ = ["BATCH", "Poster", "SendResult", "notify", "send_pending", "service_url"]

SERVICE_NAME = "failuremap"
TIMEOUT = 3.0
"""Seconds a post may take before it counts as not sent (it is then sent again later)."""
RETRY_SECONDS = 30.0
"""After a failed send, the next try comes with the next run or after this many seconds, whichever is first."""
BATCH = 20
"""Runs per post at most."""


def service_url(env: dict | None = None) -> str | None:
    """Where the collector listens (ending in ``/``), or None when this kernel does not run under a hub.

    ``FAILUREMAP_SERVICE_URL`` wins; else the hub's public URL (``JUPYTERHUB_PUBLIC_HUB_URL``,
    else the origin of ``JUPYTERHUB_API_URL``) with ``services/failuremap/`` under the hub's base URL.
    """
    env = os.environ if env is None else env
    if not env.get("JUPYTERHUB_API_TOKEN"):
        return None
    given = env.get("FAILUREMAP_SERVICE_URL")
    if given:
        return given.rstrip("/") + "/"
    hub = env.get("JUPYTERHUB_PUBLIC_HUB_URL") or env.get("JUPYTERHUB_API_URL")
    if not hub or not env.get("JUPYTERHUB_SERVICE_PREFIX"):
        return None
    parts = urlsplit(hub)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return None
    base = (env.get("JUPYTERHUB_BASE_URL") or "/").rstrip("/") + "/"
    return f"{parts.scheme}://{parts.netloc}{base}services/{SERVICE_NAME}/"


@dataclass(frozen=True)
class SendResult:
    """One round of sending: how many runs the service now holds that it did not before, and what is left."""

    sent: int
    pending: int
    """Runs of the log still not stored by the service (0: all of them are)."""
    error: str | None = None
    """Why the round stopped early, in one line (the service is down, refused the token, …), or None."""


def _sent_path(log: Path) -> Path:
    return log.with_name(log.name + ".sent")


def _sent_ids(log: Path) -> set[str]:
    try:
        with open_for_reading(_sent_path(log)) as fh:
            return {line.strip().decode("ascii", "replace") for line in fh if line.strip()}
    except OSError:
        return set()


def send_pending(url: str, token: str, log: Path | None = None, *, timeout: float = TIMEOUT) -> SendResult:
    """Post every run of `log` the service has not stored yet, oldest first, `BATCH` at a time; stop at the first failure.

    A batch counts as stored only when the service answers 200 with the ids it holds;
    those are then listed in ``LOG.sent``. Instructor notebooks' runs are never sent, nor lines that name another
    hub user than ``JUPYTERHUB_USER``.
    """
    import urllib.error
    import urllib.request

    log = log or progress_path()
    entries, _ = read_progress(log)
    done = _sent_ids(log)
    me = os.environ.get("JUPYTERHUB_USER")
    # A line of another hub user (a log copied from another home) is not this learner's run: the collector would refuse
    # it, and every run after it would wait behind it.
    pending = [e for e in entries if not e.get("instructor") and run_id(e) not in done and e.get("hub_user") in (None, me)]
    sent = 0
    for start in range(0, len(pending), BATCH):
        batch = pending[start:start + BATCH]
        body = json.dumps({"runs": [{**e, "id": run_id(e)} for e in batch]}, ensure_ascii=False).encode("utf-8", "surrogatepass")
        request = urllib.request.Request(
            url + "api/runs", data=body, method="POST",
            headers={"Authorization": f"token {token}", "Content-Type": "application/json"},
        )
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310 - the hub's own service
                stored = json.loads(response.read(1_000_000).decode("utf-8")).get("stored", [])
        except urllib.error.HTTPError as exc:
            return SendResult(sent, len(pending) - start, f"the collector answered HTTP {exc.code}")
        except (OSError, ValueError, AttributeError) as exc:  # down, refused, timed out, not JSON
            return SendResult(sent, len(pending) - start, f"the collector at {url} did not answer ({getattr(exc, 'reason', None) or exc})")
        ids = {run_id(e) for e in batch}
        confirmed = [i for i in stored if isinstance(i, str) and i in ids]
        if confirmed:
            try:
                append_line(_sent_path(log), ("\n".join(confirmed) + "\n").encode("ascii", "replace"))
            except OSError as exc:  # the service has them: a resend is harmless (stored once by id)
                return SendResult(sent + len(confirmed), len(pending) - start - len(confirmed), f"cannot write {_sent_path(log)} ({exc})")
        sent += len(confirmed)
        if len(confirmed) < len(batch):
            return SendResult(sent, len(pending) - start - len(confirmed), "the collector did not store every run")
    return SendResult(sent, 0)


class Poster:
    """One background thread that sends whenever `notify` is called (and retries after a failure)."""

    def __init__(self, url: str, token: str, log: Path | None = None, *, retry: float = RETRY_SECONDS, timeout: float = TIMEOUT) -> None:
        self.url, self.token, self.log, self.retry, self.timeout = url, token, log, retry, timeout
        self.last: SendResult | None = None
        self.rounds = 0
        self._wake = threading.Event()
        self._idle = threading.Event()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def notify(self) -> None:
        """A run was logged: send what is pending, soon, on the poster's thread. Returns at once."""
        with self._lock:
            self._idle.clear()
            self._wake.set()
            if self._thread is None:
                self._thread = threading.Thread(target=self._loop, name="failuremap-poster", daemon=True)
                try:
                    self._thread.start()
                except RuntimeError:  # no threads (Pyodide): the runs stay in the log, sent by a kernel that has them
                    self._idle.set()

    def wait_idle(self, timeout: float | None = None) -> bool:
        """For tests and benchmarks: wait until the poster has finished the round it was woken for."""
        return self._idle.wait(timeout)

    def _loop(self) -> None:
        while True:
            woken = self._wake.wait(None if self.last is None or self.last.error is None else self.retry)
            self._wake.clear()
            try:
                self.last = send_pending(self.url, self.token, self.log, timeout=self.timeout)
            except Exception as exc:  # noqa: BLE001 - a poster must never break a notebook
                self.last = SendResult(0, -1, f"{type(exc).__name__}: {exc}")
            self.rounds += 1
            if not self._wake.is_set():
                self._idle.set()
            del woken


_POSTER: list[Poster] = []


def notify(log: Path | None = None) -> None:
    """After a run was logged: send it (and any earlier unsent run) to the class collector when under a hub; else nothing."""
    url, token = service_url(), os.environ.get("JUPYTERHUB_API_TOKEN")
    if url is None or not token:
        return
    log = log or progress_path()
    if not _POSTER or (_POSTER[0].url, _POSTER[0].log) != (url, log):
        _POSTER[:] = [Poster(url, token, log)]
    _POSTER[0].notify()
