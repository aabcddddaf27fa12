"""A real JupyterHub on 127.0.0.1 and learners who use it the way a browser does.

Shared by tests/test_hub.py and benchmarks/bench_hub.py. Nothing here is a
stand-in: the hub is ``jupyterhub`` with ``DummyAuthenticator`` and
``SimpleLocalProcessSpawner`` (a home folder per user), the proxy is
``configurable-http-proxy`` from ``node_modules/`` (``make`` installs it), and
the single-user servers run in a learners' environment with failuremap-edu from
its wheel (`learners_env`) and ``nbgitpuller``.

A learner (`Learner`) logs in through the login form, follows an nbgitpuller
link, does what nbgitpuller's status page does in a browser (its ``git-pull/api``
event stream), opens a notebook session through the Jupyter Server REST API and
runs cells over the kernel's websocket, all with the cookies a browser would
hold. An API client would use a token; a learner has cookies and an XSRF token.

The hub runs under a small launcher process (``python hubkit.py CONFIG``) that
is a child subreaper: every process started below it, including orphans that a
hostile ``solve`` forks and abandons, is re-parented to the launcher and killed
when the hub stops. Nothing a test starts outlives it.
"""

from __future__ import annotations

import html
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urljoin, urlsplit

REPO = Path(__file__).resolve().parents[1]
PROXY = REPO / "node_modules" / ".bin" / "configurable-http-proxy"
SUMMARY = re.compile(r"^(\d+)/(\d+) checks pass\b.*$", re.M)
"""The solve cell's summary line (in the panel's text form, or printed): ``K/N checks pass`` and what else happened."""
SOLVE_CELL = re.compile(r"^@\S.*\n\s*def solve\(.*$", re.M)
"""A decorator line right above ``def solve(``: the cell a learner edits."""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


_CONFIG = """
# ---- the test's own: loopback, free ports, files in the test's folder, an observer
c.JupyterHub.bind_url = {bind_url!r}
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = {hub_port}
c.JupyterHub.db_url = {db_url!r}
c.JupyterHub.cookie_secret_file = {cookie_secret!r}
c.JupyterHub.pid_file = {pid_file!r}
c.ConfigurableHTTPProxy.command = [{proxy!r}]
c.ConfigurableHTTPProxy.api_url = {proxy_api!r}
c.ConfigurableHTTPProxy.pid_file = {proxy_pid!r}
c.Spawner.ip = "127.0.0.1"
c.Spawner.start_timeout = {spawn_timeout}
c.Spawner.http_timeout = {spawn_timeout}
c.JupyterHub.init_spawners_timeout = 60
c.JupyterHub.concurrent_spawn_limit = 0
# An observer that only reads: is the hub up, which servers run. Learners never use it.
c.JupyterHub.services.append({{"name": "observer", "api_token": {token!r}}})
c.JupyterHub.load_roles.append({{"name": "observer", "scopes": ["list:users", "read:users", "read:servers"], "services": ["observer"]}})
c.Authenticator.admin_users = {{"teacher"}}  # the instructor, who reads the class collector
"""
"""Appended to the configuration `workshop --hub` writes for instructors (`_workshop.hub_config`), so the
hub under test is the one instructors get."""


class Hub:
    """A running JupyterHub (use as a context manager)."""

    def __init__(self, root: Path, *, ready_timeout: float = 120, spawn_timeout: int = 300) -> None:
        self.root = Path(root)
        self.homes = self.root / "homes"
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.token = uuid.uuid4().hex
        self.ready_timeout = ready_timeout
        self.spawn_timeout = spawn_timeout
        self.process: subprocess.Popen | None = None
        self.log_path = self.root / "hub.log"
        self.collector_port = free_port()
        self.collector = f"{self.url}/services/failuremap/"
        """The class collector, through the hub's proxy (the generated configuration starts it)."""
        self.env = self.root / "learners-env"
        """The learners' environment the hub runs (`learners_env`): failuremap-edu from its wheel."""

    def config(self) -> str:
        from failuremap_edu.instructor._workshop import hub_config

        base = hub_config(self.url, title="hub test", env_bin=str(self.env / "bin"), homes=str(self.homes / "{username}"), collector_port=self.collector_port)
        return base + _CONFIG.format(
            bind_url=self.url + "/",
            hub_port=free_port(),
            db_url=f"sqlite:///{self.root / 'jupyterhub.sqlite'}",
            cookie_secret=str(self.root / "cookie_secret"),
            pid_file=str(self.root / "hub.pid"),
            proxy=str(PROXY),
            proxy_api=f"http://127.0.0.1:{free_port()}",
            proxy_pid=str(self.root / "proxy.pid"),
            token=self.token,
            spawn_timeout=self.spawn_timeout,
        )

    def __enter__(self) -> "Hub":
        if not PROXY.is_file():
            raise RuntimeError(f"{PROXY} is missing: run `make test` (it installs configurable-http-proxy with npm)")
        self.root.mkdir(parents=True, exist_ok=True)
        self.homes.mkdir(exist_ok=True)
        learners_env(self.env, self.root / "wheel")
        config = self.root / "jupyterhub_config.py"
        config.write_text(self.config(), encoding="utf-8")
        env = {k: v for k, v in os.environ.items() if not k.startswith(("FAILUREMAP_", "XDG_", "JUPYTER"))}
        env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
        self._log = open(self.log_path, "ab")
        self.process = subprocess.Popen(
            [sys.executable, __file__, str(config)], cwd=self.root, env=env, stdout=self._log, stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        deadline = time.monotonic() + self.ready_timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the hub exited with {self.process.returncode}:\n{self.log_tail()}")
            if self.alive():
                return self
            time.sleep(0.3)
        self.__exit__(None, None, None)
        raise RuntimeError(f"the hub did not answer within {self.ready_timeout} s:\n{self.log_tail()}")

    def __exit__(self, *exc) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(60)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(10)
        if getattr(self, "_log", None) is not None:
            self._log.close()

    def log_tail(self, chars: int = 6000) -> str:
        try:
            return self.log_path.read_text(encoding="utf-8", errors="replace")[-chars:]
        except OSError:
            return ""

    def api(self, path: str, timeout: float = 10):
        import requests

        r = requests.get(f"{self.url}/hub/api{path}", headers={"Authorization": f"token {self.token}"}, timeout=timeout)
        r.raise_for_status()
        return r.json()

    def alive(self) -> bool:
        """The hub answers its REST API through the proxy."""
        try:
            return "version" in self.api("/")
        except Exception:
            return False

    def home(self, name: str) -> Path:
        return self.homes / name


def learners_env(env: Path, wheel_dir: Path) -> None:
    """The learners' environment at `env`, as `learners-env.sh` builds it but with nothing downloaded.

    failuremap-edu goes in from its wheel, built from a learners' folder as `workshop` writes
    it (the kernel side and the learner's command; no reference solution). The other packages (JupyterLab, the single-user server,
    nbgitpuller) are this environment's: its site-packages is one plain line of a
    ``.pth``, so its own ``.pth`` files, the editable install's included, are never read,
    and what the wheel did not install under ``etc/jupyter`` and ``share/jupyter`` is
    linked in. The single-user server's script runs this environment's Python.
    """
    import sysconfig

    from failuremap_edu.instructor._cli import main

    learners = wheel_dir.parent / "learners-folder"  # the package as a learners' folder holds it: the kernel side only
    if main(["workshop", "FA-100786", "-o", str(learners), "--force"]) != 0:
        raise RuntimeError("workshop could not build the learners' folder")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(env)], check=True, timeout=120)
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation", "-w", str(wheel_dir), str(learners)],
                   check=True, timeout=300, capture_output=True)
    wheel = next(wheel_dir.glob("failuremap_edu-*.whl"))
    python = env / "bin" / "python"
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet", "--no-deps", "--no-index", str(wheel)],
                   check=True, timeout=300, capture_output=True)
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], capture_output=True, text=True,
                          check=True, timeout=60).stdout.strip()
    Path(site, "_test_environment.pth").write_text(sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8")
    for part in ("etc/jupyter", "share/jupyter"):
        _link_missing(Path(sys.prefix) / part, env / part)
    script = Path(sys.executable).parent / "jupyterhub-singleuser"
    lines = script.read_text(encoding="utf-8").splitlines(keepends=True)
    target = env / "bin" / script.name
    target.write_text(f"#!{python}\n" + "".join(lines[1:]), encoding="utf-8")
    target.chmod(0o755)


def _link_missing(source: Path, target: Path) -> None:
    """Symbolic links in `target` to what `source` has and `target` lacks, merging folders both have."""
    target.mkdir(parents=True, exist_ok=True)
    for child in source.iterdir():
        there = target / child.name
        if not there.exists() and not there.is_symlink():
            there.symlink_to(child)
        elif child.is_dir() and there.is_dir() and not there.is_symlink():
            _link_missing(child, there)


class LearnerError(AssertionError):
    """A step a learner takes did not work as in a browser."""


class ConnectionLost(LearnerError):
    """The server closed the kernel's websocket while a cell ran (JupyterLab would reconnect)."""


@dataclass
class CellRun:
    """What one executed cell produced, and how long until its summary line arrived."""

    code: str
    stdout: str = ""
    display: str = ""
    """The text/plain of what the cell displayed (its result, the panel's text form), in order."""
    error: str | None = None
    status: str = ""
    summary_seconds: float | None = None
    """Seconds from sending the cell to receiving its ``K/N checks pass`` line (None if none came)."""

    @property
    def summary(self) -> str | None:
        """The last summary line the cell showed or printed (a live panel is updated in place)."""
        found = [m.group(0) for m in SUMMARY.finditer(self.display)] or [m.group(0) for m in SUMMARY.finditer(self.stdout)]
        return found[-1] if found else None


@dataclass
class Learner:
    """One person with a browser: cookies, an XSRF token, a kernel over a websocket."""

    hub: Hub
    name: str
    session: object = None
    kernel_id: str | None = None
    ws: object = None
    inbox: object = None
    client_session: str = field(default_factory=lambda: uuid.uuid4().hex)
    steps: list = field(default_factory=list)
    """(seconds since the learner started, what was done): for a failure message, and the benchmark."""

    def __post_init__(self) -> None:
        import requests

        self.session = requests.Session()
        self.base = f"{self.hub.url}/user/{self.name}/"
        self._t0 = time.monotonic()

    def step(self, what: str) -> None:
        self.steps.append((round(time.monotonic() - self._t0, 1), what))

    # -------------------------------------------------------------- the hub

    def login(self) -> None:
        """The login form, as a browser submits it (with the hub's _xsrf token)."""
        s = self.session
        page = s.get(f"{self.hub.url}/hub/login", timeout=30)
        page.raise_for_status()
        token = _form_xsrf(page.text) or s.cookies.get("_xsrf", path="/hub/")
        r = s.post(
            f"{self.hub.url}/hub/login", data={"username": self.name, "password": "any", "_xsrf": token}, timeout=60,
            allow_redirects=False,
        )
        if r.status_code != 302 or not any(c.name.startswith("jupyterhub-session-id") or c.name == "jupyterhub-hub-login" for c in s.cookies):
            raise LearnerError(f"{self.name}: login failed: HTTP {r.status_code}")
        self.step("logged in")

    def follow(self, link: str, timeout: float = 300) -> str:
        """Open an nbgitpuller link: the hub starts the server if needed, then nbgitpuller pulls.

        Returns the folder nbgitpuller cloned into (relative to the home folder).
        """
        deadline = time.monotonic() + timeout
        while True:
            r = self.session.get(link, timeout=timeout)
            if "/git-pull" in urlsplit(r.url).path and r.status_code == 200 and "data-repo" in r.text:
                break
            if "/spawn-pending/" in r.url or "/spawn" in urlsplit(r.url).path:
                self._wait_until_ready(deadline)  # what the spawn-pending page's script does
                continue
            raise LearnerError(f"{self.name}: following the link ended at {r.url} (HTTP {r.status_code})")
        self.step("server ready, nbgitpuller's page open")
        data = dict(re.findall(r'data-([a-z-]+)="([^"]*)"', r.text))
        from urllib.parse import unquote

        data = {k: unquote(html.unescape(v)) for k, v in data.items()}
        params = {"_xsrf": data["xsrf"], "repo": data["repo"], "targetpath": data["targetpath"]}
        if "branch" in data:
            params["branch"] = data["branch"]
        # nbgitpuller's status page (gitsync.js) opens this event stream, then redirects to data-path.
        events = []
        with self.session.get(self.base + "git-pull/api", params=params, stream=True, timeout=timeout) as stream:
            for line in stream.iter_lines(decode_unicode=True):
                if line and line.startswith("data:"):
                    event = json.loads(line[5:])
                    events.append(event)
                    if event.get("phase") in ("finished", "error"):
                        break
        if not events or events[-1].get("phase") != "finished":
            raise LearnerError(f"{self.name}: nbgitpuller did not finish: {events[-3:]}")
        self.redirect = urljoin(self.hub.url, data["base-url"] + data["path"])
        landing = self.session.get(self.redirect, timeout=60)
        if landing.status_code != 200:
            raise LearnerError(f"{self.name}: {self.redirect} answered HTTP {landing.status_code}")
        self.step("pulled, JupyterLab open")
        return data["targetpath"]

    def _wait_until_ready(self, deadline: float) -> None:
        while time.monotonic() < deadline:
            user = self._hub_api(f"/users/{self.name}")
            server = user.get("servers", {}).get("", {})
            if server.get("ready"):
                return
            time.sleep(0.5)
        raise LearnerError(f"{self.name}: the server did not become ready")

    def _hub_api(self, path: str):
        token = self.session.cookies.get("_xsrf", path="/hub/")
        r = self.session.get(f"{self.hub.url}/hub/api{path}", headers={"X-XSRFToken": token or ""}, timeout=30)
        r.raise_for_status()
        return r.json()

    # ------------------------------------------------------- the server API

    def _xsrf(self) -> str:
        token = self.session.cookies.get("_xsrf", path=f"/user/{self.name}/")
        if token is None:
            self.session.get(self.base + "api/status", timeout=30)
            token = self.session.cookies.get("_xsrf", path=f"/user/{self.name}/")
        return token or ""

    def server_api(self, method: str, path: str, **kwargs):
        r = self.session.request(method, self.base + "api/" + path, headers={"X-XSRFToken": self._xsrf()}, timeout=120, **kwargs)
        r.raise_for_status()
        return r.json() if r.content else None

    def notebook(self, path: str) -> dict:
        """A notebook's JSON, through the contents API."""
        return self.server_api("GET", f"contents/{path}", params={"content": "1"})["content"]

    def open_notebook(self, path: str) -> None:
        """Start a session (a kernel whose working folder is the notebook's), as JupyterLab does."""
        session = self.server_api("POST", "sessions", json={"path": path, "name": Path(path).name, "type": "notebook", "kernel": {"name": "python3"}})
        self.kernel_id = session["kernel"]["id"]
        self.step("kernel started")

    def _connect(self) -> None:
        """Open the kernel's websocket, and read it from a thread, as a browser tab does.

        The reader answers the server's pings while the learner is away (reading,
        waiting for the class), so the server never drops the connection for a
        missed pong; it stamps each message with the time it arrived.
        """
        import queue

        import websocket

        url = self.base.replace("http://", "ws://", 1) + f"api/kernels/{self.kernel_id}/channels?session_id={self.client_session}"
        cookies = "; ".join(f"{c.name}={c.value}" for c in self.session.cookies if c.path == "/" or c.path.startswith(f"/user/{self.name}"))
        ws = websocket.create_connection(url, cookie=cookies, header=[f"X-XSRFToken: {self._xsrf()}"], timeout=None)
        inbox: queue.Queue = queue.Queue()

        def read() -> None:
            try:
                while True:
                    raw = ws.recv()
                    inbox.put((time.perf_counter(), raw))
            except Exception as exc:  # closed (by us or by the server): execute() reconnects
                inbox.put((time.perf_counter(), exc))

        threading.Thread(target=read, name=f"ws-{self.name}", daemon=True).start()
        self.ws, self.inbox = ws, inbox
        self.step("kernel connected")

    def execute(self, code: str, timeout: float = 600) -> CellRun:
        """Run one cell over the kernel websocket (Jupyter messaging protocol 5.3) and collect its output.

        Connects first when not connected (JupyterLab reconnects the same way: same
        session id, and the server replays what it buffered meanwhile).
        """
        import queue

        while self.ws is not None:  # what arrived between cells; a closed connection means reconnecting
            try:
                _, raw = self.inbox.get_nowait()
            except queue.Empty:
                break
            if isinstance(raw, Exception):
                self.ws = None
        if self.ws is None:
            self._connect()
        msg_id = uuid.uuid4().hex
        message = {
            "header": {"msg_id": msg_id, "username": self.name, "session": self.client_session, "msg_type": "execute_request",
                       "version": "5.3", "date": time.strftime("%Y-%m-%dT%H:%M:%S.000000Z", time.gmtime())},
            "parent_header": {},
            "metadata": {},
            "content": {"code": code, "silent": False, "store_history": True, "user_expressions": {}, "allow_stdin": False,
                        "stop_on_error": True},
            "channel": "shell",
            "buffers": [],
        }
        run = CellRun(code)
        started = time.perf_counter()
        self.ws.send(json.dumps(message))
        got_reply = got_idle = False
        deadline = time.monotonic() + timeout
        while not (got_reply and got_idle):
            try:
                arrived, raw = self.inbox.get(timeout=max(deadline - time.monotonic(), 0))
            except queue.Empty:
                raise LearnerError(f"{self.name}: no reply to a cell within {timeout} s") from None
            if isinstance(raw, Exception):
                self.ws = None
                self.step(f"websocket closed during a cell: {raw!r}")
                raise ConnectionLost(f"{self.name}: the kernel's websocket closed during a cell: {raw!r}")
            if isinstance(raw, bytes):
                continue  # binary frames carry widget buffers: not ours
            msg = json.loads(raw)
            if msg.get("parent_header", {}).get("msg_id") != msg_id:
                continue
            kind, content = msg["msg_type"], msg.get("content", {})
            if kind == "stream":
                run.stdout += content.get("text", "")
            elif kind in ("execute_result", "display_data", "update_display_data"):
                run.display += content.get("data", {}).get("text/plain", "") + "\n"
            if run.summary_seconds is None and run.summary:
                run.summary_seconds = arrived - started
            elif kind == "error":
                run.error = f"{content.get('ename')}: {content.get('evalue')}"
            elif kind == "execute_reply":
                got_reply, run.status = True, content.get("status", "")
            elif kind == "status" and content.get("execution_state") == "idle":
                got_idle = True
        label = SOLVE_CELL.search(code).group(0) if is_solve_cell(code) else code.splitlines()[0]
        self.step(f"ran {label[:40]!r}" + (f": {run.summary}" if run.summary else ""))
        return run

    def terminal(self, command: str, timeout: float = 300) -> tuple[str, int]:
        """Type `command` into a new terminal of the learner's server, as JupyterLab's terminal does (the terminals
        API and its websocket); returns what the terminal showed and the command's exit code."""
        import websocket

        name = self.server_api("POST", "terminals")["name"]
        url = self.base.replace("http://", "ws://", 1) + f"terminals/websocket/{name}"
        cookies = "; ".join(f"{c.name}={c.value}" for c in self.session.cookies if c.path == "/" or c.path.startswith(f"/user/{self.name}"))
        ws = websocket.create_connection(url, cookie=cookies, header=[f"X-XSRFToken: {self._xsrf()}"], timeout=timeout)
        marker, shown, deadline = uuid.uuid4().hex, "", time.monotonic() + timeout
        try:
            ws.send(json.dumps(["stdin", f"{command}; echo {marker}:$?\r"]))
            while (done := re.search(marker + r":(\d+)", shown)) is None:  # the typed line shows ':$?', not digits
                if time.monotonic() > deadline:
                    raise LearnerError(f"{self.name}: the terminal did not finish {command!r}: {shown[-2000:]}")
                message = json.loads(ws.recv())
                if message[0] == "stdout":
                    shown += message[1]
        finally:
            ws.close()
            self.server_api("DELETE", f"terminals/{name}")
        self.step(f"terminal: {command[:40]!r}")
        return shown, int(done.group(1))

    def close(self) -> None:
        if self.ws is not None:
            try:
                self.ws.close()
            except Exception:
                pass
            self.ws = None

    def kernel_pid_tree(self) -> list[int]:
        """Process ids of this learner's kernel and everything below it (workers, warm server)."""
        import psutil

        for proc in psutil.process_iter(["cmdline"]):
            cmd = proc.info.get("cmdline") or []
            if any(self.kernel_id and self.kernel_id in part for part in cmd):
                return [proc.pid] + [p.pid for p in proc.children(recursive=True)]
        return []


def _form_xsrf(page: str) -> str | None:
    m = re.search(r'name="_xsrf"\s+value="([^"]+)"', page) or re.search(r'value="([^"]+)"\s+name="_xsrf"', page)
    return html.unescape(m.group(1)) if m else None


def _source(cell: dict) -> str:
    return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]


def solve_cells(nb: dict) -> list[str]:
    """The code cells of a notebook, in order."""
    return [_source(c) for c in nb["cells"] if c["cell_type"] == "code"]


def is_solve_cell(code: str) -> bool:
    return SOLVE_CELL.search(code) is not None


def recorded_summary(nb: dict) -> str:
    """The ``K/N checks pass`` line the generator stored as the solve cell's output (nbval checks it)."""
    for cell in nb["cells"]:
        if cell["cell_type"] == "code" and is_solve_cell(_source(cell)):
            for out in cell.get("outputs", []):
                data = out.get("data", {}).get("text/plain", "") if "data" in out else out.get("text", "")
                m = SUMMARY.search("".join(data) if isinstance(data, list) else data)
                if m:
                    return m.group(0)
    raise LookupError("no solve cell with a stored summary")


def with_body(solve_cell: str, body: str) -> str:
    """The notebook's solve cell, down to its ``def solve(...)`` line, with another body: what a learner types."""
    head = solve_cell[: SOLVE_CELL.search(solve_cell).end()]
    return f"{head}\n{body.rstrip()}\n"


# ------------------------------------------------------------------ a course


def git(*args: str, cwd: Path) -> None:
    subprocess.run(["git", "-c", "user.name=Instructor", "-c", "user.email=instructor@example.org", *args], cwd=cwd, check=True,
                   capture_output=True, timeout=120)


def publish_workshop(base: Path, hub: Hub, records: tuple[str, ...]) -> tuple[str, dict[str, str]]:
    """The workshop as an instructor publishes it: built with --repo and --hub, committed, pushed to a bare repository.

    Returns the repository URL (``file://…/fm-course.git``) and the README's JupyterHub link of each notebook.
    """
    from failuremap_edu.instructor._cli import main

    remote = base / "fm-course.git"
    subprocess.run(["git", "init", "--quiet", "--bare", "--initial-branch=main", str(remote)], check=True, timeout=60)
    repo = remote.as_uri()
    folder = base / "fm-course"
    import contextlib
    import io

    with contextlib.redirect_stdout(io.StringIO()) as said:
        if main(["workshop", *records, "-o", str(folder), "--repo", repo, "--branch", "main", "--hub", hub.url]) != 0:
            raise RuntimeError(f"failuremap-edu workshop failed: {said.getvalue()}")
    git("init", "--quiet", "--initial-branch=main", cwd=folder)
    git("add", "-A", cwd=folder)
    git("commit", "--quiet", "-m", "Workshop", cwd=folder)
    git("push", "--quiet", repo, "main", cwd=folder)
    readme = (folder / "README.md").read_text(encoding="utf-8")
    return repo, dict(re.findall(r"^\| ([\w.-]+\.ipynb) \| \[open\]\(([^)]+)\) \|$", readme, re.M))


def reference_cell(record_id: str, name: str, solve_cell: str) -> str:
    """Our reference solution typed into the solve cell, marked (inside solve, so the log keeps it) with the learner's name."""
    source = (REPO / "references" / f"{record_id}.py").read_text(encoding="utf-8")
    body = source[source.index("def solve(") :].split("\n", 1)[1]
    return with_body(solve_cell, f"    # learner {name}\n{body}")


def open_exercise(learner: Learner, link: str, record_id: str, timeout: float = 300) -> tuple[dict, str, str]:
    """Log in, follow the nbgitpuller link, open the notebook, run it down to (not including) its solve cell.

    Returns the notebook, its solve cell as generated, and the folder nbgitpuller cloned into.
    """
    learner.login()
    folder = learner.follow(link, timeout=timeout)
    path = f"{folder}/notebooks/{record_id}.ipynb"
    nb = learner.notebook(path)
    learner.open_notebook(path)
    cells = solve_cells(nb)
    solve_at = next(i for i, c in enumerate(cells) if is_solve_cell(c))
    for code in cells[:solve_at]:
        try:
            ran = learner.execute(code)
        except ConnectionLost:  # these cells only read and show: running one again is what a learner would do
            ran = learner.execute(code)
        if ran.status != "ok" or ran.error is not None:
            raise LearnerError(f"{learner.name}: {code[:60]!r} failed: {ran.error}")
    return nb, cells[solve_at], folder


# ------------------------------------------------------------------ the launcher


def _launch(config: str) -> int:
    """Run jupyterhub as our child, adopt every orphan below it, and kill them all on exit."""
    import ctypes

    import psutil

    PR_SET_CHILD_SUBREAPER = 36
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    hub = subprocess.Popen([str(Path(sys.executable).parent / "jupyterhub"), "-f", config])
    stopping = threading.Event()

    def stop(signum, frame) -> None:
        stopping.set()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    while not stopping.is_set() and hub.poll() is None:
        try:  # reap adopted orphans as they die
            while os.waitpid(-1, os.WNOHANG)[0] > 0:
                pass
        except ChildProcessError:
            pass
        stopping.wait(0.5)
    if hub.poll() is None:
        hub.send_signal(signal.SIGTERM)  # the hub stops its users' servers (cleanup_servers)
        try:
            hub.wait(30)
        except subprocess.TimeoutExpired:
            hub.kill()
    me = psutil.Process()
    for _ in range(20):
        left = me.children(recursive=True)
        if not left:
            break
        for proc in left:
            try:
                proc.kill()
            except psutil.Error:
                pass
        psutil.wait_procs(left, timeout=2)
        try:
            while os.waitpid(-1, os.WNOHANG)[0] > 0:
                pass
        except ChildProcessError:
            pass
    return hub.returncode or 0


if __name__ == "__main__":
    sys.exit(_launch(sys.argv[1]))
