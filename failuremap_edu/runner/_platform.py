"""Which isolation this platform supports, and the labels of the isolation modes.

The bottom of the runner: both the caller's API (`_api`) and the worker pool
(`_warm`) ask it, so neither imports the other to find out.
"""

from __future__ import annotations

import os
import sys

PROCESS, INPROCESS = "process", "inprocess"
UNGUARDED = "unguarded"
"""Internal: in-process with no time limit at all, for code that already runs in a
process someone else supervises and can kill (the catalog's chunk workers)."""


def isolation_available() -> str:
    """The isolation mode this platform supports: ``process`` or ``inprocess``."""
    forced = os.environ.get("FAILUREMAP_ISOLATION", "").strip().lower()
    if forced in (PROCESS, "fork", INPROCESS):
        return INPROCESS if forced == INPROCESS else PROCESS
    return PROCESS if hasattr(os, "fork") and sys.platform not in ("emscripten", "wasi", "win32") else INPROCESS
