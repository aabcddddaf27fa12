def solve(items, *, frac=0.5):
    k = round(len(items) * frac)
    return Split(list(items[:k]), list(items[k:]))
