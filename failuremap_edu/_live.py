"""The exercises alive in this process: found again by record and options, and let go of when nothing uses them.

One object, `LIVE`, made at import and empty until an exercise is made. Its lifetime is the
process's; what it holds is not. It holds the newest exercise (the one a later cell means
by ``fm.exercise("ID")``, and the one the cell watcher checks a bare ``def solve`` for), and
every other exercise only weakly: an exercise lives as long as something uses it (a variable,
its panel's widgets while they are shown) and is then collected, with its panel.
"""

from __future__ import annotations

import weakref
from typing import Any, Hashable

__all__ = ["LIVE", "Live"]


class Live:
    """Exercises by key (weakly), in the order they were made (weakly), and the newest (strongly)."""

    def __init__(self) -> None:
        self._by_key: "weakref.WeakValueDictionary[Hashable, Any]" = weakref.WeakValueDictionary()
        self._made: list[weakref.ref] = []
        self.newest: Any = None
        """The exercise made or asked for last: held, so that the next cell finds it with its state."""

    def get(self, key: Hashable) -> Any:
        """The live exercise stored under `key`, or None."""
        return self._by_key.get(key)

    def put(self, key: Hashable, exercise: Any) -> None:
        """Store `exercise` under `key` (weakly)."""
        self._by_key[key] = exercise

    def made(self, exercise: Any) -> None:
        """A new exercise exists: it is the newest now."""
        self._made = [ref for ref in self._made if ref() is not None] + [weakref.ref(exercise)]
        self.newest = exercise

    def exercises(self) -> list[Any]:
        """The exercises still alive, oldest first."""
        return [e for e in (ref() for ref in self._made) if e is not None]


LIVE = Live()
