"""The kernel's poster against a local stub collector: in order, once each, resent after the service was down, never in the way."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from failuremap_edu import Exercise
from failuremap_edu._poster import Poster, notify, send_pending, service_url
from failuremap_edu._progress import log_run, read_progress, run_id
from failuremap_edu._results import Observation, RunResult

from conftest import reference_solve


class Stub:
    """A collector stand-in: stores posted runs by id (as the real one does), records every post; can be down or held."""

    def __init__(self) -> None:
        self.posts: list[list[str]] = []
        self.stored: dict[str, dict] = {}
        self.down = False
        self.hold = threading.Event()
        self.hold.set()
        self.holding = threading.Event()
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                if not stub.hold.is_set():
                    stub.holding.set()
                    stub.hold.wait(30)
                if stub.down or self.headers.get("Authorization") != "token learner-token":
                    self.send_response(503)
                    self.end_headers()
                    return
                ids = [r["id"] for r in body["runs"]]
                stub.posts.append(ids)
                for r in body["runs"]:
                    stub.stored.setdefault(r["id"], r)
                data = json.dumps({"stored": ids}).encode()
                self.send_response(200)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/services/failuremap/"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.hold.set()
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def stub():
    s = Stub()
    yield s
    s.close()


def _result(passed: int = 1, total: int = 2) -> RunResult:
    obs = tuple(Observation(i, f"c{i}", "pass" if i < passed else "fail", i < passed, 1 if i < passed else 0, 1) for i in range(total))
    return RunResult("FA-1", "yours", 1, obs, 1.0, "process")


def test_the_service_url_is_the_setting_or_derived_from_the_hub():
    hub = {"JUPYTERHUB_API_TOKEN": "t", "JUPYTERHUB_SERVICE_PREFIX": "/user/ann/", "JUPYTERHUB_BASE_URL": "/",
           "JUPYTERHUB_API_URL": "http://127.0.0.1:8081/hub/api"}
    assert service_url({}) is None  # not under a hub
    assert service_url({"FAILUREMAP_SERVICE_URL": "http://x/"}) is None  # no token: nothing to post with
    assert service_url(hub) == "http://127.0.0.1:8081/services/failuremap/"
    assert service_url({**hub, "JUPYTERHUB_PUBLIC_HUB_URL": "https://hub.example.org/course/hub/", "JUPYTERHUB_BASE_URL": "/course/"}) == \
        "https://hub.example.org/course/services/failuremap/"
    assert service_url({**hub, "FAILUREMAP_SERVICE_URL": "http://127.0.0.1:10101/services/failuremap"}) == "http://127.0.0.1:10101/services/failuremap/"


def test_every_run_is_posted_once_in_order(stub, tmp_path):
    log = tmp_path / "progress.jsonl"
    for passed in (0, 1, 2):
        log_run(_result(passed), "def solve(): pass", path=log)
    ids = [run_id(e) for e in read_progress(log)[0]]
    first = send_pending(stub.url, "learner-token", log)
    again = send_pending(stub.url, "learner-token", log)
    assert (first.sent, first.pending, first.error) == (3, 0, None)
    assert (again.sent, again.pending) == (0, 0)
    assert stub.posts == [ids]


def test_a_down_service_gets_the_runs_later_in_order_once(stub, tmp_path):
    log = tmp_path / "progress.jsonl"
    stub.down = True
    log_run(_result(0), path=log)
    log_run(_result(1), path=log)
    down = send_pending(stub.url, "learner-token", log)
    assert (down.sent, down.pending) == (0, 2) and down.error == "the collector answered HTTP 503"
    stub.down = False
    log_run(_result(2), path=log)
    back = send_pending(stub.url, "learner-token", log)
    ids = [run_id(e) for e in read_progress(log)[0]]
    assert (back.sent, back.pending) == (3, 0)
    assert [i for post in stub.posts for i in post] == ids  # in order, each once
    assert send_pending(stub.url, "learner-token", log).sent == 0


def test_a_service_nobody_listens_at_is_one_line_and_the_log_keeps_every_run(tmp_path):
    log = tmp_path / "progress.jsonl"
    log_run(_result(0), path=log)
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    result = send_pending(f"http://127.0.0.1:{port}/services/failuremap/", "t", log, timeout=1)
    assert (result.sent, result.pending) == (0, 1) and "did not answer" in result.error
    assert len(read_progress(log)[0]) == 1


def test_lines_from_before_ids_are_sent_under_a_stable_id(stub, tmp_path):
    log = tmp_path / "progress.jsonl"
    old = {"record": "FA-1", "variant": 1, "passed": 1, "total": 1, "statuses": ["pass"], "time": "2026-11-30T10:00:00+0000"}
    log.write_text(json.dumps({"learner": "0123456789abcdef"}) + "\n" + json.dumps(old) + "\n")
    send_pending(stub.url, "learner-token", log)
    send_pending(stub.url, "learner-token", log)
    assert len(stub.posts) == 1 and stub.posts[0][0].startswith("sha-") and stub.posts[0][0] == run_id(old)


def test_a_line_of_another_hub_user_is_never_sent_and_does_not_hold_up_the_rest(stub, tmp_path, monkeypatch):
    log = tmp_path / "progress.jsonl"
    monkeypatch.setenv("JUPYTERHUB_USER", "bob")
    log_run(_result(0), path=log)
    monkeypatch.setenv("JUPYTERHUB_USER", "ann")  # the log was copied into ann's home
    log_run(_result(1), path=log)
    result = send_pending(stub.url, "learner-token", log)
    ids = [run_id(e) for e in read_progress(log)[0]]
    assert (result.sent, result.pending) == (1, 0) and stub.posts == [ids[1:]]


def test_instructor_runs_are_never_sent(stub, tmp_path):
    log = tmp_path / "progress.jsonl"
    log_run(_result(1), path=log, instructor=True)
    assert send_pending(stub.url, "learner-token", log).sent == 0 and stub.posts == []


def test_the_panel_result_does_not_wait_for_a_held_service_and_is_sent_after(stub, tmp_path, monkeypatch):
    """The service holds the post open: the exercise's run has returned its result while the post still waits."""
    monkeypatch.setenv("JUPYTERHUB_API_TOKEN", "learner-token")
    monkeypatch.setenv("FAILUREMAP_SERVICE_URL", stub.url)
    monkeypatch.setenv("JUPYTERHUB_USER", "ann")
    stub.hold.clear()
    ex = Exercise("FA-100786", timeout=0.5)
    ex.check(reference_solve("FA-100786"))
    assert ex.summary() == "6/6 checks pass" and ex.log_note == ""
    assert stub.holding.wait(30)  # the post has reached the service, and is held there
    assert stub.posts == []  # nothing stored yet, and the run already came back with its result
    stub.hold.set()
    from failuremap_edu import _poster

    assert _poster._POSTER[0].wait_idle(30)
    entries = read_progress()[0]
    assert [i for post in stub.posts for i in post] == [run_id(e) for e in entries]
    assert {r["hub_user"] for r in stub.stored.values()} == {"ann"}


def test_a_failed_round_is_retried_by_the_poster_itself(stub, tmp_path):
    log = tmp_path / "progress.jsonl"
    log_run(_result(0), path=log)
    stub.down = True
    poster = Poster(stub.url, "learner-token", log, retry=0.05)
    poster.notify()
    assert poster.wait_idle(30) and poster.last.pending == 1
    stub.down = False
    import time

    for _ in range(600):  # the retry comes by itself, with no new run
        if stub.posts:
            break
        time.sleep(0.05)
    assert stub.posts == [[run_id(read_progress(log)[0][0])]]


def test_the_kernel_side_imports_neither_tornado_nor_sqlalchemy_nor_the_service():
    code = ("import sys, failuremap_edu, failuremap_edu._exercise, failuremap_edu._poster, failuremap_edu._panel;"
            "print(sorted(m for m in ('tornado', 'sqlalchemy', 'failuremap_edu.instructor._service', 'failuremap_edu.instructor._store') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=Path(__file__).resolve().parents[1])
    assert out.stdout.strip() == "[]", out.stderr


def test_without_a_hub_notify_does_nothing(monkeypatch):
    from failuremap_edu import _poster

    monkeypatch.delenv("JUPYTERHUB_API_TOKEN", raising=False)
    before = list(_poster._POSTER)
    notify()
    assert _poster._POSTER == before
