"""The class collector in-process (tornado's testing tools), with a fake HubAuth: the user always comes from the token."""

from __future__ import annotations

import json
import secrets

import pytest
from tornado.httpclient import AsyncHTTPClient
from tornado.testing import AsyncHTTPTestCase, gen_test

from failuremap_edu.instructor._service import Access, make_app
from failuremap_edu.instructor._store import RunStore

PREFIX = "/services/failuremap/"


class FakeHubAuth:
    """What `HubAuth.user_for_token` answers: the hub's model of a token's owner, or None for an unknown token."""

    def __init__(self, tokens: dict[str, dict]) -> None:
        self.tokens = tokens
        self.asked = 0

    async def user_for_token(self, token, use_cache=True, session_id="", *, sync=True):
        self.asked += 1
        return self.tokens.get(token)


TOKENS = {
    "tok-ann": {"kind": "user", "name": "ann", "admin": False, "groups": []},
    "tok-bob": {"kind": "user", "name": "bob", "admin": False, "groups": []},
    "tok-teach": {"kind": "user", "name": "teach", "admin": True, "groups": []},
    "tok-ta": {"kind": "user", "name": "ta", "admin": False, "groups": ["tutors"]},
    "tok-svc": {"kind": "service", "name": "grader"},
}


def entry(record="FA-1", passed=1, total=2, run_id=None, **extra) -> dict:
    statuses = ["pass"] * passed + ["fail"] * (total - passed)
    return {"id": run_id or secrets.token_hex(8), "record": record, "variant": 1, "passed": passed, "total": total,
            "statuses": statuses, "checks": [f"c{i}" for i in range(total)], "time": "2026-12-01T10:00:00+0000", **extra}


class CollectorCase(AsyncHTTPTestCase):
    db_path = None

    def setUp(self) -> None:
        import tempfile
        from pathlib import Path

        self._tmp = tempfile.TemporaryDirectory()
        self.db = f"sqlite:///{Path(self._tmp.name) / 'runs.sqlite'}"
        self.store = RunStore(self.db)
        self.auth = FakeHubAuth(TOKENS)
        super().setUp()

    def tearDown(self) -> None:
        super().tearDown()
        self.store.close()
        self._tmp.cleanup()

    def get_app(self):
        return make_app(self.store, self.auth, Access(groups=frozenset({"tutors"}), services=frozenset()), PREFIX)

    def post(self, token, runs):
        return self.fetch(PREFIX + "api/runs", method="POST", body=json.dumps({"runs": runs}),
                          headers={"Authorization": f"token {token}"} if token else {}, raise_error=False)

    def read(self, token, since=0):
        r = self.fetch(PREFIX + f"api/runs?since={since}", headers={"Authorization": f"token {token}"}, raise_error=False)
        return r.code, json.loads(r.body)

    # ------------------------------------------------------------------

    def test_a_run_posted_twice_is_stored_once(self):
        run = entry(run_id="aaaa1111")
        first, again = self.post("tok-ann", [run]), self.post("tok-ann", [run, entry(run_id="bbbb2222")])
        assert (first.code, again.code) == (200, 200)
        assert json.loads(again.body)["stored"] == ["aaaa1111", "bbbb2222"]
        code, data = self.read("tok-teach")
        assert code == 200 and [(r["user"], r["id"]) for r in data["runs"]] == [("ann", "aaaa1111"), ("ann", "bbbb2222")]

    def test_the_same_run_id_of_two_learners_is_two_runs(self):
        self.post("tok-ann", [entry(run_id="same0001")])
        self.post("tok-bob", [entry(run_id="same0001")])
        assert sorted(r["user"] for r in self.read("tok-teach")[1]["runs"]) == ["ann", "bob"]

    def test_the_user_comes_from_the_token_and_a_forged_user_name_is_refused(self):
        forged = self.post("tok-ann", [entry(hub_user="bob")])
        assert forged.code == 403 and "another hub user" in json.loads(forged.body)["error"]
        own = self.post("tok-ann", [entry(run_id="ann00001", hub_user="ann", learner="bob")])
        assert own.code == 200
        runs = self.read("tok-teach")[1]["runs"]
        assert [(r["user"], r["entry"]["hub_user"]) for r in runs] == [("ann", "ann")]

    def test_no_token_or_an_unknown_token_stores_nothing(self):
        assert self.post(None, [entry()]).code == 401
        assert self.post("tok-nobody", [entry()]).code == 403
        assert self.store.count() == 0

    def test_malformed_posts_get_one_line_and_store_nothing(self):
        bad = self.fetch(PREFIX + "api/runs", method="POST", body="{not json", headers={"Authorization": "token tok-ann"}, raise_error=False)
        assert bad.code == 400 and set(json.loads(bad.body)) == {"error"}
        assert self.post("tok-ann", [{"record": "FA-1", "passed": 3, "total": 2, "id": "x1234567"}]).code == 400
        assert self.post("tok-ann", [{**entry(), "id": "../../etc"}]).code == 400
        assert self.store.count() == 0

    def test_learners_read_only_their_own_runs_and_instructors_read_all(self):
        self.post("tok-ann", [entry(run_id="ann00001")])
        self.post("tok-bob", [entry(run_id="bob00001")])
        assert {r["user"] for r in self.read("tok-ann")[1]["runs"]} == {"ann"}
        assert {r["user"] for r in self.read("tok-ta")[1]["runs"]} == {"ann", "bob"}  # an instructor group
        code, data = self.read("tok-svc")  # a service not given with --reader-service
        assert code == 403

    def test_since_reads_only_what_came_after(self):
        self.post("tok-ann", [entry(run_id="ann00001")])
        last = self.read("tok-teach")[1]["last"]
        self.post("tok-ann", [entry(run_id="ann00002")])
        assert [r["id"] for r in self.read("tok-teach", since=last)[1]["runs"]] == ["ann00002"]

    def test_a_restart_with_the_sqlite_file_kept_loses_nothing(self):
        self.post("tok-ann", [entry(run_id=f"ann0000{i}") for i in range(3)])
        self.store.close()
        reopened = RunStore(self.db)
        try:
            assert [r.run_id for r in reopened.runs()] == ["ann00000", "ann00001", "ann00002"]
            reopened.add("ann", [("ann00002", entry(run_id="ann00002")), ("ann00003", entry(run_id="ann00003"))], "now")
            assert reopened.count() == 4
        finally:
            reopened.close()

    def test_the_database_is_in_wal_mode(self):
        with self.store.engine.connect() as conn:
            assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"

    @gen_test(timeout=60)
    async def test_fifty_learners_posting_at_once_are_all_stored(self):
        tokens = {f"tok-{i}": {"kind": "user", "name": f"learner{i:02d}"} for i in range(50)}
        self.auth.tokens.update(tokens)
        client = AsyncHTTPClient(force_instance=True, max_clients=60)
        try:
            import asyncio

            replies = await asyncio.gather(*[
                client.fetch(self.get_url(PREFIX + "api/runs"), method="POST", raise_error=False,
                             body=json.dumps({"runs": [entry(run_id=f"run{i:05d}"), entry(run_id=f"xtra{i:04d}")]}),
                             headers={"Authorization": f"token {token}"})
                for i, token in enumerate(tokens)
            ])
        finally:
            client.close()
        assert [r.code for r in replies] == [200] * 50
        assert self.store.count() == 100
        assert len({r.user for r in self.store.runs()}) == 50

    def test_health_needs_no_token(self):
        r = self.fetch(PREFIX + "api/health")
        assert json.loads(r.body) == {"ok": True, "runs": 0}


@pytest.mark.parametrize("model, reads", [
    ({"kind": "user", "name": "x", "admin": True}, True),
    ({"kind": "user", "name": "x", "admin": False}, False),
    ({"kind": "user", "name": "prof"}, True),
    ({"kind": "user", "name": "x", "groups": ["tutors"]}, True),
    ({"kind": "service", "name": "grader"}, True),
    ({"kind": "service", "name": "prof"}, False),
])
def test_who_reads_every_learners_runs(model, reads):
    access = Access(users=frozenset({"prof"}), groups=frozenset({"tutors"}), services=frozenset({"grader"}))
    assert access.reads_all(model) is reads


# ------------------------------------------------------------------ report --service, against the service on a port


@pytest.fixture
def running(tmp_path):
    """The collector on a free port of 127.0.0.1, on its own thread and event loop, with the fake hub."""
    import asyncio
    import threading

    store = RunStore(f"sqlite:///{tmp_path / 'runs.sqlite'}")
    ready, holder = threading.Event(), {}

    def serve() -> None:
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)

        async def start():
            from tornado.netutil import bind_sockets
            from tornado.httpserver import HTTPServer

            sockets = bind_sockets(0, "127.0.0.1")
            server = HTTPServer(make_app(store, FakeHubAuth(TOKENS), Access(), PREFIX))
            server.add_sockets(sockets)
            holder.update(port=sockets[0].getsockname()[1], server=server, loop=loop, stop=asyncio.Event())
            ready.set()
            await holder["stop"].wait()
            server.stop()

        loop.run_until_complete(start())
        loop.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    assert ready.wait(30)
    url = f"http://127.0.0.1:{holder['port']}{PREFIX}"
    yield url
    holder["loop"].call_soon_threadsafe(holder["stop"].set)
    thread.join(10)
    store.close()


def _post(url, token, runs):
    import urllib.request

    request = urllib.request.Request(url + "api/runs", data=json.dumps({"runs": runs}).encode(), method="POST",
                                     headers={"Authorization": f"token {token}", "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as r:
        return json.loads(r.read())


def test_report_reads_the_class_from_the_service_by_hub_user_name(running, capsys, monkeypatch):
    from failuremap_edu.instructor._cli import main

    _post(running, "tok-ann", [entry(passed=0, run_id="ann00001"), entry(passed=2, run_id="ann00002")])
    _post(running, "tok-bob", [entry(passed=1, run_id="bob00001")])
    monkeypatch.setenv("JUPYTERHUB_API_TOKEN", "tok-teach")
    assert main(["report", "--service", running, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [x["name"] for x in data["learners"]] == ["ann", "bob"]
    assert [(x["name"], x["exercises"]["FA-1"]["runs"], x["exercises"]["FA-1"]["passed"]) for x in data["learners"]] == [
        ("ann", 2, True), ("bob", 1, False)]
    assert data["exercises"][0]["stuck"] == ["bob"]


def test_report_service_with_a_learners_token_or_a_down_service_is_one_line(running, capsys):
    from failuremap_edu.instructor._cli import main

    assert main(["report", "--service", running, "--token", "tok-ann"]) == 2
    assert capsys.readouterr().err.strip().endswith("this token reads only its own runs; use an instructor's (a hub admin's) token")
    assert main(["report", "--service", running, "--token", "tok-nobody"]) == 2
    assert capsys.readouterr().err.strip().endswith("it refused this token")
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    assert main(["report", "--service", f"http://127.0.0.1:{port}/services/failuremap/", "--token", "t"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "cannot reach it" in err and "Traceback" not in err


def test_a_run_in_a_home_log_and_in_the_service_counts_once(running, tmp_path, capsys):
    """The learner's log stays the source of truth; the collector's copy of the same run is the same run of the same learner."""
    from failuremap_edu.instructor._cli import main

    run = entry(passed=1, run_id="ann00009", hub_user="ann")
    log = tmp_path / "homes" / "ann" / ".local" / "share" / "failuremap_edu" / "progress.jsonl"
    log.parent.mkdir(parents=True)
    log.write_text(json.dumps({"learner": "a" * 16}) + "\n" + json.dumps(run) + "\n")
    _post(running, "tok-ann", [run])
    assert main(["report", "--service", running, "--token", "tok-teach", "--homes", str(tmp_path / "homes" / "*"), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [(x["name"], x["exercises"]["FA-1"]["runs"]) for x in data["learners"]] == [("ann", 1)]
    assert data["exercises"][0]["runs"] == 1


class LookupCase(CollectorCase):
    """A token that shows only the name (an admin's own server token): the service asks the hub with its own token."""

    def get_app(self):
        full = {"teach2": {"name": "teach2", "admin": True}, "ann": {"name": "ann", "admin": False}}

        async def lookup(name):
            return full.get(name)

        self.auth.tokens.update({"tok-teach2": {"kind": "user", "name": "teach2"}})
        return make_app(self.store, self.auth, Access(groups=frozenset({"tutors"})), PREFIX, lookup)

    def test_an_admin_whose_token_shows_only_the_name_reads_all(self):
        self.post("tok-ann", [entry(run_id="ann00001")])
        self.post("tok-bob", [entry(run_id="bob00001")])
        code, data = self.read("tok-teach2")
        assert code == 200 and data["all"] and {r["user"] for r in data["runs"]} == {"ann", "bob"}
        assert {r["user"] for r in self.read("tok-ann")[1]["runs"]} == {"ann"}
