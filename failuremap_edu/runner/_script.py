"""A whole script run by a fresh interpreter, never in the caller (`run_script`): a record's standalone check script.

Its exit code, stdout and stderr are what a terminal would have shown; time,
memory and output are limited, and its whole process group ends with it.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import time
from dataclasses import dataclass

from ._platform import SANDBOX, usable_isolation
from ._session import DEFAULT_MEMORY_MB

__all__ = ["SCRIPT_INTERRUPT_GRACE", "SCRIPT_OUTPUT_BYTES", "ScriptRun", "run_script"]

SCRIPT_OUTPUT_BYTES = 16 * 1024 * 1024
"""`run_script`: a script that writes more than this to stdout or stderr (or any file) is stopped."""
SCRIPT_INTERRUPT_GRACE = 1.0
"""`run_script`: seconds between the interrupt at the time limit and the kill."""


@dataclass(frozen=True)
class ScriptRun:
    """One run of a whole script by a fresh interpreter (`run_script`): what a terminal would have shown."""

    exit_code: int
    """The interpreter's exit code, or minus the signal that ended it."""
    stdout: str
    stderr: str
    elapsed_ms: float
    timed_out: bool = False
    """It did not finish within the limit: it was interrupted (so stderr shows where it was), then killed."""
    output_exceeded: bool = False
    """It wrote more than the output limit and was stopped."""
    not_started: str | None = None
    """Why the sandbox never started the script (bwrap's own error line), so that nothing of it ran; None if it started."""


def run_script(source: str, timeout: float = 10.0, *, memory_mb: int = DEFAULT_MEMORY_MB, output_bytes: int = SCRIPT_OUTPUT_BYTES,
               isolation: str | None = None) -> ScriptRun:
    """Run `source` as ``python -c SOURCE`` would, in a fresh interpreter, never in the caller.

    For a record's standalone check script: its exit code, stdout and stderr are
    exactly what the script's own run gives (tracebacks name ``<string>``). The
    interpreter is this one (`sys.executable`), with its environment, in an empty
    temporary working folder (removed afterwards), with no input, in a session of
    its own: when it ends, or at the limit, its process group is killed whole. At
    the limit it is first interrupted (SIGINT, so that its traceback says where
    it was), then killed `SCRIPT_INTERRUPT_GRACE` s later. On Linux its address
    space is capped at `memory_mb` plus 1 GiB for the interpreter, and what it
    writes at `output_bytes` (set right after it starts, before Python has read
    the script). With `isolation` ``sandbox`` (``--sandbox``) it runs in a bubblewrap sandbox (`_sandbox`), its
    working folder the sandbox's empty ``/tmp``, its environment cleared.
    """
    import subprocess
    import tempfile

    if not isinstance(timeout, (int, float)) or not timeout > 0:
        raise ValueError(f"timeout must be a positive number of seconds, got {timeout!r}")
    sandbox = usable_isolation(isolation) == SANDBOX
    env = dict(os.environ, PYTHONIOENCODING="utf-8")
    with tempfile.TemporaryDirectory(prefix="failuremap-script-") as cwd, tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.perf_counter()
        if sandbox:
            from ._sandbox import script_command

            proc = subprocess.Popen(script_command(source, memory_mb, output_bytes), stdin=subprocess.DEVNULL, stdout=out, stderr=err, cwd=cwd,
                                    env=env, start_new_session=True)
        else:
            proc = subprocess.Popen(
                [sys.executable, "-c", source], stdin=subprocess.DEVNULL, stdout=out, stderr=err, cwd=cwd, env=env, start_new_session=True
            )
        timed_out = False
        try:
            if not sandbox:  # in the sandbox the launcher has set them (`_sandbox.script_command`)
                _limit_script(proc.pid, memory_mb, output_bytes)
            try:
                proc.wait(timeout)
            except subprocess.TimeoutExpired:
                timed_out = True
                if sandbox:
                    from ._sandbox import interrupt_inside

                    interrupt_inside(proc.pid)  # bwrap passes no signal on: to the script itself
                else:
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(proc.pid, signal.SIGINT)
                with contextlib.suppress(subprocess.TimeoutExpired):
                    proc.wait(SCRIPT_INTERRUPT_GRACE)
        finally:
            elapsed_ms = (time.perf_counter() - started) * 1000
            _kill_group(proc)
        texts, exceeded = [], False
        for stream in (out, err):
            exceeded = exceeded or os.fstat(stream.fileno()).st_size >= output_bytes  # Python ignores SIGXFSZ: its write failed
            stream.seek(0)
            texts.append(stream.read(output_bytes).decode("utf-8", "replace"))
    code, not_started = proc.returncode, None
    if sandbox:
        from ._sandbox import started

        code = -(code - 128) if code > 128 else code  # bwrap reports a signal as 128 + its number
        texts[1], not_started = started(texts[1])
    return ScriptRun(code, texts[0], texts[1], round(elapsed_ms, 3), timed_out, exceeded, not_started)


def _limit_script(pid: int, memory_mb: int, output_bytes: int) -> None:
    try:
        import resource
    except ImportError:  # pragma: no cover - Windows
        return
    if not hasattr(resource, "prlimit"):  # pragma: no cover - macOS: only the time limit
        return
    limits = [(resource.RLIMIT_CORE, 0), (resource.RLIMIT_FSIZE, output_bytes)]
    if memory_mb > 0:
        limits.append((resource.RLIMIT_AS, (memory_mb + 1024) * 1024 * 1024))
    for limit, value in limits:
        with contextlib.suppress(ValueError, OSError):
            _, hard = resource.prlimit(pid, limit)
            resource.prlimit(pid, limit, (value if hard == resource.RLIM_INFINITY else min(value, hard), hard))


def _kill_group(proc) -> None:
    """End the script and everything it started in its process group, and reap it."""
    if hasattr(os, "killpg"):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
    else:  # pragma: no cover - Windows
        with contextlib.suppress(OSError):
            proc.kill()
    proc.wait()
