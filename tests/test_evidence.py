"""The match with the attempt, by evidence: the claim, its verifier, the mutants that weigh it, and what the panel says of it."""

from __future__ import annotations

import ast

import pytest
from hypothesis import given, settings, strategies as st

from conftest import record_path
from failuremap_edu import Exercise, load_record, replay, run_checks
from failuremap_edu._evidence import (
    MatchesImplementation, compared_same, match_claim, mutant_sources, run_mutants, verify_match,
)
from failuremap_edu._hints import hint_ladder, mistake_note
from failuremap_edu._results import Observation, RunResult
from failuremap_edu._values import Opaque


def _run(solver: str, *observations: Observation, variant: int = 1) -> RunResult:
    return RunResult("TR-000000", solver, variant, tuple(observations), 1.0, "process")


def _fail(index: int, label: str, actual, expected, compared: str = "", returned: tuple = ()) -> Observation:
    return Observation(index, label, "fail", False, actual, expected, f"solve({index})", compared, returned)


def _pass(index: int, label: str, value) -> Observation:
    return Observation(index, label, "pass", True, value, value, f"solve({index})")


# ------------------------------------------------------------ decided on the compared value


def test_a_generator_and_a_list_that_the_check_compares_alike_are_a_match():
    """first_batch_reads(3) was 1000 for the learner's solve and the attempt's, but solve returned a generator, not a list:
    the panel called it a mistake of its own. The check compares 1000, so the match is on 1000."""
    generator = Opaque("generator", "<generator object solve at 0x7f>", "not plain data")
    mine = _fail(0, "reads", 1000, 1024, "first_batch_reads(solve(3))", (("solve(3)", generator),))
    theirs = _fail(0, "reads", 1000, 1024, "first_batch_reads(solve(3))", (("solve(3)", [1000, 24]),))
    assert compared_same(mine, theirs)
    replays = {(1, "attempt"): _run("attempt", theirs), (1, "broken"): _run("broken", _pass(0, "reads", 1024))}
    claim = match_claim([_run("yours", mine)], replays)
    assert (claim.which, claim.checks, claim.own) == ("attempt", ((1, 0),), ())
    assert verify_match(claim, [_run("yours", mine)], replays)
    record = load_record(str(record_path("TR-001010")))
    assert "a mistake of its own" not in mistake_note(record, (_run("yours", mine),), replays)


def test_a_match_is_of_equal_values_of_the_same_types():
    assert not compared_same(_fail(0, "x", [[0, 2]], [(0, 2)]), _fail(0, "x", [(0, 2)], [(0, 2)]))
    assert not compared_same(_fail(0, "x", [1], None), _fail(0, "x", [1.0], None))
    assert not compared_same(_fail(0, "x", 1, 2), _fail(0, "y", 1, 2))  # another check
    assert compared_same(_fail(0, "x", {"a": (1, 2)}, None), _fail(0, "x", {"a": (1, 2)}, None))


# ----------------------------------------------------------------------- the verifier


def test_the_verifier_rejects_a_claim_that_does_not_hold():
    mine = _run("yours", _fail(0, "a", 1, 2), _fail(1, "b", 5, 3), _pass(2, "c", 0))
    replays = {(1, "attempt"): _run("attempt", _fail(0, "a", 1, 2), _fail(1, "b", 4, 3), _fail(2, "c", 9, 0)),
               (1, "broken"): _run("broken", _pass(0, "a", 2), _pass(1, "b", 3), _pass(2, "c", 0))}
    claim = match_claim([mine], replays)
    assert (claim.checks, claim.own, claim.strength) == (((1, 0),), ((1, 1),), "unknown")
    assert verify_match(claim, [mine], replays)
    for wrong in (
        MatchesImplementation("attempt", ((1, 0), (1, 1)), "unknown", ((1, 0), (1, 1)), ()),  # 'b' gives another value
        MatchesImplementation("attempt", ((1, 0),), "unknown", ((1, 0),), ()),  # 'b' left out of both parts
        MatchesImplementation("broken", ((1, 0),), "unknown", ((1, 0),), ((1, 1),)),  # broken passes 'a'
        MatchesImplementation("attempt", ((1, 2),), "unknown", ((1, 2),), ((1, 0), (1, 1))),  # 'c' is passed
    ):
        assert not verify_match(wrong, [mine], replays), wrong


# -------------------------------------------------------------------------- mutants


def _solve_and_rest(source: str) -> tuple[str, str]:
    tree = ast.parse(source)
    solve = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "solve"][-1]
    rest = ast.unparse([n for n in tree.body if n is not solve])
    return ast.unparse(solve), rest


@pytest.mark.parametrize("record_id", ["FA-100061", "FA-100786", "TR-001010", "TR-000909", "TR-001212", "TR-001414"])
def test_mutants_change_solve_only_and_are_the_same_each_time(record_id):
    record = load_record(record_id if record_id.startswith("FA") else str(record_path(record_id)))
    for name in ("attempt", "broken"):
        source = record.implementations[name].source
        mutants = mutant_sources(source)
        assert 2 <= len(mutants) <= 6 and len(set(mutants)) == len(mutants) and mutants == mutant_sources(source)
        solve, rest = _solve_and_rest(source)
        for text in mutants:
            compile(text, "<mutant>", "exec")
            mutated_solve, mutated_rest = _solve_and_rest(text)
            assert mutated_solve != solve and mutated_rest == rest  # the harness, the fixtures and any reference are untouched


def test_mutants_of_attempt_and_broken_run_once_per_variant_and_fail_as_mistakes_do():
    record = load_record(str(record_path("TR-001010")))
    tally = run_mutants(record, 1, 2.0)
    origins = [origin for origin, _ in tally.runs]
    assert origins.count("attempt") >= 2 and origins.count("broken") >= 2
    assert all(run.variant == 1 and run.total == 4 for _, run in tally.runs)
    assert any(not run.passed for _, run in tally.runs)


def test_a_check_many_mistakes_fail_alike_is_no_evidence_and_a_specific_one_is():
    """'first step nonzero' compares solve(1)[0] > 0: False for most mistakes. 'warmup ramp' compares the whole ramp."""
    record = load_record(str(record_path("TR-001010")))
    attempt, broken = replay(record, "attempt"), replay(record, "broken")
    replays, tallies = {(1, "attempt"): attempt, (1, "broken"): broken}, {1: run_mutants(record, 1, 2.0)}
    claim = match_claim([attempt], replays, tallies)
    assert (claim.checks, claim.informative, claim.strength) == (((1, 0), (1, 1)), ((1, 0),), "informative")
    assert verify_match(claim, [attempt], replays, tallies)
    flipped = MatchesImplementation("attempt", claim.checks, "informative", ((1, 0), (1, 1)), ())
    assert not verify_match(flipped, [attempt], replays, tallies)  # 'first step nonzero' is not informative


# ----------------------------------------------------------------- what is said of it


def _warmup():
    return load_record(str(record_path("TR-001010")))


def _warmup_replays(record):
    return {(1, "attempt"): replay(record, "attempt"), (1, "broken"): replay(record, "broken")}


def test_a_partial_match_says_which_checks_match_and_which_are_your_own():
    """One exercise's summary blamed the attempt's mistake for 5 of 5 failures where 2 were of another mistake."""
    record = _warmup()
    replays, tallies = _warmup_replays(record), {1: run_mutants(record, 1, 2.0)}

    def solve(steps, *, peak, warmup):  # the attempt's ramp, and one step too few on short runs: a mistake of its own
        ramp = [min(peak * t / warmup, peak) for t in range(steps)]
        return ramp if steps > 4 or steps == 1 else ramp[:-1]

    mine = run_checks(record, solve, 1)
    claim = match_claim([mine], replays, tallies)
    assert (claim.checks, claim.informative, claim.own) == (((1, 0), (1, 1)), ((1, 0),), ((1, 2),))
    assert verify_match(claim, [mine], replays, tallies)
    assert mistake_note(record, (mine,), replays, tallies) == (
        "Your solve gets the same wrong results as the plausible attempt on 'warmup ramp', 'first step nonzero' (2 of 3 failing "
        "checks); on 'one rate per step' the wrong results are your own. 'warmup ramp' is a sign of its mistake; "
        f"'first step nonzero' is failed the same way by many mistakes. The plausible attempt's mistake was: {record.failed_approach}"
    )
    titles = [h.title for h in hint_ladder(record, replays[(1, "attempt")], replays[(1, "broken")], mine, claim)]
    assert titles[2:] == ["The plausible attempt's mistake, where your results match it ('warmup ramp')", "Root cause of the attempt's failure"]


def test_the_attempts_story_is_not_told_on_uninformative_matches_alone():
    """Hint 3 said 'The precision denominator counts gold labels' to a learner whose precision was already fixed."""
    record = _warmup()
    replays, tallies = _warmup_replays(record), {1: run_mutants(record, 1, 2.0)}
    mine = run_checks(record, lambda steps, *, peak, warmup: [0.0] + [peak] * (steps - 1), 1)  # fails step 0 as the attempt does
    claim = match_claim([mine], replays, tallies)
    assert claim.strength == "uninformative" and claim.informative == ()
    note = mistake_note(record, (mine,), replays, tallies)
    assert record.failed_approach not in note and "which many mistakes fail the same way" in note
    hints = hint_ladder(record, replays[(1, "attempt")], replays[(1, "broken")], mine, claim)
    assert all(record.failed_approach != h.text and record.root_cause != h.text for h in hints)
    assert "your mistake" not in (note + " ".join(h.title + h.text for h in hints)).lower()


def test_hint_one_is_the_first_check_you_still_fail_in_record_order(pairs):
    """Hint 1 named the second failing check (the one that isolates the attempt's mistake), not the first one left."""
    attempt, broken = replay(pairs, "attempt"), replay(pairs, "broken")
    isolating = hint_ladder(pairs, attempt, broken)[0].text
    first_failing = next(o for o in attempt.observations if o.status != "pass")
    assert first_failing.check not in isolating  # before a run of yours: the isolating check
    first, second = hint_ladder(pairs, attempt, broken, replay(pairs, "attempt"))[:2]
    assert first.text.startswith(f"Start with the check '{first_failing.check}', the first one you still fail")
    assert second.title == "What the attempt does there, and yours too"


def test_hints_opened_are_folded_again_on_a_new_run():
    e = Exercise(str(record_path("TR-001010")), timeout=1.0, log_progress=False)
    e.check(lambda steps, *, peak, warmup: [min(peak * t / warmup, peak) for t in range(steps)])
    e.reveal_hint()
    e.reveal_hint()
    assert e.hints_shown == 2
    e.check(lambda steps, *, peak, warmup: [peak] * steps)
    assert e.hints_shown == 0 and "Hint 1" not in e.text()


def test_mutants_run_only_when_a_match_is_weighed_and_once_per_variant():
    e = Exercise(str(record_path("TR-001010")), timeout=1.0, log_progress=False)
    e.check(lambda steps, *, peak, warmup: [peak * 3] * steps)  # no match: nothing to weigh
    assert e.match is None and e._mutants == {}
    e.check(lambda steps, *, peak, warmup: [min(peak * t / warmup, peak) for t in range(steps)])
    tally = e._mutants[1]
    e.check(lambda steps, *, peak, warmup: [min(peak * t / warmup, peak) for t in range(steps)] + [])
    assert e._mutants[1] is tally and e.match.strength == "informative"


def test_the_renderers_say_the_match_as_the_attempts():
    e = Exercise(str(record_path("TR-001010")), timeout=1.0, log_progress=False)
    e.check(lambda steps, *, peak, warmup: [min(peak * t / warmup, peak) for t in range(steps)])
    line = ("Your solve gets the same wrong results as the plausible attempt on 2 of 2 failing checks. 'warmup ramp' is a sign of "
            "its mistake; 'first step nonzero' is failed the same way by many mistakes. The plausible attempt's mistake was: " + e.record.failed_approach)
    assert line in e.text().splitlines()
    assert line.replace("'", "&#x27;") in e.static_html()


# ------------------------------------------------ property: generated records, mutated solves


def _generated(seed: int, folder):
    import json

    import generate_records as gen

    spec = gen.generate(seed)
    if spec["slow"]:
        return None
    data = gen.seal(f"GEN-{seed:06d}", spec)
    if data is None:
        return None
    path = folder / f"GEN-{seed:06d}.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return spec, path


def _solves(spec: dict) -> list:
    """Learners' solves: the attempt's, broken's and the reference's code, and mutants of each."""
    out = []
    for source in (spec["attempt"], spec["broken"], spec["reference"]):
        for text in (source, *mutant_sources(source, 2)):
            namespace: dict = {"__name__": "__main__", "N": 1}
            try:
                exec(spec["preamble"], namespace)  # noqa: S102 - generated test code
                exec(text, namespace)  # noqa: S102
            except Exception:  # noqa: BLE001 - a wrapper the generator adds may need the script's globals
                continue
            out.append(namespace["solve"])
    return out


def _panel_claims_hold(e: Exercise) -> None:
    from failuremap_edu._claims import equal

    yours = e.runs
    failing = [(r.variant, o) for r in yours for o in r.observations if o.status in ("fail", "error") and not
               (o.error is not None and o.error.type == "NotRun")]
    if e.match is not None:
        assert verify_match(e.match, yours, e._replays, e._mutants), (e.match, e.mistake)
    else:  # no match said: no failing check of yours gives attempt's or broken's compared value
        for v, o in failing:
            for which in ("attempt", "broken"):
                t = e._replays[(v, which)].observations[o.index] if o.index < len(e._replays[(v, which)].observations) else None
                assert not (t is not None and t.status == o.status == "fail" and type(t.actual) is type(o.actual) and equal(t.actual, o.actual)
                            and repr(t.actual) == repr(o.actual)), (which, o)
    shown = (e.mistake or "") + " ".join(h.text for h in e.hints)
    told = e.record.failed_approach in shown
    if failing and told:  # the attempt's story is told only where yours is evidence of it
        titles = " ".join(h.title for h in e.hints)
        assert (e.match is not None and e.match.which == "attempt" and e.match.informative) or "part of" in shown + titles, (e.match, e.mistake)
    if failing:
        first = next(o for o in yours[0].observations if o.status in ("fail", "error") and not (o.error and o.error.type == "NotRun"))
        assert e.hints[0].text.startswith(f"Start with the check '{first.check}', the first one you still fail") or \
            e.hints[0].text.startswith("Your solve does not finish"), e.hints[0].text
    for h in e.hints:
        for which, who in (("attempt", "the attempt"), ("broken", "the broken version")):
            if h.title == f"What {who} does there, and yours too":  # said only where the summary's claim says so
                assert e.match is not None and e.match.which == which and (yours[0].variant, first.index) in e.match.checks
        if h.title == "What your solve does there" and e.match is not None:
            assert (yours[0].variant, first.index) not in e.match.checks


def _property(seeds, tmp_path) -> int:
    claims = 0
    for seed in seeds:
        made = _generated(seed, tmp_path)
        if made is None:
            continue
        spec, path = made
        e = Exercise(str(path), timeout=1.0, log_progress=False)
        for solve in _solves(spec):
            e.check(solve)
            _panel_claims_hold(e)
            claims += e.match is not None
    return claims


def test_every_match_claim_the_panel_makes_verifies_on_generated_records(tmp_path):
    assert _property(range(300, 306), tmp_path) > 0


@pytest.mark.slow
@pytest.mark.timeout(3600)
def test_every_match_claim_verifies_on_many_generated_records(tmp_path):
    assert _property(range(5000, 5080), tmp_path) > 20


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from([0, 1, 2, (0, 1), [0, 1], "a", None]), min_size=1, max_size=6), st.data())
def test_the_claim_verifies_on_generated_runs(mine_values, data):
    """Runs of yours, attempt and broken of random values on the same checks: the claim made verifies, and a check moved
    from one side of it to the other does not."""
    n = len(mine_values)
    expected = ["e"] * n
    pick = st.sampled_from([0, 1, 2, (0, 1), [0, 1], "a", None, "e"])
    attempt_values = [data.draw(pick) for _ in range(n)]
    broken_values = [data.draw(pick) for _ in range(n)]

    def run(solver, values):
        return _run(solver, *(_fail(i, f"c{i}", v, "e") if v != "e" else _pass(i, f"c{i}", "e") for i, v in enumerate(values)))

    yours = [run("yours", mine_values)]
    replays = {(1, "attempt"): run("attempt", attempt_values), (1, "broken"): run("broken", broken_values)}
    claim = match_claim(yours, replays)
    if claim is None:
        assert not any(type(m) is type(a) and m == a and m != e for m, a, e in zip(mine_values, attempt_values, expected))
        return
    assert verify_match(claim, yours, replays)
    moved = claim.checks[0]
    assert not verify_match(MatchesImplementation(claim.which, claim.checks[1:], claim.strength, claim.informative[1:],
                                                  claim.own + (moved,), claim.labels), yours, replays)


def test_the_evidence_benchmark_runs_at_a_tiny_size():
    """`make bench`'s paired figure (mutants against replays) on one record, one round: both sides ran."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    import bench_evidence

    found = bench_evidence.measure(records=1, rounds=1)
    assert found["mutants"] >= 4 and found["replays_s"] > 0 and found["ratio"] > 0


def test_a_mutant_that_ran_out_of_time_says_nothing_about_a_check():
    """A time limit a busy machine can bring about neither adds a mistake nor takes one away: the reach of a value
    is the same with a mutant's timeout as without that mutant."""
    from failuremap_edu._evidence import MutantTally, reach

    theirs = _fail(0, "a", [2], [1])
    replays = {(1, "attempt"): _run("attempt", theirs), (1, "broken"): _run("broken", _fail(0, "a", [3], [1]))}
    alike = [("broken", _run("broken~1", _fail(0, "a", [2], [1]))), ("attempt", _run("attempt~1", _fail(0, "a", [4], [1])))]
    slow = ("attempt", _run("attempt~2", Observation(0, "a", "timeout", False, None, [1], "solve(0)")))
    without = reach(MutantTally(1, tuple(alike)), "attempt", replays, 0, theirs)
    assert without == (1, 3)
    assert reach(MutantTally(1, (*alike, slow)), "attempt", replays, 0, theirs) == without
