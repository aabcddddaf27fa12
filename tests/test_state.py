"""What carries over between calls of solve (runner/_state): shared results, real argument changes, reads, previews, the playground's expressions."""

from __future__ import annotations

import copy

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import failuremap_edu as fm
from failuremap_edu.runner import replay, try_call
from failuremap_edu.runner._carried import CarriedState
from failuremap_edu.runner._state import ONE_PROCESS, PREVIEW_TAKE, ChangedLater, Preview, SharedObject, StreamRead, describe_change, from_plain, to_plain

from conftest import record_path, solution_path


def _record(record_id):
    return fm.load_record(record_path(record_id))


def _words_with_a_default(text, words=[]):  # noqa: B006 - the shared list is the point
    words.extend(text.split())
    return words


@pytest.fixture(autouse=True)
def _empty_default():
    _words_with_a_default.__defaults__[0].clear()  # an in-process run fills it in this process


def _fresh_words(text, words=None):
    return text.split()


def _claims(o, kind):
    return [c for c in o.state if isinstance(c, kind)]


@pytest.mark.parametrize("isolation", ["process", "inprocess"])
def test_a_result_shared_with_an_earlier_call_is_said_with_that_call_and_check(isolation):
    run = fm.run_checks(_record("TR-003402"), _words_with_a_default, isolation=isolation)
    first, second, third = run.observations
    assert [o.status for o in run.observations] == ["pass", "fail", "fail"]
    assert _claims(first, SharedObject) == []
    [shared] = _claims(second, SharedObject)
    assert (shared.call, shared.earlier_call, shared.earlier_check, shared.type_name, shared.how) == ("solve('c')", "solve('a b a')", "one call", "list", "same")
    assert shared.earlier_value == ["a", "b", "a"] and shared.value == ["a", "b", "a", "c"]
    assert shared.verify()
    assert str(shared).startswith("solve('c') returned the same list object as solve('a b a') in check 'one call': its items carry over")
    assert ONE_PROCESS in str(shared) and ONE_PROCESS in " ".join(second.state_notes)
    assert [c.earlier_call for c in _claims(third, SharedObject)] == ["solve('a b a')"]


def test_a_fresh_list_on_every_call_gets_no_shared_claim():
    run = fm.run_checks(_record("TR-003402"), _fresh_words)
    assert run.passed and all(o.state == () for o in run.observations)


def test_a_value_changed_after_its_check_keeps_its_check_time_value_and_names_the_later_call():
    run = fm.run_checks(_record("TR-003402"), _words_with_a_default)
    first, second = run.observations[:2]
    assert first.actual == ["a", "b", "a"] and first.passed  # at check time, as the harness judged it
    assert first.final[0] == ["a", "b", "a", "c", "x", "y"]  # what the harness prints at its end
    assert _claims(first, ChangedLater) == [ChangedLater("solve('c')", "a second call", "list")]
    assert _claims(second, ChangedLater) == [ChangedLater("solve('  x  y ')", "spaces", "list")]
    assert "a later call, solve('c') in check 'a second call', returned this same list object again" in str(first)


def test_the_shared_claims_verifier_decides_from_the_values():
    claim = SharedObject("solve('c')", "solve('a')", "one", "list", "same", ["a"], ["a", "c"])
    assert claim.verify()
    assert not SharedObject("solve('c')", "solve('a')", "one", "list", "same", ["a", "b"], ["c"]).verify()
    assert not SharedObject("solve('c')", "solve('a')", "one", "list", "same", {"a": 1}, {"a": 2}).verify()


def test_reading_a_stream_is_not_a_modification_and_is_said_only_where_the_check_fails():
    record = _record("TR-003401")
    mine = fm.run_checks(record, fm.load_solution(solution_path("TR-003401")))
    assert mine.passed
    assert [o.mutation for o in mine.observations] == [None, None, None]  # "modified its argument 'items': <Stream at 0x…>" on every run
    lazy = mine.observations[1]
    assert _claims(lazy, StreamRead) == [StreamRead("items", "Stream", "read: 0 → 3")]
    assert not any("read from" in note for note in lazy.state_notes)  # a pass: reading is the job
    attempt = replay(record, "attempt").observations[1]
    assert attempt.status == "fail" and attempt.mutation is None
    assert "solve read from its argument 'items' (a Stream): read: 0 → 50." in attempt.state_notes


def _eager_batches(items, size):
    items = list(items)  # reads the whole stream in the call itself, before returning
    return (items[i:i + size] for i in range(0, len(items), size))


def test_a_stream_read_within_the_call_is_a_read_not_a_modification():
    run = fm.run_checks(_record("TR-003401"), _eager_batches)
    assert [o.mutation for o in run.observations] == [None, None, None]
    assert "solve read from its argument 'items' (a Stream): read: 0 → 50." in run.observations[1].state_notes


def test_an_iterator_argument_says_how_many_items_were_read():
    items = iter([1, 2, 3, 4])
    before = copy.deepcopy(((items,), {}))
    next(items)
    from failuremap_edu.runner._state import Tracker

    tracker = Tracker()
    tracker.begin("x")
    tracker.watch(*before, (items,), {}, ("items",))
    next(items)
    assert describe_change(*before, (items,), {}, ("items",)) is None
    assert [from_plain(c) for c in tracker.take()] == [StreamRead("items", "list_iterator", "2 items read")]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(-5, 5), min_size=2, max_size=8))
def test_a_list_sorted_in_place_is_said_so_and_an_unchanged_one_is_not(xs):
    before = copy.deepcopy(((xs,), {}))
    after = sorted(xs)
    note = describe_change(*before, (after,), {}, ("xs",))
    if after == xs:
        assert note is None
    else:
        assert note == f"solve modified its argument 'xs': it was {xs!r} and became {after!r} (sorted in place). The checks see the changed value, as the record's own harness does."


@settings(max_examples=40, deadline=None)
@given(st.dictionaries(st.text("ab", min_size=1, max_size=2), st.integers(0, 3), max_size=4), st.text("cd", min_size=1, max_size=2), st.integers(0, 3))
def test_a_key_added_to_a_dict_is_named(base, key, value):
    before = copy.deepcopy(((base,), {}))
    after = dict(base, **{key: value})
    assert f"(key {key!r} added)" in describe_change(*before, (after,), {}, ("base",))


def test_an_object_without_its_own_eq_changed_only_when_its_fields_did():
    class Box:
        def __init__(self):
            self.x = 1

    box = Box()
    before = copy.deepcopy(((box,), {}))
    assert describe_change(*before, (box,), {}, ("box",)) is None  # a copy is never == to it: not a change
    box.x = 2
    assert describe_change(*before, (box,), {}, ("box",)) == (
        "solve modified its argument 'box': it is a Box whose fields changed (x: 1 → 2). The checks see the changed value, as the record's own harness does.")


class _Param:
    """A record's class without its own == or repr, holding a list."""

    def __init__(self, grad):
        self.grad = grad


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.one_of(st.integers(-3, 3), st.just(float("nan"))), min_size=1, max_size=3), max_size=4), st.data())
def test_objects_without_eq_inside_a_list_change_only_when_a_field_does_and_the_note_says_where(grads, data):
    params = [_Param(list(g)) for g in grads]
    before = copy.deepcopy(((params,), {}))
    assert describe_change(*before, (params,), {}, ("params",)) is None  # copies, NaN included: the same values
    if not params:
        return
    i = data.draw(st.integers(0, len(params) - 1))
    params[i].grad[0] = 99
    note = describe_change(*before, (params,), {}, ("params",))
    assert note is not None and "object" not in note and ("99" in note.split(" and became ")[-1] or f"[{i}].grad[0]: " in note)


def _lazy_batches(items, size):
    items = list(items)
    for i in range(0, len(items), size):
        yield items[i:i + size]


@pytest.mark.parametrize("isolation", ["process", "inprocess"])
def test_a_returned_generator_is_previewed_from_a_fresh_call_not_the_checks_one(isolation):
    run = fm.run_checks(_record("TR-003401"), _lazy_batches, isolation=isolation)
    first = run.observations[0]
    assert first.passed  # the check consumed its own generator in full: the preview took nothing from it
    assert _claims(first, Preview) == [Preview("solve([1, 2, 3, 4, 5], 2)", ("[1, 2]", "[3, 4]", "[5]"), "end", count=3)]
    assert "solve([1, 2, 3, 4, 5], 2) returned a generator; a fresh call of it yields 3 values, then ends: [1, 2], [3, 4], [5]" in first.state_notes


def _endless(n):
    i = 0
    while True:
        yield i * n
        i += 1


def _stalls(n):
    yield n
    while True:
        pass


def test_previews_of_an_endless_and_of_a_stalling_generator_are_bounded():
    record = _record("TR-002020")
    endless = try_call(record, lambda token, seen=None: _endless(2), ("a",), timeout=1.0)
    assert endless.state == (Preview("solve('a')", ("0", "2", "4", "6", "8"), "more", 1.0, PREVIEW_TAKE),)
    assert str(endless.state[0]).endswith(f"yields 0, 2, 4, 6, 8, … (more than {PREVIEW_TAKE:,} values)")
    stalls = try_call(record, lambda token, seen=None: _stalls(7), ("a",), timeout=0.5)
    assert stalls.status == "returned" and stalls.state == (Preview("solve('a')", ("7",), "slow", 0.5, 1),)
    assert str(stalls.state[0]).endswith("yields 1 value, then no next value within 0.5 s: 7")


def _one_cycle(period, ramp):
    for step in range(period):
        yield min(1.0, step / ramp)


def _eager_windows(items, size):
    items = list(items)
    for i in range(0, len(items), size):
        yield items[i:i + size]


@pytest.mark.parametrize("isolation", ["process", "inprocess"])
def test_a_generator_that_ends_is_said_to_end_after_how_many_values_beside_the_stopiteration_it_caused(isolation):
    record = fm.load_record(record_path("TR-003434"))  # any record: the preview needs a solve that returns a generator
    ends = try_call(record, lambda stop, step: _one_cycle(10, 4), (10, 4))
    endless = try_call(record, lambda stop, step: _endless(1), (10, 4))
    assert [(c.count, c.end) for c in ends.state + endless.state] == [(10, "end"), (PREVIEW_TAKE, "more")]
    assert str(ends.state[0]).endswith("yields 10 values, then ends: 0.0, 0.25, 0.5, 0.75, 1.0, …")
    assert str(endless.state[0]).endswith(f"yields 0, 1, 2, 3, 4, … (more than {PREVIEW_TAKE:,} values)")
    assert all(c.verify() for c in ends.state + endless.state)


def test_the_playground_says_what_a_generators_values_read_from_a_stream_argument():
    record = _record("TR-003401")
    eager = try_call(record, _eager_windows, (), expression="Stream(10), 3")
    lazy = try_call(record, _reference_batches, (), expression="Stream(10), 3")
    assert eager.state[0].reads == ("'items' (a Stream): read: 0 → 10, all of it for the first value",)
    assert lazy.state[0].reads == ("'items' (a Stream): read: 0 → 3 for the first value, read: 0 → 10 for all 4",)
    assert "taking them, solve read from its argument 'items' (a Stream): read: 0 → 3 for the first value" in repr(lazy)


def test_claims_cross_the_pipe_as_plain_data_and_forged_ones_are_refused():
    for claim in (SharedObject("a", "b", "c", "list", "same", [1], [1, 2]), StreamRead("items", "Stream", "read: 0 → 3"), Preview("solve(1)", ("1",), "end")):
        assert from_plain(to_plain(claim)) == claim
    for forged in ({"kind": "shared"}, {"kind": "nope"}, [], {"kind": "read", "argument": 1, "type_name": "x", "detail": "y"},
                   {"kind": "preview", "call": "c", "items": [object()], "end": "end", "seconds": 1.0}):
        with pytest.raises(ValueError):
            from_plain(forged)


# ------------------------------------------------------------------ the playground


def _reference_batches(items, size):
    batch = []
    for x in items:
        batch.append(x)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


@pytest.mark.parametrize("text, shown, items, end, count, reads", [
    ("range(7), 3", "solve(range(7), 3)", ("[0, 1, 2]", "[3, 4, 5]", "[6]"), "end", 3, ()),
    ("iter([1, 2, 3]), 2", "solve(iter([1, 2, 3]), 2)", ("[1, 2]", "[3]"), "end", 2, ("'items' (a list_iterator): 2 items read for the first value, 3 items read for all 2",)),
    ("Stream(4), size=3", "solve(Stream(4), size=3)", ("[0, 1, 2]", "[3]"), "end", 2, ("'items' (a Stream): read: 0 → 3 for the first value, read: 0 → 4 for all 2",)),
    ("itertools.count(), 2", "solve(itertools.count(), 2)", ("[0, 1]", "[2, 3]", "[4, 5]", "[6, 7]", "[8, 9]"), "more", PREVIEW_TAKE, ()),
])
def test_the_playground_evaluates_expressions_over_the_records_names_in_the_worker(text, shown, items, end, count, reads):
    result = try_call(_record("TR-003401"), _reference_batches, (), expression=text, timeout=1.0)
    assert (result.status, result.call) == ("returned", shown)
    assert result.state == (Preview(shown, items, end, 1.0, count, reads),)


def test_the_playground_runs_a_record_helper_and_bounds_an_endless_input_by_the_check_limit():
    record = _record("TR-003401")
    assert try_call(record, _reference_batches, (), expression="first_batch_reads(3)").value == 3
    assert try_call(record, None, (), implementation="attempt", expression="first_batch_reads(3)").value == 50
    eager = try_call(record, None, (), implementation="attempt", expression="list(solve(itertools.count(), 2))", timeout=0.5)
    assert eager.status == "timeout" and "after 0.5 s (the time limit of each call)" in str(eager.error)
    broken = try_call(record, _reference_batches, (), expression="solve(, 2)")
    assert broken.status == "error" and broken.error.type == "InputError" and "\n" not in str(broken.error)


def test_the_exercises_playground_takes_an_expression_where_it_refused_one():
    exercise = fm.Exercise(_record("TR-003401"), timeout=1.0, log_progress=False)
    exercise.check(_reference_batches)
    exercise.try_inputs("Stream(50), 4")
    assert "only literal values" not in exercise.playground_message
    yours = dict((who, (status, value)) for who, status, value in exercise.playground_rows)["yours"]
    assert yours[0] == "returned" and "a fresh call of it yields 13 values, then ends: [0, 1, 2, 3], [4, 5, 6, 7]" in yours[1]


_calls_made = []


def _counting_batches(items, size):
    """A generator solve whose results depend on how many times it was called before (a module-level list)."""
    _calls_made.append(1)
    items = list(items)
    for i in range(0, len(items), size + len(_calls_made) - 1):
        yield items[i:i + size]


def test_a_preview_changes_nothing_the_later_checks_see():
    """The preview's fresh call runs in a copy of the process: in-process, solve's own module sees exactly the three
    calls the record's three checks make, as in the record's harness, and none of the three previews' calls."""
    _calls_made.clear()
    run = fm.run_checks(_record("TR-003401"), _counting_batches, isolation="inprocess")
    assert all(_claims(o, Preview) for o in run.observations)  # each check's generator was previewed
    assert len(_calls_made) == 3


_PLAYGROUND_CALLS = []


def test_the_playground_makes_each_call_afresh_as_its_help_says():
    """The help says nothing carries over from one call to the next, nor from the checks: a solve that counts its calls
    in a module-level list gets 1 every time, after a run of the checks too."""
    from conftest import record_path

    from failuremap_edu._panel import PLAYGROUND_HELP
    from failuremap_edu.runner import run_checks, try_call

    def solve(steps, *, peak, warmup):
        _PLAYGROUND_CALLS.append(1)
        return [len(_PLAYGROUND_CALLS)] * steps

    record = str(record_path("TR-001010"))
    run_checks(record, solve)
    assert [try_call(record, solve, (2,), {"peak": 1.0, "warmup": 2}).value for _ in range(3)] == [[1, 1]] * 3
    assert "Each call is made afresh, in a process of its own: nothing carries over from the checks" in PLAYGROUND_HELP


_CALLS = 0


def _counting_words(text, words=None):
    global _CALLS
    _CALLS += 1
    return text.split() if _CALLS == 1 else []


@pytest.mark.parametrize("isolation", ["process", "inprocess"])
def test_a_call_that_begins_from_state_earlier_calls_changed_says_so_on_its_check(isolation):
    run = fm.run_checks(_record("TR-003402"), _words_with_a_default, isolation=isolation)
    first, second, third = run.observations
    assert _claims(first, CarriedState) == []  # the first call sets the baseline
    [carried] = _claims(second, CarriedState)
    assert (carried.call, carried.where, carried.earlier_value, carried.value) == ("solve('c')", "its default 'words'", [], ["a", "b", "a"])
    assert carried.verify()
    assert [c.value for c in _claims(third, CarriedState)] == [["a", "b", "a", "c"]]  # once per check: its first call
    notes = " ".join(second.state_notes)
    assert "When solve('c') began, its default 'words' was ['a', 'b', 'a']" in notes
    assert notes.count(ONE_PROCESS) == 1  # the shared-object note and this one end alike: said once


@pytest.mark.parametrize("isolation", ["process", "inprocess"])
def test_a_global_that_earlier_calls_changed_is_named(isolation):
    global _CALLS
    _CALLS = 0
    run = fm.run_checks(_record("TR-003402"), _counting_words, isolation=isolation)
    claims = [c for o in run.observations for c in _claims(o, CarriedState)]
    assert [(c.where, c.earlier_value, c.value) for c in claims] == [("the global '_CALLS'", 0, 1), ("the global '_CALLS'", 0, 2)]
    assert all(c.verify() for c in claims)


def test_a_solve_without_state_gets_no_carried_claim():
    run = fm.run_checks(_record("TR-003402"), _fresh_words)
    assert not any(_claims(o, CarriedState) for o in run.observations)


@given(st.recursive(st.integers() | st.text(max_size=3), lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=2), inner, max_size=3)))
@settings(max_examples=60, deadline=None)
def test_the_carried_claims_verifier_decides_from_the_values(value):
    assert not CarriedState("solve(1)", "its default 'seen'", value, copy.deepcopy(value)).verify()
    assert CarriedState("solve(1)", "its default 'seen'", value, [value]).verify()
    assert from_plain(to_plain(CarriedState("solve(1)", "the global 'n'", 0, 1))) == CarriedState("solve(1)", "the global 'n'", 0, 1)


_CACHE: dict = {}


def _cached_maps(labels):
    """A cache keyed by the label set: equal calls get one dict object (the contract asks for a dict of its own each call)."""
    key = tuple(sorted(set(labels)))
    return _CACHE.setdefault(key, {label: i for i, label in enumerate(key)})


@pytest.mark.parametrize("isolation", ["process", "inprocess"])
def test_a_result_handed_out_again_for_equal_arguments_is_said_on_a_passing_run(isolation):
    from failuremap_edu.render._text import run_notes
    from failuremap_edu.runner._state import ReturnedAgain

    _CACHE.clear()
    record = _record("TR-005004")
    run = fm.run_checks(record, _cached_maps, isolation=isolation)
    assert run.passed and _claims(run.observations[0], ReturnedAgain) == [ReturnedAgain("solve(['cat', 'dog', 'cat', 'bird'])", "three classes", "dict")]
    assert ("solve(['cat', 'dog', 'cat', 'bird']), made again with equal arguments, returned the same dict object as in check 'three classes',"
            " not a dict of its own") in render_run_text(run)
    mine = fm.run_checks(record, fm.load_solution(solution_path("TR-005004")), isolation=isolation)
    assert mine.passed and not [c for o in mine.observations for c in o.state if isinstance(c, ReturnedAgain)] and not run_notes(mine)[:1] == run_notes(run)[:1]


def render_run_text(run):
    return str(run)


def test_a_note_shared_by_several_checks_is_said_once_and_referred_to_after():
    run = replay(_record("TR-005004"), "attempt", isolation="inprocess")
    listed = [o for o in run.observations if not o.passed]
    full = [o.check for o in listed if any(ONE_PROCESS in n for n in o.state_notes)]
    assert full == ["a second dataset"]  # the first listed check says it in full
    for o in listed[1:]:
        assert any("(see the note under check 'a second dataset')" in n for n in o.state_notes)
        assert any(isinstance(c, CarriedState) for c in o.state)  # the claims stay: only their display is shorter


def test_a_shallow_copy_of_an_earlier_result_is_said_to_share_its_items():
    """A cached mask copied with [:] is a new list whose rows are the cache's: a later call that changes a row changes
    what the earlier call returned. Said as `shares`; a deep copy, or new rows, says nothing."""
    from failuremap_edu.runner._state import SharedObject, Tracker

    cache = [[1, 0], [1, 1]]
    tracker = Tracker()
    tracker.begin("first")
    tracker.returned(cache[:], "solve(2, 2)")
    assert tracker.take() == []
    tracker.begin("second")
    tracker.returned(cache[:], "solve(2, 1)")
    [claim] = [from_plain(c) for c in tracker.take()]
    assert isinstance(claim, SharedObject) and claim.how == "shares" and claim.earlier_call == "solve(2, 2)"
    assert str(claim).startswith("solve(2, 1) returned a new list, whose items are the very objects in the result of solve(2, 2) in check 'first'")
    tracker.begin("third")
    tracker.returned(copy.deepcopy(cache), "solve(2, 3)")
    tracker.returned([[1, 0], [1, 1]], "solve(2, 4)")
    assert tracker.take() == []


def test_sharing_inside_one_playground_run_never_says_the_playground_calls_solve_afresh():
    """`5, (solve(5, 2), 3)[1]` typed in the playground makes both calls in its one check: the note that the playground
    calls solve afresh (which explains a check's carry-over) would contradict what the learner just reproduced."""
    from failuremap_edu.runner._carried import ONE_PROCESS, PLAYGROUND
    from failuremap_edu.runner._state import SharedObject

    inside = SharedObject("solve(5, 3)", "solve(5, 2)", PLAYGROUND, "list", "same")
    across = SharedObject("solve(5, 3)", "solve(5, 2)", "5 tokens, window 2", "list", "same")
    assert ONE_PROCESS not in str(inside) and str(inside).endswith("or a global).")
    assert str(across).endswith(ONE_PROCESS)
