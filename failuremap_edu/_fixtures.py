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
``check(L, A, E)`` call rewritten (`_check_rewrite`) to ``__fm_check__(site, lambda: L, lambda: A,
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
import linecache
from dataclasses import dataclass, field
from functools import lru_cache
from types import CodeType

from ._check_rewrite import (ADOPT_HOOK, CheckSite, _assigns_variant, _CheckRewriter, _compile, _helpers_that_check, _kept_dict, _runs_checks,
                             _statement_at, _variant_assignment, _wrap_solve_after)
from ._code import first_line
from ._records import Record, RecordError
from ._signature import Params

__all__ = ["CheckSite", "FixtureScript", "compared_expression", "is_bare_call", "read_fixtures"]

VARIANTS = (1, 2, 3, 4, 5)


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
