def solve(batch):
    width = max((len(row) for row in batch), default=0)
    return [row + [0] * (width - len(row)) for row in batch], [len(row) for row in batch]
