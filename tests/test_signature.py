"""The contract's parameter list against a learner's solve."""

from __future__ import annotations

import ast

import pytest

from failuremap_edu._signature import Params, mismatch, parse_params


def params_of(source: str) -> Params:
    fn = ast.parse(source).body[0]
    return Params.from_ast(fn.args)


@pytest.mark.parametrize(
    "contract, learner",
    [
        ("text, stops", "def solve(text, stops): pass"),
        ("text, stops", "def solve(s, stop_list): pass"),  # positional names are free
        ("text, stops", "def solve(*args): pass"),
        ("text, stops", "def solve(text, stops, debug=False): pass"),  # extra optional is fine
        ("items, k=2", "def solve(items, k=5): pass"),
        ("items, k=2, *, normalize=False", "def solve(items, k=2, *, normalize=False): pass"),
        ("items, k=2, *, normalize=False", "def solve(items, k=2, **options): pass"),
        ("candidates", "def solve(candidates, /): pass"),
    ],
)
def test_fits(contract, learner):
    assert mismatch(parse_params(contract), params_of(learner)) is None


@pytest.mark.parametrize(
    "contract, learner, keywords, expected",
    [
        ("text, stops", "def solve(text): pass", (), "takes 1 positional argument (text) but the contract passes up to 2"),
        ("items, k=2", "def solve(items, k): pass", (), "parameter 'k' needs a default"),
        ("text", "def solve(text, extra): pass", (), "requires 'extra', which the contract"),
        ("items, *, normalize=False", "def solve(items): pass", (), "has no parameter 'normalize'"),
        ("items, *, normalize=False", "def solve(items, *, normalize): pass", (), "'normalize' needs a default"),
        ("items, k=2", "def solve(items, size=2): pass", ("k",), "has no parameter 'k'"),
        ("a, b", "def solve(b, a): pass", ("b",), "'b' is in a different position"),
        ("text", "def solve(text, *, strict): pass", (), "requires keyword 'strict'"),
        ("*parts", "def solve(a, b): pass", (), "add *parts"),
        ("x, **opts", "def solve(x): pass", (), "add **opts"),
    ],
)
def test_mismatch_messages(contract, learner, keywords, expected):
    problem = mismatch(parse_params(contract), params_of(learner), keywords)
    assert problem is not None and expected in problem
    assert "\n" not in problem


def test_from_callable_reads_defaults_and_kinds():
    def solve(text, stops=(), *, strict=False, **extra):
        pass

    assert str(Params.from_callable(solve)) == "text, stops=(), *, strict=False, **extra"


def test_str_round_trips_separators():
    for text in ("a, /, b", "a, *args, b=1", "a, *, b", "*, key", "x=1, **kw"):
        assert str(parse_params(text)) == text


@pytest.mark.parametrize("bad", ["text,, stops", "1x", "a):\n    pass\ndef f(b", "a\nb", 7])
def test_parse_rejects_non_parameter_lists(bad):
    with pytest.raises(ValueError):
        parse_params(bad)
