"""Which isolation this platform supports, the labels of the isolation modes, and the choice of one for a run.

The bottom of the runner: both the caller's API (`_api`) and the worker pool
(`_warm`) ask it, so neither imports the other to find out. Nothing here reads the
environment: isolation is a parameter, passed by the caller (the CLI's ``--sandbox``).
"""

from __future__ import annotations

import os
import sys
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Iterator

PROCESS, INPROCESS, SANDBOX = "process", "inprocess", "sandbox"
MODES = (PROCESS, "fork", INPROCESS, SANDBOX)
"""What `isolation` may be (``fork`` is another name for ``process``)."""

_SCOPED: ContextVar[str | None] = ContextVar("failuremap_edu_isolation", default=None)
"""The isolation `isolation_default` set for the current context (None: the platform's)."""


def isolation_available() -> str:
    """The isolation this platform supports: ``process`` where it can fork, else ``inprocess``."""
    return PROCESS if hasattr(os, "fork") and sys.platform not in ("emscripten", "wasi", "win32") else INPROCESS


@contextmanager
def isolation_default(isolation: str | None) -> Iterator[None]:
    """Run every run started in this context that names no isolation with `isolation` (None: the platform's).

    For a caller whose callees take no `isolation` parameter. Scoped to the context
    (a thread started inside does not inherit it) and undone on exit; the environment
    is never read or written.
    """
    if isolation is not None and isolation not in MODES:
        raise ValueError(f"isolation must be 'process', 'inprocess' or 'sandbox', got {isolation!r}")
    token = _SCOPED.set(isolation)
    try:
        yield
    finally:
        _SCOPED.reset(token)


def chosen_isolation(isolation: str | None = None) -> str:
    """The isolation of a run: `isolation` if given, else the one `isolation_default` set, else the platform's (``fork`` read as ``process``)."""
    mode = isolation or _SCOPED.get() or isolation_available()
    if mode not in MODES:
        raise ValueError(f"isolation must be 'process', 'inprocess' or 'sandbox', got {mode!r}")
    return PROCESS if mode == "fork" else mode
