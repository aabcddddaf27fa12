"""The class collector with 50 learners posting at once (issue 36): the p95 of one post, as a ratio against a bare
tornado handler on the same machine (same server shape, one process, no storage), and the service's memory.

Both servers run in a child process of their own (``python bench_collector.py serve KIND DB``), so the memory is the
service's alone (PSS where the system gives it). The hub's token check is a stand-in that answers at once (HubAuth
caches it per token, so a class pays it once per learner). Target: p95 within 4× the bare handler's, and under 150 MB.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

LEARNERS = 50
ROUNDS = 6
"""Rounds of every learner posting at once (each post: one run, as a kernel sends it after a solve)."""
RATIO_TARGET = 4.0
MEMORY_TARGET_MB = 150


class _AnyToken:
    """``tok-NAME`` is the hub user NAME."""

    async def user_for_token(self, token, use_cache=True, session_id="", *, sync=True):
        return {"kind": "user", "name": token[4:]} if token.startswith("tok-") else None


def _serve(kind: str, db: str) -> None:
    """The child: listen on a free port, print it, serve until killed."""
    from tornado import web
    from tornado.ioloop import IOLoop
    from tornado.netutil import bind_sockets
    from tornado.httpserver import HTTPServer

    if kind == "bare":
        class Bare(web.RequestHandler):
            def post(self) -> None:
                json.loads(self.request.body)
                self.finish({"stored": []})

        app = web.Application([("/services/failuremap/api/runs", Bare)])
    else:
        from failuremap_edu.instructor._service import make_app
        from failuremap_edu.instructor._store import RunStore

        app = make_app(RunStore(db), _AnyToken())
    sockets = bind_sockets(0, "127.0.0.1")
    HTTPServer(app).add_sockets(sockets)
    print(sockets[0].getsockname()[1], flush=True)
    IOLoop.current().start()


def _entry(learner: int, n: int) -> dict:
    statuses = ["pass", "fail", "pass", "fail", "pass", "pass"]
    return {"id": f"r{learner:03d}x{n:04d}", "record": "FA-100786", "variant": 1, "passed": 4, "total": 6, "statuses": statuses,
            "checks": [f"check {i}" for i in range(6)], "reasons": [None, "value", None, "value", None, None],
            "time": "2026-12-01T10:00:00+0000", "hub_user": f"learner{learner:03d}", "solve_sha256": "0" * 64,
            "solve_source": "def solve(text, stops):\n    return text, ''\n" * 5}


async def _rounds(port: int, learners: int, rounds: int, start: int = 0) -> list[float]:
    from tornado.httpclient import AsyncHTTPClient

    client = AsyncHTTPClient(force_instance=True, max_clients=learners + 10)
    url = f"http://127.0.0.1:{port}/services/failuremap/api/runs"
    samples: list[float] = []

    async def one(learner: int, n: int) -> None:
        body = json.dumps({"runs": [_entry(learner, n)]})
        started = time.perf_counter()
        r = await client.fetch(url, method="POST", body=body, headers={"Authorization": f"token tok-learner{learner:03d}"}, raise_error=False)
        samples.append(time.perf_counter() - started)
        assert r.code == 200, r.body

    try:
        for n in range(start, start + rounds):
            await asyncio.gather(*[one(i, n) for i in range(learners)])
    finally:
        client.close()
    return samples


def _p95(samples: list[float]) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]


def measure(learners: int = LEARNERS, rounds: int = ROUNDS) -> dict:
    """Start both servers, post, and return the p95s, their ratio, the service's memory and how many runs it stored."""
    import psutil

    out: dict = {}
    with tempfile.TemporaryDirectory(prefix="bench-collector-") as tmp:
        db = f"sqlite:///{Path(tmp) / 'runs.sqlite'}"
        for kind in ("bare", "collector"):
            child = subprocess.Popen([sys.executable, __file__, "serve", kind, db], stdout=subprocess.PIPE, text=True,
                                     cwd=Path(__file__).resolve().parents[1])
            try:
                port = int(child.stdout.readline())
                asyncio.run(_rounds(port, learners, 1))  # warm: connections, the database file
                samples = asyncio.run(_rounds(port, learners, rounds, start=1))
                out[kind] = _p95(samples)
                if kind == "collector":
                    mem = psutil.Process(child.pid).memory_full_info()
                    out["memory_mb"] = getattr(mem, "pss", mem.rss) / 1e6
            finally:
                child.kill()
                child.wait(10)
        from failuremap_edu.instructor._store import RunStore

        store = RunStore(db)
        out["stored"] = store.count()
        store.close()
    out["ratio"] = out["collector"] / out["bare"]
    return out


def main() -> int:
    found = measure()
    ok = found["ratio"] < RATIO_TARGET and found["memory_mb"] < MEMORY_TARGET_MB and found["stored"] == LEARNERS * (ROUNDS + 1)
    print(f"collector benchmark ({LEARNERS} learners posting at once, {ROUNDS} rounds; the hub's token check stubbed)")
    print(f"  p95 of a post: collector {found['collector'] * 1000:.1f} ms, bare tornado handler {found['bare'] * 1000:.1f} ms: "
          f"ratio {found['ratio']:.2f} (target < {RATIO_TARGET:g}: {'met' if found['ratio'] < RATIO_TARGET else 'NOT met'})")
    print(f"  the service's memory {found['memory_mb']:.0f} MB (target < {MEMORY_TARGET_MB} MB: {'met' if found['memory_mb'] < MEMORY_TARGET_MB else 'NOT met'}); "
          f"{found['stored']:,} runs stored of {LEARNERS * (ROUNDS + 1):,} posted")
    return 0 if ok else 1


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "serve":
        sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
        _serve(sys.argv[2], sys.argv[3])
    else:
        sys.exit(main())
