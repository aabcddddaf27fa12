"""Which isolation this platform supports, and the labels of the isolation modes.

The bottom of the runner: both the caller's API (`_api`) and the worker pool
(`_warm`) ask it, so neither imports the other to find out.
"""

from __future__ import annotations

import os
import sys

PROCESS, INPROCESS, SANDBOX = "process", "inprocess", "sandbox"


def isolation_available() -> str:
    """The isolation mode this platform supports: ``process`` or ``inprocess`` (``sandbox`` only when
    asked for with ``FAILUREMAP_ISOLATION``, as ``--sandbox`` does)."""
    forced = os.environ.get("FAILUREMAP_ISOLATION", "").strip().lower()
    if forced in (PROCESS, "fork", INPROCESS, SANDBOX):
        return PROCESS if forced == "fork" else forced
    return PROCESS if hasattr(os, "fork") and sys.platform not in ("emscripten", "wasi", "win32") else INPROCESS
