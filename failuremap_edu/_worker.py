"""What a worker process does to itself before and while it runs checks.

Shared by both ways a worker comes to exist: forked from the caller for one run
(`_runner`), or forked ahead of time by the warm server (`_warm`). Either way it
cuts itself off from the caller's terminal, input, signals and display machinery,
caps its own resources, runs one `Session`, and leaves with ``os._exit`` so that
nothing of the caller's (atexit handlers, buffered files) runs twice.
"""

from __future__ import annotations

import gc
import os
import signal
import sys
from dataclasses import dataclass
from typing import Any, Callable

try:
    import resource
except ImportError:  # pragma: no cover - Windows
    resource = None  # type: ignore[assignment]

from ._channel import Channel
from ._session import OutputCapture, Session
from ._solution import Solution
from ._values import error_payload

DEFAULT_TIMEOUT = 2.0
DEFAULT_MEMORY_MB = 2048
DEFAULT_OUTPUT_CHARS = 8_000


@dataclass(frozen=True)
class Plan:
    """One run, as the worker needs it: the program, the solve, and the limits."""

    code: Any
    """A code object, or a tuple of them run in turn in one namespace."""
    variant: int
    solve: Any
    """A function, a `Solution`, or None for a replay."""
    timeout: float
    memory_mb: int
    output_chars: int
    param_names: tuple[str, ...]
    extra_globals: dict | None = None


def run_worker(plan: Plan, skip: int, channel: Channel, address_space: int | None, capture: OutputCapture, hardened: bool = False) -> None:  # pragma: no cover - child process
    """The worker: harden the process, run the session, and always leave with os._exit."""
    code = 0
    try:
        if not hardened:
            harden(plan, capture, address_space)

        def sink(message: tuple) -> None:
            channel.post(message, last=message[0] in ("done", "problem"))

        session = Session(sink, skip=skip, capture=capture, param_names=plan.param_names)
        session.extra_globals = plan.extra_globals or {}
        solve = plan.solve
        if isinstance(solve, Solution):
            solve = load_solution_in_worker(solve, sink)
            if solve is None:
                return
        session.run(plan.code, plan.variant, solve)
    except BaseException:  # noqa: BLE001 - nothing may escape into the caller's code
        code = 70
    finally:
        os._exit(code)


def load_solution_in_worker(solution: Solution, sink: Callable[[tuple], None]) -> Callable | None:
    namespace: dict[str, Any] = {"__name__": "solution", "__file__": solution.path, "__builtins__": __builtins__}
    try:
        exec(compile(solution.source, solution.path, "exec"), namespace)
    except BaseException as exc:  # noqa: BLE001
        error = error_payload(exc)
        error["message"] = f"{solution.path} failed while loading: {error['message']}"
        sink(("problem", error))
        return None
    solve = namespace.get("solve")
    if not callable(solve):
        sink(("problem", {"type": "SolutionError", "message": f"{solution.path}: solve is not a function", "traceback": ""}))
        return None
    return solve


def harden(plan: Plan, capture: OutputCapture, address_space: int | None) -> None:  # pragma: no cover - child process
    """Cut the child off from everything it shares with the caller."""
    gc.freeze()  # objects inherited from the kernel are never collected (or closed) here
    # The supervisor handles interrupts and termination. (Interval timers are not
    # inherited across fork, so the caller's SIGALRM cannot reach this child.)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    devnull = os.open(os.devnull, os.O_RDWR)
    for target in (0, 1, 2):
        os.dup2(devnull, target)
    sys.stdin = _NoInput()
    capture.install()
    import builtins

    builtins.input = _no_input
    _silence_ipython()
    _limit_resources(plan, address_space)


class _NoInput:
    def read(self, *args) -> str:
        raise EOFError("input is not available while checks run")

    readline = read

    def isatty(self) -> bool:
        return False


def _no_input(prompt: str = "") -> str:
    raise EOFError("input() is not available while checks run: solve must not ask for input")


def _silence_ipython() -> None:  # pragma: no cover - child process
    """IPython's display machinery talks to the kernel's sockets; the child must not."""
    module = sys.modules.get("IPython.core.interactiveshell")
    if module is None:
        return
    shell = getattr(module.InteractiveShell, "_instance", None)
    publisher = getattr(shell, "display_pub", None)
    if publisher is not None:
        publisher.publish = lambda *args, **kwargs: None
        publisher.clear_output = lambda *args, **kwargs: None


def _limit_resources(plan: Plan, address_space: int | None) -> None:  # pragma: no cover - child process
    if resource is None:
        return
    for limit, value in ((resource.RLIMIT_CORE, 0),):
        try:
            resource.setrlimit(limit, (value, value))
        except (ValueError, OSError):
            pass
    # CPU seconds: a backstop so that no worker outlives a vanished parent for long.
    try:
        soft, hard = resource.getrlimit(resource.RLIMIT_CPU)
        cap = 600
        if hard == resource.RLIM_INFINITY or hard > cap:
            resource.setrlimit(resource.RLIMIT_CPU, (cap, hard))
    except (ValueError, OSError):
        pass
    # Address space: what the process already maps plus the memory budget.
    if address_space is not None:
        want = address_space
        try:
            soft, hard = resource.getrlimit(resource.RLIMIT_AS)
            if hard != resource.RLIM_INFINITY:
                want = min(want, hard)
            resource.setrlimit(resource.RLIMIT_AS, (want, hard))
        except (ValueError, OSError):
            pass


def address_space_limit(memory_mb: int) -> int | None:
    """What the caller maps now plus the memory budget; measured before forking."""
    mapped = _mapped_bytes()
    if mapped is None or memory_mb <= 0:
        return None
    return mapped + memory_mb * 1024 * 1024


def _mapped_bytes() -> int | None:
    try:
        with open("/proc/self/statm") as fh:
            pages = int(fh.read().split()[0])
        return pages * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None


