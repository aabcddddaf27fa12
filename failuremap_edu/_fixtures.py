"""Fixtures: what a record's check script checks, read with `ast` and never executed.

A record script has a fixed anatomy::

    import json                       # preamble: imports, helpers, the harness
    N = 1                             #   (N is overridden by the variant)
    observations = []
    def solve(...): ...               # the implementation under test
    def check(label, actual, expected): ...
    a = 'a' + str(N)                  # more preamble
    check('label', solve(...), [a])   # fixture statements (also inside loops)
    print(json.dumps(...))            # epilogue: reporting only
    raise SystemExit(...)

This module splits a script into those parts and builds the *program* the runner
executes: preamble and fixture statements in their original order and at their
original line numbers (so tracebacks match the recorded ones), with every
``check(L, A, E)`` call rewritten to ``__fm_check__(site, lambda: L, lambda: A,
lambda: E)``. The lambdas let the runner evaluate the label first, time and
sandbox only the actual, and skip checks that an earlier worker already reported.

A lambda is a scope of its own, so an assignment expression inside a check's
arguments (``check('a', (res := solve(x)), ...); check('b', res, ...)``) would
bind `res` inside the lambda, and the next check would not see it. Lambdas cannot
declare ``global`` or ``nonlocal``, so the rewrite moves the binding out instead:
inside the lambda the value is kept in ``__fm_kept__`` (a dict in the program's
namespace), and right after the ``__fm_check__`` call, at the original place,
``(res := __fm_kept__.pop(key)) if key in __fm_kept__ else None`` binds it where
Python would have: the module, the helper function, or (through a comprehension,
PEP 572) the scope around it. When the value was never computed (solve raised, or
the check was skipped), the name keeps what it had, as a failed assignment would.
Reads of the name inside the same check see the kept value first.
"""

from __future__ import annotations

import ast
import copy
import linecache
from dataclasses import dataclass, field
from functools import lru_cache
from types import CodeType

from ._code import first_line
from ._records import Record, RecordError
from ._signature import Params
from ._values import escape_marks

__all__ = ["CheckSite", "FixtureScript", "compared_expression", "is_bare_call", "read_fixtures"]

CHECK_HOOK = "__fm_check__"
WRAP_HOOK = "__fm_wrap__"
ADOPT_HOOK = "__fm_adopt__"
"""Called where the script defined solve: the learner's classes of the preamble's names take the preamble's place."""
KEPT_NAME = "__fm_kept__"
VARIANT_NAME = "__fm_variant__"
VARIANTS = (1, 2, 3, 4, 5)


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


@dataclass(frozen=True)
class FixtureScript:
    """The parts of one implementation's script that the runner needs."""

    record_id: str
    implementation: str
    filename: str
    """Pseudo file name under which the program is compiled and shown in tracebacks."""
    sites: tuple[CheckSite, ...]
    preamble_source: str
    solve_source: str
    solve_line: int
    """The line of the script on which `solve_source` begins (its ``def``): tracebacks and "(line N)" count from the script's top."""
    contract: Params
    keywords_used: frozenset[str]
    """Argument names the fixtures pass to `solve` by keyword."""
    uses_variant: bool
    """Whether any preamble or fixture code reads N (if not, all variants are the same checks)."""
    default_variant: int
    """The script's own ``N = ...`` value: the variant its recorded run used."""
    _statements: dict[str, list[ast.stmt]] = field(repr=False, compare=False)
    """The program variants as statements; each is compiled on first use (a catalog needs one)."""
    source: str = field(default="", repr=False, compare=False)
    """The whole script: a worker process registers it, so its tracebacks quote the lines too."""

    @property
    def static_count(self) -> int | None:
        """How many checks run, when that is known without running (no dynamic site)."""
        return None if any(s.dynamic for s in self.sites) else len(self.sites)

    def program(self, replay: bool) -> CodeType:
        """Code for the runner: with the script's own `solve` (replay) or without it."""
        return self._code("replay" if replay else "learner")

    def setup(self, replay: bool) -> CodeType:
        """The preamble alone (and, for a replay, the script's own solve): for one-off calls."""
        return self._code("setup-replay" if replay else "setup-learner")

    def _code(self, variant: str) -> CodeType:
        cache = self.__dict__.setdefault("_compiled", {})  # frozen dataclass: cache beside the fields
        if variant not in cache:
            cache[variant] = _compile(self._statements[variant], self.filename)
        return cache[variant]

    def site_for_line(self, lineno: int) -> CheckSite | None:
        """The check call whose source spans `lineno` (tracebacks point inside multi-line calls)."""
        for site in self.sites:
            if site.lineno <= lineno <= site.end_lineno:
                return site
        return None


def read_fixtures(record: Record, implementation: str = "attempt") -> FixtureScript:
    """Read the fixtures of one implementation's script (default: the attempt's).

    Raises RecordError when the script lacks the anatomy above: no `check`
    harness, no check calls, or a check call that does not pass three values.
    """
    impl = record.implementations.get(implementation)
    if impl is None:
        known = ", ".join(sorted(record.implementations))
        raise KeyError(f"{record.id} has no implementation {implementation!r} (has: {known})")
    label = record.origin if not record.packaged else record.id
    return _read(record.id, implementation, impl.source, record.params, label)


@lru_cache(maxsize=256)
def _read(record_id: str, implementation: str, source: str, contract: Params, label: str) -> FixtureScript:
    field = f"implementations.{implementation}.source"

    def fail(problem: str) -> RecordError:
        return RecordError(label, field, problem)

    tree = ast.parse(source)  # records already proved that it parses
    body = tree.body
    harnesses = [n for n in body if isinstance(n, ast.FunctionDef) and n.name == "check"]
    if not harnesses:
        raise fail("defines no harness function check(label, actual, expected)")
    check_def = harnesses[-1]
    check_params = [a.arg for a in check_def.args.posonlyargs + check_def.args.args]
    if len(check_params) < 3:
        raise fail("check() must take (label, actual, expected)")

    helpers = _helpers_that_check(body)
    fixture_indexes = [i for i, stmt in enumerate(body) if _runs_checks(stmt, helpers)]
    if not fixture_indexes:
        raise fail("contains no check(label, solve(...), expected) calls")
    last_fixture = fixture_indexes[-1]

    solve_defs = [i for i, n in enumerate(body) if isinstance(n, ast.FunctionDef) and n.name == "solve"]
    solve_index = solve_defs[-1]
    lines = source.splitlines()

    rewriter = _CheckRewriter(check_params[:3], fail)
    kept_learner: list[ast.stmt] = []
    kept_replay: list[ast.stmt] = []
    setup_learner: list[ast.stmt] = []  # the preamble alone, for calls outside the fixtures
    preamble_lines: set[int] = set()
    for i, stmt in enumerate(body[: last_fixture + 1]):
        if i == solve_index:
            kept_replay.append(stmt)
            kept_replay.append(_wrap_solve_after(stmt))
            # Where the script defines solve, yours takes its place, as if pasted in: a class your solution defines
            # under a name the preamble used (the preamble's dataclass, copied into your cell) is the one the
            # checks after this point build and compare with. Without this, Span(0, 3) == Span(0, 3) was False.
            adopt = _statement_at(f"{ADOPT_HOOK}()", stmt.lineno)
            kept_learner.append(adopt)
            setup_learner.append(adopt)
            continue
        if isinstance(stmt, ast.FunctionDef) and stmt.name == "solve":
            continue  # an earlier, shadowed definition
        if _assigns_variant(stmt):
            stmt = _variant_assignment(stmt)
        elif i in fixture_indexes or (isinstance(stmt, ast.FunctionDef) and stmt.name in helpers):
            stmt = rewriter.visit(stmt)
        if i not in fixture_indexes:
            first = first_line(body[i])  # a @dataclass too
            preamble_lines.update(range(first, (body[i].end_lineno or body[i].lineno) + 1))
        kept_learner.append(stmt)
        kept_replay.append(stmt)
        if i not in fixture_indexes:
            setup_learner.append(stmt)
    setup_replay = [stmt for stmt in kept_replay if stmt in setup_learner or not any(stmt is k for k in kept_learner)]
    if rewriter.keeps_walrus:
        first = body[0]
        for statements in (kept_learner, kept_replay, setup_learner, setup_replay):
            statements.insert(0, _kept_dict(first))

    sites = tuple(rewriter.sites)
    filename = f"<failuremap {record_id} {implementation}>"
    # Register the source so tracebacks from the program show the real lines.
    linecache.cache[filename] = (len(source), None, [line + "\n" for line in lines], filename)
    uses_variant = any(
        isinstance(node, ast.Name) and node.id == "N" and isinstance(node.ctx, ast.Load)
        for stmt in body[: last_fixture + 1]
        if not (isinstance(stmt, ast.FunctionDef) and stmt.name == "solve")
        for node in ast.walk(stmt)
    )
    default_variant = 1
    for stmt in body:
        if _assigns_variant(stmt) and isinstance(stmt.value, ast.Constant) and stmt.value.value in VARIANTS:
            default_variant = stmt.value.value
    return FixtureScript(
        record_id=record_id,
        implementation=implementation,
        filename=filename,
        sites=sites,
        preamble_source="\n".join(lines[n - 1] for n in sorted(preamble_lines)),
        solve_source=ast.get_source_segment(source, body[solve_index]) or ast.unparse(body[solve_index]),
        solve_line=body[solve_index].lineno,
        contract=contract,
        keywords_used=frozenset(rewriter.solve_keywords),
        uses_variant=uses_variant,
        default_variant=default_variant,
        _statements={"learner": kept_learner, "replay": kept_replay, "setup-learner": setup_learner, "setup-replay": setup_replay},
        source=source,
    )


def is_bare_call(actual_source: str) -> bool:
    """Whether a check compares what one call of solve returned, as it is (``solve(x)``, not ``solve(x)[0]``)."""
    try:
        node = ast.parse(actual_source, mode="eval").body
    except SyntaxError:
        return False
    return _is_solve_call(node)


def _is_solve_call(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "solve"


def _post_order(node: ast.AST):
    """Nodes children first, left to right: the order in which Python enters the calls of an expression."""
    for child in ast.iter_child_nodes(node):
        yield from _post_order(child)
    yield node


def _shown_source(node: ast.expr) -> str:
    """The expression's source, as ast.unparse writes it, with combining marks escaped as safe_repr escapes them.

    unparse writes a string constant with repr(), which keeps a combining accent as itself: the fixture's
    ``solve('cafe\\u0301') == solve('caf\\u00e9')`` would read as ``solve('café') == solve('café')``.
    A mark can stand only in a string there, so escaping it keeps the expression valid and the same.
    """
    return escape_marks(ast.unparse(node))


def compared_expression(actual_source: str, calls: list[str] | tuple[str, ...], variant: int) -> str:
    """The expression a check compares, as the fixture writes it, with the variant's values filled in.

    Each ``solve(...)`` becomes the call as it happened (`calls`, in the order
    solve was entered) and each read of ``N`` becomes the variant:
    ``solve(N + 4, pad=N)[-1]`` with the call ``solve(5, pad=1)`` gives
    ``solve(5, pad=1)[-1]``. When the calls cannot be matched one to one (a call
    inside a comprehension, a lazy branch, a call that never happened), the
    calls stay as written and only ``N`` is filled in. Other names stay as they
    are. "" when the check compares solve's return value itself (a bare call):
    the call already says it all.
    """
    try:
        tree = ast.parse(actual_source, mode="eval")
    except SyntaxError:
        return actual_source
    if _is_solve_call(tree.body):
        return ""
    source = actual_source.encode("utf-8")  # col_offset counts UTF-8 bytes
    solves = [n for n in _post_order(tree.body) if _is_solve_call(n)]
    spans: list[tuple[int, int, str]] = []
    lazy = any(isinstance(n, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.IfExp, ast.BoolOp))
               and any(_is_solve_call(m) for m in ast.walk(n)) for n in ast.walk(tree.body))
    if solves and len(solves) == len(calls) and not lazy and all(n.lineno == n.end_lineno == 1 for n in solves):
        spans += [(n.col_offset, n.end_col_offset, call) for n, call in zip(solves, calls)]
    spans += [(n.col_offset, n.end_col_offset, repr(variant)) for n in ast.walk(tree.body)
              if isinstance(n, ast.Name) and n.id == "N" and isinstance(n.ctx, ast.Load) and n.lineno == n.end_lineno == 1]
    out, position = [], 0
    for start, end, text in sorted(spans, key=lambda span: (span[0], -span[1])):
        if start < position:
            continue  # inside a span already replaced (an N or a call inside a call)
        out += [source[position:start].decode("utf-8"), text]
        position = end
    out.append(source[position:].decode("utf-8"))
    return "".join(out)


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
