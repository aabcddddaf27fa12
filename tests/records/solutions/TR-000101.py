import collections

def solve(tokens, k=2, *, normalize=False):
    if normalize:
        tokens = [t.lower() for t in tokens]
    counts = collections.Counter(tokens)
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    return dict(ranked[:k])
