"""bubblewrap sandboxes (``--sandbox``): for code that is not the caller's own, also when the caller is root.

What a sandbox holds (`sandbox_command`): a fresh root file system with, read-only,
``/usr`` (and the ``/lib``, ``/bin`` links), the loader's files from ``/etc``, the
interpreter's prefixes (``sys.prefix``, ``sys.base_prefix``: also a venv under
``/tmp``), the site-packages folders on ``sys.path``, this package's folder, and
copies of the ``.py`` files next to a solution file. Nothing else of the
caller's: not its working folder, home or ``/run`` (their Unix sockets reach
past "no network"). The working folder inside has the caller's path but is
empty (and read-only, unless it lies under ``/tmp``); ``/tmp`` is a small empty
tmpfs, the only writable place, and ``HOME``.
Inside, the code runs as uid 65534 in a user namespace of its own, with no
capabilities (so it cannot remount a read-only bind writable), no network,
its own PIDs, IPC and host name, no further user namespaces, in a session of
its own (no terminal to push input into), and dies with its parent.

When bwrap itself (or the interpreter, before the worker starts) fails, the
worker's `exit_note` quotes the last line it wrote on stderr, so the run's
problem says so and never blames solve.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading

from ._procs import children as _children, tree_size as _tree_size
from ._warm import _SIGNED, SWEEP_LIMIT, Worker, _kill_group
from ._worker import SANDBOX_STARTED, Start
from .._solution import Solution

BWRAP = "bwrap"
MISSING_BWRAP = "--sandbox needs bubblewrap (the bwrap command), which is not installed here: apt-get install bubblewrap"
SANDBOX_UID = 65534
"""The user inside (nobody); outside it maps to the caller's own uid, with no capabilities."""
TMP_MB = 256
"""Size of the sandbox's ``/tmp`` (a tmpfs, in memory): all it may write."""
NEXT_TO_SOLUTION = (100, 8 * 1024 * 1024)
"""At most this many ``.py`` files, and bytes in all, are copied from a solution file's folder."""
_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_PACKAGE_PARENT = os.path.dirname(_PACKAGE_DIR)
"""On the sandbox's PYTHONPATH: there only this package's folder is visible (a checkout's other files are not)."""
_ETC = ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/localtime", "/etc/alternatives")
_NEVER = ("/proc", "/sys", "/dev", "/run", "/var/run")
_STDERR_BYTES = 4096


def available() -> bool:
    return shutil.which(BWRAP) is not None


def sandbox_command(cwd: str | None = None, files: dict[str, int] | None = None) -> list[str]:
    """bwrap and its options, up to the command: the sandbox described in the module docstring.

    `cwd` is the working folder inside (created empty; ``/tmp`` if None); `files`
    maps a path inside to a readable descriptor whose content becomes that file.
    """
    inside = os.path.abspath(cwd) if cwd else "/tmp"
    args = [BWRAP, "--unshare-all", "--unshare-user", "--disable-userns", "--uid", str(SANDBOX_UID), "--gid", str(SANDBOX_UID),
            "--cap-drop", "ALL", "--die-with-parent", "--new-session", "--ro-bind", "/usr", "/usr"]
    for top in ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"):
        if os.path.islink(top):
            args += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            args += ["--ro-bind", top, top]
    for item in _ETC:
        args += ["--ro-bind-try", item, item]
    args += ["--size", str(TMP_MB * 1024 * 1024), "--tmpfs", "/tmp"]  # first: what follows may be under /tmp (a venv, the working folder)
    if inside != "/tmp":
        args += ["--dir", inside]
    for folder in python_folders():
        for place in dict.fromkeys([folder, os.path.realpath(folder)]):
            args += ["--ro-bind", os.path.realpath(folder), place]
    for path, fd in (files or {}).items():
        args += ["--ro-bind-data", str(fd), path]
    env = {"HOME": "/tmp", "USER": "nobody", "LOGNAME": "nobody", "PYTHONPATH": _PACKAGE_PARENT, "PYTHONIOENCODING": "utf-8"}
    env.update({name: os.environ[name] for name in ("PATH", "LANG", "LC_ALL", "VIRTUAL_ENV") if name in os.environ})
    args += ["--proc", "/proc", "--dev", "/dev", "--remount-ro", "/", "--clearenv"]
    for name, value in env.items():  # nothing else of the caller's environment: no tokens (JUPYTERHUB_API_TOKEN, say)
        args += ["--setenv", name, value]
    return args + ["--chdir", inside]


_LIMITED = (
    "import os, resource, sys\n"
    f"os.write(2, {SANDBOX_STARTED!r})\n"
    "for name, value in LIMITS:\n"
    "    limit = getattr(resource, name)\n"
    "    _, hard = resource.getrlimit(limit)\n"
    "    resource.setrlimit(limit, (value if hard == resource.RLIM_INFINITY else min(value, hard), hard))\n"
    "os.execv(sys.executable, [sys.executable, '-c', sys.argv[1]])\n"
)


def script_command(source: str, memory_mb: int, output_bytes: int) -> list[str]:
    """``python -c SOURCE`` in a sandbox whose working folder is its empty ``/tmp``, under `run_script`'s limits.

    The limits are set inside, by a launcher that then becomes the script (``execv``):
    bwrap's own process is not the script's parent, so limits set on it from
    outside would come too late.
    """
    limits = [("RLIMIT_CORE", 0), ("RLIMIT_FSIZE", output_bytes)] + ([("RLIMIT_AS", (memory_mb + 1024) * 1024 * 1024)] if memory_mb > 0 else [])
    return [*sandbox_command(), sys.executable, "-c", _LIMITED.replace("LIMITS", repr(limits)), source]


def python_folders() -> list[str]:
    """What the interpreter and this package need, outermost first: never the caller's working folder or home."""
    import site

    wanted = [sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix, os.path.dirname(os.path.dirname(os.path.realpath(sys.executable)))]
    user_site = site.getusersitepackages() if site.ENABLE_USER_SITE else None
    for entry in sys.path:
        if entry and (os.path.basename(entry.rstrip("/")) in ("site-packages", "dist-packages") or entry == user_site):
            wanted.append(entry)
    wanted.append(_PACKAGE_DIR)
    guarded = [os.path.realpath(p) for p in (os.getcwd(), os.path.expanduser("~"))]
    chosen: list[str] = []
    for folder in sorted({os.path.abspath(f) for f in wanted if f and os.path.isdir(f)}, key=len):
        real = os.path.realpath(folder)
        if real == "/" or real == "/usr" or real.startswith("/usr/") or any(real == n or real.startswith(n + "/") for n in _NEVER):
            continue  # /usr is bound anyway; the rest never
        if any(g == real or g.startswith(real + "/") for g in guarded):
            continue  # it holds the caller's working folder or home
        if not any(real == c or real.startswith(c + "/") for c in map(os.path.realpath, chosen)):
            chosen.append(folder)
    return chosen


def next_to(solution_path: str | None) -> list[str]:
    """The ``.py`` files beside a solution file (itself included) that a sandbox gets copies of."""
    if not solution_path or not os.path.isfile(solution_path):
        return []
    folder = os.path.dirname(os.path.abspath(solution_path))
    found, total = [], 0
    with contextlib.suppress(OSError):
        for entry in sorted(os.scandir(folder), key=lambda e: e.name):
            if len(found) >= NEXT_TO_SOLUTION[0]:
                break
            if entry.name.endswith(".py") and entry.is_file():
                total += entry.stat().st_size
                if total > NEXT_TO_SOLUTION[1]:
                    break
                found.append(entry.path)
    return found


@contextlib.contextmanager
def opened(paths: list[str]):
    """Descriptors of `paths` for `sandbox_command`'s `files` (closed on leaving); unreadable ones are left out."""
    fds: dict[str, int] = {}
    try:
        for path in paths:
            with contextlib.suppress(OSError):
                fds[path] = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
        yield fds
    finally:
        for fd in fds.values():
            os.close(fd)


class SandboxPool:
    """Workers for one run, each in a sandbox of its own (``check --sandbox``, ``isolation="sandbox"``).

    Each worker is a fresh interpreter (no server, no standby): a run costs a
    start of Python. Its pid is that of ``bwrap``, killed whole with its group:
    its PID namespace then ends, and with it everything the run started. The
    same `_warm.Worker` reads it; a thread reports the pid and then the exit code
    on its status pipe, as the server does (a signal comes back from bwrap as
    128 + its number), having first set the worker's `exit_note` when bwrap or
    the interpreter said why it could not start.
    """

    def __init__(self, cwd: str | None = None, solution_path: str | None = None) -> None:
        self.owner = os.getpid()
        self.cwd, self.files = cwd, next_to(solution_path)
        self.workers = _LIVE
        self.lock = _LOCK

    def take(self) -> Worker:
        if not available():
            raise OSError(MISSING_BWRAP)
        (plan_r, plan_w), (log_r, log_w), (wake_r, wake_w), (status_r, status_w) = os.pipe(), os.pipe(), os.pipe(), os.pipe()
        code = f"from failuremap_edu.runner._worker import sandboxed; sandboxed({plan_r}, {log_w}, {wake_w})"
        err = tempfile.TemporaryFile()
        try:
            with opened(self.files) as files:
                process = subprocess.Popen([*sandbox_command(self.cwd, files), sys.executable, "-B", "-c", code],
                                           pass_fds=(plan_r, log_w, wake_w, *files.values()), stdin=subprocess.DEVNULL,
                                           stdout=subprocess.DEVNULL, stderr=err, start_new_session=True)
        except BaseException:
            err.close()
            for fd in (plan_w, log_r, wake_r, status_r, status_w):
                os.close(fd)
            raise
        finally:
            for fd in (plan_r, log_w, wake_w):
                os.close(fd)
        worker = Worker(status_r, plan_w, log_r, wake_r)
        for fd in (status_r, plan_w, log_r, wake_r):
            os.set_blocking(fd, False)
        with self.lock:
            self.workers.add(worker)
        threading.Thread(target=_report_status, args=(process, worker, status_w, err), daemon=True).start()
        return worker

    def stop(self, worker: Worker) -> None:
        if worker.wait_pid() is not None and not worker.gone:
            if not _kill_group(worker.pid):
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(worker.pid, signal.SIGKILL)
            worker._wait_status(False, SWEEP_LIMIT)
        with self.lock:
            self.workers.discard(worker)
        worker.close()

    def finish(self, worker: Worker, start: Start) -> None:
        self.stop(worker)

    def crowded(self, limit: int) -> bool:
        with self.lock:
            pids = [w.pid for w in self.workers if w.pid is not None]
        return sum(_tree_size(pid, limit) for pid in pids) > limit

    def close(self) -> None:
        with self.lock:
            workers = list(self.workers)
        for worker in workers:
            self.stop(worker)


_LIVE: set[Worker] = set()
"""Every sandboxed worker of this process not yet stopped (all runs): ended at exit (`_warm._shutdown`)."""
_LOCK = threading.Lock()


def sandbox_pool(plan=None) -> SandboxPool:
    """Sandboxed workers for the run of `plan`: its working folder's path, and the files beside its solution file."""
    solve = getattr(plan, "solve", None)
    return SandboxPool(getattr(plan, "cwd", None), solve.path if isinstance(solve, Solution) else None)


def close_all() -> None:
    """At exit: stop every sandboxed worker this process started (not those of a process it was forked from)."""
    if os.getpid() == _OWNER:
        SandboxPool().close()


_OWNER = os.getpid()


def exit_note(stderr: bytes) -> str | None:
    """Why a sandbox never ran its worker, from the last line bwrap (or the interpreter) wrote; None once the worker started."""
    if SANDBOX_STARTED in stderr:
        return None
    lines = [line.strip() for line in stderr.decode("utf-8", "replace").splitlines() if line.strip()]
    if not lines:
        return None
    line = lines[-1][:300]
    if line.startswith("bwrap:"):
        return f"bubblewrap could not start the sandbox ({line}), so nothing ran"
    return f"the interpreter in the sandbox did not start the worker ({line}), so nothing ran"


def started(stderr: str) -> tuple[str, str | None]:
    """A sandboxed script's stderr without the launcher's mark, and why it never started (None if it did)."""
    mark = SANDBOX_STARTED.decode()
    if mark in stderr:
        return stderr.split(mark, 1)[1], None
    return stderr, exit_note(stderr.encode())


def _report_status(process: subprocess.Popen, worker: Worker, status_w: int, err) -> None:
    """What the server says of its children, said of a sandbox: the pid, then how it ended."""
    with contextlib.suppress(OSError):
        os.write(status_w, _SIGNED.pack(process.pid))
        code = process.wait()
        with contextlib.suppress(OSError, ValueError), err:
            err.seek(0)
            worker.exit_note = exit_note(err.read(_STDERR_BYTES))  # before the exit code: it is read as soon as that is
        os.write(status_w, _SIGNED.pack(-(code - 128) if code > 128 else code))
    with contextlib.suppress(OSError):
        os.close(status_w)


def interrupt_inside(pid: int) -> None:
    """SIGINT to every process in bwrap `pid`'s sandbox but bwrap's own (bwrap does not pass signals on)."""
    pending, seen = [pid], set()
    while pending:
        for child in _children(pending.pop()) - seen:
            seen.add(child)
            pending.append(child)
    for child in seen:
        with contextlib.suppress(OSError):
            with open(f"/proc/{child}/comm") as fh:
                if fh.read().strip() == BWRAP:
                    continue
            os.kill(child, signal.SIGINT)
