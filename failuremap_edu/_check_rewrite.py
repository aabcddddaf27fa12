"""A check script rewritten into the program the runner executes: each ``check(L, A, E)`` a hook call with lambdas.

`_fixtures` reads the script and decides what to rewrite; this module does the
rewriting with `ast` (never executing anything): ``check(L, A, E)`` becomes
``__fm_check__(site, lambda: L, lambda: A, lambda: E)``, an assignment expression
inside a check's arguments is kept in ``__fm_kept__`` and bound again where Python
would have bound it, and solve is wrapped where the script defines it.
"""

from __future__ import annotations

import ast
import copy
from dataclasses import dataclass
from types import CodeType

from ._values import escape_marks

__all__ = ["ADOPT_HOOK", "CHECK_HOOK", "KEPT_NAME", "VARIANT_NAME", "WRAP_HOOK", "CheckSite"]

CHECK_HOOK = "__fm_check__"
WRAP_HOOK = "__fm_wrap__"
ADOPT_HOOK = "__fm_adopt__"
"""Called where the script defined solve: the learner's classes of the preamble's names take the preamble's place."""
KEPT_NAME = "__fm_kept__"
VARIANT_NAME = "__fm_variant__"

@dataclass(frozen=True)
class CheckSite:
    """One ``check(...)`` call in the script's source."""

    site: int
    """Position among the script's check calls, in source order."""
    lineno: int
    end_lineno: int
    label: str
    """The label when it is a string literal, otherwise its source."""
    label_is_literal: bool
    actual_source: str
    """The actual expression as source, e.g. ``solve('hello<st', ['<stop>'])``."""
    expected_source: str
    dynamic: bool
    """Inside the body of any compound statement (a loop, ``if``, ``try``, ``with``,
    ``match``), a helper, lambda or comprehension, or a lazy operand (``x and check(...)``,
    a branch of ``a if t else b``): it may run several times, once, or not at all, so it
    cannot be counted without running. (A header, such as an ``if``'s test, runs once.)"""
    in_try: bool = False
    """Inside the body of a ``try`` that has ``except`` clauses, in the same function: an exception raised
    while its arguments are evaluated must reach those clauses, as it does under the harness."""


def _shown_source(node: ast.expr) -> str:
    """The expression's source, as ast.unparse writes it, with combining marks escaped as safe_repr escapes them.

    unparse writes a string constant with repr(), which keeps a combining accent as itself: the fixture's
    ``solve('cafe\\u0301') == solve('caf\\u00e9')`` would read as ``solve('café') == solve('café')``.
    A mark can stand only in a string there, so escaping it keeps the expression valid and the same.
    """
    return escape_marks(ast.unparse(node))


def _compile(statements: list[ast.stmt], filename: str) -> CodeType:
    module = ast.Module(body=statements, type_ignores=[])
    ast.fix_missing_locations(module)
    # dont_inherit: record code runs as `python` runs it, not under this module's
    # `from __future__ import annotations` (a @dataclass would see string annotations).
    return compile(module, filename, "exec", dont_inherit=True)


def _is_check_call(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "check"


def _walk_outside_defs(node: ast.AST):
    """Like ast.walk, but does not enter nested function or class definitions."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        for child in ast.iter_child_nodes(current):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
                continue
            stack.append(child)


def _helpers_that_check(body: list[ast.stmt]) -> set[str]:
    """Top-level functions that (directly or through each other) call check()."""
    functions = {n.name: n for n in body if isinstance(n, ast.FunctionDef) and n.name not in ("check", "solve")}
    helpers: set[str] = set()
    changed = True
    while changed:
        changed = False
        for name, fn in functions.items():
            if name in helpers:
                continue
            for stmt in fn.body:
                if any(_is_check_call(n) or _calls_any(n, helpers) for n in _walk_outside_defs(stmt)):
                    helpers.add(name)
                    changed = True
                    break
    return helpers


def _calls_any(node: ast.AST, names: set[str]) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in names


def _runs_checks(stmt: ast.stmt, helpers: set[str]) -> bool:
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return False
    return any(_is_check_call(n) or _calls_any(n, helpers) for n in _walk_outside_defs(stmt))


def _assigns_variant(stmt: ast.stmt) -> bool:
    return (
        isinstance(stmt, ast.Assign)
        and len(stmt.targets) == 1
        and isinstance(stmt.targets[0], ast.Name)
        and stmt.targets[0].id == "N"
    )


def _variant_assignment(stmt: ast.Assign) -> ast.Assign:
    new = ast.Assign(targets=stmt.targets, value=ast.Name(id=VARIANT_NAME, ctx=ast.Load()))
    return ast.copy_location(new, stmt)


def _kept_dict(first: ast.stmt) -> ast.stmt:
    """``__fm_kept__ = {}``, placed at the program's first line: where walrus values wait."""
    return _statement_at(f"{KEPT_NAME} = {{}}", first.lineno)


def _wrap_solve_after(stmt: ast.FunctionDef) -> ast.stmt:
    return _statement_at(f"solve = {WRAP_HOOK}(solve)", stmt.lineno)


def _statement_at(source: str, lineno: int) -> ast.stmt:
    """One statement of our own, placed at `lineno` of the script (so tracebacks keep the script's lines)."""
    stmt = ast.parse(source).body[0]
    for node in ast.walk(stmt):
        if hasattr(node, "lineno"):
            node.lineno = node.end_lineno = lineno
            node.col_offset = node.end_col_offset = 0
    return stmt


class _CheckRewriter(ast.NodeTransformer):
    """Turns ``check(L, A, E)`` into ``__fm_check__(site, lambda: L, lambda: A, lambda: E)``."""

    def __init__(self, param_names: list[str], fail) -> None:
        self.param_names = param_names
        self.fail = fail
        self.sites: list[CheckSite] = []
        self.solve_keywords: set[str] = set()
        self.depth = 0  # > 0 where a check may run several times, once or never
        self.keeps_walrus = False  # some check binds a name with :=
        self.tries = 0  # > 0 inside the body of a try with except clauses, in the current function

    def _nested(self, node: ast.AST) -> ast.AST:
        self.depth += 1
        try:
            return self.generic_visit(node)
        finally:
            self.depth -= 1

    def _nested_list(self, nodes: list) -> list:
        self.depth += 1
        try:
            return [new for new in (self.visit(n) for n in nodes) if new is not None]
        finally:
            self.depth -= 1

    def _header_once(self, node: ast.stmt) -> ast.AST:
        """A compound statement whose header runs exactly once (if reached) and whose body may not."""
        header = {"If": "test", "For": "iter", "AsyncFor": "iter", "Match": "subject"}.get(type(node).__name__)
        if header is not None:
            setattr(node, header, self.visit(getattr(node, header)))
        else:  # with / async with: the context expressions
            node.items = [self.visit(item) for item in node.items]
        for name, value in ast.iter_fields(node):
            if name not in (header, "items") and isinstance(value, list):  # body, orelse, cases
                setattr(node, name, self._nested_list(value))
        return node

    visit_If = visit_For = visit_AsyncFor = visit_Match = visit_With = visit_AsyncWith = _header_once
    # Everything else compound, and every function, lambda, class or comprehension body.
    visit_While = _nested

    def _new_scope(self, node: ast.AST) -> ast.AST:
        """A function, lambda or class body: a ``try`` around its definition does not catch what it raises later."""
        tries, self.tries = self.tries, 0
        try:
            return self._nested(node)
        finally:
            self.tries = tries

    visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = visit_ClassDef = _new_scope

    def visit_Try(self, node: ast.Try) -> ast.AST:
        self.tries += bool(node.handlers)
        try:
            node.body = self._nested_list(node.body)
        finally:
            self.tries -= bool(node.handlers)
        for name in ("handlers", "orelse", "finalbody"):
            setattr(node, name, self._nested_list(getattr(node, name)))
        return node

    if hasattr(ast, "TryStar"):  # Python 3.11+
        visit_TryStar = visit_Try
    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _nested

    def visit_IfExp(self, node: ast.IfExp) -> ast.AST:
        node.test = self.visit(node.test)
        node.body, node.orelse = self._nested_list([node.body, node.orelse])
        return node

    def visit_BoolOp(self, node: ast.BoolOp) -> ast.AST:
        first, *lazy = node.values  # `a and check(...)`: only the first operand always runs
        node.values = [self.visit(first), *self._nested_list(lazy)]
        return node

    def visit_Call(self, node: ast.Call) -> ast.AST:
        if not _is_check_call(node):
            if isinstance(node.func, ast.Name) and node.func.id == "solve":
                self.solve_keywords.update(k.arg for k in node.keywords if k.arg)
            return self.generic_visit(node)
        label, actual, expected = self._bind(node)
        for sub in ast.walk(actual):
            if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name) and sub.func.id == "solve":
                self.solve_keywords.update(k.arg for k in sub.keywords if k.arg)
        site = len(self.sites)
        literal = isinstance(label, ast.Constant) and isinstance(label.value, str)
        self.sites.append(
            CheckSite(
                site=site,
                lineno=node.lineno,
                end_lineno=node.end_lineno or node.lineno,
                label=label.value if literal else ast.unparse(label),
                label_is_literal=literal,
                actual_source=_shown_source(actual),
                expected_source=_shown_source(expected),
                dynamic=self.depth > 0,
                in_try=self.tries > 0,
            )
        )
        parts = [label, actual, expected]
        targets = _walrus_targets(parts)
        if targets:
            self.keeps_walrus = True
            keep = _KeepWalrus(site, targets)
            parts = [keep.visit(copy.deepcopy(part)) for part in parts]
        thunks = [ast.Lambda(args=_no_args(), body=part) for part in parts]
        call = ast.copy_location(
            ast.Call(func=ast.Name(id=CHECK_HOOK, ctx=ast.Load()), args=[ast.Constant(site), *thunks], keywords=[]),
            node,
        )
        if not targets:
            return call
        # (__fm_check__(...), (res := __fm_kept__.pop(key)) if key in __fm_kept__ else None, ...)[0]
        binds = [
            ast.IfExp(
                test=ast.Compare(left=_kept_key(site, name), ops=[ast.In()], comparators=[_kept_dict_name()]),
                body=ast.NamedExpr(
                    target=ast.Name(id=name, ctx=ast.Store()),
                    value=ast.Call(func=ast.Attribute(value=_kept_dict_name(), attr="pop", ctx=ast.Load()), args=[_kept_key(site, name)], keywords=[]),
                ),
                orelse=ast.Constant(None),
            )
            for name in targets
        ]
        wrapped = ast.Subscript(value=ast.Tuple(elts=[call, *binds], ctx=ast.Load()), slice=ast.Constant(0), ctx=ast.Load())
        return ast.copy_location(wrapped, node)

    def _bind(self, node: ast.Call) -> tuple[ast.expr, ast.expr, ast.expr]:
        if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
            raise self.fail(f"line {node.lineno}: check() with *args or **kwargs cannot be read statically")
        bound: dict[str, ast.expr] = dict(zip(self.param_names, node.args))
        for keyword in node.keywords:
            bound[keyword.arg] = keyword.value
        missing = [name for name in self.param_names if name not in bound]
        if missing or len(node.args) > 3:
            raise self.fail(f"line {node.lineno}: check() must be called with (label, actual, expected)")
        return bound[self.param_names[0]], bound[self.param_names[1]], bound[self.param_names[2]]


def _walrus_targets(parts: list[ast.expr]) -> list[str]:
    """Names that ``:=`` binds in a check's arguments (not inside a nested lambda: its own scope)."""
    names: list[str] = []
    stack = list(reversed(parts))
    while stack:
        node = stack.pop()
        if isinstance(node, ast.NamedExpr) and node.target.id not in names:
            names.append(node.target.id)
        stack.extend(reversed([c for c in ast.iter_child_nodes(node) if not isinstance(c, ast.Lambda)]))
    return names


def _kept_dict_name() -> ast.Name:
    return ast.Name(id=KEPT_NAME, ctx=ast.Load())


def _kept_key(site: int, name: str) -> ast.Constant:
    return ast.Constant(f"{site} {name}")


class _KeepWalrus(ast.NodeTransformer):
    """Inside one check's thunks: ``x := v`` keeps v in ``__fm_kept__``, and reads of x see it."""

    def __init__(self, site: int, targets: list[str]) -> None:
        self.site = site
        self.targets = set(targets)
        self.shadowed: list[set[str]] = []  # iteration variables of the comprehensions we are in

    def visit_Lambda(self, node: ast.Lambda) -> ast.AST:
        return node  # its own scope: its walruses bind there, as in the script

    def visit_NamedExpr(self, node: ast.NamedExpr) -> ast.AST:
        # (__fm_kept__.__setitem__(key, value), __fm_kept__[key])[1]
        key = _kept_key(self.site, node.target.id)
        store = ast.Call(
            func=ast.Attribute(value=_kept_dict_name(), attr="__setitem__", ctx=ast.Load()), args=[key, self.visit(node.value)], keywords=[]
        )
        read = ast.Subscript(value=_kept_dict_name(), slice=_kept_key(self.site, node.target.id), ctx=ast.Load())
        return ast.copy_location(ast.Subscript(value=ast.Tuple(elts=[store, read], ctx=ast.Load()), slice=ast.Constant(1), ctx=ast.Load()), node)

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if not isinstance(node.ctx, ast.Load) or node.id not in self.targets or any(node.id in s for s in self.shadowed):
            return node
        # (__fm_kept__[key] if key in __fm_kept__ else x)
        key = _kept_key(self.site, node.id)
        kept = ast.IfExp(
            test=ast.Compare(left=key, ops=[ast.In()], comparators=[_kept_dict_name()]),
            body=ast.Subscript(value=_kept_dict_name(), slice=_kept_key(self.site, node.id), ctx=ast.Load()),
            orelse=node,
        )
        return ast.copy_location(kept, node)

    def _comprehension(self, node: ast.AST) -> ast.AST:
        generators = node.generators
        generators[0].iter = self.visit(generators[0].iter)  # evaluated in the enclosing scope
        self.shadowed.append({n.id for g in generators for n in ast.walk(g.target) if isinstance(n, ast.Name)})
        try:
            for i, generator in enumerate(generators):
                if i:
                    generator.iter = self.visit(generator.iter)
                generator.ifs = [self.visit(test) for test in generator.ifs]
            for name in ("elt", "key", "value"):
                if hasattr(node, name):
                    setattr(node, name, self.visit(getattr(node, name)))
        finally:
            self.shadowed.pop()
        return node

    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _comprehension


def _no_args() -> ast.arguments:
    return ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[])
