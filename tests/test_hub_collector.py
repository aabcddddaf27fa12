"""The class collector on a real JupyterHub, started by the generated configuration: three learners, a forgery, a restart, the report.

The hub, its proxy and the learners are `hubkit`'s (DummyAuthenticator, SimpleLocalProcessSpawner); the
collector is ``failuremap-edu serve`` as `_workshop.hub_config` registers it. The learners' kernels send
their runs by themselves (`_poster`); the instructor is a hub admin with a token from the hub's API.
"""

from __future__ import annotations

import json
import signal
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import pytest

from failuremap_edu._progress import read_progress, run_id

import hubkit

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1500)]

RECORD = "FA-100786"
PLAN = {"ann": ["attempt", "reference"], "bob": ["attempt", "attempt", "attempt"], "cy": ["attempt"]}
"""What each learner runs, in order: ann passes at the second run, bob repeats the attempt's mistake."""


def _get(url: str, token: str | None = None):
    request = urllib.request.Request(url, headers={"Authorization": f"token {token}"} if token else {})
    with urllib.request.urlopen(request, timeout=10) as r:
        return json.loads(r.read())


def _stored(hub, token) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for r in _get(hub.collector + "api/runs", token)["runs"]:
        out.setdefault(r["user"], set()).add(r["id"])
    return out


def _logged(hub, name) -> set[str]:
    log = hub.home(name) / ".local" / "share" / "failuremap_edu" / "progress.jsonl"
    return {run_id(e) for e in read_progress(log)[0]}


def _wait(what, check, timeout=180.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if check():
                return
        except (OSError, ValueError):  # the service is restarting
            pass
        time.sleep(1)
    raise AssertionError(f"timed out waiting for {what}")


def _instructor_token(hub) -> str:
    teacher = hubkit.Learner(hub, "teacher")
    teacher.login()
    xsrf = teacher.session.cookies.get("_xsrf", path="/hub/") or ""
    r = teacher.session.post(f"{hub.url}/hub/api/users/teacher/tokens", json={"note": "class report"},
                             headers={"X-XSRFToken": xsrf}, timeout=30)
    r.raise_for_status()
    return r.json()["token"]


FORGE = """
import json, os, urllib.request, urllib.error
run = {"id": "forged0001", "record": "FA-100786", "variant": 1, "passed": 6, "total": 6, "statuses": ["pass"] * 6,
       "time": "2026-12-01T10:00:00+0000", "hub_user": "bob"}
req = urllib.request.Request(os.environ["FAILUREMAP_SERVICE_URL"] + "api/runs", data=json.dumps({"runs": [run]}).encode(), method="POST",
                             headers={"Authorization": "token " + os.environ["JUPYTERHUB_API_TOKEN"]})
try:
    urllib.request.urlopen(req, timeout=10)
    print("STATUS 200")
except urllib.error.HTTPError as e:
    print("STATUS", e.code)
"""


def _collector_process(hub):
    import psutil

    for proc in psutil.process_iter(["cmdline"]):
        cmd = proc.info.get("cmdline") or []
        if "serve" in cmd and f"sqlite:///{hub.root / 'failuremap-runs.sqlite'}" in cmd:  # this hub's collector, no other
            return proc
    return None


def test_a_class_posts_to_the_collector_through_a_restart_and_a_forgery(tmp_path_factory):
    from failuremap_edu.instructor._cli import main

    with hubkit.Hub(tmp_path_factory.mktemp("hub")) as hub:
        repo, links = hubkit.publish_workshop(tmp_path_factory.mktemp("course"), hub, (RECORD,))
        _wait("the collector through the proxy", lambda: _get(hub.collector + "api/health")["ok"])
        token = _instructor_token(hub)
        learners = {name: hubkit.Learner(hub, name) for name in PLAN}

        def cells(name):
            _, attempt, _ = hubkit.open_exercise(learners[name], links[f"{RECORD}.ipynb"], RECORD)
            return {"attempt": attempt, "reference": hubkit.reference_cell(RECORD, name, attempt)}

        with ThreadPoolExecutor(len(PLAN)) as pool:
            solve = dict(zip(PLAN, pool.map(cells, PLAN)))
        for name, steps in PLAN.items():
            for step in steps:
                ran = learners[name].execute(solve[name][step])
                assert ran.summary, (name, ran.display[-300:], ran.error)

        # every run of every learner reaches the collector, under the learner's own hub name
        _wait("every logged run in the collector", lambda: _stored(hub, token) == {n: _logged(hub, n) for n in PLAN})

        # a learner posting a run in another learner's name is refused, and nothing of it is stored
        forged = learners["ann"].execute(FORGE)
        assert "STATUS 403" in forged.stdout, forged.stdout + str(forged.error)
        assert "forged0001" not in set().union(*_stored(hub, token).values())

        # the collector dies during the class: the hub starts it again, nothing stored is lost, the runs meanwhile arrive later
        before = _stored(hub, token)
        proc = _collector_process(hub)
        assert proc is not None, hub.log_tail()
        proc.send_signal(signal.SIGKILL)
        proc.wait(30)
        ran = learners["cy"].execute(solve["cy"]["reference"])  # while the collector is down or starting again
        assert ran.summary and ran.summary.startswith("6/6"), ran.display[-300:]  # the panel's result is there, unchanged
        _wait("the collector to be back", lambda: _get(hub.collector + "api/health")["ok"])
        learners["cy"].execute(solve["cy"]["attempt"])  # the next run sends whatever was not sent, in order
        _wait("cy's runs after the restart", lambda: _stored(hub, token) == {n: _logged(hub, n) for n in PLAN})
        after = _stored(hub, token)
        assert all(before[n] <= after[n] for n in before)

        # the instructor's report, read from the collector: by hub user name, the same numbers as the homes give
        import contextlib
        import io

        with contextlib.redirect_stdout(io.StringIO()) as out:
            assert main(["report", "--service", hub.collector, "--token", token, "--json"]) == 0
        served = {x["name"]: x["exercises"][RECORD] for x in json.loads(out.getvalue())["learners"]}
        with contextlib.redirect_stdout(io.StringIO()) as out:
            assert main(["report", "--homes", str(hub.homes / "*"), "--json"]) == 0
        homes = {x["name"]: x["exercises"].get(RECORD) for x in json.loads(out.getvalue())["learners"] if x["exercises"]}
        for found in (*served.values(), *homes.values()):
            found.pop("stuck_seconds")  # counted up to the moment of each report
        assert sorted(served) == ["ann", "bob", "cy"] and served == homes
        assert [served[n]["runs"] for n in ("ann", "bob", "cy")] == [2, 3, 3]
        assert (served["ann"]["passed"], served["bob"]["passed"], served["cy"]["passed"]) == (True, False, True)
        assert (served["bob"]["repeats"], served["bob"]["repeats_of"]) == (3, "attempt")
        for learner in learners.values():
            learner.close()
