"""failuremap_edu: learn how ML-systems code fails, one Failure Map record at a time.

The public API is small and loads lazily, so ``import failuremap_edu`` stays cheap:
matplotlib, ipywidgets, nbformat and IPython load only when a renderer or widget
needs them.
"""

from __future__ import annotations

from importlib import import_module

__version__ = "0.1.0"

_EXPORTS = {
    # in a notebook cell
    "exercise": "._cell",
    "Exercise": "._cell",
    "watch_it_fail": "._story",
    "try_call": ".runner",
    "progress_overview": "._progress_export",
    "plot_progress": ".render._plot",
    # in a script
    "load_record": "._records",
    "list_records": "._records",
    "load_solution": "._solution",
    "run_checks": ".runner",
    "replay": ".runner",
    "verify_record": "._parity",
    "diff": "._diff",
    # what they return
    "Record": "._records",
    "RunResult": "._results",
    "Observation": "._results",
    "ErrorInfo": "._results",
    "CallResult": "._results",
    "Comparison": "._results",
    "Diff": "._diff",
    "FailureStory": "._story",
    "ParityReport": "._parity",
    # what they raise
    "RecordError": "._records",
    "SolutionError": "._solution",
}
"""The public API, loaded lazily. Everything else is reachable under its module or
subpackage (`failuremap_edu.runner`, `failuremap_edu.render`) and is not promised."""

__all__ = sorted(_EXPORTS) + ["__version__"]



def __getattr__(name: str) -> object:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'failuremap_edu' has no attribute {name!r}")
    from ._errors import show_input_errors_briefly  # the first use of a public name, in IPython: the `solve` hint

    show_input_errors_briefly()
    value = getattr(import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__
