"""`make lab`, the README's first command, run as whoever runs the tests (root in CI).

The server is started by the Makefile's own recipe, with no display, so what a
new user on a container, a cloud VM or a workshop machine gets is what is tested:
a URL with a token, a server that answers with that token, and no news pop-up.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import threading
import time
import urllib.error
import urllib.request
from html.parser import HTMLParser
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ANNOUNCEMENTS = "@jupyterlab/apputils-extension:announcements"

pytestmark = pytest.mark.slow


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class _ConfigData(HTMLParser):
    """JupyterLab's page embeds its page config as JSON in <script id="jupyter-config-data">."""

    def __init__(self) -> None:
        super().__init__()
        self.inside = False
        self.text = ""

    def handle_starttag(self, tag, attrs):
        self.inside = tag == "script" and ("id", "jupyter-config-data") in attrs

    def handle_endtag(self, tag):
        self.inside = False

    def handle_data(self, data):
        if self.inside:
            self.text += data


def _get(url: str, token: str | None = None) -> tuple[int, str]:
    """GET, retrying while the port is not yet open (JupyterLab prints its URL a moment before it listens)."""
    request = urllib.request.Request(url, headers={"Authorization": f"token {token}"} if token else {})
    deadline = time.monotonic() + 30
    while True:
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                return response.status, response.read().decode("utf-8")
        except urllib.error.HTTPError as exc:
            return exc.code, ""
        except urllib.error.URLError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


def test_make_lab_serves_the_notebooks_with_a_token_and_no_news_prompt(tmp_path):
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "BROWSER")}
    env.update(HOME=str(tmp_path), JUPYTER_RUNTIME_DIR=str(tmp_path / "runtime"), JUPYTER_CONFIG_DIR=str(tmp_path / ".jupyter"))
    # -o: the tests already run in the venv the stamp stands for; never reinstall from here.
    cmd = ["make", "-s", "-o", ".venv/.installed", "lab", f"LAB_ARGS=--ip=127.0.0.1 --port={port} --ServerApp.port_retries=0"]
    server = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    lines: list[str] = []
    found = threading.Event()
    pattern = re.compile(rf"http://(?:127\.0\.0\.1|localhost):{port}/lab\?token=([0-9a-f]+)")

    def read() -> None:
        for line in server.stdout:
            lines.append(line)
            if pattern.search(line):
                found.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        deadline = time.monotonic() + 120
        while not found.is_set() and server.poll() is None and time.monotonic() < deadline:
            found.wait(0.2)
        output = "".join(lines)
        assert found.is_set(), f"make lab printed no URL with a token:\n{output[-3000:]}"
        assert "Running as root is not recommended" not in output
        token = pattern.search(output).group(1)
        base = f"http://127.0.0.1:{port}"

        status, body = _get(f"{base}/api/status", token)
        assert status == 200 and "started" in json.loads(body)
        assert _get(f"{base}/api/status")[0] == 403, "the server must require the printed token"

        status, page = _get(f"{base}/lab", token)
        assert status == 200
        parser = _ConfigData()
        parser.feed(page)
        config = json.loads(parser.text)
        assert ANNOUNCEMENTS in config["disabledExtensions"], "the news pop-up would cover the exercise panel"
        assert Path(config["serverRoot"]).resolve() == (ROOT / "notebooks").resolve()
        # A terminal opened in JupyterLab inherits the server's PATH: the downloads' "failuremap-edu check ..." line
        # must work there (a learner trial's terminal said "command not found").
        import psutil

        lab = next(p for p in psutil.Process(server.pid).children(recursive=True) if any("jupyter-lab" in part for part in p.cmdline()))
        assert lab.environ()["PATH"].split(os.pathsep)[0] == str(ROOT / ".venv" / "bin"), lab.environ()["PATH"]
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait(timeout=10)
    assert server.returncode is not None
