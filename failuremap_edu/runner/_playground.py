"""What a learner typed in the playground, compiled (never run here) into the code a worker runs as one check.

In the caller: `compile_inputs` reads the text with `ast` and compiles it; nothing
of it is evaluated in the caller. The worker evaluates it as it runs solve, in the
record's namespace (its helpers and classes: ``Stream(50)``, ``raises(solve, 3, 2.5)``)
with a few standard modules bound where the record's script has not bound the name,
under the check's time limit (`_session`).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from ._carried import PLAYGROUND

MODULES = ("itertools", "collections", "math", "functools", "operator", "string")
"""Standard modules the playground's expressions may name without importing them (``itertools.count()``)."""
_BIND = f"for __fm_m__ in {MODULES!r}:\n    globals().setdefault(__fm_m__, __import__(__fm_m__))\n"


@dataclass(frozen=True)
class Inputs:
    """Typed inputs, compiled: `code` runs one check labelled ``playground``; `shown` is the call as typed, for a display."""

    code: tuple
    shown: str
    whole: bool
    """The text is one expression that uses solve itself (``raises(solve, 3, 2.5)``): its value is shown, not solve's."""


def helpers(source: str) -> frozenset[str]:
    """The functions a record's script defines at its top level, besides solve and check: its helpers (``raises``)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return frozenset()
    return frozenset(n.name for n in tree.body if isinstance(n, ast.FunctionDef)) - {"solve", "check"}


def compile_inputs(text: str, helpers: frozenset[str] = frozenset()) -> Inputs:
    """Compile ``range(7), 2`` (arguments of solve) or ``raises(solve, 3, 2.5)`` (an expression that calls solve).

    The text is one expression of its own, its value shown, when it names solve or is a call of one of `helpers`
    (``first_batch_reads(3)``); otherwise it is solve's arguments.

    Raises ValueError with a one-line message for a learner when the text is not arguments a call could take.
    """
    source = text.strip()
    try:
        call = ast.parse(f"f({source}\n)", mode="eval").body
    except SyntaxError:
        raise ValueError("could not read the inputs: type arguments separated by commas, as in a call of solve") from None
    if not isinstance(call, ast.Call):
        raise ValueError("type the arguments only, separated by commas, as in a call of solve")
    names = {n.id for n in ast.walk(call) if isinstance(n, ast.Name)} - {"f"}
    one = call.args[0] if len(call.args) == 1 and not call.keywords else None
    helper = isinstance(one, ast.Call) and isinstance(one.func, ast.Name) and one.func.id in helpers
    whole = one is not None and not isinstance(one, ast.Starred) and ("solve" in names or helper)
    body = f"({source}\n)" if whole else f"solve({source}\n)"
    program = f"__fm_check__(0, lambda: {PLAYGROUND!r}, lambda: {body}, lambda: None)\n"
    try:
        code = (compile(_BIND, "<playground>", "exec"), compile(program, "<playground>", "exec"))
    except SyntaxError as exc:
        raise ValueError(f"could not read the inputs: {exc.msg}") from None
    return Inputs(code, source if whole else f"solve({source})", whole)
