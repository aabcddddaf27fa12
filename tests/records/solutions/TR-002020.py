def solve(token, seen=None):
    seen = [] if seen is None else seen
    seen.append(token)
    return seen
