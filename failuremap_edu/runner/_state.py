"""What carries over between calls of solve in one run, said as claims: shared results, real argument changes, reads, previews.

In the worker (`_session` calls it): a `Tracker` per run keeps the mutable objects
solve returned (so their identities stay unique) and notices when a later call
returns one of them again, or a container holding one. `describe_change` compares
an argument's snapshot taken before the call with the argument after it, and says
only what a learner can act on: a list sorted in place, a key added. An iterator or
a stream that solve read from is not "modified": how much was read is said apart
(`StreamRead`). `preview` takes the first items of a generator from a fresh call of
solve, never from the object the check consumes, within a time bound.

Claims travel as plain dicts (`to_plain`) and are rebuilt in the caller by
`from_plain`, which raises ValueError on anything else. Each claim's ``str()`` is
what a display says; `SharedObject.verify` decides from the values it carries.
"""

from __future__ import annotations

import copy
import itertools
import operator
import types
from collections import deque
from dataclasses import asdict, dataclass, replace
from typing import Any, Callable

from .._values import safe_repr

from .._portable import portable
from ._carried import ONE_PROCESS, PLAYGROUND, CarriedState

PREVIEW_ITEMS = 5
"""A generator preview shows at most this many items, then "…"."""
PREVIEW_TAKE = 1000
"""A preview takes up to this many items (within `PREVIEW_SECONDS`), to say whether the generator ended and after how many."""
PREVIEW_SECONDS = 1.0
"""A preview stops after this long (or the check's time limit, if shorter), and says so."""
_TRACKED = (list, dict, set, bytearray, deque)
_MAX_TRACKED = 1000
_MAX_CLAIMS = 6
_MAX_REPEATS = 2
"""At most this many results per run are repeated in a forked copy (`_previews.repeats`): a fork is not free."""
REPEAT_SECONDS = 0.05
"""Only a call that took less than this is repeated: the repeat adds its time to the run."""


@dataclass(frozen=True)
class SharedObject:
    """solve returned an object (`how` = ``same``) that an earlier call returned, one holding it (``holds``), or a new
    container whose items are the very objects an earlier call's result held (``shares``: a shallow copy).

    `earlier_value` is that object as the earlier call returned it; `value` as this call returned it (portable).
    """

    call: str
    earlier_call: str
    earlier_check: str
    type_name: str
    how: str
    earlier_value: Any = None
    value: Any = None
    kind: str = "shared"

    def __str__(self) -> str:
        what = (f"the same {self.type_name} object as" if self.how == "same"
                else f"a new {self.type_name}, whose items are the very objects in the result of" if self.how == "shares"
                else f"a {self.type_name} holding an object that was also returned by")
        return (f"{self.call} returned {what} {self.earlier_call} in check {self.earlier_check!r}: its items carry over from earlier"
                f" calls (a mutable default argument, a module-level cache or a global)."
                + ("" if self.earlier_check == PLAYGROUND else f" {ONE_PROCESS}"))  # in the playground both calls were the typed ones

    def verify(self) -> bool:
        """True when what this call returned still holds every item the earlier call had returned (in order, for a list)."""
        return holds_items(self.earlier_value, self.value) if self.how == "same" else True


@dataclass(frozen=True)
class ReturnedAgain:
    """`call` (in check `check`), made again with equal arguments, returned the very `type_name` object it had returned.

    Decided in the worker by identity (`_previews.repeats`, in a forked copy of the run), so said on a passing check too.
    """

    call: str
    check: str
    type_name: str
    kind: str = "again"

    def __str__(self) -> str:
        return (f"{self.call}, made again with equal arguments, returned the same {self.type_name} object as in check {self.check!r},"
                f" not a {self.type_name} of its own: a caller that changes one result changes the other")


@dataclass(frozen=True)
class StreamRead:
    """solve read from its argument `argument`, an iterator or a stream: `detail` says how much (``3 items``, ``read: 0 → 3``)."""

    argument: str
    type_name: str
    detail: str
    kind: str = "read"

    def __str__(self) -> str:
        return f"solve read from its argument {self.argument!r} (a {self.type_name}): {self.detail}."


@dataclass(frozen=True)
class Preview:
    """What a fresh call of solve yields: its first items (reprs), how many it yielded in all, and how the preview ended.

    `end`: ``more`` (it still had more after `count` items), ``end`` (it ended after `count`), ``slow`` (no next item
    within `seconds`), or ``raised: X: msg``. `reads`: what taking the items read from each stream argument
    (``'stream' (a Stream): read: 0 → 10 for the first value``).
    """

    call: str
    items: tuple[str, ...]
    end: str
    seconds: float = PREVIEW_SECONDS
    count: int = -1
    """How many items it yielded before the preview ended; -1: as many as `items`."""
    reads: tuple[str, ...] = ()
    kind: str = "preview"

    def __str__(self) -> str:
        count = len(self.items) if self.count < 0 else self.count
        shown = ", ".join(self.items) + (", …" if count > len(self.items) else "")
        values = f"{count:,} value{'s' * (count != 1)}"
        if self.end == "more":
            tail = f"{', '.join(self.items)}, … (more than {values})" if self.items else "…"
        elif self.end == "end":
            tail = f"{values}, then ends: {shown}" if count else "nothing: it ends at once"
        elif self.end == "slow":
            tail = (f"{values}, then no next value within {self.seconds:g} s: {shown}" if count
                    else f"no value within {self.seconds:g} s (the preview was stopped)")
        else:
            raised = self.end.removeprefix("raised: ")
            tail = f"{values}, then raises {raised}: {shown}" if count else f"nothing: it raises {raised}"
        reads = "".join(f"; taking them, solve read from its argument {r}" for r in self.reads)
        return f"{self.call} returned a generator; a fresh call of it yields {tail}{reads}"

    def verify(self) -> bool:
        """True when the claim is consistent: no more items shown than yielded, and a known way of ending."""
        count = len(self.items) if self.count < 0 else self.count
        return len(self.items) <= min(count, PREVIEW_ITEMS) and (self.end in ("more", "end", "slow") or self.end.startswith("raised: "))


@dataclass(frozen=True)
class ChangedLater:
    """A later call, `call` in check `check`, returned the very object this check compared, and so could change it."""

    call: str
    check: str
    type_name: str
    kind: str = "later"

    def __str__(self) -> str:
        return (f"a later call, {self.call} in check {self.check!r}, returned this same {self.type_name} object again: what it"
                " changed in it is not this check's result, which is shown as it was when checked")


def changed_later(observations: list) -> dict[int, ChangedLater]:
    """index -> the claim, for each observation whose value changed after its check (`final`) and was returned again later."""
    origin = {}
    for o in observations:
        same = [c for c in o.state if isinstance(c, SharedObject) and c.how == "same"]
        origin[o.index] = (same[0].earlier_call, same[0].earlier_check) if same else (o.call, o.check)
    found: dict[int, ChangedLater] = {}
    for o in observations:
        if o.final is None:
            continue
        for later in observations:
            if later.index > o.index and any(isinstance(c, SharedObject) and c.how == "same" and (c.earlier_call, c.earlier_check) == origin[o.index]
                                             for c in later.state):
                found[o.index] = ChangedLater(later.call, later.check, type(o.final[0]).__name__)
                break
    return found


def renamed(claim: Any, call: str) -> Any:
    """A preview's claim with the call as a display should name it (the playground's typed ``solve(Stream(50), 4)``)."""
    return replace(claim, call=call) if isinstance(claim, Preview) else claim


_KINDS = {"shared": SharedObject, "read": StreamRead, "preview": Preview, "carried": CarriedState, "again": ReturnedAgain}


def to_plain(claim: SharedObject | StreamRead | Preview | CarriedState | ReturnedAgain) -> dict:
    """The claim as plain data, for the pipe."""
    plain = asdict(claim)
    if isinstance(claim, Preview):
        plain["items"], plain["reads"] = list(claim.items), list(claim.reads)
    return plain


def from_plain(data: Any) -> SharedObject | StreamRead | Preview | CarriedState | ReturnedAgain:
    """A claim rebuilt from `to_plain`'s dict; ValueError for anything else (a forged frame)."""
    if type(data) is not dict or data.get("kind") not in _KINDS:
        raise ValueError("not a state claim")
    kind = _KINDS[data["kind"]]
    try:
        claim = kind(**data)
    except TypeError:
        raise ValueError("not a state claim") from None
    texts = [v for k, v in asdict(claim).items() if k not in ("earlier_value", "value", "items", "seconds", "count", "reads")]
    if not all(type(t) is str for t in texts):
        raise ValueError("not a state claim")
    if kind is Preview:
        if (type(claim.items) not in (list, tuple) or not all(type(i) is str for i in claim.items) or type(claim.seconds) not in (int, float)
                or type(claim.count) is not int or type(claim.reads) not in (list, tuple) or not all(type(r) is str for r in claim.reads)):
            raise ValueError("not a state claim")
        claim = Preview(claim.call, tuple(claim.items), claim.end, float(claim.seconds), claim.count, tuple(claim.reads))
    return claim


def holds_items(earlier: Any, later: Any) -> bool:
    """Whether `later` holds every item of `earlier`: a list's items in order (as a prefix), a dict's items, a set's members."""
    try:
        if isinstance(earlier, list) and isinstance(later, list):
            return later[: len(earlier)] == earlier
        if isinstance(earlier, dict) and isinstance(later, dict):
            return all(k in later and later[k] == v for k, v in earlier.items())
        if isinstance(earlier, (set, frozenset)) and isinstance(later, (set, frozenset)):
            return earlier <= later
    except Exception:  # noqa: BLE001 - values that cannot be compared: the claim is not verified
        return False
    return False


class Tracker:
    """The mutable objects solve returned in one run, by identity, and where each came from."""

    def __init__(self) -> None:
        self._seen: dict[int, tuple[Any, str, str, Any]] = {}
        """id -> (the object, the call, the check's label, a shallow copy as it was returned)."""
        self._held: dict[int, tuple[Any, tuple]] = {}
        """id of a mutable item of a remembered result -> (the item, kept alive so its id stays its own; that result's entry)."""
        self.label = ""
        self.pending: list[dict] = []
        """Claims (plain) for the check under way."""
        self.lazy: list[tuple[str, Callable, tuple, dict]] = []
        """Generators returned in the check under way: (call, solve, args snapshot, kwargs snapshot), for a preview."""
        self.streams: list[tuple[str, Any, Any]] = []
        """Streams passed to solve in the check under way: (argument name, snapshot before the call, the object)."""
        self.again: list[tuple[str, str, Callable, tuple, dict, Any]] = []
        """Calls to repeat at the check's end (`_previews.repeats`): (call, check, solve, args, kwargs, result)."""
        self._repeats_left = _MAX_REPEATS

    def begin(self, label: str) -> None:
        self.label, self.pending, self.lazy, self.streams, self.again = label, [], [], [], []

    def returned(self, result: Any, call: str, solve: Callable | None = None, before: tuple | None = None) -> None:
        """Note what solve returned: say so if it is, or holds, an object an earlier call returned; then remember it.
        The first `_MAX_REPEATS` new results of the run whose arguments were copied (`before`) are kept to be repeated."""
        if not isinstance(result, _TRACKED):
            return
        if self._repeats_left and before is not None and solve is not None and id(result) not in self._seen:
            self._repeats_left -= 1
            self.again.append((call, self.label, solve, *before, result))
        found = self._seen.get(id(result))
        how = "same" if found is not None else None
        if found is None and self._seen:
            # The objects in _seen are alive (it holds them), so no other live item shares one of their ids.
            items = _items(result)
            if not self._seen.keys().isdisjoint(map(id, items)):
                item = next(i for i in items if id(i) in self._seen)
                found, how = self._seen[id(item)], "holds"
            elif not self._held.keys().isdisjoint(map(id, items)):  # a shallow copy: new outside, shared inside
                item = next(i for i in items if id(i) in self._held)
                found, how = self._held[id(item)][1], "shares"
        if found is not None and not any(c.get("call") == call and c.get("earlier_call") == found[1] for c in self.pending):
            claim = SharedObject(call, found[1], found[2], type(result).__name__, how, portable(found[3]), portable(_snapshot(result)))
            self.add([to_plain(claim)])
        if found is None and len(self._seen) < _MAX_TRACKED:
            entry = self._seen[id(result)] = (result, call, self.label, _snapshot(result))
            for item in _items(result):
                if isinstance(item, _TRACKED) and len(self._held) < 10 * _MAX_TRACKED:
                    self._held.setdefault(id(item), (item, entry))

    def watch(self, args: tuple, kwargs: dict, after_args: tuple, after_kwargs: dict, names: tuple[str, ...]) -> None:
        """Streams among solve's arguments (with their snapshots): how much the check read of them is said at its end (`take`)."""
        for name, before, after in _pairs(args, kwargs, after_args, after_kwargs, names):
            if is_stream(after) and type(before) is type(after) and len(self.streams) < _MAX_CLAIMS:
                self.streams.append((name, before, after))

    def add(self, claims: list[dict]) -> None:
        """More claims for the check under way (at most `_MAX_CLAIMS`, once each)."""
        for claim in claims:
            if claim not in self.pending and len(self.pending) < _MAX_CLAIMS:
                self.pending.append(claim)

    def take(self) -> list[dict]:
        """The check's claims: shared results, and what it read of each stream passed to solve, by the check's end."""
        for name, before, after in self.streams:
            detail = read_detail(before, after)
            if detail is not None:
                self.add([to_plain(StreamRead(name, type(after).__name__, detail))])
        claims, self.pending, self.streams = self.pending, [], []
        return claims


_ITEMS_LOOKED_AT = 100
"""How many of a result's items are looked at for an object an earlier call returned (past them: no note, never a wrong one)."""


def _items(value: Any) -> list:
    try:
        return list(itertools.islice(value.values() if isinstance(value, dict) else value, _ITEMS_LOOKED_AT))
    except Exception:  # noqa: BLE001
        return []


def _snapshot(value: Any) -> Any:
    try:
        return copy.copy(value)
    except Exception:  # noqa: BLE001
        return None


def is_lazy(value: Any) -> bool:
    """Whether `value` is a generator or another one-pass iterator (its own ``__iter__``), not a container."""
    if isinstance(value, types.GeneratorType):
        return True
    kind = type(value)
    return hasattr(kind, "__next__") and getattr(kind, "__iter__", None) is not None and not isinstance(value, (str, bytes, list, tuple, dict, set))


# ------------------------------------------------------------------ argument changes


def describe_change(args: tuple, kwargs: dict, after_args: tuple, after_kwargs: dict, names: tuple[str, ...]) -> str | None:
    """What solve changed in its arguments, from a snapshot taken before the call; None when nothing a learner can act on changed.

    A change is said only for a change of value: a plain container whose value differs (with what changed: sorted in
    place, a key added), an object whose own ``==`` says it differs, or an object without one whose fields differ. A
    stream (`is_stream`) is read, not modified: `Tracker.watch` says how much was read, at the check's end.
    """
    for name, before, after in _pairs(args, kwargs, after_args, after_kwargs, names):
        try:
            change = None if is_stream(after) else _change(before, after)
        except BaseException:  # noqa: BLE001 - a hostile __eq__ or property: say nothing rather than guess
            continue
        if change is not None:
            said = change if change.startswith(":") else f": it was {safe_repr(before, 120)} and became {safe_repr(after, 120)}{change}"
            return f"solve modified its argument {name!r}{said}. The checks see the changed value, as the record's own harness does."
    return None


def _pairs(args: tuple, kwargs: dict, after_args: tuple, after_kwargs: dict, names: tuple[str, ...]) -> list[tuple[str, Any, Any]]:
    pairs = [(names[i] if i < len(names) else f"argument {i + 1}", b, a) for i, (b, a) in enumerate(zip(args, after_args))]
    return pairs + [(k, kwargs[k], after_kwargs.get(k)) for k in kwargs]


def is_stream(value: Any) -> bool:
    """An iterator, or an iterable object without its own ``==`` (a record's `Stream`): reading it changes it, and that is no mutation."""
    kind = type(value)
    return hasattr(kind, "__next__") or (kind.__eq__ is object.__eq__ and hasattr(kind, "__iter__"))


def read_detail(before: Any, after: Any) -> str | None:
    """How much of a stream was read between a snapshot and now (``3 items read``, ``read: 0 → 3``); None if nothing shows it."""
    try:
        return _read_count(before, after) or _moved(before, after)
    except BaseException:  # noqa: BLE001 - a hostile property: say nothing
        return None


def _change(before: Any, after: Any) -> str | None:
    """" (what changed)", ": a sentence of its own", "" (it changed, no more to say), or None when unchanged."""
    if type(before) is not type(after):
        return ""
    kind = type(after)
    if kind.__eq__ is object.__eq__:
        moved = _moved(before, after)
        return f": it is a {kind.__name__} whose fields changed ({moved})" if moved else None
    if _same_by_value(before, after):
        return None
    said = _what_changed(before, after)
    if not said and safe_repr(before, 120) == safe_repr(after, 120):  # the reprs do not show it: say where it changed
        places = _changed_places(before, after)
        return f": {'; '.join(places)}" if places else None
    return said


_DEPTH = 12
"""How deep `_same_by_value` and `_changed_places` look; past it a value counts as unchanged (no note, never a wrong one)."""


def _same_by_value(a: Any, b: Any, depth: int = 0) -> bool:
    """``==``, except that objects without their own ``==`` (a record's ``Param``) compare by class and fields, nested:
    a snapshot's copy of such an object is the same value as the object it was copied from."""
    if a is b or depth > _DEPTH:
        return True
    if type(a) is not type(b):
        return False
    if type(a).__eq__ is object.__eq__:
        old, new = _fields(a), _fields(b)
        return old is None or new is None or (old.keys() == new.keys() and all(_same_by_value(old[k], new[k], depth + 1) for k in old))
    if type(a) in (list, tuple):
        return len(a) == len(b) and all(_same_by_value(x, y, depth + 1) for x, y in zip(a, b))
    if type(a) is dict:
        return a.keys() == b.keys() and all(_same_by_value(a[k], b[k], depth + 1) for k in a)
    return bool(a == b)


def _changed_places(before: Any, after: Any, path: str = "", depth: int = 0) -> list[str]:
    """Where two values of the same shape differ, as ``[0].grad: [3.0, 4.0] → [0.6, 0.8]`` (at most three places)."""
    if _same_by_value(before, after, depth):
        return []
    if depth < _DEPTH and type(before) is type(after):
        if type(before).__eq__ is object.__eq__:
            old, new = _fields(before) or {}, _fields(after) or {}
            parts = (_changed_places(old.get(k), new.get(k), f"{path}.{k}", depth + 1) for k in new)
        elif type(before) in (list, tuple) and len(before) == len(after):
            parts = (_changed_places(x, y, f"{path}[{i}]", depth + 1) for i, (x, y) in enumerate(zip(before, after)))
        elif type(before) is dict and before.keys() == after.keys():
            parts = (_changed_places(before[k], after[k], f"{path}[{safe_repr(k, 40)}]", depth + 1) for k in before)
        else:
            parts = None
        if parts is not None:
            return list(itertools.islice(itertools.chain.from_iterable(parts), 3))
    return [f"{path or 'it'}: {safe_repr(before, 40)} → {safe_repr(after, 40)}"]


def _moved(before: Any, after: Any) -> str | None:
    """The fields of an object without its own ``==`` that differ, as ``read: 0 → 3``; None when none does (or it has none)."""
    old, new = _fields(before), _fields(after)
    if old is None or new is None or old == new:
        return None
    return ", ".join(f"{k}: {safe_repr(old.get(k), 40)} → {safe_repr(v, 40)}" for k, v in new.items() if old.get(k) != v) or None


def _read_count(before: Any, after: Any) -> str | None:
    hint = getattr(type(after), "__length_hint__", None)
    if hint is None:
        return None
    read = hint(before) - hint(after)
    return f"{read} item{'s' * (read != 1)} read" if read > 0 else None


def _fields(value: Any) -> dict | None:
    found = dict(getattr(value, "__dict__", {}) or {})
    for slot in getattr(type(value), "__slots__", ()):
        if isinstance(slot, str) and hasattr(value, slot):
            found[slot] = getattr(value, slot)
    if not found:
        return None
    return {k: (_Left(operator.length_hint(v, -1)) if hasattr(type(v), "__next__") else v) for k, v in found.items()}


@dataclass(frozen=True)
class _Left:
    """An iterator inside an object's fields, by how many items it has left (its identity says nothing)."""

    items: int

    def __repr__(self) -> str:
        return f"<iterator, {self.items} left>" if self.items >= 0 else "<iterator>"


def _what_changed(before: Any, after: Any) -> str:
    """The change of a plain container in words: " (sorted in place)", " (key 'z' added)", " ('c' appended)"."""
    if isinstance(before, list):
        try:
            if sorted(before) == after:
                return " (sorted in place)"
            if sorted(before, reverse=True) == after:
                return " (sorted in place, descending)"
        except TypeError:
            pass
        if not after:
            return " (emptied)"
        if before == after[: len(before)]:
            return f" ({', '.join(safe_repr(x, 40) for x in after[len(before):][:5])} appended)"
        if after == before[: len(after)]:
            return f" ({len(before) - len(after)} item{'s' * (len(before) - len(after) != 1)} removed from the end)"
        return ""
    if isinstance(before, dict):
        added = [k for k in after if k not in before]
        removed = [k for k in before if k not in after]
        changed = [k for k in after if k in before and before[k] != after[k]]
        parts = [f"key {safe_repr(k, 40)} added" for k in added[:3]] + [f"key {safe_repr(k, 40)} removed" for k in removed[:3]]
        parts += [f"{safe_repr(k, 40)}: {safe_repr(before[k], 40)} → {safe_repr(after[k], 40)}" for k in changed[:3]]
        return f" ({'; '.join(parts)})" if parts else ""
    if isinstance(before, (set, bytearray)) and isinstance(before, set):
        parts = [f"{safe_repr(x, 40)} added" for x in list(after - before)[:3]] + [f"{safe_repr(x, 40)} removed" for x in list(before - after)[:3]]
        return f" ({'; '.join(parts)})" if parts else ""
    return ""
