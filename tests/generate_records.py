"""Generate valid Failure Map records of random shape, sealed by the real harness.

``generate(seed)`` gives one record *spec* in the format of ``tests/records/build.py``
(preamble, attempt, broken, fixtures …), drawn with ``random.Random(seed)``: the
same seed always gives the same record. ``seal(record_id, spec)`` turns it into a
full record with `build.build`, whose verification runs each script as the
harness does (``python -c SCRIPT``); a script that does not finish within
`HARNESS_TIMEOUT` gives None (it cannot be recorded). ``python
tests/generate_records.py OUT COUNT [FIRST_SEED]`` writes a corpus.

The grammar: a contract (what solve must do, its correct implementation, the
mutations that break it, and how its inputs are drawn) and check lines over its
results. Inputs and expected values are values of the grammar below (ints,
floats with NaN/-0.0/1e308, text with whitespace and Unicode, None, bools, lists,
tuples, dicts with str and int keys, nesting); a check compares the whole result
or an expression of it; expected values are literals computed here with the
correct implementation, or calls of the preamble's ``reference`` (itself the
correct implementation) with N.
"""

from __future__ import annotations

import json
import math
import random
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "records"))
import build  # noqa: E402  (tests/records/build.py: the test records' own builder)

sys.path.remove(str(HERE / "records"))

HARNESS_TIMEOUT = 20.0
SLOW_LOOP = 10_000_000
"""Iterations of the loop a mutation runs on some input: finite for the harness, over the replay's limit."""
REPLAY_TIMEOUT = 1.0
"""The replay's per-check limit in the differential test; a slow check is replayed with `SLOW_REPLAY_TIMEOUT`."""
SLOW_REPLAY_TIMEOUT = 0.1


# ------------------------------------------------------------------------ values

TEXTS = ["", " ", "a b", "\t tab", "naïve café", "ß", "🙂 ok", "e\u0301", "ｆｕｌｌ", "line\nbreak", "  spaced  ", "ﬁne", "日本語"]
FLOATS = [0.0, -0.0, 1.5, -2.25, 1e308, 1e-300, float("nan"), float("inf"), 0.1 + 0.2, 3.0]


def value(rng: random.Random, depth: int = 0):
    """One value of the grammar, nested to depth 4 at most."""
    kinds = ["int", "float", "str", "none", "bool"] + (["list", "tuple", "dict", "idict"] if depth < 4 else [])
    kind = rng.choice(kinds)
    if kind == "int":
        return rng.choice([0, 1, -1, 7, 2**31, -(2**63), rng.randint(-100, 100)])
    if kind == "float":
        return rng.choice(FLOATS)
    if kind == "str":
        return rng.choice(TEXTS)
    if kind == "none":
        return None
    if kind == "bool":
        return rng.choice([True, False])
    size = rng.choice([0, 1, 2, 3])
    if kind == "list":
        return [value(rng, depth + 1) for _ in range(size)]
    if kind == "tuple":
        return tuple(value(rng, depth + 1) for _ in range(size))
    if kind == "dict":
        return {rng.choice(TEXTS) + str(i): value(rng, depth + 1) for i in range(size)}
    return {rng.randint(-3, 9): value(rng, depth + 1) for _ in range(size)}


def lit(v) -> str:
    """Python source for a value of the grammar (repr, except the floats repr cannot spell)."""
    if isinstance(v, float):
        if math.isnan(v):
            return "float('nan')"
        if math.isinf(v):
            return "float('inf')" if v > 0 else "float('-inf')"
        return repr(v)
    if isinstance(v, list):
        return "[" + ", ".join(map(lit, v)) + "]"
    if isinstance(v, tuple):
        return "(" + "".join(lit(x) + ", " for x in v) + ")" if v else "()"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{lit(k)}: {lit(x)}" for k, x in v.items()) + "}"
    return repr(v)


def ints(rng: random.Random, n: int | None = None) -> list:
    return [rng.randint(-9, 9) for _ in range(rng.randint(0, 6) if n is None else n)]


# --------------------------------------------------------------------- contracts


@dataclass
class Contract:
    """What solve must do: its signature, a correct implementation, mutations, inputs and check expressions."""

    name: str
    signature: str
    correct: str
    mutations: list[str]
    args: callable
    """rng -> one argument list as source (may read N)."""
    expressions: list[str] = field(default_factory=lambda: ["{call}"])
    """Check expressions over one call ``{call}``."""
    preamble: str = ""
    inplace: bool = False
    """solve changes its first argument and returns None: checks read the argument."""


def _contracts() -> list[Contract]:
    def take_args(rng):
        xs = [value(rng, 2) for _ in range(rng.randint(0, 5))]
        return [lit(xs) + rng.choice(["", " * N"]), rng.choice(["0", "1", "2", "N", "N + 1"])]

    def list_of_ints(rng):
        return [lit(ints(rng)) + rng.choice(["", " + [N]"])]

    def text_args(rng):
        return [lit(" ".join(rng.choice(["a", "b", "A", "ß", "café", "🙂", "x y"]) for _ in range(rng.randint(0, 6))))]

    def grid_args(rng):
        return [rng.choice(["0", "1", "3", "N + 2", "12", "40", "100"])]

    def pair_args(rng):
        return [lit(ints(rng, rng.randint(1, 5)))]

    def div_args(rng):
        return [lit(ints(rng)), rng.choice(["1", "2", "-4", "N", "0"])]

    list_exprs = ["{call}", "{call}[0]", "{call}[-1]", "{call}[1:]", "{call}[:2]", "len({call})", "{call} == {call}",
                  "len({call}) > 0", "None in {call}"]
    return [
        Contract("take", "xs, k", "def solve(xs, k):\n    return list(xs[:k])\n",
                 ["def solve(xs, k):\n    return list(xs[:k + 1])\n", "def solve(xs, k):\n    return list(xs[1:k])\n",
                  "def solve(xs, k):\n    return tuple(xs[:k])\n", "def solve(xs, k):\n    return xs[:max(k - 1, 0)]\n"],
                 take_args, list_exprs),
        Contract("sort", "xs", "def solve(xs):\n    return sorted(xs)\n",
                 ["def solve(xs):\n    return sorted(xs, reverse=True)\n", "def solve(xs):\n    return sorted(set(xs))\n",
                  "def solve(xs):\n    xs.sort()\n    return xs\n", "def solve(xs):\n    return sorted(xs)[:-1]\n",
                  "def solve(xs):\n    return sorted(xs, key=lambda x: x > 0)\n"],
                 list_of_ints, ["{call}", "{call}[-1]", "sorted({call}, reverse=True)", "len({call})", "{call}[:3]"]),
        Contract("reverse in place", "xs", "def solve(xs):\n    xs.reverse()\n",
                 ["def solve(xs):\n    xs = xs[::-1]\n", "def solve(xs):\n    xs.sort()\n", "def solve(xs):\n    xs[:] = xs[:0:-1]\n",
                  "def solve(xs):\n    return xs[::-1]\n"],
                 list_of_ints, inplace=True),
        Contract("word counts", "text", "def solve(text):\n    out = {}\n    for w in text.split():\n        out[w] = out.get(w, 0) + 1\n    return out\n",
                 ["def solve(text):\n    out = {}\n    for w in text.split(' '):\n        out[w] = out.get(w, 0) + 1\n    return out\n",
                  "def solve(text):\n    out = {}\n    for w in text.lower().split():\n        out[w] = out.get(w, 0) + 1\n    return out\n",
                  "def solve(text):\n    return sorted(text.split())\n", "def solve(text):\n    return {w: 1 for w in text.split()}\n"],
                 text_args, ["{call}", "sorted({call})", "len({call})", "{call}.get('a', 0)", "'a' in {call}"]),
        Contract("lower triangle", "n", "def solve(n):\n    return [[1 if j <= i else 0 for j in range(n)] for i in range(n)]\n",
                 ["def solve(n):\n    return [[1 if j < i else 0 for j in range(n)] for i in range(n)]\n",
                  "def solve(n):\n    return [[1 if j <= i else 0 for j in range(n)] for i in range(n - 1)]\n",
                  "def solve(n):\n    return [tuple(1 if j <= i else 0 for j in range(n)) for i in range(n)]\n"],
                 grid_args, ["{call}", "{call}[-1]", "len({call})", "sum(map(sum, {call}))", "{call}[0][:1]"]),
        Contract("running sums", "xs", "def solve(xs):\n    total = 0\n    for x in xs:\n        total += x\n        yield total\n",
                 ["def solve(xs):\n    total = 0\n    for x in xs:\n        yield total\n        total += x\n",
                  "def solve(xs):\n    out, total = [], 0\n    for x in xs:\n        total += x\n        out.append(total)\n    return out\n",
                  "def solve(xs):\n    total = 0\n    for x in xs[:-1]:\n        total += x\n        yield total\n"],
                 list_of_ints, ["list({call})", "next({call}, None)", "list(islice({call}, 2))", "sum(1 for _ in {call})"],
                 preamble="from itertools import islice\n"),
        Contract("min and max", "xs", "def solve(xs):\n    return Pair(min(xs), max(xs))\n",
                 ["def solve(xs):\n    return Pair(max(xs), min(xs))\n", "def solve(xs):\n    return (min(xs), max(xs))\n",
                  "def solve(xs):\n    return Pair(min(xs[1:] or xs), max(xs))\n", "def solve(xs):\n    return Box(min(xs), max(xs))\n"],
                 pair_args, ["{call}", "{call}.low", "{call}[1]", "{call} == Pair(0, 0)", "list({call})"],
                 preamble="from typing import NamedTuple\nfrom dataclasses import dataclass\n\n\nclass Pair(NamedTuple):\n    low: int\n    high: int\n\n\n"
                          "@dataclass\nclass Box:\n    low: int\n    high: int\n"),
        Contract("divide", "xs, d", "def solve(xs, d):\n    return [x / d for x in xs]\n",
                 ["def solve(xs, d):\n    return [x // d for x in xs]\n", "def solve(xs, d):\n    return [x / d for x in xs] if d else []\n",
                  "def solve(xs, d):\n    return [round(x / d) for x in xs]\n"],
                 div_args, ["{call}", "raises(solve, {args})", "len({call})"],
                 preamble="def raises(f, *args):\n    try:\n        f(*args)\n    except ZeroDivisionError:\n        return 'ZeroDivisionError'\n    return 'returned'\n"),
    ]


CONTRACTS = _contracts()

GENERIC = ["raise", "slow", "exit", "shared", "state", "str"]
"""Mutations that wrap any implementation (see `_wrap`)."""


def _wrap(source: str, how: str, at_call: int) -> str:
    """The implementation `source` with a generic mutation at its `at_call`-th call (counted from 1)."""
    inner = source.replace("def solve(", "def _solve(", 1)
    counter = "_calls = [0]\n"
    head = "def solve(*args, **kwargs):\n    _calls[0] += 1\n"
    if how == "raise":
        body = f"    if _calls[0] == {at_call}:\n        raise ValueError('call ' + str(_calls[0]))\n    return _solve(*args, **kwargs)\n"
    elif how == "slow":
        body = f"    if _calls[0] == {at_call}:\n        for _ in range({SLOW_LOOP}):\n            pass\n    return _solve(*args, **kwargs)\n"
    elif how == "exit":
        body = f"    if _calls[0] == {at_call}:\n        import os\n        os._exit(3)\n    return _solve(*args, **kwargs)\n"
    elif how == "shared":
        counter += "_shared = []\n"
        body = ("    out = _solve(*args, **kwargs)\n    if type(out) is not list:\n        return out\n"
                "    _shared[:] = out\n    return _shared\n")
    elif how == "state":
        body = f"    out = _solve(*args, **kwargs)\n    return out if _calls[0] < {at_call} or type(out) is not list else out[::-1]\n"
    else:
        body = f"    out = _solve(*args, **kwargs)\n    return out if _calls[0] != {at_call} or type(out) is not list else str(out)\n"
    return inner + counter + head + body


def _signature_wrapper(contract: Contract, source: str) -> str:
    """Generic wrappers take (*args, **kwargs): give solve back the contract's parameters."""
    params = contract.signature
    names = ", ".join(p.strip() for p in params.split(","))
    return source.replace("def solve(*args, **kwargs):", f"def solve({params}):\n    args, kwargs = ({names},), {{}}")


# ------------------------------------------------------------------------ checks


def _expected(contract: Contract, expression: str, env: dict) -> str:
    """The expected value's source: a literal computed with the correct solve, else a call of `reference`."""
    try:
        value_ = eval(expression, env)  # noqa: S307 - our own generated expression
        if isinstance(value_, (set, frozenset, bytes)) or "Box" in repr(value_):
            raise TypeError
        json.dumps(value_)
        return lit(value_) if type(value_).__name__ != "Pair" else f"Pair({lit(value_[0])}, {lit(value_[1])})"
    except Exception:  # noqa: BLE001 - raises for the correct one too: compare with the reference's own run
        return expression.replace("solve(", "reference(")


def _returns(expression: str, env: dict) -> bool:
    """Whether the correct solve returns a value with a len() for this call (a binding later checks reuse)."""
    try:
        len(eval(expression, env))  # noqa: S307 - our own generated expression
        return True
    except Exception:  # noqa: BLE001
        return False


def generate(seed: int) -> dict:
    """One record spec for build.build, and the sites that loop by design (``slow``)."""
    rng = random.Random(seed)
    contract = rng.choice(CONTRACTS)
    preamble = contract.preamble + "\n" + contract.correct.replace("def solve(", "def reference(", 1)
    env: dict = {"N": 1}
    exec(preamble, env)  # noqa: S102 - our own generated code
    exec(contract.correct, env)  # noqa: S102
    lines, slow = [], []
    count = rng.randint(2, 7)
    calls = 0
    bound = None
    for i in range(count):
        args = ", ".join(contract.args(rng))
        call = f"solve({args})"
        label = f"c{i} " + rng.choice(["", "naïve ", "🙂 ", "long " * 3])
        if contract.inplace:
            shape = rng.choice(["bare", "returns", "tuple"])
            data = args
            lines.append(f"data{i} = {data}")
            if shape == "bare":
                lines.append(f"solve(data{i})")
                env_data = eval(data, env)  # noqa: S307
                env["reference"](env_data)
                lines.append(f"check({label!r}, data{i}, {lit(env_data)})")
            elif shape == "returns":
                lines.append(f"check({label!r}, solve(data{i}), None)")
                env_data = eval(data, env)  # noqa: S307
                env["reference"](env_data)
                lines.append(f"check({label!r} + ' after', data{i}, {lit(env_data)})")
            else:
                env_data = eval(data, env)  # noqa: S307
                env["reference"](env_data)
                lines.append(f"check({label!r}, (solve(data{i}), data{i})[1], {lit(env_data)})")
            calls += 1
            continue
        template = rng.choice(contract.expressions)
        expression = template.format(call=call, args=args)
        calls += template.count("{call}") + (1 if "{args}" in template else 0)
        shape = rng.random()
        if shape < 0.08:
            error = rng.choice(["ZeroDivisionError", "Exception", "(ValueError, TypeError)"])
            lines.append(f"try:\n    check({label!r}, {expression}, {_expected(contract, expression, env)})\n"
                         f"except {error}:\n    check({label!r} + ' raised', {error!r}, {error!r})")
            continue
        if shape < 0.2 and bound is None and template == "{call}" and _returns(call, env):
            bound = f"res{i}"
            env[bound] = eval(call, env)  # noqa: S307
            lines.append(f"check({label!r}, ({bound} := {call}), {_expected(contract, call, env)})")
            continue
        if shape < 0.32 and bound is not None:
            lines.append(f"check({label!r} + ' reuse', len({bound}), {lit(len(env[bound]))})")
            continue
        if shape < 0.4:
            lines.append(f"for k in range(N + 1):\n    check(f'{label}loop {{k}}', {expression}, {expression.replace('solve(', 'reference(')})")
            calls += 2 * template.count("{call}")
            continue
        lines.append(f"check({label!r}, {expression}, {_expected(contract, expression, env)})")
    fixtures = "\n".join(lines)
    implementations = {}
    for role in ("attempt", "broken"):
        source = rng.choice(contract.mutations + [contract.correct] * (role == "attempt"))
        if rng.random() < 0.35:
            how = rng.choice(GENERIC)
            source = _signature_wrapper(contract, _wrap(source, how, rng.randint(1, max(calls, 1))))
            if how == "slow":
                slow.append(role)
        implementations[role] = source
    return dict(
        title=f"Generated record {seed}: {contract.name}",
        category="Generated",
        family=f"generated-{contract.name.replace(' ', '-')}",
        contract=f"Generated contract: {contract.name}.",
        contract_signature=contract.signature,
        abstract="A generated record for the differential test.",
        failed_approach="A small mutation of a correct implementation.",
        root_cause="Generated.",
        preamble=preamble,
        attempt=implementations["attempt"],
        broken=implementations["broken"],
        reference=contract.correct,
        fixtures=fixtures,
        slow=tuple(slow),
    )


# ------------------------------------------------------------------------ sealing


def harness_run(source: str, timeout: float = HARNESS_TIMEOUT) -> dict | None:
    """`build.run_script` (``python -c SCRIPT``), or None when the script does not finish in time."""
    try:
        return build.run_script(source) if timeout >= 60 else _run(source, timeout)
    except subprocess.TimeoutExpired:
        return None


def _run(source: str, timeout: float) -> dict:
    started = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", source], capture_output=True, text=True, timeout=timeout)
    elapsed = (time.perf_counter() - started) * 1000
    try:
        observations = json.loads(proc.stdout.splitlines()[-1])["observations"]
    except (IndexError, ValueError, KeyError):
        observations = []
    return {
        "elapsed_ms": round(elapsed, 3), "exit_code": proc.returncode, "observations": observations, "passed": proc.returncode == 0,
        "stderr": proc.stderr.replace('File "<string>"', 'File "/tmp/failure_map_script.py"'), "stdout": proc.stdout,
    }


LOCK = threading.Lock()
"""Held while a record is built from its harness runs and read back: callers may run the harness on several threads."""


def seal(record_id: str, spec: dict) -> dict | None:
    """The full record (as build.build makes it, verification by the real harness), or None if a script hangs."""
    runs = {}
    for name in ("attempt", "broken"):
        run = harness_run(build.script(spec[name], spec["fixtures"], spec["preamble"]))
        if run is None:
            return None
        runs[name] = run
    with LOCK:  # build.run_script is swapped for this record's runs, and CPython 3.11's ast is not safe across threads
        original, build.run_script = build.run_script, lambda source: runs["attempt" if source == build.script(spec["attempt"], spec["fixtures"], spec["preamble"]) else "broken"]
        try:
            record = build.build(record_id, spec)
        finally:
            build.run_script = original
        if any(_crashed_outside_checks(record, name) for name in runs):
            return None  # record build refuses it too: the fixture code, not a check, crashed (json.dumps of a dataclass, say)
    counts = [len(r["observations"]) for r in runs.values() if r["observations"]]
    if counts:
        record["checks"] = counts[0]
    else:
        record.pop("checks")
    return record


def _crashed_outside_checks(data: dict, name: str) -> bool:
    import tempfile

    from failuremap_edu import load_record
    from failuremap_edu._fixtures import read_fixtures
    from failuremap_edu._parity import parse_crash

    run = data["verification"][name]
    crash = parse_crash(run["stderr"]) if not run["observations"] else None
    if crash is None or crash.lineno is None:
        return False
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"{data['id']}.json"
        path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
        return read_fixtures(load_record(path), name).site_for_line(crash.lineno) is None


def main(argv: list[str]) -> None:
    out, count, first = Path(argv[0]), int(argv[1]), int(argv[2]) if len(argv) > 2 else 0
    out.mkdir(parents=True, exist_ok=True)
    for seed in range(first, first + count):
        record = seal(f"GEN-{seed:06d}", generate(seed))
        if record is not None:
            (out / f"GEN-{seed:06d}.json").write_text(json.dumps(record, ensure_ascii=False, indent=1, sort_keys=True) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1:])
