def solve(ids):
    return bytes(i for i in ids if i < 256)
