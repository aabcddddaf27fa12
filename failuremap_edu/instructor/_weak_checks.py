"""Weak checks: mutants of a record's attempt that its checks cannot tell from the attempt (mutation testing).

Each mutant changes one thing in the attempt's ``solve`` (its AST), a change that breaks
a contract: a number off by one, a range one short, a comparison flipped (``<`` and
``<=``), ``and`` and ``or`` swapped, the last item dropped from what it returns, or one
shared object returned by every call, its contents replaced (a mutable default, a
cache). Every mutant of the script runs through the record's own checks, all of them
in one fresh interpreter (the runner's `run_script`), each with a time limit, the whole
within `BUDGET_S`. A mutant survives when every check gives it the verdict it gives the
attempt, and the change happened (a dropped item or a shared object needs a value that
has items). Survivors are what the author's checks do not test.

Nothing here runs in the caller: the author's code runs in the script's process only.
"""

from __future__ import annotations

import ast
import base64
import copy
import json
import zlib
from dataclasses import dataclass
from typing import Callable

from .._records import Record
from ..runner import run_script

__all__ = ["BUDGET_S", "MAX_MUTANTS", "Mutant", "WeakChecks", "mutants", "weak_checks"]

MAX_MUTANTS = 40
"""Mutants tried at most, in the order of their place in solve."""
BUDGET_S = 6.0
"""Seconds all mutants may take together (the interpreter's start included); the rest are counted as not tried."""
MUTANT_LIMIT_S = 1.0
"""Seconds one mutant's run of the checks may take: a mutant that loops is stopped, and counts as caught."""

_FLIPS = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.Eq: ast.NotEq, ast.NotEq: ast.Eq}

_HELPERS = '''
_fm_acted = []
_fm_kept = {}
def _fm_drop(value):
    if isinstance(value, (list, tuple, str, bytes)) and len(value) > 0:
        _fm_acted.append(1)
        return value[:-1]
    if isinstance(value, dict) and value:
        _fm_acted.append(1)
        return dict(list(value.items())[:-1])
    return value
def _fm_shared(value, site):
    kept = _fm_kept.get(site)
    if not isinstance(value, (list, dict, set)):
        return value
    if kept is None or type(kept) is not type(value):
        _fm_kept[site] = value
        return value
    if kept is not value:
        _fm_acted.append(1)
        if isinstance(kept, list):
            kept[:] = value
        else:
            kept.clear()
            kept.update(value)
    return kept
'''
"""Defined above the mutated solve: `_fm_acted` says whether a dropped item or a shared object ever made a difference."""

_DRIVER = '''
import base64, io, json, signal, sys, time, zlib
_fm_deadline = time.monotonic() + BUDGET
def _fm_stop(*_):
    raise TimeoutError("the mutant ran out of time")
signal.signal(signal.SIGALRM, _fm_stop)
for _fm_i, _fm_source in enumerate(json.loads(zlib.decompress(base64.b64decode(SCRIPTS)))):
    if time.monotonic() > _fm_deadline:
        break
    _fm_ns, _fm_out, _fm_real, _fm_error = {"__name__": "__main__"}, io.StringIO(), sys.stdout, None
    sys.stdout = _fm_out
    signal.setitimer(signal.ITIMER_REAL, LIMIT)
    try:
        exec(compile(_fm_source, "<mutant>", "exec"), _fm_ns)
    except SystemExit:
        pass
    except KeyboardInterrupt:  # the whole run's limit: what ran is printed already
        break
    except BaseException as _fm_exc:
        _fm_error = type(_fm_exc).__name__
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        sys.stdout = _fm_real
    _fm_obs = _fm_ns.get("observations")
    _fm_verdicts = [bool(o.get("passed")) if isinstance(o, dict) else None for o in _fm_obs] if isinstance(_fm_obs, list) else None
    print(json.dumps({"i": _fm_i, "verdicts": _fm_verdicts, "error": _fm_error, "acted": bool(_fm_ns.get("_fm_acted"))}), flush=True)
'''


@dataclass(frozen=True)
class Mutant:
    """One change to solve: what kind, where (the script's line), and the code before and after."""

    kind: str
    lineno: int
    before: str
    after: str

    def __str__(self) -> str:
        if self.kind == "shared object":
            return f"every call returns one shared object, its contents replaced: `{self.before}` (line {self.lineno})"
        if self.kind == "dropped item":
            return f"the last item dropped from what solve returns: `{self.before}` (line {self.lineno})"
        return f"{self.kind}: `{self.before}` became `{self.after}` (line {self.lineno})"


@dataclass(frozen=True)
class WeakChecks:
    """What mutation testing found: how many mutants were tried, which survived every check, and whether time ran out."""

    implementation: str
    tried: int
    made: int
    """Mutants made (at most `MAX_MUTANTS`); `tried` of them ran before the budget ran out."""
    survivors: tuple[Mutant, ...]
    problem: str = ""
    """Why nothing could be said (the script did not run, it printed nothing): empty when it ran."""
    where: Callable[[int], str] | None = None
    """Maps a line of the script to the author's file and line, for the text."""

    def __str__(self) -> str:
        if self.problem:
            return f"weak checks: not tested ({self.problem})"
        short = f" (time ran out: {self.tried} of {self.made} tried)" if self.tried < self.made else ""
        if not self.survivors:
            return f"weak checks: none found: every one of {self.tried} mutants of the {self.implementation} is caught by a check{short}"
        n = len(self.survivors)
        lines = [f"weak checks: {n} of {self.tried} mutants of the {self.implementation} pass and fail exactly the checks it does, "
                 f"so no check tells {'it' if n == 1 else 'them'} apart{short}:"]
        lines += [f"  - {self._located(m)}" for m in self.survivors[:6]]
        if n > 6:
            lines.append(f"  - … and {n - 6} more")
        lines.append("  A check that catches one compares a result after a later call, or tries the boundary the change moved.")
        return "\n".join(lines)

    def _located(self, m: Mutant) -> str:
        text = str(m)
        return text.replace(f"(line {m.lineno})", f"({self.where(m.lineno)})") if self.where else text


def _solve_def(tree: ast.Module) -> ast.FunctionDef | None:
    return next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "solve"), None)


def _sites(func: ast.FunctionDef) -> list[tuple[int, str]]:
    """(index in ast.walk order, kind) of every place a mutation applies, in a fixed order."""
    sites = []
    for i, node in enumerate(ast.walk(func)):
        if isinstance(node, ast.Constant) and type(node.value) is int:
            sites.append((i, "off by one"))
        elif isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in _FLIPS:
            sites.append((i, "flipped comparison"))
        elif isinstance(node, ast.BoolOp):
            sites.append((i, "and/or swapped"))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "range" and node.args:
            sites.append((i, "range one short"))
        elif isinstance(node, ast.Return) and node.value is not None:
            sites += [(i, "dropped item"), (i, "shared object")]
    return sites


def _mutate(node: ast.AST, kind: str, site: int) -> ast.AST:
    """Change `node` in place (or give its replacement) as `kind` says."""
    if kind == "off by one":
        node.value += 1
    elif kind == "flipped comparison":
        node.ops = [_FLIPS[type(node.ops[0])]()]
    elif kind == "and/or swapped":
        node.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()
    elif kind == "range one short":
        node.args[-1] = ast.BinOp(node.args[-1], ast.Sub(), ast.Constant(1))
    elif kind == "dropped item":
        node.value = ast.Call(ast.Name("_fm_drop", ast.Load()), [node.value], [])
    elif kind == "shared object":
        node.value = ast.Call(ast.Name("_fm_shared", ast.Load()), [node.value, ast.Constant(site)], [])
    return node


def mutants(source: str) -> list[tuple[Mutant, str]]:
    """Every mutant of the script's top-level ``solve`` (at most `MAX_MUTANTS`), each with its whole script."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    func = _solve_def(tree)
    if func is None:
        return []
    lines = source.splitlines(keepends=True)
    start = min([func.lineno, *(d.lineno for d in func.decorator_list)]) - 1
    head, tail = "".join(lines[:start]), "".join(lines[func.end_lineno:])
    out = []
    for index, kind in _sites(func)[:MAX_MUTANTS]:
        changed = copy.deepcopy(func)
        node = next(n for i, n in enumerate(ast.walk(changed)) if i == index)
        before = ast.unparse(node)
        after = ast.unparse(_mutate(node, kind, index))
        ast.fix_missing_locations(changed)
        script = head + _HELPERS + ast.unparse(changed) + "\n" + tail
        out.append((Mutant(kind, getattr(node, "lineno", func.lineno), before, after), script))
    return out


def weak_checks(record: Record, implementation: str = "attempt", *, budget: float = BUDGET_S, isolation: str | None = None,
                where: Callable[[int], str] | None = None) -> WeakChecks:
    """Run every mutant of `implementation`'s solve through the record's checks; say which ones no check catches."""
    source = record.implementations[implementation].source
    made = mutants(source)
    if not made:
        return WeakChecks(implementation, 0, 0, (), where=where)
    scripts = [source] + [script for _, script in made]
    packed = base64.b64encode(zlib.compress(json.dumps(scripts).encode("utf-8"), 9)).decode("ascii")  # one argument of python -c: keep it small
    driver = f"SCRIPTS = {packed!r}\nLIMIT = {min(MUTANT_LIMIT_S, budget)!r}\nBUDGET = {max(budget - 1.0, 0.5)!r}\n" + _DRIVER
    run = run_script(driver, budget + 1.0, isolation=isolation)
    if run.not_started is not None:
        return WeakChecks(implementation, 0, len(made), (), f"the checks did not run: {run.not_started}", where)
    results = {}
    for line in run.stdout.splitlines():
        try:
            found = json.loads(line)
            results[found["i"]] = found
        except (ValueError, KeyError, TypeError):
            continue  # a line the author's code printed around ours
    original = results.get(0)
    if original is None or original["verdicts"] is None:
        return WeakChecks(implementation, 0, len(made), (), "the unchanged script gave no verdicts", where)
    survivors = []
    for k, (mutant, _) in enumerate(made, 1):
        found = results.get(k)
        if found is None:
            continue
        same = found["verdicts"] == original["verdicts"] and found["error"] == original["error"]
        needs_action = mutant.kind in ("dropped item", "shared object")
        if same and (found["acted"] or not needs_action):
            survivors.append(mutant)
    tried = sum(1 for k in range(1, len(made) + 1) if k in results)
    return WeakChecks(implementation, tried, len(made), tuple(survivors), where=where)
