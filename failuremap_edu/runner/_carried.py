"""State that earlier calls of solve left behind: its mutable defaults and the module globals it names.

`Baseline` reads that state at solve's first call in a run and compares it, by
value, at each later call; where it differs, the call began from what earlier
calls left (`CarriedState`), and its result may depend on them.
"""

from __future__ import annotations

import copy
import types
from collections import deque
from dataclasses import dataclass
from typing import Any, Callable

from .._values import safe_repr, same_data

from .._portable import portable

ONE_PROCESS = ("The checks run one after another in one process, as the record's harness runs them, so what a call leaves behind"
               " is there for the next; the playground calls solve afresh each time, which is why it can show another result.")
"""Said wherever state carried over: the row's result depends on earlier checks, which the playground does not repeat."""
PLAYGROUND = "playground"
"""The label of the one check a playground run makes: calls inside it share one process, as a check's do."""

_DATA = (int, float, complex, str, bytes, bool, type(None), tuple, list, dict, set, frozenset, deque, bytearray)
_MUTABLE = (list, dict, set, deque, bytearray)
_MAX_ITEMS = 10_000
"""State bigger than this (a lookup table) is not compared: no claim, never a wrong one."""


@dataclass(frozen=True)
class CarriedState:
    """When `call` began, `where` (``its default 'seen'``, ``the global 'count'``) held `value`; at solve's first call it held `earlier_value`."""

    call: str
    where: str
    earlier_value: Any = None
    value: Any = None
    kind: str = "carried"

    def __str__(self) -> str:
        return (f"When {self.call} began, {self.where} was {safe_repr(self.value, 120)}; at solve's first call of the run it was"
                f" {safe_repr(self.earlier_value, 120)}: earlier calls changed it, so this call's result can depend on them. {ONE_PROCESS}")

    def verify(self) -> bool:
        """True when the two values differ: the state did change between the first call and this one."""
        return not same_data(self.earlier_value, self.value)


class Baseline:
    """solve's defaults and the data globals it names, as they were at its first call of the run."""

    def __init__(self, solve: Callable) -> None:
        self._solve = solve
        self._first = {where: _copied(value) for where, value in _state_of(solve).items()}

    def changed(self, call: str) -> list[CarriedState]:
        """Each piece of state whose value now differs from the first call's, as a claim about `call`."""
        now = _state_of(self._solve)
        claims = []
        for where, first in self._first.items():
            if first is _UNCOPIED or where not in now:
                continue
            try:
                same = same_data(first, now[where])
            except Exception:  # noqa: BLE001 - a value that cannot be compared: no claim
                continue
            if not same:
                claims.append(CarriedState(call, where, portable(first), portable(_copied(now[where]))))
        return claims


_UNCOPIED = object()


def _copied(value: Any) -> Any:
    try:
        return copy.deepcopy(value)
    except Exception:  # noqa: BLE001 - uncopyable state: never compared
        return _UNCOPIED


def _state_of(solve: Callable) -> dict[str, Any]:
    """where -> the live value: solve's mutable defaults, then the module globals its code names that hold plain data."""
    fn = getattr(solve, "__wrapped__", solve)
    code = getattr(fn, "__code__", None)
    if not isinstance(code, types.CodeType):
        return {}
    state: dict[str, Any] = {}
    defaults = getattr(fn, "__defaults__", None) or ()
    positional = code.co_varnames[code.co_argcount - len(defaults):code.co_argcount] if defaults else ()
    named = [*zip(positional, defaults), *(getattr(fn, "__kwdefaults__", None) or {}).items()]
    for name, value in named:
        if isinstance(value, _MUTABLE) and _small(value):
            state[f"its default {name!r}"] = value
    space = getattr(fn, "__globals__", {})
    for name in _names(code):
        value = space.get(name, _UNCOPIED)
        if type(value) in _DATA and _small(value):
            state[f"the global {name!r}"] = value
    return state


def _names(code: types.CodeType) -> list[str]:
    """The global names `code` and the code nested in it use, each once."""
    seen, stack = dict.fromkeys(code.co_names), [c for c in code.co_consts if isinstance(c, types.CodeType)]
    while stack:
        inner = stack.pop()
        seen.update(dict.fromkeys(inner.co_names))
        stack += [c for c in inner.co_consts if isinstance(c, types.CodeType)]
    return list(seen)


def _small(value: Any) -> bool:
    try:
        return not hasattr(value, "__len__") or len(value) <= _MAX_ITEMS
    except Exception:  # noqa: BLE001
        return False
