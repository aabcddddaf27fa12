"""One display mixin: every object shown in a notebook has a text/plain and a text/html form.

As rich's ``JupyterMixin`` does, the mixin holds no rendering itself: a class names
its renderers (``"render._text:render_run"``), and they are imported only when the
object is shown, so ``import failuremap_edu`` stays cheap and results stay plain
data. ``include``/``exclude`` are honoured, so a front asking only for text never
pays for the HTML.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any, ClassVar

__all__ = ["Shown"]


class Shown:
    """Mixin: ``str()``, IPython's pretty printer and Jupyter's mime bundle through named renderers."""

    _text_renderer: ClassVar[str | None] = None
    """``"module:function"`` under failuremap_edu giving the text form; None: the object's repr."""
    _html_renderer: ClassVar[str | None] = None
    """``"module:function"`` giving the HTML form; None: no HTML form."""

    def _render_args(self) -> tuple:
        """What the renderers are called with (the object itself, unless a class says otherwise)."""
        return (self,)

    def _render(self, spec: str) -> Any:
        module, _, function = spec.partition(":")
        return getattr(import_module(f".{module}", "failuremap_edu"), function)(*self._render_args())

    def __str__(self) -> str:
        return self._render(self._text_renderer) if self._text_renderer else repr(self)

    def _repr_pretty_(self, printer, cycle: bool) -> None:
        printer.text(str(self))

    def _repr_html_(self) -> str | None:
        return self._render(self._html_renderer) if self._html_renderer else None

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict:
        wanted = {"text/plain": str, "text/html": Shown._repr_html_}
        bundle = {}
        for mime, render in wanted.items():
            if (include and mime not in include) or (exclude and mime in exclude):
                continue
            value = render(self)
            if value is not None:
                bundle[mime] = value
        return bundle
