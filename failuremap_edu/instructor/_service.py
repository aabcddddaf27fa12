"""``failuremap-edu serve``: the class collector, a small tornado service that JupyterHub runs (``c.JupyterHub.services``).

Learners' kernels post their runs to ``PREFIX/api/runs`` with the learner's own
hub token; the hub says whose token it is (`jupyterhub.services.auth.HubAuth`),
so the run is stored under that hub user and nobody can post as another (a body
that names another user is refused). Runs are stored once by (user, run id)
(`_store.RunStore`). Instructors read ``GET PREFIX/api/runs``: hub admins, the
users and groups given with ``--instructor``/``--instructor-group``, and the
services given with ``--reader-service``. A learner reading gets their own runs only.

Routes (under ``JUPYTERHUB_SERVICE_PREFIX``, ``/services/failuremap/``):
``GET api/health`` (no token: ``{"ok": true, "runs": N}``), ``POST api/runs``
(``{"runs": [entry, …]}`` -> ``{"stored": [ids]}``), ``GET api/runs?since=SEQ``
(``{"runs": [{"seq", "user", "id", "received", "entry"}], "last": SEQ}``).
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, field
from typing import Any

from tornado import web

from .._progress import _LEARNER, _is_entry
from ._store import RunStore

__all__ = ["Access", "MAX_BODY", "MAX_RUNS", "make_app", "serve"]

MAX_BODY = 8 * 1024 * 1024
"""Bytes of one post at most (a batch of runs with their solves' source)."""
MAX_RUNS = 200
"""Runs of one post at most."""


@dataclass(frozen=True)
class Access:
    """Who may read every learner's runs, besides hub admins."""

    users: frozenset[str] = frozenset()
    groups: frozenset[str] = frozenset()
    services: frozenset[str] = frozenset()

    def reads_all(self, model: dict) -> bool:
        """Whether the hub's model of a token's owner (``/hub/api/user``) is an instructor's."""
        name = model.get("name")
        if model.get("kind") == "service":
            return name in self.services
        return bool(model.get("admin")) or name in self.users or bool(set(model.get("groups") or ()) & self.groups)


@dataclass
class _Counters:
    posts: int = 0
    refused: int = 0
    stored: int = 0
    started: float = field(default_factory=time.time)


class _Handler(web.RequestHandler):
    def initialize(self, store: RunStore, auth: Any, access: Access, counters: _Counters, lookup: Any = None) -> None:
        self.store, self.auth, self.access, self.counters, self.lookup = store, auth, access, counters, lookup

    async def _reads_all(self, model: dict) -> bool:
        """`Access.reads_all`, on the hub's full model of the user when `lookup` can get it.

        A token with few scopes (the one in an admin's own server) shows the service only the name;
        the service's own token (role scope ``read:users``) then shows whether they are an admin, and their groups.
        """
        if self.access.reads_all(model) or model.get("kind") == "service" or self.lookup is None:
            return self.access.reads_all(model)
        full = await self.lookup(model["name"])
        return bool(full) and self.access.reads_all({**full, "kind": "user", "name": model["name"]})

    def write_error(self, status_code: int, **kwargs) -> None:  # one line of JSON, never a traceback
        reason = kwargs.get("exc_info", (None, None))[1]
        message = getattr(reason, "log_message", None) or self._reason
        self.finish({"error": message})

    async def _owner(self) -> dict:
        """The hub's model of the token's owner; 401 without a token, 403 for a token the hub does not know."""
        header = self.request.headers.get("Authorization", "")
        scheme, _, token = header.partition(" ")
        if scheme.lower() not in ("token", "bearer") or not token.strip():
            raise web.HTTPError(401, "send your hub token: Authorization: token TOKEN")
        model = await self.auth.user_for_token(token.strip(), sync=False)
        if not model or not isinstance(model.get("name"), str):
            raise web.HTTPError(403, "the hub does not know this token")
        return model


class HealthHandler(_Handler):
    def get(self) -> None:
        self.finish({"ok": True, "runs": self.store.count()})


class RunsHandler(_Handler):
    async def post(self) -> None:
        model = await self._owner()
        self.counters.posts += 1
        if model.get("kind") == "service":
            self.counters.refused += 1
            raise web.HTTPError(403, "only learners post runs (this token is a service's)")
        user = model["name"]
        try:
            body = json.loads(self.request.body.decode("utf-8"))
            runs = body["runs"]
            if not isinstance(runs, list):
                raise TypeError
        except (ValueError, UnicodeDecodeError, KeyError, TypeError, RecursionError):
            self.counters.refused += 1
            raise web.HTTPError(400, 'not a post of runs: send {"runs": [run, ...]}') from None
        if len(runs) > MAX_RUNS:
            self.counters.refused += 1
            raise web.HTTPError(413, f"{len(runs)} runs in one post; at most {MAX_RUNS}")
        checked = []
        for n, entry in enumerate(runs):
            if not _is_entry(entry) or not isinstance(entry.get("id"), str) or not _LEARNER.fullmatch(entry["id"]):
                self.counters.refused += 1
                raise web.HTTPError(400, f"run {n} is not a progress-log run with an id")
            claimed = entry.get("hub_user")
            if claimed is not None and claimed != user:  # the token says who posts; a body naming another user is a forgery
                self.counters.refused += 1
                raise web.HTTPError(403, f"run {n} names another hub user than the token's")
            checked.append((entry["id"], {**entry, "hub_user": user}))
        stored = self.store.add(user, checked, time.strftime("%Y-%m-%dT%H:%M:%S%z"))
        self.counters.stored += len(checked)
        self.finish({"stored": stored, "user": user})

    async def get(self) -> None:
        model = await self._owner()
        try:
            since = int(self.get_argument("since", "0"))
        except ValueError:
            raise web.HTTPError(400, "since must be a whole number") from None
        user = None if await self._reads_all(model) else model["name"]
        if user is not None and model.get("kind") == "service":
            raise web.HTTPError(403, "this service may not read runs (give it with --reader-service)")
        found = self.store.runs(user, since)
        self.finish({
            "runs": [{"seq": r.seq, "user": r.user, "id": r.run_id, "received": r.received, "entry": r.entry} for r in found],
            "last": found[-1].seq if found else since,
            "all": user is None,
        })


def make_app(store: RunStore, auth: Any, access: Access = Access(), prefix: str = "/services/failuremap/", lookup: Any = None) -> web.Application:
    """The collector's tornado application: `auth` is a `HubAuth` (or anything with its async ``user_for_token``).

    `lookup(name)`: an async function that returns the hub's model of a user (or None), for deciding who reads.
    """
    prefix = "/" + prefix.strip("/") + "/" if prefix.strip("/") else "/"
    counters = _Counters()
    args = {"store": store, "auth": auth, "access": access, "counters": counters, "lookup": lookup}
    return web.Application(
        [(prefix + "api/health", HealthHandler, args), (prefix + "api/runs", RunsHandler, args)],
        max_body_size=MAX_BODY,
        counters=counters,
    )


def _hub_lookup(auth: Any):
    """The hub's model of a user, asked with the service's own token (its role needs ``read:users``); None when it may not."""
    from urllib.parse import quote

    from tornado.httpclient import AsyncHTTPClient, HTTPClientError

    async def lookup(name: str) -> dict | None:
        url = auth.api_url.rstrip("/") + "/users/" + quote(name, safe="")
        try:
            response = await AsyncHTTPClient().fetch(url, headers={"Authorization": f"token {auth.api_token}"}, request_timeout=10)
            return json.loads(response.body)
        except (HTTPClientError, OSError, ValueError):
            return None

    return lookup


def default_db() -> str:
    return "sqlite:///" + os.path.abspath("failuremap-runs.sqlite")


def serve(db: str | None = None, *, url: str | None = None, access: Access = Access()) -> None:
    """Run the collector until stopped, as JupyterHub starts it (its environment says where to listen and how to ask the hub)."""
    import asyncio
    from urllib.parse import urlsplit

    from jupyterhub.services.auth import HubAuth

    where = urlsplit(url or os.environ.get("JUPYTERHUB_SERVICE_URL") or "http://127.0.0.1:10101")
    prefix = os.environ.get("JUPYTERHUB_SERVICE_PREFIX", "/services/failuremap/")
    from sqlalchemy.exc import ArgumentError, OperationalError

    from .._errors import InputError

    try:
        store = RunStore(db or default_db())
    except (ArgumentError, OperationalError, ImportError) as exc:  # a URL that is not one, a database that cannot be opened
        raise InputError(f"--db {db or default_db()}: cannot open it ({str(exc).splitlines()[0][:200]})") from None
    auth = HubAuth(access_scopes=set())  # any hub user may post (as themselves); reading is decided by `access`
    app = make_app(store, auth, access, prefix, _hub_lookup(auth))

    async def main() -> None:
        app.listen(where.port or 10101, where.hostname or "127.0.0.1", xheaders=True)
        print(f"failuremap collector: listening on {where.hostname}:{where.port}{prefix}, runs in {store.engine.url!r}", flush=True)
        await asyncio.Event().wait()

    asyncio.run(main())
