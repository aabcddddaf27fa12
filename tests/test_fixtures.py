"""Fixtures are read with ast: check sites, preamble, signature, variants."""

from __future__ import annotations

import json

import pytest

from conftest import OWN, record_path, reseal
from failuremap_edu import RecordError, load_record
from failuremap_edu._fixtures import read_fixtures


def test_sites_of_a_packaged_record(stopping):
    fx = read_fixtures(stopping)
    assert [s.label for s in fx.sites] == [
        "partial marker held", "no prefix emits all", "longest suffix prefix",
        "empty stop list", "whole marker prefix", "short input",
    ]
    first = fx.sites[0]
    assert (first.lineno, first.actual_source, first.expected_source) == (11, "solve('hello<st', ['<stop>'])", "('hello', '<st')")
    assert fx.static_count == 6 and not fx.uses_variant and fx.default_variant == 1
    assert "def check(label, actual, expected)" in fx.preamble_source
    assert "def solve" not in fx.preamble_source
    assert fx.solve_source.startswith("def solve(text, stops):")


def test_preamble_keeps_variant_assignments(pairs):
    fx = read_fixtures(pairs)
    assert "a='a'+str(N); b='b'+str(N)" in fx.preamble_source
    assert fx.uses_variant
    assert fx.sites[0].actual_source == "solve([[a, 'one', N + 5], [a, 'changed', -N], [b, 'two', 0]])"


def test_helpers_imports_and_keywords():
    fx = read_fixtures(load_record(record_path("TR-000101")))
    assert "import collections" in fx.preamble_source and "def words(text)" in fx.preamble_source
    assert fx.keywords_used == {"k", "normalize"}
    assert not fx.uses_variant


def test_checks_inside_loops_are_marked_dynamic():
    fx = read_fixtures(load_record(record_path("TR-000202")))
    assert [s.dynamic for s in fx.sites] == [False, False, False, True]
    assert fx.sites[3].label == "f'size {size} of ñandú'" and not fx.sites[3].label_is_literal
    assert fx.static_count is None and fx.uses_variant


def test_site_for_line_spans_multiline_calls(raw_record, write_record):
    src = raw_record["implementations"]["attempt"]["source"]
    src = src.replace("check('short input',solve('x',['long']),('x',''))", "check('short input',\n      solve('x',['long']),\n      ('x',''))")
    raw_record["implementations"]["attempt"]["source"] = src
    fx = read_fixtures(load_record(write_record(reseal(raw_record))))
    site = fx.sites[-1]
    assert (site.lineno, site.end_lineno) == (16, 18)
    assert fx.site_for_line(17) is site and fx.site_for_line(19) is None


@pytest.mark.parametrize(
    "old, new, message",
    [
        ("def check(label, actual, expected):", "def record(label, actual, expected):", "defines no harness function check"),
        ("check('short input',solve('x',['long']),('x',''))", "check('short input',solve('x',['long']))", "line 16: check() must be called with (label, actual, expected)"),
        ("check('short input',solve('x',['long']),('x',''))", "check(*('short input',solve('x',['long']),('x','')))", "cannot be read statically"),
    ],
)
def test_scripts_without_the_expected_anatomy(raw_record, write_record, old, new, message):
    for impl in raw_record["implementations"].values():
        impl["source"] = impl["source"].replace(old, new)
        if old.startswith("def check"):
            impl["source"] = impl["source"].replace("check(", "record(")
    record = load_record(write_record(reseal(raw_record)))
    with pytest.raises(RecordError, match=message.replace("(", r"\(").replace(")", r"\)")):
        read_fixtures(record)


def test_script_with_no_checks(raw_record, write_record):
    for impl in raw_record["implementations"].values():
        impl["source"] = "\n".join(line for line in impl["source"].splitlines() if not line.startswith("check("))
    with pytest.raises(RecordError, match="contains no check"):
        read_fixtures(load_record(write_record(reseal(raw_record))))


@pytest.mark.parametrize("record_id", OWN)
def test_every_own_record_reads(record_id):
    record = load_record(record_path(record_id))
    for impl in ("attempt", "broken"):
        fx = read_fixtures(record, impl)
        assert fx.sites and fx.filename == f"<failuremap {record_id} {impl}>"


def test_unknown_implementation(stopping):
    with pytest.raises(KeyError, match="has no implementation 'fixed'"):
        read_fixtures(stopping, "fixed")


def _with_fixtures(raw_record, write_record, fixtures: str):
    """FA-100786 with its six check lines replaced by `fixtures` (both scripts)."""
    for impl in raw_record["implementations"].values():
        lines = impl["source"].splitlines(keepends=True)
        first = next(i for i, line in enumerate(lines) if line.startswith("check("))
        last = max(i for i, line in enumerate(lines) if line.startswith("check("))
        impl["source"] = "".join(lines[:first]) + fixtures + "".join(lines[last + 1:])
    return load_record(write_record(reseal(raw_record)))


WALRUS_FIXTURES = """\
check('module level', (res := solve('hello<st', ['<stop>'])), ('hello', '<st'))
check('read back', res[1], '<st')
check('expected reads the actual', solve((once := solve('ab<s', ['<stop>']))[0], ['<stop>']), (once[0][:-2], once[0][-2:]))
def helper(text):
    check('in a helper', len(got := solve(text, [])), 2)
    check('helper reads back', got, (text, ''))
    return got
kept = helper('abc')
check('helper returned it', kept, ('abc', ''))
done = [check(f'comprehension {k}', (last := solve('x' * k, [])), ('x' * k, '')) for k in (1, 2)]
check('comprehension binds outside', last, ('xx', ''))
"""


def test_walrus_inside_check_binds_in_the_enclosing_scope(raw_record, write_record):
    """`check('a', (res := solve(...)), ...); check('b', res, ...)` is valid Python: replay must agree."""
    import subprocess
    import sys

    from failuremap_edu import replay

    record = _with_fixtures(raw_record, write_record, WALRUS_FIXTURES)
    script = subprocess.run([sys.executable, "-c", record.implementations["attempt"].source], capture_output=True, text=True, timeout=60)
    assert script.stderr == ""
    expected = [(o["check"], o["passed"]) for o in json.loads(script.stdout.splitlines()[-1])["observations"]]
    result = replay(record, "attempt")
    assert result.problem is None, result.problem
    assert [o.error for o in result.observations if o.error] == []
    assert [(o.check, o.passed) for o in result.observations] == expected
    assert len(expected) == 9


def test_walrus_that_never_completed_leaves_its_name_unbound(raw_record, write_record):
    """As in Python: when solve raises, the target is not bound, and only the checks that read it fail."""
    from failuremap_edu import run_checks

    fixtures = (
        "check('raises', (res := solve('boom', [])), ('boom', ''))\n"
        "check('reads it', res, ('boom', ''))\n"
        "check('independent', solve('ok', []), ('ok', ''))\n"
        "check('binds later', (res := solve('later', [])), ('later', ''))\n"
        "check('reads the new value', res, ('later', ''))\n"
    )
    record = _with_fixtures(raw_record, write_record, fixtures)

    def solve(text, stops):
        if text == "boom":
            raise ValueError("boom")
        return text, ""

    result = run_checks(record, solve)
    assert [o.status for o in result.observations] == ["error", "error", "pass", "pass", "pass"]
    assert result.observations[1].error.type == "NameError" and "'res'" in result.observations[1].error.message


FIVE_CHECKS = """\
check('a', solve('hello<st', ['<stop>']), ('hello', '<st'))
check('b', solve('hello', ['<stop>']), ('hello', ''))
check('c', solve('abc', []), ('abc', ''))
check('d', solve('<stop>', ['<stop>']), ('<stop>', ''))
"""


@pytest.mark.parametrize(
    "conditional",
    [
        "if N > 2:\n    check('only for N > 2', solve('x', ['long']), ('x', ''))\n",
        "try:\n    check('in try', solve('x', ['long']), ('x', ''))\nexcept ZeroDivisionError:\n    pass\n",
        "try:\n    pass\nfinally:\n    check('in finally', solve('x', ['long']), ('x', ''))\n",
        "import contextlib\nwith contextlib.suppress(ZeroDivisionError):\n    check('in with', solve('x', ['long']), ('x', ''))\n",
        "match N:\n    case 3:\n        check('in match', solve('x', ['long']), ('x', ''))\n",
        "check('in if-expression', solve('x', ['long']), ('x', '')) if N > 2 else None\n",
        "N > 2 and check('lazy operand', solve('x', ['long']), ('x', ''))\n",
    ],
)
def test_checks_inside_compound_statements_are_not_counted_before_running(raw_record, write_record, conditional):
    """The panel's 'K of N checks' must never promise a check that does not run."""
    from failuremap_edu import run_checks

    record = _with_fixtures(raw_record, write_record, FIVE_CHECKS + "check('e', solve('ababa', ['ababx', 'baq']), ('ab', 'aba'))\n" + conditional)
    fx = read_fixtures(record)
    assert [s.dynamic for s in fx.sites] == [False] * 5 + [True]
    assert fx.static_count is None
    ran = {len(run_checks(record, lambda text, stops: (text, ""), variant=v, isolation="inprocess").observations) for v in (1, 3)}
    assert len(ran) == 2 or conditional.startswith(("try", "import"))


@pytest.mark.parametrize(
    "header",
    [
        "if check('an if test runs once', solve('x', []), ('x', '')):\n    pass\n",
        "for _ in [check('a for iterable runs once', solve('x', []), ('x', ''))]:\n    pass\n",
        "match check('a match subject runs once', solve('x', []), ('x', '')):\n    case _:\n        pass\n",
    ],
)
def test_a_check_in_a_compound_statements_header_is_counted(raw_record, write_record, header):
    from failuremap_edu import run_checks

    record = _with_fixtures(raw_record, write_record, FIVE_CHECKS + header)
    fx = read_fixtures(record)
    assert [s.dynamic for s in fx.sites] == [False] * 5
    result = run_checks(record, lambda text, stops: (text, ""), isolation="inprocess")
    assert fx.static_count == result.total == 5


def test_record_code_does_not_inherit_our_future_imports():
    """TR-000505 defines a @dataclass: under our `from __future__ import annotations` it stopped with AttributeError."""
    import __future__

    fx = read_fixtures(load_record(record_path("TR-000505")))
    for replay in (True, False):
        for code in (fx.program(replay), fx.setup(replay)):
            assert not code.co_flags & __future__.annotations.compiler_flag
    namespace = {"__name__": "__failuremap__", "__fm_variant__": 1, "__fm_check__": lambda *thunks: None, "__fm_wrap__": lambda f: f}
    exec(fx.setup(True), namespace)
    assert namespace["Span"](1, 2).end == 2 and namespace["Span"].__annotations__ == {"start": int, "end": int}
# --------------------------------------------------------- the compared expression (issue 21 §1)


def test_a_check_site_keeps_a_combining_accent_escaped_as_a_value_shows_it(raw_record, write_record):
    """unparse wrote solve('cafe\\u0301') == solve('caf\\u00e9') as solve('café') == solve('café'): a check of two
    equal-looking calls (a trial's timeout view, where the calls as they happened are not known)."""
    from failuremap_edu._fixtures import compared_expression

    source = raw_record["implementations"]["attempt"]["source"]
    raw_record["implementations"]["attempt"]["source"] = source.replace(
        "print(json.dumps", "check('accent', solve('cafe\\u0301', []) == solve('caf\\u00e9', []), True)\nprint(json.dumps", 1)
    sites = read_fixtures(load_record(write_record(reseal(raw_record)))).sites
    accent = next(site for site in sites if site.label == "accent")
    assert accent.actual_source == "solve('cafe\\u0301', []) == solve('café', [])"
    assert compared_expression(accent.actual_source, [], 1) == "solve('cafe\\u0301', []) == solve('café', [])"


def test_the_compared_expression_gets_the_calls_and_n_filled_in():
    from failuremap_edu._fixtures import compared_expression

    assert compared_expression("solve(N + 4, pad=N)[-1]", ["solve(5, pad=1)"], 1) == "solve(5, pad=1)[-1]"
    assert compared_expression("solve(1, peak=0.01, warmup=4)[0] > 0", ["solve(1, peak=0.01, warmup=4)"], 2) == "solve(1, peak=0.01, warmup=4)[0] > 0"
    assert compared_expression("len(solve(N + 12))", ["solve(14)"], 2) == "len(solve(14))"
    assert compared_expression("sorted(solve([('x', 'y')] * N))", ["solve([('x', 'y'), ('x', 'y')])"], 2) == "sorted(solve([('x', 'y'), ('x', 'y')]))"
    # a walrus, and two calls, one inside the other: the outer call as it happened holds the inner one's value
    assert compared_expression("(out := solve(batch))[0]", ["solve([[8]])"], 1) == "(out := solve([[8]]))[0]"
    assert compared_expression("solve((once := solve(batch))[0])[0]", ["solve([[8]])", "solve([[8, 0]])"], 1) == "solve([[8, 0]])[0]"
    assert compared_expression("solve(a) == solve(b)", ["solve(1)", "solve(2)"], 1) == "solve(1) == solve(2)"
    # non-ASCII before a call: offsets are bytes, the result is text
    assert compared_expression("('é', solve(N)[N])", ["solve(3)"], 3) == "('é', solve(3)[3])"


def test_a_bare_call_has_no_compared_expression_and_unmatched_calls_stay_as_written():
    from failuremap_edu._fixtures import compared_expression, is_bare_call

    assert compared_expression("solve(x, N)", ["solve(1, 1)"], 1) == "" and is_bare_call("solve(x, N)")
    assert not is_bare_call("solve(x)[0]") and not is_bare_call("out[1]")
    assert compared_expression("out[1]", [], 4) == "out[1]"  # no call in this check: the expression as written
    # calls in a comprehension cannot be matched one to one: only N is filled in
    assert compared_expression("[solve(k) for k in range(N)]", ["solve(0)", "solve(1)"], 2) == "[solve(k) for k in range(2)]"
    assert compared_expression("solve(x)[0]", [], 1) == "solve(x)[0]"  # solve never entered (it timed out before)
