"""Warm workers: checks start in a process that is already forked, hardened and warmed up.

Forking the caller for every run puts the whole fork on the learner's wait: the
caller's page tables (a notebook kernel maps hundreds of megabytes), the child's
start-up, its hardening, and its copy-on-write faults as it first touches the
runner's code. Here a small server process, started once from a clean
interpreter (like multiprocessing's forkserver), keeps `POOL` standby children
that have done all of that already and wait for one run each. A run sends its
`Plan` to a standby (the solve travels by value, see `_byvalue`) and reads the
results through a `Channel`; the server then forks a replacement while the
learner reads.

The caller itself is never forked on this path. When the solve cannot travel by
value, the server is not running (yet), or anything about it goes wrong, the
runner forks the caller exactly as before: the warm path is an optimisation and
never the only way. Linux only (memfd, descriptor passing); set
``FAILUREMAP_WARM=0`` to turn it off.
"""

from __future__ import annotations

import atexit
import collections
import json
import os
import select
import signal
import socket
import struct
import sys
import time
from typing import Any

from . import _byvalue
from ._channel import Channel
from ._worker import DEFAULT_MEMORY_MB, DEFAULT_OUTPUT_CHARS, DEFAULT_TIMEOUT, Plan, address_space_limit, harden, run_worker

POOL = 2
"""Standbys kept ready: two, so that back-to-back runs (five variants) rarely wait."""
WAIT_FOR_STANDBY = 0.02
"""Seconds a run waits for a standby still being made (one takes about 3 ms) before
forking the caller instead. Never waited while the server is still starting."""
_REQUEST = struct.Struct("!QI")  # payload bytes, checks to skip
_STANDBY = struct.Struct("!i")
_EXIT = struct.Struct("!ii")


def enabled() -> bool:
    return (
        sys.platform.startswith("linux")
        and hasattr(os, "memfd_create")
        and hasattr(socket, "send_fds")
        and os.environ.get("FAILUREMAP_WARM", "1").strip() != "0"
    )


# --------------------------------------------------------------------------- caller side


class WarmWorker:
    """A standby that accepted one run: the supervisor's view, like `_runner._Worker`."""

    def __init__(self, client: "_Client", pid: int, channel: Channel) -> None:
        self.client, self.pid, self.channel = client, pid, channel
        self.finished = False

    def wait_status(self) -> int | None:
        return self.client.exit_status(self.pid)

    def stop(self) -> None:
        """Close our end; kill the standby only if it may still be running.

        It is the server's child, so once it has exited its pid can be reused:
        a finished worker is never signalled.
        """
        self.channel.close()
        if not self.finished:
            try:
                os.kill(self.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


class Shipment:
    """A run's plan, serialised once, ready for any number of standbys (one per restart)."""

    def __init__(self, payload: bytes, modules: frozenset[str]) -> None:
        self.payload, self.modules = payload, modules


def ship(plan: Plan) -> Shipment | None:
    """The plan as bytes for a standby, or None if the warm path cannot take it."""
    if not enabled():
        return None
    request = {
        "plan": plan,
        "cwd": os.getcwd(),
        "path": list(sys.path),
        "recursion_limit": sys.getrecursionlimit(),
    }
    try:
        payload, modules = _byvalue.dumps(request)
    except _byvalue.Unshippable:
        return None
    return Shipment(payload, modules)


def start(shipment: Shipment, skip: int) -> WarmWorker | None:
    """Hand the run to a ready standby; None when there is none (the caller forks instead)."""
    client = _client()
    if client is None:
        return None
    for _ in range(POOL + 1):
        standby = client.take(WAIT_FOR_STANDBY)
        if standby is None:
            return None
        pid, sock, channel = standby
        try:
            with sock:
                sock.settimeout(5)  # a standby that stopped reading (SIGSTOP) must not hang the caller
                sock.sendall(_REQUEST.pack(len(shipment.payload), skip) + shipment.payload)
        except OSError:  # that standby has gone (killed from outside): try the next one
            channel.close()
            continue
        client.preload(shipment.modules)
        return WarmWorker(client, pid, channel)
    return None


class _Client:
    """The caller's connection to its warm server."""

    def __init__(self) -> None:
        import subprocess

        self.owner = os.getpid()
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        package_parent = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        code = f"import sys; sys.path.insert(0, {package_parent!r}); from failuremap_edu._warm import serve; serve({theirs.fileno()})"
        self.process = subprocess.Popen(
            [sys.executable, "-c", code],
            pass_fds=[theirs.fileno()],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=None if os.environ.get("FAILUREMAP_WARM_DEBUG") else subprocess.DEVNULL,
            start_new_session=True,  # a Ctrl-C in the terminal is for the caller, not for the server
        )
        theirs.close()
        self.control = ours
        self.ready: collections.deque[tuple[int, socket.socket, Channel]] = collections.deque()
        self.statuses: dict[int, int] = {}
        self.preloaded: set[str] = set()
        self.delivered = 0
        self.closed = False

    def take(self, wait: float) -> tuple[int, socket.socket, Channel] | None:
        self._poll(0)
        if not self.delivered:
            wait = 0  # still starting (about a quarter of a second): forking now is quicker
        deadline = time.monotonic() + wait
        while not self.ready:
            remaining = deadline - time.monotonic()
            if self.closed or remaining <= 0:
                return None
            self._poll(remaining)
        return self.ready.popleft()

    def exit_status(self, pid: int, wait: float = 2.0) -> int | None:
        deadline = time.monotonic() + wait
        while pid not in self.statuses and not self.closed:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            self._poll(remaining)
        return self.statuses.pop(pid, None)

    def preload(self, modules: frozenset[str]) -> None:
        new = sorted(modules - self.preloaded)
        if new:
            self.preloaded.update(new)
            self._send(b"P" + json.dumps(new).encode())

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.control.close()
        while self.ready:
            _, sock, channel = self.ready.popleft()
            sock.close()
            channel.close()

    def _send(self, message: bytes) -> None:
        if self.closed:
            return
        try:
            self.control.send(message)
        except OSError:
            self.close()

    def _poll(self, timeout: float) -> None:
        """Read what the server has said: new standbys, and exit statuses."""
        if self.closed:
            return
        try:
            ready, _, _ = select.select([self.control], [], [], max(timeout, 0))
            while ready:
                message, fds, _, _ = socket.recv_fds(self.control, 64, 3)
                if not message:
                    self.close()
                    return
                if message[:1] == b"S" and len(fds) == 3:
                    (pid,) = _STANDBY.unpack_from(message, 1)
                    sock_fd, log_fd, read_fd = fds
                    # Mapped now, while nothing waits: a run then only writes to the socket.
                    self.ready.append((pid, socket.socket(fileno=sock_fd), Channel.supervise(log_fd, read_fd)))
                    self.delivered += 1
                    fds = []
                elif message[:1] == b"X":
                    pid, status = _EXIT.unpack_from(message, 1)
                    if len(self.statuses) > 1000:
                        self.statuses.clear()
                    self.statuses[pid] = status
                for fd in fds:
                    os.close(fd)
                ready, _, _ = select.select([self.control], [], [], 0)
        except OSError:
            self.close()


_CLIENT: _Client | None = None


def _client() -> _Client | None:
    """This process's server: started on first use, so the first run forks the caller."""
    global _CLIENT
    if not enabled():
        return None
    if _CLIENT is not None and _CLIENT.owner != os.getpid():
        _CLIENT = None  # a forked copy of the caller: the server belongs to the original
    if _CLIENT is not None and _CLIENT.closed and _RESTARTS[0] < MAX_RESTARTS:
        _RESTARTS[0] += 1  # the server went away (killed, out of memory): start another
        _CLIENT = None
    if _CLIENT is None:
        try:
            _CLIENT = _Client()
        except OSError:
            return None
        return None
    if _CLIENT.closed:
        return None
    return _CLIENT


MAX_RESTARTS = 3
_RESTARTS = [0]


def warm_up() -> None:
    """Start the server now, so that the next run can already use it (for example in a benchmark)."""
    _client()


@atexit.register
def _shutdown() -> None:
    """Close our end: the server sees it and ends its standbys and itself.

    Not waited for: a server still starting up would hold a short command (the
    CLI's ``check``) for a quarter of a second. It is reaped by init.
    """
    if _CLIENT is not None and _CLIENT.owner == os.getpid():
        _CLIENT.close()
        _CLIENT.process.returncode = 0  # tell subprocess not to warn that it still runs


# --------------------------------------------------------------------------- server side


def serve(control_fd: int) -> None:  # pragma: no cover - runs in the server process
    """The server: keep POOL standbys ready, replace each one that ends, report exits."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    control = socket.socket(fileno=control_fd)
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda *args: None)
    warm_code = _warm_code()
    children: set[int] = set()

    def make_standby() -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        channel, log_fd = Channel.shared()
        pid = os.fork()
        if pid == 0:
            ours.close()
            os.close(log_fd)
            channel.worker_side()
            signal.set_wakeup_fd(-1)
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            os.close(wake_r)
            os.close(wake_w)
            control.close()
            _standby(theirs, channel, warm_code)
        theirs.close()
        children.add(pid)
        try:
            socket.send_fds(control, [b"S" + _STANDBY.pack(pid)], [ours.fileno(), log_fd, channel.read_fd])
        finally:
            ours.close()
            os.close(log_fd)
            channel.close()

    try:
        for _ in range(POOL):
            make_standby()
        while True:
            try:
                ready, _, _ = select.select([control, wake_r], [], [])
            except InterruptedError:
                continue
            if wake_r in ready:
                os.read(wake_r, 4096)
                for pid, status in _reap():
                    children.discard(pid)
                    control.send(b"X" + _EXIT.pack(pid, status))
                    # Its replacement is made now that its run is over, not while it
                    # ran: the learner is reading results, and the CPU is free.
                    make_standby()
            if control in ready:
                message = control.recv(1 << 16)
                if not message:
                    break
                if message[:1] == b"P":
                    _preload(json.loads(message[1:]))
    except OSError:
        pass
    finally:
        for pid in children:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        os._exit(0)


def _reap() -> list[tuple[int, int]]:  # pragma: no cover - server process
    done = []
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return done
        if pid == 0:
            return done
        done.append((pid, status))


def _standby(sock: socket.socket, channel: Channel, warm_code: Any) -> None:  # pragma: no cover - standby process
    """Harden, warm up on a packaged record, then wait for one run and do it."""
    from ._session import OutputCapture, Session

    try:
        defaults = Plan(None, 1, None, DEFAULT_TIMEOUT, DEFAULT_MEMORY_MB, DEFAULT_OUTPUT_CHARS, ())
        capture = OutputCapture(DEFAULT_OUTPUT_CHARS)
        harden(defaults, capture, address_space_limit(DEFAULT_MEMORY_MB))
        if warm_code is not None:
            try:
                Session(lambda message: None, skip=0, capture=capture, param_names=()).run(warm_code, 1, None)
                capture.take()
            except BaseException:  # noqa: BLE001 - warming up is optional
                pass
        header = b""
        while len(header) < _REQUEST.size:
            more = sock.recv(_REQUEST.size - len(header))
            if not more:
                os._exit(0)  # the caller went away without sending a run
            header += more
        size, skip = _REQUEST.unpack(header)
        payload = bytearray()
        while len(payload) < size:
            chunk = sock.recv(min(size - len(payload), 1 << 20))
            if not chunk:
                os._exit(0)
            payload += chunk
        sock.close()
        try:
            request = _byvalue.loads(bytes(payload))
            plan = request["plan"]
            sys.path[:] = request["path"]
            sys.setrecursionlimit(request["recursion_limit"])
            os.chdir(request["cwd"])
        except BaseException as exc:  # noqa: BLE001 - the caller will fork itself instead
            channel.post(("unavailable", f"{type(exc).__name__}: {exc}"), last=True)
            os._exit(0)
        if plan.memory_mb != DEFAULT_MEMORY_MB:
            harden(plan, capture, address_space_limit(plan.memory_mb))
        if plan.output_chars != DEFAULT_OUTPUT_CHARS:
            capture = OutputCapture(plan.output_chars)
            capture.install()
        run_worker(plan, skip, channel, None, capture, hardened=True)
    finally:
        os._exit(0)


def _warm_code() -> Any:  # pragma: no cover - server process
    """A packaged record's replay: the same code paths a real run takes."""
    try:
        from ._fixtures import read_fixtures
        from ._records import list_records, load_record

        return read_fixtures(load_record(list_records()[0]), "attempt").program(replay=True)
    except Exception:  # noqa: BLE001 - no warm-up is still a working standby
        return None


def _preload(names: list[str]) -> None:  # pragma: no cover - server process
    """Import installed modules a run used, so later standbys have them already.

    Only modules from the standard library and site-packages: a solve that uses a
    module of the learner's own never comes to a warm worker (see `_byvalue`).
    """
    import importlib
    import importlib.util

    for name in names:
        if not isinstance(name, str) or name in sys.modules:
            continue
        try:
            spec = importlib.util.find_spec(name.partition(".")[0])  # a top-level name: imports nothing
            if spec is not None and _byvalue.installed_origin(spec.origin):
                importlib.import_module(name)
        except BaseException:  # noqa: BLE001 - a module that will not import is the run's business
            continue
