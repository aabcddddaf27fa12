"""The process boundary: run a record's checks against a `solve` that may do anything.

In the caller (a kernel, the CLI):
  _api       the public calls (`run_checks`, `replay`, `try_call`, `compare`; `run_script`, a whole script in a fresh interpreter), time limits,
             supervision of workers, and the in-process fallback where there is no fork
  _warm      the worker server (a private forkserver), the standby worker, the sweep
  _oneshot   workers of a command that runs once and exits: plain forks of it, no server, no standby
  _sandbox   workers in a bubblewrap sandbox (``--sandbox``): what the sandbox holds, and how one starts
  _platform  which isolation this platform has, and which one a run uses
  _procs     the process tree (psutil): children, the fork-loop count, stopped or gone processes

In the worker, next to learner code (the server preloads `_serve` and what it imports):
  _serve     the server's preload: it becomes the subreaper of everything below it
  _worker    one worker from the inside: start, hardening (limits), one run
  _session   one check session: the fixture program, one check at a time

On both sides of the pipe:
  _channel   worker -> supervisor messages: framed pickles and the unpickler's allow-list
  _byvalue   a notebook's solve, pickled by value in the caller and loaded in the worker

Importing this package loads nothing: the names below load `_api` on first use, so
the worker's preload stays what `_serve` needs, and platforms without fork never
import multiprocessing.
"""

from __future__ import annotations

from importlib import import_module

_EXPORTS = {
    "run_checks": "._api",
    "replay": "._api",
    "replay_many": "._api",
    "try_call": "._api",
    "run_script": "._api",
    "ScriptRun": "._api",
    "compare": "._api",
    "parse_call_arguments": "._api",
    "warm_up": "._api",
    "one_shot": "._warm",
    "DEFAULT_TIMEOUT": "._api",
    "SHORT_LIMIT": "._api",
    "isolation_available": "._platform",
    "isolation_default": "._platform",
    "chosen_isolation": "._platform",
    "INPROCESS": "._platform",
    "PROCESS": "._platform",
    "SANDBOX": "._platform",
    "BWRAP": "._sandbox",
    "MISSING_BWRAP": "._sandbox",
    "global_names": "._byvalue",
}
"""What the rest of the package may use of the runner: nothing outside runner/ imports its modules."""
__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> object:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'failuremap_edu.runner' has no attribute {name!r}")
    return getattr(import_module(module, __name__), name)


def __dir__() -> list[str]:
    return __all__
