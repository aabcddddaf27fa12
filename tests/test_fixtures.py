"""Fixtures are read with ast: check sites, preamble, signature, variants."""

from __future__ import annotations

import pytest

from conftest import OWN, record_path, reseal
from failuremap_edu import RecordError, load_record, read_fixtures


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


def test_checks_inside_loops_are_marked_repeating():
    fx = read_fixtures(load_record(record_path("TR-000202")))
    assert [s.repeats for s in fx.sites] == [False, False, False, True]
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
