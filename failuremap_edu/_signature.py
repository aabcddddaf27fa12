"""Parameter lists, compared the way a caller experiences them.

A record states the shape of `solve` as `contract_signature` (for example
``text, stops``). A learner's `solve` "fits" when every call the contract allows
also works on the learner's function: the same number of positional arguments,
defaults where the contract lets callers leave an argument out, and the same
names where callers pass arguments by keyword. Parameter *names* of purely
positional arguments are not enforced: fixtures call positionally, and insisting
on the record author's naming would only produce noise for learners.

This module is pure: it parses text with `ast` and never runs anything.
"""

from __future__ import annotations

import ast
import inspect
from dataclasses import dataclass
from typing import Callable, Iterable

from ._values import clip, safe_repr

POSITIONAL_ONLY = "positional-only"
POSITIONAL = "positional"
KEYWORD_ONLY = "keyword-only"
VAR_POSITIONAL = "*args"
VAR_KEYWORD = "**kwargs"

_INSPECT_KINDS = {
    inspect.Parameter.POSITIONAL_ONLY: POSITIONAL_ONLY,
    inspect.Parameter.POSITIONAL_OR_KEYWORD: POSITIONAL,
    inspect.Parameter.KEYWORD_ONLY: KEYWORD_ONLY,
    inspect.Parameter.VAR_POSITIONAL: VAR_POSITIONAL,
    inspect.Parameter.VAR_KEYWORD: VAR_KEYWORD,
}


@dataclass(frozen=True)
class Param:
    """One parameter: enough to decide whether a call binds, nothing more."""

    name: str
    kind: str
    has_default: bool = False
    default_source: str = ""
    """The default as written, for messages only (never evaluated)."""

    def __str__(self) -> str:
        if self.kind == VAR_POSITIONAL:
            return "*" + self.name
        if self.kind == VAR_KEYWORD:
            return "**" + self.name
        if self.has_default:
            return f"{self.name}={self.default_source or '…'}"
        return self.name


@dataclass(frozen=True)
class Params:
    """An ordered parameter list, as written in a ``def``."""

    params: tuple[Param, ...]

    def __str__(self) -> str:
        parts: list[str] = []
        kinds = [p.kind for p in self.params]
        for i, p in enumerate(self.params):
            if p.kind == KEYWORD_ONLY and VAR_POSITIONAL not in kinds[:i] and (
                i == 0 or kinds[i - 1] != KEYWORD_ONLY
            ):
                parts.append("*")
            parts.append(str(p))
            if p.kind == POSITIONAL_ONLY and (
                i + 1 == len(self.params) or self.params[i + 1].kind != POSITIONAL_ONLY
            ):
                parts.append("/")
        return ", ".join(parts)

    @property
    def positional(self) -> tuple[Param, ...]:
        return tuple(p for p in self.params if p.kind in (POSITIONAL_ONLY, POSITIONAL))

    @property
    def keyword_only(self) -> tuple[Param, ...]:
        return tuple(p for p in self.params if p.kind == KEYWORD_ONLY)

    def has(self, kind: str) -> bool:
        return any(p.kind == kind for p in self.params)

    def named(self, name: str) -> Param | None:
        for p in self.params:
            if p.name == name and p.kind in (POSITIONAL, KEYWORD_ONLY):
                return p
        return None

    @classmethod
    def from_ast(cls, args: ast.arguments) -> "Params":
        out: list[Param] = []
        positional = list(args.posonlyargs) + list(args.args)
        defaults: list[ast.expr | None] = [None] * (len(positional) - len(args.defaults))
        defaults += list(args.defaults)
        for i, (arg, default) in enumerate(zip(positional, defaults)):
            kind = POSITIONAL_ONLY if i < len(args.posonlyargs) else POSITIONAL
            out.append(_param(arg.arg, kind, default))
        if args.vararg is not None:
            out.append(Param(args.vararg.arg, VAR_POSITIONAL))
        for arg, default in zip(args.kwonlyargs, args.kw_defaults):
            out.append(_param(arg.arg, KEYWORD_ONLY, default))
        if args.kwarg is not None:
            out.append(Param(args.kwarg.arg, VAR_KEYWORD))
        return cls(tuple(out))

    @classmethod
    def from_callable(cls, fn: Callable) -> "Params":
        """Read a live function's parameters (raises ValueError when Python cannot)."""
        try:
            sig = inspect.signature(fn)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"cannot read the parameters of {fn!r}: {exc}") from None
        out = []
        for p in sig.parameters.values():
            has_default = p.default is not inspect.Parameter.empty
            out.append(
                Param(
                    p.name,
                    _INSPECT_KINDS[p.kind],
                    has_default,
                    safe_repr(p.default, 40) if has_default else "",
                )
            )
        return cls(tuple(out))


def _param(name: str, kind: str, default: ast.expr | None) -> Param:
    if default is None:
        return Param(name, kind)
    return Param(name, kind, True, ast.unparse(default))


def parse_params(text: str) -> Params:
    """Parse a parameter list such as ``text, stops=(), *, strict=False``.

    Raises ValueError with a one-line reason when the text is not a parameter list.
    """
    if not isinstance(text, str):
        raise ValueError("must be a string such as 'text, stops'")
    if "\n" in text or "\r" in text:
        raise ValueError("must be a single line such as 'text, stops'")
    try:
        tree = ast.parse(f"def _({text}):\n    pass\n")
    except SyntaxError:
        raise ValueError(f"{clip(text, 60)!r} is not a Python parameter list") from None
    fn = tree.body[0]
    if not isinstance(fn, ast.FunctionDef) or len(tree.body) != 1:
        raise ValueError(f"{clip(text, 60)!r} is not a Python parameter list")
    return Params.from_ast(fn.args)


def mismatch(contract: Params, candidate: Params, keywords_used: Iterable[str] = ()) -> str | None:
    """Why `candidate` cannot stand in for `contract`, or None when it can.

    `keywords_used` are the argument names the fixtures pass by keyword; such
    names must exist in the candidate even when the contract also allows them
    positionally.
    """
    c_pos, k_pos = contract.positional, candidate.positional
    k_varargs, k_varkw = candidate.has(VAR_POSITIONAL), candidate.has(VAR_KEYWORD)

    if contract.has(VAR_POSITIONAL) and not k_varargs:
        return f"the contract ({contract}) accepts any number of positional arguments; add *{_var_name(contract, VAR_POSITIONAL)}"
    if contract.has(VAR_KEYWORD) and not k_varkw:
        return f"the contract ({contract}) accepts any keyword argument; add **{_var_name(contract, VAR_KEYWORD)}"
    if len(k_pos) < len(c_pos) and not k_varargs:
        return (
            f"takes {_count(len(k_pos), 'positional argument')} ({candidate}) "
            f"but the contract passes up to {len(c_pos)} ({contract})"
        )
    for i, cp in enumerate(c_pos):
        if i >= len(k_pos):
            break
        kp = k_pos[i]
        if cp.has_default and not kp.has_default:
            return (
                f"parameter {kp.name!r} needs a default: the contract ({contract}) "
                f"lets callers leave {cp.name!r} out"
            )
    for kp in k_pos[len(c_pos):]:
        if not kp.has_default:
            return f"requires {kp.name!r}, which the contract ({contract}) never passes"

    wanted = {p.name: p for p in contract.keyword_only}
    for name in keywords_used:
        cp = contract.named(name)
        if cp is not None:
            wanted.setdefault(name, cp)
    for name, cp in wanted.items():
        kp = candidate.named(name)
        if kp is None:
            if k_varkw:
                continue
            return f"has no parameter {name!r}, which callers pass by keyword ({contract})"
        if cp.kind == POSITIONAL and kp.kind == POSITIONAL:
            if c_pos.index(cp) != k_pos.index(kp):
                return f"parameter {name!r} is in a different position than in the contract ({contract})"
        if cp.has_default and not kp.has_default:
            return f"parameter {name!r} needs a default: the contract ({contract}) lets callers leave it out"
    for kp in candidate.keyword_only:
        if not kp.has_default and kp.name not in wanted:
            return f"requires keyword {kp.name!r}, which the contract ({contract}) never passes"
    return None


def _var_name(params: Params, kind: str) -> str:
    return next(p.name for p in params.params if p.kind == kind)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")
