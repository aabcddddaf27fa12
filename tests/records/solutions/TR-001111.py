def solve(pairs):
    labels = sorted({x for pair in pairs for x in pair})
    out = {}
    for label in labels:
        tp = sum(1 for t, p in pairs if t == p == label)
        truly = sum(1 for t, _ in pairs if t == label)
        predicted = sum(1 for _, p in pairs if p == label)
        out[label] = {'p': tp / predicted if predicted else 0.0, 'r': tp / truly if truly else 0.0}
    return out
