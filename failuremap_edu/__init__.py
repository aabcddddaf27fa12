"""failuremap_edu: learn how ML-systems code fails, one Failure Map record at a time.

The public API is small and loads lazily, so ``import failuremap_edu`` stays cheap:
matplotlib, ipywidgets, nbformat and IPython load only when a renderer or widget
needs them.
"""

from __future__ import annotations

from importlib import import_module

__version__ = "0.1.0"

_EXPORTS = {
    "Record": "._records",
    "RecordError": "._records",
    "load_record": "._records",
    "list_records": "._records",
    "CheckSite": "._fixtures",
    "FixtureScript": "._fixtures",
    "read_fixtures": "._fixtures",
    "Observation": "._results",
    "RunResult": "._results",
    "ErrorInfo": "._results",
    "Opaque": "._values",
    "Comparison": "._results",
    "compare": "._runner",
    "Budget": "._diff",
    "Diff": "._diff",
    "diff": "._diff",
    "plot_status": "._render_plot",
    "status_figure": "._render_plot",
    "Solution": "._solution",
    "SolutionError": "._solution",
    "load_solution": "._solution",
    "run_checks": "._runner",
    "replay": "._runner",
    "ParityReport": "._parity",
    "verify_record": "._parity",
    "assert_recorded_failures": "._parity",
    "Exercise": "._exercise",
    "exercise": "._exercise",
    "FailureStory": "._story",
    "watch_it_fail": "._story",
    "progress_overview": "._progress",
    "plot_progress": "._render_plot",
    "try_call": "._runner",
}

__all__ = sorted(_EXPORTS) + ["__version__"]

from ._errors import show_input_errors_briefly as _brief  # noqa: E402 - after the names, and cheap

_brief()


def __getattr__(name: str) -> object:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'failuremap_edu' has no attribute {name!r}")
    value = getattr(import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__
