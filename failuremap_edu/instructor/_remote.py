"""The report's third source beside hand-ins and homes: the class collector (``report --service URL``).

Reads ``URL/api/runs`` with an instructor's token (standard library only) and
turns each hub user's runs into one `_report.Handin`, learner ``hub:NAME``. What
the service returns is untrusted input like any hand-in: a run of the wrong shape
is dropped and counted in one line, never trusted.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from urllib.parse import urlsplit

from .._progress import HUB_USER, _is_entry
from ._handin import Handin, ReportError, runs_from_entries

__all__ = ["MAX_RESPONSE", "fetch_runs", "service_handins"]

MAX_RESPONSE = 256 * 1024 * 1024
"""Bytes of the service's answer at most."""


def fetch_runs(url: str, token: str, *, timeout: float = 30.0) -> list[dict]:
    """Every run the service holds that `token` may read: ``{"seq", "user", "id", "entry", …}``, in arrival order.

    Raises ReportError (one line) when the service cannot be reached, refuses the token, or answers something else.
    """
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ReportError(f"--service {url}: not an http(s) URL")
    base = url.rstrip("/") + "/"
    request = urllib.request.Request(base + "api/runs", headers={"Authorization": f"token {token}"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310 - the instructor's own service
            raw = response.read(MAX_RESPONSE + 1)
    except urllib.error.HTTPError as exc:
        why = {401: "it needs a token (--token or $JUPYTERHUB_API_TOKEN)", 403: "it refused this token"}.get(exc.code, f"HTTP {exc.code}")
        raise ReportError(f"--service {url}: {why}") from None
    except (OSError, ValueError) as exc:
        raise ReportError(f"--service {url}: cannot reach it ({getattr(exc, 'reason', None) or exc})") from None
    if len(raw) > MAX_RESPONSE:
        raise ReportError(f"--service {url}: the answer is over {MAX_RESPONSE:,} bytes")
    try:
        data = json.loads(raw.decode("utf-8"))
        runs = data["runs"]
        if not isinstance(runs, list):
            raise TypeError
    except (ValueError, UnicodeDecodeError, KeyError, TypeError, RecursionError):
        raise ReportError(f"--service {url}: not the failuremap collector (its answer is not a list of runs)") from None
    if data.get("all") is False:
        raise ReportError(f"--service {url}: this token reads only its own runs; use an instructor's (a hub admin's) token")
    return runs


def service_handins(url: str, token: str, *, timeout: float = 30.0) -> tuple[list[Handin], list[str]]:
    """One Handin per hub user, and one line about the runs that were dropped (if any)."""
    by_user: dict[str, list[dict]] = {}
    dropped = 0
    for item in fetch_runs(url, token, timeout=timeout):
        user = item.get("user") if isinstance(item, dict) else None
        entry = item.get("entry") if isinstance(item, dict) else None
        if not isinstance(user, str) or not HUB_USER.fullmatch(user) or not _is_entry(entry):
            dropped += 1
            continue
        by_user.setdefault(user, []).append(entry)
    handins = []
    for user, entries in sorted(by_user.items()):
        runs, sources = runs_from_entries("hub:" + user, entries)
        handins.append(Handin(f"{url} ({user})", tuple(runs), sources, "hub:" + user))
    problems = [f"--service {url}: {dropped} run{'s' if dropped != 1 else ''} of the wrong shape left out"] if dropped else []
    return handins, problems
