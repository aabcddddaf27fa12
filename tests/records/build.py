"""Build the test records: Failure Map records of our own, in the same schema.

Each record's `verification` is real: the script is run as a subprocess, exactly
as the record's harness runs it, and its observations, exit code, stdout and
stderr are stored. Run ``python tests/records/build.py`` to rewrite the files;
tests check that the committed files match what this produces (except elapsed_ms).

The shapes cover what the packaged records do not: defaults and keyword-only
parameters, helpers and imports in the preamble, N-dependent fixtures inside a
loop, dict and nested-list results, non-ASCII text, a harness that crashes, and
assignment expressions (``:=``) inside check calls whose names later checks read:
at module level, in a helper function and in a comprehension; a ``@dataclass`` in the
preamble; an in-place contract (solve returns None, the checks read the argument);
checks on expressions
of the result (``[-1]``, a predicate ``[0] > 0``, ``len()``, ``sorted()``), 2-D 0/1
grids (small and above 12 x 12), float sequences with keyword-only arguments, nested
per-class dicts, and tuples against lists; a named tuple, bytes and a set returned by
solve (the last two compared through expressions: JSON holds neither).
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
HEADER = '"""Failure Map reference implementation. Python standard library only."""\nimport json\n'
HARNESS = (
    "def check(label, actual, expected):\n"
    '    observations.append({"check": label, "actual": actual, "expected": expected, "passed": actual == expected})\n'
)
EPILOGUE = (
    'print(json.dumps({"observations": observations, "passed": all(x["passed"] for x in observations)}, ensure_ascii=False))\n'
    'raise SystemExit(0 if all(x["passed"] for x in observations) else 1)\n'
)


def script(solve: str, fixtures: str, preamble: str = "") -> str:
    return HEADER + preamble + "\nN = 1\nobservations = []\n" + solve.strip() + "\n" + HARNESS + fixtures.strip() + "\n" + EPILOGUE


RECORDS = {
    # Defaults, keyword-only parameters, helpers and imports, dict results.
    "TR-000101": dict(
        title="Top-k counts: ties broken by insertion order · <b>test</b> record",
        category="Aggregation",
        family="test-topk-counts",
        contract="Count tokens, then return a dict of the k most frequent (ties: alphabetical). "
        "With normalize=True, tokens are lower-cased first. Empty input gives {}.",
        contract_signature="tokens, k=2, *, normalize=False",
        abstract="Ties are broken by first appearance instead of alphabetically.",
        failed_approach="Counter.most_common keeps insertion order for ties.",
        root_cause="Tie-breaking is an explicit part of the contract, not an implementation detail.",
        preamble="import collections\nfrom functools import reduce\n\ndef words(text):\n    return text.split()\n",
        attempt="""
def solve(tokens, k=2, *, normalize=False):
    if normalize:
        tokens = [t.lower() for t in tokens]
    return dict(collections.Counter(tokens).most_common(k))
""",
        broken="""
def solve(tokens, k=2, *, normalize=False):
    return dict(collections.Counter(tokens).most_common(k))
""",
        reference="""
import collections

def solve(tokens, k=2, *, normalize=False):
    if normalize:
        tokens = [t.lower() for t in tokens]
    counts = collections.Counter(tokens)
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    return dict(ranked[:k])
""",
        fixtures="""
check('alphabetical ties', solve(words('c b a')), {'a': 1, 'b': 1})
check('k as keyword', solve(words('x y y z z z'), k=1), {'z': 3})
check('normalize keyword', solve(['A', 'a', 'b'], normalize=True), {'a': 2, 'b': 1})
check('empty', solve([]), {})
check('tie at the cut-off', solve(words('z z y x')), {'z': 2, 'x': 1})
check('reduce helper', solve(reduce(lambda acc, w: acc + [w], words('m n n'), [])), {'n': 2, 'm': 1})
""",
    ),
    # N-dependent fixtures in a loop, non-ASCII text, nested lists.
    "TR-000202": dict(
        title="Unicode chunking: grapheme-blind splits · variant loop",
        category="Tokenization",
        family="test-unicode-chunks",
        contract="Split text into chunks of at most `size` characters after NFC normalization; return a list of [index, chunk] pairs.",
        contract_signature="text, size",
        abstract="Splitting before normalization separates a letter from its combining accent.",
        failed_approach="Chunking raw code points treats 'e' + U+0301 as two characters.",
        root_cause="Normalization must happen before measuring length.",
        preamble="import unicodedata\n",
        attempt="""
def solve(text, size):
    return [[i, text[i * size:(i + 1) * size]] for i in range((len(text) + size - 1) // size)]
""",
        broken="""
def solve(text, size):
    return [text[i:i + size] for i in range(0, len(text), size)]
""",
        reference="""
import unicodedata

def solve(text, size):
    text = unicodedata.normalize('NFC', text)
    return [[i, text[i * size:(i + 1) * size]] for i in range((len(text) + size - 1) // size)]
""",
        fixtures="""
word = 'cafe\\u0301' * N
check('combining accent', solve(word, 4), [[i, unicodedata.normalize('NFC', word)[4 * i:4 * i + 4]] for i in range(N)])
check('ascii', solve('abcdef', 4), [[0, 'abcd'], [1, 'ef']])
check('emoji kept whole', solve('🙂ü', 1), [[0, '🙂'], [1, 'ü']])
for size in range(1, N + 2):
    check(f'size {size} of ñandú', solve('ñandú', size), [[i, 'ñandú'[i * size:(i + 1) * size]] for i in range(-(-5 // size))])
""",
    ),
    # The attempt's harness crashes mid-run (KeyError at the third check).
    "TR-000303": dict(
        title="Config merge: a missing key crashes the harness",
        category="Configuration",
        family="test-config-merge",
        contract="Merge overrides into defaults recursively and return the merged dict; keys absent from defaults are added.",
        contract_signature="defaults, overrides",
        abstract="Looking up override keys in the defaults crashes on new keys.",
        failed_approach="Indexing defaults[key] assumes every override already has a default.",
        root_cause="Overrides may introduce keys; the merge must not require them in defaults.",
        preamble="",
        attempt="""
def solve(defaults, overrides):
    out = dict(defaults)
    for key, value in overrides.items():
        if isinstance(defaults[key], dict):
            out[key] = solve(defaults[key], value)
        else:
            out[key] = value
    return out
""",
        broken="""
def solve(defaults, overrides):
    out = dict(defaults)
    out.update(overrides)
    return out
""",
        reference="""
def solve(defaults, overrides):
    out = dict(defaults)
    for key, value in overrides.items():
        if isinstance(out.get(key), dict) and isinstance(value, dict):
            out[key] = solve(out[key], value)
        else:
            out[key] = value
    return out
""",
        fixtures="""
base = {'lr': 0.1, 'opt': {'name': 'sgd', 'momentum': 0.9}}
check('flat override', solve(base, {'lr': 0.2}), {'lr': 0.2, 'opt': {'name': 'sgd', 'momentum': 0.9}})
check('nested override', solve(base, {'opt': {'name': 'adam'}}), {'lr': 0.1, 'opt': {'name': 'adam', 'momentum': 0.9}})
check('new key', solve(base, {'seed': N}), {'lr': 0.1, 'opt': {'name': 'sgd', 'momentum': 0.9}, 'seed': N})
check('empty overrides', solve(base, {}), base)
check('nested lists', solve({'layers': [[1, 2], [3]]}, {'layers': [[4]]}), {'layers': [[4]]})
""",
    ),
    # `:=` inside check(...): later checks (and the same check's expected) read the names.
    "TR-000404": dict(
        title="Batch padding: lengths measured after padding · walrus fixtures",
        category="Batching",
        family="test-batch-padding",
        contract="Pad every row of a batch of token-id lists with 0 to the longest row; return (padded, lengths), "
        "where lengths are the rows' original lengths. An empty batch gives ([], []). The input is not modified.",
        contract_signature="batch",
        abstract="The lengths are measured after padding, so every row reports the longest length.",
        failed_approach="Computing lengths from the padded rows looks equivalent and is one line shorter.",
        root_cause="Lengths are the attention mask's source: they must describe the data before padding.",
        preamble="",
        attempt="""
def solve(batch):
    width = max((len(row) for row in batch), default=0)
    padded = [row + [0] * (width - len(row)) for row in batch]
    return padded, [len(row) for row in padded]
""",
        broken="""
def solve(batch):
    return [list(row) for row in batch], [len(row) for row in batch]
""",
        reference="""
def solve(batch):
    width = max((len(row) for row in batch), default=0)
    return [row + [0] * (width - len(row)) for row in batch], [len(row) for row in batch]
""",
        fixtures="""
def rows_of(batch):
    check('one row per input row', len((res := solve(batch))[0]), len(batch))
    check('rows share one width', sorted({len(row) for row in res[0]}), [max(map(len, batch))])
    return res
batch = [[5, 6, 7], [8], [9, 10]]
check('padded', (out := solve(batch))[0], [[5, 6, 7], [8, 0, 0], [9, 10, 0]])
check('lengths', out[1], [3, 1, 2])
check('padding is stable', solve((once := solve(batch))[0])[0], once[0])
last = rows_of([[1] * k for k in range(1, N + 2)])
check('lengths from a helper', last[1], list(range(1, N + 2)))
singles = [check(f'single row of {k}', (one := solve([[7] * k])), ([[7] * k], [k])) for k in (1, N + 1)]
check('comprehension keeps the last', one[1], [N + 1])
check('empty batch', solve([]), ([], []))
""",
    ),
    # A @dataclass in the preamble: record code must not inherit our `from __future__ import annotations`.
    "TR-000505": dict(
        title="Span merge: touching spans stay apart · dataclass record",
        category="Data structures",
        family="test-span-merge",
        contract="Merge overlapping or touching Span(start, end) objects (end exclusive) and return them as a sorted "
        "list of [start, end] pairs. An empty list gives [].",
        contract_signature="spans",
        abstract="Spans that only touch (one ends where the next starts) are not merged.",
        failed_approach="Testing overlap with `<` instead of `<=` leaves touching spans apart.",
        root_cause="With end-exclusive spans, touching is part of the contract: [1, 3) and [3, 5) cover [1, 5).",
        preamble="from dataclasses import dataclass\n\n\n@dataclass(frozen=True)\nclass Span:\n    start: int\n    end: int\n",
        attempt="""
def solve(spans):
    out = []
    for s in sorted(spans, key=lambda s: (s.start, s.end)):
        if out and s.start < out[-1][1]:
            out[-1][1] = max(out[-1][1], s.end)
        else:
            out.append([s.start, s.end])
    return out
""",
        broken="""
def solve(spans):
    return [[s.start, s.end] for s in spans]
""",
        reference="""
def solve(spans):
    out = []
    for s in sorted(spans, key=lambda s: (s.start, s.end)):
        if out and s.start <= out[-1][1]:
            out[-1][1] = max(out[-1][1], s.end)
        else:
            out.append([s.start, s.end])
    return out
""",
        fixtures="""
check('already apart', solve([Span(1, 2), Span(5, 6)]), [[1, 2], [5, 6]])
check('overlap', solve([Span(1, 4), Span(2, 6)]), [[1, 6]])
check('touching spans merge', solve([Span(1, 3), Span(3, 5)]), [[1, 5]])
check('unsorted input', solve([Span(5, 6), Span(1, 2)]), [[1, 2], [5, 6]])
check('chain of N touching spans', solve([Span(k, k + 1) for k in range(N + 1)]), [[0, N + 1]])
check('empty', solve([]), [])
""",
    ),
    # An in-place contract: solve returns None and the checks look at the argument afterwards.
    "TR-000606": dict(
        title="In-place dedupe: the list itself must change · in-place record",
        category="Data structures",
        family="test-inplace-dedupe",
        contract="Remove repeated items from the list `xs` in place, keeping the first of each, and return None. "
        "The caller's list object is the result.",
        contract_signature="xs",
        abstract="Rebinding the parameter builds a new list that the caller never sees.",
        failed_approach="`xs = list(dict.fromkeys(xs))` looks like it changes xs, but only rebinds the local name.",
        root_cause="An in-place contract is about the object the caller holds: assign to xs[:], never to xs.",
        preamble="",
        attempt="""
def solve(xs):
    xs = list(dict.fromkeys(xs))
""",
        broken="""
def solve(xs):
    xs.sort()
""",
        reference="""
def solve(xs):
    xs[:] = list(dict.fromkeys(xs))
""",
        fixtures="""
data = [3, 1, 3, 2, 1]
check('returns None', solve(data), None)
check('first of each kept, in order', data, [3, 1, 2])
words = ['b', 'a', 'b'] * N
solve(words)
check('strings, N times over', words, ['b', 'a'])
same = [1, 2, 3]
check('nothing to remove', (solve(same), same)[1], [1, 2, 3])
""",
    ),
    # A 2-D 0/1 grid (an attention mask), checks on expressions of the result: [-1], a predicate, len(), a large grid.
    "TR-000909": dict(
        title="Causal mask with left padding: a query cannot see itself · grid record",
        category="Attention",
        family="test-causal-mask",
        contract="Return the n x n attention mask as a list of rows of 0/1: row i (a query) has 1 at column j (a key) "
        "when the key is visible: pad <= j <= i. The first `pad` positions are padding and never visible.",
        contract_signature="n, pad=0",
        abstract="The mask hides the diagonal, so no token attends to itself, and the first token attends to nothing.",
        failed_approach="Using j < i builds a strictly lower triangle: every query loses its own position.",
        root_cause="A causal mask hides the future, not the present: the comparison must be j <= i.",
        preamble="def visible(n, pad=0):\n    return [[1 if pad <= j <= i else 0 for j in range(n)] for i in range(n)]\n",
        attempt="""
def solve(n, pad=0):
    return [[1 if pad <= j < i else 0 for j in range(n)] for i in range(n)]
""",
        broken="""
def solve(n, pad=0):
    return [[1 if j <= i else 0 for j in range(n)] for i in range(n)]
""",
        reference="""
def solve(n, pad=0):
    return [[1 if pad <= j <= i else 0 for j in range(n)] for i in range(n)]
""",
        fixtures="""
check('mask of 4', solve(4), visible(4))
check('last row with padding', solve(N + 4, pad=N)[-1], [0] * N + [1] * 4)
check('one row per query', len(solve(N + 12)), N + 12)
check('query 0 sees itself', solve(3)[0][0] == 1, True)
check('large padded mask', solve(14, pad=2), visible(14, pad=2))
""",
    ),
    # Float sequences, keyword-only arguments, a predicate on the result.
    "TR-001010": dict(
        title="Learning-rate warmup: the first step is zero · float sequences",
        category="Optimization",
        family="test-lr-warmup",
        contract="Return the learning rate of each of `steps` steps as a list of floats: linear warmup to `peak` over "
        "`warmup` steps, where step t (from 0) gets peak * (t + 1) / warmup, then `peak` from step warmup - 1 on.",
        contract_signature="steps, *, peak, warmup",
        abstract="The ramp starts at zero, so the first update does nothing and every warmup step lags one behind.",
        failed_approach="peak * t / warmup looks like the textbook ramp, but step 0 then gets a learning rate of 0.",
        root_cause="Steps count from 0: the ramp must use t + 1 to reach peak at the last warmup step.",
        preamble="def ramp(steps, peak, warmup):\n    return [min(peak * (t + 1) / warmup, peak) for t in range(steps)]\n",
        attempt="""
def solve(steps, *, peak, warmup):
    return [min(peak * t / warmup, peak) for t in range(steps)]
""",
        broken="""
def solve(steps, *, peak, warmup):
    return [peak * (t + 1) / warmup for t in range(steps)]
""",
        reference="""
def solve(steps, *, peak, warmup):
    return [min(peak * (t + 1) / warmup, peak) for t in range(steps)]
""",
        fixtures="""
check('warmup ramp', solve(6, peak=0.01, warmup=4), ramp(6, 0.01, 4))
check('first step nonzero', solve(1, peak=0.01, warmup=4)[0] > 0, True)
check('one rate per step', len(solve(N + 2, peak=1.0, warmup=2)), N + 2)
check('peak after warmup', solve(N + 3, peak=0.5, warmup=2)[-1], 0.5)
""",
    ),
    # Nested per-class dicts: two keys swapped at every label.
    "TR-001111": dict(
        title="Per-class precision and recall: swapped at every label · nested dicts",
        category="Evaluation",
        family="test-per-class-pr",
        contract="Given (true, predicted) label pairs, return {label: {'p': precision, 'r': recall}} for every label "
        "that occurs: precision = tp / predicted as label, recall = tp / truly label (0.0 when the count is 0).",
        contract_signature="pairs",
        abstract="Precision and recall come out swapped for every class.",
        failed_approach="Dividing true positives by the count of true labels and calling it precision swaps the two.",
        root_cause="Precision conditions on the prediction, recall on the truth.",
        preamble="",
        attempt="""
def solve(pairs):
    labels = sorted({x for pair in pairs for x in pair})
    out = {}
    for label in labels:
        tp = sum(1 for t, p in pairs if t == p == label)
        truly = sum(1 for t, _ in pairs if t == label)
        predicted = sum(1 for _, p in pairs if p == label)
        out[label] = {'p': tp / truly if truly else 0.0, 'r': tp / predicted if predicted else 0.0}
    return out
""",
        broken="""
def solve(pairs):
    labels = sorted({x for pair in pairs for x in pair})
    right = sum(1 for t, p in pairs if t == p) / len(pairs)
    return {label: {'p': right, 'r': right} for label in labels}
""",
        reference="""
def solve(pairs):
    labels = sorted({x for pair in pairs for x in pair})
    out = {}
    for label in labels:
        tp = sum(1 for t, p in pairs if t == p == label)
        truly = sum(1 for t, _ in pairs if t == label)
        predicted = sum(1 for _, p in pairs if p == label)
        out[label] = {'p': tp / predicted if predicted else 0.0, 'r': tp / truly if truly else 0.0}
    return out
""",
        fixtures="""
check('two classes', solve([('cat', 'cat'), ('cat', 'dog'), ('dog', 'dog'), ('dog', 'dog')]), {'cat': {'p': 1.0, 'r': 0.5}, 'dog': {'p': 2 / 3, 'r': 1.0}})
check('perfect', solve([('a', 'a'), ('b', 'b')]), {'a': {'p': 1.0, 'r': 1.0}, 'b': {'p': 1.0, 'r': 1.0}})
check('labels', sorted(solve([('x', 'y')] * N)), ['x', 'y'])
""",
    ),
    # Tuples against lists: the attempt returns [start, end] lists where (start, end) tuples are expected.
    "TR-001212": dict(
        title="BIO spans: lists where tuples are expected · tuple record",
        category="Tagging",
        family="test-bio-spans",
        contract="Given BIO tags, return the spans as a list of (start, end) tuples, end exclusive, in order.",
        contract_signature="tags",
        abstract="Spans come back as lists, and a span that runs to the end of the tags is dropped.",
        failed_approach="Building each span as [start, i] reads the same, but a list is not a tuple: the spans are not hashable and compare unequal.",
        root_cause="The contract's type is part of the answer: (start, end) is a tuple.",
        preamble="",
        attempt="""
def solve(tags):
    spans, start = [], None
    for i, tag in enumerate(tags + ['O']):
        if tag != 'I' and start is not None:
            spans.append([start, i])
            start = None
        if tag == 'B':
            start = i
    return spans
""",
        broken="""
def solve(tags):
    spans, start = [], None
    for i, tag in enumerate(tags):
        if tag != 'I' and start is not None:
            spans.append((start, i))
            start = None
        if tag == 'B':
            start = i
    return spans
""",
        reference="""
def solve(tags):
    spans, start = [], None
    for i, tag in enumerate(tags + ['O']):
        if tag != 'I' and start is not None:
            spans.append((start, i))
            start = None
        if tag == 'B':
            start = i
    return spans
""",
        fixtures="""
check('one span', solve(['B', 'I', 'O']), [(0, 2)])
check('span at the end', solve(['O'] * N + ['B', 'I']), [(N, N + 2)])
check('spans are tuples', all(type(s) is tuple for s in solve(['B', 'O', 'B', 'O'])), True)
""",
    ),
    # solve returns instances of the preamble's dataclass; the checks compare through astuple() and with ==
    # on instances the fixtures build. A learner's cell carries its own copy of the dataclass.
    "TR-001313": dict(
        title="Token offsets: the end is exclusive · returned dataclass record",
        category="Tokenization",
        family="test-token-offsets",
        contract="Split text on whitespace; return one Span(start, end, token) per token with text[start:end] == token.",
        contract_signature="text",
        abstract="Inclusive ends drop the last character of every token when used as slices.",
        failed_approach="end = start + len(token) - 1 names the last character's index, but a slice then stops one short.",
        root_cause="Offsets are half-open, as Python slices are: end = start + len(token).",
        preamble="from dataclasses import astuple, dataclass, field\n\n\n@dataclass\nclass Span:\n    start: int\n    end: int\n    token: str = field(default='')\n",
        attempt="""
def solve(text):
    spans, i = [], 0
    for token in text.split():
        start = text.index(token, i)
        spans.append(Span(start, start + len(token) - 1, token))
        i = start + len(token)
    return spans
""",
        broken="""
def solve(text):
    return [Span(text.index(token), text.index(token) + len(token), token) for token in text.split()]
""",
        reference="""
from dataclasses import astuple, dataclass, field


@dataclass
class Span:
    start: int
    end: int
    token: str = field(default='')


def solve(text):
    spans, i = [], 0
    for token in text.split():
        start = text.index(token, i)
        spans.append(Span(start, start + len(token), token))
        i = start + len(token)
    return spans
""",
        fixtures="""
check('two words', [astuple(s) for s in solve('ab cd')], [(0, 2, 'ab'), (3, 5, 'cd')])
check('slices give the tokens back', ['hello  world'[s.start:s.end] for s in solve('hello  world')], ['hello', 'world'])
check('repeated token', [astuple(s) for s in solve('a a')], [(0, 1, 'a'), (2, 3, 'a')])
check('one span per token', len(solve(' x  y ' * N)), 2 * N)
check('spans of one word', solve('abc') == [Span(0, 3, 'abc')], True)
""",
    ),
    # broken recurses through the name solve and modifies its argument; a check compares (solve(base, ...), base)[1]
    "TR-001414": dict(
        title="Config override: nested settings vanish · recursive broken, mutation record",
        category="Configuration",
        family="test-config-merge-recursive",
        contract=(
            "Return a new dict: base with override applied. Where both have a dict under the same key, merge those "
            "dicts the same way, at every depth; otherwise the override's value replaces the base's. Neither argument "
            "may be modified."
        ),
        contract_signature="base, override",
        abstract="A shallow {**base, **override} replaces a whole nested section, so every setting the override does not repeat is lost.",
        failed_approach="{**base, **override} merges the top level only: overriding opt.lr drops opt.wd.",
        root_cause="Nested sections must be merged recursively, into a new dict, leaving both inputs untouched.",
        preamble="",
        attempt="""
def solve(base, override):
    return {**base, **override}
""",
        broken="""
def solve(base, override):
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(base.get(key), dict):
            solve(base[key], value)
        else:
            base[key] = value
    return base
""",
        reference="""
def solve(base, override):
    out = dict(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = solve(out[key], value)
        else:
            out[key] = value
    return out
""",
        fixtures="""
check('flat override', solve({'lr': 0.1, 'bs': 32}, {'lr': 0.01}), {'lr': 0.01, 'bs': 32})
check('nested keys kept', solve({'opt': {'lr': 0.1, 'wd': 0.0}}, {'opt': {'lr': 0.01}}), {'opt': {'lr': 0.01, 'wd': 0.0}})
check('deep merge', solve({'a': {'b': {'c': 1, 'd': 2}}}, {'a': {'b': {'d': N}}})['a']['b'], {'c': 1, 'd': N})
base = {'opt': {'lr': 0.1}}
check('base unchanged', (solve(base, {'opt': {'lr': 0.5}}), base)[1], {'opt': {'lr': 0.1}})
check('new section', solve({}, {'sched': {'warmup': 10}}), {'sched': {'warmup': 10}})
check('section replaced by a value', solve({'opt': {'lr': 0.1}}, {'opt': None}), {'opt': None})
""",
    ),
    # solve returns a named tuple: compared whole (the harness prints it as a list) and by field
    "TR-001515": dict(
        title="Train/test split: the boundary item lands twice · named tuple record",
        category="Data splits",
        family="test-split-namedtuple",
        contract=(
            "Return Split(train, test), a named tuple of two lists: train holds the first round(len(items) * frac) items, "
            "test holds the rest, in order. No item is in both. frac is keyword-only (default 0.5)."
        ),
        contract_signature="items, *, frac=0.5",
        abstract="An inclusive end index puts the boundary item in both train and test, so the test set leaks into training.",
        failed_approach="items[:k + 1] and items[k:] look symmetric, but both hold items[k].",
        root_cause="Python slices are half-open: items[:k] and items[k:] split at k with no overlap.",
        preamble="from typing import NamedTuple\n\n\nclass Split(NamedTuple):\n    train: list\n    test: list\n",
        attempt="""
def solve(items, *, frac=0.5):
    k = round(len(items) * frac)
    return Split(items[:k + 1], items[k:])
""",
        broken="""
def solve(items, *, frac=0.5):
    k = round(len(items) * frac)
    return Split(items[:k], items[:k])
""",
        reference="""
def solve(items, *, frac=0.5):
    k = round(len(items) * frac)
    return Split(list(items[:k]), list(items[k:]))
""",
        fixtures="""
check('half and half', solve([1, 2, 3, 4]), Split([1, 2], [3, 4]))
check('train part', solve(list(range(10)), frac=0.8).train, [0, 1, 2, 3, 4, 5, 6, 7])
check('test part', solve(list(range(10)), frac=0.8).test, [8, 9])
check('no overlap', sorted(set(solve(list(range(2 * N))).train) & set(solve(list(range(2 * N))).test)), [])
check('sizes add up', sum(map(len, solve(list(range(N + 3)), frac=0.5))), N + 3)
check('empty', solve([]), Split([], []))
""",
    ),
    # solve returns bytes: the checks compare expressions of it (.hex(), .decode(), len(), == b''), as JSON cannot hold bytes
    "TR-001616": dict(
        title="Byte detokenizer: special ids folded into bytes · bytes record",
        category="Tokenization",
        family="test-bytes-detokenize",
        contract="ids are token ids: 0 to 255 are bytes, 256 and above special tokens. Return the bytes of the ids below 256, in order.",
        contract_signature="ids",
        abstract="Folding special ids into the byte range turns <bos> into a NUL byte.",
        failed_approach="bytes(i % 256 for i in ids) never raises, but id 256 becomes the byte 0x00.",
        root_cause="Special tokens are not bytes: drop them.",
        preamble="",
        attempt="""
def solve(ids):
    return bytes(i % 256 for i in ids)
""",
        broken="""
def solve(ids):
    return ''.join(chr(i) for i in ids).encode('utf-8')
""",
        reference="""
def solve(ids):
    return bytes(i for i in ids if i < 256)
""",
        fixtures="""
check('ascii bytes', list(solve([104, 105])), [104, 105])
check('special ids skipped', solve([256, 104, 257]).hex(), '68')
check('a high byte stays one byte', len(solve([195, 169])), 2)
check('decodes as UTF-8', solve([195, 169]).decode('utf-8'), '\\u00e9')
check('empty', solve([]) == b'', True)
check('only the text is left', len(solve([256] * N + [65])), 1)
""",
    ),
    # solve returns a set of tuples: compared through sorted(), `in` and == set()
    "TR-001717": dict(
        title="N-gram set: the window that stops one short · set record",
        category="Tokenization",
        family="test-ngram-set",
        contract="Return the set of every n-gram (tuple of n consecutive tokens) of tokens; n is keyword-only, default 2.",
        contract_signature="tokens, *, n=2",
        abstract="A window that stops one early drops the last n-gram of every sequence.",
        failed_approach="range(len(tokens) - n) is one window short.",
        root_cause="There are len(tokens) - n + 1 windows.",
        preamble="",
        attempt="""
def solve(tokens, *, n=2):
    return {tuple(tokens[i:i + n]) for i in range(len(tokens) - n)}
""",
        broken="""
def solve(tokens, *, n=2):
    return {tuple(tokens[i:i + n]) for i in range(len(tokens))}
""",
        reference="""
def solve(tokens, *, n=2):
    return {tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1)}
""",
        fixtures="""
check('bigrams', sorted(solve(['a', 'b', 'c'])), [('a', 'b'), ('b', 'c')])
check('last bigram kept', ('y', 'z') in solve(['x', 'y', 'z']), True)
check('trigrams', sorted(solve(list('abcd'), n=3)), [('a', 'b', 'c'), ('b', 'c', 'd')])
check('repeats counted once', len(solve(['a', 'a', 'a', 'a'])), 1)
check('too short', solve(['a'], n=2) == set(), True)
check('count grows with N', len(solve([str(i) for i in range(N + 2)])), N + 1)
""",
    ),
    # try/except around a check: what solve raises while the check's arguments are evaluated reaches the except clause
    "TR-001818": dict(
        title="Batch mean: an empty batch must raise · try/except record",
        category="Aggregation",
        family="test-mean-must-raise",
        contract="Return the mean of the numbers xs as a float. An empty xs has no mean: raise ZeroDivisionError.",
        contract_signature="xs",
        abstract="Guarding the division hides the empty batch: it comes back as a mean of 0.0.",
        failed_approach="max(len(xs), 1) avoids the exception, so nobody downstream learns the batch was empty.",
        root_cause="An empty batch is an error to report, not a value: let the division raise.",
        preamble="",
        attempt="""
def solve(xs):
    return sum(xs) / max(len(xs), 1)
""",
        broken="""
def solve(xs):
    return sum(xs) // len(xs)
""",
        reference="""
def solve(xs):
    return sum(xs) / len(xs)
""",
        fixtures="""
check('mean of three', solve([1, 2, 4]), 7 / 3)
check('one item', solve([5]), 5.0)
try:
    check('empty batch', solve([]), 'raises ZeroDivisionError')
except ZeroDivisionError:
    check('empty batch raises', True, True)
check('N items', solve([2] * N), 2.0)
""",
    ),
    # A check that a fresh worker cannot repeat (it times out under a short limit) between a := binding and its reuse,
    # and an input list the attempt empties: the worker after the timeout must reach the script's state.
    "TR-001919": dict(
        title="Chunking: the caller's list is emptied · worker restart record",
        category="Batching",
        family="test-chunks-restart",
        contract="Split xs into consecutive chunks of `size` items (the last may be shorter) and return them as a list "
        "of lists. xs is not modified.",
        contract_signature="xs, size",
        abstract="Deleting each chunk from the input empties the caller's list, and is quadratic on long inputs.",
        failed_approach="`del xs[:size]` in a loop reads naturally, but it consumes the caller's list and shifts it every time.",
        root_cause="Slicing by index (range(0, len(xs), size)) reads the input without changing it, in linear time.",
        preamble="",
        attempt="""
def solve(xs, size):
    out = []
    while xs:
        out.append(xs[:size])
        del xs[:size]
    return out
""",
        broken="""
def solve(xs, size):
    return [xs[i:i + size] for i in range(0, len(xs) - size + 1, size)]
""",
        reference="""
def solve(xs, size):
    return [xs[i:i + size] for i in range(0, len(xs), size)]
""",
        fixtures="""
data = [1, 2, 3, 4, 5]
check('first', (res := solve(data, 2)), [[1, 2], [3, 4], [5]])
check('long input, one by one', len(solve(list(range(50000)), 1)), 50000)
check('reuse the first result', res[-1], [5])
check('the input is kept', data, [1, 2, 3, 4, 5])
check('N chunks', len(solve([0] * (2 * N), 2)), N)
""",
    ),
    # solve returns its mutable default: the same list on every call, so the harness prints each check's actual in its final state
    "TR-002020": dict(
        title="Token log: the default list is shared · mutable default record",
        category="Data structures",
        family="test-mutable-default",
        contract="Append token to the list `seen` and return that list; without `seen`, start from a new empty list.",
        contract_signature="token, seen=[]",
        abstract="A mutable default argument is created once, so every call without `seen` appends to the same list.",
        failed_approach="`def solve(token, seen=[])` reads as 'an empty list by default', but the default is built once, at def time.",
        root_cause="Defaults are evaluated once: use None and build the list inside the call.",
        preamble="",
        attempt="""
def solve(token, seen=[]):
    seen.append(token)
    return seen
""",
        broken="""
def solve(token, seen=[]):
    return [token]
""",
        reference="""
def solve(token, seen=None):
    seen = [] if seen is None else seen
    seen.append(token)
    return seen
""",
        fixtures="""
check('first call', solve('a'), ['a'])
check('second call starts fresh', solve('b'), ['b'])
check('a given list', solve('c', ['x']), ['x', 'c'])
check('third call', solve('d' * N), ['d' * N])
""",
    ),
    # A helper that calls solve and catches its exception: the check's value is the exception's name (or 'no error')
    "TR-003434": dict(
        title="Step range: a bad step raises ValueError · helper record",
        category="Validation",
        family="test-raises-helper",
        contract="Return the list 0, step, 2*step, ... below stop. A step that is not a positive int raises ValueError.",
        contract_signature="stop, step",
        abstract="An assert stands where the contract asks for ValueError, so the check's helper sees AssertionError.",
        failed_approach="`assert step > 0` guards the loop, but an assert raises AssertionError, not the ValueError the contract names.",
        root_cause="Raise the exception the contract names: `raise ValueError(...)`.",
        preamble="""def raises(f, *args):
    try:
        f(*args)
    except Exception as exc:
        return type(exc).__name__
    return 'no error'
""",
        attempt="""
def solve(stop, step):
    assert step > 0, f"step must be positive, got {step}"
    return list(range(0, stop, step))
""",
        broken="""
def solve(stop, step):
    if step == 0:
        raise ValueError('step must not be zero')
    return [i for i in range(0, stop, step) if step > 0]
""",
        reference="""
def solve(stop, step):
    if type(step) is not int or step <= 0:
        raise ValueError(f"step must be a positive int, got {step!r}")
    return list(range(0, stop, step))
""",
        fixtures="""
check('steps of 2', solve(7, 2), [0, 2, 4, 6])
check('a negative step raises', raises(solve, 3, -1), 'ValueError')
check('a zero step raises', raises(solve, 3, 0), 'ValueError')
check('every stop below 1000', [len(solve(n, N)) for n in range(1000)], [len(range(0, n, N)) for n in range(1000)])
""",
    ),
    # An object without a repr (a stream with a read counter) passed to solve, directly and through a helper
    "TR-003535": dict(
        title="Lazy batches: read only what a batch needs · stream record",
        category="Iterators",
        family="test-stream-reads",
        contract="Yield lists of `size` consecutive items of the iterable `items`, lazily: taking the first batch reads only `size` items.",
        contract_signature="items, size",
        abstract="The whole stream is read into a list before the first batch is yielded.",
        failed_approach="`list(items)` first, then slice: right batches, but the first batch reads everything.",
        root_cause="A lazy batcher takes items with itertools.islice, as it yields them.",
        preamble="""import itertools


class Stream:
    def __init__(self, n):
        self.n, self.read = n, 0

    def __iter__(self):
        return self

    def __next__(self):
        if self.read >= self.n:
            raise StopIteration
        self.read += 1
        return self.read - 1


def first_batch_reads(size, n=50):
    stream = Stream(n)
    next(iter(solve(stream, size)))
    return stream.read
""",
        attempt="""
def solve(items, size):
    items = list(items)
    for i in range(0, len(items), size):
        yield items[i:i + size]
""",
        broken="""
def solve(items, size):
    items = list(items)
    return [items[i:i + size] for i in range(0, len(items) - size + 1, size)]
""",
        reference="""
import itertools


def solve(items, size):
    it = iter(items)
    while batch := list(itertools.islice(it, size)):
        yield batch
""",
        fixtures="""
check('batches of 2', list(solve(range(5), 2)), [[0, 1], [2, 3], [4]])
check('first batch reads 3', first_batch_reads(3), 3)
check('the first batch of a stream', next(iter(solve(Stream(10), N))), list(range(N)))
""",
    ),
    # A long float sequence (50 losses): a line chart of expected against got, not a 50-column table.
    "TR-004141": dict(
        title="Per-example losses divided by the batch size · long float sequence",
        category="Losses",
        family="test-per-example-loss",
        contract="Return the cross-entropy loss of each example as a list of floats: -log(p) for each probability p "
        "the model gave the right class, one loss per example, not averaged.",
        contract_signature="probs",
        abstract="Each loss is divided by the batch size, as a mean would be, so 50 losses of 1.0 come out as 0.02.",
        failed_approach="Dividing by len(probs) inside the comprehension looks like taking the mean, but it scales every loss.",
        root_cause="A per-example loss is not averaged: only a reduction over the batch divides by its size.",
        preamble="import math\n",
        attempt="""
def solve(probs):
    return [-math.log(p) / len(probs) for p in probs]
""",
        broken="""
def solve(probs):
    return [math.log(p) for p in probs]
""",
        reference="""
import math

def solve(probs):
    return [-math.log(p) for p in probs]
""",
        fixtures="""
check('one example', solve([math.exp(-2.0)]), [2.0])
check('fifty examples', solve([math.exp(-1.0)] * 50), [1.0] * 50)
check('sure predictions', solve([1.0, 1.0]), [0.0, 0.0])
check('one loss per example', len(solve([0.5] * (N + 12))), N + 12)
""",
    ),
    # Weak checks: each result is compared at once, so a solve returning one shared list passes them (record build warns).
    "TR-004242": dict(
        title="Words of a line, a new list each call · weak checks record",
        category="Text",
        family="test-weak-checks",
        contract="Return the words of `text` (split on whitespace), lower-cased, as a new list: every call returns a "
        "list of its own, which later calls never change.",
        contract_signature="text",
        abstract="The words are returned as they are: 'D' stays 'D' where 'd' is expected.",
        failed_approach="str.split() finds the words, and the lower-casing is forgotten.",
        root_cause="The contract asks for lower-cased words: each word must go through str.lower().",
        preamble="",
        attempt="""
def solve(text):
    return text.split()
""",
        broken="""
def solve(text):
    return [w.lower() for w in text.split(' ')]
""",
        reference="""
def solve(text):
    return [w.lower() for w in text.split()]
""",
        fixtures="""
check('one word', solve('a'), ['a'])
check('two words', solve('b c'), ['b', 'c'])
check('lower-cased', solve('D'), ['d'])
check('N words', solve('x ' * N), ['x'] * N)
""",
    ),
    # A stream helper with a read counter, and a generator solve: the checks measure how much solve reads.
    "TR-003401": dict(
        title="Lazy batches: the whole stream is read first · stream record",
        category="Streaming",
        family="test-lazy-batches",
        contract="Yield consecutive batches (lists) of `size` items from the iterable `items`, lazily: a batch is built "
        "from the items it needs, read only when the batch is asked for. The last batch may be shorter.",
        contract_signature="items, size",
        abstract="Turning the input into a list first reads the whole stream before the first batch.",
        failed_approach="`items = list(items)` makes slicing easy, but it consumes an endless or huge stream up front.",
        root_cause="A generator that reads one item at a time keeps the batching lazy.",
        preamble="""class Stream:
    def __init__(self, n):
        self.n, self.read = n, 0

    def __iter__(self):
        return self

    def __next__(self):
        if self.read >= self.n:
            raise StopIteration
        self.read += 1
        return self.read - 1


def first_batch_reads(size):
    stream = Stream(50)
    batches = solve(stream, size)
    next(batches)
    return stream.read
""",
        attempt="""
def solve(items, size):
    items = list(items)
    for i in range(0, len(items), size):
        yield items[i:i + size]
""",
        broken="""
def solve(items, size):
    batch = []
    for x in items:
        batch.append(x)
        if len(batch) == size:
            yield batch
            batch = []
""",
        reference="""
def solve(items, size):
    batch = []
    for x in items:
        batch.append(x)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch
""",
        fixtures="""
check('batches of a list', list(solve([1, 2, 3, 4, 5], 2)), [[1, 2], [3, 4], [5]])
check('lazy: the first batch reads size items', first_batch_reads(3), 3)
check('an iterator', list(solve(iter(range(N + 2)), 2)), [list(range(N + 2))[i:i + 2] for i in range(0, N + 2, 2)])
""",
    ),
    # A mutable default: the list of one check is returned again (and changed) by the next check's call.
    "TR-003402": dict(
        title="Words of a text: the default list keeps growing · shared list record",
        category="Data structures",
        family="test-shared-words",
        contract="Return the words of `text` (split on whitespace) as a new list: every call returns a fresh list.",
        contract_signature="text, words=[]",
        abstract="A list default argument collects the words of every call, and each call returns that one list.",
        failed_approach="`words=[]` then `words.extend(...)` looks like a local accumulator, but the default is built once, at def time.",
        root_cause="A default is evaluated once: build the list inside the call.",
        preamble="",
        attempt="""
def solve(text, words=[]):
    words.extend(text.split())
    return words
""",
        broken="""
def solve(text, words=[]):
    return text.split(' ')
""",
        reference="""
def solve(text, words=None):
    return text.split()
""",
        fixtures="""
check('one call', solve('a b a'), ['a', 'b', 'a'])
check('a second call', solve('c'), ['c'])
check('spaces', solve('  x  y ' * N), ['x', 'y'] * N)
""",
    ),
    # A long argument: in-process, copying it before the call ran under the deadline's trace function (10x slower)
    "TR-004343": dict(
        title="Positive rows: zero is not positive · long input record",
        category="Aggregation",
        family="test-long-argument",
        contract="Return how many rows (tuples whose first field is an int) have a positive first field.",
        contract_signature="rows",
        abstract="Zero is counted as positive.",
        failed_approach="`>= 0` reads as 'not negative', which is not 'positive'.",
        root_cause="Positive excludes zero: the boundary belongs to the contract.",
        preamble="",
        attempt="""
def solve(rows):
    count = 0
    for row in rows:
        if row[0] >= 0:
            count += 1
    return count
""",
        broken="""
def solve(rows):
    count = 0
    for row in rows[1:]:
        if row[0] > 0:
            count += 1
    return count
""",
        reference="""
def solve(rows):
    count = 0
    for row in rows:
        if row[0] > 0:
            count += 1
    return count
""",
        fixtures="""
check('one row', solve([(1, 'a', [1])]), 1)
check('zero is not positive', solve([(0, 'z', [])]), 0)
rows = [(i - 5, [i]) for i in range(40_000)]
check('40,000 rows', solve(rows), 39_994)
check('N rows', solve([(1, 'a', [])] * N), N)
""",
    ),
    # The cold-learner trial's TT-500005: a schedule shifted one step early (a counter starting at 1).
    "TR-005005": dict(
        title='Cyclical KL annealing: the beta schedule · trial record',
        category='Schedules',
        family='test-kl-annealing',
        contract='solve(period, ramp) is the cyclical annealing schedule of the KL weight beta for training a variational autoencoder. It returns an iterator (a generator) that yields one float per training step, forever, starting at step 0: the caller takes as many steps as it trains for. The schedule repeats every period steps. At step t, let p = t % period be the position in the cycle: beta = p / ramp while p < ramp (a linear ramp that starts at 0.0), and beta = 1.0 for the rest of the cycle. So step 0, and the first step of every cycle, has beta 0.0. ints with 1 <= ramp <= period.',
        contract_signature='period, ramp',
        abstract='The schedule ramps once and then stays at 1.0: it never starts a new cycle.',
        failed_approach='Counting steps from 1 feels natural for a training loop (step 1 is the first update), and every value the schedule produces is a legal beta: it ramps, holds at 1.0 and restarts with the right period.',
        root_cause='The first yielded value belongs to step 0, so the step counter must start at 0 (itertools.count(), or increment after yielding); counting from 1 shifts the whole schedule one step early, so no cycle starts at beta 0.0 (the curve starts at 1/ramp) and each restart to 0.0 comes one step before the cycle boundary. Sums and ranges over a whole cycle hide the shift.',
        preamble='import itertools\n',
        attempt="""
def solve(period, ramp):
    step = 0
    while True:
        step += 1
        yield min(1.0, (step % period) / ramp)
""",
        broken="""
def solve(period, ramp):
    for step in itertools.count():
        yield min(1.0, step / ramp)
""",
        reference="""
import itertools


def solve(period, ramp):
    for step in itertools.count():
        yield min(1.0, (step % period) / ramp)
""",
        fixtures="""
from itertools import islice

check('the first step', next(solve(10, 4)), 0.0)
check('the first N + 1 steps', list(islice(solve(10, 4), N + 1)), [min(1.0, (t % 10) / 4) for t in range(N + 1)])
check('three cycles of 10 steps, ramp 4', list(islice(solve(10, 4), 30)), [0.0, 0.25, 0.5, 0.75, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0] * 3)
check('a ramp over the whole cycle', list(islice(solve(8, 8), 24)), [p / 8 for p in range(8)] * 3)
check('a ramp of one step', list(islice(solve(4, 1), 8)), [0.0, 1.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0])
check('step 1000', next(islice(solve(10, 4), 1000, None)), 0.0)
check('the sum over one cycle', sum(islice(solve(10, 4), 10)), 7.5)
""",
    ),
    # The cold-learner trial's TT-500001: windows from a stream; an attempt with two mistakes.
    "TR-005001": dict(
        title='Sliding windows: the stream is read up front and a window goes missing · trial record',
        category='Data loading',
        family='test-sliding-windows',
        contract='solve(stream, window, stride) turns a stream of sensor readings (any iterable, possibly much longer than memory allows) into training windows for a time-series model. It returns an iterator that yields lists: the readings at positions 0 .. window-1, then at stride .. stride+window-1, and so on, one window starting every stride readings. Every window that fits completely is yielded, including the one that ends on the last reading; readings left over after the last complete window are not yielded. 1 <= stride <= window. It must be lazy: a window is yielded as soon as its last reading has been read, so taking the first window reads exactly window readings from the stream, and taking the first two reads window + stride.',
        contract_signature='stream, window, stride',
        abstract='The windows ignore the stride and the last chunk may be shorter than a window.',
        failed_approach='Materialising the stream as a list and slicing it gives the right windows for most lengths and is easy to reason about, and a range over the start positions looks like it stops at the last window that fits.',
        root_cause='Two separate things: list(stream) reads the whole stream before the first window can be yielded, so the windows are not lazy; and range(0, len(items) - window, stride) stops one start position early, so the window that ends exactly on the last reading is never yielded (the last valid start is len(items) - window, which range excludes).',
        preamble='from itertools import islice\n\n\nclass Stream:\n    """A sensor stream of n readings 0, 1, 2, ...; counts how many were read."""\n\n    def __init__(self, n):\n        self.n = n\n        self.read = 0\n\n    def __iter__(self):\n        return self\n\n    def __next__(self):\n        if self.read >= self.n:\n            raise StopIteration\n        self.read += 1\n        return self.read - 1\n\n\ndef first_window_reads(window, stride=1, n=50):\n    """How many readings solve took from a 50-reading stream to give its first window."""\n    stream = Stream(n)\n    next(iter(solve(stream, window, stride)))\n    return stream.read\n\n\ndef reads_for(windows, window, stride, n=50):\n    """How many readings solve took from a 50-reading stream to give its first `windows` windows."""\n    stream = Stream(n)\n    list(islice(solve(stream, window, stride), windows))\n    return stream.read\n',
        attempt="""
def solve(stream, window, stride):
    items = list(stream)
    for start in range(0, len(items) - window, stride):
        yield items[start:start + window]
""",
        broken="""
def solve(stream, window, stride):
    it = iter(stream)
    while True:
        chunk = list(islice(it, window))
        if not chunk:
            return
        yield chunk
""",
        reference="""
def solve(stream, window, stride):
    buffer = []
    for item in stream:
        buffer.append(item)
        if len(buffer) == window:
            yield list(buffer)
            del buffer[:stride]
""",
        fixtures="""
check('windows of 3, stride 1', list(solve(range(6), 3, 1)), [[0, 1, 2], [1, 2, 3], [2, 3, 4], [3, 4, 5]])
check('windows of 4, stride 2', list(solve(range(10), 4, 2)), [[0, 1, 2, 3], [2, 3, 4, 5], [4, 5, 6, 7], [6, 7, 8, 9]])
check('a leftover reading is not a window', list(solve(range(7), 4, 2)), [[0, 1, 2, 3], [2, 3, 4, 5]])
check('exactly one window', list(solve(range(3), 3, 1)), [[0, 1, 2]])
check('readings taken for the first window', first_window_reads(3), 3)
check('readings taken for two windows', reads_for(2, 4, 2), 6)
check('the first window of a long stream', next(solve(Stream(20), N + 2, 1)), list(range(N + 2)))
""",
    ),
    # A helper that catches solve's exception (raises): checks that measure which exception solve raises.
    "TR-005003": dict(
        title="Data-parallel batch config: validating the accumulation steps · exception record",
        category="Distributed training",
        family="test-dp-batch-config",
        contract='solve(global_batch, micro_batch, world_size) resolves a data-parallel training config: each of world_size workers processes micro_batch examples per forward pass, and the optimizer steps once per global_batch examples. Return the number of gradient accumulation steps, global_batch // (micro_batch * world_size), as an int. A config that cannot be run raises ValueError (the sweep launcher catches ValueError to skip bad configs): any of the three arguments that is not a positive int, or a global_batch that is not a multiple of micro_batch * world_size.',
        contract_signature="global_batch, micro_batch, world_size",
        abstract='The accumulation steps ignore world_size, and impossible configs are not rejected.',
        failed_approach='An assert states the divisibility condition in one line and stops a bad run during development, so the arithmetic is right and the check looks done.',
        root_cause="assert raises AssertionError, not the ValueError the contract (and the launcher's except ValueError) asks for, and python -O removes it entirely; its single condition also misses the other invalid inputs: a zero micro_batch fails inside % with ZeroDivisionError, and a negative world_size passes the divisibility test and returns a negative step count. Each argument has to be validated explicitly, raising ValueError.",
        preamble="""def raises(fn, *args):
    \"\"\"The name of the exception fn(*args) raises, or 'no error'.\"\"\"
    try:
        fn(*args)
    except Exception as exc:
        return type(exc).__name__
    return 'no error'
""",
        attempt="""
def solve(global_batch, micro_batch, world_size):
    per_step = micro_batch * world_size
    assert global_batch % per_step == 0, f"global batch {global_batch} is not a multiple of {per_step}"
    return global_batch // per_step
""",
        broken="""
def solve(global_batch, micro_batch, world_size):
    return global_batch // micro_batch
""",
        reference="""
def solve(global_batch, micro_batch, world_size):
    for name, value in (("global_batch", global_batch), ("micro_batch", micro_batch), ("world_size", world_size)):
        if not isinstance(value, int) or value < 1:
            raise ValueError(f"{name} must be a positive int, got {value!r}")
    per_step = micro_batch * world_size
    if global_batch % per_step:
        raise ValueError(f"global batch {global_batch} is not a multiple of micro_batch * world_size = {per_step}")
    return global_batch // per_step
""",
        fixtures="""
check('one GPU', solve(64, 8, 1), 8)
check('eight GPUs', solve(256, 4, 8), 8)
check('no accumulation needed', solve(32, 4, 8), 1)
check('an indivisible global batch raises', raises(solve, 100, 8, 4), 'ValueError')
check('a zero micro-batch raises', raises(solve, 64, 0, 8), 'ValueError')
check('a negative world size raises', raises(solve, 64, 8, -1), 'ValueError')
check('N GPUs', solve(16 * N, 2, N), 8)
""",
    ),
    # One module-level dict returned by every call: a check keeps the first call's result while a later call changes it.
    "TR-005004": dict(
        title="Label index map: results of one call and the next · shared dict record",
        category="Data preprocessing",
        family="test-label-index-cache",
        contract='solve(labels) builds the class-index map of one dataset split for a classifier: labels is a list of string labels (with repeats); return a dict that maps each distinct label to its index when the distinct labels are sorted: 0, 1, 2, ... An empty list gives {}. Every call is independent: its result depends only on its own labels, each call returns a dict of its own, and later calls never change a dict returned earlier.',
        contract_signature="labels",
        abstract='Indices follow the order in which labels first appear rather than sorted order.',
        failed_approach="Keeping the map at module level so it is built once and reused looks like a harmless speed-up, and the first call's map is exactly right.",
        root_cause="The module-level dict is one object shared by every call: each call adds its labels to it and returns it, so a later split's map holds the earlier splits' labels with shifted indices, and a map returned earlier keeps growing after it was returned. Each call must build and return a new dict.",
        preamble="_label_index = {}\n",  # the attempt's module-level map (broken and the reference never use it)
        attempt="""
def solve(labels):
    for label in sorted(set(labels)):
        if label not in _label_index:
            _label_index[label] = len(_label_index)
    return _label_index
""",
        broken="""
def solve(labels):
    return {label: i for i, label in enumerate(dict.fromkeys(labels))}
""",
        reference="""
def solve(labels):
    return {label: index for index, label in enumerate(sorted(set(labels)))}
""",
        fixtures="""
check('three classes', solve(['cat', 'dog', 'cat', 'bird']), {'bird': 0, 'cat': 1, 'dog': 2})
check('a second dataset', solve(['yes', 'no', 'no']), {'no': 0, 'yes': 1})
check('labels seen before', solve(['dog', 'cat']), {'cat': 0, 'dog': 1})
check('the first map, kept', (first := solve(['b', 'a']), solve(['c']), first)[2], {'a': 0, 'b': 1})
check('one class', solve(['spam'] * N), {'spam': 0})
check('an empty split', solve([]), {})
""",
    ),
}


def run_script(source: str) -> dict:
    """Run a script the way the record's harness does, and record what happened."""
    started = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", source], capture_output=True, text=True, timeout=60)
    elapsed = (time.perf_counter() - started) * 1000
    try:
        printed = json.loads(proc.stdout.splitlines()[-1])
        observations = printed["observations"]
    except (IndexError, ValueError, KeyError):
        observations = []
    return {
        "elapsed_ms": round(elapsed, 3),
        "exit_code": proc.returncode,
        "observations": observations,
        "passed": proc.returncode == 0,
        "stderr": proc.stderr.replace('File "<string>"', 'File "/tmp/failure_map_script.py"'),
        "stdout": proc.stdout,
    }


def build(record_id: str, spec: dict) -> dict:
    implementations = {}
    verification = {}
    for name in ("attempt", "broken"):
        source = script(spec[name], spec["fixtures"], spec["preamble"])
        implementations[name] = {"sha256": hashlib.sha256(source.encode()).hexdigest(), "source": source}
        verification[name] = run_script(source)
    return {
        "abstract": spec["abstract"],
        "category": spec["category"],
        "checks": len(verification["broken"]["observations"]),
        "contract": spec["contract"],
        "contract_signature": spec["contract_signature"],
        "failed_approach": spec["failed_approach"],
        "family": spec["family"],
        "id": record_id,
        "implementations": implementations,
        "limitations": "A test record written for failuremap_edu's own tests.",
        "method": "Deterministic executable model with adversarial boundary fixtures.",
        "provenance": {"created_by": "failuremap_edu tests", "license": "CC0-1.0", "python": sys.version.split()[0]},
        "relevance": "Exercises record shapes that the packaged records do not.",
        "root_cause": spec["root_cause"],
        "title": spec["title"],
        "variant": 1,
        "variant_policy": "The fixture code references N, supplied as 1 through 5.",
        "verification": verification,
        "verified": True,
        "visibility": "public",
    }


def main() -> None:
    for record_id, spec in RECORDS.items():
        record = build(record_id, spec)
        (HERE / f"{record_id}.json").write_text(json.dumps(record, ensure_ascii=False, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        (HERE / "solutions").mkdir(exist_ok=True)
        (HERE / "solutions" / f"{record_id}.py").write_text(spec["reference"].lstrip(), encoding="utf-8")
        print(record_id, {k: (v["exit_code"], len(v["observations"])) for k, v in record["verification"].items()})


if __name__ == "__main__":
    main()
