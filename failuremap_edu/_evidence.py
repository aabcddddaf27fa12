"""Whether your failing checks give the record's attempt's (or broken's) values, and how much that match says.

A match of values is evidence of the same mistake only where other mistakes
rarely give the same value. Other mistakes are stood in for by mutants: small
changes to the code of the record's attempt and broken (an integer one off, a
comparison flipped, an operator swapped, an item dropped, the other sequence
type returned), run through the same runner as every replay, once per variant
(the caller keeps the `MutantTally`). A matched check is *informative* when few
of those other mistakes give its value.

Decided on what the check compares (`Observation.actual`): a generator and a
list that the check turns into the same value are the same result. Values are
the same when they are equal and of the same types, nested.
"""

from __future__ import annotations

import ast
import hashlib
import warnings
from dataclasses import dataclass, replace
from typing import Any, Iterable

from ._claims import equal, type_name
from ._records import Implementation, Record
from ._results import ERROR, FAIL, PASS, TIMEOUT, Observation, RunResult
from ._same import container_types as _types, local_name as _local_name, same_value
from ._values import Opaque

__all__ = [
    "MatchesImplementation", "MutantTally", "compared_same", "match_claim", "mutant_sources", "run_mutants", "verify_match",
]

MUTANTS_PER_IMPLEMENTATION = 6
"""How many mutants of each of attempt and broken are run (spread over the kinds of change)."""
MUTANT_TIMEOUT = 0.5
"""The time limit per check for a mutant, in seconds (or the exercise's own, when shorter): a mutant that loops says nothing."""

Check = tuple  # (variant, index)


@dataclass(frozen=True)
class MatchesImplementation:
    """Your solve gives `which`'s compared value on exactly `checks` of the checks you fail.

    `which` is ``attempt`` or ``broken``; `checks` are (variant, index) pairs, in run
    order. `informative` is the part of `checks` on which few other mistakes (the
    mutants) give that value; `strength` is ``informative`` when that part is not
    empty, ``uninformative`` when it is, ``unknown`` when no mutant was run. `own` are
    the failing checks of yours outside `checks`; `labels` names checks by (variant, index).
    """

    which: str
    checks: tuple[Check, ...]
    strength: str
    informative: tuple[Check, ...] = ()
    own: tuple[Check, ...] = ()
    labels: tuple[tuple[Check, str], ...] = ()

    def label(self, check: Check) -> str:
        return dict(self.labels).get(check, f"check {check[1] + 1}")

    def __str__(self) -> str:
        return (f"matches {self.which} on {len(self.checks)} of {len(self.checks) + len(self.own)} failing checks "
                f"({self.strength}: {len(self.informative)} informative)")


@dataclass(frozen=True)
class MutantTally:
    """What the mutants of attempt and broken give on each check of one variant."""

    variant: int
    runs: tuple[tuple[str, RunResult], ...]
    """(``attempt`` or ``broken``: whose mutant it is, its run), in the order they ran."""
    elapsed_ms: float = 0.0

    def __str__(self) -> str:
        return f"{len(self.runs)} mutants of variant {self.variant} ({self.elapsed_ms:.0f} ms)"


# ------------------------------------------------------------------- values


def compared_same(mine: Observation, theirs: Observation) -> bool:
    """The same outcome on a check: the same status and, for a failure, the same compared value (not solve's raw return)."""
    if mine.status != theirs.status or mine.check != theirs.check:
        return False
    if mine.status == FAIL:
        return same_value(mine.actual, theirs.actual)
    if mine.status == ERROR:
        return mine.error is not None and theirs.error is not None and mine.error.type == theirs.error.type
    return True


def _failing(o: Observation) -> bool:
    return o.status not in (PASS, TIMEOUT) and not (o.status == ERROR and o.error is not None and o.error.type == "NotRun")


def _at(run: RunResult | None, index: int) -> Observation | None:
    return run.observations[index] if run is not None and index < len(run.observations) else None


# ------------------------------------------------------------------ the claim


def _others(tally: MutantTally, which: str, replays: dict, variant: int) -> list[RunResult]:
    """The other mistakes for `which`'s values: the other implementation, its mutants, and the mutants of `which`
    that do something (differ from `which` on some check: a change that does nothing is `which` itself)."""
    other = "broken" if which == "attempt" else "attempt"
    own_run = replays.get((variant, which))
    out = [replays[(variant, other)]] if (variant, other) in replays else []
    for origin, run in tally.runs:
        if origin == other:
            out.append(run)
        elif own_run is not None and any(
            _says(o) and _says(t) and not compared_same(o, t) for o, t in zip(run.observations, own_run.observations)
        ):
            out.append(run)
    return out


def _says(o: Observation | None) -> bool:
    """A mutant's outcome that says something: not a time limit (which a busy machine can bring about), nor a check not run."""
    return o is not None and o.status != TIMEOUT and not (o.status == ERROR and o.error is not None and o.error.type == "NotRun")


def reach(tally: MutantTally, which: str, replays: dict, index: int, theirs: Observation) -> tuple[int, int]:
    """(how many other mistakes give `theirs`'s outcome on check `index`, how many other mistakes there are)."""
    others = [o for run in _others(tally, which, replays, tally.variant) if _says(o := _at(run, index))]
    same = sum(1 for o in others if compared_same(o, theirs))
    return same, len(others)


def few(same: int, total: int) -> bool:
    """Few of `total` other mistakes give the value: at most a quarter of them (and none of one or two)."""
    return same * 4 <= total if total >= 3 else same == 0


def match_claim(yours: Iterable[RunResult], replays: dict, tallies: dict[int, MutantTally] | None = None) -> MatchesImplementation | None:
    """The match of your failing checks with the attempt, or with broken when broken matches more; None when neither matches.

    `replays` holds the record's runs by (variant, ``attempt``/``broken``); `tallies` the
    mutants' runs by variant (without them the strength is ``unknown``). The attempt wins a tie.
    """
    yours = tuple(yours)
    failing = [(run.variant, o) for run in yours for o in run.observations if _failing(o)]
    if not failing:
        return None
    best = None
    for which in ("attempt", "broken"):
        matched = tuple((v, o.index) for v, o in failing
                        if (t := _at(replays.get((v, which)), o.index)) is not None and t.status != PASS and compared_same(o, t))
        if matched and (best is None or len(matched) > len(best[1])):
            best = (which, matched)
    if best is None:
        return None
    which, matched = best
    informative: list[Check] = []
    known = tallies is not None and all(v in tallies for v, _ in matched)
    for v, i in matched:
        if known:
            same, total = reach(tallies[v], which, replays, i, replays[(v, which)].observations[i])
            if few(same, total):
                informative.append((v, i))
    strength = "unknown" if not known else "informative" if informative else "uninformative"
    own = tuple((v, o.index) for v, o in failing if (v, o.index) not in matched)
    labels = tuple(((v, o.index), o.check) for v, o in failing)
    return MatchesImplementation(which, matched, strength, tuple(informative) if known else matched, own, labels)


# ---------------------------------------------------------------- the verifier


def _same_strict(a: Any, b: Any, depth: int = 0) -> bool:
    """Equal by ``==`` on the portable views, and the same type names (a class's module aside) all the way down."""
    if depth > 50:
        return False
    if _local_name(type_name(a)) != _local_name(type_name(b)):
        return False
    if type(a) is Opaque and type(b) is Opaque and a.fields is not None and b.fields is not None:
        return [n for n, _ in a.fields] == [n for n, _ in b.fields] and all(_same_strict(x, y, depth + 1) for (_, x), (_, y) in zip(a.fields, b.fields))
    if type(a) in (list, tuple):
        return len(a) == len(b) and all(_same_strict(x, y, depth + 1) for x, y in zip(a, b))
    if type(a) is dict:
        return list(a) == list(b) and all(_same_strict(a[k], b[k], depth + 1) for k in a)
    return equal(a, b) and (type(a) not in (set, frozenset) or _types(a) == _types(b))


def _outcome_strict(mine: Observation, theirs: Observation) -> bool:
    if mine.status != theirs.status or mine.check != theirs.check:
        return False
    if mine.status == FAIL:
        return _same_strict(mine.actual, theirs.actual)
    return mine.status != ERROR or (mine.error is not None and theirs.error is not None and mine.error.type == theirs.error.type)


def verify_match(claim: MatchesImplementation, yours: Iterable[RunResult], replays: dict, tallies: dict[int, MutantTally] | None = None) -> bool:
    """True exactly when the claim holds of the runs: each of its checks is one you fail with `which`'s compared value,
    each of `own` one you fail otherwise, together all you fail; each informative check is reached by few other mistakes."""
    runs = {run.variant: run for run in yours}
    failing = {(run.variant, o.index) for run in runs.values() for o in run.observations if _failing(o)}
    if set(claim.checks) | set(claim.own) != failing or set(claim.checks) & set(claim.own) or not claim.checks:
        return False

    def matches(v: int, i: int) -> bool:
        mine, theirs = _at(runs.get(v), i), _at(replays.get((v, claim.which)), i)
        return mine is not None and theirs is not None and theirs.status != PASS and _outcome_strict(mine, theirs)

    if not all(matches(v, i) for v, i in claim.checks) or any(matches(v, i) for v, i in claim.own):
        return False
    if claim.strength == "unknown":
        return tallies is None or not all(v in tallies for v, _ in claim.checks)
    if not set(claim.informative) <= set(claim.checks) or (claim.strength == "informative") != bool(claim.informative):
        return False
    for v, i in claim.checks:
        theirs = replays[(v, claim.which)].observations[i]
        others = [o for run in _others(tallies[v], claim.which, replays, v) if _says(o := _at(run, i))]
        same = sum(1 for o in others if _outcome_strict(o, theirs))
        if few(same, len(others)) != ((v, i) in claim.informative):
            return False
    return True


# ------------------------------------------------------------------- mutants


_FLIPS = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.Eq: ast.NotEq, ast.NotEq: ast.Eq,
          ast.In: ast.NotIn, ast.NotIn: ast.In, ast.Is: ast.IsNot, ast.IsNot: ast.Is}
_SWAPS = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Add, ast.Div: ast.Mult, ast.FloorDiv: ast.Mult, ast.Mod: ast.FloorDiv}
_RETYPE = "(lambda v: tuple(v) if type(v) is list else list(v) if type(v) is tuple else [v])(X)"


def _sites(fn: ast.FunctionDef) -> list[tuple[str, int, int]]:
    """(kind, node number in a walk of `fn`, option) of every change that can be made inside `fn`."""
    out = []
    for n, node in enumerate(ast.walk(fn)):
        if node is fn:
            continue
        if isinstance(node, ast.Constant) and type(node.value) is int:
            out += [("off by one", n, +1), ("off by one", n, -1)]
        elif isinstance(node, ast.Compare):
            out += [("comparison", n, k) for k, op in enumerate(node.ops) if type(op) in _FLIPS]
        elif isinstance(node, ast.BinOp) and type(node.op) in _SWAPS:
            out.append(("operator", n, 0))
        elif isinstance(node, ast.BoolOp):
            out.append(("operator", n, 0))
        elif isinstance(node, ast.Return) and node.value is not None:
            out += [("dropped item", n, 0), ("return type", n, 0)]
    return out


def _mutate(fn: ast.FunctionDef, kind: str, n: int, option: int) -> None:
    node = next(x for k, x in enumerate(ast.walk(fn)) if k == n)
    if kind == "off by one":
        node.value += option
    elif kind == "comparison":
        node.ops[option] = _FLIPS[type(node.ops[option])]()
    elif kind == "operator" and isinstance(node, ast.BinOp):
        node.op = _SWAPS[type(node.op)]()
    elif kind == "operator":
        node.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()
    elif kind == "dropped item":
        if isinstance(node.value, (ast.List, ast.Tuple)) and node.value.elts:
            node.value.elts.pop()
        else:
            node.value = ast.Subscript(node.value, ast.Slice(None, ast.UnaryOp(ast.USub(), ast.Constant(1))), ast.Load())
    elif kind == "return type":
        wrapper = ast.parse(_RETYPE, mode="eval").body
        wrapper.args = [node.value]
        node.value = wrapper


def _solve_and_helpers(tree: ast.Module) -> list[int]:
    """Indexes of the top-level functions a change may go into: the last solve, and functions only solve's code calls
    (not the harness, not a function the checks call themselves: that would change the expected values)."""
    body = tree.body
    solves = [i for i, s in enumerate(body) if isinstance(s, ast.FunctionDef) and s.name == "solve"]
    if not solves:
        return []
    outside = {x.id for s in body if not isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
               for x in ast.walk(s) if isinstance(x, ast.Name)}
    called = {x.id for x in ast.walk(body[solves[-1]]) if isinstance(x, ast.Name)}
    return [solves[-1]] + [i for i, s in enumerate(body) if isinstance(s, ast.FunctionDef) and s.name in called
                           and s.name not in outside and s.name not in ("check", "solve")]


def mutant_sources(source: str, limit: int = MUTANTS_PER_IMPLEMENTATION) -> tuple[str, ...]:
    """Up to `limit` distinct scripts, each `source` with one small change inside solve (or a helper only solve calls).

    The same source always gives the same mutants; the kinds of change take turns,
    so a handful covers several kinds. A change that does not compile, or that the compiler warns about, is left out.
    """
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError):
        return ()
    original = ast.unparse(tree)
    by_kind: dict[str, list] = {}
    for top in _solve_and_helpers(tree):
        for kind, n, option in _sites(tree.body[top]):
            by_kind.setdefault(kind, []).append((top, n, option))
    queues = [list(sites[::max(1, len(sites) // limit)]) + [s for s in sites if s not in sites[::max(1, len(sites) // limit)]]
              for sites in by_kind.values()]
    out: list[str] = []
    while len(out) < limit and any(queues):
        for kind, queue in zip(list(by_kind), queues):
            if not queue or len(out) >= limit:
                continue
            top, n, option = queue.pop(0)
            copy = ast.parse(source)
            _mutate(copy.body[top], kind, n, option)
            try:
                text = ast.unparse(ast.fix_missing_locations(copy))
                with warnings.catch_warnings():  # a change the compiler warns about ("'set' object is not subscriptable") is left out
                    warnings.simplefilter("error")
                    compile(text, "<mutant>", "exec")
            except (SyntaxError, SyntaxWarning, ValueError, TypeError, RecursionError):
                continue
            if text != original and text not in out:
                out.append(text)
    return tuple(out)


def run_mutants(record: Record, variant: int, timeout: float) -> MutantTally:
    """Mutants of the record's attempt and broken, run on `variant` through the runner as replays (all in one worker
    while they end cleanly). Each mutant's time limit per check is `MUTANT_TIMEOUT` or `timeout`, the shorter."""
    import time

    from .runner import replay_many

    started = time.perf_counter()
    implementations = dict(record.implementations)
    names: list[tuple[str, str]] = []
    for origin in ("attempt", "broken"):
        impl = record.implementations.get(origin)
        for k, text in enumerate(mutant_sources(impl.source) if impl is not None else ()):
            name = f"{origin}~{k + 1}"
            implementations[name] = Implementation(name, text, hashlib.sha256(text.encode()).hexdigest())
            names.append((origin, name))
    mutated = replace(record, implementations=implementations)
    runs = replay_many([(mutated, name, variant) for _, name in names], min(timeout, MUTANT_TIMEOUT)) if names else []
    return MutantTally(variant, tuple((origin, run) for (origin, _), run in zip(names, runs)), (time.perf_counter() - started) * 1000)
