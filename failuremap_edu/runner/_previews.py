"""Fresh calls of solve run apart (forked), bounded in time: a preview of what a returned generator yields, and a repeat of
a call whose result is a list, dict or set, to see whether an equal call returns that very object again."""

from __future__ import annotations

import contextlib
import copy
import json
import os
import select
import signal
import threading
import time
from typing import Callable

from .._values import safe_repr
from ._state import PREVIEW_ITEMS, PREVIEW_SECONDS, PREVIEW_TAKE, Preview, ReturnedAgain, _pairs, is_stream, read_detail, to_plain


def previews(lazy: list[tuple[str, Callable, tuple, dict]], limit: float, guard=None, names: tuple[str, ...] = ()) -> list[dict]:
    """`preview` of each generator in `lazy` ((call, solve, args, kwargs)), each in a forked copy of this process.

    The fresh call runs apart, so nothing it does (a default list it appends to, a global it counts in) reaches the
    checks that follow, which must see what the record's own harness sees. Where a process cannot fork (Pyodide,
    Windows), no preview: `guard` is kept for the signature's callers and not used. `names` are solve's parameters, to name
    the stream arguments the preview read from.
    """
    if not lazy or not hasattr(os, "fork"):
        return []
    found = [_forked_preview(solve, args, kwargs, call, limit, names) for call, solve, args, kwargs in lazy]
    return [claim for claim in found if claim is not None]


def repeats(again: list[tuple[str, str, Callable, tuple, dict, object]], limit: float) -> list[dict]:
    """`ReturnedAgain` for each call in `again` ((call, check, solve, args, kwargs, result)) that, made again with equal
    arguments in a forked copy of this process, returns the very object it returned (`is`): a cache that hands out one
    object. Nothing the repeat does reaches the checks that follow; where a process cannot fork, no claim."""
    if not again or not hasattr(os, "fork"):
        return []
    found = []
    for call, check, solve, args, kwargs, result in again:
        def repeat(solve=solve, args=args, kwargs=kwargs, result=result, call=call, check=check):
            with _bounded(min(limit, PREVIEW_SECONDS)):
                same = solve(*copy.deepcopy(args), **copy.deepcopy(kwargs)) is result
            return to_plain(ReturnedAgain(call, check, type(result).__name__)) if same else None
        claim = _forked(repeat, min(limit, PREVIEW_SECONDS))
        if claim is not None and claim.get("kind") == "again":
            found.append(claim)
    return found


def _forked_preview(solve: Callable, args: tuple, kwargs: dict, call: str, limit: float, names: tuple[str, ...] = ()) -> dict | None:
    """`preview` run in a child process; the parent waits at most the preview's bound and a second, then ends it."""
    seconds = min(limit, PREVIEW_SECONDS)
    claim = _forked(lambda: preview(solve, args, kwargs, call, limit, names=names), seconds)
    return claim if claim is not None else to_plain(Preview(call, (), "slow", seconds))


def _forked(fn: Callable[[], dict | None], seconds: float) -> dict | None:
    """What `fn` returns, run in a child process (None if it fails, or sends nothing within `seconds` and a second)."""
    read, write = os.pipe()
    try:
        pid = os.fork()
    except OSError:
        os.close(read)
        os.close(write)
        return None
    if pid == 0:  # the child: one claim, sent as JSON, then gone without running any exit handler of the parent's
        try:
            os.close(read)
            claim = None
            with contextlib.suppress(BaseException):  # learner code: a failure is no claim
                claim = fn()
            os.write(write, json.dumps(claim).encode("utf-8")[:1_000_000])
        finally:
            os._exit(0)
    os.close(write)
    chunks: list[bytes] = []
    deadline = time.monotonic() + seconds + 1.0
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([read], [], [], left)[0]:
                break
            chunk = os.read(read, 65536)
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(read)
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        os.waitpid(pid, 0)
    try:
        return json.loads(b"".join(chunks)) if chunks else None
    except ValueError:
        return None


def _bounded(seconds: float):
    """SIGALRM after `seconds` where the process can set it (the parent ends the child at its deadline in any case)."""
    return _alarm(seconds) if _can_alarm() else contextlib.nullcontext()


def preview(solve: Callable, args: tuple, kwargs: dict, call: str, limit: float, guard=None, names: tuple[str, ...] = ()) -> dict | None:
    """What a fresh call ``solve(*args, **kwargs)`` yields, within `limit` seconds, as a plain claim: its first `PREVIEW_ITEMS`
    items, how many it yields up to `PREVIEW_TAKE` and whether it ended, and what taking them read from stream arguments.

    `guard` (the in-process trace limit, a context manager factory) bounds it where given; otherwise SIGALRM on the main
    thread. Where neither is available, no preview (None): learner code never runs unbounded here.
    """
    seconds = min(limit, PREVIEW_SECONDS)
    bound = guard if guard is not None else (_alarm(seconds) if _can_alarm() else None)
    if bound is None:
        return None
    items: list[str] = []
    count, end, reads = 0, "more", []
    fresh_args, fresh_kwargs = copy.deepcopy(args), copy.deepcopy(kwargs)
    streams = [(n, b, a) for n, b, a in _pairs(args, kwargs, fresh_args, fresh_kwargs, names) if is_stream(a) and type(a) is type(b)]
    try:
        with bound:
            it = iter(solve(*fresh_args, **fresh_kwargs))
            for _ in range(PREVIEW_TAKE):
                try:
                    item = next(it)
                except StopIteration:
                    end = "end"
                    break
                count += 1
                if count <= PREVIEW_ITEMS:
                    items.append(safe_repr(item, 80))
                if count == 1:
                    reads = [read_detail(before, after) for _, before, after in streams]
            else:
                try:
                    next(it)
                except StopIteration:
                    end = "end"
    except _PreviewOver:
        end = "slow"
    except BaseException as exc:  # noqa: BLE001 - learner code (a CheckTimeout of the in-process guard too)
        end = "slow" if type(exc).__name__ == "CheckTimeout" else f"raised: {type(exc).__name__}: {safe_repr(str(exc), 120)[1:-1]}"
    said = []
    for i, (name, before, after) in enumerate(streams):
        first, total = (reads[i] if i < len(reads) else None), read_detail(before, after)
        if total is None:
            continue
        kind = type(after).__name__
        if first is not None and count > 1 and first != total:
            said.append(f"{name!r} (a {kind}): {first} for the first value, {total} for all {count:,}")
        else:
            said.append(f"{name!r} (a {kind}): {total}" + (", all of it for the first value" if count > 1 and first == total else ""))
    return to_plain(Preview(call, tuple(items), end, seconds, count, tuple(said)))


class _PreviewOver(BaseException):
    """Raised by the preview's alarm."""


def _can_alarm() -> bool:
    return hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()


@contextlib.contextmanager
def _alarm(seconds: float):
    def over(signum, frame):
        raise _PreviewOver

    previous = signal.signal(signal.SIGALRM, over)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
