def solve(xs):
    return sum(xs) / len(xs)
